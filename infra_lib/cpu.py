"""The CPU in an AI server: pipelines, caches, SIMD and AMX, memory and NUMA, feeding tokens.

Small formulas, each with its source:

- CPU time per instruction: CPI x clock period, with branch stalls added to the base CPI
  (Hennessy and Patterson, *Computer Architecture: A Quantitative Approach*, 6th ed., §1.9 and
  Appendix C.2): CPI = base CPI + branch fraction x mispredict rate x penalty.
- Average memory access time (H&P, Appendix B.1 and B.3): AMAT = hit time + miss rate x miss penalty,
  applied level by level with load-to-use latencies: each level's share of accesses x its latency.
- Peak FLOP/s = FLOP per cycle per core x cores x clock; a SIMD unit does lanes x 2 FLOP per
  cycle with fused multiply-add (FMA).
- DRAM bandwidth = channels x bytes per transfer x transfers per second
  (:func:`infra_lib.memory.dram_bandwidth_Bps`).

The CPU's other job in chapter 2, launching kernels (eager against CUDA graphs), is
:mod:`infra_lib.launch`.

Registry values come from ``data/registry/`` (``intel_xeon.toml``, ``nvidia_grace.toml``,
``teaching.toml``); nothing derivable is stored.
"""
from collections.abc import Iterable
from dataclasses import dataclass

from . import _check, hardware, memory

FLOP_PER_FMA = 2  # one multiply and one add


# ---- clocks and cycles --------------------------------------------------------------------

@_check.finite
def cycles_to_s(cycles: float, clock_hz: float) -> float:
    """Seconds taken by ``cycles`` clock cycles at ``clock_hz``.

    The Xeon 8480C's 5-cycle L1 hit at its 3.8 GHz maximum turbo is 1.3 ns.

    >>> round(cycles_to_s(5, 3.8e9) * 1e9, 2)
    1.32
    """
    return _check.non_negative("cycles", cycles, "cycles") / _check.positive("clock_hz", clock_hz, "Hz")


@_check.finite
def s_to_cycles(seconds: float, clock_hz: float) -> float:
    """Clock cycles that pass in ``seconds`` at ``clock_hz``.

    A 107 ns trip to DRAM is 407 cycles at 3.8 GHz.

    >>> round(s_to_cycles(107e-9, 3.8e9))
    407
    """
    return _check.non_negative("seconds", seconds, "s") * _check.positive("clock_hz", clock_hz, "Hz")


# ---- pipelines and branch prediction ------------------------------------------------------

@_check.finite
def cpi_with_branches(base_cpi: float, branch_fraction: float, mispredict_rate: float,
                      penalty_cycles: float) -> float:
    """Cycles per instruction once branch mispredictions are counted.

    Equation eq-cpi-branches in chapter 2.

    CPI = base CPI + branch fraction x mispredict rate x penalty (H&P 6th ed., Appendix C.2:
    stall cycles per instruction from branches). Each misprediction throws away the work the
    pipeline did on the wrong path and costs ``penalty_cycles``.

    >>> cpi_with_branches(0.5, 0.2, 0.01, 15)    # predictable branches
    0.53
    >>> cpi_with_branches(0.5, 0.2, 0.5, 15)     # a coin flip on every branch
    2.0
    """
    base = _check.positive("base_cpi", base_cpi, "cycles per instruction")
    f = _check.share("branch_fraction", branch_fraction, "a share of instructions, e.g. 0.2 for 20%")
    m = _check.share("mispredict_rate", mispredict_rate, "a share of branches, e.g. 0.05 for 5%")
    p = _check.non_negative("penalty_cycles", penalty_cycles, "cycles")
    return round(base + f * m * p, 12)


@_check.finite
def breakeven_mispredict_rate(base_cpi: float, branch_fraction: float, penalty_cycles: float) -> float:
    """The mispredict rate at which branch stalls cost as many cycles as all other work: base / (f x p).

    Above it, the program spends more than half its cycles recovering from wrong guesses.

    >>> round(breakeven_mispredict_rate(0.5, 0.2, 15), 4)
    0.1667
    """
    base = _check.positive("base_cpi", base_cpi, "cycles per instruction")
    f = _check.positive("branch_fraction", branch_fraction, "(a fraction of instructions)")
    p = _check.positive("penalty_cycles", penalty_cycles, "cycles")
    return base / (f * p)


@_check.finite
def time_per_instruction_s(cpi: float, clock_hz: float) -> float:
    """Average time per instruction: CPI / clock (H&P 6th ed., §1.9, the CPU performance equation).

    Equation eq-cpu-time in chapter 2 (per instruction).

    >>> round(time_per_instruction_s(2.0, 3.8e9) * 1e9, 3)
    0.526
    """
    return _check.positive("cpi", cpi, "cycles per instruction") / _check.positive("clock_hz", clock_hz, "Hz")


# ---- caches ---------------------------------------------------------------------------------

@_check.finite
def amat(hit_time: float, miss_rate: float, miss_penalty: float) -> float:
    """Average memory access time = hit time + miss rate x miss penalty (H&P 6th ed., Appendix B.1).

    Equation eq-amat in chapter 2.

    Any time unit, as long as ``hit_time`` and ``miss_penalty`` share it.

    >>> amat(1.0, 0.05, 100.0)
    6.0
    """
    hit = _check.non_negative("hit_time", hit_time, "(a time, in any unit)")
    m = _check.share("miss_rate", miss_rate, "a share of accesses, e.g. 0.05 for 5%")
    penalty = _check.non_negative("miss_penalty", miss_penalty, "(a time, in the unit of hit_time)")
    return hit + m * penalty


@_check.finite
def served_fractions(miss_rates: Iterable[float]) -> list[float]:
    """Share of all accesses served by each cache level and, last, by memory, from *local* miss rates.

    Level i serves m1 x ... x m(i-1) x (1 - mi); memory serves m1 x m2 x ... (the global miss rate).

    >>> [round(f, 3) for f in served_fractions([0.05, 0.4, 0.5])]
    [0.95, 0.03, 0.01, 0.01]
    """
    reach, out = 1.0, []
    for i, m in enumerate(miss_rates):
        m = _check.share(f"miss_rates[{i}]", m, "a share of the accesses reaching that level")
        out.append(reach * (1 - m))
        reach *= m
    if not out:
        raise ValueError("miss_rates must name at least one cache level, got none")
    return out + [reach]


@_check.finite
def amat_levels(latencies: Iterable[float], miss_rates: Iterable[float], memory_latency: float) -> float:
    """AMAT through several cache levels from *load-to-use* latencies measured end to end.

    Equation eq-amat-levels in chapter 2.

    Each latency is the whole time of a load served at that level (as a pointer-chasing benchmark
    measures it), so a miss costs the *increment* to the next level, not the next level's whole
    latency on top of this one's: AMAT = sum of (share served at level i) x t_i
    = t1 + m1 (t2 - t1) + m1 m2 (t3 - t2) + m1 m2 m3 (t_mem - t3), which is H&P's
    hit time + miss rate x miss penalty (6th ed., Appendix B.1 and B.3) with each penalty an increment.
    ``miss_rates`` are *local*: the share of the accesses reaching a level that miss there.
    Feeding end-to-end latencies into the nested form t1 + m1 (t2 + m2 (...)) would count every
    lookup on the way twice (a DRAM access would cost t1 + t2 + t3 + t_mem).

    >>> round(amat_levels([1.0, 4.0], [0.1, 0.5], 100.0), 3)    # 0.9 x 1 + 0.05 x 4 + 0.05 x 100
    6.1
    >>> amat_levels([1.0, 4.0], [1.0, 1.0], 100.0)     # every access goes to memory: its latency
    100.0
    """
    times, rates = list(latencies), list(miss_rates)
    if not times or len(times) != len(rates):
        raise ValueError(f"latencies and miss_rates must be non-empty and of equal length, "
                         f"got {len(times)} and {len(rates)}")
    mem = _check.non_negative("memory_latency", memory_latency, "(a time, in the unit of latencies)")
    ladder = [_check.non_negative(f"latencies[{i}]", t, "(a time)") for i, t in enumerate(times)] + [mem]
    for i in range(1, len(ladder)):
        if ladder[i] < ladder[i - 1]:
            name = "memory_latency" if i == len(times) else f"latencies[{i}]"
            raise ValueError(f"{name} ({ladder[i]:g}) must be at least the level before it ({ladder[i - 1]:g}): "
                             f"load-to-use latencies grow down the hierarchy")
    return round(sum(f * t for f, t in zip(served_fractions(rates), ladder)), 12)


@dataclass(frozen=True)
class CacheLevel:
    """One rung of the latency ladder, in seconds and in cycles at ``clock_hz``."""
    key: str
    latency_s: float
    cycles: float
    size_B: float   # 0 for DRAM (no fixed size)
    kind: str
    cite: str

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def xeon_latency_ladder(clock_hz: float | None = None) -> list[CacheLevel]:
    """L1, L2, L3 and DRAM latency of the Xeon 8480C, converted at ``clock_hz`` (default: max turbo).

    L1 and L2 were measured in cycles, L3 and DRAM in nanoseconds (Chips and Cheese, 2023);
    converting between them needs a clock, which is an assumption.

    >>> [round(l.latency_s * 1e9, 1) for l in xeon_latency_ladder()]
    [1.3, 4.2, 33.0, 107.0]
    >>> [round(l.cycles) for l in xeon_latency_ladder(2.0e9)]
    [5, 16, 66, 214]
    """
    clock = hardware.value("xeon_8480c", "max_turbo_hz") if clock_hz is None else clock_hz
    clock = _check.positive("clock_hz", clock, "Hz")
    levels: list[CacheLevel] = []
    for key, name, size in (("l1", "l1d_latency_cycles", "l1d_B"), ("l2", "l2_latency_cycles", "l2_B")):
        s = hardware.spec("xeon_8480c", name)
        levels.append(CacheLevel(key, cycles_to_s(s.value, clock), s.value,
                                 hardware.value("xeon_8480c", size), s.kind, s.cite()))
    for key, name, size_spec in (("l3", "l3_latency_s", "l3_B"), ("dram", "dram_latency_s", "")):
        s = hardware.spec("xeon_8480c", name)
        levels.append(CacheLevel(key, s.value, s_to_cycles(s.value, clock),
                                 hardware.value("xeon_8480c", size_spec) if size_spec else 0.0, s.kind, s.cite()))
    return levels


# ---- SIMD, AMX and peak FLOP/s -------------------------------------------------------------

@_check.finite
def simd_lanes(vector_bits: int, element_bits: int) -> int:
    """How many numbers one vector register holds: 512-bit AVX-512 holds 16 FP32 values.

    >>> simd_lanes(512, 32), simd_lanes(128, 32)
    (16, 4)
    """
    v = _check.count("vector_bits", vector_bits, "bits")
    e = _check.count("element_bits", element_bits, "bits")
    if v % e:
        raise ValueError(f"vector_bits must be a multiple of element_bits, got {v} and {e}")
    return v // e


@_check.finite
def simd_flop_per_cycle(vector_bits: int, element_bits: int, fma_units: int) -> int:
    """FLOP per cycle per core from vector FMA units: lanes x units x 2.

    Xeon 8480C, AVX-512 FP32: 16 lanes x 2 FMA units x 2 = 64 (Intel's AMX brief says the same,
    '64 FP32 operations per cycle'). Grace, 4 x 128-bit SVE2: 4 x 4 x 2 = 32.

    >>> simd_flop_per_cycle(512, 32, 2), simd_flop_per_cycle(128, 32, 4)
    (64, 32)
    """
    return simd_lanes(vector_bits, element_bits) * _check.count("fma_units", fma_units, "FMA units") * FLOP_PER_FMA


@_check.finite
def cores_peak_flop_s(flop_per_cycle_per_core: float, cores: int, clock_hz: float) -> float:
    """Peak FLOP/s of CPU cores = FLOP per cycle per core x cores x clock (a GPU's is generations.peak_flop_s).

    Xeon 8480C socket, AVX-512 FP32 at the 2.0 GHz base clock: 64 x 56 x 2.0 GHz = 7.2 TFLOP/s.

    >>> round(cores_peak_flop_s(64, 56, 2.0e9) / 1e12, 2)
    7.17
    """
    return (_check.positive("flop_per_cycle_per_core", flop_per_cycle_per_core, "FLOP per cycle per core")
            * _check.count("cores", cores, "cores") * _check.positive("clock_hz", clock_hz, "Hz"))


def xeon_avx512_flop_per_cycle() -> int:
    """AVX-512 FP32 FLOP per cycle per core of the Xeon 8480C from its registry values (64).

    >>> xeon_avx512_flop_per_cycle()
    64
    """
    return simd_flop_per_cycle(512, 32, int(hardware.value("xeon_8480c", "avx512_fma_units")))


def grace_sve2_flop_per_cycle() -> int:
    """FP32 FLOP per cycle per Grace core: 4 x 128-bit SVE2 pipes with FMA (32).

    >>> grace_sve2_flop_per_cycle()
    32
    """
    v = lambda name: hardware.value("grace", name)
    return simd_flop_per_cycle(int(v("sve2_bits")), 32, int(v("sve2_pipes")))


GRACE_PER_SUPERCHIP = 2   # the Grace CPU Superchip is two Grace CPUs joined by NVLink-C2C (NVIDIA's blog, Table 1: 144 cores)


@_check.finite
def implied_core_clock_hz(peak_flop_s: float, flop_per_cycle_per_core: float, cores: int) -> float:
    """The clock a published peak was computed at: peak / (FLOP per cycle per core x cores).

    >>> round(implied_core_clock_hz(7.1e12, 16, 144) / 1e9, 2)
    3.08
    """
    return (_check.positive("peak_flop_s", peak_flop_s, "FLOP/s")
            / (_check.positive("flop_per_cycle_per_core", flop_per_cycle_per_core, "FLOP per cycle per core")
               * _check.count("cores", cores, "cores")))


def grace_fp64_flop_per_cycle() -> int:
    """FP64 FLOP per cycle per Grace core: 4 x 128-bit SVE2 pipes x 2 lanes x 2 (FMA) = 16.

    >>> grace_fp64_flop_per_cycle()
    16
    """
    v = lambda name: hardware.value("grace", name)
    return simd_flop_per_cycle(int(v("sve2_bits")), 64, int(v("sve2_pipes")))


def grace_implied_clock_hz() -> float:
    """The clock behind NVIDIA's 7.1 TFLOP/s FP64 peak of the 144-core Grace CPU Superchip (about 3.1 GHz,
    below the 3.5 GHz maximum boost).

    >>> round(grace_implied_clock_hz() / 1e9, 2)
    3.08
    """
    return implied_core_clock_hz(hardware.value("grace", "superchip_fp64_flop_s"), grace_fp64_flop_per_cycle(),
                            GRACE_PER_SUPERCHIP * int(hardware.value("grace", "cores")))


@dataclass(frozen=True)
class Peak:
    """One peak FLOP/s figure with what must be aligned before comparing it."""
    key: str
    flop_s: float
    precision: str
    clock_hz: float  # 0 when the figure is a vendor's total
    device: str      # 'cpu' or 'gpu'

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def xeon_grace_h100_peaks(clock_hz: float | None = None) -> list[Peak]:
    """Peak FLOP/s of a Xeon core and socket, a Grace, and an H100, ready to compare.

    Xeon socket figures at ``clock_hz`` (default the 2.0 GHz base clock); one core at its max
    turbo; Grace at the clock NVIDIA's own FP64 peak implies (:func:`grace_implied_clock_hz`,
    about 3.1 GHz, an all-core figure like the Xeon's all-core turbo, not its 3.5 GHz max boost);
    H100 from the whitepaper (dense).

    >>> [round(p.flop_s / 1e12, 2) for p in xeon_grace_h100_peaks()]
    [0.24, 7.17, 114.69, 7.1, 66.9, 989.4]
    """
    x = lambda name: hardware.value("xeon_8480c", name)
    cores = int(hardware.value("dgx_h100", "cores_per_cpu"))
    clock = x("base_clock_hz") if clock_hz is None else _check.positive("clock_hz", clock_hz, "Hz")
    avx = xeon_avx512_flop_per_cycle()
    amx = x("amx_bf16_flop_per_cycle")
    g = lambda name: hardware.value("grace", name)
    return [
        Peak("xeon_core_avx512", cores_peak_flop_s(avx, 1, x("max_turbo_hz")), "FP32", x("max_turbo_hz"), "cpu"),
        Peak("xeon_avx512", cores_peak_flop_s(avx, cores, clock), "FP32", clock, "cpu"),
        Peak("xeon_amx", cores_peak_flop_s(amx, cores, clock), "BF16", clock, "cpu"),
        Peak("grace_sve2", cores_peak_flop_s(grace_sve2_flop_per_cycle(), int(g("cores")), grace_implied_clock_hz()),
             "FP32", grace_implied_clock_hz(), "cpu"),
        Peak("h100_fp32", hardware.value("h100_sxm5", "peak_flop_s_fp32"), "FP32", 0.0, "gpu"),
        Peak("h100_bf16", hardware.value("h100_sxm5", "peak_flop_s"), "BF16", 0.0, "gpu"),
    ]


# ---- memory bandwidth and NUMA -------------------------------------------------------------

@_check.finite
def xeon_socket_bandwidth_Bps(dimms_per_channel: int = 1) -> float:
    """DDR5 bandwidth of one Xeon 8480C socket at the speed Intel allows for 1 or 2 DIMMs per channel:
    :func:`infra_lib.memory.dram_bandwidth_Bps` of its registry values.

    >>> round(xeon_socket_bandwidth_Bps(1) / 1e9, 1), round(xeon_socket_bandwidth_Bps(2) / 1e9, 1)
    (307.2, 281.6)
    """
    dpc = _check.count("dimms_per_channel", dimms_per_channel, "DIMMs per channel")
    if dpc > 2:
        raise ValueError(f"dimms_per_channel must be 1 or 2 (Intel lists DDR5 speeds for 1DPC and 2DPC), got {dpc}")
    x = lambda name: hardware.value("xeon_8480c", name)
    return memory.dram_bandwidth_Bps(int(x("memory_channels")), x("ddr5_bytes_per_transfer"),
                                     x(f"ddr5_rate_{dpc}dpc"))


@_check.finite
def numa_latency_s(local_s: float, remote_ratio: float, remote_fraction: float) -> float:
    """Average DRAM latency when a share of accesses goes to the other socket's memory.

    latency = local x (1 - r) + local x ratio x r.

    >>> round(numa_latency_s(107e-9, 1.5, 0.5) * 1e9, 2)
    133.75
    """
    local = _check.positive("local_s", local_s, "s")
    ratio = _check.positive("remote_ratio", remote_ratio, "(remote latency / local latency)")
    if ratio < 1:
        raise ValueError(f"remote_ratio must be at least 1 (remote memory is not faster than local), got {ratio:g}")
    r = _check.share("remote_fraction", remote_fraction, "a share of DRAM accesses")
    return local * ((1 - r) + ratio * r)


@_check.finite
def transfer_time_s(size_B: float, rate_Bps: float) -> float:
    """Time to move ``size_B`` bytes at ``rate_Bps`` (one direction).

    16 GB of BF16 weights over PCIe Gen5 x16 at 64 GB/s each way: 0.25 s.

    >>> transfer_time_s(16e9, 64e9)
    0.25
    """
    return _check.non_negative("size_B", size_B, "bytes") / _check.positive("rate_Bps", rate_Bps, "bytes/s")


# ---- the CPU's jobs: feeding tokens (launching kernels: infra_lib.launch) -----------------

@_check.finite
def share_of_capacity(demand_per_s: float, capacity_per_s: float) -> float:
    """Demand over capacity, e.g. tokens per second needed over tokens per second a CPU can tokenize.

    >>> share_of_capacity(3.3e5, 1.25e7)
    0.0264
    """
    return round(_check.non_negative("demand_per_s", demand_per_s, "per second")
                 / _check.positive("capacity_per_s", capacity_per_s, "per second"), 12)


TRAIN_OVER_FORWARD = 3   # forward + backward ~ 6N FLOP per token against the forward pass's 2N (Kaplan et al. 2020, §2.1)


@_check.finite
def training_feed_Bps(forward_tokens_per_s: float, gpus: int, bytes_per_token: float,
                      train_over_forward: float = TRAIN_OVER_FORWARD) -> float:
    """Bytes of input per second that a data pipeline must deliver to keep ``gpus`` GPUs training.

    A training step costs about ``train_over_forward`` times a forward pass per token (6N against 2N),
    so each GPU consumes forward_tokens_per_s / train_over_forward tokens per second.
    8 GPUs at 41,000 forward tokens/s each, 4 bytes per token: 0.44 MB/s.

    >>> round(training_feed_Bps(41_000, 8, 4) / 1e6, 3)
    0.437
    """
    f = _check.positive("forward_tokens_per_s", forward_tokens_per_s, "tokens/s")
    n = _check.count("gpus", gpus, "GPUs")
    b = _check.positive("bytes_per_token", bytes_per_token, "bytes per token")
    r = _check.positive("train_over_forward", train_over_forward, "(training cost / forward cost per token)")
    return n * f / r * b
