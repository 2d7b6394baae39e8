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
"""
from . import _check, roofline


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

from dataclasses import dataclass  # noqa: E402

from . import hardware  # noqa: E402
from . import specsheet  # noqa: E402


@_check.finite
def dense_bf16_flop_s(device: str) -> float:
    """A device's dense BF16 Tensor Core peak: its ``peak_flop_s`` (dense) when the registry has
    one, else its ``peak_flop_s_sparse`` aligned to dense (/ 2, :func:`infra_lib.specsheet.align`),
    since NVIDIA prints only the sparse figure for H200 and Blackwell.

    >>> dense_bf16_flop_s("h100_sxm5") / 1e12, dense_bf16_flop_s("h200_sxm") / 1e12
    (989.4, 989.5)
    """
    specs = hardware.entry(_check.text("device", device)).specs
    if "peak_flop_s" in specs:
        return hardware.value(device, "peak_flop_s")
    if "peak_flop_s_sparse" in specs:
        return specsheet.align(hardware.value(device, "peak_flop_s_sparse"), "flop_s", sparse=True).value
    raise KeyError(f"device {device!r} has no BF16 Tensor Core peak in the registry "
                   f"(neither peak_flop_s nor peak_flop_s_sparse)")


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

    >>> r = generation_row("h100_sxm5")
    >>> round(r.ridge_flop_per_B, 1), r.decode_8b_tok_s
    (295.2, 209.5)
    """
    d = hardware.entry(_check.text("device", device))
    peak, bw = dense_bf16_flop_s(device), hardware.value(device, "mem_bw_Bps")
    return GenerationRow(device=device, year=int(d.year or 0), peak_flop_s=peak, mem_bw_Bps=bw,
                         ridge_flop_per_B=roofline.ridge_point(peak, bw), bytes_per_flop=bytes_per_flop(bw, peak),
                         decode_8b_tok_s=decode_ceiling_tok_s(bw, small_weight_B),
                         decode_70b_tok_s=decode_ceiling_tok_s(bw, large_weight_B))


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


# ---- chapter 4: the spec table, one cell per value, each with its kind -----------------------

import math  # noqa: E402
import re  # noqa: E402

FAMILIES = ("volta", "ampere", "hopper", "blackwell", "rubin")
"""NVIDIA data-center GPU families in order."""

FORMAT_SINCE = {"bf16": "ampere", "fp8": "hopper", "fp4": "blackwell"}
"""The first family whose Tensor Cores take each input format: BF16 with Ampere (A100 whitepaper,
section 3), FP8 with Hopper (H100 whitepaper V1.04, section 4), FP4 with Blackwell (Blackwell
datasheet). An earlier family's cell is "none", not "unpublished"."""

PEAK_SPECS = {"bf16": ("peak_flop_s", "peak_flop_s_sparse"), "fp8": ("peak_flop_s_fp8", "peak_flop_s_fp8_sparse"),
              "fp4": ("peak_flop_s_fp4", "peak_flop_s_fp4_sparse")}
"""Registry spec names of each format's dense and 2:4-sparse Tensor Core peak."""

HBM_STACK_BITS = 1024
"""Interface width of one HBM2, HBM3 or HBM3E stack (JEDEC JESD235, JESD238); HBM4 doubles it."""

CELL_KINDS = ("datasheet", "derived", "reported", "measured", "announced", "none", "unpublished")


@dataclass(frozen=True)
class Cell:
    """One value of the generation table and its kind.

    ``kind`` is the registry kind of the value (datasheet, derived, reported, measured), or
    "announced" when a source marks it so (Rubin), or "none" when the generation has no such thing
    (FP8 on a V100), or "unpublished" when the registry holds no sourced value. ``value`` is in
    base units (0 for none and unpublished); ``text`` holds a name (memory type, process);
    ``note`` says what was done to the value or what it leaves open ("sparse / 2").
    """
    value: float
    kind: str
    text: str = ""
    note: str = ""

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.choice("kind", self.kind, CELL_KINDS)

    @property
    def known(self) -> bool:
        return self.kind not in ("none", "unpublished")


def _kind(spec: hardware.Spec) -> str:
    """A spec's kind, or "announced" when a caveat says it is announced, not shipping."""
    return "announced" if any(c.startswith("announced") for c in spec.caveats) else spec.kind


def _combined(*kinds: str) -> str:
    """The kind of a value computed from several: the weakest input's if it is announced or
    reported, else derived (a measured count times a datasheet rate is derived)."""
    for weakest in ("announced", "reported"):
        if weakest in kinds:
            return weakest
    return "derived"


def spec_cell(device: str, name: str) -> Cell:
    """The registry's value ``name`` of ``device`` with its kind, or an "unpublished" cell.

    >>> c = spec_cell("h100_sxm5", "sm_count"); (c.value, c.kind)
    (132.0, 'datasheet')
    >>> spec_cell("rubin_vr200", "power_W").kind
    'unpublished'
    """
    specs = hardware.entry(_check.text("device", device)).specs
    if _check.text("name", name) not in specs:
        return Cell(0.0, "unpublished")
    spec = specs[name]
    hardware.value(device, name)            # recorded for the page's Sources section
    return Cell(float(spec.value), _kind(spec))


def tensor_core_cell(device: str) -> Cell:
    """Tensor Cores on the whole GPU: the registry's count, else SMs x Tensor Cores per SM (derived).

    H100 SXM5: 132 x 4 = 528 (whitepaper V1.04).

    >>> c = tensor_core_cell("h100_sxm5"); (c.value, c.kind)
    (528.0, 'derived')
    """
    total = spec_cell(device, "tensor_cores")
    if total.known:
        return total
    sms, per_sm = spec_cell(device, "sm_count"), spec_cell(device, "tensor_cores_per_sm")
    if not (sms.known and per_sm.known):
        return Cell(0.0, "unpublished")
    return Cell(sms.value * per_sm.value, _combined(sms.kind, per_sm.kind), note="SMs x per SM")


def _family_index(device: str) -> int:
    family = hardware.entry(device).family or ""
    return FAMILIES.index(family) if family in FAMILIES else len(FAMILIES)


def dense_peak_cell(device: str, fmt: str) -> Cell:
    """Dense Tensor Core peak at BF16, FP8 or FP4: the registry's dense figure, else its 2:4
    sparse figure aligned to dense (/ 2, :func:`infra_lib.specsheet.align`, note "sparse / 2"),
    else "none" for a family before the format (V100 FP8) or "unpublished".

    The V100's BF16 cell is its FP16 peak (it has no BF16; note "FP16"). A figure whose source
    does not say dense or sparse keeps note "basis not stated" (Rubin's NVFP4).

    >>> c = dense_peak_cell("h200_sxm", "fp8"); (c.value / 1e12, c.note)
    (1979.0, 'sparse / 2')
    >>> dense_peak_cell("a100_sxm4_40gb", "fp8").kind
    'none'
    """
    f = _check.choice("fmt", fmt, tuple(PEAK_SPECS))
    dense_name, sparse_name = PEAK_SPECS[f]
    specs = hardware.entry(_check.text("device", device)).specs
    if dense_name in specs:
        cell = spec_cell(device, dense_name)
        caveats = specs[dense_name].caveats
        if any("not stated" in c for c in caveats):
            return Cell(cell.value, cell.kind, note="basis not stated")
        if f == "bf16" and any("no BF16" in c for c in caveats):
            return Cell(cell.value, cell.kind, note="FP16")
        return cell
    if sparse_name in specs:
        cell = spec_cell(device, sparse_name)
        return Cell(specsheet.align(cell.value, "flop_s", sparse=True).value, cell.kind, note="sparse / 2")
    if _family_index(device) < FAMILIES.index(FORMAT_SINCE[f]):
        return Cell(0.0, "none")
    return Cell(0.0, "unpublished")


def memory_type_cell(device: str) -> Cell:
    """The memory type (HBM2, HBM3, HBM3e, HBM4) as the bandwidth or capacity spec's source
    names it: the first "HBM..." in that spec's caveats or ``where``, with that spec's kind.

    >>> memory_type_cell("h100_sxm5").text, memory_type_cell("b200_hgx").text
    ('HBM3', 'HBM3e')
    """
    specs = hardware.entry(_check.text("device", device)).specs
    for name in ("mem_bw_Bps", "mem_capacity_B"):
        if name in specs:
            spec = specs[name]
            found = re.search(r"\bHBM(\d)([eE]?)\b", " ".join((*spec.caveats, spec.where)))
            if found:
                return Cell(0.0, _kind(spec), text=f"HBM{found.group(1)}{found.group(2).lower()}")
    return Cell(0.0, "unpublished")


def stacks_cell(device: str) -> Cell:
    """HBM stacks: the registry's count, else the bus width / 1,024 bits per stack (derived,
    HBM2 to HBM3e). V100: 4,096 / 1,024 = 4.

    >>> c = stacks_cell("v100_sxm2"); (c.value, c.kind)
    (4.0, 'derived')
    """
    stacks = spec_cell(device, "hbm_stacks")
    if stacks.known:
        return stacks
    bits = spec_cell(device, "hbm_bus_bits")
    if bits.known and memory_type_cell(device).text in ("HBM2", "HBM3", "HBM3e"):
        return Cell(bits.value / HBM_STACK_BITS, _combined(bits.kind), note="bus bits / 1,024")
    return Cell(0.0, "unpublished")


def process_cell(device: str) -> Cell:
    """The manufacturing process, from a caveat "process: ..." of one of the device's specs
    (the registry holds numbers; a name rides on the spec whose source states it), with that
    spec's kind.

    >>> process_cell("b200_hgx").text
    'TSMC 4NP'
    """
    for spec in hardware.entry(_check.text("device", device)).specs.values():
        for c in spec.caveats:
            if c.startswith("process: "):
                hardware.value(device, spec.name)
                return Cell(0.0, _kind(spec), text=c[len("process: "):].split(" (")[0])
    return Cell(0.0, "unpublished")


@dataclass(frozen=True)
class GenerationSpecs:
    """One GPU's row of the chapter 4 table, every value a :class:`Cell`."""
    device: str
    year: int
    sms: Cell
    tensor_cores: Cell
    bf16: Cell
    fp8: Cell
    fp4: Cell
    memory: Cell
    stacks: Cell
    capacity: Cell
    bandwidth: Cell
    nvlink: Cell
    power: Cell
    process: Cell

    def __post_init__(self) -> None:
        _check.fields(self)


def generation_specs(device: str) -> GenerationSpecs:
    """SMs, Tensor Cores, dense BF16/FP8/FP4, memory type, stacks, capacity, bandwidth, NVLink
    (total of both directions), power and process of one GPU, each with its kind.

    >>> r = generation_specs("h100_sxm5")
    >>> r.bf16.value / 1e12, r.memory.text, r.stacks.value, r.power.value, r.process.text
    (989.4, 'HBM3', 5.0, 700.0, 'TSMC 4N')
    """
    d = hardware.entry(_check.text("device", device))
    return GenerationSpecs(
        device=device, year=int(d.year or 0), sms=spec_cell(device, "sm_count"),
        tensor_cores=tensor_core_cell(device), bf16=dense_peak_cell(device, "bf16"),
        fp8=dense_peak_cell(device, "fp8"), fp4=dense_peak_cell(device, "fp4"),
        memory=memory_type_cell(device), stacks=stacks_cell(device),
        capacity=spec_cell(device, "mem_capacity_B"), bandwidth=spec_cell(device, "mem_bw_Bps"),
        nvlink=spec_cell(device, "nvlink_total_Bps"), power=spec_cell(device, "power_W"),
        process=process_cell(device))


def per_stack_bw_Bps(device: str) -> float:
    """Bandwidth per HBM stack: bandwidth / stacks. H100 SXM5: 3,352 GB/s / 5 = 670.4 GB/s.

    >>> per_stack_bw_Bps("h100_sxm5") / 1e9
    670.4
    """
    stacks = stacks_cell(device)
    if not stacks.known:
        raise KeyError(f"device {device!r} has no HBM stack count in the registry")
    return hardware.value(device, "mem_bw_Bps") / stacks.value


def pin_rate_bps(device: str) -> float:
    """Data rate per HBM pin that the bandwidth implies: bandwidth x 8 / (stacks x 1,024 bits)
    (HBM2 to HBM3e). H100 SXM5: 3,352 GB/s x 8 / 5,120 = 5.24 Gb/s per pin.

    >>> round(pin_rate_bps("h100_sxm5") / 1e9, 2)
    5.24
    """
    return per_stack_bw_Bps(device) * 8 / HBM_STACK_BITS


def flop_per_joule(device: str, fmt: str = "bf16") -> float:
    """Dense Tensor Core FLOP per joule at the power limit: peak / power. H100 SXM5 BF16:
    989.4 TFLOPS / 700 W = 1.413 TFLOP per joule.

    >>> round(flop_per_joule("h100_sxm5") / 1e12, 3)
    1.413
    """
    peak, power = dense_peak_cell(device, fmt), spec_cell(device, "power_W")
    if not (peak.known and power.known):
        raise KeyError(f"device {device!r} lacks a dense {fmt} peak or a power figure in the registry")
    out = peak.value / power.value
    if not math.isfinite(out):
        raise ValueError("non-finite FLOP per joule")
    return out
