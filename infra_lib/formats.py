"""Low-precision number formats and block scaling: FP8, FP6 and FP4 with a shared scale.

A *minifloat* with E exponent bits and M mantissa bits (plus a sign bit) stores
(-1)^s x 1.m x 2^(e - bias) with bias = 2^(E-1) - 1; exponent field 0 holds zero and the
subnormals 0.m x 2^(1 - bias). Formats differ in how many top codes they give up to special
values, and that decides their largest value:

- ``"ieee"``: the all-ones exponent means Inf/NaN (FP8 E5M2, like FP16);
- ``"nan_only"``: only the all-ones code is NaN (FP8 E4M3; the E8M0 scale);
- ``"none"``: every code is a number (FP6 E3M2/E2M3 and FP4 E2M1).

Sources: H100 whitepaper V1.04 section 4.1.3 (E4M3 and E5M2 on Hopper); P. Micikevicius et al.,
"FP8 Formats for Deep Learning" (2022), Table 1 (max normal 448 and 57,344); OCP Microscaling
Formats (MX) Specification v1.0 (2023), Table 1 (block size 32, E8M0 scale) and section 5.3
(FP6/FP4 element types, max normal 28, 7.5 and 6.0); NVIDIA, "Introducing NVFP4 for Efficient
and Accurate Low-Precision Inference" (2025): E2M1 values, one E4M3 scale per 16 values and an
FP32 scale per tensor.

Block scaling stores one scale per block of k values, so each value costs
element_bits + scale_bits / k bits: MXFP4 4 + 8/32 = 4.25, NVFP4 4 + 8/16 = 4.5.

The formats as bits (:class:`MiniFloat`, :class:`BlockFormat`, the constants, :func:`bits_per_value`) are
pure Python in :mod:`infra_lib.minifloat` and re-exported here; this module adds rounding and block
scaling on arrays (numpy).

>>> E4M3.max_normal, E5M2.max_normal, E2M1.max_normal
(448.0, 57344.0, 6.0)
>>> MXFP4.bits_per_value, NVFP4.bits_per_value
(4.25, 4.5)
"""
import math
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from . import _check
# the formats as bits are pure Python (the review and the widgets run them in the browser): re-exported
from .minifloat import (E2M1, E2M3, E3M2, E4M3, E5M2, E8M0, ELEMENTS, MXFP4, MXFP6, MXFP8, NVFP4,  # noqa: F401
                        SCALE_KINDS, SPECIALS, BlockFormat, MiniFloat, _grid, bits_per_value, element_emax)

FloatArray = npt.NDArray[np.float64]

FP8_TILE_1X128 = BlockFormat("FP8 E4M3, 1x128 tiles", E4M3, 128, "fp32")
"""DeepSeek-V3's activations: one FP32 scale per 1 x 128 tile (one token, 128 channels)
(DeepSeek-AI 2024, §3.3.2 'fine-grained quantization'): 8 + 32/128 = 8.25 bits per value.

>>> FP8_TILE_1X128.bits_per_value, round(FP8_BLOCK_128X128.bits_per_value, 5)
(8.25, 8.00195)
"""

FP8_BLOCK_128X128 = BlockFormat("FP8 E4M3, 128x128 blocks", E4M3, 128 * 128, "fp32")
"""DeepSeek-V3's weights: one FP32 scale per 128 x 128 block (the checkpoint's ``weight_scale_inv``,
``weight_block_size`` [128, 128]): 8 + 32/16,384 bits per value, the block counted as one block of
16,384 values."""


@_check.finite
def round_to_format(x: ArrayLike, fmt: MiniFloat) -> FloatArray:
    """Round to the nearest value of ``fmt`` (ties to even), saturating at +-max_normal.

    Saturation, not overflow to Inf: the MX element types have no Inf (OCP MX v1.0, section 5.3),
    and the reference library clamps normals the same way.

    >>> round_to_format([0.2, 0.25, 0.75, 2.5, 5.0, 7.0, -100.0], E2M1).tolist()
    [0.0, 0.0, 1.0, 2.0, 4.0, 6.0, -6.0]
    """
    if not isinstance(fmt, MiniFloat):
        raise TypeError(f"fmt must be a MiniFloat such as formats.E2M1, got {fmt!r}")
    x = _finite_array("x", x)
    grid = fmt.values()
    a = np.minimum(np.abs(x), grid[-1])
    i = np.clip(np.searchsorted(grid, a), 1, len(grid) - 1)
    lo, hi = grid[i - 1], grid[i]
    up = (hi - a < a - lo) | ((hi - a == a - lo) & (i % 2 == 0))   # even code wins a tie
    r = np.where(up, hi, lo)
    if not fmt.signed:
        if np.any(x < 0):
            raise ValueError(f"x must be 0 or more for the unsigned format {fmt.name}")
        return r
    return np.sign(x) * r


_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_two_text(x: ArrayLike) -> str:
    """An exact power of two written as '2⁻⁹' (for prose and tables); other numbers with :g.

    >>> power_of_two_text(2.0 ** -9), power_of_two_text(0.5), power_of_two_text(6.0)
    ('2⁻⁹', '2⁻¹', '6')
    """
    x = _check.positive("x", x, "(a positive number)")
    e = math.log2(x)
    if e == int(e):
        return "2" + str(int(e)).translate(_SUP)
    return f"{x:g}"


def _finite_array(name: str, x: ArrayLike) -> FloatArray:
    if isinstance(x, (bool, str)) or x is None:
        raise TypeError(f"{name} must be an array of numbers, got {x!r}")
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be an array of numbers, got {x!r}") from err
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or Inf)")
    return arr



@_check.finite
def block_scales(x: ArrayLike, element: MiniFloat, block_size: int, scale: str) -> FloatArray:
    """One scale per block of ``block_size`` consecutive values of ``x``, as the decoder sees it.

    e8m0 (OCP MX v1.0, section 6.3): 2^(floor(log2(amax)) - emax_elem), the exponent clamped to
    [-127, 127]. The block's largest value lands in [2^emax, 2^(emax+1)), so for E2M1 it lands
    in [4, 8) and anything above 6 saturates.
    e4m3 (NVFP4): a per-tensor FP32 scale s_t = amax_tensor / (elem_max x 448) keeps the block
    scales inside E4M3's range; each block's scale is amax / elem_max / s_t rounded to E4M3,
    times s_t. (This is this course's reading of the NVFP4 blog's two-level scheme.)
    fp32: amax / elem_max, exact: the reference with no scale rounding.
    """
    blocks = _blocks(x, block_size)
    scale = _check.choice("scale", scale, SCALE_KINDS)
    amax = np.abs(blocks).max(axis=1)
    top = element.max_normal
    if scale == "fp32":
        return np.where(amax > 0, amax / top, 1.0)
    if scale == "e8m0":
        with np.errstate(divide="ignore"):
            exp = np.floor(np.log2(np.where(amax > 0, amax, 2.0 ** -127))) - element_emax(element)
        return 2.0 ** np.clip(exp, -E8M0.bias, E8M0.bias)
    tensor_amax = amax.max()
    s_t = tensor_amax / (top * E4M3.max_normal) if tensor_amax > 0 else 1.0
    return round_to_format(amax / top / s_t, E4M3) * s_t


@_check.finite
def quantize_blocks(x: ArrayLike, element: MiniFloat, block_size: int, scale: str) -> FloatArray:
    """Quantize ``x`` to ``element`` with one scale per block, and return the dequantized values.

    q = round_to_format(x / scale, element); result = q x scale. A block whose scale rounds to
    zero becomes zero. ``len(x)`` must be a multiple of ``block_size``.

    >>> quantize_blocks([0.1, -0.2, 3.0, 0.5], E2M1, 4, "fp32").tolist()
    [0.0, -0.25, 3.0, 0.5]
    """
    if not isinstance(element, MiniFloat):
        raise TypeError(f"element must be a MiniFloat such as formats.E2M1, got {element!r}")
    blocks = _blocks(x, block_size)
    s = block_scales(x, element, block_size, scale)[:, None]
    safe = np.where(s > 0, s, 1.0)
    q = np.where(s > 0, round_to_format(blocks / safe, element), 0.0)
    return (q * s).reshape(-1)


def _blocks(x: ArrayLike, block_size: int) -> FloatArray:
    arr = _finite_array("x", x).reshape(-1)
    k = _check.count("block_size", block_size, "values")
    if arr.size == 0 or arr.size % k:
        raise ValueError(f"x must hold a whole number of blocks: {arr.size} values, block_size={k}")
    return arr.reshape(-1, k)


@_check.finite
def relative_rms_error(x: ArrayLike, y: ArrayLike) -> float:
    """sqrt(sum((x - y)^2) / sum(x^2)): the quantization error relative to the signal.

    >>> relative_rms_error([3.0, 4.0], [3.0, 4.0])
    0.0
    >>> round(relative_rms_error([3.0, 4.0], [0.0, 4.0]), 3)
    0.6
    """
    x, y = _finite_array("x", x), _finite_array("y", y)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same shape, got {x.shape} and {y.shape}")
    power = float(np.sum(x * x))
    if power == 0:
        raise ValueError("x must not be all zeros (its RMS is the denominator)")
    return math.sqrt(float(np.sum((x - y) ** 2)) / power)


@_check.finite
def heavy_tailed_sample(n_values: int, df: float = 3.0, seed: int = 0) -> FloatArray:
    """A teaching tensor: ``n_values`` draws from Student's t with ``df`` degrees of freedom.

    Heavy tails (a few values many times the typical one) are what make one scale per tensor
    fail; ``df`` = 3 has finite variance but frequent outliers. Fixed seed: same numbers every run.
    """
    n = _check.count("n_values", n_values, "values")
    if n > 10**9:
        raise ValueError(f"n_values must be at most 10**9 (a teaching tensor), got {n:,}")
    df = _check.positive("df", df, "degrees of freedom")
    seed = _check.count("seed", seed, "", minimum=0)
    return np.random.default_rng(seed).standard_t(df, size=n)


@_check.finite
def block_size_sweep(x: ArrayLike, element: MiniFloat, block_sizes: Iterable[int],
                     scale: str) -> list[tuple[int, float]]:
    """Relative RMS error of :func:`quantize_blocks` for each block size: [(block_size, error)]."""
    return [(int(k), relative_rms_error(x, quantize_blocks(x, element, k, scale))) for k in block_sizes]
