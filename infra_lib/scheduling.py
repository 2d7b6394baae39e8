"""Handing GPUs to jobs: gang scheduling, and how placement on the network changes all-reduce time.

Gang scheduling. A data-parallel or tensor-parallel job cannot start until every one of its
workers has a GPU: they meet in the first collective. A scheduler that hands out GPUs worker by
worker can give two such jobs part of what each needs and run out: each holds GPUs it cannot use
and waits for GPUs the other holds, a deadlock (the hold-and-wait condition of Coffman, Elphick
and Shoshani 1971). A gang scheduler grants a job all its GPUs at once, or none.
:func:`simulate` plays both policies step by step.

Topology. Inside a node the GPUs share an NVLink domain; between nodes, each GPU has its own
NIC, and in a rail-optimized fabric NIC k of every node goes to leaf switch ("rail") k, so GPU k
of one node reaches GPU k of another through one switch. Leaves connect through spine switches
(a second tier) and, in large clusters, a third. :func:`placement_all_reduce_s` prices an
all-reduce for a placement with chapter 6's models (infra_lib.collectives): NCCL's pipelined
multi-channel ring by default, or the two-level all-reduce, pipelined or phase by phase.
"""
from dataclasses import dataclass

from . import _check, collectives


@dataclass(frozen=True)
class ClusterState:
    """The cluster after one scheduling step: GPUs held by each job, free GPUs, what runs."""
    step: int
    held: tuple[int, ...]
    free: int
    running: tuple[bool, ...]
    done: tuple[bool, ...]

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def simulate(free_gpus: int, need_gpus: int, jobs: int = 2, gpus_per_node: int = 8, run_steps: int = 2,
             gang: bool = False, max_steps: int = 40) -> tuple[ClusterState, ...]:
    """Two (or more) jobs of ``need_gpus`` each on a cluster with ``free_gpus`` free, step by step.

    Without gang scheduling, each step gives every waiting job, in turn, one node's worth of GPUs
    (``gpus_per_node``, or what is left). With gang scheduling, each step starts every waiting job,
    in turn, whose whole need is free, and gives nothing to the others. A job that holds all it
    needs runs for ``run_steps`` steps, then frees its GPUs. The simulation stops when every job is
    done, or when a step changes nothing (a deadlock), or after ``max_steps``.

    96 free GPUs, two jobs of 64, 8 GPUs a step: after 6 steps each job holds 48, none is free,
    nothing can move. With gang scheduling job 0 takes 64 at once, job 1 waits with nothing
    held, then takes 64 when job 0 is done.

    >>> s = simulate(96, 64)
    >>> s[-1].held, s[-1].free, any(s[-1].running)
    ((48, 48), 0, False)
    >>> g = simulate(96, 64, gang=True)
    >>> g[0].held, g[-1].done
    ((64, 0), (True, True))
    """
    free = _check.count("free_gpus", free_gpus, "GPUs", minimum=0)
    need = _check.count("need_gpus", need_gpus, "GPUs")
    n = _check.count("jobs", jobs, "jobs")
    per = _check.count("gpus_per_node", gpus_per_node, "GPUs")
    run = _check.count("run_steps", run_steps, "steps")
    gang = _check.flag("gang", gang)
    limit = _check.count("max_steps", max_steps, "steps")
    if n > 64 or limit > 10_000:
        raise ValueError(f"jobs (at most 64) or max_steps (at most 10000) too large: jobs={n}, max_steps={limit}")
    held, left, done = [0] * n, [0] * n, [False] * n
    states: list[ClusterState] = []
    for step in range(1, limit + 1):
        before = (tuple(held), free, tuple(left), tuple(done))
        for j in range(n):                                  # running jobs advance, finished ones free GPUs
            if left[j] > 0:
                left[j] -= 1
                if left[j] == 0:
                    free, held[j], done[j] = free + held[j], 0, True
        for j in range(n):                                  # waiting jobs get GPUs
            if done[j] or left[j] > 0:
                continue
            if gang:
                grant = need if free >= need else 0
            else:
                grant = min(per, free, need - held[j])
            held[j] += grant
            free -= grant
            if held[j] == need:
                left[j] = run
        states.append(ClusterState(step, tuple(held), free, tuple(x > 0 for x in left), tuple(done)))
        if all(done) or (tuple(held), free, tuple(left), tuple(done)) == before:
            break
    return tuple(states)


def deadlocked(states: tuple[ClusterState, ...]) -> bool:
    """True when the simulation ended with jobs unfinished, none running and GPUs held.

    >>> deadlocked(simulate(96, 64)), deadlocked(simulate(96, 64, gang=True))
    (True, False)
    """
    if not isinstance(states, (tuple, list)) or not states:
        raise TypeError(f"states must be the non-empty tuple simulate() returns, got {states!r:.40}")
    for s in states:
        _check.instance("states", s, ClusterState)
    last = states[-1]
    return not all(last.done) and not any(last.running) and any(h > 0 for h in last.held)


# ---- topology: domains, rails, tiers ------------------------------------------------------------

@_check.finite
def aggregate_Bps(ports: int, port_Bps: float) -> float:
    """Aggregate bandwidth of a node's links or a switch's ports: ports x per-port bandwidth.

    A DGX H100's 8 NICs of 400 Gb/s (50 GB/s each way): 400 GB/s per direction out of the node.

    >>> aggregate_Bps(8, 50e9) / 1e9
    400.0
    """
    return _check.count("ports", ports, "ports") * _check.positive("port_Bps", port_Bps, "bytes/s")


@_check.finite
def fat_tree_endpoints(radix: int, tiers: int) -> int:
    """Endpoints a non-blocking fat tree of ``tiers`` switch tiers of ``radix``-port switches reaches.

    Each tier below the top uses half its ports down and half up: 2 (k/2)^t endpoints. Two tiers
    (leaf and spine) give k^2 / 2, three give k^3 / 4 (Al-Fares, Loukissas and Vahdat 2008, §3).

    >>> fat_tree_endpoints(64, 1), fat_tree_endpoints(64, 2), fat_tree_endpoints(64, 3)
    (64, 2048, 65536)
    """
    k = _check.count("radix", radix, "ports")
    t = _check.count("tiers", tiers, "tiers")
    if k % 2 or k > 4096 or t > 6:
        raise ValueError(f"radix must be even and at most 4096 and tiers at most 6, got radix={k}, tiers={t}")
    return k if t == 1 else 2 * (k // 2) ** t


@_check.finite
def switch_hops(same_node: bool, same_rail: bool, same_leaf_group: bool) -> int:
    """Switches a message crosses between two GPUs in a rail-optimized two-tier fabric.

    Same node: 0 (NVLink). Same rail and the two nodes under the same rail leaf: 1. Otherwise up
    to a spine and down: 3.

    >>> switch_hops(True, True, True), switch_hops(False, True, True), switch_hops(False, False, True)
    (0, 1, 3)
    """
    if _check.flag("same_node", same_node):
        return 0
    return 1 if _check.flag("same_rail", same_rail) and _check.flag("same_leaf_group", same_leaf_group) else 3


PLACEMENT_MODELS = ("ring", "two_level", "serial", "in_network")
"""How :func:`placement_all_reduce_s` prices the all-reduce: NCCL's multi-channel ring (pipelined), the
two-level all-reduce with its phases pipelined, the two-level phases one after the other, or the
cross-node reduction done in the switches (SHARP)."""


@_check.finite
def placement_all_reduce_s(size_B: float, gpus_per_node: int, nodes: int, nvlink_Bps: float, nic_Bps: float,
                           oversubscription: float = 1.0, model: str = "ring") -> float:
    """All-reduce time of ``size_B`` over a job placed as ``nodes`` nodes of ``gpus_per_node`` GPUs.
    Equation eq-placement-all-reduce in chapter 8 (``model="ring"``).

    Each of the job's GPUs has its own NIC (a DGX H100), and a placement whose cross-node traffic goes
    through an oversubscribed switch tier (more ports down than up) gets nic_Bps / oversubscription.
    ``model`` says how the collective is priced:

    - ``"ring"`` (the default): what NCCL runs across nodes for large messages, a flat ring over all
      n = g N GPUs on one channel per NIC (:func:`infra_lib.collectives.multi_channel_ring_all_reduce`).
      Chunks are pipelined, so NVLink and the NICs work at once and the time is the slower of
      (g - 1)/g x 2(n - 1)/n x S / B_NVLink and 2(n - 1)/n x (S/g) / (B_NIC / o);
    - ``"two_level"``: chapter 6's reduce-scatter / all-reduce / all-gather with its phases pipelined,
      max(reduce-scatter + all-gather, inter-node) (``HierarchicalAllReduce.pipelined_s``);
    - ``"serial"``: the same three phases one after the other (``HierarchicalAllReduce.time_s``), an
      upper bound that no pipelined library pays;
    - ``"in_network"``: the switches reduce across nodes (InfiniBand SHARP through NCCL's CollNet), so each
      NIC sends its S/g once instead of 2(n - 1)/n times
      (:func:`infra_lib.collectives.in_network_hierarchical_all_reduce`, pipelined, at line rate).

    64 GPUs, 1 GB, NVLink 450 GB/s and 50 GB/s NICs: packed as 8 full nodes, the ring's NICs carry
    2 x 63/64 x 1 GB / 8 / 50 GB/s = 4.92 ms (its NVLink legs need 3.83 ms at the same time); spread
    as 64 nodes of one GPU, the same ring puts all 2 x 63/64 x 1 GB through each NIC, 39.4 ms: 8 times
    longer, the GPUs per node. Phases in series the packed placement would take 8.26 ms.

    >>> round(placement_all_reduce_s(1e9, 8, 8, 450e9, 50e9) * 1e3, 2)
    4.92
    >>> round(placement_all_reduce_s(1e9, 1, 64, 450e9, 50e9) * 1e3, 2)
    39.38
    >>> round(placement_all_reduce_s(1e9, 8, 8, 450e9, 50e9, model="serial") * 1e3, 2)
    8.26

    Reduced in the switches, the spread placement's NICs carry 1 GB once: 20 ms instead of 39.4 ms;
    packed, NVLink's 3.89 ms sets the time.

    >>> round(placement_all_reduce_s(1e9, 1, 64, 450e9, 50e9, model="in_network") * 1e3, 2)
    20.0
    >>> round(placement_all_reduce_s(1e9, 8, 8, 450e9, 50e9, model="in_network") * 1e3, 2)
    3.89
    """
    over = _check.number("oversubscription", oversubscription, "(down/up ports)")
    if over < 1:
        raise ValueError(f"oversubscription must be 1 (non-blocking) or more, got {over:g}")
    how = _check.choice("model", model, PLACEMENT_MODELS)
    _check.positive("nic_Bps", nic_Bps, "bytes/s per direction")
    if how == "ring":
        return collectives.multi_channel_ring_all_reduce(size_B, gpus_per_node, nodes, nvlink_Bps, nic_Bps / over).time_s
    if how == "in_network":
        return collectives.in_network_hierarchical_all_reduce(size_B, gpus_per_node, nodes, nvlink_Bps,
                                                              nic_Bps / over).time_s
    h = collectives.hierarchical_all_reduce(size_B, gpus_per_node, nodes, nvlink_Bps, nic_Bps / over)
    return h.pipelined_s if how == "two_level" else h.time_s
