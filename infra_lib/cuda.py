"""CUDA kernels by arithmetic: indexing, bytes moved, coalescing, tiling and streams.

Chapter 5 of the course uses these; the occupancy calculator is :mod:`infra_lib.occupancy`.

- Vector add: thread i = blockIdx.x x blockDim.x + threadIdx.x (CUDA C++ Programming Guide,
  "Thread Hierarchy"); it reads two elements and writes one, so its time cannot be less than
  3 n x element bytes / bandwidth.
- Coalescing: a warp's loads are served in 32-byte sectors (CUDA C++ Best Practices Guide,
  "Coalesced Access to Global Memory"); the useful fraction is bytes asked for / sector bytes moved.
- Tiling: a tile of BM x BN outputs stepping through K in chunks of BK does 2 BM BN BK FLOP on
  (BM + BN) BK elements it loads: intensity 2 BM BN / ((BM + BN) x element bytes).
- Streams: chunks flow through three engines (host-to-device copy, compute, device-to-host copy),
  each taking one chunk at a time in order (CUDA C++ Programming Guide, "Asynchronous Concurrent Execution").
"""
import math
from collections.abc import Sequence
from dataclasses import dataclass

from . import _check, measurements, units

SECTOR_B = 32


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

@_check.finite
def sectors_per_warp(stride: int, element_B: int = 4, warp_size: int = 32, sector_B: int = SECTOR_B) -> int:
    """Distinct 32-byte sectors one warp touches when lane i reads element i x stride (aligned start).

    Stride 1, floats: 128 bytes in 4 sectors. Stride 8 or more: every lane its own sector.

    >>> [sectors_per_warp(s) for s in (1, 2, 4, 8, 32)]
    [4, 8, 16, 32, 32]
    """
    s = _check.count("stride", stride, "elements")
    e = _check.count("element_B", element_B, "bytes")
    w = _check.count("warp_size", warp_size, "lanes")
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
def sector_traffic_Bps(useful_Bps: float, stride: int, element_B: int = 4) -> float:
    """Sector bytes per second behind a useful rate, if every sector came from memory: useful / fraction.

    >>> sector_traffic_Bps(455e9, 32) / 1e9
    3640.0
    """
    return _check.positive("useful_Bps", useful_Bps, "bytes/s") / useful_fraction(stride, element_B)


@dataclass(frozen=True)
class StridedRow:
    """One stride of the H200 gather benchmark against the sector model."""
    stride: int
    measured_Bps: float        # useful bytes per second, as measured
    fraction: float            # the sector model's useful fraction
    relative: float            # measured / measured at stride 1
    sector_Bps: float          # measured / fraction: sector traffic if no sector was reused

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def strided_against_sectors(rows: Sequence[tuple[int, float]]) -> list[StridedRow]:
    """Each measured (stride, useful B/s) beside the sector model; the first row must be stride 1.

    >>> [round(r.relative, 2) for r in strided_against_sectors([(1, 2000e9), (2, 1500e9)])]
    [1.0, 0.75]
    """
    if not rows or rows[0][0] != 1:
        raise ValueError("rows must start with stride 1 (the coalesced reference)")
    base = _check.positive("useful rate at stride 1", rows[0][1], "bytes/s")
    return [StridedRow(int(s), float(b), useful_fraction(s), float(b) / base, sector_traffic_Bps(b, s))
            for s, b in rows]


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
