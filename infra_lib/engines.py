"""Inference engines (chapter 7): static against continuous batching, the KV cache with and
without pages, prefix caching, and the CPU work of one engine step.

Sources: G.-I. Yu et al., "Orca: A Distributed Serving System for Transformer-Based Generative
Models", OSDI 2022 (iteration-level scheduling, which vLLM, SGLang and TensorRT-LLM call continuous
or in-flight batching); W. Kwon et al., "Efficient Memory Management for Large Language Model
Serving with PagedAttention", SOSP 2023, §3 and §4.2 (reservation, internal and external
fragmentation; blocks of a fixed number of tokens); L. Zheng et al., "SGLang", 2024 (RadixAttention:
the KV cache of shared prefixes kept in a radix tree and reused).
"""
import math
from collections.abc import Sequence
from dataclasses import dataclass

from . import _check, measurements, roofline
from . import decode_model as dm


def _lengths(output_tokens: Sequence[int]) -> list[int]:
    if isinstance(output_tokens, (str, bytes)) or not isinstance(output_tokens, Sequence):
        raise TypeError(f"output_tokens: expected a sequence of token counts, got {type(output_tokens).__name__}")
    if not output_tokens:
        raise ValueError("output_tokens: need at least one request")
    return [_check.count(f"output_tokens[{i}]", n, "tokens") for i, n in enumerate(output_tokens)]


@_check.finite
def static_batching_steps(output_tokens: Sequence[int], batch: int) -> int:
    """Decode steps to serve requests in arrival order, ``batch`` at a time, each batch running
    until its longest request finishes: sum over batches of max(length).

    >>> static_batching_steps([10, 2, 2, 2], 2)
    12
    """
    lens, b = _lengths(output_tokens), _check.count("batch", batch, "requests")
    return sum(max(lens[i:i + b]) for i in range(0, len(lens), b))


@_check.finite
def continuous_batching_steps(output_tokens: Sequence[int], batch: int) -> int:
    """Decode steps when a finished request's slot is refilled at the next step (iteration-level
    scheduling, Orca §3.1): a small simulation, requests admitted in arrival order.

    >>> continuous_batching_steps([10, 2, 2, 2], 2)
    10
    """
    lens, b = _lengths(output_tokens), _check.count("batch", batch, "requests")
    slots: list[int] = []
    queue, steps = list(lens), 0
    while queue or slots:
        while queue and len(slots) < b:
            slots.append(queue.pop(0))
        step = min(slots)                      # run until the next request finishes
        steps += step
        slots = [r - step for r in slots if r > step]
    return steps


@_check.finite
def slot_utilization(output_tokens: Sequence[int], batch: int, continuous: bool = True) -> float:
    """Useful token-slots over issued token-slots: sum(length) / (steps x batch).

    >>> slot_utilization([10, 2, 2, 2], 2, continuous=False), slot_utilization([10, 2, 2, 2], 2)
    (0.6666666666666666, 0.8)
    """
    lens, b = _lengths(output_tokens), _check.count("batch", batch, "requests")
    steps = continuous_batching_steps(lens, b) if _check.flag("continuous", continuous) \
        else static_batching_steps(lens, b)
    return sum(lens) / (steps * b)


@dataclass(frozen=True)
class KvUse:
    """KV-cache memory of a set of sequences, in tokens: what holds a token's K and V, and what
    was set aside without holding one."""
    used_tokens: float
    reserved_tokens: float

    def __post_init__(self) -> None:
        _check.fields(self)
        used = _check.non_negative("used_tokens", self.used_tokens, "tokens")
        reserved = _check.positive("reserved_tokens", self.reserved_tokens, "tokens")
        if reserved < used:       # the checked floats: a Fraction or a numpy number formats too
            raise ValueError(f"reserved_tokens ({reserved:g}) must be at least used_tokens ({used:g})")

    @property
    def wasted_tokens(self) -> float:
        return self.reserved_tokens - self.used_tokens

    @property
    def waste_share(self) -> float:
        """Share of the reserved KV memory that holds no token: the fragmentation."""
        return self.wasted_tokens / self.reserved_tokens


@_check.finite
def kv_contiguous(lengths: Sequence[int], max_len: int) -> KvUse:
    """KV memory when each sequence reserves a contiguous slab of ``max_len`` tokens up front, as
    systems before vLLM did (Kwon et al. §3: reserved, internal fragmentation).

    Equation eq-kv-waste in chapter 7: waste = 1 - sum(l_i) / (n x L_max).

    >>> kv_contiguous([100, 300], 1000).waste_share
    0.8
    """
    lens = _lengths(lengths)
    m = _check.count("max_len", max_len, "tokens")
    if max(lens) > m:
        raise ValueError(f"max_len ({m}) must be at least the longest sequence ({max(lens)} tokens)")
    return KvUse(float(sum(lens)), float(m * len(lens)))


@_check.finite
def kv_paged(lengths: Sequence[int], block_tokens: int = 16) -> KvUse:
    """KV memory in blocks of ``block_tokens`` tokens allocated on demand (PagedAttention, Kwon et
    al. §4.2): only each sequence's last block is partly empty, ceil(l / B) x B reserved.

    >>> kv_paged([100, 300], 16).reserved_tokens, round(kv_paged([100, 300], 16).waste_share, 4)
    (416.0, 0.0385)
    """
    lens = _lengths(lengths)
    bt = _check.count("block_tokens", block_tokens, "tokens")
    return KvUse(float(sum(lens)), float(sum(-(-n // bt) * bt for n in lens)))


@_check.finite
def prefix_cache_saving(requests: int, prefix_tokens: int, kv_B_per_token: float,
                        flop_per_token: float) -> tuple[float, float]:
    """KV bytes and prefill FLOPs saved when ``requests`` requests share a ``prefix_tokens`` prefix
    that is computed and stored once (automatic prefix caching, RadixAttention): (n - 1) x P x each.

    >>> prefix_cache_saving(100, 1000, 131072, 16e9)
    (12976128000.0, 1584000000000000.0)
    """
    n = _check.count("requests", requests, "requests")
    p = _check.count("prefix_tokens", prefix_tokens, "tokens", minimum=0)
    kv = _check.positive("kv_B_per_token", kv_B_per_token, "bytes")
    f = _check.positive("flop_per_token", flop_per_token, "FLOP")
    return (n - 1) * p * kv, (n - 1) * p * f


@_check.finite
def engine_cpu_s(batch: int, fixed_s: float, per_request_s: float) -> float:
    """CPU time of one engine step: scheduling, input preparation, sampling and output handling,
    a fixed part plus a part per request in the batch: t = t_0 + B x t_req.

    >>> round(engine_cpu_s(64, 1e-3, 20e-6) * 1e3, 2)
    2.28
    """
    b = _check.count("batch", batch, "requests")
    return _check.non_negative("fixed_s", fixed_s, "s") + b * _check.non_negative("per_request_s", per_request_s, "s")


@_check.finite
def engine_step_s(cpu_s: float, gpu_s: float, overlapped: bool = True) -> float:
    """An engine step: max(t_CPU, t_GPU) when the CPU prepares step k+1 while the GPU runs step k
    (asynchronous scheduling), t_CPU + t_GPU when it does not.

    >>> engine_step_s(2e-3, 5e-3), engine_step_s(2e-3, 5e-3, overlapped=False)
    (0.005, 0.007)
    """
    c = _check.non_negative("cpu_s", cpu_s, "s")
    g = _check.positive("gpu_s", gpu_s, "s")
    return max(c, g) if _check.flag("overlapped", overlapped) else c + g


@_check.finite
def speculative_tokens_per_step(acceptance: float, draft_tokens: int) -> float:
    """Expected tokens one verification step yields: (1 - alpha^(k+1)) / (1 - alpha).

    Equation eq-spec-decoding in chapter 7 (its left side). Leviathan et al., "Fast Inference from Transformers via
    Speculative Decoding" (ICML 2023), §3.3: a draft model proposes k tokens, the target model checks
    all of them in one forward pass, and each is accepted with probability alpha, independently
    (the paper's simplifying assumption); the step keeps the accepted prefix plus one token of the
    target's own, so it yields sum_{i=0..k} alpha^i tokens: k + 1 when alpha = 1, 1 when alpha = 0.

    >>> round(speculative_tokens_per_step(0.8, 4), 4), speculative_tokens_per_step(1, 4)
    (3.3616, 5.0)
    """
    a = _check.share("acceptance", acceptance, "the probability that the target accepts a draft token")
    k = _check.count("draft_tokens", draft_tokens, "tokens")
    if a == 1:
        return float(k + 1)
    return (1 - a ** (k + 1)) / (1 - a)


@_check.finite
def speculative_speedup(acceptance: float, draft_tokens: int, draft_cost: float) -> float:
    """Wall-time speed-up of speculative decoding over plain decoding: E[tokens] / (k c + 1).

    Equation eq-spec-decoding in chapter 7 (Leviathan et al. 2023, §3.5): one step costs k runs of the
    draft model, each ``draft_cost`` = c times a target step, plus one target step that verifies
    the k tokens, taken to cost the same as a decode step (decode is bound by reading the weights,
    so k + 1 positions cost about as much as one).

    >>> round(speculative_speedup(0.8, 4, 0.05), 2)
    2.8
    """
    c = _check.non_negative("draft_cost", draft_cost, "target steps")
    k = _check.count("draft_tokens", draft_tokens, "tokens")
    return speculative_tokens_per_step(acceptance, k) / (k * c + 1)


@_check.finite
def padded_batch(batch: int, captured_sizes: Sequence[int]) -> int:
    """The captured CUDA-graph batch size a batch of ``batch`` requests runs at: the smallest >= batch.

    A CUDA graph replays fixed shapes at fixed addresses, so an engine captures one graph per batch
    size in a list and pads a batch up to the next size it captured (vLLM's CUDA-graph capture
    sizes); a batch above the largest runs without a graph.

    >>> padded_batch(33, [1, 2, 4, 8, 16, 24, 32, 40, 48])
    40
    """
    b = _check.count("batch", batch, "requests")
    sizes = sorted(_lengths(captured_sizes))
    if b > sizes[-1]:
        raise ValueError(f"batch ({b}) is above the largest captured size ({sizes[-1]}): it runs without a CUDA graph")
    return next(s for s in sizes if s >= b)


@_check.finite
def padding_share(batches: Sequence[int], captured_sizes: Sequence[int]) -> float:
    """Share of the slots replayed that are padding: 1 - sum(b) / sum(padded(b)).

    >>> round(padding_share([33, 17, 3], [1, 2, 4, 8, 16, 24, 32, 40, 48]), 4)
    0.2206
    """
    bs = _lengths(batches)
    return 1 - sum(bs) / sum(padded_batch(b, captured_sizes) for b in bs)


# --------------------------------------------------------------------------------------------
# Scheduling beyond continuous batching (chapter 7, section ch7-scheduling): a prompt admitted into
# a running decode batch, whole or in chunks; a cached prefix; a KV cache brought back from the
# host instead of recomputed. Every time comes from chapter 6's model of the H200 run
# (infra_lib.decode_model): its decode terms, its prefill work and its prefill time.
# Sources: A. Agrawal et al., "Taming Throughput-Latency Tradeoff in LLM Inference with
# Sarathi-Serve", OSDI 2024 (chunked prefills, stall-free hybrid batches of decodes and one chunk);
# vLLM, "Optimization and Tuning" (chunked prefill always on in V1, the max_num_batched_tokens budget).


def _chunk_attention_flops(tokens: int, prior_tokens: int, run: "dm.Run") -> float:
    """Causal attention of ``tokens`` new positions after ``prior_tokens`` cached ones:
    2 c (c + 2 prior) d L, which is decode_model.prefill_work's 2 c^2 d L when nothing is cached
    (each new token attends to every cached one, 4 d L FLOPs a pair, and to half the new ones)."""
    base = dm.prefill_work(tokens, run=run).attention_flops          # 2 c^2 d L
    return base * (1 + 2 * prior_tokens / tokens)


def _prior_kv_s(prior_tokens: int, eff: "dm.Efficiencies", run: "dm.Run") -> float:
    """Time to read ``prior_tokens`` cached tokens' K and V (the KV term of one sequence)."""
    return dm.decode_terms(1, prior_tokens, eff, run).kv_s if prior_tokens else 0.0


@_check.finite
def prefill_chunk_s(tokens: int, prior_tokens: int, eff: "dm.Efficiencies", run: "dm.Run" = measurements.RUN) -> float:
    """A prefill of ``tokens`` new tokens whose first ``prior_tokens`` are already in the KV cache
    (a cached prefix, or the earlier chunks of the same prompt), alone on the GPU.

    Chapter 6's prefill model (decode_model.prefill_s) with the attention of the new tokens to the
    cached ones added, 2 c (c + 2 S) d L FLOPs, and the cached K and V read once; with nothing cached
    it is prefill_s itself. prefill_s prices the layers' matmuls at the compute rate, right for a
    long prompt; a short chunk's matmuls cannot finish before the layers' weights are read once, so
    their time is max(compute, weight reads), as in :func:`mixed_step_s`.

    >>> e = dm.efficiencies()
    >>> prefill_chunk_s(2000, 0, e) == dm.prefill_s(2000, e)
    True
    >>> round(prefill_chunk_s(500, 1500, e) * 1e3, 2)      # the last 500 tokens after a cached 1,500
    10.83
    >>> prefill_chunk_s(100, 2000, e) > dm.weight_read_B() / e.weight_Bps   # never below one read of the weights
    True
    """
    c = _check.count("tokens", tokens, "tokens")
    s = _check.count("prior_tokens", prior_tokens, "tokens", minimum=0)
    e = _check.instance("eff", eff, dm.Efficiencies)
    work = dm.prefill_work(c, run=run)
    extra = (_chunk_attention_flops(c, s, run) - work.attention_flops) / e.peak_flop_s
    compute_s = work.layer_flops / e.peak_flop_s
    read_s = (dm.weight_read_B(run) - work.lm_head_B) / e.weight_Bps      # the layers' weights, once
    return dm.prefill_s(c, e, run=run) + extra + _prior_kv_s(s, e, run) + max(0.0, read_s - compute_s)


@_check.finite
def mixed_step_s(decode_batch: int, context: int, prefill_tokens: int, eff: "dm.Efficiencies",
                 prior_tokens: int = 0, run: "dm.Run" = measurements.RUN) -> float:
    """One engine step that carries ``prefill_tokens`` tokens of a prompt (after ``prior_tokens``
    of it already prefilled) beside ``decode_batch`` decoding requests of ``context`` tokens each.

    Chapter 6's sequential decode model with the chunk added where it adds work: the weight
    matmuls at max(weight reads, compute of all B + c tokens) (the weights are read once for both),
    then the chunk's causal attention at the compute rate, the cached part of its prompt and the
    decodes' KV read, and the elementwise bytes of both. With no prefill tokens it is
    decode_model.decode_step_s. The LM head of the chunk's last position is left out (one row).

    >>> e = dm.efficiencies()
    >>> mixed_step_s(64, 1000, 0, e) == dm.decode_step_s(64, 1000, e)
    True
    >>> round(mixed_step_s(64, 1000, 512, e) * 1e3, 2)
    13.47
    """
    b = _check.count("decode_batch", decode_batch, "requests")
    t = _check.count("context", context, "tokens")
    c = _check.count("prefill_tokens", prefill_tokens, "tokens", minimum=0)
    s = _check.count("prior_tokens", prior_tokens, "tokens", minimum=0)
    e = _check.instance("eff", eff, dm.Efficiencies)
    d = dm.decode_terms(b, t, e, run)
    if c == 0:
        if s:
            raise ValueError(f"prior_tokens ({s}) needs prefill_tokens above 0: there is no chunk to attend from")
        return d.total_s
    work = dm.prefill_work(c, run=run)
    compute = d.compute_s + work.layer_flops / e.peak_flop_s
    rest = (d.kv_s + d.elementwise_s + _chunk_attention_flops(c, s, run) / e.peak_flop_s
            + _prior_kv_s(s, e, run) + work.elementwise_B / e.kv_Bps)
    return roofline.sequential_step_s(compute, d.weights_s, rest)


@_check.finite
def free_chunk_tokens(decode_batch: int, context: int, eff: "dm.Efficiencies", run: "dm.Run" = measurements.RUN) -> int:
    """The largest chunk whose weight matmuls still hide under the decode step's weight read:
    the prompt tokens a memory-bound step can carry before its matmuls turn compute-bound,
    floor((t_weights - t_compute) F / (2 (N - N_head))). Attention and elementwise work still add.

    >>> free_chunk_tokens(64, 1000, dm.efficiencies())
    224
    """
    b = _check.count("decode_batch", decode_batch, "requests")
    t = _check.count("context", context, "tokens")
    e = _check.instance("eff", eff, dm.Efficiencies)
    d = dm.decode_terms(b, t, e, run)
    per_token = dm.prefill_work(1, run=run).layer_flops / e.peak_flop_s
    return max(0, math.floor((d.weights_s - d.compute_s) / per_token))


@dataclass(frozen=True)
class Admission:
    """A prompt admitted into a running decode batch, whole or in chunks (seconds).

    ``stall_s``: the most one step grows over a plain decode step, the longest extra wait of every
    decoding request's next token; ``extra_s``: the growth summed over the steps that carry the
    prompt, the decodes' total delay; ``ttft_s``: the steps until the prompt's first token."""
    chunks: int
    stall_s: float
    extra_s: float
    ttft_s: float

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.count("chunks", self.chunks, "chunks")
        for name in ("stall_s", "extra_s", "ttft_s"):
            _check.non_negative(name, getattr(self, name), "s")


@_check.finite
def admit_prompt(decode_batch: int, context: int, prompt_tokens: int, eff: "dm.Efficiencies",
                 chunk_tokens: int | None = None, run: "dm.Run" = measurements.RUN) -> Admission:
    """Admit a prompt of ``prompt_tokens`` tokens into a batch of ``decode_batch`` decoding
    requests: whole in one step (``chunk_tokens`` None, or at least the prompt), or in chunks of
    ``chunk_tokens``, one per step beside the decodes (Sarathi-Serve's stall-free hybrid batches;
    vLLM V1's scheduler with a budget of max_num_batched_tokens = decodes + chunk).

    Every step is :func:`mixed_step_s`; chunk j attends to the j chunks before it.

    >>> e = dm.efficiencies()
    >>> whole, chunked = admit_prompt(64, 1000, 8192, e), admit_prompt(64, 1000, 8192, e, 512)
    >>> whole.chunks, chunked.chunks, round(whole.stall_s * 1e3), round(chunked.stall_s * 1e3, 1)
    (1, 16, 180, 9.0)
    """
    b = _check.count("decode_batch", decode_batch, "requests")
    t = _check.count("context", context, "tokens")
    p = _check.count("prompt_tokens", prompt_tokens, "tokens")
    size = p if chunk_tokens is None else min(p, _check.count("chunk_tokens", chunk_tokens, "tokens"))
    base = dm.decode_terms(b, t, eff, run).total_s
    steps = [mixed_step_s(b, t, min(size, p - start), eff, start, run) for start in range(0, p, size)]
    return Admission(len(steps), max(steps) - base, sum(steps) - base * len(steps), sum(steps))


@_check.finite
def prefix_hit(prefix_tokens: int, suffix_tokens: int, eff: "dm.Efficiencies",
               run: "dm.Run" = measurements.RUN) -> tuple[float, float, float]:
    """A request whose first ``prefix_tokens`` (a shared system prompt) are in the prefix cache:
    (time to first token without the cache, with it, prefill FLOPs saved).

    Without the cache the whole prompt is prefilled (decode_model.prefill_s); with it only the
    suffix, attending to the cached prefix (:func:`prefill_chunk_s`). The FLOPs saved are the
    prefix's own layers and attention, 2 (N - N_head) S + 2 S^2 d L.

    >>> cold, hot, saved = prefix_hit(2000, 200, dm.efficiencies())
    >>> round(cold * 1e3, 1), round(hot * 1e3, 2), round(saved / 1e12, 1)
    (45.2, 5.94, 29.0)
    """
    s = _check.count("prefix_tokens", prefix_tokens, "tokens")
    u = _check.count("suffix_tokens", suffix_tokens, "tokens")
    e = _check.instance("eff", eff, dm.Efficiencies)
    cold = dm.prefill_s(s + u, e, run=run)
    hot = prefill_chunk_s(u, s, e, run)
    whole = dm.prefill_work(s + u, run=run)
    saved = whole.layer_flops + whole.attention_flops - dm.prefill_work(u, run=run).layer_flops \
        - _chunk_attention_flops(u, s, run)
    return cold, hot, saved


@_check.finite
def kv_reload_s(tokens: int, kv_B_per_token: float, link_Bps: float) -> float:
    """Time to copy a request's KV cache of ``tokens`` tokens back to the GPU over a link of
    ``link_Bps`` bytes/s (host memory over PCIe, a CPU-GPU link, a disk): tokens x bytes / bandwidth.

    >>> kv_reload_s(2000, 131072, 55e9) * 1e3
    4.7662545454545455
    """
    n = _check.count("tokens", tokens, "tokens")
    kv = _check.positive("kv_B_per_token", kv_B_per_token, "bytes")
    return n * kv / _check.positive("link_Bps", link_Bps, "bytes/s")


@_check.finite
def kv_reload_breakeven_Bps(tokens: int, kv_B_per_token: float, eff: "dm.Efficiencies",
                            run: "dm.Run" = measurements.RUN) -> float:
    """The link bandwidth at which copying a request's KV cache back takes as long as recomputing
    its prefill (decode_model.prefill_s): tokens x bytes / t_prefill. A faster link should reload,
    a slower one recompute (vLLM V1 preempts by recomputing). Prefill grows faster than linearly in
    the tokens (attention), so the break-even bandwidth falls as the context grows.

    >>> round(kv_reload_breakeven_Bps(2000, 131072, dm.efficiencies()) / 1e9, 2)
    6.39
    """
    n = _check.count("tokens", tokens, "tokens")
    kv = _check.positive("kv_B_per_token", kv_B_per_token, "bytes")
    e = _check.instance("eff", eff, dm.Efficiencies)
    return n * kv / dm.prefill_s(n, e, run=run)
