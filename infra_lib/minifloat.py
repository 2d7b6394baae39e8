"""Low-precision number formats as bits, pure Python: the minifloats (FP8, FP6, FP4, the E8M0 scale),
the block formats (MXFP4, NVFP4) and the bits a value costs.

The part of :mod:`infra_lib.formats` that needs no arrays, so the review's questions and the widgets
run in the browser (Pyodide, ``book/tools/lite.py``); :mod:`infra_lib.formats` re-exports every name
and adds rounding and block scaling on arrays (numpy). Only :meth:`MiniFloat.values` returns an
array, and imports numpy when it is called. Formats and sources: :mod:`infra_lib.formats`.

>>> E4M3.max_normal, E5M2.max_normal, E2M1.max_normal
(448.0, 57344.0, 6.0)
>>> MXFP4.bits_per_value, NVFP4.bits_per_value
(4.25, 4.5)
"""
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from . import _check

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]

SPECIALS = ("ieee", "nan_only", "none")
SCALE_KINDS = ("e8m0", "e4m3", "fp32")


@dataclass(frozen=True)
class MiniFloat:
    """A small floating-point format: E exponent bits, M mantissa bits, which codes are special."""
    name: str
    exp_bits: int
    man_bits: int
    special: str
    signed: bool = True

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.count("exp_bits", self.exp_bits, "exponent bits")
        _check.count("man_bits", self.man_bits, "mantissa bits", minimum=0)
        _check.choice("special", self.special, SPECIALS)
        if self.exp_bits + self.man_bits > 16:
            raise ValueError(f"exp_bits + man_bits must be at most 16 for a minifloat, "
                             f"got {self.exp_bits + self.man_bits}")
        _check.flag("signed", self.signed)
        bias = 2 ** (self.exp_bits - 1) - 1
        top = 2 ** self.exp_bits - 1 - bias
        if self.special == "ieee" or (self.special == "nan_only" and self.man_bits == 0):
            top -= 1
        low = 1 - bias - self.man_bits if self.man_bits else -bias
        if top > 1023 or low < -1074:
            raise ValueError(f"exp_bits = {self.exp_bits} (with man_bits = {self.man_bits}, special = "
                             f"{self.special!r}) spans 2^{low} to 2^{top + 1}, beyond a float64 "
                             f"(2^-1074 to 2^1024): use fewer exponent bits")

    @property
    def code(self) -> str:
        """'E4M3', 'E2M1', ...: the exponent and mantissa bits, the name used in the specs."""
        return f"E{self.exp_bits}M{self.man_bits}"

    @property
    def bits(self) -> int:
        """Storage bits: sign (if any) + exponent + mantissa."""
        return int(self.signed) + self.exp_bits + self.man_bits

    @property
    def bias(self) -> int:
        """Exponent bias 2^(E-1) - 1: 7 for E4M3, 15 for E5M2, 1 for E2M1, 127 for E8M0."""
        return 2 ** (self.exp_bits - 1) - 1

    @property
    def max_normal(self) -> float:
        """Largest finite value, from the bits and the special-value rule.

        ieee:      (2 - 2^-M) x 2^(2^E - 2 - bias)      E5M2: 1.75 x 2^15 = 57,344
        nan_only:  (2 - 2^(1-M)) x 2^(2^E - 1 - bias)   E4M3: 1.75 x 2^8 = 448
                   (M = 0: 2^(2^E - 2 - bias))          E8M0: 2^127
        none:      (2 - 2^-M) x 2^(2^E - 1 - bias)      E2M1: 1.5 x 2^2 = 6
        """
        top = 2 ** self.exp_bits - 1          # the all-ones exponent field
        m = self.man_bits
        if self.special == "ieee":
            return (2 - 2.0 ** -m) * 2.0 ** (top - 1 - self.bias)
        if self.special == "nan_only":
            if m == 0:
                return 2.0 ** (top - 1 - self.bias)
            return (2 - 2.0 ** (1 - m)) * 2.0 ** (top - self.bias)
        return (2 - 2.0 ** -m) * 2.0 ** (top - self.bias)

    @property
    def max_normal_parts(self) -> tuple[float, int]:
        """(largest significand, its exponent): max_normal = significand x 2^exponent.

        E4M3: the top field 15 minus bias 7 gives 2^8, and the all-ones mantissa is NaN, so the
        largest significand is 1.110 in binary = 1.75: 1.75 x 2^8 = 448.
        """
        exp = math.floor(math.log2(self.max_normal))
        return self.max_normal / 2.0 ** exp, exp

    @property
    def min_normal(self) -> float:
        """Smallest normal value: 2^(1 - bias); with no mantissa bits (E8M0), field 0 is 2^-bias."""
        return 2.0 ** (1 - self.bias) if self.man_bits else 2.0 ** -self.bias

    @property
    def min_positive(self) -> float:
        """Smallest positive value: the smallest subnormal 2^(1 - bias - M), or 2^-bias for E8M0."""
        return 2.0 ** (1 - self.bias - self.man_bits) if self.man_bits else 2.0 ** -self.bias

    @property
    def binades(self) -> float:
        """Dynamic range in powers of two: log2(max_normal / min_positive)."""
        return math.log2(self.max_normal) - math.log2(self.min_positive)   # the ratio overflows for E11

    def values(self) -> "FloatArray":
        """Every non-negative finite value, ascending (a NumPy array), by enumerating the codes."""
        return _grid(self)


@lru_cache(maxsize=None)
def _grid(fmt: "MiniFloat") -> "FloatArray":
    import numpy as np   # only here: the rest of the module is pure Python (it runs in the browser)

    top = 2 ** fmt.exp_bits - 1
    out = []
    for e in range(top + 1):
        for m in range(2 ** fmt.man_bits):
            if fmt.special == "ieee" and e == top:
                continue
            if fmt.special == "nan_only" and e == top and m == 2 ** fmt.man_bits - 1:
                continue
            frac = m / 2 ** fmt.man_bits
            if fmt.man_bits and e == 0:
                out.append(frac * 2.0 ** (1 - fmt.bias))          # zero and subnormals
            else:
                out.append((1 + frac) * 2.0 ** (e - fmt.bias))
    grid = np.array(sorted(out))
    grid.setflags(write=False)
    return grid


E5M2 = MiniFloat("FP8 E5M2", 5, 2, "ieee")
E4M3 = MiniFloat("FP8 E4M3", 4, 3, "nan_only")
E3M2 = MiniFloat("FP6 E3M2", 3, 2, "none")
E2M3 = MiniFloat("FP6 E2M3", 2, 3, "none")
E2M1 = MiniFloat("FP4 E2M1", 2, 1, "none")
E8M0 = MiniFloat("E8M0 scale", 8, 0, "nan_only", signed=False)
ELEMENTS = (E5M2, E4M3, E3M2, E2M3, E2M1)


# ---- block formats -----------------------------------------------------------------------

@_check.finite
def bits_per_value(element_bits: int, scale_bits: int, block_size: int, tensor_scale_bits: int = 0,
                   tensor_values: int = 1) -> float:
    """Storage bits per value of a block-scaled format.

    = element_bits + scale_bits / block_size + tensor_scale_bits / tensor_values.
    MXFP4: 4 + 8/32 = 4.25 (OCP MX v1.0, Table 1). NVFP4: 4 + 8/16 = 4.5, plus one FP32 per
    tensor, negligible for any real tensor (NVIDIA NVFP4 blog: "4.5 bits per value").

    >>> bits_per_value(4, 8, 32), bits_per_value(4, 8, 16), bits_per_value(8, 8, 32)
    (4.25, 4.5, 8.25)
    """
    return (_check.count("element_bits", element_bits, "bits")
            + _check.count("scale_bits", scale_bits, "bits", minimum=0)
            / _check.count("block_size", block_size, "values")
            + _check.count("tensor_scale_bits", tensor_scale_bits, "bits", minimum=0)
            / _check.count("tensor_values", tensor_values, "values"))


@dataclass(frozen=True)
class BlockFormat:
    """Elements of one minifloat sharing a scale per block of ``block_size`` values."""
    name: str
    element: MiniFloat
    block_size: int
    scale: str                 # 'e8m0' (power of two), 'e4m3' (FP8 value), 'fp32' (exact)
    tensor_scale_bits: int = 0  # NVFP4 adds one FP32 scale per tensor

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.count("block_size", self.block_size, "values")
        _check.choice("scale", self.scale, SCALE_KINDS)

    @property
    def scale_bits(self) -> int:
        return 32 if self.scale == "fp32" else 8

    @property
    def bits_per_value(self) -> float:
        """Element bits + scale bits per block / block size (the per-tensor scale left out)."""
        return bits_per_value(self.element.bits, self.scale_bits, self.block_size)


MXFP8 = BlockFormat("MXFP8 (E4M3)", E4M3, 32, "e8m0")
MXFP6 = BlockFormat("MXFP6 (E2M3)", E2M3, 32, "e8m0")
MXFP4 = BlockFormat("MXFP4", E2M1, 32, "e8m0")
NVFP4 = BlockFormat("NVFP4", E2M1, 16, "e4m3", tensor_scale_bits=32)


@_check.finite
def element_emax(element: MiniFloat) -> int:
    """Exponent of the element format's largest normal: floor(log2(max_normal)). E2M1: 2, E4M3: 8.

    >>> element_emax(E2M1), element_emax(E4M3), element_emax(E5M2)
    (2, 8, 15)
    """
    return math.floor(math.log2(element.max_normal))
