"""The CPU in an AI server: pipelines, caches, SIMD and AMX, memory and NUMA, kernel launches.

Small formulas, each with its source:

- CPU time per instruction: CPI x clock period, with branch stalls added to the base CPI
  (Hennessy and Patterson, *Computer Architecture: A Quantitative Approach*, 6th ed., §1.9 and
  Appendix C.2): CPI = base CPI + branch fraction x mispredict rate x penalty.
- Average memory access time (H&P, Appendix B.1 and B.3): AMAT = hit time + miss rate x miss penalty,
  applied level by level.
- Peak FLOP/s = FLOP per cycle per core x cores x clock; a SIMD unit does lanes x 2 FLOP per
  cycle with fused multiply-add (FMA).
- DRAM bandwidth = channels x bytes per transfer x transfers per second.
- Kernel launches: what the gap between an eager and a CUDA-graph decode step implies.

Registry values come from ``data/cpu.toml`` (and ``hardware.toml``); nothing derivable is stored.
"""
import html
from dataclasses import dataclass

from . import _check, hardware, i18n, measurements, units

FLOP_PER_FMA = 2  # one multiply and one add


def _share(name, value, what="(a fraction between 0 and 1)"):
    """A fraction that may be 0: 0 <= value <= 1."""
    value = _check.non_negative(name, value, what)
    if value > 1:
        raise ValueError(f"{name} must be a fraction between 0 and 1, e.g. 0.05 for 5%, got {value:g}")
    return value


# ---- clocks and cycles --------------------------------------------------------------------

def cycles_to_s(cycles, clock_hz):
    """Seconds taken by ``cycles`` clock cycles at ``clock_hz``.

    The Xeon 8480C's 5-cycle L1 hit at its 3.8 GHz maximum turbo is 1.3 ns.

    >>> round(cycles_to_s(5, 3.8e9) * 1e9, 2)
    1.32
    """
    return _check.non_negative("cycles", cycles, "cycles") / _check.positive("clock_hz", clock_hz, "Hz")


def s_to_cycles(seconds, clock_hz):
    """Clock cycles that pass in ``seconds`` at ``clock_hz``.

    A 107 ns trip to DRAM is 407 cycles at 3.8 GHz.

    >>> round(s_to_cycles(107e-9, 3.8e9))
    407
    """
    return _check.non_negative("seconds", seconds, "s") * _check.positive("clock_hz", clock_hz, "Hz")


# ---- pipelines and branch prediction ------------------------------------------------------

def cpi_with_branches(base_cpi, branch_fraction, mispredict_rate, penalty_cycles):
    """Cycles per instruction once branch mispredictions are counted.

    CPI = base CPI + branch fraction x mispredict rate x penalty (H&P 6th ed., Appendix C.2:
    stall cycles per instruction from branches). Each misprediction throws away the work the
    pipeline did on the wrong path and costs ``penalty_cycles``.

    >>> cpi_with_branches(0.5, 0.2, 0.01, 15)    # predictable branches
    0.53
    >>> cpi_with_branches(0.5, 0.2, 0.5, 15)     # a coin flip on every branch
    2.0
    """
    base = _check.positive("base_cpi", base_cpi, "cycles per instruction")
    f = _share("branch_fraction", branch_fraction)
    m = _share("mispredict_rate", mispredict_rate)
    p = _check.non_negative("penalty_cycles", penalty_cycles, "cycles")
    return round(base + f * m * p, 12)


def breakeven_mispredict_rate(base_cpi, branch_fraction, penalty_cycles):
    """The mispredict rate at which branch stalls cost as many cycles as all other work: base / (f x p).

    Above it, the program spends more than half its cycles recovering from wrong guesses.

    >>> round(breakeven_mispredict_rate(0.5, 0.2, 15), 4)
    0.1667
    """
    base = _check.positive("base_cpi", base_cpi, "cycles per instruction")
    f = _check.positive("branch_fraction", branch_fraction, "(a fraction of instructions)")
    p = _check.positive("penalty_cycles", penalty_cycles, "cycles")
    return base / (f * p)


def time_per_instruction_s(cpi, clock_hz):
    """Average time per instruction: CPI / clock (H&P 6th ed., §1.9, the CPU performance equation).

    >>> round(time_per_instruction_s(2.0, 3.8e9) * 1e9, 3)
    0.526
    """
    return _check.positive("cpi", cpi, "cycles per instruction") / _check.positive("clock_hz", clock_hz, "Hz")


# ---- caches ---------------------------------------------------------------------------------

def amat(hit_time, miss_rate, miss_penalty):
    """Average memory access time = hit time + miss rate x miss penalty (H&P 6th ed., Appendix B.1).

    Any time unit, as long as ``hit_time`` and ``miss_penalty`` share it.

    >>> amat(1.0, 0.05, 100.0)
    6.0
    """
    hit = _check.non_negative("hit_time", hit_time, "(a time, in any unit)")
    m = _share("miss_rate", miss_rate)
    penalty = _check.non_negative("miss_penalty", miss_penalty, "(a time, in the unit of hit_time)")
    return hit + m * penalty


def amat_levels(hit_times, miss_rates, memory_time):
    """AMAT through several cache levels: the miss penalty of each level is the AMAT of the next.

    AMAT = t1 + m1 x (t2 + m2 x (t3 + m3 x t_mem)) (H&P 6th ed., Appendix B.3, multilevel caches).
    ``miss_rates`` are *local*: the share of the accesses reaching a level that miss there.

    >>> round(amat_levels([1.0, 4.0], [0.1, 0.5], 100.0), 3)
    6.4
    """
    hit_times, miss_rates = list(hit_times), list(miss_rates)
    if not hit_times or len(hit_times) != len(miss_rates):
        raise ValueError(f"hit_times and miss_rates must be non-empty and of equal length, "
                         f"got {len(hit_times)} and {len(miss_rates)}")
    total = _check.non_negative("memory_time", memory_time, "(a time, in the unit of hit_times)")
    for i, (t, m) in reversed(list(enumerate(zip(hit_times, miss_rates)))):
        _check.non_negative(f"hit_times[{i}]", t, "(a time)")
        _share(f"miss_rates[{i}]", m)
        total = amat(t, m, total)
    return total


@dataclass(frozen=True)
class CacheLevel:
    """One rung of the latency ladder, in seconds and in cycles at ``clock_hz``."""
    key: str
    latency_s: float
    cycles: float
    size_B: float   # 0 for DRAM (no fixed size)
    kind: str
    cite: str


def xeon_latency_ladder(clock_hz=None):
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
    levels = []
    for key, name, size in (("l1", "l1d_latency_cycles", "l1d_B"), ("l2", "l2_latency_cycles", "l2_B")):
        s = hardware.spec("xeon_8480c", name)
        levels.append(CacheLevel(key, cycles_to_s(s.value, clock), s.value,
                                 hardware.value("xeon_8480c", size), s.kind, s.cite()))
    for key, name, size in (("l3", "l3_latency_s", "l3_B"), ("dram", "dram_latency_s", None)):
        s = hardware.spec("xeon_8480c", name)
        levels.append(CacheLevel(key, s.value, s_to_cycles(s.value, clock),
                                 hardware.value("xeon_8480c", size) if size else 0.0, s.kind, s.cite()))
    return levels


# ---- SIMD, AMX and peak FLOP/s -------------------------------------------------------------

def simd_lanes(vector_bits, element_bits):
    """How many numbers one vector register holds: 512-bit AVX-512 holds 16 FP32 values.

    >>> simd_lanes(512, 32), simd_lanes(128, 32)
    (16, 4)
    """
    v = _check.count("vector_bits", vector_bits, "bits")
    e = _check.count("element_bits", element_bits, "bits")
    if v % e:
        raise ValueError(f"vector_bits must be a multiple of element_bits, got {v} and {e}")
    return v // e


def simd_flop_per_cycle(vector_bits, element_bits, fma_units):
    """FLOP per cycle per core from vector FMA units: lanes x units x 2.

    Xeon 8480C, AVX-512 FP32: 16 lanes x 2 FMA units x 2 = 64 (Intel's AMX brief says the same,
    '64 FP32 operations per cycle'). Grace, 4 x 128-bit SVE2: 4 x 4 x 2 = 32.

    >>> simd_flop_per_cycle(512, 32, 2), simd_flop_per_cycle(128, 32, 4)
    (64, 32)
    """
    return simd_lanes(vector_bits, element_bits) * _check.count("fma_units", fma_units, "FMA units") * FLOP_PER_FMA


def peak_flop_s(flop_per_cycle_per_core, cores, clock_hz):
    """Peak FLOP/s = FLOP per cycle per core x cores x clock.

    Xeon 8480C socket, AVX-512 FP32 at the 2.0 GHz base clock: 64 x 56 x 2.0 GHz = 7.2 TFLOP/s.

    >>> round(peak_flop_s(64, 56, 2.0e9) / 1e12, 2)
    7.17
    """
    return (_check.positive("flop_per_cycle_per_core", flop_per_cycle_per_core, "FLOP per cycle per core")
            * _check.count("cores", cores, "cores") * _check.positive("clock_hz", clock_hz, "Hz"))


def xeon_avx512_flop_per_cycle():
    """AVX-512 FP32 FLOP per cycle per core of the Xeon 8480C from its registry values (64).

    >>> xeon_avx512_flop_per_cycle()
    64
    """
    return simd_flop_per_cycle(512, 32, hardware.value("xeon_8480c", "avx512_fma_units"))


def grace_sve2_flop_per_cycle():
    """FP32 FLOP per cycle per Grace core: 4 x 128-bit SVE2 pipes with FMA (32).

    >>> grace_sve2_flop_per_cycle()
    32
    """
    v = lambda name: hardware.value("grace", name)
    return simd_flop_per_cycle(v("sve2_bits"), 32, v("sve2_pipes"))


@dataclass(frozen=True)
class Peak:
    """One peak FLOP/s figure with what must be aligned before comparing it."""
    key: str
    flop_s: float
    precision: str
    clock_hz: float  # 0 when the figure is a vendor's total
    device: str      # 'cpu' or 'gpu'


def peaks(clock_hz=None):
    """Peak FLOP/s of a Xeon core and socket, a Grace, and an H100, ready to compare.

    Xeon socket figures at ``clock_hz`` (default the 2.0 GHz base clock); one core at its max
    turbo; Grace at its 3.5 GHz max boost; H100 from the whitepaper (dense).

    >>> [round(p.flop_s / 1e12, 2) for p in peaks()]
    [0.24, 7.17, 114.69, 8.06, 66.9, 989.4]
    """
    x = lambda name: hardware.value("xeon_8480c", name)
    cores = int(hardware.value("dgx_h100", "cores_per_cpu"))
    clock = x("base_clock_hz") if clock_hz is None else _check.positive("clock_hz", clock_hz, "Hz")
    avx = xeon_avx512_flop_per_cycle()
    amx = x("amx_bf16_flop_per_cycle")
    g = lambda name: hardware.value("grace", name)
    return [
        Peak("xeon_core_avx512", peak_flop_s(avx, 1, x("max_turbo_hz")), "FP32", x("max_turbo_hz"), "cpu"),
        Peak("xeon_avx512", peak_flop_s(avx, cores, clock), "FP32", clock, "cpu"),
        Peak("xeon_amx", peak_flop_s(amx, cores, clock), "BF16", clock, "cpu"),
        Peak("grace_sve2", peak_flop_s(grace_sve2_flop_per_cycle(), int(g("cores")), g("max_clock_hz")),
             "FP32", g("max_clock_hz"), "cpu"),
        Peak("h100_fp32", hardware.value("h100_sxm5", "peak_flop_s_fp32"), "FP32", 0.0, "gpu"),
        Peak("h100_bf16", hardware.value("h100_sxm5", "peak_flop_s"), "BF16", 0.0, "gpu"),
    ]


# ---- memory bandwidth and NUMA -------------------------------------------------------------

def dram_bandwidth_Bps(channels, bytes_per_transfer, transfers_per_s):
    """Peak DRAM bandwidth = channels x bytes per transfer x transfers per second.

    Xeon 8480C, 8 DDR5 channels of 64 bits: 8 x 8 B x 4.8 GT/s = 307.2 GB/s (one DIMM per
    channel); at 4.4 GT/s (two DIMMs per channel) 281.6 GB/s.

    >>> round(dram_bandwidth_Bps(8, 8, 4.8e9) / 1e9, 1), round(dram_bandwidth_Bps(8, 8, 4.4e9) / 1e9, 1)
    (307.2, 281.6)
    """
    return (_check.count("channels", channels, "channels")
            * _check.positive("bytes_per_transfer", bytes_per_transfer, "bytes per transfer")
            * _check.positive("transfers_per_s", transfers_per_s, "transfers per second"))


def xeon_socket_bandwidth_Bps(dimms_per_channel=1):
    """DDR5 bandwidth of one Xeon 8480C socket at the speed Intel allows for 1 or 2 DIMMs per channel.

    >>> round(xeon_socket_bandwidth_Bps(1) / 1e9, 1), round(xeon_socket_bandwidth_Bps(2) / 1e9, 1)
    (307.2, 281.6)
    """
    dpc = _check.count("dimms_per_channel", dimms_per_channel, "DIMMs per channel")
    if dpc > 2:
        raise ValueError(f"dimms_per_channel must be 1 or 2 (Intel lists DDR5 speeds for 1DPC and 2DPC), got {dpc}")
    x = lambda name: hardware.value("xeon_8480c", name)
    return dram_bandwidth_Bps(int(x("memory_channels")), x("ddr5_bytes_per_transfer"), x(f"ddr5_rate_{dpc}dpc"))


def numa_latency_s(local_s, remote_ratio, remote_fraction):
    """Average DRAM latency when a share of accesses goes to the other socket's memory.

    latency = local x (1 - r) + local x ratio x r.

    >>> round(numa_latency_s(107e-9, 1.5, 0.5) * 1e9, 2)
    133.75
    """
    local = _check.positive("local_s", local_s, "s")
    ratio = _check.positive("remote_ratio", remote_ratio, "(remote latency / local latency)")
    if ratio < 1:
        raise ValueError(f"remote_ratio must be at least 1 (remote memory is not faster than local), got {ratio:g}")
    r = _share("remote_fraction", remote_fraction)
    return local * ((1 - r) + ratio * r)


def transfer_time_s(n_bytes, rate_Bps):
    """Time to move ``n_bytes`` at ``rate_Bps`` (one direction).

    16 GB of BF16 weights over PCIe Gen5 x16 at 64 GB/s each way: 0.25 s.

    >>> transfer_time_s(16e9, 64e9)
    0.25
    """
    return _check.non_negative("n_bytes", n_bytes, "bytes") / _check.positive("rate_Bps", rate_Bps, "bytes/s")


# ---- the CPU's jobs: feeding tokens, launching kernels -------------------------------------

def share_of_capacity(demand_per_s, capacity_per_s):
    """Demand over capacity, e.g. tokens per second needed over tokens per second a CPU can tokenize.

    >>> share_of_capacity(3.3e5, 1.25e7)
    0.0264
    """
    return round(_check.non_negative("demand_per_s", demand_per_s, "per second")
                 / _check.positive("capacity_per_s", capacity_per_s, "per second"), 12)


def implied_launches(eager_step_s, graph_step_s, eager_launch_s, graph_launch_s):
    """How many kernel launches the gap between an eager and a CUDA-graph step corresponds to.

    n = (t_eager - t_graph) / (c_eager - c_graph).

    It assumes that (1) the whole gap is launch cost, (2) every kernel of the step costs the CPU
    what a tiny op costs, and (3) no launch overlaps GPU work: the GPU waits for each one. If some
    launches hide behind running kernels, more of them are needed to make the same gap, so under
    (1) and (2) the estimate is a lower bound on the kernel count.

    The H200 measurement, rounded: (6.462 - 5.137) ms / (7.07 - 1.17) us = 225 launches (224 from
    the unrounded timings, see :func:`launch_model_from_measurements`).

    >>> round(implied_launches(6.462e-3, 5.137e-3, 7.07e-6, 1.17e-6))
    225
    """
    te = _check.positive("eager_step_s", eager_step_s, "s")
    tg = _check.positive("graph_step_s", graph_step_s, "s")
    ce = _check.positive("eager_launch_s", eager_launch_s, "s")
    cg = _check.non_negative("graph_launch_s", graph_launch_s, "s")
    if te < tg:
        raise ValueError(f"eager_step_s ({te:g} s) must be at least graph_step_s ({tg:g} s)")
    if ce <= cg:
        raise ValueError(f"eager_launch_s ({ce:g} s) must be greater than graph_launch_s ({cg:g} s)")
    return (te - tg) / (ce - cg)


@dataclass(frozen=True)
class LaunchModel:
    """A step of ``kernels`` kernels doing ``gpu_s`` of GPU work, launched eagerly or from a graph.

    Two limits bracket the truth: *serial* (the GPU waits for every launch: t = gpu + n x c) and
    *overlapped* (the CPU runs ahead while kernels execute: t = max(gpu, n x c)).
    """
    kernels: float
    eager_launch_s: float
    graph_launch_s: float
    gpu_s: float

    def __post_init__(self):
        _check.non_negative("kernels", self.kernels, "kernels")
        _check.positive("eager_launch_s", self.eager_launch_s, "s")
        _check.non_negative("graph_launch_s", self.graph_launch_s, "s")
        _check.positive("gpu_s", self.gpu_s, "s")

    @property
    def eager_cpu_s(self):
        return self.kernels * self.eager_launch_s

    @property
    def graph_cpu_s(self):
        return self.kernels * self.graph_launch_s

    @property
    def eager_serial_s(self):
        return self.gpu_s + self.eager_cpu_s

    @property
    def graph_serial_s(self):
        return self.gpu_s + self.graph_cpu_s

    @property
    def eager_overlapped_s(self):
        return max(self.gpu_s, self.eager_cpu_s)

    @property
    def lost_share_serial(self):
        """Share of the eager step the GPU spends waiting for launches (serial limit)."""
        return self.eager_cpu_s / self.eager_serial_s

    @property
    def cpu_bound_below_s(self):
        """GPU step time below which the CPU is the bottleneck even with perfect overlap."""
        return self.eager_cpu_s


def launch_model_from_measurements(batch=1, context=1000):
    """The H200 decode step as a :class:`LaunchModel`: kernels from :func:`implied_launches`,
    GPU time = graph step - kernels x graph launch cost, so that the model reproduces both timings.

    >>> m = launch_model_from_measurements()
    >>> round(m.kernels), round(m.gpu_s * 1e3, 2), round(m.eager_serial_s * 1e3, 2)
    (224, 4.88, 6.46)
    """
    ladder = measurements.load(name="ladder")
    step = measurements.decode_check(batch, context)
    ce, cg = ladder["tiny_op_eager_us"] * units.US, ladder["tiny_op_graph_us"] * units.US
    n = implied_launches(step.measured_eager_s, step.measured_graph_s, ce, cg)
    return LaunchModel(kernels=n, eager_launch_s=ce, graph_launch_s=cg, gpu_s=step.measured_graph_s - n * cg)


# ---- the launch-overhead explorer (runs in Jupyter, not on the static site) -----------------



def launch_summary(lang, kernels, launch_us, graph_launch_us, gpu_ms):
    """The launch model for the given assumptions, as a small HTML table; bad input is a message."""
    try:
        m = LaunchModel(kernels=kernels, eager_launch_s=launch_us * units.US,
                        graph_launch_s=graph_launch_us * units.US, gpu_s=gpu_ms * units.MS)
        if m.graph_launch_s >= m.eager_launch_s:
            raise ValueError(f"graph_launch_s ({m.graph_launch_s:g} s) must be less than "
                             f"eager_launch_s ({m.eager_launch_s:g} s)")
    except (TypeError, ValueError) as err:
        return f"<p><b>{i18n.t('w_error', lang)}:</b> {html.escape(str(err))}</p>"
    bound = "cpu_w_cpu_bound" if m.eager_cpu_s > m.gpu_s else "cpu_w_gpu_bound"
    rows = [
        (i18n.t("cpu_w_serial", lang), f"{m.eager_serial_s * 1e3:,.3f} ms",
         f"{i18n.t('cpu_w_lost', lang)}: {m.lost_share_serial:.1%}"),
        (i18n.t("cpu_w_overlap", lang), f"{m.eager_overlapped_s * 1e3:,.3f} ms", i18n.t(bound, lang)),
        (i18n.t("cpu_w_graph", lang), f"{m.graph_serial_s * 1e3:,.3f} ms",
         f"{i18n.t('cpu_w_saved', lang)} {(m.eager_serial_s - m.graph_serial_s) * 1e3:,.3f} ms"),
    ]
    body = "".join(f"<tr><td>{a}</td><td style='text-align:right'>{b}</td><td>{c}</td></tr>" for a, b, c in rows)
    return f"<table>{body}</table>"


def explore_launch(lang="en"):
    """Sliders for kernels per step, launch costs and GPU time, recomputing the step live."""
    import ipywidgets as w
    m = launch_model_from_measurements()
    style, layout = {"description_width": "14em"}, w.Layout(width="32em")
    controls = {
        "kernels": w.IntSlider(round(m.kernels), min=0, max=3000, step=1, description=i18n.t("cpu_w_kernels", lang)),
        "launch_us": w.FloatSlider(round(m.eager_launch_s / units.US, 2), min=0.5, max=50, step=0.1,
                                   description=i18n.t("cpu_w_launch_us", lang)),
        "graph_launch_us": w.FloatSlider(round(m.graph_launch_s / units.US, 2), min=0, max=10, step=0.1,
                                         description=i18n.t("cpu_w_graph_us", lang)),
        "gpu_ms": w.FloatSlider(round(m.gpu_s / units.MS, 3), min=0.05, max=50, step=0.05,
                                description=i18n.t("cpu_w_gpu_ms", lang)),
    }
    for c in controls.values():
        c.style, c.layout = style, layout
    out = w.HTML()

    def update(_=None):
        out.value = launch_summary(lang, **{k: c.value for k, c in controls.items()})

    for c in controls.values():
        c.observe(update, names="value")
    update()
    return w.VBox(list(controls.values()) + [out])
