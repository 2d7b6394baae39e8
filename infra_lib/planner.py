"""How many GPUs a model needs to serve: weights, KV cache, a runtime reserve, and the
tensor-parallel degrees that split the model evenly.

Memory per replica = weights + KV cache + runtime overhead, and it must fit in the GPUs' memory:

- weights = parameters x bytes per parameter (2 for BF16, 1 for FP8, 0.5 for INT4); a
  mixture-of-experts model keeps every expert resident, so this counts its *total* parameters;
- KV cache = 2 (K and V) x layers x KV heads x head_dim x bytes per value x batch x context
  (grouped-query attention caches ``n_kv_heads`` heads, not ``n_heads``);
- overhead: the share of each GPU's memory kept back for the CUDA context, activations,
  the allocator's fragmentation and communication buffers. ``OVERHEAD_FRACTION`` = 0.1 is a
  teaching assumption, chosen to match vLLM's default ``gpu_memory_utilization = 0.9``
  (vLLM engine arguments), which lets the engine use 90% of each GPU's memory.

Tensor parallelism (Shoeybi et al. 2019, "Megatron-LM", section 3) splits the attention heads
across GPUs, so the degree must divide the number of query heads and of KV heads.

Llama-3-70B in BF16, batch 1, 4,096 tokens of context, on 80 GB GPUs:

>>> from infra_lib import models
>>> plan = gpus_needed(models.LLAMA3_70B, 80e9)
>>> plan.gpus, round(plan.weights_B / 1e9, 1), round(plan.kv_B / 1e9, 2)
(2, 141.1, 1.34)
"""
import math
from dataclasses import dataclass

from . import _check
from .models import ModelShape

OVERHEAD_FRACTION = 0.1
"""Teaching assumption: the share of each GPU's memory not available for weights and KV cache
(vLLM's default ``gpu_memory_utilization`` is 0.9)."""

_KEPT_BACK = "a share of each GPU's memory kept back"   # what overhead_fraction is, in its error message


@_check.finite
def kv_cache_B(shape: ModelShape, batch: int, context: float, bytes_per_value: float = 2) -> float:
    """KV-cache bytes: 2 x layers x KV heads x head_dim x bytes per value x batch x context.

    Grouped-query attention counted right: only the ``n_kv_heads`` heads are cached. Llama-3-8B
    caches 131,072 bytes per token in BF16 (8 KV heads, not 32), so 4,096 tokens take 0.54 GB.

    >>> from infra_lib import models
    >>> kv_cache_B(models.LLAMA3_8B, 1, 4096) / 1e9
    0.536870912
    """
    _check.instance("shape", shape, ModelShape)
    return (shape.kv_B_per_token(bytes_per_value) * _check.count("batch", batch, "sequences")
            * _check.non_negative("context", context, "tokens"))


@dataclass(frozen=True)
class Plan:
    """Memory of one model replica and the GPUs it needs.

    ``overhead_B`` is the reserve on the GPUs counted (``overhead_fraction`` x gpus x memory);
    ``total_B`` = weights + KV + overhead; ``limit`` names the larger of weights and KV cache.
    """
    weights_B: float
    kv_B: float
    overhead_B: float
    total_B: float
    gpus: int
    limit: str

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def gpus_needed(shape: ModelShape, gpu_mem_B: float, bytes_per_param: float = 2, batch: int = 1,
                context: float = 4096, kv_bytes_per_value: float = 2,
                overhead_fraction: float = OVERHEAD_FRACTION) -> Plan:
    """GPUs for one replica: ceil((weights + KV) / ((1 - overhead_fraction) x memory per GPU)).

    Equation eq-gpus-needed in chapter 4. The count is for memory only; round it up to a
    tensor-parallel degree that divides the heads (:func:`smallest_valid_tensor_parallel`).

    Llama-3-70B, BF16, batch 1, 4,096 tokens on 80 GB: (141.1 + 1.3) GB / 72 GB -> 2 GPUs.

    >>> from infra_lib import models
    >>> gpus_needed(models.LLAMA3_70B, 80e9).gpus, gpus_needed(models.LLAMA3_70B, 80e9, batch=64).gpus
    (2, 4)
    """
    mem = _check.positive("gpu_mem_B", gpu_mem_B, "bytes")
    share = _check.share("overhead_fraction", overhead_fraction, _KEPT_BACK, below_one=True)
    w = shape.weight_B(bytes_per_param)
    kv = kv_cache_B(shape, batch, context, kv_bytes_per_value)
    gpus = max(1, math.ceil((w + kv) / ((1 - share) * mem) - 1e-12))
    reserve = share * gpus * mem
    return Plan(weights_B=w, kv_B=kv, overhead_B=reserve, total_B=w + kv + reserve, gpus=gpus,
                limit="weights" if w >= kv else "kv_cache")


@_check.finite
def kv_budget_B(shape: ModelShape, gpu_mem_B: float, gpus: int = 1, bytes_per_param: float = 2,
                overhead_fraction: float = OVERHEAD_FRACTION) -> float:
    """Bytes left for the KV cache: gpus x memory x (1 - overhead_fraction) - weights (0 if negative).

    Llama-3-8B in BF16 on one 80 GB GPU: 72 - 16.06 = 55.94 GB.

    >>> from infra_lib import models
    >>> round(kv_budget_B(models.LLAMA3_8B, 80e9) / 1e9, 2)
    55.94
    """
    mem = _check.positive("gpu_mem_B", gpu_mem_B, "bytes")
    n = _check.count("gpus", gpus, "GPUs")
    usable = n * mem * (1 - _check.share("overhead_fraction", overhead_fraction, _KEPT_BACK, below_one=True))
    return max(0.0, usable - shape.weight_B(bytes_per_param))


@_check.finite
def max_tokens(shape: ModelShape, gpu_mem_B: float, gpus: int = 1, bytes_per_param: float = 2,
               kv_bytes_per_value: float = 2, overhead_fraction: float = OVERHEAD_FRACTION) -> int:
    """Most tokens of KV cache that fit (summed over every sequence of the batch):
    floor(KV budget / KV bytes per token).

    Llama-3-8B in BF16 on one 80 GB GPU: 55,939,477,504 B / 131,072 B = 426,784 tokens.

    >>> from infra_lib import models
    >>> max_tokens(models.LLAMA3_8B, 80e9)
    426784
    """
    _check.instance("shape", shape, ModelShape)
    budget = kv_budget_B(shape, gpu_mem_B, gpus, bytes_per_param, overhead_fraction)
    return int(budget // shape.kv_B_per_token(kv_bytes_per_value))


@_check.finite
def max_batch(shape: ModelShape, gpu_mem_B: float, gpus: int = 1, bytes_per_param: float = 2,
              context: float = 4096, kv_bytes_per_value: float = 2,
              overhead_fraction: float = OVERHEAD_FRACTION) -> int:
    """Largest batch of ``context``-token sequences whose KV cache fits: floor(max tokens / context).

    0 means not even one sequence fits (or the weights alone do not). Llama-3-8B in BF16 on
    one 80 GB GPU at 4,096 tokens: 426,784 / 4,096 -> 104 sequences.

    >>> from infra_lib import models
    >>> max_batch(models.LLAMA3_8B, 80e9), max_batch(models.LLAMA3_70B, 80e9)
    (104, 0)
    """
    ctx = _check.positive("context", context, "tokens")
    return int(max_tokens(shape, gpu_mem_B, gpus, bytes_per_param, kv_bytes_per_value,
                          overhead_fraction) // ctx)


@dataclass(frozen=True)
class TensorParallel:
    """Whether a tensor-parallel degree splits a model's heads evenly, and why not."""
    degree: int
    valid: bool
    reason: str

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def valid_tensor_parallel(shape: ModelShape, degree: int) -> TensorParallel:
    """Tensor parallelism gives each GPU n_heads / degree query heads and n_kv_heads / degree
    KV heads, so ``degree`` must divide both (Megatron-LM, section 3: heads are split across GPUs).

    Serving engines work around a degree above the KV-head count by copying KV heads (vLLM
    replicates them when the degree is a multiple of ``n_kv_heads``); this function states the
    strict rule, under which nothing is stored twice.

    >>> from infra_lib import models
    >>> valid_tensor_parallel(models.LLAMA3_70B, 8).valid, valid_tensor_parallel(models.LLAMA3_70B, 16).valid
    (True, False)
    >>> valid_tensor_parallel(models.LLAMA3_70B, 3).reason
    'degree 3 does not divide the 64 attention heads (64 / 3 is not whole)'
    """
    _check.instance("shape", shape, ModelShape)
    d = _check.count("degree", degree, "GPUs")
    if shape.n_heads % d:
        return TensorParallel(d, False, f"degree {d} does not divide the {shape.n_heads} attention heads "
                                        f"({shape.n_heads} / {d} is not whole)")
    if shape.n_kv_heads % d:
        return TensorParallel(d, False, f"degree {d} does not divide the {shape.n_kv_heads} KV heads "
                                        f"({shape.n_kv_heads} / {d} is not whole)")
    return TensorParallel(d, True, f"each GPU holds {shape.n_heads // d} attention heads "
                                   f"and {shape.n_kv_heads // d} KV heads")


@_check.finite
def smallest_valid_tensor_parallel(shape: ModelShape, gpus: int) -> int:
    """The smallest degree >= ``gpus`` that divides both head counts, or 0 if none does
    (more GPUs than KV heads).

    >>> from infra_lib import models
    >>> smallest_valid_tensor_parallel(models.LLAMA3_70B, 3), smallest_valid_tensor_parallel(models.LLAMA3_70B, 9)
    (4, 0)
    """
    _check.instance("shape", shape, ModelShape)
    n = _check.count("gpus", gpus, "GPUs")
    for d in range(n, shape.n_kv_heads + 1):
        if valid_tensor_parallel(shape, d).valid:
            return d
    return 0
