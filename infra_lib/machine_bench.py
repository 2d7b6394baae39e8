"""A small, bounded benchmark of the machine running this code: memory bandwidth and FLOP/s.

Three numpy kernels, each capped in size and in time so a chapter that calls :func:`measure`
stays within about a second on a two-core machine:

- **copy**: ``np.copyto`` of a large byte array; bytes moved = bytes read + bytes written, as in
  the course's H200 copy measurement. (On x86 a store may first read its cache line, so the
  memory actually moves more than this; the figure is what the program asked for.)
- **read**: a float32 matrix (the copy's source buffer, reinterpreted) times a vector, which
  reads the matrix once at 0.5 FLOP per byte: a read-only stream, like a decode step. Its
  bytes per second are the slope of the machine's roofline.
- **matmul**: float32 n x n times n x n through numpy's BLAS: 2 n^3 FLOP over 3 x 4 n^2 bytes
  at least, n/6 FLOP per byte. n is chosen from a quick probe so one repetition takes a
  fraction of the time budget.

Each kernel runs once untimed (to fault in the pages and warm the caches), then repeats until
its time budget or repetition cap is used up; the best repetition is kept (as STREAM does),
since the others were slowed by something other than the kernel. These are *measurements*:
they vary from machine to machine and from run to run. Pass ``clock`` to test the plumbing
with a fake timer.
"""
import math
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _check, roofline, units

MAX_COPY_B = 512 * 2**20       # the largest buffer copy_bandwidth will allocate (twice: src and dst)
MIN_COPY_B = 64 * 2**10
MAX_MATMUL_N = 4096
MIN_MATMUL_N = 64
PROBE_N = 512
MAX_TIME_S = 5.0                   # per kernel
MAX_REPS = 200
DEFAULT_COPY_B = 64 * 2**20    # src + dst = 128 MiB: more than the last-level cache of most CPUs
FLOAT32_B = 4

Clock = Callable[[], float]


def _clock(clock: Clock) -> Clock:
    if not callable(clock):
        raise TypeError(f"clock must be a callable returning seconds (like time.perf_counter), got {clock!r}")
    return clock


@dataclass(frozen=True)
class Timing:
    """Repetitions of one kernel: ``work`` (bytes or FLOP) per repetition and each one's duration."""
    name: str
    work: float
    unit: str
    times_s: tuple[float, ...]

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.positive("work", self.work, self.unit)
        if not self.times_s:
            raise ValueError("times_s must hold at least one repetition")
        for i, t in enumerate(self.times_s):
            _check.positive(f"times_s[{i}]", t, "s (a clock that did not advance cannot time anything)")

    @property
    def reps(self) -> int:
        return len(self.times_s)

    @property
    def best_s(self) -> float:
        return min(self.times_s)

    @property
    def total_s(self) -> float:
        return sum(self.times_s)

    @property
    def rate(self) -> float:
        """Work per second of the best repetition (bytes/s or FLOP/s)."""
        return self.work / self.best_s


def time_repeats(fn: Callable[[], object], max_time_s: float, max_reps: int,
                 clock: Clock = time.perf_counter) -> tuple[float, ...]:
    """Call ``fn`` until the timed calls add up to ``max_time_s`` or ``max_reps`` calls; at least one.

    Returns the duration of each call, in seconds.

    >>> ticks = iter(range(100))
    >>> time_repeats(lambda: None, max_time_s=3.5, max_reps=10, clock=lambda: float(next(ticks)))
    (1.0, 1.0, 1.0, 1.0)
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    budget = _check.positive("max_time_s", max_time_s, "s")
    if budget > MAX_TIME_S:
        raise ValueError(f"max_time_s must be at most {MAX_TIME_S:g} s so the page stays quick to build, got {budget:g}")
    reps = _check.count("max_reps", max_reps, "repetitions")
    if reps > MAX_REPS:
        raise ValueError(f"max_reps must be at most {MAX_REPS}, got {reps}")
    clock = _clock(clock)
    times: list[float] = []
    total = 0.0
    while len(times) < reps and total < budget:
        t0 = clock()
        fn()
        dt = clock() - t0
        times.append(dt)
        total += dt
    return tuple(times)


def _copy_size_B(size_B: int, name: str = "size_B") -> int:
    n = _check.count(name, size_B, "bytes")
    if not MIN_COPY_B <= n <= MAX_COPY_B:
        raise ValueError(f"{name} must be between {MIN_COPY_B:,.0f} and {MAX_COPY_B:,.0f} bytes, got {n:,}")
    return n


def copy_bandwidth(size_B: int = DEFAULT_COPY_B, max_time_s: float = 0.3, max_reps: int = 20,
                   clock: Clock = time.perf_counter, _buffers: tuple[Any, Any] | None = None) -> Timing:
    """Copy ``size_B`` from one array to another; work = 2 x size_B (read + written) per repetition."""
    import numpy as np
    n = _copy_size_B(size_B)
    src, dst = _buffers if _buffers is not None else (np.ones(n, dtype=np.uint8), np.empty(n, dtype=np.uint8))
    np.copyto(dst, src)  # warm-up: faults in dst's pages
    times = time_repeats(lambda: np.copyto(dst, src), max_time_s, max_reps, clock)
    return Timing("copy", 2.0 * n, "B", times)


@_check.finite
def matvec_side(size_B: int) -> int:
    """Side of the largest square float32 matrix that fits in ``size_B``.

    >>> matvec_side(64 * 2**20)
    4096
    """
    return math.isqrt(_copy_size_B(size_B) // FLOAT32_B)


def read_bandwidth(size_B: int = DEFAULT_COPY_B, max_time_s: float = 0.1, max_reps: int = 20,
                   clock: Clock = time.perf_counter, _buffer: Any = None) -> Timing:
    """Stream a float32 matrix filling ``size_B`` through a matrix-vector product (BLAS sgemv).

    Each repetition reads the n x n matrix once (plus two n-vectors): 4 (n^2 + 2n) bytes for
    2 n^2 FLOP, about 0.5 FLOP per byte, far below any CPU's ridge point, so its time is the
    time to read the matrix. Like a decode step, it only reads.
    """
    import numpy as np
    side = matvec_side(size_B)
    if _buffer is None:
        _buffer = np.ones(side * side * FLOAT32_B, dtype=np.uint8)
    a = _buffer[: side * side * FLOAT32_B].view(np.float32).reshape(side, side)
    a[:] = 1.0 / side  # finite values (the raw bytes of a reused buffer could be NaNs)
    x = np.ones(side, dtype=np.float32)
    a @ x  # warm-up
    times = time_repeats(lambda: a @ x, max_time_s, max_reps, clock)
    return Timing("read", float(FLOAT32_B * (side * side + 2 * side)), "B", times)


@_check.finite
def choose_matmul_n(probe_flop_s: float, target_s: float, max_n: int = 2048) -> int:
    """The matmul side whose 2 n^3 FLOP take about ``target_s`` at ``probe_flop_s``, rounded down
    to a multiple of 64 and clamped to [64, max_n].

    >>> choose_matmul_n(50e9, 0.1), choose_matmul_n(1e15, 0.1), choose_matmul_n(1e6, 0.1)
    (1344, 2048, 64)
    """
    rate = _check.positive("probe_flop_s", probe_flop_s, "FLOP/s")
    target = _check.positive("target_s", target_s, "s")
    cap = _check.count("max_n", max_n, "rows", minimum=MIN_MATMUL_N)
    if cap > MAX_MATMUL_N:
        raise ValueError(f"max_n must be at most {MAX_MATMUL_N}, got {cap}")
    n = int((rate * target / 2) ** (1 / 3)) // 64 * 64
    return max(MIN_MATMUL_N, min(cap, n))


@_check.finite
def matmul_intensity(n: int) -> float:
    """FLOP per byte of an n x n float32 matmul that reads A and B and writes C once: n / 6.

    >>> matmul_intensity(1536)
    256.0
    """
    n = _check.count("n", n, "rows")
    return 2.0 * n**3 / (3 * FLOAT32_B * n * n)


def matmul_flop_s(n: int | None = None, max_time_s: float = 0.4, max_reps: int = 20, max_n: int = 2048,
                  clock: Clock = time.perf_counter) -> Timing:
    """float32 n x n matmul through numpy's BLAS: 2 n^3 FLOP per repetition.

    With ``n=None``, a 512 x 512 probe picks n so one repetition takes about a third of
    ``max_time_s`` (never more than ``max_n``). On a busy machine the probe reads low and n comes
    out smaller; the figure is what this machine delivered while it was measured.
    """
    import numpy as np
    budget = _check.positive("max_time_s", max_time_s, "s")
    cap = _check.count("max_n", max_n, "rows", minimum=MIN_MATMUL_N)   # checked even when n is given
    if cap > MAX_MATMUL_N:
        raise ValueError(f"max_n must be at most {MAX_MATMUL_N}, got {cap}")
    clock = _clock(clock)
    if n is None:
        p = np.full((PROBE_N, PROBE_N), 0.5, dtype=np.float32)
        p @ p  # first call loads BLAS and spins up its threads
        probe = time_repeats(lambda: p @ p, budget / 8, 3, clock)
        n = choose_matmul_n(2.0 * PROBE_N**3 / min(probe), budget / 3, max_n)
    n = _check.count("n", n, "rows", minimum=MIN_MATMUL_N)
    if n > MAX_MATMUL_N:
        raise ValueError(f"n must be at most {MAX_MATMUL_N}, got {n}")
    a = np.full((n, n), 0.5, dtype=np.float32)   # BLAS speed does not depend on the values
    b = np.full((n, n), 0.25, dtype=np.float32)
    a @ b  # warm-up
    times = time_repeats(lambda: a @ b, budget, max_reps, clock)
    return Timing("matmul", 2.0 * n**3, "FLOP", times)


def cpu_name() -> str:
    """The processor's model name as the OS reports it (Linux /proc/cpuinfo), else platform's guess."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                name = line.split(":", 1)[1].strip()
                if name:
                    return name
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


@dataclass(frozen=True)
class Machine:
    """What :func:`measure` found on this machine."""
    cpu: str
    logical_cpus: int
    copy: Timing
    read: Timing
    matmul: Timing

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def copy_Bps(self) -> float:
        """Copy bandwidth, bytes read + bytes written per second."""
        return self.copy.rate

    @property
    def read_Bps(self) -> float:
        """Read-only bandwidth: the roofline's slope."""
        return self.read.rate

    @property
    def flop_s(self) -> float:
        """float32 matmul FLOP/s: the roofline's flat roof (measured, not a datasheet peak)."""
        return self.matmul.rate

    @property
    def ridge_point(self) -> float:
        """Measured FLOP/s over measured read bandwidth (FLOP per byte)."""
        return roofline.ridge_point(self.flop_s, self.read_Bps)

    @property
    def matmul_n(self) -> int:
        return round((self.matmul.work / 2) ** (1 / 3))

    @property
    def matmul_intensity(self) -> float:
        return matmul_intensity(self.matmul_n)

    @property
    def timed_s(self) -> float:
        return self.copy.total_s + self.read.total_s + self.matmul.total_s


def measure(copy_B: int = DEFAULT_COPY_B, copy_time_s: float = 0.12, read_time_s: float = 0.08,
            matmul_time_s: float = 0.25, max_n: int = 1536, clock: Clock = time.perf_counter) -> Machine:
    """Run the three kernels within their time budgets and return a :class:`Machine`.

    The read kernel reuses the copy's source buffer, so the benchmark allocates 2 x ``copy_B`` bytes.
    """
    import numpy as np
    n = _copy_size_B(copy_B, "copy_B")
    src, dst = np.ones(n, dtype=np.uint8), np.empty(n, dtype=np.uint8)
    copy = copy_bandwidth(n, copy_time_s, 20, clock, _buffers=(src, dst))
    read = read_bandwidth(n, read_time_s, 20, clock, _buffer=src)
    matmul = matmul_flop_s(None, matmul_time_s, 20, max_n=max_n, clock=clock)
    return Machine(cpu=cpu_name(), logical_cpus=os.cpu_count() or 1, copy=copy, read=read, matmul=matmul)
