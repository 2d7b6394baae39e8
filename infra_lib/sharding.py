"""Sharding: bytes per device, when a sharded matmul becomes communication-bound, tensor-parallel
traffic per decode step, and how many GPUs prefill and decode need when they are split apart.

A mesh names its axes and their sizes, ``{"data": 4, "model": 2}``; a sharding ``spec`` names,
for each array dimension, the mesh axis it is split over (or ``None``: replicated), as in JAX's
``PartitionSpec`` (the notation of *How to Scale Your Model*, "Sharded Matrices"). Used in
chapters 6 and 7.
"""
import math
from collections.abc import Mapping, Sequence

from . import _check, collectives


def _mesh(mesh: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(mesh, Mapping) or not mesh:
        raise TypeError(f"mesh: expected a non-empty dict of axis name -> size, got {mesh!r}")
    return {_check.text("mesh", k): _check.count(f"mesh[{k!r}]", v, "devices") for k, v in mesh.items()}


@_check.finite
def bytes_per_device_B(shape: Sequence[int], bytes_per_element: float, mesh: dict[str, int],
                       spec: tuple[str | None, ...]) -> float:
    """Bytes one device holds of an array of ``shape`` sharded by ``spec`` over ``mesh``.

    bytes = prod(shape) x bytes_per_element / prod(size of each mesh axis named in spec).
    A dimension split over an axis must divide evenly (else a ValueError naming it); an axis may
    be used once; axes not named replicate the array. Equation eq-shard-bytes in chapter 6.

    Llama-3-70B's FFN up-projection (8192 x 28672, BF16) split over 8 GPUs on its output:

    >>> bytes_per_device_B((8192, 28672), 2, {"tp": 8}, (None, "tp")) / 1e6
    58.720256
    >>> bytes_per_device_B((1024, 1024), 4, {"data": 2, "model": 4}, ("data", "model"))
    524288.0
    """
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence) or not shape:
        raise TypeError(f"shape: expected a non-empty sequence of dimension sizes, got {shape!r}")
    dims = [_check.count(f"shape[{i}]", d, "elements") for i, d in enumerate(shape)]
    size = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    axes = _mesh(mesh)
    if not isinstance(spec, (tuple, list)) or len(spec) != len(dims):
        raise ValueError(f"spec: expected one entry (an axis name or None) per dimension of "
                         f"shape {tuple(dims)}, got {spec!r}")
    used: list[str] = []
    for i, (d, axis) in enumerate(zip(dims, spec)):
        if axis is None:
            continue
        n = _check.lookup("spec", axis, axes, "mesh axis")
        if axis in used:
            raise ValueError(f"spec: mesh axis {axis!r} is used twice")
        if d % n:
            raise ValueError(f"spec: dimension {i} ({d}) is not divisible by mesh axis {axis!r} ({n})")
        used.append(axis)
    shards = math.prod(axes[a] for a in used)
    return float(math.prod(dims)) * size / shards


@_check.finite
def tp_comm_bound_intensity(peak_flop_s: float, link_Bps: float) -> float:
    """FLOPs per byte communicated above which a tensor-parallel matmul hides its communication.

    A matmul [B, D] x [D, F] with F split over n devices followed by an all-gather (or D split and
    a reduce-scatter) computes 2BDF/n FLOPs and moves about B x F x bytes per element per device
    (How to Scale Your Model, "Sharded Matrices" and "Transformer inference"): compute hides the
    transfer when 2BDF/n / peak > B F b / link, i.e. when D / (n b) > peak / (2 link).
    This function returns that threshold, peak / link, in FLOPs per byte.

    H100: 989 TFLOP/s over 450 GB/s of NVLink per direction: about 2,198 FLOPs per byte.

    >>> round(tp_comm_bound_intensity(989e12, 450e9))
    2198
    """
    return (_check.positive("peak_flop_s", peak_flop_s, "FLOP/s")
            / _check.positive("link_Bps", link_Bps, "bytes/s"))


@_check.finite
def tp_max_degree(d_ff: int, peak_flop_s: float, link_Bps: float, bytes_per_element: float = 2.0) -> float:
    """The largest tensor-parallel degree n at which a sharded matmul still hides its communication.

    Y = X W with X [B, D] and W [D, F] split over F on n devices: each device computes 2 B D F / n
    FLOPs and receives about B D b bytes of X (an all-gather; b bytes per element). Compute
    hides the transfer when 2 B D F / n / peak > B D b / link, i.e. n < 2 F link / (b peak)
    (How to Scale Your Model, "Sharded Matrices"). Equation eq-tp-threshold in chapter 6.

    Llama-3-70B's FFN (F = 28,672), H100 (989 TFLOP/s dense BF16, 450 GB/s NVLink per direction):
    2 x 28672 x 450e9 / (2 x 989e12) = 13.05.

    >>> round(tp_max_degree(28672, 989e12, 450e9), 2)
    13.05
    """
    f = _check.count("d_ff", d_ff, "")
    b = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    return 2 * f * _check.positive("link_Bps", link_Bps, "bytes/s") / (
        b * _check.positive("peak_flop_s", peak_flop_s, "FLOP/s"))


OVERLAPS = {"backward": 4, "step": 6}   # FLOPs per parameter per token the gradient all-reduce can hide under


@_check.finite
def dp_min_batch_per_device(peak_flop_s: float, link_Bps: float, links: int = 1, overlap: str = "backward",
                            ranks: int | None = None, bytes_per_element: float = 2.0) -> float:
    """Tokens per GPU per step above which data-parallel training hides its gradient all-reduce.

    The gradient (b bytes per parameter) is all-reduced once per step; the all-reduce can only
    overlap the work still to do once the gradients appear, the backward pass: 4 FLOPs per
    parameter per token (``overlap="backward"``; ``"step"``, 6 FLOPs, is the optimistic bound
    that overlaps the forward pass too). A ring moves 2(X - 1)/X x b bytes per parameter at
    W = ``links`` x ``link_Bps``, the bandwidth at which one GPU's gradient leaves its group:
    inside a node its NVLink (links = 1); across nodes the node's egress, all its NICs at once
    (links = 8 on a rail-optimized DGX H100), since a hierarchical all-reduce sends only 1/g of
    each GPU's gradient through each of the node's g NICs. Compute-bound when

        f B / C > 2 (X - 1)/X x b / W,   i.e.   B > 2 b / f x (X - 1)/X x C / W.

    With the defaults (f = 4, b = 2, X large: ``ranks=None`` drops (X - 1)/X) this is
    B > C / W, How to Scale Your Model's B/X > C / W_collective ("How to Think About GPUs",
    "Data Parallelism": about 2,500 tokens across H100 nodes). ``ranks`` (X: nodes across nodes,
    GPUs inside one) keeps the ring's factor. Equation eq-dp-threshold in chapter 6.

    H100, 990 TFLOP/s, across nodes of eight 50 GB/s NICs: 990e12 / 400e9 = 2,475 tokens;
    through one NIC with the whole step overlapped: 2/3 x 990e12 / 50e9 = 13,200.

    >>> round(dp_min_batch_per_device(990e12, 50e9, links=8))
    2475
    >>> round(dp_min_batch_per_device(990e12, 50e9, overlap="step"))
    13200
    >>> round(dp_min_batch_per_device(990e12, 50e9, links=8, ranks=2))    # 2 nodes: half
    1238
    """
    c = _check.positive("peak_flop_s", peak_flop_s, "FLOP/s")
    w = _check.positive("link_Bps", link_Bps, "bytes/s") * _check.count("links", links, "links")
    f = OVERLAPS[_check.choice("overlap", overlap, tuple(OVERLAPS))]
    b = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    ring = 1.0 if ranks is None else (_check.count("ranks", ranks, "ranks") - 1) / ranks
    return 2 * b / f * ring * c / w


@_check.finite
def contracting_min_dim(ranks: int, peak_flop_s: float, link_Bps: float, bytes_per_element: float = 2.0,
                        collective: str = "reduce_scatter") -> float:
    """The smallest contracting dimension D at which a matmul sharded along D hides its communication.

    Y = X W with X [B, D] and W [D, F] both split over D on n devices: each device computes a
    partial Y of 2 B D F / n FLOPs, which must then be summed across devices, a reduce-scatter
    (Megatron's row-parallel layer before a sequence-parallel region) or an all-reduce of the
    B x F x b bytes of Y. A ring sends :func:`infra_lib.collectives.bus_factor` x B F b bytes per device, so
    compute hides it when 2 B D F / (n P) > factor x B F b / beta, i.e.

        D > n x factor x b x P / (2 beta)

    (for a reduce-scatter, (n - 1) b P / (2 beta)). Unlike :func:`tp_max_degree`, the batch and F
    cancel: only D, n and the hardware count (How to Scale Your Model, "Sharded Matrices", case 3).
    Equation eq-tp-contracting in chapter 6.

    H100 (989 TFLOP/s, 450 GB/s NVLink), 8 devices, BF16: 7 x 2 x 989e12 / 900e9 = 15,384; Llama-3-70B's
    FFN down-projection contracts over 28,672.

    >>> round(contracting_min_dim(8, 989e12, 450e9))
    15384
    >>> round(contracting_min_dim(8, 989e12, 450e9, collective="all_reduce"))
    30769
    """
    n = _check.count("ranks", ranks, "ranks")
    c = _check.choice("collective", collective, ("reduce_scatter", "all_reduce"))
    p = _check.positive("peak_flop_s", peak_flop_s, "FLOP/s")
    bw = _check.positive("link_Bps", link_Bps, "bytes/s")
    b = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    return n * collectives.bus_factor(c, n) * b * p / (2 * bw)


@_check.finite
def tp_decode_comm_s(d_model: int, layers: int, batch: int, tp: int, link_Bps: float,
                     latency_s: float = 0.0, bytes_per_element: float = 2.0, base_latency_s: float = 0.0) -> float:
    """Time one decode step spends in tensor-parallel all-reduces (Megatron-LM layout).

    Each layer all-reduces its activations twice (after attention and after the MLP), B x D
    values each; one all-reduce of S bytes over n GPUs takes t0 + 2(n-1) alpha + 2(n-1)/n S / beta:
    NCCL's fixed cost t0 (``base_latency_s``) and per-step alpha (``latency_s``)
    (:func:`infra_lib.collectives.nccl_ring_latency_s`) plus the ring's bandwidth term
    (:func:`infra_lib.collectives.ring_all_reduce_s`). Shoeybi et al. (2019), Megatron-LM, §3.
    Equation eq-tp-decode in chapter 6.

    Llama-3-8B (32 layers, D = 4096), batch 1, 8 GPUs on 450 GB/s: 64 all-reduces of 8 KB,
    bandwidth term only: 64 x 1.75 x 8192 / 450e9 = 2.04 microseconds; with NCCL's ring-LL
    constants on NVLink (t0 = 6.6 us, alpha = 0.6 us): 64 x 15 us more.

    >>> round(tp_decode_comm_s(4096, 32, 1, 8, 450e9) * 1e6, 2)
    2.04
    >>> round(tp_decode_comm_s(4096, 32, 1, 8, 450e9, latency_s=0.6e-6, base_latency_s=6.6e-6) * 1e6, 1)
    962.0
    """
    d = _check.count("d_model", d_model, "")
    nl = _check.count("layers", layers, "layers")
    b = _check.count("batch", batch, "requests")
    n = _check.count("tp", tp, "GPUs")
    size = b * d * _check.positive("bytes_per_element", bytes_per_element, "bytes")
    t0 = _check.non_negative("base_latency_s", base_latency_s, "s") if n > 1 else 0.0
    return 2 * nl * (t0 + collectives.ring_all_reduce_s(size, n, link_Bps, latency_s))


@_check.finite
def disaggregated_gpus(requests_per_s: float, prefill_s_per_request: float, output_tokens: int,
                       decode_step_s: float, decode_batch: int) -> tuple[int, int]:
    """Prefill and decode GPUs for a request rate when the two phases run on separate GPUs.

    prefill GPUs = ceil(rate x prefill time per request) (each GPU does one prefill at a time);
    decode GPUs = ceil(rate x output tokens x step time / batch) (each GPU advances ``batch``
    requests by one token per step). Little's law on each pool, as in DistServe (Zhong et al.,
    2024) and Splitwise (Patel et al., 2024), without their latency targets: this is the mean
    occupancy, the fewest GPUs that keep up, not a pool that meets a time-to-first-token target
    (:func:`md1_wait_s` gives the queueing wait at that occupancy).

    20 requests/s, 50 ms prefill, 500 output tokens at 10 ms per step in batches of 64:
    1 prefill GPU and ceil(20 x 500 x 0.01 / 64) = 2 decode GPUs.

    >>> disaggregated_gpus(20, 0.05, 500, 0.01, 64)
    (1, 2)
    """
    prefill, decode = disaggregated_load(requests_per_s, prefill_s_per_request, output_tokens, decode_step_s,
                                         decode_batch)
    if max(prefill, decode) > 1e12:
        raise ValueError("requests_per_s: this rate needs more than 10**12 GPUs")
    return math.ceil(prefill - 1e-9), math.ceil(decode - 1e-9)


@_check.finite
def disaggregated_load(requests_per_s: float, prefill_s_per_request: float, output_tokens: int,
                       decode_step_s: float, decode_batch: int) -> tuple[float, float]:
    """The busy GPUs of each pool by Little's law, before :func:`disaggregated_gpus` rounds them up:
    (rate x prefill time, rate x output tokens x step time / batch).

    >>> disaggregated_load(20, 0.05, 500, 0.01, 64)
    (1.0, 1.5625)
    """
    rate = _check.positive("requests_per_s", requests_per_s, "requests/s")
    pre = _check.positive("prefill_s_per_request", prefill_s_per_request, "s")
    out = _check.count("output_tokens", output_tokens, "tokens")
    step = _check.positive("decode_step_s", decode_step_s, "s")
    b = _check.count("decode_batch", decode_batch, "requests")
    return rate * pre, rate * out * step / b


@_check.finite
def prefill_decode_ratio(prefill_s_per_request: float, output_tokens: int, decode_step_s: float,
                         decode_batch: int) -> float:
    """Prefill GPUs per decode GPU in a disaggregated deployment, both pools equally busy (xP:yD).

    Equation eq-pd-ratio in chapter 6: each request takes t_p of a prefill GPU and T x t_step / B of
    a decode GPU (``output_tokens`` steps, a ``decode_batch``-th of each), so by Little's law on
    both pools (:func:`disaggregated_gpus`) the busy GPUs stand in the ratio

        P / D = t_p / (T t_step / B) = t_p B / (T t_step),

    whatever the request rate. A fraction, reported as it is: 0.64 means 16 prefill GPUs for every
    25 decode GPUs; any one deployment rounds both pools up (DistServe, Zhong et al. 2024, sizes
    them against latency targets as well; Splitwise, Patel et al. 2024, provisions the two pools apart).

    50 ms of prefill, 500 output tokens at 10 ms per step in batches of 64: 0.05 / (500 x 0.01 / 64).

    >>> prefill_decode_ratio(0.05, 500, 0.01, 64)
    0.64
    """
    pre = _check.positive("prefill_s_per_request", prefill_s_per_request, "s")
    out = _check.count("output_tokens", output_tokens, "tokens")
    step = _check.positive("decode_step_s", decode_step_s, "s")
    b = _check.count("decode_batch", decode_batch, "requests")
    return pre * b / (out * step)


@_check.finite
def md1_wait_s(requests_per_s: float, service_s: float, servers: int = 1) -> float:
    """Mean time a request waits in queue before its service starts, Poisson arrivals and a fixed
    service time (an M/D/1 queue): W_q = rho / (2 (1 - rho)) x service, rho = rate x service.

    The Pollaczek-Khinchine formula with a deterministic service time (half the M/M/1 wait).
    ``servers`` splits the arrivals evenly over that many independent queues (random dispatch,
    each an M/D/1 at rate / servers): an upper bound on a shared queue of as many GPUs.
    A prefill GPU is such a server: each prompt takes about the same time. The wait grows
    without bound as rho -> 1, so a pool sized by Little's law alone (:func:`disaggregated_gpus`)
    can keep up and still miss any time-to-first-token target. Equation eq-md1-wait in chapter 6.

    20 requests/s, 48.7 ms each, on one GPU: rho = 0.974, a wait of 0.974 / 0.052 x 48.7 ms = 0.91 s;
    on two, rho = 0.487 and the wait is 23 ms.

    >>> round(md1_wait_s(20, 0.0487), 2), round(md1_wait_s(20, 0.0487, servers=2) * 1e3, 1)
    (0.91, 23.1)
    """
    rate = _check.positive("requests_per_s", requests_per_s, "requests/s")
    s = _check.positive("service_s", service_s, "s")
    c = _check.count("servers", servers, "servers")
    rho = rate * s / c
    if rho >= 1:
        raise ValueError(f"requests_per_s: {rate:g} requests/s at {s:g} s each load {c} server(s) to "
                         f"rho = {rho:.3g} >= 1; the queue grows without bound")
    return rho / (2 * (1 - rho)) * s


@_check.finite
def tp_all_reduce_budget_s(tokens_per_s_one: float, tokens_per_s_tp: float, tp: int, layers: int) -> float:
    """The most time one tensor-parallel all-reduce can take, from measured decode speeds at TP = 1 and n.

    At batch one a step on n GPUs does at least 1/n of the one-GPU step's work on each GPU,
    so what the n-GPU step takes beyond t_1 / n bounds its 2L all-reduces (Megatron layout,
    :func:`tp_decode_comm_s`) from above, with every other overhead of splitting included:
    budget = (t_n - t_1 / n) / (2 L), t = 1 / tokens per second.

    gpt-fast's Llama-2-7B (32 layers) on A100s: 104.9 tokens/s on one GPU, 328.43 on eight:
    (3.045 - 9.533 / 8) ms / 64 = 29 us per all-reduce.

    >>> round(tp_all_reduce_budget_s(104.9, 328.43, 8, 32) * 1e6, 1)
    29.0
    """
    one = _check.positive("tokens_per_s_one", tokens_per_s_one, "tokens/s")
    many = _check.positive("tokens_per_s_tp", tokens_per_s_tp, "tokens/s")
    n = _check.count("tp", tp, "GPUs")
    nl = _check.count("layers", layers, "layers")
    extra = 1 / many - 1 / (one * n)
    if extra < 0:
        raise ValueError(f"tokens_per_s_tp: {many:g} tokens/s on {n} GPUs is more than {n} x {one:g}; "
                         f"the split cannot be faster than perfect scaling")
    return extra / (2 * nl)
