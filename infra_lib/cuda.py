"""CUDA kernels by arithmetic: indexing, bytes moved, coalescing, tiling and streams.

Chapter 5 of the course uses these; the occupancy calculator is :mod:`infra_lib.occupancy`.

- Vector add: thread i = blockIdx.x x blockDim.x + threadIdx.x (CUDA C++ Programming Guide,
  "Thread Hierarchy"); it reads two elements and writes one, so its time cannot be less than
  3 n x element bytes / bandwidth.
- Coalescing: a warp's loads are served in 32-byte sectors (CUDA C++ Best Practices Guide,
  "Coalesced Access to Global Memory"); the useful fraction is bytes asked for / sector bytes moved.
- Tiling: a tile of BM x BN outputs stepping through K in chunks of BK does 2 BM BN BK FLOP on
  (BM + BN) BK elements it loads: intensity 2 BM BN / ((BM + BN) x element bytes).
- Waves: a grid of tiles runs on the SMs in waves of (SMs x blocks per SM) tiles; the last wave may
  be partly empty, so the useful fraction is tiles / (waves x SMs x blocks per SM).
- Streams: chunks flow through three engines (host-to-device copy, compute, device-to-host copy),
  each taking one chunk at a time in order (CUDA C++ Programming Guide, "Asynchronous Concurrent Execution").
"""
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from . import _check, measurements, units

SECTOR_B = 32
SMEM_BANKS = 32
"""Shared-memory banks per SM, 4 bytes wide (CUDA C++ Programming Guide, "Shared Memory")."""
DRAM_FETCH_B = 64
"""A hypothesis, not a datasheet value: the unit HBM may be read in (two sectors), which fits the H200
gather's drop from stride 8 to 16 (chapter 5). ``cudaLimitMaxL2FetchGranularity`` (CUDA Runtime API)
sets the L2's fetch granularity, 0 to 128 bytes, as a hint."""
STRIDED_BENCH_ELEMENTS = 1 << 28
"""Floats the H200 gather benchmark reads and writes per launch (its method, ladder.py: ``nel = 1 << 28``)."""


# ---- vector add ---------------------------------------------------------------------------

@_check.finite
def grid_blocks(n: int, threads_per_block: int) -> int:
    """Blocks to launch so every one of n elements has a thread: ceil(n / threads per block).

    >>> grid_blocks(1_000_000, 256), grid_blocks(1024, 256)
    (3907, 4)
    """
    n_ = _check.count("n", n, "elements")
    return math.ceil(n_ / _check.count("threads_per_block", threads_per_block, "threads"))


@_check.finite
def global_index(block_idx: int, threads_per_block: int, thread_idx: int) -> int:
    """The element a thread handles: blockIdx.x x blockDim.x + threadIdx.x.

    >>> global_index(2, 256, 5)
    517
    """
    tpb = _check.count("threads_per_block", threads_per_block, "threads")
    t = _check.count("thread_idx", thread_idx, "(index in the block)", minimum=0)
    if t >= tpb:
        raise ValueError(f"thread_idx must be less than threads_per_block ({tpb}), got {t}")
    return _check.count("block_idx", block_idx, "(index in the grid)", minimum=0) * tpb + t


@_check.finite
def idle_threads(n: int, threads_per_block: int) -> int:
    """Threads of the last block that find no element (the `if (i < n)` guard): blocks x size - n.

    >>> idle_threads(1_000_000, 256)
    192
    """
    return grid_blocks(n, threads_per_block) * int(threads_per_block) - int(n)


@_check.finite
def vector_add_bytes_B(n: int, element_B: float = 4) -> float:
    """Bytes c = a + b moves: read a and b, write c, each n elements once: 3 n x element bytes.

    >>> vector_add_bytes_B(1 << 28) / 1e9     # 268 million floats: 3.2 GB
    3.221225472
    """
    return 3 * _check.count("n", n, "elements") * _check.positive("element_B", element_B, "bytes")


@_check.finite
def time_floor_s(moved_B: float, bandwidth_Bps: float) -> float:
    """The least time to move the bytes: bytes / bandwidth. Equation eq-vector-add-floor in chapter 5.

    >>> round(time_floor_s(3.2e9, 4.8e12) * 1e6)
    667
    """
    return _check.positive("moved_B", moved_B, "bytes") / _check.positive("bandwidth_Bps", bandwidth_Bps, "bytes/s")


@_check.finite
def vector_add_flop_per_B(element_B: float = 4) -> float:
    """One addition per 3 elements moved: 1 / (3 x element bytes) FLOP per byte.

    >>> round(vector_add_flop_per_B(4), 4)
    0.0833
    """
    return 1 / (3 * _check.positive("element_B", element_B, "bytes"))


# ---- coalescing ---------------------------------------------------------------------------

MAX_WARP_LANES = 1024          # CUDA's most threads per block: no warp model needs more lanes
MAX_TIMELINE_CHUNKS = 10_000   # a drawn timeline of more chunks is unreadable anyway


@_check.finite
def sectors_per_warp(stride: int, element_B: int = 4, warp_size: int = 32, sector_B: int = SECTOR_B) -> int:
    """Distinct 32-byte sectors one warp touches when lane i reads element i x stride (aligned start).

    Stride 1, floats: 128 bytes in 4 sectors. Stride 8 or more: every lane its own sector.

    >>> [sectors_per_warp(s) for s in (1, 2, 4, 8, 32)]
    [4, 8, 16, 32, 32]
    >>> sectors_per_warp(1, warp_size=1e308)
    Traceback (most recent call last):
    ...
    ValueError: warp_size must be at most 1024 lanes (a block's most threads), got 1e+308
    """
    s = _check.count("stride", stride, "elements")
    e = _check.count("element_B", element_B, "bytes")
    w = _check.count("warp_size", warp_size, "lanes")
    if w > MAX_WARP_LANES:      # the count goes lane by lane: refuse what would fill memory
        raise ValueError(f"warp_size must be at most {MAX_WARP_LANES} lanes (a block's most threads), "
                         f"got {w:.3g}")
    sec = _check.count("sector_B", sector_B, "bytes")
    return len({(lane * s * e) // sec for lane in range(w)})


@_check.finite
def useful_fraction(stride: int, element_B: int = 4, warp_size: int = 32, sector_B: int = SECTOR_B) -> float:
    """Bytes the warp asked for / bytes the sectors moved: W x element / (sectors x 32).

    Equation eq-coalescing in chapter 5.

    >>> [useful_fraction(s) for s in (1, 2, 4, 8, 16)]
    [1.0, 0.5, 0.25, 0.125, 0.125]
    """
    n = sectors_per_warp(stride, element_B, warp_size, sector_B)
    return int(warp_size) * int(element_B) / (n * int(sector_B))


@_check.finite
def sector_traffic_Bps(read_Bps: float, stride: int, write_Bps: float = 0.0, element_B: int = 4,
                       sector_B: int = SECTOR_B) -> float:
    """Bytes per second the memory moves behind a strided read and a coalesced write: read / fraction + write.

    Equation eq-strided-traffic in chapter 5. The read drags in whole sectors (``sector_B``; 32 bytes,
    or a coarser DRAM fetch such as 64); the coalesced write moves what it writes.

    >>> sector_traffic_Bps(227.5e9, 32, 227.5e9) / 1e9            # 32-byte sectors: 8 x read + write
    2047.5
    >>> sector_traffic_Bps(227.5e9, 32, 227.5e9, sector_B=64) / 1e9   # 64-byte fetches: 16 x read + write
    3867.5
    """
    r = _check.positive("read_Bps", read_Bps, "bytes/s")
    w = _check.non_negative("write_Bps", write_Bps, "bytes/s")
    return r / useful_fraction(stride, element_B, sector_B=sector_B) + w


@_check.finite
def strided_share_of_roof(stride: int, element_B: int = 4, sector_B: int = SECTOR_B) -> float:
    """Useful rate of the gather (read + write counted) as a share of a copy's rate, if memory traffic is the limit.

    Equal read and write bytes u/2 each cost u/2 x (1/f + 1) of traffic; at the copy's traffic rate
    the useful share is 2 f / (1 + f). Stride 1: 1; every lane its own 32-byte sector (f = 1/8): 2/9.

    >>> strided_share_of_roof(1), round(strided_share_of_roof(8), 4), round(strided_share_of_roof(32, sector_B=64), 4)
    (1.0, 0.2222, 0.1176)
    """
    f = useful_fraction(stride, element_B, sector_B=sector_B)
    return 2 * f / (1 + f)


@_check.finite
def gather_reuse_distance_B(n: int, stride: int, element_B: int = 4, sector_B: int = SECTOR_B) -> float:
    """Bytes of other sectors a gather ``in[(i*stride) % n]`` fetches before a sector's next float is read.

    With a stride that divides n every index read is a multiple of the stride: the floats between
    are never read, and thread i + n/stride reads thread i's float again. The n/stride threads
    between the two reads each fetch min(stride x element, sector) new bytes. Stride 2 and more
    (at stride 1 nothing is read twice). 2^28 floats at stride 32: 256 MiB, far more than any L2.

    >>> gather_reuse_distance_B(1 << 28, 32) / 2**20, gather_reuse_distance_B(1 << 28, 8) / 2**30
    (256.0, 1.0)
    """
    nn = _check.count("n", n, "elements")
    s = _check.count("stride", stride, "elements", minimum=2)
    e = _check.count("element_B", element_B, "bytes")
    return nn // s * min(s * e, _check.count("sector_B", sector_B, "bytes"))


@dataclass(frozen=True)
class StridedRow:
    """One stride of the H200 gather benchmark (read strided, write coalesced) against the sector model."""
    stride: int
    measured_Bps: float        # useful bytes per second as the benchmark counts them: read + write
    fraction: float            # useful fraction of the read, 32-byte sectors
    fraction_64: float         # the same if memory fetches 64 bytes at a time
    of_copy: float             # measured / the copy's rate (read + write counted alike)
    model_of_copy: float       # 2 f / (1 + f): the share traffic alone allows, 32-byte sectors
    model_64_of_copy: float    # the same with 64-byte fetches
    sector_Bps: float          # traffic behind the measurement: read / fraction + write, 32-byte sectors
    fetch64_Bps: float         # the same with 64-byte fetches

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def strided_against_sectors(rows: Sequence[tuple[int, float]], copy_Bps: float | None = None) -> list[StridedRow]:
    """Each measured (stride, useful B/s of read + write) beside the sector model and the copy's rate.

    The benchmark (``out[i] = in[(i*stride) % n] * 2``) counts 2 x 4 bytes per element: half the
    useful bytes are the strided read, half the coalesced write. ``copy_Bps`` defaults to the
    H200 run's device-to-device copy (read + write counted alike).

    >>> r = strided_against_sectors([(1, 2000e9), (8, 900e9)], 4000e9)
    >>> [round(x.of_copy, 3) for x in r], r[1].sector_Bps / 1e9
    ([0.5, 0.225], 4050.0)
    """
    if not rows:
        raise ValueError("rows must hold at least one (stride, useful B/s) pair")
    if copy_Bps is None:
        copy_Bps = float(measurements.load()["copy"]["GBps"] * units.GB)
    roof = _check.positive("copy_Bps", copy_Bps, "bytes/s")
    out = []
    for s, b in rows:
        u = _check.positive(f"useful rate at stride {s}", b, "bytes/s")
        out.append(StridedRow(int(s), float(u), useful_fraction(s), useful_fraction(s, sector_B=DRAM_FETCH_B), u / roof,
                              strided_share_of_roof(s), strided_share_of_roof(s, sector_B=DRAM_FETCH_B),
                              sector_traffic_Bps(u / 2, s, u / 2), sector_traffic_Bps(u / 2, s, u / 2, sector_B=DRAM_FETCH_B)))
    return out


# ---- shared-memory tiling -------------------------------------------------------------------

@_check.finite
def naive_matmul_intensity(element_B: float = 4) -> float:
    """A thread per output, reading a row of A and a column of B from memory: 2 FLOP per 2 elements.

    >>> naive_matmul_intensity(4), naive_matmul_intensity(2)
    (0.25, 0.5)
    """
    return 1 / _check.positive("element_B", element_B, "bytes")


@_check.finite
def tile_intensity(tile_m: int, tile_n: int, element_B: float = 4) -> float:
    """FLOP per byte loaded by a BM x BN tile: 2 BM BN / ((BM + BN) x element). Equation eq-tile-intensity.

    A square T x T tile: T / element bytes. 32 x 32 in FP32: 8; 128 x 128 in BF16: 64.

    >>> tile_intensity(32, 32, 4), tile_intensity(128, 128, 2), tile_intensity(128, 256, 2)
    (8.0, 64.0, 85.33333333333333)
    """
    m = _check.count("tile_m", tile_m, "rows")
    n = _check.count("tile_n", tile_n, "columns")
    return 2 * m * n / ((m + n) * _check.positive("element_B", element_B, "bytes"))


@_check.finite
def tile_smem_B(tile_m: int, tile_n: int, tile_k: int, element_B: float = 4, stages: int = 1) -> float:
    """Shared memory for the A and B tiles: stages x (BM + BN) x BK x element bytes.

    32 x 32 FP32 tiles with BK = 32: 8 KiB. 128 x 256, BK = 64, BF16, 4 stages: 192 KiB.

    >>> tile_smem_B(32, 32, 32) / 1024, tile_smem_B(128, 256, 64, 2, 4) / 1024
    (8.0, 192.0)
    """
    m = _check.count("tile_m", tile_m, "rows")
    n = _check.count("tile_n", tile_n, "columns")
    k = _check.count("tile_k", tile_k, "elements")
    return (_check.count("stages", stages, "buffers") * (m + n) * k
            * _check.positive("element_B", element_B, "bytes"))


@_check.finite
def square_tile_for_intensity(intensity: float, element_B: float = 4) -> int:
    """The smallest square tile T whose intensity T / element reaches ``intensity``: ceil(I x element).

    >>> square_tile_for_intensity(206.1, 2)
    413
    """
    return math.ceil(_check.positive("intensity", intensity, "FLOP per byte")
                     * _check.positive("element_B", element_B, "bytes"))


@_check.finite
def accumulator_B(tile_m: int, tile_n: int, acc_B: float = 4) -> float:
    """Bytes of the output tile's accumulators, held for the whole K loop: BM x BN x accumulator bytes.

    They grow with the square of the tile, the staging buffers only linearly (:func:`tile_smem_B`).
    A 128 x 256 tile in FP32: 128 KiB, half of an SM's 256 KiB register file.

    >>> accumulator_B(128, 256) / 1024
    128.0
    """
    return (_check.count("tile_m", tile_m, "rows") * _check.count("tile_n", tile_n, "columns")
            * _check.positive("acc_B", acc_B, "bytes"))


@_check.finite
def bandwidth_for_flop_s_Bps(flop_s: float, intensity: float) -> float:
    """Bandwidth a memory level must deliver to keep a FLOP rate at a given intensity against it: FLOP/s / I.

    Equation eq-level-bandwidth in chapter 5. 775 TFLOP/s from 128 x 256 BF16 tiles (85.3 FLOP/byte) loaded
    from L2: 9.1 TB/s.

    >>> round(bandwidth_for_flop_s_Bps(775e12, tile_intensity(128, 256, 2)) / 1e12, 2)
    9.08
    """
    return _check.positive("flop_s", flop_s, "FLOP/s") / _check.positive("intensity", intensity, "FLOP per byte")


# ---- waves ----------------------------------------------------------------------------------

class _Waves(NamedTuple):
    waves: int
    efficiency: float


class Waves(_Waves):
    """How a grid of tiles fills the SMs: whole waves, and the fraction of SM slots doing work (a tuple)."""
    __slots__ = ()

    def __new__(cls, waves: int, efficiency: float) -> "Waves":
        eff = _check.fraction("efficiency", efficiency)
        if eff <= 0:
            raise ValueError(f"efficiency must be above 0, got {eff:g}")
        return super().__new__(cls, _check.count("waves", waves, "waves"), eff)

    def __init__(self, waves: int, efficiency: float) -> None:    # the hints, for readers and the fuzz test
        pass


@_check.finite
def output_tiles(m: int, n: int, tile_m: int, tile_n: int) -> int:
    """Output tiles of an M x N matmul cut into tile_m x tile_n tiles: ceil(M / tile_m) x ceil(N / tile_n).

    A 128 x 4096 output in 128 x 128 tiles: 32; in 128 x 256 tiles: 16.

    >>> output_tiles(128, 4096, 128, 128), output_tiles(128, 4096, 128, 256), output_tiles(100, 100, 64, 64)
    (32, 16, 4)
    """
    mm = _check.count("m", m, "rows")
    nn = _check.count("n", n, "columns")
    return (math.ceil(mm / _check.count("tile_m", tile_m, "rows"))
            * math.ceil(nn / _check.count("tile_n", tile_n, "columns")))


@_check.finite
def wave_quantization(n_tiles: int, sm_count: int, blocks_per_sm: int = 1) -> Waves:
    """Waves a grid of n_tiles needs and the fraction of SM slots they keep busy.

    waves = ceil(n_tiles / (SMs x blocks per SM)); efficiency = n_tiles / (waves x SMs x blocks per SM).
    Equation eq-waves in chapter 5. 132 tiles on 132 SMs fill one wave; 133 need two, half empty.

    >>> wave_quantization(132, 132), wave_quantization(133, 132)
    (Waves(waves=1, efficiency=1.0), Waves(waves=2, efficiency=0.5037878787878788))
    >>> wave_quantization(448, 132, 2).waves
    2
    """
    t = _check.count("n_tiles", n_tiles, "tiles")
    slots = _check.count("sm_count", sm_count, "SMs") * _check.count("blocks_per_sm", blocks_per_sm, "blocks")
    waves = math.ceil(t / slots)
    return Waves(waves, t / (waves * slots))


# ---- streams --------------------------------------------------------------------------------

STAGES = ("h2d", "kernel", "d2h")


@dataclass(frozen=True)
class Span:
    """One chunk on one engine: stage name, chunk number, start and end in seconds."""
    stage: str
    chunk: int
    start_s: float
    end_s: float

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def stream_timeline(chunks: int, h2d_s: float, kernel_s: float, d2h_s: float) -> list[Span]:
    """The schedule of ``chunks`` equal chunks through copy-in, kernel and copy-out engines.

    Chunk i's stage j starts when chunk i finished stage j - 1 and the engine finished chunk i - 1.
    One chunk is the serial case. Equation eq-stream-overlap gives the end.

    >>> [(s.stage, s.chunk, s.start_s, s.end_s) for s in stream_timeline(2, 1, 2, 1)]
    [('h2d', 0, 0.0, 1.0), ('kernel', 0, 1.0, 3.0), ('d2h', 0, 3.0, 4.0), ('h2d', 1, 1.0, 2.0), ('kernel', 1, 3.0, 5.0), ('d2h', 1, 5.0, 6.0)]
    """
    n = _check.count("chunks", chunks, "chunks")
    if n > MAX_TIMELINE_CHUNKS:  # one Span per chunk and stage: refuse what would fill memory
        raise ValueError(f"chunks must be at most {MAX_TIMELINE_CHUNKS:,} for a timeline (three spans each), "
                         f"got {n:.3g}; overlapped_time_s gives the total for any count")
    times = (_check.non_negative("h2d_s", h2d_s, "s"), _check.non_negative("kernel_s", kernel_s, "s"),
             _check.non_negative("d2h_s", d2h_s, "s"))
    free = [0.0, 0.0, 0.0]
    out = []
    for i in range(n):
        ready = 0.0
        for j, (stage, t) in enumerate(zip(STAGES, times)):
            start = max(ready, free[j])
            ready = free[j] = start + t
            out.append(Span(stage, i, start, ready))
    return out


@_check.finite
def overlapped_time_s(chunks: int, h2d_s: float, kernel_s: float, d2h_s: float) -> float:
    """Pipelined total: the first chunk through every stage, then one slowest stage per further chunk.

    T = (h2d + kernel + d2h) + (chunks - 1) x max(h2d, kernel, d2h). Equation eq-stream-overlap.

    >>> overlapped_time_s(4, 1, 2, 1), overlapped_time_s(1, 1, 2, 1)
    (10.0, 4.0)
    """
    n = _check.count("chunks", chunks, "chunks")
    ts = [_check.non_negative(k, v, "s") for k, v in (("h2d_s", h2d_s), ("kernel_s", kernel_s), ("d2h_s", d2h_s))]
    return sum(ts) + (n - 1) * max(ts)


@_check.finite
def h2d_pinned_Bps(run: str = measurements.RUN) -> float:
    """Measured host-to-device copy rate from pinned memory on the H200 run (PCIe Gen5 x16)."""
    return float(measurements.load(run, name="ladder")["h2d_pinned_GBps"] * units.GB)


@_check.finite
def d2h_pinned_Bps(run: str = measurements.RUN) -> float:
    """Measured device-to-host copy rate to pinned memory on the H200 run."""
    return float(measurements.load(run, name="ladder")["d2h_pinned_GBps"] * units.GB)


@_check.finite
def h2d_pageable_Bps(run: str = measurements.RUN) -> float:
    """Measured host-to-device copy rate from pageable (ordinary) host memory on the H200 run."""
    return float(measurements.load(run, name="ladder")["h2d_pageable_GBps"] * units.GB)


class _LaunchCost(NamedTuple):
    eager_s: float
    graph_s: float


class LaunchCost(_LaunchCost):
    """Seconds per tiny kernel: launched one by one from Python, and replayed from a CUDA graph (a tuple)."""
    __slots__ = ()

    def __new__(cls, eager_s: float, graph_s: float) -> "LaunchCost":
        return super().__new__(cls, _check.positive("eager_s", eager_s, "s"), _check.positive("graph_s", graph_s, "s"))

    def __init__(self, eager_s: float, graph_s: float) -> None:   # the hints, for readers and the fuzz test
        pass


@_check.finite
def measured_launch_cost(run: str = measurements.RUN) -> LaunchCost:
    """The H200 run's tiny elementwise op (100 in a row, 16 floats each): seconds per op, eager and graphed."""
    d = measurements.load(run, name="ladder")
    return LaunchCost(float(d["tiny_op_eager_us"] * units.US), float(d["tiny_op_graph_us"] * units.US))


@_check.finite
def launches_behind_saving(eager_s: float, graph_s: float, per_op_eager_s: float, per_op_graph_s: float) -> float:
    """How many kernel launches a CUDA graph's saving on a whole step amounts to, at a per-op saving.

    (step eager - step graphed) / (op eager - op graphed): an estimate of the kernels the step launches,
    if the graph saved launch overhead and nothing else. Equation eq-graph-launches in chapter 5.

    >>> round(launches_behind_saving(6.0e-3, 5.0e-3, 7e-6, 1e-6), 1)
    166.7
    """
    saved = _check.positive("eager_s", eager_s, "s") - _check.non_negative("graph_s", graph_s, "s")
    per_op = _check.positive("per_op_eager_s", per_op_eager_s, "s") - _check.non_negative("per_op_graph_s", per_op_graph_s, "s")
    if saved <= 0 or per_op <= 0:
        raise ValueError(f"the graphed times must be less than the eager ones, got step {eager_s:g} vs {graph_s:g} s "
                         f"and op {per_op_eager_s:g} vs {per_op_graph_s:g} s")
    return saved / per_op


@dataclass(frozen=True)
class MatmulPoint:
    """One row of the measured 8192 x 8192 BF16 matmul sweep: M rows of input."""
    m: int
    intensity: float
    flop_s: float
    Bps: float

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def measured_matmul_roofline(run: str = measurements.RUN) -> list[MatmulPoint]:
    """The measured y = x @ W sweep (W 8192 x 8192 BF16, M = 1 ... 8192) as roofline points."""
    return [MatmulPoint(int(r["M"]), float(r["intensity"]), float(r["TFLOPs"] * 1e12), float(r["GBps"] * units.GB))
            for r in measurements.load(run)["matmul_roofline"]]


LADDER_MATMUL_N = 8192
"""Side of the square matmul behind the measured peaks (the run's README: "Matmul 8192³")."""


@_check.finite
def measured_matmul_peaks_flop_s(run: str = measurements.RUN) -> dict[str, float]:
    """The measured large (8192^3) matmul rates on the H200: {'bf16': ..., 'fp8': ...} in FLOP/s."""
    d = measurements.load(run, name="ladder")
    return {"bf16": float(d["bf16_TFLOPs"] * 1e12), "fp8": float(d["fp8_TFLOPs"] * 1e12)}


# ---- online softmax, register tiles, shared-memory banks, reductions, FP32 lanes ----------------

@_check.finite
def online_softmax(blocks: Sequence[Sequence[float]]) -> tuple[float, float]:
    """The running max m and sum l of exp(x - m) over blocks of scores, as FlashAttention keeps them.

    For each block: m' = max(m, max x), l' = l exp(m - m') + sum exp(x - m'); the partial output is
    rescaled by the same exp(m - m'). Equation eq-online-softmax in chapter 5. The result equals the
    max and the normalizer of softmax over all the scores at once, without holding them together.

    >>> m, l = online_softmax([[1.0, 3.0], [2.0, 5.0]])
    >>> m, round(l, 6)
    (5.0, 1.203438)
    """
    if not blocks or any(len(b) == 0 for b in blocks):
        raise ValueError("blocks must be a non-empty sequence of non-empty blocks of scores")
    m, total = -math.inf, 0.0
    for blk in blocks:
        xs = [_check.number("score", x, "") for x in blk]
        m_new = max(m, max(xs))
        total = total * math.exp(m - m_new) + sum(math.exp(x - m_new) for x in xs)
        m = m_new
    return m, total


@_check.finite
def smem_loads_per_fma(thread_m: int, thread_n: int) -> float:
    """Shared-memory loads per FMA of a thread computing a thread_m x thread_n block of outputs.

    Each step of k loads thread_m elements of A and thread_n of B into registers and does
    thread_m x thread_n FMAs: (TM + TN) / (TM TN). One output per thread: 2; 8 x 8: 0.25. The
    intensity against shared memory is :func:`tile_intensity` one level down (register tiling).

    >>> smem_loads_per_fma(1, 1), smem_loads_per_fma(8, 1), smem_loads_per_fma(8, 8)
    (2.0, 1.125, 0.25)
    """
    m = _check.count("thread_m", thread_m, "outputs")
    n = _check.count("thread_n", thread_n, "outputs")
    return (m + n) / (m * n)


@_check.finite
def smem_bound_fraction(thread_m: int, thread_n: int, fp32_lanes: int, banks: int = SMEM_BANKS,
                        element_B: float = 4) -> float:
    """The share of the FP32 peak shared-memory bandwidth allows a register-tiled FP32 kernel, at most 1.

    Per SM and clock the banks deliver banks x 4 bytes (``banks`` words) and the lanes need
    loads-per-FMA x lanes words: share = min(1, banks / (lanes x loads per FMA)) when every load is a
    distinct word (no broadcast). 128 lanes, one output per thread: 1/8; 8 x 8 outputs: all of it.

    >>> smem_bound_fraction(1, 1, 128), smem_bound_fraction(8, 8, 128)
    (0.125, 1.0)
    """
    words = _check.count("banks", banks, "banks") * 4 / _check.positive("element_B", element_B, "bytes")
    need = _check.count("fp32_lanes", fp32_lanes, "lanes") * smem_loads_per_fma(thread_m, thread_n)
    return min(1.0, words / need)


@_check.finite
def smem_bank(address_B: int, banks: int = SMEM_BANKS, bank_B: int = 4) -> int:
    """The shared-memory bank of a byte address: (address / bank bytes) mod banks.

    CUDA C++ Programming Guide, "Shared Memory": successive 32-bit words go to successive banks.

    >>> smem_bank(0), smem_bank(4), smem_bank(128), smem_bank(132)
    (0, 1, 0, 1)
    """
    a = _check.count("address_B", address_B, "bytes", minimum=0)
    return (a // _check.count("bank_B", bank_B, "bytes")) % _check.count("banks", banks, "banks")


@_check.finite
def bank_conflict_degree(addresses_B: Sequence[int], banks: int = SMEM_BANKS, bank_B: int = 4) -> int:
    """How many shared-memory wavefronts a warp's access needs: the most distinct words in one bank.

    Lanes reading the same word share it (broadcast); distinct words in one bank are served one after
    another. 1 means conflict-free.

    >>> bank_conflict_degree([4 * i for i in range(32)]), bank_conflict_degree([128 * i for i in range(32)])
    (1, 32)
    """
    if not addresses_B:
        raise ValueError("addresses_B must hold at least one address")
    words: dict[int, set[int]] = {}
    for a in addresses_B:
        a = _check.count("address_B", a, "bytes", minimum=0)
        words.setdefault(smem_bank(a, banks, bank_B), set()).add(a // bank_B)
    return max(len(w) for w in words.values())


@_check.finite
def column_addresses_B(rows: int, row_elements: int, column: int = 0, element_B: int = 4) -> list[int]:
    """Byte addresses of one column of a row-major tile ``tile[rows][row_elements]``, one lane per row.

    A 32 x 32 float tile (``[T][T]``) puts every element of a column in one bank; ``[T][T+1]`` (one
    float of padding per row) moves each row one bank along.

    >>> bank_conflict_degree(column_addresses_B(32, 32)), bank_conflict_degree(column_addresses_B(32, 33))
    (32, 1)
    """
    r = _check.count("rows", rows, "rows")
    w = _check.count("row_elements", row_elements, "elements")
    c = _check.count("column", column, "", minimum=0)
    if c >= w:
        raise ValueError(f"column must be below row_elements ({w}), got {c}")
    e = _check.count("element_B", element_B, "bytes")
    return [(i * w + c) * e for i in range(r)]


class _Reduction(NamedTuple):
    shuffle_steps: int
    block_steps: int
    blocks: int
    atomics: int


class Reduction(_Reduction):
    """Steps and atomics of a sum of n values (a tuple): warp shuffles, the block's tree, one atomic per block."""
    __slots__ = ()

    def __new__(cls, shuffle_steps: int, block_steps: int, blocks: int, atomics: int) -> "Reduction":
        return super().__new__(cls, _check.count("shuffle_steps", shuffle_steps, "steps", minimum=0),
                               _check.count("block_steps", block_steps, "steps", minimum=0),
                               _check.count("blocks", blocks, "blocks"), _check.count("atomics", atomics, "atomics"))

    def __init__(self, shuffle_steps: int, block_steps: int, blocks: int, atomics: int) -> None:
        pass


@_check.finite
def reduction(n: int, threads_per_block: int = 256, blocks: int | None = None, warp_size: int = 32) -> Reduction:
    """A sum of n values: a warp-shuffle tree, then the block's warps, then one atomicAdd per block.

    Each warp halves its partial sums with ``__shfl_down_sync`` log2(warp) times; the block's
    warp sums go through shared memory to one warp, log2(warps per block) more steps; one lane per
    block adds its sum into the result with ``atomicAdd``. ``blocks=None`` gives every thread one value
    (ceil(n / threads) blocks); a fixed grid with a grid-stride loop needs only ``blocks`` atomics.

    >>> reduction(1 << 20)
    Reduction(shuffle_steps=5, block_steps=8, blocks=4096, atomics=4096)
    >>> reduction(1 << 20, blocks=264).atomics
    264
    """
    nn = _check.count("n", n, "values")
    t = _check.count("threads_per_block", threads_per_block, "threads")
    w = _check.count("warp_size", warp_size, "threads")
    if t % w or w & (w - 1) or (t // w) & (t // w - 1):
        raise ValueError(f"threads_per_block must be a power-of-two number of warps of {w}, got {t}")
    nb = grid_blocks(nn, t) if blocks is None else _check.count("blocks", blocks, "blocks")
    shuffle = w.bit_length() - 1
    return Reduction(shuffle, shuffle + (t // w).bit_length() - 1, nb, nb)


@_check.finite
def fp32_lanes(sm_count: int, lanes_per_sm: int) -> int:
    """FP32 lanes ("CUDA cores") of a GPU: SMs x FP32 lanes per SM. H100 SXM5: 132 x 128 = 16,896.

    >>> fp32_lanes(132, 128)
    16896
    """
    return _check.count("sm_count", sm_count, "SMs") * _check.count("lanes_per_sm", lanes_per_sm, "lanes")


@_check.finite
def bytes_in_flight_per_thread_B(elements_per_load: int, loads_per_thread: int = 2, element_B: int = 4,
                                 unroll: int = 1) -> float:
    """Bytes one thread has on its way: loads issued before the first is used x elements x bytes.

    The vector add's thread issues its two loads (a and b) before the add: 8 bytes with floats,
    32 with float4; a grid-stride loop unrolled u times issues u such pairs.

    >>> bytes_in_flight_per_thread_B(1), bytes_in_flight_per_thread_B(4), bytes_in_flight_per_thread_B(4, unroll=2)
    (8.0, 32.0, 64.0)
    """
    return float(_check.count("elements_per_load", elements_per_load, "elements")
                 * _check.count("loads_per_thread", loads_per_thread, "loads")
                 * _check.count("element_B", element_B, "bytes") * _check.count("unroll", unroll, "iterations"))
