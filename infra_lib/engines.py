"""Inference engines (chapter 7): static against continuous batching, the KV cache with and
without pages, prefix caching, and the CPU work of one engine step.

Sources: G.-I. Yu et al., "Orca: A Distributed Serving System for Transformer-Based Generative
Models", OSDI 2022 (iteration-level scheduling, which vLLM, SGLang and TensorRT-LLM call continuous
or in-flight batching); W. Kwon et al., "Efficient Memory Management for Large Language Model
Serving with PagedAttention", SOSP 2023, §3 and §4.2 (reservation, internal and external
fragmentation; blocks of a fixed number of tokens); L. Zheng et al., "SGLang", 2024 (RadixAttention:
the KV cache of shared prefixes kept in a radix tree and reused).
"""
from collections.abc import Sequence
from dataclasses import dataclass

from . import _check


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
