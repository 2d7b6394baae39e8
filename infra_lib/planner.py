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
from collections.abc import Sequence
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
    total = charged_B(shape, gpu_mem_B, gpus, bytes_per_param, batch, context, kv_bytes_per_value,
                      overhead_fraction, runtime_B)
    return Plan(weights_B=w, kv_B=kv, runtime_B=runtime, overhead_B=reserve, total_B=total,
                gpus=gpus, limit="weights" if w >= kv else "kv_cache")


@_check.finite
def charged_B(shape: ModelShape, gpu_mem_B: float, gpus: int, bytes_per_param: float = 2, batch: int = 1,
              context: float = 4096, kv_bytes_per_value: float = 2,
              overhead_fraction: float = OVERHEAD_FRACTION, runtime_B: float = RUNTIME_B) -> float:
    """What eq-gpus-needed charges a replica on ``gpus`` GPUs: weights + KV cache + on every GPU its
    runtime and the headroom share of its memory (:func:`gpus_needed`'s ``total_B`` at its count).

    Llama-3-70B, BF16, batch 1, 4,096 tokens, on two 80 GB GPUs: 141.1 + 1.3 + 2 x (5.37 + 8) GB.

    >>> from infra_lib import models
    >>> round(charged_B(models.LLAMA3_70B, 80e9, 2) / 1e9, 1)
    169.2
    """
    n = _check.count("gpus", gpus, "GPUs")
    mem = _check.positive("gpu_mem_B", gpu_mem_B, "bytes")
    share = _check.share("overhead_fraction", overhead_fraction, _KEPT_BACK, below_one=True)
    rt = _check.non_negative("runtime_B", runtime_B, "bytes")
    return (shape.weight_B(bytes_per_param) + kv_cache_B(shape, batch, context, kv_bytes_per_value)
            + n * (rt + share * mem))


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


@_check.finite
def rule_of_thumb_B(params: float, bytes_per_param: float, overhead_share: float) -> float:
    """A rule of thumb for serving memory, named as such: the weights and a fixed share on top,
    M = P x b x (1 + o), written P b + r P b (r = o) in equation eq-rule-of-thumb of chapter 4.

    Source: S. Stoelinga, "Calculating GPU memory for serving LLMs" (Substratus blog, 2023),
    M = (P x 4 bytes) / (32 / Q) x 1.2, the weights at Q bits and 20% for everything else (registry
    ``serving_memory_rule.overhead_share``). It is not this module's model: the share is the same at
    any batch and context, where :func:`gpus_needed` adds the KV cache of the batch, the engine's
    runtime on every GPU and a headroom share. Llama 70B in 16 bits: 70e9 x 2 x 1.2 = 168 GB.

    >>> round(rule_of_thumb_B(70e9, 2, 0.2) / 1e9, 1)
    168.0
    """
    p = _check.positive("params", params, "parameters")
    b = _check.positive("bytes_per_param", bytes_per_param, "bytes")
    o = _check.non_negative("overhead_share", overhead_share, "(a share of the weights)")
    return p * b * (1 + o)


@_check.finite
def rule_of_thumb_gpus(params: float, gpu_mem_B: float, bytes_per_param: float, overhead_share: float) -> int:
    """GPUs by the rule of thumb: ceil(P x b x (1 + o) / M), the whole memory of each GPU counted
    (:func:`rule_of_thumb_B`). Llama 70B in 16 bits on 80 GB GPUs: ceil(168 / 80) = 3.

    >>> rule_of_thumb_gpus(70e9, 80e9, 2, 0.2)
    3
    """
    m = _check.positive("gpu_mem_B", gpu_mem_B, "bytes")
    return max(1, math.ceil(rule_of_thumb_B(params, bytes_per_param, overhead_share) / m - 1e-12))


TPU_V5E_SLICES: tuple[tuple[int, ...], ...] = ((1, 1), (2, 2), (2, 4), (4, 4), (4, 8), (8, 8), (8, 16), (16, 16))
"""The 2D slice shapes of a TPU v5e pod (a 16 x 16 torus), chips along each axis: Google Cloud's
TPU v5e documentation, "Configurations" (registry source ``gcloud_tpu_v5e``)."""

TPU_V5P_SLICES: tuple[tuple[int, ...], ...] = ((2, 2, 1), (2, 2, 2), (2, 4, 4), (4, 4, 4), (4, 4, 8), (4, 8, 8),
                                               (8, 8, 8), (8, 8, 16), (8, 16, 16), (16, 16, 16), (16, 16, 24))
"""The most common 3D slice shapes of a TPU v5p pod (a 4 x 4 x 4 cube and multiples of it): Google
Cloud's TPU v5p documentation, "Configurations" (registry source ``gcloud_tpu_v5p``). The list is not
exhaustive at any size: the page's table gives the most common shapes and most, not all, of those
larger than one cube, and other accelerator types exist below one cube as well (v5p-32, 16 chips,
falls between 2 x 2 x 2 and 2 x 4 x 4), so a slice picked from it can be larger than the smallest
one Google offers. Slices smaller than a cube are meshes without wraparound; from 4 x 4 x 4 up
they are full 3D tori."""


@_check.finite
def gpu_node_slices(node_gpus: int, max_nodes: int) -> tuple[tuple[int, ...], ...]:
    """The slices of GPU nodes a job can take, as (nodes, GPUs per node): inside one node the powers
    of two that divide its ``node_gpus`` (1 x 1, 1 x 2, 1 x 4, 1 x 8: the degrees tensor parallelism
    takes), then whole nodes (2 x 8 ... ``max_nodes`` x 8).

    >>> gpu_node_slices(8, 3)
    ((1, 1), (1, 2), (1, 4), (1, 8), (2, 8), (3, 8))
    """
    g = _check.count("node_gpus", node_gpus, "GPUs per node")
    n = _check.count("max_nodes", max_nodes, "nodes")
    if n > 1_000_000:
        raise ValueError(f"max_nodes must be at most 1,000,000 nodes, got {n:,}")
    inside = tuple((1, k) for k in (2 ** i for i in range(g.bit_length())) if k < g and g % k == 0)
    return inside + tuple((m, g) for m in range(1, n + 1))


@dataclass(frozen=True)
class Slice:
    """The smallest slice that holds a model: its shape (chips along each axis of a torus, or nodes x
    GPUs per node), its chips, the chips' worth of memory the model needs (a fraction: no slice
    offers 2.4 chips) and the share of the slice's memory it fills."""
    shape: tuple[int, ...]
    chips: int
    chips_needed: float
    fill: float

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def smallest_slice(need_B: float, chip_mem_B: float, shapes: Sequence[Sequence[int]]) -> Slice:
    """The slice with the fewest chips whose memory holds ``need_B`` (weights and KV cache).

    Equation eq-smallest-slice in chapter 8: chips needed = need / m, a fraction reported as it is;
    the slice is the smallest of ``shapes`` (:data:`TPU_V5E_SLICES`, :data:`TPU_V5P_SLICES`,
    :func:`gpu_node_slices`) with prod(shape) x m >= need. Memory only: whether the model's heads
    split evenly over the slice (:func:`valid_tensor_parallel`), the runtime and headroom
    (:func:`gpus_needed`) and the speed are other questions.

    227 GB on 16 GB chips: 14.2 chips' worth; the smallest v5e slice is 4 x 4, 89% full.

    >>> s = smallest_slice(227e9, 16e9, TPU_V5E_SLICES)
    >>> s.shape, s.chips, round(s.chips_needed, 1), round(s.fill, 2)
    ((4, 4), 16, 14.2, 0.89)
    """
    need = _check.positive("need_B", need_B, "bytes")
    m = _check.positive("chip_mem_B", chip_mem_B, "bytes")
    if isinstance(shapes, (str, bytes)) or not isinstance(shapes, Sequence) or not shapes:
        raise TypeError(f"shapes must be a non-empty sequence of slice shapes such as ((1, 1), (2, 2)), got {shapes!r}")
    options = []
    for shape in shapes:
        if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence) or not shape:
            raise TypeError(f"shapes: each shape must be a non-empty sequence of chip counts per axis, got {shape!r}")
        axes = tuple(_check.count("shapes", a, "chips along an axis") for a in shape)
        options.append((math.prod(axes), axes))
    fitting = [(chips, axes) for chips, axes in options if chips * m >= need]
    if not fitting:
        biggest = max(c for c, _ in options)
        raise ValueError(f"need_B = {need:.4g} B does not fit the largest of the shapes, {biggest} chips of "
                         f"chip_mem_B = {m:.4g} B ({need / m:.1f} chips' worth needed)")
    chips, axes = min(fitting)
    return Slice(axes, chips, need / m, need / (chips * m))

