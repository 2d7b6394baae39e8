"""Collective communication in the alpha-beta model: ring all-reduce, all-gather, reduce-scatter,
broadcast, a two-level (hierarchical) all-reduce and its multi-level generalisation, a flat
multi-channel ring across nodes, NCCL's small-message latency model, the gain of reducing in the
switch (inside a node and across nodes), and nccl-tests' algorithm and bus bandwidth.

The ring's (n - 1)/n factors are kept throughout. Sources that drop them (How to Scale Your
Model prices a cross-node all-reduce at 2S / W) take the large-n limit; at n = 2 that is twice
the true bandwidth term.

The alpha-beta (latency-bandwidth, "Hockney") model prices a message of m bytes on one link
at alpha + m / beta: alpha the per-message latency, beta the link bandwidth in one direction.
A ring of n ranks, each sending to its right neighbour while receiving from its left:

- reduce-scatter: n - 1 steps of S/n bytes     T = (n - 1) alpha + (n - 1)/n x S / beta
- all-gather:     n - 1 steps of S/n bytes     T = (n - 1) alpha + (n - 1)/n x S / beta
- all-reduce = reduce-scatter then all-gather  T = 2(n - 1) alpha + 2(n - 1)/n x S / beta

S is the size of the whole buffer (for all-gather, the gathered output), as in nccl-tests.
The ring all-reduce's bandwidth term is optimal: no algorithm can send fewer than
2(n - 1)/n x S bytes per rank (P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce
algorithms for clusters of workstations", J. Parallel Distrib. Comput. 69(2), 2009;
R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of Collective Communication Operations
in MPICH", Int. J. High Perform. Comput. Appl. 19(1), 2005, which derive the same costs).
Reduction arithmetic is left out: on GPUs it hides under the transfers.

nccl-tests (doc/PERFORMANCE.md) reports two bandwidths: algbw = S / t, and busbw = algbw x a
factor that makes it comparable with the hardware's link bandwidth: 2(n - 1)/n for all-reduce,
(n - 1)/n for all-gather and reduce-scatter, 1 for broadcast. With alpha = 0 the ring's busbw
is exactly beta.

8 GPUs, 1 GB, NVLink 4 at 450 GB/s per direction: each GPU sends 2 x 7/8 x 1 GB = 1.75 GB,
which takes 3.89 ms:

>>> round(ring_all_reduce_s(1e9, 8, 450e9) * 1e3, 2)
3.89
"""
from collections.abc import Sequence
from dataclasses import dataclass

from . import _check

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")


def _inputs(size_B: float, ranks: int, bandwidth_Bps: float, latency_s: float) -> tuple[float, int, float, float]:
    return (_check.non_negative("size_B", size_B, "bytes"), _check.count("ranks", ranks, "ranks"),
            _check.positive("bandwidth_Bps", bandwidth_Bps, "bytes/s per direction"),
            _check.non_negative("latency_s", latency_s, "s"))


@_check.finite
def bus_factor(collective: str, ranks: int) -> float:
    """busbw / algbw in nccl-tests (PERFORMANCE.md): what each rank's links carry per byte of S.

    all-reduce 2(n - 1)/n, all-gather and reduce-scatter (n - 1)/n, broadcast 1.

    >>> bus_factor("all_reduce", 8), bus_factor("all_gather", 8), bus_factor("broadcast", 8)
    (1.75, 0.875, 1.0)
    """
    c = _check.choice("collective", collective, COLLECTIVES)
    n = _check.count("ranks", ranks, "ranks")
    if c == "all_reduce":
        return 2 * (n - 1) / n
    if c in ("all_gather", "reduce_scatter"):
        return (n - 1) / n
    return 1.0


@_check.finite
def bytes_sent_per_rank_B(collective: str, size_B: float, ranks: int) -> float:
    """Bytes each rank sends in a ring (broadcast: a pipelined chain): S x :func:`bus_factor`.

    8 GPUs, 1 GB all-reduce: 2 x 7/8 x 1 GB = 1.75 GB per GPU.

    >>> bytes_sent_per_rank_B("all_reduce", 1e9, 8) / 1e9
    1.75
    """
    return _check.non_negative("size_B", size_B, "bytes") * bus_factor(collective, ranks)


@_check.finite
def latency_steps(collective: str, ranks: int) -> int:
    """How many times a ring (broadcast: a chain) pays the per-step latency alpha.

    all-reduce 2(n - 1) (a reduce-scatter, then an all-gather), the others n - 1.

    >>> latency_steps("all_reduce", 8), latency_steps("all_gather", 8), latency_steps("broadcast", 72)
    (14, 7, 71)
    """
    c = _check.choice("collective", collective, COLLECTIVES)
    n = _check.count("ranks", ranks, "ranks")
    return 2 * (n - 1) if c == "all_reduce" else n - 1


@_check.finite
def ring_time_s(collective: str, size_B: float, ranks: int, bandwidth_Bps: float, latency_s: float = 0.0) -> float:
    """Time of ``collective`` ('all_reduce', 'all_gather', 'reduce_scatter', 'broadcast') on a ring:
    :func:`latency_steps` x alpha + :func:`bytes_sent_per_rank_B` / beta. One rank sends nothing.

    8 GPUs, 1 GB all-reduce at 450 GB/s per direction with 5 us per step: 14 x 5 us + 1.75 GB / 450 GB/s.

    >>> round(ring_time_s("all_reduce", 1e9, 8, 450e9, 5e-6) * 1e3, 3)
    3.959
    """
    c = _check.choice("collective", collective, COLLECTIVES)
    s, n, bw, lat = _inputs(size_B, ranks, bandwidth_Bps, latency_s)
    if n == 1:
        return 0.0
    return latency_steps(c, n) * lat + bytes_sent_per_rank_B(c, s, n) / bw


@_check.finite
def ring_reduce_scatter_s(size_B: float, ranks: int, bandwidth_Bps: float, latency_s: float = 0.0) -> float:
    """Ring reduce-scatter: (n - 1) alpha + (n - 1)/n x S / beta (Thakur, Rabenseifner and Gropp 2005).

    Each rank ends with the sum of one 1/n share of the buffer. 8 GPUs, 1 GB, 450 GB/s: 1.94 ms.

    >>> round(ring_reduce_scatter_s(1e9, 8, 450e9) * 1e3, 3)
    1.944
    """
    return ring_time_s("reduce_scatter", size_B, ranks, bandwidth_Bps, latency_s)


@_check.finite
def ring_all_gather_s(size_B: float, ranks: int, bandwidth_Bps: float, latency_s: float = 0.0) -> float:
    """Ring all-gather of an S-byte result (each rank contributes S/n): (n - 1) alpha + (n - 1)/n x S / beta.

    >>> round(ring_all_gather_s(1e9, 8, 450e9, latency_s=5e-6) * 1e3, 3)   # 7 steps of 5 us added
    1.979
    """
    return ring_time_s("all_gather", size_B, ranks, bandwidth_Bps, latency_s)


@_check.finite
def ring_all_reduce_s(size_B: float, ranks: int, bandwidth_Bps: float, latency_s: float = 0.0) -> float:
    """Ring all-reduce = reduce-scatter + all-gather: 2(n - 1) alpha + 2(n - 1)/n x S / beta.

    Equation eq-ring-all-reduce in chapter 3.

    Bandwidth-optimal (Patarasuk and Yuan 2009). 8 GPUs, 1 GB, 450 GB/s per direction:
    1.75 GB / 450 GB/s = 3.89 ms; with 5 us per step, 14 steps add 70 us.

    >>> round(ring_all_reduce_s(1e9, 8, 450e9) * 1e3, 3), round(ring_all_reduce_s(1e9, 8, 450e9, 5e-6) * 1e3, 3)
    (3.889, 3.959)
    """
    return ring_time_s("all_reduce", size_B, ranks, bandwidth_Bps, latency_s)


@_check.finite
def in_network_all_reduce_s(size_B: float, bandwidth_Bps: float, latency_s: float = 0.0) -> float:
    """All-reduce with the reduction done in the switch (NVIDIA SHARP on NVSwitch): alpha + S / beta.

    Equation eq-switch-all-reduce in chapter 3.

    Each GPU sends its S bytes to the switch once and receives the reduced S bytes once, on the two
    directions of its links at the same time; the ring sends 2(n - 1)/n x S. The ideal, with the
    switch reducing at line rate: at large n it halves the ring's time. (NVIDIA's third-generation
    NVSwitch blog: "hardware acceleration for collective operations with multicast and NVIDIA
    SHARP in-network reductions".)

    8 GPUs, 1 GB, 450 GB/s per direction: 2.22 ms, against the ring's 3.89 ms.

    >>> round(in_network_all_reduce_s(1e9, 450e9) * 1e3, 2)
    2.22
    """
    s = _check.non_negative("size_B", size_B, "bytes")
    bw = _check.positive("bandwidth_Bps", bandwidth_Bps, "bytes/s per direction")
    lat = _check.non_negative("latency_s", latency_s, "s")
    return lat + s / bw


@_check.finite
def pipelined_broadcast_s(size_B: float, ranks: int, bandwidth_Bps: float, latency_s: float = 0.0) -> float:
    """Broadcast down a chain of n ranks, the message cut into many small chunks: (n - 1) alpha + S / beta.

    The large-message limit of a pipelined chain (NCCL's ring broadcast): once the pipe is
    full every link carries the whole S once, so busbw = algbw (nccl-tests PERFORMANCE.md);
    the first chunk needs n - 1 hops to reach the last rank. One rank: nothing to send.

    >>> round(pipelined_broadcast_s(1e9, 8, 450e9) * 1e3, 3)
    2.222
    """
    return ring_time_s("broadcast", size_B, ranks, bandwidth_Bps, latency_s)



@_check.finite
def algbw_Bps(size_B: float, time_s: float) -> float:
    """nccl-tests' algorithm bandwidth: S / t (PERFORMANCE.md). 1 GB in 3.89 ms: 257 GB/s.

    >>> round(algbw_Bps(1e9, 1e9 / 257.142857e9) / 1e9, 3)
    257.143
    """
    return _check.non_negative("size_B", size_B, "bytes") / _check.positive("time_s", time_s, "s")


@_check.finite
def busbw_Bps(collective: str, algbw: float, ranks: int) -> float:
    """nccl-tests' bus bandwidth: algbw x :func:`bus_factor` (PERFORMANCE.md).

    A ring all-reduce of 8 GPUs over 450 GB/s links reaches algbw 257 GB/s, busbw 450 GB/s:
    the link speed, which is why nccl-tests reports it.

    >>> t = ring_all_reduce_s(1e9, 8, 450e9)
    >>> round(busbw_Bps("all_reduce", algbw_Bps(1e9, t), 8) / 1e9, 6)
    450.0
    """
    return _check.non_negative("algbw", algbw, "bytes/s") * bus_factor(collective, ranks)


# ---- two levels: NVLink inside the node, the network between nodes -------------------------

@dataclass(frozen=True)
class HierarchicalAllReduce:
    """The three phases of a two-level all-reduce, in seconds: their sum, and the pipelined time.

    ``time_s`` runs the phases one after the other. Cut into chunks and pipelined (as NCCL
    pipelines chunks within each of its algorithms; NCCL itself has no reduce-scatter,
    all-reduce, all-gather hierarchy: across nodes it runs multi-channel rings and trees, NVLS-tree
    and CollNet), while one chunk crosses the network the next is reduced over NVLink:
    the two NVLink phases share the GPU's NVLink and the network phase runs on the NICs at the
    same time, and ``pipelined_s`` = max(reduce-scatter + all-gather, inter-node) is the
    large-message limit (pipeline fill left out).
    """
    gpus_per_node: int
    nodes: int
    reduce_scatter_s: float   # inside each node, over NVLink
    inter_node_s: float       # across nodes, each GPU's 1/g share over its own NIC
    all_gather_s: float       # inside each node, over NVLink

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def time_s(self) -> float:
        return self.reduce_scatter_s + self.inter_node_s + self.all_gather_s

    @property
    def pipelined_s(self) -> float:
        return max(self.reduce_scatter_s + self.all_gather_s, self.inter_node_s)


@_check.finite
def hierarchical_all_reduce(size_B: float, gpus_per_node: int, nodes: int, intra_Bps: float, inter_Bps: float,
                            intra_latency_s: float = 0.0, inter_latency_s: float = 0.0) -> HierarchicalAllReduce:
    """Two-level all-reduce: reduce-scatter inside the node, all-reduce across nodes, all-gather inside.

    1. ring reduce-scatter of S among the g GPUs of a node at ``intra_Bps`` (NVLink):
       (g - 1) alpha_i + (g - 1)/g x S / beta_i; each GPU now holds the node's sum of S/g bytes;
    2. ring all-reduce of those S/g bytes among the N nodes, GPU k of every node with GPU k
       of the others, each over its own NIC at ``inter_Bps`` (one NIC per GPU, as in a DGX H100):
       2(N - 1) alpha_e + 2(N - 1)/N x (S/g) / beta_e;
    3. ring all-gather of S inside the node: the same cost as step 1.

    The network carries only 1/g of the buffer per GPU, which is the point of the hierarchy
    (Thakur, Rabenseifner and Gropp 2005 build all-reduce from reduce-scatter and all-gather the
    same way). With one node it is the flat ring over NVLink; with one GPU per node, the flat
    ring over the network.

    2 nodes of 8 GPUs, 1 GB, NVLink 450 GB/s, 400 Gb/s NICs (50 GB/s): 7/8 x 1 GB / 450 GB/s
    = 1.944 ms inside, 2 x 1/2 x 125 MB / 50 GB/s = 2.5 ms across, 1.944 ms inside again;
    a flat ring of all 16 GPUs at the NIC's speed would take 2 x 15/16 x 1 GB / 50 GB/s = 37.5 ms.

    A flat ring of 16 GPUs is no straw man either: NCCL runs one ring (channel) per NIC, see
    :func:`multi_channel_ring_all_reduce`.

    >>> h = hierarchical_all_reduce(1e9, 8, 2, 450e9, 50e9)
    >>> round(h.reduce_scatter_s * 1e3, 3), round(h.inter_node_s * 1e3, 3), round(h.time_s * 1e3, 3)
    (1.944, 2.5, 6.389)
    >>> round(h.pipelined_s * 1e3, 3)      # pipelined: the NVLink phases (3.889 ms) hide the network's 2.5 ms
    3.889
    """
    s = _check.non_negative("size_B", size_B, "bytes")
    g = _check.count("gpus_per_node", gpus_per_node, "GPUs per node")
    n = _check.count("nodes", nodes, "nodes")
    _check.positive("intra_Bps", intra_Bps, "bytes/s per direction")
    _check.positive("inter_Bps", inter_Bps, "bytes/s per direction")
    _check.non_negative("intra_latency_s", intra_latency_s, "s")
    _check.non_negative("inter_latency_s", inter_latency_s, "s")
    rs = ring_reduce_scatter_s(s, g, intra_Bps, intra_latency_s)
    inter = ring_all_reduce_s(s / g, n, inter_Bps, inter_latency_s)
    ag = ring_all_gather_s(s, g, intra_Bps, intra_latency_s)
    return HierarchicalAllReduce(g, n, rs, inter, ag)


@dataclass(frozen=True)
class ChannelRing:
    """A flat ring all-reduce across nodes on several channels: the time each kind of link needs."""
    channels: int
    nvlink_s: float     # the busiest GPU's NVLink
    network_s: float    # the busiest NIC
    latency_s: float    # 2(n - 1) steps of alpha

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def time_s(self) -> float:
        """Both kinds of link carry chunks at once (the ring is pipelined): the slower one sets the time."""
        return self.latency_s + max(self.nvlink_s, self.network_s)


@_check.finite
def multi_channel_ring_all_reduce(size_B: float, gpus_per_node: int, nodes: int, intra_Bps: float,
                                  inter_Bps: float, nics_per_node: int | None = None,
                                  latency_s: float = 0.0) -> ChannelRing:
    """A flat ring all-reduce over all g x N GPUs, run as one ring (channel) per NIC, as NCCL does.

    NCCL builds several rings over the same GPUs and gives each a slice of the buffer; on a
    node with k NICs it builds (at least) k, each leaving the node through its own NIC. Its
    tuner prices the ring at busBw = nChannels x per-channel speed (NCCL ``src/graph/tuning.cc``).
    With c = k channels, each ring carries S/c and every rank of it sends 2(n - 1)/n of that,
    n = g N:

    - each NIC carries one channel: 2(n - 1)/n x S / k / beta_e;
    - each channel crosses a node in g - 1 NVLink hops, so each GPU's NVLink carries
      (g - 1)/g x 2(n - 1)/n x S / beta_i (on one node the ring closes inside it: the flat ring).

    The ring is pipelined, so the time is the slower of the two, plus 2(n - 1) alpha. This is the
    fair baseline for a hierarchical all-reduce: a single ring through one NIC per node would be
    k times slower on the network.

    4 nodes of 8 GPUs, 1 GB, NVLink 450 GB/s, eight 50 GB/s NICs per node:
    2 x 31/32 x 125 MB / 50 GB/s = 4.84 ms per NIC, 7/8 x 2 x 31/32 x 1 GB / 450 GB/s = 3.77 ms of NVLink.

    >>> r = multi_channel_ring_all_reduce(1e9, 8, 4, 450e9, 50e9)
    >>> round(r.network_s * 1e3, 2), round(r.nvlink_s * 1e3, 2), round(r.time_s * 1e3, 2)
    (4.84, 3.77, 4.84)
    """
    s = _check.non_negative("size_B", size_B, "bytes")
    g = _check.count("gpus_per_node", gpus_per_node, "GPUs per node")
    nn = _check.count("nodes", nodes, "nodes")
    bi = _check.positive("intra_Bps", intra_Bps, "bytes/s per direction")
    be = _check.positive("inter_Bps", inter_Bps, "bytes/s per direction")
    k = g if nics_per_node is None else _check.count("nics_per_node", nics_per_node, "NICs per node")
    lat = _check.non_negative("latency_s", latency_s, "s")
    n = g * nn
    if n == 1:
        return ChannelRing(k, 0.0, 0.0, 0.0)
    per_rank = bus_factor("all_reduce", n) * s           # what each rank sends, summed over the channels
    if nn == 1:
        return ChannelRing(k, per_rank / bi, 0.0, latency_steps("all_reduce", n) * lat)
    return ChannelRing(k, (g - 1) / g * per_rank / bi, per_rank / k / be, latency_steps("all_reduce", n) * lat)


@_check.finite
def multilevel_all_reduce_s(size_B: float, levels: Sequence[tuple[int, float]], pipelined: bool = True) -> float:
    """All-reduce over a hierarchy of levels: reduce-scatter down the levels, all-reduce at the top,
    all-gather back up. Equation eq-multilevel-allreduce in chapter 6.

    ``levels`` lists (fan-out n_i, bandwidth beta_i per rank per direction) from the innermost
    level out, beta_i being what one rank can push at that level (its NVLink inside a node, its
    share of the node's egress beyond). Level i works on S_i = S / (n_1 ... n_(i-1)) bytes and
    costs t_i = 2 (n_i - 1)/n_i x S_i / beta_i (its reduce-scatter and its all-gather, or the
    top level's all-reduce). Run one after the other the time is sum_i t_i; pipelined in chunks
    through the levels (as NCCL pipelines chunks within each algorithm), it is max_i t_i: How to Scale Your Model's
    T = bytes x max_i (D_i - 1) / (D_i x S_(i-1) x W_i), written for a reduce-scatter
    ("How to Think About GPUs", "Cross-node collectives"). Latency is left out.

    4 nodes of 8 GPUs, 1 GB: NVLink 2 x 7/8 x 1 GB / 450 GB/s = 3.89 ms, then 2 x 3/4 x 125 MB / 50 GB/s
    = 3.75 ms across nodes; pipelined 3.89 ms, serial 7.64 ms (:func:`hierarchical_all_reduce`).

    >>> round(multilevel_all_reduce_s(1e9, [(8, 450e9), (4, 50e9)]) * 1e3, 2)
    3.89
    >>> round(multilevel_all_reduce_s(1e9, [(8, 450e9), (4, 50e9)], pipelined=False) * 1e3, 2)
    7.64
    """
    s = _check.non_negative("size_B", size_B, "bytes")
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Sequence) or not levels:
        raise TypeError(f"levels: expected a non-empty sequence of (ranks, bandwidth_Bps) pairs, got {levels!r}")
    pipe = _check.flag("pipelined", pipelined)
    times, share = [], s
    for i, level in enumerate(levels):
        if not isinstance(level, (tuple, list)) or len(level) != 2:
            raise TypeError(f"levels[{i}]: expected a (ranks, bandwidth_Bps) pair, got {level!r}")
        n = _check.count(f"levels[{i}] ranks", level[0], "ranks")
        bw = _check.positive(f"levels[{i}] bandwidth_Bps", level[1], "bytes/s per direction")
        times.append(bus_factor("all_reduce", n) * share / bw)
        share /= n
    return max(times) if pipe else sum(times)


@_check.finite
def multilevel_busbw_Bps(size_B: float, levels: Sequence[tuple[int, float]], pipelined: bool = True) -> float:
    """The bus bandwidth nccl-tests would print for :func:`multilevel_all_reduce_s`:
    2(n - 1)/n x S / t, n the product of the fan-outs (PERFORMANCE.md's busbw).

    It is the one number to compare with a link's speed: with the levels pipelined, it is the
    slowest level's bandwidth scaled up by the ranks below it. 4 nodes of 8 GPUs on 450 GB/s
    NVLink and 50 GB/s NICs: 2 x 31/32 x 1 GB / 3.89 ms = 498 GB/s, more than either link,
    because each NIC carries only an eighth of the buffer.

    >>> round(multilevel_busbw_Bps(1e9, [(8, 450e9), (4, 50e9)]) / 1e9)
    498
    """
    t = multilevel_all_reduce_s(size_B, levels, pipelined)
    n = 1
    for level in levels:
        n *= int(level[0])
    s = float(size_B)
    if t == 0:
        raise ValueError("size_B: a bus bandwidth needs a non-empty buffer on more than one rank")
    return bus_factor("all_reduce", n) * s / t


@_check.finite
def in_network_gain(ranks: int) -> float:
    """How many times faster an all-reduce reduced in the switch (NVLink SHARP, NCCL's NVLS) is than
    a ring, for large messages: 2(n - 1)/n (:func:`ring_all_reduce_s` over
    :func:`in_network_all_reduce_s`, bandwidth terms). Equation eq-switch-gain in chapter 6.

    The ideal: the switch must reduce at line rate. How to Scale Your Model reports about 30%
    in practice against the ideal 2x ("How to Think About GPUs", "Data Parallelism").

    >>> in_network_gain(8), in_network_gain(2)
    (1.75, 1.0)
    """
    return bus_factor("all_reduce", ranks)


@dataclass(frozen=True)
class InNetworkAllReduce:
    """An all-reduce across nodes reduced in the network's switches (SHARP): bytes and link times."""
    nic_B: float        # what each NIC sends into the fabric (and receives back), per direction
    nvlink_s: float     # the node's reduce-scatter and all-gather on each GPU's NVLink
    network_s: float    # each NIC's share sent once up the reduction tree

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def time_s(self) -> float:
        """Chunks are pipelined through NVLink and the fabric, so the slower of the two sets the time."""
        return max(self.nvlink_s, self.network_s)


@_check.finite
def in_network_hierarchical_all_reduce(size_B: float, gpus_per_node: int, nodes: int, intra_Bps: float,
                                       inter_Bps: float) -> InNetworkAllReduce:
    """All-reduce over N nodes of g GPUs with the cross-node reduction done in the switches.
    Equation eq-sharp-all-reduce in chapter 8.

    NVIDIA SHARP on InfiniBand switches (NCCL's CollNet, through the NCCL-RDMA-SHARP plugin):
    inside each node a reduce-scatter over NVLink leaves each GPU the node's sum of S/g bytes;
    each GPU's NIC sends that S/g once into the fabric, the switches add the N nodes' shares on
    the way up a reduction tree and send the total back down, so each NIC carries S/g in each
    direction; an all-gather over NVLink finishes. A flat ring over the same n = gN GPUs puts
    2(n - 1)/n x S/g through each NIC (:func:`multi_channel_ring_all_reduce`), so the fabric
    carries 2(n - 1)/n times fewer bytes (:func:`in_network_gain`). Pipelined through both kinds
    of link, as NCCL runs it, the time is the slower of

        NVLink: 2 (g - 1)/g x S / beta_i        fabric: (S / g) / beta_e

    The ideal: the switches reduce at line rate and latency is left out. With g = 1 there is no
    NVLink phase; with one node, no fabric (the ring inside the node).

    8 nodes of 8 GPUs, 1 GB, NVLink 450 GB/s, 50 GB/s NICs: each NIC sends 125 MB, 2.5 ms, but
    the node's NVLink phases need 2 x 7/8 x 1 GB / 450 GB/s = 3.89 ms, and set the time; the
    flat ring needs 4.92 ms on its NICs. One GPU on each of 64 nodes: 20 ms against 39.4 ms.

    >>> r = in_network_hierarchical_all_reduce(1e9, 8, 8, 450e9, 50e9)
    >>> r.nic_B / 1e6, round(r.network_s * 1e3, 2), round(r.nvlink_s * 1e3, 2), round(r.time_s * 1e3, 2)
    (125.0, 2.5, 3.89, 3.89)
    >>> round(in_network_hierarchical_all_reduce(1e9, 1, 64, 450e9, 50e9).time_s * 1e3, 2)
    20.0
    """
    s = _check.non_negative("size_B", size_B, "bytes")
    g = _check.count("gpus_per_node", gpus_per_node, "GPUs per node")
    nn = _check.count("nodes", nodes, "nodes")
    bi = _check.positive("intra_Bps", intra_Bps, "bytes/s per direction")
    be = _check.positive("inter_Bps", inter_Bps, "bytes/s per direction")
    nvlink = bus_factor("all_reduce", g) * s / bi if g > 1 else 0.0
    if nn == 1:
        return InNetworkAllReduce(0.0, nvlink, 0.0)
    return InNetworkAllReduce(s / g, nvlink, s / g / be)


# ---- NCCL's small-message latency ------------------------------------------------------------

@_check.finite
def nccl_ring_latency_s(collective: str, ranks: int, base_latency_s: float, hop_latency_s: float) -> float:
    """The fixed cost of a ring collective in NCCL's tuner: t0 + steps x alpha_hop.

    NCCL's ``src/graph/tuning.cc`` prices an algorithm and protocol at
    latency = baseLat + nsteps x hwLat (inside one node), nsteps = 2(n - 1) for a ring
    all-reduce (:func:`latency_steps`), and a message of S bytes at latency + S / busBw.
    baseLat is the fixed cost of a launch; hwLat the cost of one step over the link type.
    The fixed term dominates at small n: unlike 2(n - 1) alpha alone, t0 does not grow with n.
    Equation eq-nccl-latency in chapter 6.

    Ring, LL protocol, NVLink, NCCL 2.18 to 2.30: 6.6 us + 14 x 0.6 us = 15 us for 8 GPUs;
    NCCL 2.12 to 2.17: 3.6 + 14 x 0.47 = 10.2 us.

    >>> round(nccl_ring_latency_s("all_reduce", 8, 6.6e-6, 0.6e-6) * 1e6, 2)
    15.0
    >>> round(nccl_ring_latency_s("all_reduce", 8, 3.6e-6, 0.47e-6) * 1e6, 2)
    10.18
    """
    t0 = _check.non_negative("base_latency_s", base_latency_s, "s")
    a = _check.non_negative("hop_latency_s", hop_latency_s, "s")
    n = _check.count("ranks", ranks, "ranks")
    return 0.0 if n == 1 else t0 + latency_steps(collective, n) * a


# ---- a multi-axis torus (TPU-style), for comparison ----------------------------------------------

def _torus_args(size_B: float, dims: tuple[int, ...], bandwidth_Bps: float,
                latency_s: float) -> tuple[float, list[int], float, float]:
    """The checked arguments of the torus collectives: bytes, axis sizes, per-direction bandwidth, latency."""
    s = _check.non_negative("size_B", size_B, "bytes")
    if isinstance(dims, (str, bytes)) or not isinstance(dims, (tuple, list)) or not dims:
        raise TypeError(f"dims: expected a non-empty tuple of axis sizes, got {dims!r}")
    axes = [_check.count(f"dims[{i}]", n, "ranks") for i, n in enumerate(dims)]
    beta = _check.positive("bandwidth_Bps", bandwidth_Bps, "bytes/s per direction")
    alpha = _check.non_negative("latency_s", latency_s, "s")
    return s, axes, beta, alpha


@_check.finite
def torus_all_reduce_s(size_B: float, dims: tuple[int, ...], bandwidth_Bps: float, latency_s: float = 0.0) -> float:
    """All-reduce on a torus of axes ``dims`` with bidirectional rings along each axis.

    Reduce-scatter along axis 1, then axis 2 on the 1/n_1 share left, and so on; then all-gather
    back in reverse. A bidirectional ring sends half of each step's data each way, so axis i
    costs 2(n_i - 1) alpha + 2 (n_i - 1)/n_i x S_i / (2 beta), with S_i = S / (n_1 ... n_(i-1))
    (How to Scale Your Model, "Sharded Matrices"; Thakur et al. 2005 for the axis-by-axis
    construction). Equation eq-torus-allreduce in chapter 6.

    A 4 x 4 x 4 torus, 1 GB, 100 GB/s per link direction: (0.75 + 0.1875 + 0.046875) x 1 GB / 100 GB/s.

    >>> round(torus_all_reduce_s(1e9, (4, 4, 4), 100e9) * 1e3, 3)
    9.844
    >>> torus_all_reduce_s(1e9, (8,), 100e9) == ring_all_reduce_s(1e9, 8, 200e9)
    True
    """
    s, axes, beta, alpha = _torus_args(size_B, dims, bandwidth_Bps, latency_s)
    total, share = 0.0, s
    for n in axes:
        total += 2 * (n - 1) * alpha + 2 * (n - 1) / n * share / (2 * beta)
        share /= n
    return total


@_check.finite
def torus_all_gather_s(size_B: float, dims: tuple[int, ...], bandwidth_Bps: float, latency_s: float = 0.0,
                       concurrent: bool = False) -> float:
    """All-gather of an S-byte result on a torus of axes ``dims``, axis by axis, with bidirectional
    rings along each axis. Equation eq-torus-allgather in chapter 6.

    Gathered along the axes in the order given, stage i leaves each rank holding
    S_i = S / (n_(i+1) ... n_k) bytes, and its bidirectional ring (two links per rank, one each way,
    each at beta) costs (n_i - 1) alpha + (n_i - 1)/n_i x S_i / (2 beta). The bandwidth terms
    telescope, sum_i (1/(n_(i+1) ... n_k) - 1/(n_i ... n_k)) = 1 - 1/N: in any order, the torus
    moves (N - 1)/N x S per rank, as one bidirectional ring of all N = n_1 ... n_k ranks would. What
    the torus saves is latency: sum_i (n_i - 1) steps instead of N - 1. It is the all-gather half of
    :func:`torus_all_reduce_s` (run in the reverse order of its reduce-scatter).

    With ``concurrent``, every axis gathers at once, the buffer split into one part per axis
    (each part taking the axes in a rotated order), so every axis's links are busy at every stage:
    in the ideal of perfect balance the bandwidth term divides by the number of axes longer than 1.
    This is How to Scale Your Model's rule for an AllGather over several mesh axes, V / (W_ici
    N_axes) with W_ici the bidirectional bandwidth ("Sharded Matrices", "What happens when we
    AllGather over multiple axes?"), which also drops the (N - 1)/N factor (the many-rank limit).

    A 4 x 4 x 2 torus, 1 GB, 50 GB/s per link direction: 31/32 x 1 GB / 100 GB/s = 9.69 ms;
    its three axes at once, 3.23 ms.

    >>> round(torus_all_gather_s(1e9, (4, 4, 2), 50e9) * 1e3, 3), round(torus_all_gather_s(1e9, (4, 4, 2), 50e9, concurrent=True) * 1e3, 3)
    (9.688, 3.229)
    >>> torus_all_gather_s(1e9, (8,), 100e9) == ring_all_gather_s(1e9, 8, 200e9)
    True
    """
    s, axes, beta, alpha = _torus_args(size_B, dims, bandwidth_Bps, latency_s)
    split = max(1, sum(n > 1 for n in axes)) if _check.flag("concurrent", concurrent) else 1
    total, held = 0.0, s
    for n in reversed(axes):           # the last stage ends with S; each earlier one with 1/n of the next
        total += (n - 1) * alpha + (n - 1) / n * held / (2 * beta * split)
        held /= n
    return total
