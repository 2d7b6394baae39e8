"""The GPU from the inside: warps and divergence, latency hiding, the memory hierarchy,
Tensor Core peaks and NVLink.

Every function is a small formula with its source; the specs come from the registry
(``data/registry/``, mostly ``nvidia_*.toml``). Chapter 3 of the course uses them.

- SIMT: an SM issues one instruction for the 32 threads of a warp. When a branch splits the
  warp, both sides run one after the other with the inactive lanes masked off.
- Little's law (J. D. C. Little, Operations Research 9(3), 1961): items in a queue = arrival
  rate x time in the queue. For memory: bytes in flight = bandwidth x latency.
- Peaks: SMs x FLOP per clock per SM x clock (H100 whitepaper V1.04, Table 1; A100 whitepaper,
  section 4.1).
"""
import math
from collections.abc import Sequence
from dataclasses import dataclass

from . import _check, generations, hardware, measurements, occupancy, units

# A teaching assumption of chapter 3, not a measurement or a datasheet value: the time from a
# load leaving an SM to its data coming back from HBM, under load. Unloaded HBM accesses on
# recent GPUs take a few hundred nanoseconds and the latency grows as queues fill; vary it in
# the chapter's widget. NVIDIA does not publish a figure.
TEACHING_HBM_LATENCY_S = 600e-9

REGISTER_B = 4          # one register: 32 bits (the registry counts 32-bit registers per SM)
FMA_OPERANDS = 3        # an FMA a x b + c reads three registers
FLOAT_B = 4             # one float32 element, as the H200's strided benchmark reads and writes
TRANSACTION_B = 32      # one memory transaction (sector), the CUDA C++ Programming Guide's 32 bytes


# ---- warps and divergence ----------------------------------------------------------------

def _branch_inputs(taken_lanes: int, then_cycles: float, else_cycles: float,
                   warp_size: int) -> tuple[int, float, float, int]:
    w = _check.count("warp_size", warp_size, "lanes")
    k = _check.count("taken_lanes", taken_lanes, "lanes", minimum=0)
    if k > w:
        raise ValueError(f"taken_lanes must be at most warp_size ({w}), got {k}")
    return (k, _check.non_negative("then_cycles", then_cycles, "cycles"),
            _check.non_negative("else_cycles", else_cycles, "cycles"), w)


@_check.finite
def warp_cycles(taken_lanes: int, then_cycles: float, else_cycles: float = 0.0, warp_size: int = 32) -> float:
    """Cycles the warp spends at an if/else: each side that any lane takes is issued in full.

    One lane on a 100-cycle path and 31 on a 10-cycle one: the warp takes 110 cycles, 11x
    the 10 it would take if all agreed.

    >>> warp_cycles(1, 100, 10), warp_cycles(0, 100, 10)
    (110.0, 10.0)
    """
    k, a, b, w = _branch_inputs(taken_lanes, then_cycles, else_cycles, warp_size)
    return a * (k > 0) + b * (k < w)


@_check.finite
def branch_efficiency(taken_lanes: int, then_cycles: float, else_cycles: float = 0.0,
                      warp_size: int = 32) -> float:
    """Useful lane-cycles / issued lane-cycles for one warp at an if/else.

    Equation eq-branch-efficiency in chapter 3.

    ``taken_lanes`` of the ``warp_size`` lanes take the ``then`` side. A side that at least one
    lane takes is issued for the whole warp (the others are masked), so
    issued = warp_size x (then_cycles [if any lane takes it] + else_cycles [if any lane skips]),
    useful = taken x then_cycles + (warp_size - taken) x else_cycles.

    >>> branch_efficiency(8, 10, 10)      # both sides run: half the issued lanes idle
    0.5
    >>> branch_efficiency(32, 10, 10)     # the whole warp agrees: no waste
    1.0
    >>> branch_efficiency(4, 40)          # an if without else, taken by 4 lanes
    0.125
    """
    k, a, b, w = _branch_inputs(taken_lanes, then_cycles, else_cycles, warp_size)
    issued = w * warp_cycles(k, a, b, w)
    if issued == 0:
        raise ValueError("then_cycles and else_cycles must not both be 0 (on the side the lanes take)")
    return (k * a + (w - k) * b) / issued


@_check.finite
def p_warp_skips_side(p_taken: float, warp_size: int = 32) -> float:
    """Probability that no lane of a warp takes a side each lane takes with probability p: (1 - p)^W.

    >>> round(p_warp_skips_side(0.1), 3)   # a 10% branch is skipped by a whole warp only 3.4% of the time
    0.034
    """
    p = _check.share("p_taken", p_taken, "a probability")
    return (1 - p) ** _check.count("warp_size", warp_size, "lanes")


@_check.finite
def expected_branch_efficiency(p_taken: float, then_cycles: float, else_cycles: float = 0.0,
                               warp_size: int = 32) -> float:
    """Long-run efficiency when each lane takes the branch independently with probability p.

    Over many warps, E[useful] / E[issued] with
    E[useful] = W (p a + (1 - p) b) and E[issued] = W (a (1 - (1-p)^W) + b (1 - p^W)):
    a side is issued unless every lane avoids it.

    >>> round(expected_branch_efficiency(0.1, 1, 1), 3)   # 10% of lanes: both sides nearly always run
    0.509
    """
    skip_then = p_warp_skips_side(p_taken, warp_size)
    p, w = float(p_taken), int(warp_size)
    a = _check.non_negative("then_cycles", then_cycles, "cycles")
    b = _check.non_negative("else_cycles", else_cycles, "cycles")
    if a == 0 and b == 0:
        raise ValueError("then_cycles and else_cycles must not both be 0")
    if 1e-6 <= p <= 1 - 1e-6:
        then_runs, else_runs = 1 - skip_then, 1 - p_warp_skips_side(1 - p, w)
    else:   # 1 - (1 - p)^W loses every digit for tiny p: -expm1(W log1p(-p)) keeps them
        then_runs = -math.expm1(w * math.log1p(-p)) if p < 1 else 1.0
        else_runs = -math.expm1(w * math.log(p)) if p > 0 else 1.0
    issued = a * then_runs + b * else_runs
    if issued == 0:
        raise ValueError(f"the side the lanes take has 0 cycles: p_taken = {p:g} with then_cycles = {a:g} "
                         f"and else_cycles = {b:g}")
    return min(1.0, (p * a + (1 - p) * b) / issued)


# ---- occupancy and Little's law ----------------------------------------------------------

@_check.finite
def warps_per_sm(registers_per_thread: int, limits: occupancy.SMLimits | None = None) -> int:
    """Resident warps per SM when registers are the limit, as NVIDIA's occupancy calculator counts them.

    ``limits`` defaults to the H100's, compute capability 9.0 (:func:`infra_lib.occupancy.limits`).
    Each warp's registers are rounded up to the allocation unit (256) and each of the 4
    sub-partitions holds whole warps (:func:`infra_lib.occupancy.warps_by_registers`, chapter 5):
    min(max_warps, 4 x floor(registers / 4 / (ceil(r x 32 / 256) x 256))).

    H100: 65,536 registers per SM; at 128 registers per thread a warp needs 4,096, so 16 fit; at
    96, 3,072 each, 5 per sub-partition, 20 (plain division would say 21).

    >>> warps_per_sm(32), warps_per_sm(96), warps_per_sm(128), warps_per_sm(255)
    (64, 20, 16, 8)
    """
    lim = occupancy.limits("9.0") if limits is None else limits
    r = _check.count("registers_per_thread", registers_per_thread, "registers")
    if r > lim.max_registers_per_thread:
        raise ValueError(f"registers_per_thread must be at most {lim.max_registers_per_thread}, got {r}")
    per_warp = -(-r * lim.warp_size // lim.register_unit) * lim.register_unit
    return min(lim.max_warps, lim.warp_granularity * (lim.registers // lim.warp_granularity // per_warp))


@_check.finite
def bytes_in_flight_B(bandwidth_Bps: float, latency_s: float) -> float:
    """Little's law: bytes that must be on their way at every moment = bandwidth x latency.

    Equation eq-littles-law in chapter 3.

    H100 SXM5 at 3,352 GB/s with a 600 ns latency: 2.0 MB in flight across the chip.

    >>> round(bytes_in_flight_B(3352e9, 600e-9) / 1e6, 2)
    2.01
    """
    return _check.positive("bandwidth_Bps", bandwidth_Bps, "bytes/s") * _check.positive("latency_s", latency_s, "s")


@_check.finite
def bytes_per_warp_needed_B(bandwidth_Bps: float, latency_s: float, sm_count: int, warps: int) -> float:
    """Bytes each resident warp must keep in flight: bandwidth x latency / (SMs x warps per SM).

    >>> round(bytes_per_warp_needed_B(3352e9, 600e-9, 132, 64))
    238
    """
    return (bytes_in_flight_B(bandwidth_Bps, latency_s) / _check.count("sm_count", sm_count, "SMs")
            / _check.count("warps", warps, "warps per SM"))


@_check.finite
def warps_needed(bandwidth_Bps: float, latency_s: float, sm_count: int, bytes_per_warp: float) -> int:
    """Warps per SM needed to keep bandwidth x latency in flight, rounded up.

    H100 SXM5, 600 ns, each warp with one 16-byte load per lane (512 bytes) in flight:
    2.01 MB / 132 SMs / 512 B = 29.8, so 30 warps.

    >>> warps_needed(3352e9, 600e-9, 132, 512)
    30
    """
    per_sm = bytes_in_flight_B(bandwidth_Bps, latency_s) / _check.count("sm_count", sm_count, "SMs")
    return math.ceil(per_sm / _check.positive("bytes_per_warp", bytes_per_warp, "bytes"))


@_check.finite
def achievable_Bps(bandwidth_Bps: float, latency_s: float, sm_count: int, warps: int, bytes_per_thread: float,
                   loads_per_thread: float, warp_size: int = 32) -> float:
    """Little's law turned around: min(peak, bytes in flight / latency).

    bytes in flight = SMs x warps x warp_size x bytes per load x loads outstanding per thread.

    >>> round(achievable_Bps(3352e9, 600e-9, 132, 16, 4, 1) / 1e9)   # too few bytes in flight
    451
    >>> achievable_Bps(3352e9, 600e-9, 132, 64, 16, 1) / 1e9          # enough: the peak
    3352.0
    """
    bw = _check.positive("bandwidth_Bps", bandwidth_Bps, "bytes/s")
    lat = _check.positive("latency_s", latency_s, "s")
    in_flight = (_check.count("sm_count", sm_count, "SMs") * _check.count("warps", warps, "warps per SM")
                 * _check.count("warp_size", warp_size, "lanes")
                 * _check.positive("bytes_per_thread", bytes_per_thread, "bytes per load")
                 * _check.positive("loads_per_thread", loads_per_thread, "loads in flight per thread"))
    return min(bw, in_flight / lat)


# ---- the memory hierarchy ----------------------------------------------------------------

@_check.finite
def shared_memory_Bps_per_sm(clock_hz: float, banks: int = 32, bank_B: float = 4) -> float:
    """Shared-memory bandwidth of one SM: banks x bytes per bank per clock x clock.

    CUDA C++ Programming Guide: "Shared memory has 32 banks ... Each bank has a bandwidth of
    32 bits per clock cycle": 128 bytes per clock per SM.

    >>> shared_memory_Bps_per_sm(1.98e9) / 1e9
    253.44
    """
    return (_check.count("banks", banks, "banks") * _check.positive("bank_B", bank_B, "bytes")
            * _check.positive("clock_hz", clock_hz, "Hz"))


@_check.finite
def register_operand_Bps_per_sm(fp32_lanes: int, clock_hz: float, operands: int = FMA_OPERANDS,
                                bytes_per_operand: float = REGISTER_B) -> float:
    """Register reads the FP32 units consume at peak: lanes x operands x bytes x clock.

    An FMA (a x b + c) reads three 32-bit registers. NVIDIA publishes no register-file bandwidth;
    this is what the 128 FP32 lanes of an H100 SM need to run at their peak, a lower bound.

    >>> register_operand_Bps_per_sm(128, 1.98e9) / 1e12
    3.04128
    """
    return (_check.count("fp32_lanes", fp32_lanes, "lanes") * _check.count("operands", operands, "operands")
            * _check.positive("bytes_per_operand", bytes_per_operand, "bytes")
            * _check.positive("clock_hz", clock_hz, "Hz"))


@dataclass(frozen=True)
class Level:
    """One level of the memory hierarchy: bandwidth per SM and for the chip, and its provenance."""
    _positive = ("sm_count",)                  # per_sm_Bps divides by it
    key: str
    chip_Bps: float
    sm_count: int
    kind: str
    source: str

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def per_sm_Bps(self) -> float:
        return self.chip_Bps / self.sm_count


def h100_hierarchy() -> list[Level]:
    """Registers, shared memory, L2 and HBM of the H100 SXM5, chip-wide, at the 1,980 MHz clock.

    registers and shared memory: derived (per-SM formula x 132 SMs x 1.98 GHz); L2: reported
    (Chips and Cheese, via How to Scale Your Model; NVIDIA does not publish it); HBM: datasheet.

    >>> [round(l.chip_Bps / 1e12, 1) for l in h100_hierarchy()]
    [401.4, 33.5, 5.5, 3.4]
    """
    v = lambda name: hardware.value("h100_sxm5", name)
    sms, clock = int(v("sm_count")), v("max_sm_clock_hz")
    l2, hbm = hardware.spec("h100_sxm5", "l2_Bps"), hardware.spec("h100_sxm5", "mem_bw_Bps")
    return [
        Level("registers", register_operand_Bps_per_sm(int(v("fp32_cores_per_sm")), clock) * sms, sms,
              "derived", "FP32 lanes x 3 operands x 4 B x clock (what the FP32 units read at peak)"),
        Level("shared", shared_memory_Bps_per_sm(clock, int(v("shared_memory_banks")), v("shared_memory_bank_B")) * sms,
              sms, "derived", "32 banks x 4 B per clock (CUDA C++ Programming Guide) x clock"),
        Level("l2", l2.value, sms, l2.kind, l2.cite()),
        Level("hbm", hbm.value, sms, hbm.kind, hbm.cite()),
    ]


@_check.finite
def strided_ceiling_Bps(coalesced_Bps: float, element_B: float = FLOAT_B, transaction_B: float = TRANSACTION_B,
                        write_B: float = 0) -> float:
    """Useful bandwidth when every element read drags in its own memory transaction.

    CUDA C++ Programming Guide: "if a 32-byte memory transaction is generated for each
    thread's 4-byte access, throughput is divided by 8": ceiling = bandwidth x element / 32.
    A kernel that also writes ``write_B`` bytes per element, coalesced, moves max(element,
    transaction) + write bytes for element + write useful ones: ceiling = bandwidth x (e + w) /
    (max(e, t) + w). The course's strided benchmark reads one float and writes one (chapter 5
    counts its bytes the same way).

    >>> strided_ceiling_Bps(4242e9) / 1e9
    530.25
    >>> round(strided_ceiling_Bps(4242e9, write_B=4) / 1e9, 1)     # read scattered, write coalesced
    942.7
    """
    b = _check.positive("coalesced_Bps", coalesced_Bps, "bytes/s")
    e = _check.positive("element_B", element_B, "bytes")
    t = _check.positive("transaction_B", transaction_B, "bytes")
    w = _check.non_negative("write_B", write_B, "bytes")
    return b * (e + w) / (max(e, t) + w)


@_check.finite
def h200_copy_by_working_set(run: str = measurements.RUN) -> list[tuple[float, float]]:
    """The H200 copy benchmark: [(working set in bytes, bandwidth in B/s)], as the file labels MB."""
    rows = measurements.load(run, name="ladder")["copy_by_working_set"]
    return [(r["working_set_MB"] * units.MB, r["GBps"] * units.GB) for r in rows]


@_check.finite
def launch_bound(rows: Sequence[tuple[float, float]], margin_s: float = 1e-6) -> list[bool]:
    """Which copies of a working-set sweep are launch-bound: those whose time (size / rate) is within
    ``margin_s`` of the fastest copy's time, the fixed cost that any kernel pays.

    A copy that takes about as long as the smallest one measures that fixed cost, not bandwidth;
    its rate is only a lower bound on what the memory can do.

    >>> launch_bound([(2e6, 0.35e12), (32e6, 4.88e12), (8192e6, 4.26e12)])
    [True, True, False]
    """
    m = _check.non_negative("margin_s", margin_s, "s")
    times = [_check.positive("working set", ws, "bytes") / _check.positive("rate", bw, "bytes/s") for ws, bw in rows]
    if not times:
        raise ValueError("rows must hold at least one (working set, rate) pair, got none")
    floor = min(times)
    return [t <= floor + m for t in times]


@_check.finite
def h200_strided_loads(run: str = measurements.RUN) -> list[tuple[int, float]]:
    """The H200 strided-gather benchmark: [(stride in float32 elements, useful B/s)]."""
    return [(r["stride"], r["useful_GBps"] * units.GB)
            for r in measurements.load(run, name="ladder")["strided_loads"]]


# ---- Tensor Core peaks -------------------------------------------------------------------

@_check.finite
def tensor_flop_per_clock_per_sm(tensor_cores_per_sm: int, fma_per_clock_per_core: int) -> int:
    """FLOP per clock per SM = Tensor Cores x FMA per clock each x 2 (an FMA is two FLOPs).

    A100: 4 x 256 x 2 = 2,048; V100: 8 x 64 x 2 = 1,024 (A100 whitepaper, section 4.1).

    >>> tensor_flop_per_clock_per_sm(4, 256), tensor_flop_per_clock_per_sm(8, 64)
    (2048, 1024)
    """
    return 2 * (_check.count("tensor_cores_per_sm", tensor_cores_per_sm, "Tensor Cores")
                * _check.count("fma_per_clock_per_core", fma_per_clock_per_core, "FMA per clock"))


@_check.finite
def gemm_intensity(m: int, n: int, k: int, in_B: float, out_B: float) -> float:
    """Arithmetic intensity of C (m x n) = A (m x k) @ B (k x n), each matrix moved once:
    2mnk FLOP / ((mk + kn) x in_B + mn x out_B) bytes.

    An 8192^3 GEMM: 2,731 FLOP per byte in BF16; 4,096 with FP8 inputs and a BF16 result.

    >>> round(gemm_intensity(8192, 8192, 8192, 2, 2)), round(gemm_intensity(8192, 8192, 8192, 1, 2))
    (2731, 4096)
    """
    mm, nn, kk = (_check.count(name, v, "elements") for name, v in (("m", m), ("n", n), ("k", k)))
    i = _check.positive("in_B", in_B, "bytes per input element")
    o = _check.positive("out_B", out_B, "bytes per output element")
    return 2 * mm * nn * kk / ((mm * kk + kk * nn) * i + mm * nn * o)


@dataclass(frozen=True)
class PeakCheck:
    """A published Tensor Core peak against SMs x FLOP per clock per SM x clock."""
    device: str
    sm_count: int
    flop_per_clock_per_sm: int
    clock_hz: float
    datasheet_flop_s: float

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.count("sm_count", self.sm_count, "SMs")
        _check.positive("flop_per_clock_per_sm", self.flop_per_clock_per_sm, "FLOP per clock")
        _check.positive("clock_hz", self.clock_hz, "Hz")
        _check.positive("datasheet_flop_s", self.datasheet_flop_s, "FLOP/s")

    @property
    def computed_flop_s(self) -> float:
        return generations.peak_flop_s(self.sm_count, self.flop_per_clock_per_sm, self.clock_hz)

    @property
    def implied_clock_hz(self) -> float:
        """The clock at which the datasheet figure is exact."""
        return generations.implied_clock_hz(self.datasheet_flop_s, self.sm_count, self.flop_per_clock_per_sm)


def v100_a100_h100_peak_checks() -> list[PeakCheck]:
    """V100, A100 and H100 SXM5 dense 16-bit Tensor Core peaks, computed and as published.

    The H100 has no single published boost clock; its peak is checked at the clock it implies.

    >>> [round(c.computed_flop_s / 1e12, 1) for c in v100_a100_h100_peak_checks()]
    [125.3, 311.9, 989.4]
    """
    out = []
    for dev in ("v100_sxm2", "a100_sxm4_40gb"):
        v = lambda name: hardware.value(dev, name)
        out.append(PeakCheck(dev, int(v("sm_count")),
                             tensor_flop_per_clock_per_sm(int(v("tensor_cores_per_sm")),
                                                          int(v("tensor_fma_per_clock_per_core"))),
                             v("boost_clock_hz"), v("peak_flop_s")))
    v = lambda name: hardware.value("h100_sxm5", name)
    sms, per_clock = int(v("sm_count")), int(v("tensor_flop_per_clock_per_sm"))
    clock = round(generations.implied_clock_hz(v("peak_flop_s"), sms, per_clock) / 1e6) * 1e6
    out.append(PeakCheck("h100_sxm5", sms, per_clock, clock, v("peak_flop_s")))
    return out


# ---- NVLink ------------------------------------------------------------------------------

@dataclass(frozen=True)
class NVLinkGen:
    """One GPU's NVLink: links x bandwidth per link per direction, and the total as quoted."""
    device: str
    generation: int
    links: int
    total_Bps: float          # both directions, as NVIDIA quotes it

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.count("links", self.links, "links")
        _check.positive("total_Bps", self.total_Bps, "bytes/s")

    @property
    def per_direction_Bps(self) -> float:
        return units.per_direction(self.total_Bps)

    @property
    def per_link_per_direction_Bps(self) -> float:
        return self.per_direction_Bps / self.links


NVLINK_DEVICES = (("v100_sxm2", 2), ("a100_sxm4_40gb", 3), ("h100_sxm5", 4), ("b200_hgx", 5))


def nvlink_generations() -> list[NVLinkGen]:
    """NVLink 2 to 5 as quoted (links, total of both directions), per direction derived.

    >>> [(g.links, round(g.per_link_per_direction_Bps / 1e9)) for g in nvlink_generations()]
    [(6, 25), (12, 25), (18, 25), (18, 50)]
    """
    return [NVLinkGen(dev, gen, int(hardware.value(dev, "nvlink_links")), hardware.value(dev, "nvlink_total_Bps"))
            for dev, gen in NVLINK_DEVICES]


@_check.finite
def nvlink_total_Bps(links: int, per_link_per_direction_Bps: float) -> float:
    """Total NVLink bandwidth as quoted: links x per-link bandwidth per direction x 2.

    H100: 18 x 25 GB/s x 2 = 900 GB/s (H100 whitepaper V1.04, section 4.7).

    >>> nvlink_total_Bps(18, 25e9) / 1e9
    900.0
    """
    return units.bidirectional(_check.count("links", links, "links")
                               * _check.positive("per_link_per_direction_Bps", per_link_per_direction_Bps, "bytes/s"))
