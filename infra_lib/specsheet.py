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
7. GB (10^9 bytes) or GiB (2^30 bytes).

:func:`align` applies the conversions asked for and lists each one, so a reader sees what was
changed. H100 SXM5, 1,979 TFLOPS BF16 "with sparsity", to dense:

>>> a = align(1979e12, "flop_s", sparse=True)
>>> a.value / 1e12, a.changes
(989.5, ('2:4 sparse -> dense: / 2',))
"""
from dataclasses import dataclass

from . import _check

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
