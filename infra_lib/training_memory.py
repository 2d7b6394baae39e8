"""Training memory and its communication (chapter 7): mixed-precision Adam state per parameter,
per-GPU memory under data parallelism, ZeRO stages 1-3 and FSDP, activation memory per layer with
and without recomputation, and the collectives each choice adds to a step.

Sources: S. Rajbhandari, J. Rasley, O. Ruwase and Y. He, "ZeRO: Memory Optimizations Toward
Training Trillion Parameter Models", SC 2020, §3.1 (16 bytes per parameter: 2 + 2 + K with K = 12),
§5 and Figure 1 (the three stages), §7 (communication volume); V. Korthikanti et al., "Reducing
Activation Recomputation in Large Transformer Models", MLSys 2023 (arXiv:2205.05198), §4 and Table 2
(activation bytes per layer sbh(34 + 5as/h), with and without sequence parallelism); Y. Zhao et al., "PyTorch FSDP", VLDB 2023 (the
sharding factor F between 1 and the world size: hybrid sharding).
"""
from dataclasses import dataclass

from . import _check, collectives

# The ZeRO/Megatron convention (ZeRO §3.1): 16-bit working weights and gradients beside an FP32
# master copy held by the optimizer. The course's default split.
WEIGHT_B = 2            # BF16/FP16 weights used in forward and backward
GRAD_B = 2              # BF16/FP16 gradients
ADAM_STATE_B = 12       # FP32 master weights, momentum and variance: K = 12 (ZeRO §3.1)
# PyTorch's torch.autocast convention: the parameters stay FP32 (autocast casts per operator), so
# .grad is FP32 and Adam keeps only its two FP32 moments. The same 16 bytes, split 4 + 4 + 8; DDP
# all-reduces its buckets in the gradients' dtype (FP32) unless a compression hook is registered
# (torch.distributed.algorithms.ddp_comm_hooks.default_hooks.bf16_compress_hook).
AUTOCAST_WEIGHT_B = 4
AUTOCAST_GRAD_B = 4
AUTOCAST_ADAM_STATE_B = 8
LSE_B = 4               # FlashAttention's softmax statistic: one FP32 log-sum-exp per head and token
STAGES = (0, 1, 2, 3)   # 0: plain data parallelism (DDP)


@_check.finite
def bytes_per_param(stage: int = 0, shards: int = 1) -> float:
    """Bytes per parameter on each GPU under ZeRO ``stage`` sharded ``shards`` ways.

    Equation eq-zero-memory in chapter 7 (ZeRO §5, Figure 1), with Psi parameters and N_d shards:
    stage 0 (DDP): 2 + 2 + 12; stage 1 shards the optimizer state: 2 + 2 + 12/N_d; stage 2 also the
    gradients: 2 + (2 + 12)/N_d; stage 3 (= FSDP full sharding) everything: (2 + 2 + 12)/N_d.

    >>> bytes_per_param(0), bytes_per_param(1, 64), bytes_per_param(2, 64), bytes_per_param(3, 64)
    (16.0, 4.1875, 2.21875, 0.25)
    """
    s = STAGES[STAGES.index(_check.count("stage", stage, "", minimum=0))] if stage in STAGES else None
    if s is None:
        raise ValueError(f"stage must be 0, 1, 2 or 3 (ZeRO stage; 0 is plain data parallelism), got {stage!r}")
    n = _check.count("shards", shards, "GPUs")
    w, g, k = float(WEIGHT_B), float(GRAD_B), float(ADAM_STATE_B)
    if s == 0:
        return w + g + k
    if s == 1:
        return w + g + k / n
    if s == 2:
        return w + (g + k) / n
    return (w + g + k) / n


@_check.finite
def model_state_B(params: float, stage: int = 0, shards: int = 1) -> float:
    """Bytes of weights, gradients and Adam state on each GPU: Psi x bytes_per_param(stage, N_d).

    ZeRO's Figure 1 example, 7.5 B parameters on 64 GPUs: 120 GB, 31.4 GB, 16.6 GB, 1.9 GB.

    >>> [round(model_state_B(7.5e9, s, 64) / 1e9, 1) for s in STAGES]
    [120.0, 31.4, 16.6, 1.9]
    """
    p = _check.positive("params", params, "parameters")
    return p * bytes_per_param(stage, shards)


@_check.finite
def activation_B_per_layer(seq: int, micro_batch: int, hidden: int, heads: int,
                           recompute: str = "none", tensor_parallel: int = 1,
                           sequence_parallel: bool = False, attention: str = "materialized",
                           dropout: bool = True) -> float:
    """Activation bytes one transformer layer keeps for the backward pass (16-bit activations).

    Equation eq-activations in chapter 7. Korthikanti et al., "Reducing Activation Recomputation
    in Large Transformer Models" (MLSys 2023, arXiv:2205.05198), §4 and Table 2, with tensor
    parallelism of degree t:

    - ``sequence_parallel=False`` (tensor parallelism alone: the layer norms, dropouts and the
      layer's input are replicated on every GPU, 10 s b h of the 34 s b h):
      none: s b h (10 + 24/t + 5 a s / (h t)); selective: s b h (10 + 24/t);
      full (keep only the layer's input): 2 s b h (Table 2, "full activation recompute").
    - ``sequence_parallel=True`` (those replicated parts split along the sequence as well):
      none: s b h (34 + 5 a s / h) / t; selective: 34 s b h / t; full: 2 s b h / t (the division
      of the full term by t is an inference from Megatron's implementation, where the
      checkpointed input is the sequence-parallel shard; Table 2 has a single full row, 2 s b h).

    With t = 1 both give s b h (34 + 5 a s / h), 34 s b h and 2 s b h.

    ``attention="flash"``: a FlashAttention-class kernel never writes the score matrix; it keeps
    the output (already counted as the output projection's input) and one FP32 log-sum-exp per
    head and token, 4 a s b bytes (Dao et al. 2022, linear in s): the 5 a s / h term becomes 4 a / h,
    and selective recomputation has nothing left to drop. ``dropout=False`` (Llama has none) drops
    the two 1-byte dropout masks, s b h each, from the replicated part.

    >>> activation_B_per_layer(2048, 1, 4096, 32) / 2**20      # s b h = 8 Mi; 34 + 5*32*2048/4096 = 114
    912.0
    >>> activation_B_per_layer(2048, 1, 4096, 32, "full") / 2**20
    16.0
    >>> activation_B_per_layer(2048, 1, 4096, 32, "full", 8) / 2**20      # no sequence parallelism: 2 s b h
    16.0
    >>> activation_B_per_layer(2048, 1, 4096, 32, "full", 8, sequence_parallel=True) / 2**20
    2.0
    >>> activation_B_per_layer(2048, 1, 4096, 32, attention="flash", dropout=False) / 2**20   # 32 + 4*32/4096
    256.25
    """
    s = _check.count("seq", seq, "tokens")
    b = _check.count("micro_batch", micro_batch, "sequences")
    h = _check.count("hidden", hidden, "")
    a = _check.count("heads", heads, "heads")
    mode = _check.choice("recompute", recompute, ("none", "selective", "full"))
    t = _check.count("tensor_parallel", tensor_parallel, "GPUs")
    sp = _check.flag("sequence_parallel", sequence_parallel)
    flash = _check.choice("attention", attention, ("materialized", "flash")) == "flash"
    masks = 2 if _check.flag("dropout", dropout) else 0   # attention and MLP dropout masks, 1 byte each
    sbh = float(s) * b * h
    if mode == "full":
        return 2 * sbh / (t if sp else 1)
    kept = (34 - 2 + masks) / t if sp else (10 - 2 + masks) + 24 / t   # everything else a layer keeps
    if flash:
        return sbh * (kept + LSE_B * a / (h * t))     # no score matrix: the softmax statistics only
    if mode == "selective":
        return sbh * kept
    return sbh * (kept + 5 * a * s / (h * t))         # the score and softmax matrices, split by heads


@dataclass(frozen=True)
class FsdpPeak:
    """What does not shard on one GPU under FSDP with full checkpointing, at the backward's peak, in bytes."""
    checkpoints_B: float   # every layer's checkpointed input
    recompute_B: float     # one layer's activations, rebuilt by its recomputation in the backward pass
    gathered_B: float      # unsharded weights of the current and prefetched layers, and one layer's gradient
    logits_B: float        # the FP32 logits of the loss

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("checkpoints_B", "recompute_B", "gathered_B", "logits_B"):
            _check.non_negative(name, getattr(self, name), "bytes")

    @property
    def total_B(self) -> float:
        return self.checkpoints_B + self.recompute_B + self.gathered_B + self.logits_B


@_check.finite
def fsdp_peak(layers: int, seq: int, micro_batch: int, hidden: int, heads: int, layer_params: float,
              vocab: int, attention: str = "flash", dropout: bool = False, gathered_layers: int = 2,
              grad_layers: int = 1, logits_bytes: float = 4) -> FsdpPeak:
    """The unsharded memory of an FSDP step with full checkpointing, at the peak of the backward pass.

    L x 2 s b h of checkpoints (eq-activations, full), plus one layer's activations while its
    recomputation runs (eq-activations, nothing recomputed, with ``attention``), plus the gathered
    16-bit weights of ``gathered_layers`` layers (the current one and the prefetched one) and the
    unsharded gradient of ``grad_layers`` layers before its reduce-scatter, plus s b V FP32 logits.
    The embedding and output layers' own gathers and the allocator's fragmentation are left out.

    >>> p = fsdp_peak(2, 1024, 1, 1024, 8, 1e6, 1000)
    >>> p.checkpoints_B, p.recompute_B, p.gathered_B, p.logits_B
    (4194304.0, 33587200.0, 6000000.0, 4096000.0)
    """
    L = _check.count("layers", layers, "layers")
    lp = _check.positive("layer_params", layer_params, "parameters")
    v = _check.count("vocab", vocab, "tokens")
    gl = _check.count("gathered_layers", gathered_layers, "layers", minimum=0)
    rl = _check.count("grad_layers", grad_layers, "layers", minimum=0)
    lb = _check.positive("logits_bytes", logits_bytes, "bytes")
    ckpt = L * activation_B_per_layer(seq, micro_batch, hidden, heads, "full")
    layer = activation_B_per_layer(seq, micro_batch, hidden, heads, "none", attention=attention, dropout=dropout)
    tokens = float(seq) * micro_batch
    return FsdpPeak(ckpt, layer, lp * (gl * WEIGHT_B + rl * GRAD_B), tokens * v * lb)


@dataclass(frozen=True)
class GpuMemory:
    """Memory on one GPU of a data-parallel training job, by part, in bytes."""
    weights_B: float
    grads_B: float
    optimizer_B: float
    activations_B: float

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("weights_B", "grads_B", "optimizer_B", "activations_B"):
            _check.non_negative(name, getattr(self, name), "bytes")

    @property
    def total_B(self) -> float:
        return self.weights_B + self.grads_B + self.optimizer_B + self.activations_B

    @property
    def largest(self) -> str:
        """The name of the part that takes the most memory."""
        parts = {"weights": self.weights_B, "grads": self.grads_B, "optimizer": self.optimizer_B,
                 "activations": self.activations_B}
        return max(parts, key=lambda k: parts[k])


@_check.finite
def gpu_memory(params: float, layers: int, seq: int, micro_batch: int, hidden: int, heads: int,
               stage: int = 0, shards: int = 1, recompute: str = "none") -> GpuMemory:
    """Per-GPU memory of a data-parallel job: model state under ZeRO ``stage`` over ``shards``
    GPUs plus ``layers`` layers of activations (eq-zero-memory and eq-activations in chapter 7).

    Buffers, the all-gathered layer of stage 3, fragmentation and the CUDA context are left out.

    >>> m = gpu_memory(8e9, 32, 2048, 1, 4096, 32, stage=3, shards=8, recompute="full")
    >>> round(m.total_B / 1e9, 2), m.largest
    (16.54, 'optimizer')
    """
    p = _check.positive("params", params, "parameters")
    n = _check.count("shards", shards, "GPUs")
    w = p * WEIGHT_B / (n if stage == 3 else 1)
    g = p * GRAD_B / (n if stage >= 2 else 1)
    o = p * ADAM_STATE_B / (n if stage >= 1 else 1)
    bytes_per_param(stage, n)   # validates the stage
    act = _check.count("layers", layers, "layers") * activation_B_per_layer(seq, micro_batch, hidden, heads,
                                                                            recompute)
    return GpuMemory(w, g, o, act)


@_check.finite
def min_shard_degree(params: float, capacity_B: float, other_B: float = 0.0, max_degree: int = 1024) -> int:
    """The smallest power-of-two FSDP sharding degree F at which (2+2+12) Psi / F + other fits.

    FSDP's hybrid sharding shards within groups of F GPUs and replicates across groups (Zhao et
    al. 2023, §3.2.1); a smaller F keeps the all-gathers inside a faster domain. ``other_B`` is
    what does not shard (activations, buffers).

    >>> min_shard_degree(70e9, 141e9, 20e9)       # 1120 GB of state, 121 GB free: 16
    16
    """
    p = _check.positive("params", params, "parameters")
    cap = _check.positive("capacity_B", capacity_B, "bytes")
    other = _check.non_negative("other_B", other_B, "bytes")
    top = _check.count("max_degree", max_degree, "GPUs")
    f = 1
    while f <= top:
        if p * bytes_per_param(3, f) + other <= cap:
            return f
        f *= 2
    raise ValueError(f"params: {p:.3g} parameters with {other:.3g} B of other memory do not fit in "
                     f"capacity_B = {cap:.3g} B at any sharding degree up to max_degree = {top}")


@dataclass(frozen=True)
class StepComm:
    """Bytes each GPU sends per training step and the ring time at a given bandwidth."""
    sent_B: float
    time_s: float

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.non_negative("sent_B", self.sent_B, "bytes")
        _check.non_negative("time_s", self.time_s, "s")


@_check.finite
def data_parallel_comm(params: float, ranks: int, bandwidth_Bps: float, stage: int = 0,
                       grad_bytes: float = GRAD_B) -> StepComm:
    """Per-step communication of data parallelism with ZeRO ``stage``, ring collectives.

    DDP and stages 1-2: one all-reduce of the gradients (as reduce-scatter + all-gather), 2 Psi
    bytes in total, 2(n-1)/n x 2 Psi sent per GPU. Stage 3 / FSDP: all-gather the weights in the
    forward pass and again in the backward pass, reduce-scatter the gradients: 3 x (n-1)/n x 2 Psi,
    1.5 times DDP (ZeRO §7.2.2).

    >>> c0, c3 = data_parallel_comm(1e9, 8, 450e9), data_parallel_comm(1e9, 8, 450e9, 3)
    >>> c0.sent_B / 1e9, c3.sent_B / 1e9, round(c3.time_s / c0.time_s, 2)
    (3.5, 5.25, 1.5)
    """
    p = _check.positive("params", params, "parameters")
    n = _check.count("ranks", ranks, "GPUs")
    bw = _check.positive("bandwidth_Bps", bandwidth_Bps, "B/s")
    size = p * _check.positive("grad_bytes", grad_bytes, "bytes")
    bytes_per_param(stage, n)
    if stage < 3:
        return StepComm(collectives.bytes_sent_per_rank_B("all_reduce", size, n),
                        collectives.ring_all_reduce_s(size, n, bw))
    sent = 2 * collectives.bytes_sent_per_rank_B("all_gather", size, n) \
        + collectives.bytes_sent_per_rank_B("reduce_scatter", size, n)
    t = 2 * collectives.ring_all_gather_s(size, n, bw) + collectives.ring_reduce_scatter_s(size, n, bw)
    return StepComm(sent, t)


@_check.finite
def tensor_parallel_comm(tokens: int, hidden: int, layers: int, ranks: int, bandwidth_Bps: float,
                         bytes_per_value: float = 2) -> StepComm:
    """Per-step communication of Megatron tensor parallelism: 4 all-reduces per layer (2 in the
    forward pass, 2 in the backward), each of the layer's activations, tokens x hidden values.

    Shoeybi et al. 2019, §3 (the f and g operators); ring all-reduce from chapter 6.

    >>> round(tensor_parallel_comm(4096, 4096, 1, 8, 450e9).sent_B / 2**20, 1)   # 4 x 1.75 x 32 MiB
    224.0
    """
    t = _check.count("tokens", tokens, "tokens")
    h = _check.count("hidden", hidden, "")
    L = _check.count("layers", layers, "layers")
    n = _check.count("ranks", ranks, "GPUs")
    bw = _check.positive("bandwidth_Bps", bandwidth_Bps, "B/s")
    size = float(t) * h * _check.positive("bytes_per_value", bytes_per_value, "bytes")
    k = 4 * L
    return StepComm(k * collectives.bytes_sent_per_rank_B("all_reduce", size, n),
                    k * collectives.ring_all_reduce_s(size, n, bw))


@dataclass(frozen=True)
class TeachingShape:
    """A dense transformer's layers, width and heads for a given parameter count (a teaching
    assumption for the widget): P ~ 12 L h^2 (attention 4h^2 + a 4h-wide MLP 8h^2 per layer,
    embeddings left out), width h = 128 L as in Llama 3 8B (4096 = 128 x 32), rounded to a multiple
    of 128, and heads of 128 dimensions."""
    layers: int
    hidden: int
    heads: int

    def __post_init__(self) -> None:
        _check.fields(self)


@_check.finite
def teaching_shape(params: float) -> TeachingShape:
    """The widget's shape for ``params`` parameters: h = (128 x P / 12)^(1/3), L = P / (12 h^2).

    >>> teaching_shape(8e9)
    TeachingShape(layers=35, hidden=4352, heads=34)
    """
    p = _check.positive("params", params, "parameters")
    h = max(128, round((128 * p / 12) ** (1 / 3) / 128) * 128)
    return TeachingShape(max(1, round(p / (12 * h * h))), h, h // 128)
