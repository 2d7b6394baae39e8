"""Reading a spec sheet: turn a quoted figure into one that can be compared with another.

Two numbers on two spec sheets are comparable only when they agree on seven things:

1. dense or 2:4 structured sparse (NVIDIA's tensor peaks "with sparsity" are twice the dense
   rate: A100 whitepaper, section 3.6; H100 product page footnote "*With sparsity");
2. input precision (each halving of the bits doubles the tensor rate on Hopper: BF16 989.4,
   FP8 1,978.9 TFLOPS dense, H100 whitepaper V1.04, Table 1) and the accumulator;
3. form factor (SXM, PCIe, superchip: different SM counts, clocks and power);
4. which clock (the peak is SMs x FLOP per clock per SM x clock; a lower clock, a lower peak);
5. per direction or total, for a link (NVLink 4: 450 GB/s each way, 900 GB/s "bidirectional");
6. preliminary or final (H100 at launch: 1,000 TFLOPS BF16 and 3 TB/s; final: 989.4 and 3.35);
7. GB or GiB, and nominal or usable: a bandwidth's GB/s is decimal, but a memory capacity's
   "GB" on NVIDIA's sheets is binary (HBM is built from binary-sized dies: the H200's 141 GB is
   141 GiB), and CUDA reports a little less than that nominal figure
   (:func:`infra_lib.hardware.usable_memory_B`).

:func:`align` applies the conversions asked for and lists each one, so a reader sees what was
changed. H100 SXM5, 1,979 TFLOPS BF16 "with sparsity", to dense:

>>> a = align(1979e12, "flop_s", sparse=True)
>>> a.value / 1e12, a.changes
(989.5, ('2:4 sparse -> dense: / 2',))

The same reading applied to the registry's sheets gives chapter 4's table: :func:`spec_cell`,
:func:`dense_peak_cell`, :func:`memory_type_cell`, :func:`process_cell` (and the others) return
one :class:`Cell` per value, with its kind (datasheet, derived, reported, measured, announced)
or why it is empty ("none": the generation has no such format; "unpublished": no source the
course could check), and with what was done to it ("sparse / 2"); :func:`generation_specs`
is one GPU's row of them.

>>> c = dense_peak_cell("h200_sxm", "bf16"); (c.value / 1e12, c.kind, c.note)
(989.5, 'datasheet', 'sparse / 2')
"""
import re
from dataclasses import dataclass

from . import _check, hardware

QUANTITIES = ("flop_s", "link_Bps", "capacity_B", "mem_bw_Bps")

RATE_VS_BF16: dict[str, float] = {"tf32": 0.5, "fp16": 1.0, "bf16": 1.0, "fp8": 2.0, "int8": 2.0,
                                  "fp6": 2.0, "fp4": 4.0}
"""Dense tensor rate relative to BF16 on Hopper and Blackwell B200 (H100 whitepaper V1.04,
Table 1; Blackwell datasheet: FP6 runs at the FP8 rate). Not a law: Blackwell Ultra (B300)
raises FP4 to 6x BF16 and cuts INT8, so read that chip's own table."""

DIRECTIONS = ("per_direction", "total")
CAPACITY_UNITS = {"GB": 1e9, "GiB": 2.0**30, "TB": 1e12, "TiB": 2.0**40}


@dataclass(frozen=True)
class Aligned:
    """An aligned figure and, in order, every conversion applied to reach it."""
    value: float
    changes: tuple[str, ...]

    def __post_init__(self) -> None:
        _check.number("value", self.value, "the aligned figure's unit")
        if not isinstance(self.changes, tuple) or not all(isinstance(c, str) for c in self.changes):
            raise TypeError(f"changes must be a tuple of strings, got {self.changes!r}")


@_check.finite
def align(value: float, quantity: str, sparse: bool = False, precision: str = "bf16",
          target_precision: str = "bf16", clock_hz: float = 0, target_clock_hz: float = 0,
          sm_count: int = 0, target_sm_count: int = 0, direction: str = "per_direction",
          target_direction: str = "per_direction", capacity_unit: str = "GB",
          target_capacity_unit: str = "GB", preliminary: bool = False) -> Aligned:
    """Align a quoted figure to: dense, ``target_precision``, ``target_clock_hz`` and
    ``target_sm_count`` (when given), ``target_direction``, ``target_capacity_unit``.

    ``value`` is in base units (FLOP/s, bytes/s, bytes); a capacity quoted in GiB is passed as
    the number of bytes it names (141 GiB -> 141 x 2^30). Conversions by quantity:

    - ``flop_s``: sparse -> / 2; precision -> x RATE_VS_BF16[target] / RATE_VS_BF16[precision];
      clock -> x target / quoted; SMs -> x target / quoted (same SM design assumed);
    - ``link_Bps``: total -> per direction / 2, and back x 2;
    - ``capacity_B``: the figure re-expressed in the target unit's bytes (it stays bytes; the
      change line shows both numbers);
    - any quantity: ``preliminary`` adds a warning (no number can fix it: find the final one).

    Equation eq-align-sparse in chapter 4. A change that does not apply to the quantity
    (sparsity on a bandwidth) is a ValueError.

    >>> align(900e9, "link_Bps", direction="total").value / 1e9
    450.0
    >>> align(1978.9e12, "flop_s", precision="fp8").value / 1e12
    989.45
    >>> a = align(192e9, "capacity_B", target_capacity_unit="GiB")
    >>> round(a.value / 2**30, 1), a.changes
    (178.8, ('192 GB = 178.8 GiB',))
    """
    v = _check.number("value", value, "base units")
    q = _check.choice("quantity", quantity, QUANTITIES)
    _check.flag("sparse", sparse)
    _check.flag("preliminary", preliminary)
    src, dst = (_check.choice("precision", precision, tuple(RATE_VS_BF16)),
                _check.choice("target_precision", target_precision, tuple(RATE_VS_BF16)))
    f0, f1 = (_check.non_negative("clock_hz", clock_hz, "Hz"),
              _check.non_negative("target_clock_hz", target_clock_hz, "Hz"))
    s0, s1 = (_check.count("sm_count", sm_count, "SMs", minimum=0),
              _check.count("target_sm_count", target_sm_count, "SMs", minimum=0))
    d0, d1 = (_check.choice("direction", direction, DIRECTIONS),
              _check.choice("target_direction", target_direction, DIRECTIONS))
    u0, u1 = (_check.choice("capacity_unit", capacity_unit, tuple(CAPACITY_UNITS)),
              _check.choice("target_capacity_unit", target_capacity_unit, tuple(CAPACITY_UNITS)))
    changes: list[str] = []

    def only(param: str, wanted: str) -> None:
        if q != wanted:
            raise ValueError(f"{param} applies to quantity {wanted!r}, not {q!r}")

    if sparse:
        only("sparse", "flop_s")
        v /= 2
        changes.append("2:4 sparse -> dense: / 2")
    if src != dst:
        only("precision", "flop_s")
        ratio = RATE_VS_BF16[dst] / RATE_VS_BF16[src]
        v *= ratio
        changes.append(f"{src.upper()} -> {dst.upper()}: x {ratio:g}")
    if f0 and f1 and f0 != f1:
        only("clock_hz", "flop_s")
        v *= f1 / f0
        changes.append(f"clock {f0 / 1e6:,.0f} -> {f1 / 1e6:,.0f} MHz: x {f1 / f0:.4g}")
    elif bool(f0) != bool(f1):
        raise ValueError("clock_hz and target_clock_hz go together: give both or neither")
    if s0 and s1 and s0 != s1:
        only("sm_count", "flop_s")
        v *= s1 / s0
        changes.append(f"{s0} -> {s1} SMs: x {s1 / s0:.4g}")
    elif bool(s0) != bool(s1):
        raise ValueError("sm_count and target_sm_count go together: give both or neither")
    if d0 != d1:
        only("direction", "link_Bps")
        v = v / 2 if d1 == "per_direction" else v * 2
        changes.append(f"{d0.replace('_', ' ')} -> {d1.replace('_', ' ')}: "
                       f"{'/ 2' if d1 == 'per_direction' else 'x 2'}")
    if u0 != u1:
        only("capacity_unit", "capacity_B")
        changes.append(f"{v / CAPACITY_UNITS[u0]:,.4g} {u0} = {v / CAPACITY_UNITS[u1]:,.4g} {u1}")
    if preliminary:
        changes.append("preliminary: a launch figure, check for the final one")
    return Aligned(v, tuple(changes))


@_check.finite
def relative_gap(a: float, b: float) -> float:
    """(a - b) / b: how far a quoted figure ``a`` sits from a reference ``b``.

    H100 BF16 dense: the rounded 1,000 TFLOPS of the 2022 launch against the final 989.4: +1.07%.

    >>> round(relative_gap(1000e12, 989.4e12) * 100, 2)
    1.07
    """
    return (_check.number("a", a, "the figure's unit")
            / _check.positive("b", b, "the figure's unit") - 1)


# ---- the registry's sheets: one cell per value, each with its kind (chapter 4's table) -------

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
    _non_negative = ("value",)
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


def _spec_names() -> frozenset[str]:
    """Every spec name some entry of the registry has (read quietly: nothing is recorded)."""
    return frozenset(s.name for s in hardware.all_specs())


def spec_cell(device: str, name: str) -> Cell:
    """The registry's value ``name`` of ``device`` with its kind, or an "unpublished" cell.

    >>> c = spec_cell("h100_sxm5", "sm_count"); (c.value, c.kind)
    (132.0, 'datasheet')
    >>> spec_cell("rubin_vr200", "power_W").kind
    'unpublished'

    A name that no entry of the registry has is a typo, not an unpublished value:

    >>> spec_cell("h100_sxm5", "power_w")
    Traceback (most recent call last):
    ...
    infra_lib._check.UnknownName: name: no registry entry has a spec 'power_w' (did you mean power_W, power_limit_W?)
    """
    specs = hardware.entry(_check.text("device", device)).specs
    if _check.text("name", name) not in specs:
        known = _spec_names()
        if name not in known:
            raise _check.UnknownName(f"name: no registry entry has a spec {name!r}{_check.nearest(name, known)}")
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
    sparse figure aligned to dense (/ 2, :func:`align`, note "sparse / 2"),
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
        return Cell(align(cell.value, "flop_s", sparse=True).value, cell.kind, note="sparse / 2")
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
    (total of both directions), power and process of one GPU, each with its kind. Capacity and
    bandwidth are the HGX board's where the entry holds them (:func:`infra_lib.hardware.board_spec_name`),
    the basis of its peaks and power; the capacity is the datasheet's nominal figure (binary).

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
        capacity=spec_cell(device, hardware.board_spec_name(device, "mem_capacity_B")),
        bandwidth=spec_cell(device, hardware.board_spec_name(device, "mem_bw_Bps")),
        nvlink=spec_cell(device, "nvlink_total_Bps"), power=spec_cell(device, "power_W"),
        process=process_cell(device))
