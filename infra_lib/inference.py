"""The request model: prefill time, decode step time, and a batch of requests.

    t_prefill ~ 2 N P / (eta_F F)          t_token ~ (B_W + B_KV) / (eta_B BW)

N parameters, P prompt tokens, F peak FLOP/s, BW memory bandwidth, eta the fraction of peak
reached, B_W the weight bytes and B_KV the KV-cache bytes read in one decode step. A step
takes as long as the slower of its arithmetic and its memory traffic (the roofline); for the
seed's example the memory side wins by two orders of magnitude.
"""
import math
from dataclasses import dataclass

from . import _check, hardware, models, roofline
from .models import forward_flops_per_token


@dataclass(frozen=True)
class Accelerator:
    """Peak FLOP/s and memory bandwidth, and the fraction of each a real kernel reaches."""
    name: str
    peak_flop_s: float
    mem_bw_Bps: float
    flop_efficiency: float = 1.0
    bw_efficiency: float = 1.0

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.positive("peak_flop_s", self.peak_flop_s, "FLOP/s")
        _check.positive("mem_bw_Bps", self.mem_bw_Bps, "bytes/s")
        _check.fraction("flop_efficiency", self.flop_efficiency)
        _check.fraction("bw_efficiency", self.bw_efficiency)

    @classmethod
    def from_registry(cls, device: str, flop_efficiency: float | None = None,
                      bw_efficiency: float | None = None) -> "Accelerator":
        """Peaks from the registry; efficiencies given here, else from the registry.

        A device with no efficiency spec in the registry needs the efficiency passed in: a
        misspelled or missing spec raises :class:`KeyError` naming it instead of turning into 1.0.
        """
        def eff(name: str, given: float | None) -> float:
            return hardware.value(device, name) if given is None else given
        return cls(hardware.device_name(device), hardware.value(device, "peak_flop_s"),
                   hardware.value(device, "mem_bw_Bps"),
                   eff("flop_efficiency", flop_efficiency), eff("bw_efficiency", bw_efficiency))

    @classmethod
    def at_peak(cls, device: str) -> "Accelerator":
        """The registry's datasheet peaks with both efficiencies 1: the best case, stated as such."""
        return cls.from_registry(device, flop_efficiency=1.0, bw_efficiency=1.0)

    @property
    def effective_flop_s(self) -> float:
        return self.peak_flop_s * self.flop_efficiency

    @property
    def effective_Bps(self) -> float:
        return self.mem_bw_Bps * self.bw_efficiency

    @property
    def ridge_point(self) -> float:
        """Peak FLOP/s over peak bandwidth (FLOP per byte)."""
        return roofline.ridge_point(self.peak_flop_s, self.mem_bw_Bps)


@dataclass(frozen=True)
class Request:
    """One chat request: the model's size, the prompt, and the KV bytes each decode step reads."""
    n_params: float
    prompt_tokens: int
    kv_B: float
    bytes_per_param: float = 2.0

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.positive("n_params", self.n_params, "parameters")
        _check.count("prompt_tokens", self.prompt_tokens, "tokens")
        _check.non_negative("kv_B", self.kv_B, "bytes")
        _check.positive("bytes_per_param", self.bytes_per_param, "bytes per parameter")

    @property
    def weight_B(self) -> float:
        """Bytes of weights: parameters x bytes per parameter (:func:`infra_lib.models.weight_B`)."""
        return models.weight_B(self.n_params, self.bytes_per_param)

    @property
    def flops_per_token(self) -> float:
        """2N: the attention term is left out, as in the seed (chapter 0 counts what it adds)."""
        return forward_flops_per_token(self.n_params)


@dataclass(frozen=True)
class Prefill:
    """Prefill of one prompt: its FLOPs, their time at eta_F F, and one read of the weights."""
    flops: float
    compute_s: float
    weight_read_s: float

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def time_s(self) -> float:
        return max(self.compute_s, self.weight_read_s)

    @property
    def bound(self) -> str:
        return "compute" if self.compute_s >= self.weight_read_s else "memory"


@dataclass(frozen=True)
class DecodeStep:
    """One decode step for ``batch`` requests that share one read of the weights.

    ``kv_after`` chooses how its times combine (:func:`decode_step` says why the overview keeps
    the default): False, one roofline over every byte, max(compute, weights + KV), the overview's
    eq-prefill-decode-time; True, chapter 6's adopted model, max(compute, weights) + KV
    (:func:`infra_lib.roofline.sequential_step_s`, equation eq-decode-seq).
    """
    batch: int
    flops: float
    weight_B: float
    kv_B: float
    compute_s: float
    weight_read_s: float
    kv_read_s: float
    kv_after: bool = False

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def memory_s(self) -> float:
        """Every byte of the step at the bandwidth reached: weights + KV."""
        return self.weight_read_s + self.kv_read_s

    @property
    def read_B(self) -> float:
        """Bytes read in the step: the weights once plus every request's KV cache."""
        return self.weight_B + self.kv_B

    @property
    def time_s(self) -> float:
        """max(compute, weights + KV), or with ``kv_after`` max(compute, weights) + KV."""
        if self.kv_after:
            return roofline.sequential_step_s(self.compute_s, self.weight_read_s, self.kv_read_s)
        return max(self.compute_s, self.memory_s)

    @property
    def inter_token_latency_s(self) -> float:
        """Each request gets one token per step."""
        return self.time_s

    @property
    def throughput_tok_s(self) -> float:
        return self.batch / self.time_s

    @property
    def kv_share(self) -> float:
        """Fraction of the bytes read that are KV cache."""
        return self.kv_B / self.read_B

    @property
    def intensity(self) -> float:
        return roofline.arithmetic_intensity(self.flops, self.read_B)

    @property
    def bound(self) -> str:
        """'compute' or 'memory': of the whole step on one roofline, or, with ``kv_after``, of its
        weight matmuls (the KV reads that follow them are memory-bound at any batch)."""
        memory = self.weight_read_s if self.kv_after else self.memory_s
        return "compute" if self.compute_s >= memory else "memory"


def _check_pair(request: object, acc: object) -> None:
    if not isinstance(request, Request):
        raise TypeError(f"request must be an infra_lib.inference.Request, got {request!r}")
    if not isinstance(acc, Accelerator):
        raise TypeError(f"acc must be an infra_lib.inference.Accelerator, got {acc!r}")


@_check.finite
def prefill(request: Request, acc: Accelerator) -> Prefill:
    """Prefill of one prompt: 2 N P FLOPs at eta_F F, against one read of the weights at eta_B BW.

    Equation eq-prefill-decode-time (left) in chapter 0 (the overview).

    >>> p = prefill(teaching_request(), teaching_gpu())
    >>> round(p.compute_s * 1e3, 1), round(p.weight_read_s * 1e3, 2), p.bound
    (64.0, 7.62, 'compute')
    """
    _check_pair(request, acc)
    flops = request.flops_per_token * request.prompt_tokens
    return Prefill(flops=flops, compute_s=flops / acc.effective_flop_s,
                   weight_read_s=request.weight_B / acc.effective_Bps)


@_check.finite
def decode_step(request: Request, acc: Accelerator, batch: int = 1, kv_after: bool = False) -> DecodeStep:
    """One decode step for ``batch`` similar requests: weights read once, KV read per request.

    Equation eq-prefill-decode-time (right) in chapter 0 (the overview); with ``kv_after``,
    eq-decode-seq in chapter 6, the model chapter 6 adopts: the KV reads run after the matmuls,
    max(2 N B / (eta_F F), B_W / (eta_B BW)) + B x B_KV / (eta_B BW), through the same
    :func:`infra_lib.roofline.sequential_step_s` that :mod:`infra_lib.decode_model` uses.

    Why the overview keeps the single roofline: it prices every byte at one bandwidth, eta_B BW,
    and the two models give the same time while the matmuls' compute stays below the weight
    reads, at every batch below eta_F F / (eta_B BW) (238 on the teaching GPU, beyond the 213
    requests that fit in 80 GB), so no number it prints depends on the choice. They part only
    above that batch, where the sequential model is slower by min(compute - weight reads, KV reads);
    chapter 6 measures which holds and uses ``kv_after=True``.

    >>> s = decode_step(teaching_request(), teaching_gpu(), batch=32)
    >>> round(s.read_B / 1e9, 1), round(s.time_s * 1e3, 1), round(s.throughput_tok_s)
    (25.6, 12.2, 2625)
    >>> decode_step(teaching_request(), teaching_gpu(), 32, kv_after=True).time_s == s.time_s
    True
    >>> [round(decode_step(teaching_request(), teaching_gpu(), 256, k).time_s * 1e3, 1) for k in (False, True)]
    [44.2, 44.8]
    """
    _check_pair(request, acc)
    batch = _check.count("batch", batch, "requests")
    flops = request.flops_per_token * batch
    kv = request.kv_B * batch
    return DecodeStep(batch=batch, flops=flops, weight_B=request.weight_B, kv_B=kv,
                      compute_s=flops / acc.effective_flop_s,
                      weight_read_s=request.weight_B / acc.effective_Bps, kv_read_s=kv / acc.effective_Bps,
                      kv_after=_check.flag("kv_after", kv_after))


def compute_bound_batch(request: Request, acc: Accelerator, kv_after: bool = False) -> float:
    """The batch size at which a decode step's arithmetic catches up with its memory traffic.

    Solve B x 2N / (eta_F F) = (B_W + B x B_KV) / (eta_B BW) for B. Each extra request adds
    2N / (eta_F F) of arithmetic and B_KV / (eta_B BW) of memory time; if the second is not
    smaller, the step never becomes compute-bound and the answer is infinity. With ``kv_after``
    (chapter 6's model, :func:`decode_step`) the KV reads follow the matmuls and do not enter their
    max: the matmuls turn compute-bound at B_W / (eta_B BW) / (2N / (eta_F F)) whatever the KV.

    >>> no_kv = Request(8e9, 2000, 0.0)
    >>> round(compute_bound_batch(no_kv, teaching_gpu()), 1)
    238.1
    >>> compute_bound_batch(teaching_request(), teaching_gpu())
    inf
    >>> round(compute_bound_batch(teaching_request(), teaching_gpu(), kv_after=True), 1)
    238.1
    """
    _check_pair(request, acc)
    flop_s_per_request = request.flops_per_token / acc.effective_flop_s
    kv_s_per_request = 0.0 if _check.flag("kv_after", kv_after) else request.kv_B / acc.effective_Bps
    if flop_s_per_request <= kv_s_per_request:
        return float("inf")
    return request.weight_B / acc.effective_Bps / (flop_s_per_request - kv_s_per_request)


@_check.finite
def decode_critical_batch(shape: models.ModelShape, peak_flop_s: float, mem_bw_Bps: float,
                          bytes_per_param: float = 2) -> int:
    """The smallest batch at which a decode step's weight matmuls are compute-bound, for a dense
    model or a mixture of experts, judged expert by expert: the least integer B with

        B k / E >= b F / (2 BW),

    k of E experts per token (1 of 1 for a dense model), b bytes per weight, F and BW the compute
    rate and bandwidth (equation eq-moe-critical in chapter 6). Each expert is its own matmul: with
    balanced routing it sees B k / E tokens and does 2 flops per weight per token against b bytes
    per weight, so it turns compute-bound when its share of the batch reaches the ridge in tokens,
    b F / (2 BW). Summing every matmul's FLOPs against every weight's bytes instead would let the
    attention projections' spare compute hide the experts' memory time, though they run as separate
    kernels (Austin et al., How to Scale Your Model, the MoE section of "All About Transformer
    Inference"). For a dense model in BF16, B = F / BW, the ridge (Pope et al. 2022, section 3.1).

    H200 datasheet (989.5 TFLOP/s dense BF16, 4.8 TB/s): Llama-3-8B turns at 207; Mixtral 8x7B
    (2 of 8 experts) at 825, four ridges.

    >>> decode_critical_batch(models.LLAMA3_8B, 989.5e12, 4.8e12), decode_critical_batch(models.MIXTRAL_8X7B, 989.5e12, 4.8e12)
    (207, 825)
    """
    sh = _check.instance("shape", shape, models.ModelShape)
    f = _check.positive("peak_flop_s", peak_flop_s, "FLOP/s")
    bw = _check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s")
    b = _check.positive("bytes_per_param", bytes_per_param, "bytes per parameter")
    ridge_tokens = b * f / (2.0 * bw)
    # exact in integers where the ratio is: B k >= ridge E, least such B
    return max(1, math.ceil(ridge_tokens * sh.n_experts / sh.experts_per_token - 1e-9))


@_check.finite
def max_batch_for_tpot(request: Request, acc: Accelerator, tpot_s: float, kv_after: bool = False) -> int:
    """The largest batch whose decode step (:func:`decode_step`) stays within a time-per-output-token
    target: the latency bound on batching, beside the capacity bound of :func:`max_batch_that_fits`.

    Every request of a batch gets one token per step, so the step time is each one's TPOT. With one
    roofline, max(B t_F, t_W + B t_KV) <= T, so B <= T / t_F and B <= (T - t_W) / t_KV, with
    t_F = 2N / (eta_F F) the arithmetic of one request, t_W = B_W / (eta_B BW) the weight read and
    t_KV = B_KV / (eta_B BW) one request's KV read; with ``kv_after`` (chapter 6's model) the KV reads
    follow the matmuls, max(B t_F, t_W) + B t_KV <= T. 0 means not even one request meets the target
    (the weight read alone is longer).

    The teaching request on the teaching GPU with a 20 ms target: t_W = 16 GB / 2.1 TB/s = 7.6 ms,
    t_KV = 0.14 ms, so (20 - 7.6) / 0.14 = 86.7 requests: 86.

    >>> max_batch_for_tpot(teaching_request(), teaching_gpu(), 20e-3)
    86
    >>> max_batch_for_tpot(teaching_request(), teaching_gpu(), 5e-3)
    0
    """
    _check_pair(request, acc)
    tpot_s = _check.positive("tpot_s", tpot_s, "s")
    kv_after = _check.flag("kv_after", kv_after)
    t_f = request.flops_per_token / acc.effective_flop_s
    t_w = request.weight_B / acc.effective_Bps
    t_kv = request.kv_B / acc.effective_Bps
    if t_w > tpot_s:
        return 0
    bounds = [tpot_s / (t_f + t_kv) if kv_after else tpot_s / t_f]
    if t_kv > 0:
        bounds.append((tpot_s - t_w) / t_kv)
    batch = int(min(bounds))
    meets = lambda b: decode_step(request, acc, b, kv_after).time_s <= tpot_s
    # the closed form is exact on paper; in floats it can land one off at an exact multiple: settle it
    # on the step time itself, so that the batch meets the target and one more request does not
    while batch > 0 and not meets(batch):
        batch -= 1
    while meets(batch + 1):
        batch += 1
    return batch


@_check.finite
def max_batch_that_fits(weight_B: float, kv_B_per_request: float, mem_capacity_B: float,
                        reserved_B: float = 0.0) -> int:
    """The largest batch whose weights and KV caches fit in memory: the capacity bound on batching.

    B_max = floor((C - B_W - R) / B_KV), with C the memory capacity, B_W the weight bytes, B_KV the
    KV bytes held per request (for a model: KV bytes per token x context tokens, at the KV cache's
    precision; :meth:`infra_lib.models.ModelShape.kv_B_per_token`) and R whatever else is reserved
    (activations, workspace, the CUDA context; 0 by default, so the answer is an upper bound).
    Equation eq-batch-capacity in chapter 0 (the overview). 0 means not even the weights fit.

    The teaching request (16 GB of weights, 0.3 GB of KV each) on an 80 GB GPU: (80 - 16) / 0.3.

    >>> max_batch_that_fits(16e9, 0.3e9, 80e9)
    213
    >>> max_batch_that_fits(16e9, 131072 * 2000, 80e9)   # Llama-3-8B's KV, BF16, 2,000 tokens
    244
    >>> max_batch_that_fits(16e9, 0.3e9, 10e9)
    0
    """
    weight_B = _check.non_negative("weight_B", weight_B, "bytes")
    kv_B_per_request = _check.positive("kv_B_per_request", kv_B_per_request, "bytes")
    mem_capacity_B = _check.positive("mem_capacity_B", mem_capacity_B, "bytes")
    reserved_B = _check.non_negative("reserved_B", reserved_B, "bytes")
    free_B = mem_capacity_B - weight_B - reserved_B
    if free_B <= 0:
        return 0
    # a hair of tolerance so that 64 GB / 0.3 GB is not lost to float rounding at an exact multiple
    return int(free_B / kv_B_per_request * (1 + 1e-12))


@_check.finite
def min_token_time_s(weight_B: float, mem_bw_Bps: float) -> float:
    """The floor on a decode step: every weight byte read once at full bandwidth, weight bytes /
    bandwidth. Its inverse is the batch-1 decode ceiling (:func:`infra_lib.generations.decode_ceiling_tok_s`,
    bandwidth / weight bytes); each is one division, so a page that prints both agrees to the last bit.

    8B parameters in BF16 on an H100 SXM5: 16 GB / 3.352 TB/s = 4.8 ms, so at most ~210 tokens/s.

    >>> round(min_token_time_s(16e9, 3352e9) * 1e3, 2)
    4.77
    """
    return _check.positive("weight_B", weight_B, "bytes") / _check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s")


def teaching_request() -> Request:
    """The seed's request: 8B parameters in BF16, a 2,000-token prompt, up to 0.3 GB of KV."""
    v = lambda name: hardware.value("teaching_request", name)
    return Request(n_params=v("n_params"), prompt_tokens=int(v("prompt_tokens")),
                   kv_B=v("kv_bytes_per_request"), bytes_per_param=v("bytes_per_param"))


def teaching_gpu() -> Accelerator:
    """The seed's GPU: 1,000 TFLOPS at 50%, 3 TB/s at 70% (teaching assumptions)."""
    return Accelerator.from_registry("teaching_gpu")
