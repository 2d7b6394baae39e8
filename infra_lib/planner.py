"""How many GPUs a model needs to serve: weights, KV cache, the engine's runtime memory, a
headroom share, and the tensor-parallel degrees that split the model evenly.

Memory per replica = weights + KV cache + runtime + headroom, and it must fit in the GPUs' memory,
read as the bytes a program can use on each GPU (:func:`infra_lib.hardware.usable_memory_B`: the
total CUDA reports where the course has it, else the datasheet's nominal binary capacity):

- weights = parameters x bytes per parameter (2 for BF16, 1 for FP8, 0.5 for INT4); a
  mixture-of-experts model keeps every expert resident, so this counts its *total* parameters;
- KV cache = 2 (K and V) x layers x KV heads x head_dim x bytes per value x batch x context
  (grouped-query attention caches ``n_kv_heads`` heads, not ``n_heads``);
- runtime, per GPU: the activations of the largest forward pass the engine schedules, CUDA
  graphs, and memory CUDA holds outside PyTorch (context, workspaces, communication buffers).
  ``RUNTIME_B`` = 5 GiB is a teaching value rounded up from vLLM's own profile on an H100
  (registry ``h100_sxm5.vllm_activation_peak_B`` + ``vllm_non_torch_B``: 4.76 + 0.13 GiB);
- headroom: the share of each GPU's memory the engine leaves alone, for other processes and
  the allocator's fragmentation. ``OVERHEAD_FRACTION`` = 0.1 matches vLLM's default
  ``gpu_memory_utilization = 0.9`` (vLLM engine arguments): vLLM budgets 90% of each GPU for
  weights + profiled activation peak + CUDA graphs + non-torch memory, and the KV cache gets
  what is left of that budget. The 10% is not where the activations go.

Tensor parallelism (Shoeybi et al. 2019, "Megatron-LM", section 3) splits the attention heads
across GPUs, so the degree must divide the number of query heads and of KV heads.

Llama-3-70B in BF16, batch 1, 4,096 tokens of context, on 80 GB GPUs:

>>> from infra_lib import models
>>> plan = gpus_needed(models.LLAMA3_70B, 80e9)
>>> plan.gpus, round(plan.weights_B / 1e9, 1), round(plan.kv_B / 1e9, 2)
(3, 141.1, 1.34)
"""
import math
from dataclasses import dataclass

from . import _check, units
from .models import ModelShape

OVERHEAD_FRACTION = 0.1
"""Teaching assumption: the headroom, the share of each GPU's memory the engine leaves to other
processes and to fragmentation (vLLM's default ``gpu_memory_utilization`` is 0.9). The engine's
own activations and CUDA graphs come out of the other 90% (:data:`RUNTIME_B`)."""

RUNTIME_B = 5 * units.GiB
"""Teaching value: the engine's runtime memory per GPU (activation peak of the profiled forward
pass, CUDA graphs, non-torch memory), rounded up from vLLM's profile of Llama-3.1-8B on an H100
(4.76 GiB activation peak + 0.13 GiB non-torch; llm-d-benchmark's vLLM logs, registry
``h100_sxm5.vllm_activation_peak_B`` and ``vllm_non_torch_B``). It grows with the engine's
batched-token budget (``max_num_batched_tokens``), not with the KV cache."""

_KEPT_BACK = "a share of each GPU's memory kept back"   # what overhead_fraction is, in its error message


def _per_gpu_B(gpu_mem_B: float, overhead_fraction: float, runtime_B: float) -> float:
    """Bytes per GPU for weights and KV cache: (1 - headroom share) x memory - runtime (<= 0 when
    the runtime alone fills the engine's share)."""
    mem = _check.positive("gpu_mem_B", gpu_mem_B, "bytes")
    share = _check.share("overhead_fraction", overhead_fraction, _KEPT_BACK, below_one=True)
    rt = _check.non_negative("runtime_B", runtime_B, "bytes")
    return (1 - share) * mem - rt       # may be <= 0: the runtime alone fills the GPU


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

    ``runtime_B`` is the engine's runtime memory on the GPUs counted (gpus x ``runtime_B`` per
    GPU); ``overhead_B`` the headroom (``overhead_fraction`` x gpus x memory); ``total_B`` =
    weights + KV + runtime + headroom; ``limit`` names the larger of weights and KV cache.
    """
    weights_B: float
    kv_B: float
    runtime_B: float
    overhead_B: float
    total_B: float
    gpus: int
    limit: str

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def gpus_needed(shape: ModelShape, gpu_mem_B: float, bytes_per_param: float = 2, batch: int = 1,
                context: float = 4096, kv_bytes_per_value: float = 2,
                overhead_fraction: float = OVERHEAD_FRACTION, runtime_B: float = RUNTIME_B) -> Plan:
    """GPUs for one replica: ceil((weights + KV) / ((1 - overhead_fraction) x memory - runtime)).

    Equation eq-gpus-needed in chapter 4. ``gpu_mem_B`` is the bytes a program can use on one
    GPU (:func:`infra_lib.hardware.usable_memory_B`); ``runtime_B`` is charged on every GPU.
    The count is for memory only; round it up to a tensor-parallel degree that divides the heads
    (:func:`smallest_valid_tensor_parallel`).

    Llama-3-70B, BF16, batch 1, 4,096 tokens on 80 GB: (141.1 + 1.3) GB / (72 - 5.4) GB -> 3 GPUs;
    without the runtime term, 2.

    >>> from infra_lib import models
    >>> gpus_needed(models.LLAMA3_70B, 80e9).gpus, gpus_needed(models.LLAMA3_70B, 80e9, runtime_B=0).gpus
    (3, 2)
    """
    room = _per_gpu_B(gpu_mem_B, overhead_fraction, runtime_B)
    if room <= 0:
        raise ValueError(f"runtime_B = {runtime_B:,.0f} bytes leaves nothing of (1 - overhead_fraction) x "
                         f"gpu_mem_B = {(1 - overhead_fraction) * gpu_mem_B:,.0f} bytes for weights and KV cache")
    w = shape.weight_B(bytes_per_param)
    kv = kv_cache_B(shape, batch, context, kv_bytes_per_value)
    gpus = max(1, math.ceil((w + kv) / room - 1e-12))
    reserve = overhead_fraction * gpus * gpu_mem_B
    runtime = runtime_B * gpus
    return Plan(weights_B=w, kv_B=kv, runtime_B=runtime, overhead_B=reserve, total_B=w + kv + runtime + reserve,
                gpus=gpus, limit="weights" if w >= kv else "kv_cache")


@_check.finite
def kv_budget_B(shape: ModelShape, gpu_mem_B: float, gpus: int = 1, bytes_per_param: float = 2,
                overhead_fraction: float = OVERHEAD_FRACTION, runtime_B: float = RUNTIME_B) -> float:
    """Bytes left for the KV cache, as vLLM sizes it: gpus x ((1 - overhead_fraction) x memory
    - runtime) - weights (0 if negative).

    Llama-3-8B in BF16 on one 80 GB GPU: 72 - 5.37 - 16.06 = 50.57 GB.

    >>> from infra_lib import models
    >>> round(kv_budget_B(models.LLAMA3_8B, 80e9) / 1e9, 2), round(kv_budget_B(models.LLAMA3_8B, 80e9, runtime_B=0) / 1e9, 2)
    (50.57, 55.94)
    """
    room = _per_gpu_B(gpu_mem_B, overhead_fraction, runtime_B)
    n = _check.count("gpus", gpus, "GPUs")
    weights = shape.weight_B(bytes_per_param)          # checked even when no room is left
    return max(0.0, n * room - weights) if room > 0 else 0.0


@_check.finite
def max_tokens(shape: ModelShape, gpu_mem_B: float, gpus: int = 1, bytes_per_param: float = 2,
               kv_bytes_per_value: float = 2, overhead_fraction: float = OVERHEAD_FRACTION,
               runtime_B: float = RUNTIME_B) -> int:
    """Most tokens of KV cache that fit (summed over every sequence of the batch):
    floor(KV budget / KV bytes per token).

    Llama-3-8B in BF16 on one 80 GB GPU: 50,570,718,384 B / 131,072 B = 385,824 tokens.

    >>> from infra_lib import models
    >>> max_tokens(models.LLAMA3_8B, 80e9)
    385824
    """
    _check.instance("shape", shape, ModelShape)
    budget = kv_budget_B(shape, gpu_mem_B, gpus, bytes_per_param, overhead_fraction, runtime_B)
    return int(budget // shape.kv_B_per_token(kv_bytes_per_value))


@_check.finite
def max_batch(shape: ModelShape, gpu_mem_B: float, gpus: int = 1, bytes_per_param: float = 2,
              context: float = 4096, kv_bytes_per_value: float = 2,
              overhead_fraction: float = OVERHEAD_FRACTION, runtime_B: float = RUNTIME_B) -> int:
    """Largest batch of ``context``-token sequences whose KV cache fits: floor(max tokens / context).

    0 means not even one sequence fits (or the weights alone do not). Llama-3-8B in BF16 on
    one 80 GB GPU at 4,096 tokens: 385,824 / 4,096 -> 94 sequences.

    >>> from infra_lib import models
    >>> max_batch(models.LLAMA3_8B, 80e9), max_batch(models.LLAMA3_70B, 80e9)
    (94, 0)
    """
    ctx = _check.positive("context", context, "tokens")
    return int(max_tokens(shape, gpu_mem_B, gpus, bytes_per_param, kv_bytes_per_value,
                          overhead_fraction, runtime_B) // ctx)


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
