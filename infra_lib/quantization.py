"""Quantization: bytes per parameter with scale overhead, integer quantizers, and their error.

Storage: a value costs element_bits + (scale_bits + zero_point_bits) / group_size bits
(:func:`infra_lib.formats.bits_per_value`). INT8 per channel with an FP16 scale per row of 4,096:
8 + 16/4096; INT4 in groups of 128 with an FP16 scale and an FP16 zero point (GPTQ/AWQ-style
group quantization; the group size is a configuration choice): 4 + 32/128 = 4.25; MXFP4 4.25 and
NVFP4 4.5 (chapter 3, ``formats.MXFP4``/``formats.NVFP4``).

Symmetric integer quantization with b bits: q = clip(round(x / s), -qmax, qmax), qmax = 2^(b-1) - 1,
s = amax / qmax, one amax per tensor, per output channel (a column of W in y = x @ W) or per group
of ``group_size`` consecutive inputs within a column. Signal-to-quantization-noise ratio:
SQNR = 10 log10(sum x^2 / sum (x - x_hat)^2) dB = -20 log10(relative RMS error).

>>> bits_per_param(4, 16, 128, zero_point_bits=16)
4.25
>>> int_qmax(8), int_qmax(4)
(127, 7)
"""
import math

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from . import _check, formats

FloatArray = npt.NDArray[np.float64]
GRANULARITIES = ("tensor", "channel", "group")


@_check.finite
def bits_per_param(element_bits: int, scale_bits: int, group_size: int, zero_point_bits: int = 0) -> float:
    """Bits per stored value: element + (scale + zero point) / group size.

    >>> bits_per_param(8, 16, 4096)
    8.00390625
    >>> bits_per_param(4, 16, 128)
    4.125
    """
    extra = _check.count("scale_bits", scale_bits, "bits", minimum=0) + _check.count(
        "zero_point_bits", zero_point_bits, "bits", minimum=0)
    return formats.bits_per_value(element_bits, extra, group_size)


@_check.finite
def weight_B(n_params: float, bits: float) -> float:
    """Bytes of n_params weights at ``bits`` per parameter: n x bits / 8.

    >>> weight_B(70e9, 4.25) / 1e9
    37.1875
    """
    return _check.positive("n_params", n_params, "parameters") * _check.positive("bits", bits, "bits") / 8


@_check.finite
def int_qmax(bits: int) -> int:
    """Largest code of symmetric signed integers: 2^(bits-1) - 1 (127 for INT8, 7 for INT4)."""
    b = _check.count("bits", bits, "bits", minimum=2)
    if b > 16:
        raise ValueError(f"bits must be at most 16 for integer quantization, got {b}")
    return 2 ** (b - 1) - 1


@_check.finite
def quantize_int(w: ArrayLike, bits: int, granularity: str, group_size: int = 128) -> FloatArray:
    """Symmetric integer quantize-dequantize of a 2-D weight matrix W (d_in x d_out).

    granularity 'tensor': one scale; 'channel': one per column; 'group': one per ``group_size``
    consecutive rows of each column (d_in must be a multiple of it).

    >>> quantize_int([[1.0, 0.1], [-0.5, 0.05]], 8, "channel").round(4).tolist()
    [[1.0, 0.1], [-0.5039, 0.0496]]
    """
    arr = formats._finite_array("w", w)
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"w must be a 2-D matrix (d_in x d_out), got shape {arr.shape}")
    qmax = int_qmax(bits)
    g = _check.choice("granularity", granularity, GRANULARITIES)
    d_in, d_out = arr.shape
    if g == "tensor":
        blocks = arr.reshape(1, -1, 1)
    elif g == "channel":
        blocks = arr.reshape(1, d_in, d_out)
    else:
        k = _check.count("group_size", group_size, "values")
        if d_in % k:
            raise ValueError(f"group_size ({k}) must divide d_in, the rows of w ({d_in})")
        blocks = arr.reshape(d_in // k, k, d_out)
    amax = np.abs(blocks).max(axis=1, keepdims=True)
    s = np.where(amax > 0, amax / qmax, 1.0)
    q = np.clip(np.round(blocks / s), -qmax, qmax)
    return (q * s).reshape(d_in, d_out)


@_check.finite
def sqnr_db(x: ArrayLike, y: ArrayLike) -> float:
    """SQNR in dB of y against x: -20 log10(relative RMS error).

    >>> round(sqnr_db([3.0, 4.0], [3.0, 4.5]), 2)
    20.0
    """
    err = formats.relative_rms_error(x, y)
    if err == 0:
        raise ValueError("y equals x exactly: the SQNR is infinite")
    return -20 * math.log10(err)


@_check.finite
def kv_tokens_that_fit(mem_capacity_B: float, weight_B: float, kv_B_per_token: float) -> int:
    """Tokens of KV cache that fit beside the weights: floor((C - W) / KV per token); batch x context.

    >>> kv_tokens_that_fit(80e9, 16e9, 131072)
    488281
    """
    free = _check.positive("mem_capacity_B", mem_capacity_B, "bytes") - _check.non_negative(
        "weight_B", weight_B, "bytes")
    per = _check.positive("kv_B_per_token", kv_B_per_token, "bytes")
    return max(0, int(free / per))
