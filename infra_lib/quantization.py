"""Quantization: bytes per parameter with scale overhead, integer quantizers, and their error.

Storage: a value costs element_bits + (scale_bits + zero_point_bits) / group_size bits
(:func:`infra_lib.formats.bits_per_value`). INT8 per output channel with an FP16 scale per 4,096 inputs:
8 + 16/4096; INT4 in groups of 128 as GPTQ and AWQ checkpoints store it (FP16 scale, 4-bit packed
zero point): 4 + 20/128 = 4.156; with an FP16 zero point (a generic layout): 4 + 32/128 = 4.25;
MXFP4 4.25 and NVFP4 4.5 (chapter 3, ``formats.MXFP4``/``formats.NVFP4``).

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
from .quant_storage import (CONFIDENCE, GSM8K_TEST_QUESTIONS, INT4_GROUP, INT8_ROW, KV_GROUP, PACKED_ZERO_BITS,  # noqa: F401
                            TENSOR_VALUES, UNQUANTIZED_BITS, Z_95, kv_bits_with_residual, score_difference_stderr,
                            PrefillDecode, StorageFormat, _measured_peak, bits_per_param, checkpoint_B, checkpoint_bits,
                            compute_bound_batch_at_bits, decode_ceiling_at_bits_tok_s, decode_read_B, int_qmax,
                            kv_tokens_that_fit, kv_weight_crossover_batch, max_batch_at, prefill_decode_speedup,
                            score_stderr, storage_format, storage_formats, weight_B_at_bits)

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


# ---- FP8 is not INT8: a minifloat with one scale, and the KV cache -----------------------------

FP8_GRANULARITIES = ("tensor", "token")


@_check.finite
def quantize_fp8(x: ArrayLike, granularity: str = "tensor", fmt: formats.MiniFloat = formats.E4M3) -> FloatArray:
    """FP8 quantize-dequantize of a 2-D matrix (tokens x channels): s = amax / max_normal (448 for
    E4M3), x_hat = round_to_format(x / s) x s, one FP32 scale per 'tensor' or per 'token' (row).

    :func:`infra_lib.formats.quantize_blocks` with the whole tensor, or one row, as the block.
    The element carries its own exponent, so the relative rounding error is about the same at
    every magnitude (2^-4 for E4M3's 3 mantissa bits) until values fall below the smallest normal
    (2^-6 x s): an outlier that sets the scale pushes the other values down a few binades, not
    onto a coarse grid as it does in INT8 (Micikevicius et al. 2022).

    >>> quantize_fp8([[448.0, 1.0], [3.0, -0.3]]).tolist()
    [[448.0, 1.0], [3.0, -0.3125]]
    """
    arr = _matrix("x", x)
    g = _check.choice("granularity", granularity, FP8_GRANULARITIES)
    if not isinstance(fmt, formats.MiniFloat):
        raise TypeError(f"fmt must be a MiniFloat such as formats.E4M3, got {fmt!r}")
    block = arr.size if g == "tensor" else arr.shape[1]
    return formats.quantize_blocks(arr.reshape(-1), fmt, block, "fp32").reshape(arr.shape)


ACT_SCHEMES = ("int8_token", "fp8_tensor", "fp8_token")


@_check.finite
def quantize_activations(x: ArrayLike, scheme: str) -> FloatArray:
    """Activations x (tokens x d_in) quantized as W8A8 kernels do: 'int8_token' (symmetric INT8, one
    scale per token, as :func:`matmul_output_error` with ``act_bits=8``), 'fp8_tensor' or
    'fp8_token' (E4M3, :func:`quantize_fp8`).

    >>> quantize_activations([[1.0, -127.0]], "int8_token").tolist()
    [[1.0, -127.0]]
    """
    arr = _matrix("x", x)
    s = _check.choice("scheme", scheme, ACT_SCHEMES)
    if s == "int8_token":
        return quantize_int(arr.T, 8, "channel").T
    return quantize_fp8(arr, s.split("_")[1])


@_check.finite
def activation_output_sqnr_db(x: ArrayLike, w: ArrayLike, scheme: str) -> float:
    """SQNR in dB of x_hat @ W against x @ W, the activations quantized by ``scheme``
    (:func:`quantize_activations`) and the weights kept exact: the activations' share of a W8A8 error.

    On activations with a few outlier channels, INT8 per token loses bits (the outliers set every
    token's scale) while FP8 E4M3 with one scale per tensor barely moves: chapter 9's "FP8 is not INT8".

    >>> w = synthetic_weights(512, 64); xs = synthetic_activations(64, 512), synthetic_activations(64, 512, 4, 20.0)
    >>> fp8, int8 = ([activation_output_sqnr_db(x, w, s) for x in xs] for s in ("fp8_tensor", "int8_token"))
    >>> abs(fp8[0] - fp8[1]) < 1, int8[0] - int8[1] > 10
    (True, True)
    """
    xa, wa = _matrix("x", x), _matrix("w", w)
    if xa.shape[1] != wa.shape[0]:
        raise ValueError(f"x has {xa.shape[1]} columns but w has {wa.shape[0]} rows: x @ w needs them equal")
    return _product_sqnr_db(xa @ wa, quantize_activations(xa, scheme) @ wa)


def _product_sqnr_db(exact: FloatArray, approx: FloatArray) -> float:
    err = formats.relative_rms_error(exact, approx)
    if err == 0:
        raise ValueError("the quantized product equals the exact one: the SQNR is infinite")
    return -20 * math.log10(err)


KV_AXES = ("token", "channel")


@_check.finite
def quantize_kv(kv: ArrayLike, bits: int, axis: str) -> FloatArray:
    """Symmetric INT quantize-dequantize of a cached key or value matrix (tokens x head_dim), one scale
    per 'token' (row) or per 'channel' (column, over the tokens).

    Keys have a few channels that are large in every token, values do not; so KIVI quantizes keys
    per channel and values per token (Liu et al. 2024). Per token, a key's outlier channel sets the
    scale of its whole row and the other channels round to a few codes.

    >>> quantize_kv([[8.0, 0.5], [8.0, -0.5]], 4, "channel").tolist()
    [[8.0, 0.5], [8.0, -0.5]]
    """
    arr = _matrix("kv", kv)
    a = _check.choice("axis", axis, KV_AXES)
    return quantize_int(arr, bits, "channel") if a == "channel" else quantize_int(arr.T, bits, "channel").T


@_check.finite
def attention_score_sqnr_db(queries: ArrayLike, keys: ArrayLike, keys_hat: ArrayLike) -> float:
    """SQNR in dB of the attention scores q k_hat^T against q k^T (before the softmax and its 1/sqrt(d)),
    with the cached keys quantized to ``keys_hat`` (:func:`quantize_kv`, :func:`quantize_fp8`).

    >>> k = synthetic_activations(64, 32, 2, 20.0); qs = synthetic_activations(4, 32, seed=1)
    >>> attention_score_sqnr_db(qs, k, quantize_kv(k, 4, "channel")) > attention_score_sqnr_db(qs, k, quantize_kv(k, 4, "token"))
    True
    """
    qa, ka, kh = _matrix("queries", queries), _matrix("keys", keys), _matrix("keys_hat", keys_hat)
    if qa.shape[1] != ka.shape[1]:
        raise ValueError(f"queries have {qa.shape[1]} channels but keys have {ka.shape[1]}: they must match")
    if kh.shape != ka.shape:
        raise ValueError(f"keys_hat has shape {kh.shape} but keys {ka.shape}: they must match")
    return _product_sqnr_db(qa @ ka.T, qa @ kh.T)


# ---- the model's output distribution: KL divergence and top-1 agreement -------------------------

def _log_softmax(z: FloatArray) -> FloatArray:
    m = z.max(axis=1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))


def _logit_pair(ref_logits: ArrayLike, test_logits: ArrayLike) -> tuple[FloatArray, FloatArray]:
    ra, ta = _matrix("ref_logits", ref_logits), _matrix("test_logits", test_logits)
    if ra.shape != ta.shape:
        raise ValueError(f"ref_logits has shape {ra.shape} but test_logits {ta.shape}: "
                         "both must be positions x vocabulary")
    return ra, ta


@_check.finite
def mean_kl_divergence(ref_logits: ArrayLike, test_logits: ArrayLike) -> float:
    """Mean over positions of KL(P_ref || P_test) in nats, P = softmax of each row of logits
    (positions x vocabulary): sum_v P_ref(v) (log P_ref(v) - log P_test(v)).

    What llama.cpp's ``llama-perplexity --kl-divergence`` reports as "Mean KLD" for a quantized model
    against the base model's saved logits; 0 only when every row's distribution is unchanged, and,
    unlike perplexity, it counts a change of the distribution in either direction as a loss.

    >>> mean_kl_divergence([[0.0, 0.0]], [[0.0, 0.0]]), round(mean_kl_divergence([[0.0, 0.0]], [[1.0, 0.0]]), 4)
    (0.0, 0.1201)
    """
    ra, ta = _logit_pair(ref_logits, test_logits)
    lp, lq = _log_softmax(ra), _log_softmax(ta)
    return float(max((np.exp(lp) * (lp - lq)).sum(axis=1).mean(), 0.0))


@_check.finite
def top1_agreement(ref_logits: ArrayLike, test_logits: ArrayLike) -> float:
    """Share of positions whose most likely token is the same under both logits (llama.cpp's
    "Same top p"): what greedy decoding would pick identically, one position at a time.

    >>> top1_agreement([[2.0, 1.0], [0.0, 1.0]], [[1.5, 1.0], [1.0, 0.0]])
    0.5
    """
    ra, ta = _logit_pair(ref_logits, test_logits)
    return float((ra.argmax(axis=1) == ta.argmax(axis=1)).mean())
