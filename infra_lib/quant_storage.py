"""Quantization's storage arithmetic, pure Python: bits and bytes per parameter, and what they buy.

The part of :mod:`infra_lib.quantization` that needs no arrays (no numpy), so the review's questions
and the widgets run in the browser (Pyodide, ``book/tools/lite.py``); :mod:`infra_lib.quantization`
re-exports every name, and its integer quantizers and their error (numpy) build on it.

Storage: a value costs element_bits + (scale_bits + zero_point_bits) / group_size bits
(:func:`infra_lib.formats.bits_per_value`). INT8 per output channel with an FP16 scale per 4,096 inputs:
8 + 16/4096; INT4 in groups of 128 as GPTQ and AWQ checkpoints store it, an FP16 scale and a
4-bit zero point packed eight to an int32 per group: 4 + (16 + 4)/128 = 4.156; the generic layout
with an FP16 zero point: 4 + 32/128 = 4.25; MXFP4 4.25 and NVFP4 4.5 (chapter 3,
``formats.MXFP4``/``formats.NVFP4``).

>>> bits_per_param(4, 16, 128, zero_point_bits=4)
4.15625
>>> bits_per_param(4, 16, 128, zero_point_bits=16)
4.25
>>> int_qmax(8), int_qmax(4)
(127, 7)
"""
from dataclasses import dataclass
from statistics import NormalDist

from . import _check, cuda, generations, minifloat, models, planner, roofline
from .models import ModelShape

# ---- storage: bits and bytes per parameter, with the scales ------------------------------------

@_check.finite
def bits_per_param(element_bits: int, scale_bits: int, group_size: int, zero_point_bits: int = 0) -> float:
    """Bits per stored value: element + (scale + zero point) / group size (equation eq-bits-per-param
    in chapter 9).

    >>> bits_per_param(8, 16, 4096)
    8.00390625
    >>> bits_per_param(4, 16, 128)
    4.125
    """
    extra = _check.count("scale_bits", scale_bits, "bits", minimum=0) + _check.count(
        "zero_point_bits", zero_point_bits, "bits", minimum=0)
    return minifloat.bits_per_value(element_bits, extra, group_size)


@_check.finite
def weight_B_at_bits(n_params: float, bits: float) -> float:
    """Bytes of n_params weights at ``bits`` per parameter: n x bits / 8 (equation eq-weight-bytes in
    chapter 9), :func:`infra_lib.models.weight_B` with bits turned into bytes.

    >>> weight_B_at_bits(70e9, 4.25) / 1e9
    37.1875
    """
    return models.weight_B(n_params, _check.positive("bits", bits, "bits") / 8)


UNQUANTIZED_BITS = 16
"""What weight-only quantizers leave the embedding table and an untied LM head at: AutoAWQ and GPTQ
replace only the decoder blocks' linear layers, so both stay in FP16 (or the model's BF16)."""


@_check.finite
def checkpoint_B(shape: ModelShape, bits: float) -> float:
    """Bytes of a weight-only quantized checkpoint of ``shape``: the decoder blocks at ``bits`` per
    parameter, the embedding table, position embeddings and an untied LM head at 16 bits
    (:data:`UNQUANTIZED_BITS`). The norms' few weights (2 L d + d, under 0.01% of a 70B model)
    are counted with the blocks. At 16 bits it is the whole model's BF16 bytes.

    Llama-3-70B (untied, 128,256 x 8,192 embedding and head: 2.1B parameters) in GPTQ/AWQ's
    4.156 bits: 68.45B x 4.156 / 8 + 2.10B x 2 = 39.8 GB, where all of it at 4.156 bits would be 36.7.

    >>> round(checkpoint_B(models.LLAMA3_70B, 4.15625) / 1e9, 1), round(weight_B_at_bits(models.LLAMA3_70B.n_params, 4.15625) / 1e9, 1)
    (39.8, 36.7)
    >>> checkpoint_B(models.LLAMA3_70B, 16) == models.weight_B(models.LLAMA3_70B.n_params)
    True
    """
    _check.instance("shape", shape, ModelShape)
    bits = _check.positive("bits", bits, "bits")
    blocks = shape.non_embedding_params
    rest = shape.n_params - blocks
    return weight_B_at_bits(blocks, bits) + weight_B_at_bits(rest, UNQUANTIZED_BITS) if rest else weight_B_at_bits(blocks, bits)


@_check.finite
def checkpoint_bits(shape: ModelShape, bits: float) -> float:
    """Bits per parameter of a checkpoint whose blocks are at ``bits``, averaged over every parameter
    (:func:`checkpoint_B` x 8 / parameters): what the planner and the decode ceiling take as the
    format's bits once the 16-bit embeddings and LM head are counted.

    >>> round(checkpoint_bits(models.LLAMA3_70B, 4.15625), 2), checkpoint_bits(models.LLAMA3_8B, 16)
    (4.51, 16.0)
    """
    return checkpoint_B(shape, bits) * 8 / shape.n_params


TENSOR_VALUES = 8192 * 8192
"""Values sharing FP8's one per-tensor FP32 scale in :func:`storage_formats`: one 8,192 x 8,192
matrix (Llama-3-70B's attention projections are 8,192 wide), so the scale costs 32 / 67,108,864 bits."""

INT8_ROW = 4096
"""Inputs per output channel sharing INT8's FP16 scale in :func:`storage_formats` (a 4,096-wide layer)."""

INT4_GROUP = 128
"""INT4 group size in :func:`storage_formats`: the common GPTQ/AWQ setting, a configuration choice."""

PACKED_ZERO_BITS = 4
"""Bits of one zero point in a GPTQ/AWQ checkpoint: ``qzeros`` packs eight 4-bit zeros into each int32
(AutoAWQ ``WQLinear_GEMM``: ``qzeros`` of shape (in / group, out / 8), dtype int32; vLLM's GPTQ layer:
``output_size / pack_factor`` int32 columns), beside FP16 ``scales`` of shape (in / group, out)."""


@dataclass(frozen=True)
class StorageFormat:
    """One way to store weights: element bits and what the scales add per parameter.

    ``key`` names it for :func:`storage_format`; ``source`` is the citation key of the document
    that defines the layout ('teaching' where the layout is common practice, not a standard).
    """
    key: str
    name: str
    element_bits: int
    bits_per_param: float
    scales: str
    source: str

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.count("element_bits", self.element_bits, "bits")
        _check.positive("bits_per_param", self.bits_per_param, "bits")

    @property
    def bytes_per_param(self) -> float:
        """bits_per_param / 8: 2 for BF16, 0.53125 for INT4 in groups of 128 with scale and zero."""
        return self.bits_per_param / 8


@_check.finite
def storage_formats(tensor_values: int = TENSOR_VALUES) -> list[StorageFormat]:
    """The weight formats of chapter 9, bits per parameter computed with their scale overhead.

    bits = element bits + (scale bits + zero-point bits) / values per scale
    (:func:`bits_per_param`, :func:`infra_lib.formats.bits_per_value`):

    - BF16: 16, no scale;
    - FP8 E4M3 (``formats.E4M3``), one FP32 scale per tensor of ``tensor_values``: 8 + 32/n, about 8
      (H100 whitepaper section 4.1.3; Micikevicius et al. 2022);
    - INT8, one FP16 scale per output channel of 4,096 inputs: 8 + 16/4096 = 8.0039;
    - INT4 in groups of 128, a generic layout with FP16 scale + FP16 zero point: 4 + 32/128 = 4.25;
      scale only (symmetric) 4.125; the group size is a configuration choice;
    - INT4 in groups of 128 as GPTQ and AWQ checkpoints store it (``int4_g128_z4``): FP16 scale +
      4-bit packed zero point (:data:`PACKED_ZERO_BITS`): 4 + 20/128 = 4.156 (AutoAWQ, vLLM);
    - MXFP4 (``formats.MXFP4``, OCP MX v1.0 Table 1): 4 + 8/32 = 4.25;
    - NVFP4 (``formats.NVFP4``, NVIDIA 2025): 4 + 8/16 = 4.5 (its one FP32 per tensor left out,
      as NVIDIA's "4.5 bits per value" does).

    >>> [(f.key, f.bits_per_param) for f in storage_formats()][2:]
    [('int8', 8.00390625), ('int4_g128', 4.25), ('int4_g128_sym', 4.125), ('mxfp4', 4.25), ('nvfp4', 4.5), ('int4_g128_z4', 4.15625)]
    >>> storage_formats()[1].bits_per_param - 8 == 32 / 8192**2
    True
    """
    n = _check.count("tensor_values", tensor_values, "values")
    fp8 = minifloat.E4M3
    return [
        StorageFormat("bf16", "BF16", 16, bits_per_param(16, 0, 1), "none", "teaching"),
        StorageFormat("fp8", "FP8 E4M3", fp8.bits, bits_per_param(fp8.bits, 32, n), "FP32 / tensor",
                      "micikevicius2022fp8"),
        StorageFormat("int8", "INT8", 8, bits_per_param(8, 16, INT8_ROW), f"FP16 / {INT8_ROW} (channel)",
                      "teaching"),
        StorageFormat("int4_g128", f"INT4 g{INT4_GROUP} (FP16 zero)", 4,
                      bits_per_param(4, 16, INT4_GROUP, zero_point_bits=16),
                      f"FP16 scale + FP16 zero / {INT4_GROUP}", "teaching"),
        StorageFormat("int4_g128_sym", f"INT4 g{INT4_GROUP} (sym)", 4, bits_per_param(4, 16, INT4_GROUP),
                      f"FP16 scale / {INT4_GROUP}", "teaching"),
        StorageFormat("mxfp4", minifloat.MXFP4.name, minifloat.MXFP4.element.bits, minifloat.MXFP4.bits_per_value,
                      f"E8M0 / {minifloat.MXFP4.block_size}", "ocp2023mx"),
        StorageFormat("nvfp4", minifloat.NVFP4.name, minifloat.NVFP4.element.bits, minifloat.NVFP4.bits_per_value,
                      f"E4M3 / {minifloat.NVFP4.block_size} + FP32 / tensor", "alvarez2025nvfp4"),
        StorageFormat("int4_g128_z4", f"INT4 g{INT4_GROUP} (GPTQ/AWQ)", 4,
                      bits_per_param(4, 16, INT4_GROUP, zero_point_bits=PACKED_ZERO_BITS),
                      f"FP16 scale + {PACKED_ZERO_BITS}-bit zero / {INT4_GROUP}", "autoawq2024"),
    ]


@_check.finite
def storage_format(key: str) -> StorageFormat:
    """One row of :func:`storage_formats` by key ('bf16', 'fp8', 'int8', 'int4_g128', 'int4_g128_sym',
    'mxfp4', 'nvfp4', 'int4_g128_z4'); an unknown key is a KeyError naming the nearest.

    >>> storage_format("int4_g128").bytes_per_param
    0.53125
    """
    return _check.lookup("key", key, {f.key: f for f in storage_formats()}, "storage format")


# ---- what the bits buy: decode ceiling, KV room, the compute-bound batch, FP8 speed ------------

@_check.finite
def decode_ceiling_at_bits_tok_s(n_params: float, bits: float, mem_bw_Bps: float) -> float:
    """Batch-1 decode ceiling at ``bits`` per weight: bandwidth / (n_params x bits / 8) (equation
    eq-decode-ceiling-bits in chapter 9).

    Every weight is read once per generated token (:func:`infra_lib.generations.decode_ceiling_tok_s`
    applied to :func:`weight_B_at_bits`); KV-cache reads and imperfect bandwidth only lower it.
    Halving the bits doubles the ceiling. A model split over n GPUs by tensor parallelism reads
    1/n of the weights on each: pass n x the bandwidth (communication left out). W4A16 kernels
    reach the byte ratio only if dequantizing the weights hides behind their reads. 8B parameters
    in BF16 on an H200 at 4.8 TB/s: 4.8e12 / 16e9 = 300.

    >>> decode_ceiling_at_bits_tok_s(8e9, 16, 4.8e12), decode_ceiling_at_bits_tok_s(8e9, 8, 4.8e12)
    (300.0, 600.0)
    """
    return generations.decode_ceiling_tok_s(mem_bw_Bps, weight_B_at_bits(n_params, bits))


@_check.finite
def kv_tokens_that_fit(mem_capacity_B: float, weight_B: float, kv_B_per_token: float) -> int:
    """Tokens of KV cache that fit beside the weights: floor((C - W) / KV per token); batch x context
    (equation eq-kv-tokens in chapter 9).

    >>> kv_tokens_that_fit(80e9, 16e9, 131072)
    488281
    """
    free = _check.positive("mem_capacity_B", mem_capacity_B, "bytes") - _check.non_negative(
        "weight_B", weight_B, "bytes")
    per = _check.positive("kv_B_per_token", kv_B_per_token, "bytes")
    return max(0, int(free / per))


@_check.finite
def max_batch_at(shape: ModelShape, gpu_mem_B: float, weight_bits: float, kv_bits: float, context: float,
                 overhead_fraction: float = planner.OVERHEAD_FRACTION, gpus: int = 1,
                 runtime_B: float = planner.RUNTIME_B) -> int:
    """Largest batch of ``context``-token requests whose KV cache fits beside the weights.

    floor((gpus x (memory x (1 - overhead_fraction) - runtime) - checkpoint bytes)
          / (KV bytes per token at kv_bits / 8 x context)), with the weights as :func:`checkpoint_B`
    counts them (the blocks at ``weight_bits``, the embeddings and LM head at 16),
    :func:`infra_lib.planner.max_batch` with bits turned into bytes. ``overhead_fraction`` (0.1, the
    headroom of vLLM's default ``gpu_memory_utilization = 0.9``) and ``runtime_B`` (5 GiB per GPU
    of activations, CUDA graphs and non-torch memory) are chapter 4's teaching values; pass
    ``gpu_mem_B`` from :func:`infra_lib.hardware.usable_memory_B`. ``kv_bits`` is the element
    alone unless the scales are counted in it: FP8 KV with per-tensor scales costs 8, INT4 KV with
    an FP16 scale and zero per group of :data:`KV_GROUP` costs 5 (:func:`bits_per_param`). 0: the
    weights leave no room for one request.

    Llama-3-70B with FP8 weights on a GPU of 141 x 10^9 bytes at 4,096 tokens: (126.9 - 5.4 - 72.7) GB /
    (327,680 B x 4,096) -> 36 requests; with FP8 KV (163,840 B per token) 72.

    >>> from infra_lib import models
    >>> [max_batch_at(models.LLAMA3_70B, 141e9, 8, kv, 4096) for kv in (16, 8)]
    [36, 72]
    """
    _check.instance("shape", shape, ModelShape)
    w = checkpoint_B(shape, weight_bits) / shape.n_params          # bytes per parameter, embeddings 16-bit
    kv = _check.positive("kv_bits", kv_bits, "bits") / 8
    return planner.max_batch(shape, gpu_mem_B, gpus, w, context, kv, overhead_fraction, runtime_B)


@_check.finite
def compute_bound_batch_at_bits(peak_flop_s: float, mem_bw_Bps: float, bits: float) -> float:
    """The decode batch at which the weight matmuls turn compute-bound: B* = (F / BW) x b / 16.

    The weights alone, at b bits each; :func:`infra_lib.inference.compute_bound_batch` solves the
    same crossing for a request, its KV cache included. A step of B sequences does 2 P B FLOPs on
    P b / 8 bytes of weights, an intensity of 16 B / b FLOP per byte; it reaches the ridge point
    F / BW (chapter 6) at B* (equation eq-flip-batch in chapter 9). KV-cache reads add bytes and
    push the crossing further out. Fewer bits per weight cross sooner, unless the arithmetic gets
    faster with them (FP8 on FP8 Tensor Cores: F and b change together and B* stays).
    ``compute_bound_batch_at_bits(F_bf16, BW, 8)`` = F_bf16 / (2 BW) is also the batch at which
    BF16 arithmetic on P weights takes as long as reading P FP8 bytes: where W4A16 (compute-bound
    there) and FP8 W8A8 (still memory-bound) tie.

    >>> [round(compute_bound_batch_at_bits(989e12, 3.35e12, bits), 1) for bits in (16, 4)]
    [295.2, 73.8]
    """
    ridge = roofline.ridge_point(peak_flop_s, mem_bw_Bps)
    return ridge * _check.positive("bits", bits, "bits per weight") / 16


KV_GROUP = 32
"""Teaching group size of a 4-bit KV cache: values per FP16 scale and FP16 zero point, along the
tokens for keys (one group per channel) and along the channels for values (KIVI's layout, Liu et al.
2024; the group size is a configuration choice). 4 + 32/32 = 5 bits per cached value."""


@_check.finite
def decode_read_B(shape: ModelShape, weight_bits: float, kv_bits: float, batch: int, context: float) -> float:
    """Bytes one decode step reads: every weight once plus every request's KV cache,
    the checkpoint's weight bytes (:func:`checkpoint_B`) + batch x context x KV bytes per token at
    b_kv / 8 (equation eq-step-bytes in chapter 9).

    A memory-bound step's time is these bytes over the bandwidth, so the ratio of two of them is a
    speedup. Llama-3-70B, FP8 weights, 10 requests of 32,768 tokens: 72.7 GB + 107.4 GB of BF16 KV.

    >>> from infra_lib import models
    >>> round(decode_read_B(models.LLAMA3_70B, 8, 16, 10, 32768) / 1e9, 1)
    180.0
    """
    _check.instance("shape", shape, ModelShape)
    kv = _check.positive("kv_bits", kv_bits, "bits") / 8
    return (checkpoint_B(shape, weight_bits)
            + planner.kv_cache_B(shape, batch, _check.positive("context", context, "tokens"), kv))


@_check.finite
def kv_weight_crossover_batch(shape: ModelShape, weight_bits: float, kv_bits: float, context: float) -> float:
    """The batch at which a decode step reads as many KV bytes as weight bytes:
    B_x = checkpoint bytes (:func:`checkpoint_B`) / (context x KV bytes per token at b_kv / 8).

    Beyond it the KV cache is most of the bytes, and shrinking it shortens the step more than
    shrinking the weights would. Llama-3-70B, FP8 weights, BF16 KV at 32,768 tokens:
    72.7 GB / (327,680 B x 32,768) = 6.8 requests.

    >>> from infra_lib import models
    >>> round(kv_weight_crossover_batch(models.LLAMA3_70B, 8, 16, 32768), 2)
    6.77
    """
    _check.instance("shape", shape, ModelShape)
    kv = _check.positive("kv_bits", kv_bits, "bits") / 8
    per_request = shape.kv_B_per_token(kv) * _check.positive("context", context, "tokens")
    return checkpoint_B(shape, weight_bits) / per_request


@_check.finite
def score_stderr(accuracy: float, questions: int) -> float:
    """Standard error of a benchmark score: sqrt(p (1 - p) / n) for n independent questions scored
    right or wrong (a binomial proportion; for the accuracy section chapter 9 does not have yet).

    Two models' scores on the same n questions differ by more than noise only if the difference
    clears about twice this (:data:`Z_95` standard errors of the difference, :func:`score_difference_stderr`:
    about 1.4 times this if the two were independent, less when the same questions are paired).
    A score of 0 or 1 has no spread: 0.

    >>> round(score_stderr(0.5, 100), 3), score_stderr(1.0, 10)
    (0.05, 0.0)
    """
    p = _check.share("accuracy", accuracy, "the share of questions answered right")
    n = _check.count("questions", questions, "questions")
    return (p * (1 - p) / n) ** 0.5


CONFIDENCE = 0.95
"""The confidence of chapter 9's intervals: the usual 95%."""

Z_95 = NormalDist().inv_cdf(1 - (1 - CONFIDENCE) / 2)
"""Two-sided 95% point of the standard normal, 1.95996...: a difference larger than Z_95 standard
errors would arise by chance less than 5% of the time."""

GSM8K_TEST_QUESTIONS = 1319
"""Problems in GSM8K's test split (``grade_school_math/data/test.jsonl``, one problem a line; the
Hugging Face ``openai/gsm8k`` test split has the same 1,319 rows). Cobbe et al. 2021, "Training Verifiers
to Solve Math Word Problems" (arXiv:2110.14168), round it to "1K test problems"."""


@_check.finite
def score_difference_stderr(accuracy_a: float, accuracy_b: float, questions: int,
                            flip_share: float | None = None) -> float:
    """Standard error of the difference of two benchmark scores, accuracy_b - accuracy_a, on n questions.

    Unpaired (``flip_share`` None: two independent samples of questions):
    sqrt(p_a (1 - p_a) / n + p_b (1 - p_b) / n).
    Paired (the same n questions for both models, as a quantized model is evaluated against its
    original): each question's difference d_i is -1, 0 or +1, and only the flips count. With a share
    f = u + w of the questions flipped (u right -> wrong, w wrong -> right), the mean difference is
    delta = w - u = p_b - p_a and var(d_i) = f - delta^2, so the standard error is
    sqrt((f - delta^2) / n) (the large-sample form of McNemar's test). Few flips make the paired
    error far smaller than the unpaired one; a model whose answers never change has none.

    >>> round(score_difference_stderr(0.8, 0.8, 400), 4)
    0.0283
    >>> round(score_difference_stderr(0.8, 0.8, 400, flip_share=0.1), 4), score_difference_stderr(0.8, 0.8, 400, 0.0)
    (0.0158, 0.0)
    """
    pa = _check.share("accuracy_a", accuracy_a, "the share of questions model A answers right")
    pb = _check.share("accuracy_b", accuracy_b, "the share of questions model B answers right")
    n = _check.count("questions", questions, "questions")
    if flip_share is None:
        return (pa * (1 - pa) / n + pb * (1 - pb) / n) ** 0.5
    f = _check.share("flip_share", flip_share, "the share of questions whose answer is right for one model only")
    delta = pb - pa
    # u = (f - delta) / 2 right -> wrong flips, w = (f + delta) / 2 wrong -> right: both within their pools
    if f < abs(delta) - 1e-12 or (f - delta) / 2 > pa + 1e-12 or (f + delta) / 2 > 1 - pa + 1e-12:
        raise ValueError(f"flip_share {f} is impossible for accuracies {pa} and {pb}: it must be at least "
                         f"|accuracy_b - accuracy_a| = {abs(delta):.4g}, with at most accuracy_a of the "
                         "questions flipping right -> wrong and at most 1 - accuracy_a wrong -> right")
    return (max(f - delta * delta, 0.0) / n) ** 0.5


@_check.finite
def kv_bits_with_residual(quant_bits: float, context: float, residual_tokens: int,
                          full_bits: int = UNQUANTIZED_BITS) -> float:
    """Bits per cached value, averaged over a request, when the most recent ``residual_tokens`` stay in
    full precision: (R x full_bits + (T - R) x quant_bits) / T for T >= R, full_bits below it.

    KIVI keeps this residual window of the newest tokens in FP16, and quantizes keys only once a
    whole group of tokens has filled (keys are grouped along the tokens), so the cache is quantized in
    blocks while the newest tokens keep their precision (Liu et al. 2024). The window costs more the
    shorter the request: at 5 bits with R = 128, 512 tokens average 7.75 bits and 32,768 tokens 5.04.

    >>> kv_bits_with_residual(5, 512, 128), round(kv_bits_with_residual(5, 32768, 128), 3), kv_bits_with_residual(5, 64, 128)
    (7.75, 5.043, 16.0)
    """
    b = _check.positive("quant_bits", quant_bits, "bits")
    t = _check.positive("context", context, "tokens")
    r = _check.count("residual_tokens", residual_tokens, "tokens", minimum=0)
    full = _check.count("full_bits", full_bits, "bits")
    if r >= t:
        return float(full)
    return (r * full + (t - r) * b) / t


@dataclass(frozen=True)
class PrefillDecode:
    """Step times in BF16 and in FP8 (weights and compute) and the speedups FP8 brings.

    Each time is the roofline's max(FLOPs / peak, weight bytes / bandwidth).
    """
    prefill_bf16_s: float
    prefill_fp8_s: float
    decode_bf16_s: float
    decode_fp8_s: float

    def __post_init__(self) -> None:
        _check.fields(self)
        for f in ("prefill_bf16_s", "prefill_fp8_s", "decode_bf16_s", "decode_fp8_s"):
            _check.positive(f, getattr(self, f), "s")

    @property
    def prefill_speedup(self) -> float:
        """prefill_bf16_s / prefill_fp8_s: the FP8/BF16 peak ratio when prefill is compute-bound."""
        return self.prefill_bf16_s / self.prefill_fp8_s

    @property
    def decode_speedup(self) -> float:
        """decode_bf16_s / decode_fp8_s: 16 / 8 = 2 from the bytes when batch-1 decode is memory-bound."""
        return self.decode_bf16_s / self.decode_fp8_s


def _measured_peak(precision: str) -> float:
    return cuda.measured_matmul_peaks_flop_s()[precision]


@_check.finite
def prefill_decode_speedup(n_params: float, prompt_tokens: float, mem_bw_Bps: float,
                           bf16_flop_s: float | None = None, fp8_flop_s: float | None = None) -> PrefillDecode:
    """Prefill and batch-1 decode with BF16 vs FP8 weights and compute.

    prefill: max(2 N T / peak, N x bytes / bandwidth); decode (one token): max(2 N / peak,
    N x bytes / bandwidth); bytes per weight 2 (BF16) and 1 (FP8, its per-tensor scales left
    out). The peaks default to the H200's measured 8,192^3 matmul rates
    (:func:`infra_lib.cuda.measured_matmul_peaks_flop_s`: BF16 and FP8 E4M3 via
    ``torch._scaled_mm``). Prefill gains the peak ratio, decode the byte ratio and nothing from
    the FLOPs.

    >>> r = prefill_decode_speedup(8e9, 1000, 4.8e12, 800e12, 1600e12)
    >>> r.prefill_speedup, r.decode_speedup
    (2.0, 2.0)
    >>> r = prefill_decode_speedup(8e9, 1000, 4.8e12, 800e12, 800e12)
    >>> r.prefill_speedup, r.decode_speedup
    (1.0, 2.0)
    """
    n = _check.positive("n_params", n_params, "parameters")
    tokens = _check.positive("prompt_tokens", prompt_tokens, "tokens")
    bw = _check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s")
    peak16 = _check.positive("bf16_flop_s", _measured_peak("bf16") if bf16_flop_s is None else bf16_flop_s,
                             "FLOP/s")
    peak8 = _check.positive("fp8_flop_s", _measured_peak("fp8") if fp8_flop_s is None else fp8_flop_s,
                            "FLOP/s")
    w16, w8 = weight_B_at_bits(n, 16), weight_B_at_bits(n, 8)
    return PrefillDecode(prefill_bf16_s=max(2 * n * tokens / peak16, w16 / bw),
                         prefill_fp8_s=max(2 * n * tokens / peak8, w8 / bw),
                         decode_bf16_s=max(2 * n / peak16, w16 / bw),
                         decode_fp8_s=max(2 * n / peak8, w8 / bw))


# ---- the integer quantizer's range (its arrays: infra_lib.quantization) -------------------------

@_check.finite
def int_qmax(bits: int) -> int:
    """Largest code of symmetric signed integers: 2^(bits-1) - 1 (127 for INT8, 7 for INT4)."""
    b = _check.count("bits", bits, "bits", minimum=2)
    if b > 16:
        raise ValueError(f"bits must be at most 16 for integer quantization, got {b}")
    return 2 ** (b - 1) - 1


