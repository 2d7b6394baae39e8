"""Quantization: bytes per parameter with scale overhead, integer quantizers, and their error.

Storage: a value costs element_bits + (scale_bits + zero_point_bits) / group_size bits
(:func:`infra_lib.formats.bits_per_value`). INT8 per output channel with an FP16 scale per 4,096 inputs:
8 + 16/4096; INT4 in groups of 128 with an FP16 scale and an FP16 zero point (GPTQ/AWQ-style
group quantization; the group size is a configuration choice): 4 + 32/128 = 4.25; MXFP4 4.25 and
NVFP4 4.5 (chapter 3, ``formats.MXFP4``/``formats.NVFP4``).

Symmetric integer quantization with b bits: q = clip(round(x / s), -qmax, qmax), qmax = 2^(b-1) - 1,
s = amax / qmax, one amax per tensor, per output channel (a column of W in y = x @ W) or per group
of ``group_size`` consecutive inputs within a column. Signal-to-quantization-noise ratio:
SQNR = 10 log10(sum x^2 / sum (x - x_hat)^2) dB = -20 log10(relative RMS error).

The storage arithmetic (bits, bytes, what they buy, ``int_qmax``) is pure Python in
:mod:`infra_lib.quant_storage` and re-exported here; this module adds the quantizers on arrays (numpy).

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
# the storage arithmetic is pure Python (the review and the widgets run it in the browser): re-exported
from .quant_storage import (INT4_GROUP, INT8_ROW, TENSOR_VALUES, PrefillDecode, StorageFormat,  # noqa: F401
                            _measured_peak, bits_per_param, compute_bound_batch_at_bits,
                            decode_ceiling_at_bits_tok_s, int_qmax, kv_tokens_that_fit, max_batch_at,
                            prefill_decode_speedup, storage_format, storage_formats, weight_B_at_bits)

FloatArray = npt.NDArray[np.float64]
GRANULARITIES = ("tensor", "channel", "group")


# ---- what the bits cost: integer quantizers and their error in a matrix product ----------------

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
    k = _check.count("group_size", group_size, "values")     # checked even when not used
    d_in, d_out = arr.shape
    if g == "tensor":
        blocks = arr.reshape(1, -1, 1)
    elif g == "channel":
        blocks = arr.reshape(1, d_in, d_out)
    else:
        if d_in % k:
            raise ValueError(f"group_size ({k}) must divide d_in, the rows of w ({d_in})")
        blocks = arr.reshape(d_in // k, k, d_out)
    amax = np.abs(blocks).max(axis=1, keepdims=True)
    s = np.where(amax > 0, amax / qmax, 1.0)
    q = np.clip(np.round(blocks / s), -qmax, qmax)
    return (q * s).reshape(d_in, d_out)


@_check.finite
def sqnr_db(x: ArrayLike, y: ArrayLike) -> float:
    """SQNR in dB of y against x: -20 log10(relative RMS error) (equation eq-sqnr in chapter 9).

    >>> round(sqnr_db([3.0, 4.0], [3.0, 4.5]), 2)
    20.0
    """
    err = formats.relative_rms_error(x, y)
    if err == 0:
        raise ValueError("y equals x exactly: the SQNR is infinite")
    return -20 * math.log10(err)


MAX_VALUES = 2 ** 22
"""Largest teaching matrix (values) of :func:`synthetic_weights` / :func:`synthetic_activations`."""


def _matrix(name: str, a: ArrayLike) -> FloatArray:
    arr = formats._finite_array(name, a)
    if arr.ndim != 2 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-D matrix, got shape {arr.shape}")
    return arr


def _size(d1: int, d2: int, names: str) -> None:
    if d1 * d2 > MAX_VALUES:
        raise ValueError(f"{names}: {d1:,} x {d2:,} values is more than {MAX_VALUES:,} "
                         "(a teaching matrix: keep it small)")


@_check.finite
def synthetic_weights(d_in: int, d_out: int, outlier_fraction: float = 0.0, outlier_scale: float = 10.0,
                      seed: int = 0) -> FloatArray:
    """A teaching weight matrix W (d_in x d_out): Gaussian, std 1/sqrt(d_in), with rare outliers.

    A fraction ``outlier_fraction`` of the entries, chosen at random, is multiplied by
    ``outlier_scale``. This is a teaching construction, not a trained model: trained LLM weights
    are roughly Gaussian with a few large entries (Dettmers et al. 2022, "LLM.int8()"; Lin et al.
    2023, "AWQ"). Fixed ``seed``: the same matrix every run.

    >>> w = synthetic_weights(256, 64, 0.01, 20.0)
    >>> w.shape, bool(abs(w).max() > 20 * abs(synthetic_weights(256, 64)).std())
    ((256, 64), True)
    """
    d_in = _check.count("d_in", d_in, "inputs")
    d_out = _check.count("d_out", d_out, "outputs")
    _size(d_in, d_out, "d_in x d_out")
    p = _check.share("outlier_fraction", outlier_fraction, "a share of the entries")
    k = _check.positive("outlier_scale", outlier_scale, "(times the typical weight)")
    rng = np.random.default_rng(_check.count("seed", seed, "", minimum=0))
    w = rng.standard_normal((d_in, d_out)) / math.sqrt(d_in)
    w[rng.random((d_in, d_out)) < p] *= k
    return w


@_check.finite
def synthetic_activations(tokens: int, d_in: int, outlier_channels: int = 0, outlier_scale: float = 20.0,
                          seed: int = 0) -> FloatArray:
    """Teaching activations X (tokens x d_in): standard Gaussian, with ``outlier_channels`` input
    channels (columns, chosen at random) scaled by ``outlier_scale`` in every token.

    A teaching construction of what LLM.int8() (Dettmers et al. 2022, section 3) and SmoothQuant
    (Xiao et al. 2023, section 3) report: in LLM activations a few feature dimensions are
    systematically many times larger than the rest, in almost every token. Fixed ``seed``.

    >>> x = synthetic_activations(8, 64, 2, 20.0)
    >>> x.shape, int((abs(x).max(axis=0) > 10).sum())
    ((8, 64), 2)
    """
    tokens = _check.count("tokens", tokens, "tokens")
    d_in = _check.count("d_in", d_in, "channels")
    _size(tokens, d_in, "tokens x d_in")
    n = _check.count("outlier_channels", outlier_channels, "channels", minimum=0)
    if n > d_in:
        raise ValueError(f"outlier_channels ({n}) must be at most d_in ({d_in})")
    k = _check.positive("outlier_scale", outlier_scale, "(times the typical activation)")
    rng = np.random.default_rng(_check.count("seed", seed, "", minimum=0))
    x = rng.standard_normal((tokens, d_in))
    x[:, rng.choice(d_in, size=n, replace=False)] *= k
    return x


@_check.finite
def matmul_output_error(x: ArrayLike, w: ArrayLike, bits: int, granularity: str, group_size: int = 128,
                        act_bits: int = 0) -> float:
    """Relative RMS error of the product when W is quantized: ||x @ W_hat - x @ W|| / ||x @ W||.

    W_hat = :func:`quantize_int` (w, bits, granularity, group_size). ``act_bits`` > 0 also
    quantizes x, symmetric with one scale per token (row), as W8A8 schemes do; 0 keeps x exact
    (weight-only quantization). An outlier channel of x sets the scale of every token, which is
    why LLM.int8() keeps those channels in 16 bits and SmoothQuant moves them into the weights.

    >>> x = [[1.0, 2.0]]; w = [[0.5, -1.0], [0.25, 1.0]]
    >>> matmul_output_error(x, w, 8, "tensor") < 0.01
    True
    """
    xa, wa = _matrix("x", x), _matrix("w", w)
    if xa.shape[1] != wa.shape[0]:
        raise ValueError(f"x has {xa.shape[1]} columns but w has {wa.shape[0]} rows: x @ w needs them equal")
    a = _check.count("act_bits", act_bits, "bits", minimum=0)
    xq = quantize_int(xa.T, a, "channel").T if a else xa
    return formats.relative_rms_error(xa @ wa, xq @ quantize_int(wa, bits, granularity, group_size))


@_check.finite
def matmul_output_sqnr_db(x: ArrayLike, w: ArrayLike, bits: int, granularity: str, group_size: int = 128,
                          act_bits: int = 0) -> float:
    """SQNR of the product in dB: -20 log10(:func:`matmul_output_error`).

    A product quantized exactly (every weight on the grid) has no finite SQNR: an error says so.

    >>> x = synthetic_activations(16, 256); w = synthetic_weights(256, 64)
    >>> 20 < matmul_output_sqnr_db(x, w, 8, "channel") - matmul_output_sqnr_db(x, w, 4, "channel") < 30
    True
    """
    err = matmul_output_error(x, w, bits, granularity, group_size, act_bits)
    if err == 0:
        raise ValueError("the quantized product equals x @ w exactly: the SQNR is infinite")
    return -20 * math.log10(err)


@_check.finite
def granularity_errors(w: ArrayLike, bits: int, group_size: int = 128) -> dict[str, float]:
    """SQNR in dB of W quantized with one scale per 'tensor', per 'channel' and per 'group'.

    Finer scales follow the local range: on a matrix with a few outliers, group >= channel >=
    tensor. Near 6.02 dB per bit (each bit halves the step): a uniform error of half a step gives
    SQNR = 6.02 b + 4.77 - 20 log10(amax / rms) dB.

    >>> e = granularity_errors(synthetic_weights(256, 64, 0.002, 30.0), 4)
    >>> e["group"] > e["channel"] > e["tensor"]
    True
    """
    arr = _matrix("w", w)
    return {g: sqnr_db(arr, quantize_int(arr, bits, g, group_size)) for g in GRANULARITIES}


@_check.finite
def smooth_scales(x: ArrayLike, w: ArrayLike, alpha: float = 0.5) -> FloatArray:
    """SmoothQuant's per-input-channel scales: s_j = max|X_j|^alpha / max|W_j|^(1 - alpha).

    Dividing column j of X by s_j and multiplying row j of W by it leaves X @ W unchanged and
    moves part of an activation outlier's range into the weights (Xiao et al. 2023,
    "SmoothQuant", section 4, equation 4; alpha = 0.5 is their default). A channel that is all
    zeros in X or in W keeps scale 1.

    >>> smooth_scales([[4.0, 1.0]], [[1.0], [1.0]]).tolist()
    [2.0, 1.0]
    """
    xa, wa = _matrix("x", x), _matrix("w", w)
    if xa.shape[1] != wa.shape[0]:
        raise ValueError(f"x has {xa.shape[1]} columns but w has {wa.shape[0]} rows: x @ w needs them equal")
    a = _check.share("alpha", alpha, "the migration strength: the share of the range moved")
    xmax, wmax = np.abs(xa).max(axis=0), np.abs(wa).max(axis=1)
    ok = (xmax > 0) & (wmax > 0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        s = np.where(ok, xmax ** a / np.where(ok, wmax, 1.0) ** (1 - a), 1.0)
    if not np.all(np.isfinite(s) & (s > 0)):
        raise ValueError("x and w span too wide a range for float64 smoothing scales")
    return s


@_check.finite
def smooth(x: ArrayLike, w: ArrayLike, alpha: float = 0.5) -> tuple[FloatArray, FloatArray]:
    """(X / s, s W) with s = :func:`smooth_scales`: the same product, flatter activations.

    >>> xs, ws = smooth([[4.0, 1.0]], [[1.0], [1.0]])
    >>> xs.tolist(), ws.tolist(), (xs @ ws).tolist()
    ([[2.0, 1.0]], [[2.0], [1.0]], [[5.0]])
    """
    s = smooth_scales(x, w, alpha)
    return _matrix("x", x) / s, _matrix("w", w) * s[:, None]
