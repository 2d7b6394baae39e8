"""GPU generations side by side, from their published figures: what one SM and one Tensor Core
do per clock, the peak rebuilt from its parts, bytes per FLOP, the ridge point and the
batch-1 decode ceiling.

A datasheet gives a peak (FLOP/s), the number of SMs and Tensor Cores, and sometimes a clock.
Everything else is arithmetic on those:

- peak = SMs x FLOP per clock per SM x clock (H100 whitepaper V1.04, Table 1; A100 whitepaper,
  section 4.1), so FLOP per clock per SM = peak / (SMs x clock), and per Tensor Core
  = peak / (Tensor Cores x clock);
- bytes per FLOP = memory bandwidth / peak, the inverse of the roofline's ridge point
  (Williams, Waterman and Patterson, CACM 52(4), 2009);
- batch-1 decode reads every weight once per token, so tokens/s <= bandwidth / weight bytes.

H100 SXM5, dense BF16: 132 SMs, 528 Tensor Cores, 989.4 TFLOP/s at 1.83 GHz:

>>> round(flop_per_clock_per_sm(989.4e12, 132, 1.83e9)), round(flop_per_clock_per_tensor_core(989.4e12, 528, 1.83e9))
(4096, 1024)

Chapter 4 compares the GPUs the registry marks ``compared = true`` (:func:`comparison_devices`,
oldest first), one :class:`GenerationRow` each (:func:`comparison_rows`); the cells of its
spec table, each value with its kind, are :mod:`infra_lib.specsheet`'s.
"""
import math
from dataclasses import dataclass

from . import _check, hardware, memory, roofline, specsheet


@_check.finite
def peak_flop_s(sm_count: int, flop_per_clock_per_sm: float, clock_hz: float) -> float:
    """Peak FLOP/s = SMs x FLOP per clock per SM x clock.

    Equation eq-peak-flops in chapter 3.

    H100 SXM5 dense BF16: 132 x 4,096 x 1.83 GHz = 989.4 TFLOPS (whitepaper V1.04, Table 1).

    >>> round(peak_flop_s(132, 4096, 1.83e9) / 1e12, 1)
    989.4
    """
    return (_check.count("sm_count", sm_count, "SMs")
            * _check.positive("flop_per_clock_per_sm", flop_per_clock_per_sm, "FLOP per clock per SM")
            * _check.positive("clock_hz", clock_hz, "Hz"))


@_check.finite
def implied_clock_hz(peak_flop_s: float, sm_count: int, flop_per_clock_per_sm: float) -> float:
    """The clock a published peak assumes: peak / (SMs x FLOP per clock per SM).

    H100 SXM5: 989.4 TFLOPS / (132 x 4,096) = 1.83 GHz.

    >>> round(implied_clock_hz(989.4e12, 132, 4096) / 1e6)
    1830
    """
    return (_check.positive("peak_flop_s", peak_flop_s, "FLOP/s")
            / (_check.count("sm_count", sm_count, "SMs")
               * _check.positive("flop_per_clock_per_sm", flop_per_clock_per_sm, "FLOP per clock per SM")))


@_check.finite
def flop_per_clock_per_sm(peak_flop_s: float, sm_count: int, clock_hz: float) -> float:
    """The per-SM rate a published peak implies at a given clock: peak / (SMs x clock).

    H100 SXM5 BF16: 989.4 TFLOPS / (132 x 1.83 GHz) = 4,096; FP8: 1,978.9 TFLOPS gives 8,192,
    twice the BF16 rate (whitepaper V1.04, Table 1).

    >>> round(flop_per_clock_per_sm(989.4e12, 132, 1.83e9)), round(flop_per_clock_per_sm(1978.9e12, 132, 1.83e9))
    (4096, 8192)
    """
    return (_check.positive("peak_flop_s", peak_flop_s, "FLOP/s")
            / (_check.count("sm_count", sm_count, "SMs") * _check.positive("clock_hz", clock_hz, "Hz")))


@_check.finite
def flop_per_clock_per_tensor_core(peak_flop_s: float, tensor_cores: int, clock_hz: float) -> float:
    """The per-Tensor-Core rate a published peak implies: peak / (Tensor Cores x clock).

    ``tensor_cores`` is the whole GPU's count. H100 SXM5: 528 Tensor Cores (4 per SM),
    989.4 TFLOPS / (528 x 1.83 GHz) = 1,024 dense BF16 FLOP per clock, 512 FMA.

    >>> round(flop_per_clock_per_tensor_core(989.4e12, 528, 1.83e9))
    1024
    """
    return (_check.positive("peak_flop_s", peak_flop_s, "FLOP/s")
            / (_check.count("tensor_cores", tensor_cores, "Tensor Cores")
               * _check.positive("clock_hz", clock_hz, "Hz")))


@_check.finite
def tensor_core_peak_flop_s(sm_count: int, tensor_cores_per_sm: int, flop_per_clock_per_tensor_core: float,
                            clock_hz: float) -> float:
    """The peak back from its parts: SMs x Tensor Cores per SM x FLOP per clock per Tensor Core x clock.

    H100 SXM5: 132 x 4 x 1,024 x 1.83 GHz = 989.4 TFLOPS dense BF16.

    >>> round(tensor_core_peak_flop_s(132, 4, 1024, 1.83e9) / 1e12, 1)
    989.4
    """
    return (_check.count("sm_count", sm_count, "SMs")
            * _check.count("tensor_cores_per_sm", tensor_cores_per_sm, "Tensor Cores per SM")
            * _check.positive("flop_per_clock_per_tensor_core", flop_per_clock_per_tensor_core,
                              "FLOP per clock per Tensor Core")
            * _check.positive("clock_hz", clock_hz, "Hz"))


@dataclass(frozen=True)
class PeakGain:
    """A new GPU's peak over an old one's, split into SMs x per-SM rate x clock (their product)."""
    total: float
    sm_factor: float
    per_sm_factor: float
    clock_factor: float
    implied_clock_hz: float

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def peak_gain(new_peak_flop_s: float, new_sm_count: int, old_peak_flop_s: float, old_sm_count: int,
              old_flop_per_clock_per_sm: float, per_sm_factor: float) -> PeakGain:
    """Split new / old peak into the SM-count ratio, an assumed per-SM rate ratio and the clock
    ratio that the two peaks then imply (equation eq-peak-flops in chapter 3, applied twice):

    clock_new = new peak / (new SMs x old rate x per_sm_factor),
    clock_old = old peak / (old SMs x old rate), and total = SM factor x per_sm_factor x clock factor.

    Tensor Core rates per SM come in powers of two, so a plausible ``per_sm_factor`` is the
    one that leaves the clock factor near 1. B200 (2.25 PF dense BF16, 148 SMs) over H100
    (989.4 TF, 132 SMs, 4,096 FLOP/clock/SM): with the per-SM rate doubled, the clock is 1.86 GHz,
    1.01x the H100's 1.83; with it unchanged, the B200 would need 3.71 GHz.

    >>> g = peak_gain(2.25e15, 148, 989.4e12, 132, 4096, 2)
    >>> round(g.total, 2), round(g.sm_factor, 2), round(g.clock_factor, 2), round(g.implied_clock_hz / 1e9, 2)
    (2.27, 1.12, 1.01, 1.86)
    >>> round(peak_gain(2.25e15, 148, 989.4e12, 132, 4096, 1).implied_clock_hz / 1e9, 2)
    3.71
    """
    old_clock = implied_clock_hz(old_peak_flop_s, old_sm_count, old_flop_per_clock_per_sm)
    factor = _check.positive("per_sm_factor", per_sm_factor, "x the old per-SM rate")
    new_clock = implied_clock_hz(new_peak_flop_s, new_sm_count, old_flop_per_clock_per_sm * factor)
    return PeakGain(total=new_peak_flop_s / old_peak_flop_s, sm_factor=new_sm_count / old_sm_count,
                    per_sm_factor=factor, clock_factor=new_clock / old_clock, implied_clock_hz=new_clock)


@_check.finite
def bytes_per_flop(mem_bw_Bps: float, peak_flop_s: float) -> float:
    """Bytes of memory traffic the chip can afford per FLOP at peak: bandwidth / peak.

    The inverse of the ridge point. H100 SXM5: 3,352 GB/s / 989.4 TFLOPS = 0.0034 byte per FLOP.

    >>> round(bytes_per_flop(3352e9, 989.4e12), 5)
    0.00339
    """
    return (_check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s")
            / _check.positive("peak_flop_s", peak_flop_s, "FLOP/s"))


@_check.finite
def decode_ceiling_tok_s(mem_bw_Bps: float, weight_B: float) -> float:
    """Batch-1 decode ceiling: every weight read once per token, so tokens/s <= bandwidth / weight bytes.

    KV-cache reads, kernel launches and imperfect bandwidth only lower it. 8B parameters in
    BF16 (16 GB) on an H100 SXM5 at 3,352 GB/s: 209.5 tokens/s.

    >>> decode_ceiling_tok_s(3352e9, 16e9)
    209.5
    """
    return (_check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s")
            / _check.positive("weight_B", weight_B, "bytes"))


# ---- chapter 4: one row per generation, read from the registry -----------------------------

@_check.finite
def dense_bf16_flop_s(device: str) -> float:
    """A device's dense BF16 Tensor Core peak: its ``peak_flop_s`` (dense) when the registry has
    one, else its ``peak_flop_s_sparse`` aligned to dense (/ 2), since NVIDIA prints only the
    sparse figure for H200 and Blackwell: the value of :func:`infra_lib.specsheet.dense_peak_cell`.

    >>> dense_bf16_flop_s("h100_sxm5") / 1e12, dense_bf16_flop_s("h200_sxm") / 1e12
    (989.4, 989.5)
    """
    cell = specsheet.dense_peak_cell(device, "bf16")       # the one reading of a sheet's peak
    if cell.kind in ("none", "unpublished"):
        raise KeyError(f"device {device!r} has no BF16 Tensor Core peak in the registry "
                       f"(neither peak_flop_s nor peak_flop_s_sparse)")
    return cell.value


@dataclass(frozen=True)
class GenerationRow:
    """What a generation's published peak and bandwidth imply (dense BF16)."""
    device: str
    year: int
    peak_flop_s: float
    mem_bw_Bps: float
    ridge_flop_per_B: float
    bytes_per_flop: float
    decode_8b_tok_s: float
    decode_70b_tok_s: float

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def generation_row(device: str, small_weight_B: float = 16e9, large_weight_B: float = 140e9) -> GenerationRow:
    """Peak, bandwidth, ridge point (peak / bandwidth), bytes per FLOP and batch-1 decode
    ceilings (bandwidth / weight bytes) for an 8B and a 70B model in BF16 (16 and 140 GB by default).
    The bandwidth is on the basis of the peak: the HGX board's where the entry holds one
    (:func:`infra_lib.hardware.board_spec_name`; the B300's 7.7 TB/s, not the full chip's 8).

    >>> r = generation_row("h100_sxm5")
    >>> round(r.ridge_flop_per_B, 1), r.decode_8b_tok_s
    (295.2, 209.5)
    """
    d = hardware.entry(_check.text("device", device))
    peak, bw = dense_bf16_flop_s(device), hardware.value(device, hardware.board_spec_name(device, "mem_bw_Bps"))
    return GenerationRow(device=device, year=int(d.year or 0), peak_flop_s=peak, mem_bw_Bps=bw,
                         ridge_flop_per_B=roofline.ridge_point(peak, bw), bytes_per_flop=bytes_per_flop(bw, peak),
                         decode_8b_tok_s=decode_ceiling_tok_s(bw, small_weight_B),
                         decode_70b_tok_s=decode_ceiling_tok_s(bw, large_weight_B))


def comparison_devices() -> list[hardware.Entry]:
    """The GPUs compared across generations: the registry's devices marked ``compared = true``,
    oldest first (by year, then in the order of the registry files, as :func:`infra_lib.hardware.devices`).
    A GPU added to the registry with that mark reaches chapter 4's table, figures and decode
    ceilings without an edit to the chapter.

    >>> names = [d.short_name for d in comparison_devices()]
    >>> names[0], {"A100", "H100", "H200", "B200", "B300"} <= set(names), names.index("H100") < names.index("B200")
    ('V100', True, True)
    """
    return [d for d in hardware.devices() if d.compared]


@_check.finite
def comparison_rows(small_weight_B: float = 16e9, large_weight_B: float = 140e9) -> list[GenerationRow]:
    """:func:`generation_row` of each compared GPU (:func:`comparison_devices`) whose registry
    entry has a BF16 Tensor Core peak (dense, or sparse to align) and a memory bandwidth, oldest
    first. Rubin, announced with an NVFP4 figure only, has no row.

    >>> names = [hardware.short_name(r.device) for r in comparison_rows()]
    >>> names[0], "H200" in names, "VR200" in names       # Rubin: no BF16 peak published
    ('V100', True, False)
    """
    return [generation_row(d.key, small_weight_B, large_weight_B) for d in comparison_devices()
            if any(n in d.specs for n in specsheet.PEAK_SPECS["bf16"]) and "mem_bw_Bps" in d.specs]


@_check.finite
def on_chip_sram_B(sm_count: int, registers_per_sm_B: float, l1_shared_per_sm_B: float, l2_B: float) -> float:
    """On-chip SRAM = SMs x (register file + L1/shared memory) + L2.

    H100 SXM5: 132 x (256 KiB + 256 KiB) + 50 MB = 119.2 MB (whitepaper V1.04: 65,536 32-bit
    registers and 256 KB of L1/shared per SM, 50 MB L2).

    >>> round(on_chip_sram_B(132, 256 * 1024, 256 * 1024, 50e6) / 1e6, 1)
    119.2
    """
    return (_check.count("sm_count", sm_count, "SMs")
            * (_check.non_negative("registers_per_sm_B", registers_per_sm_B, "bytes")
               + _check.non_negative("l1_shared_per_sm_B", l1_shared_per_sm_B, "bytes"))
            + _check.non_negative("l2_B", l2_B, "bytes"))


# ---- chapter 4: what a device's bandwidth and power imply ----------------------------------

def _stacks(device: str) -> float:
    stacks = specsheet.stacks_cell(device)
    if not stacks.known:
        raise KeyError(f"device {device!r} has no HBM stack count in the registry")
    return stacks.value


@_check.finite
def per_stack_bw_Bps(device: str) -> float:
    """Bandwidth per HBM stack: bandwidth / stacks (:func:`infra_lib.specsheet.stacks_cell`).
    H100 SXM5: 3,352 GB/s / 5 = 670.4 GB/s.

    >>> per_stack_bw_Bps("h100_sxm5") / 1e9
    670.4
    """
    return hardware.value(device, "mem_bw_Bps") / _stacks(device)


@_check.finite
def device_pin_rate_bps(device: str) -> float:
    """Data rate per HBM pin that a device's bandwidth implies: :func:`infra_lib.memory.pin_rate_bps`
    over a bus of stacks x 1,024 bits (HBM2 to HBM3e). H100 SXM5: 3,352 GB/s x 8 / 5,120 bits
    = 5.24 Gb/s per pin.

    >>> round(device_pin_rate_bps("h100_sxm5") / 1e9, 2)
    5.24
    """
    stacks = _check.count("stacks", _stacks(device), "HBM stacks")
    return memory.pin_rate_bps(hardware.value(device, "mem_bw_Bps"),
                               memory.bus_bits(stacks, specsheet.HBM_STACK_BITS))


@_check.finite
def flop_per_joule(device: str, fmt: str = "bf16") -> float:
    """Dense Tensor Core FLOP per joule at the power limit: peak / power
    (:func:`infra_lib.specsheet.dense_peak_cell`). H100 SXM5 BF16: 989.4 TFLOPS / 700 W
    = 1.413 TFLOP per joule.

    >>> round(flop_per_joule("h100_sxm5") / 1e12, 3)
    1.413
    """
    peak, power = specsheet.dense_peak_cell(device, fmt), specsheet.spec_cell(device, "power_W")
    if not (peak.known and power.known):
        raise KeyError(f"device {device!r} lacks a dense {fmt} peak or a power figure in the registry")
    return peak.value / _check.positive("power_W", power.value, "W")


# ---- chapter 4: the scale-up domain, FP8 accumulation, the SFU, the L2 ---------------------

@_check.finite
def largest_group_in_domain(units: int, domain_gpus: int) -> int:
    """The largest parallel degree that divides ``units`` and fits in one scale-up domain.

    ``units`` is what the degree must divide: the KV heads for tensor parallelism (each GPU holds
    whole heads, :func:`infra_lib.planner.valid_tensor_parallel`), the experts for expert
    parallelism (each GPU holds whole experts). A group inside the domain talks over NVLink; a
    larger one crosses the network. Llama-3-70B (8 KV heads) in an 8-GPU node or a 72-GPU rack:
    8 both times; 256 experts in a 72-GPU rack: 64.

    >>> largest_group_in_domain(8, 8), largest_group_in_domain(8, 72), largest_group_in_domain(256, 72)
    (8, 8, 64)
    """
    u = _check.count("units", units, "heads or experts")
    g = _check.count("domain_gpus", domain_gpus, "GPUs")
    return max(d for d in range(1, min(u, g) + 1) if u % d == 0)


@_check.finite
def all_to_all_s(size_B: float, ranks: int, domain_gpus: int, nvlink_Bps: float, network_Bps: float) -> float:
    """Time of an all-to-all among ``ranks`` GPUs packed ``domain_gpus`` to a scale-up domain.

    Each GPU holds ``size_B`` and sends size_B / ranks to every other GPU (expert parallelism's
    dispatch). Of its bytes, (g - 1) / N stay in its domain (g = min(domain_gpus, ranks)) and go
    over NVLink at ``nvlink_Bps``; (N - g) / N cross the network at ``network_Bps``. Both bandwidths
    are per GPU and per direction; the two parts run at once, so

        t = max((g - 1) / N / nvlink_Bps, (N - g) / N / network_Bps) x size_B.

    64 GPUs, 1 GB each: in one 72-GPU NVLink domain at 900 GB/s, 63/64 GB / 900 GB/s = 1.09 ms;
    on 8-GPU nodes with 50 GB/s of network per GPU, 56/64 GB / 50 GB/s = 17.5 ms.

    >>> round(all_to_all_s(1e9, 64, 72, 900e9, 50e9) * 1e3, 2), round(all_to_all_s(1e9, 64, 8, 450e9, 50e9) * 1e3, 2)
    (1.09, 17.5)
    """
    size = _check.positive("size_B", size_B, "bytes")
    n = _check.count("ranks", ranks, "GPUs")
    g = min(_check.count("domain_gpus", domain_gpus, "GPUs"), n)
    inside = (g - 1) / n * size / _check.positive("nvlink_Bps", nvlink_Bps, "bytes/s")
    across = (n - g) / n * size / _check.positive("network_Bps", network_Bps, "bytes/s")
    return max(inside, across)


FP32_SIGNIFICAND_BITS = 24
"""Significand bits of FP32 (23 stored + the implicit one): the accumulator DeepSeek-V3 promotes to."""

DEEPSEEK_PROMOTION_INTERVAL = 128
"""N_C: elements accumulated on the Tensor Cores before the partial sum is promoted to FP32 on the
CUDA cores ('setting N_C = 128 elements, equivalent to 4 WGMMAs'; DeepSeek-V3 technical report,
arXiv:2412.19437, section 3.3.2). A software choice, not a hardware limit."""

DEEPSEEK_ERROR_K = 4096
"""The inner dimension of DeepSeek-V3's accumulation test (section 3.3.2: 'GEMM operations of two
random matrices with K = 4096'), at which the registry's ``gh100_die.fp8_gemm_max_rel_error`` was seen."""


@_check.finite
def accumulation_error_bound(k: int, retained_bits: int, promote_every: int = 0,
                             high_bits: int = FP32_SIGNIFICAND_BITS, statistical: bool = False) -> float:
    """Relative error scale of a K-term sum in an accumulator that keeps ``retained_bits``.

    Each addition rounds to p bits, a relative error of at most u = 2^-p, so a sum of n terms errs
    by at most about (n - 1) u of the sum of magnitudes (the classical bound, Higham, *Accuracy and
    Stability of Numerical Algorithms*, 2002, section 4.2); with errors of random sign the typical
    error grows as sqrt(n - 1) u instead (``statistical=True``). With ``promote_every`` = N_C > 0
    the low-precision accumulator only ever sums N_C terms and the ceil(K / N_C) partial sums are
    added in ``high_bits`` (FP32): (N_C - 1) 2^-p + (ceil(K/N_C) - 1) 2^-high, each term under a
    square root when statistical. A scale for comparing set-ups, not a prediction of one GEMM.
    Equation eq-accumulation-bound in chapter 4.

    K = 4096 with 14 bits kept (DeepSeek-V3, section 3.3.2): 4095 x 2^-14 = 25% at worst, 0.39%
    typical; promoted every 128: 0.78% at worst.

    >>> round(accumulation_error_bound(4096, 14), 3), round(accumulation_error_bound(4096, 14, statistical=True), 4)
    (0.25, 0.0039)
    >>> round(accumulation_error_bound(4096, 14, promote_every=128), 5)
    0.00775
    """
    n = _check.count("k", k, "elements")
    u = 2.0 ** -_check.count("retained_bits", retained_bits, "bits")
    u_high = 2.0 ** -_check.count("high_bits", high_bits, "bits")
    nc = _check.count("promote_every", promote_every, "elements", minimum=0)
    root = math.sqrt if _check.flag("statistical", statistical) else (lambda x: x)
    if nc == 0 or nc >= n:
        return root(n - 1) * u
    return root(nc - 1) * u + root(math.ceil(n / nc) - 1) * u_high


@_check.finite
def promotions_per_output(k: int, promote_every: int) -> int:
    """Promotions of a partial sum to FP32 per output element: ceil(K / N_C).

    K = 4096, N_C = 128 (DeepSeek-V3, section 3.3.2): 32.

    >>> promotions_per_output(4096, 128), promotions_per_output(100, 128)
    (32, 1)
    """
    return math.ceil(_check.count("k", k, "elements") / _check.count("promote_every", promote_every, "elements"))


ATTENTION_FLOP_PER_SCORE_PER_DIM = 4
"""FLOP per attention score per head dimension: S = Q K^T costs 2 d per score and O = P V another 2 d."""


@_check.finite
def softmax_exp_to_matmul_time(matmul_flop_s: float, exp_flop_s: float, head_dim: int) -> float:
    """Time of attention's exponentials over the time of its two matmuls, each at its unit's peak.

    Per score, 4 d FLOP on the Tensor Cores (Q K^T and P V) against one exponential on the special
    function units: ratio = (1 / exp rate) / (4 d / matmul rate) = matmul / (4 d x exp).
    FlashAttention-3 (Shah et al. 2024, section 3.2): the H100 SXM5's 989 TFLOPS against 3.9
    TFLOPS of special functions at d = 128 gives about 0.5, 'exponential can take 50% of the cycle
    compared to matmul'.
    Equation eq-softmax-exp in chapter 4.

    >>> round(softmax_exp_to_matmul_time(989e12, 3.9e12, 128), 3)
    0.495
    """
    return (_check.positive("matmul_flop_s", matmul_flop_s, "FLOP/s")
            / (ATTENTION_FLOP_PER_SCORE_PER_DIM * _check.count("head_dim", head_dim, "dimensions")
               * _check.positive("exp_flop_s", exp_flop_s, "exponentials/s")))


@_check.finite
def softmax_exp_share(matmul_flop_s: float, exp_flop_s: float, head_dim: int) -> float:
    """Share of attention's time the exponentials take when nothing overlaps them: r / (1 + r),
    r = :func:`softmax_exp_to_matmul_time`. An upper bound: FlashAttention-3 and -4 overlap the
    softmax of one tile with the matmuls of another to hide it.

    >>> round(softmax_exp_share(989e12, 3.9e12, 128), 3)
    0.331
    """
    r = softmax_exp_to_matmul_time(matmul_flop_s, exp_flop_s, head_dim)
    return r / (1 + r)


def l2_cells() -> list[tuple[str, specsheet.Cell]]:
    """The L2 of every GPU chapter 4 compares, with its kind (:func:`infra_lib.specsheet.spec_cell`;
    "unpublished" where the registry holds no source), oldest first.

    >>> [(k, c.kind) for k, c in l2_cells()][:2]
    [('v100_sxm2', 'datasheet'), ('a100_sxm4_40gb', 'datasheet')]
    """
    return [(d.key, specsheet.spec_cell(d.key, "l2_cache_B")) for d in comparison_devices()]
