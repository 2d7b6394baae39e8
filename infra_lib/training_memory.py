"""Training memory and its communication (chapter 7): mixed-precision Adam state per parameter,
per-GPU memory under data parallelism, ZeRO stages 1-3 and FSDP, activation memory per layer with
and without recomputation, and the collectives each choice adds to a step.

Sources: S. Rajbhandari, J. Rasley, O. Ruwase and Y. He, "ZeRO: Memory Optimizations Toward
Training Trillion Parameter Models", SC 2020, §3.1 (16 bytes per parameter: 2 + 2 + K with K = 12),
§5 and Figure 1 (the three stages), §7 (communication volume); V. Korthikanti et al., "Reducing
Activation Recomputation in Large Transformer Models", MLSys 2023 (arXiv:2205.05198), §4 and Table 2
(activation bytes per layer sbh(34 + 5as/h), with and without sequence parallelism); Y. Zhao et al., "PyTorch FSDP", VLDB 2023 (the
sharding factor F between 1 and the world size: hybrid sharding). Optimizer state per parameter:
D. P. Kingma and J. Ba, "Adam", ICLR 2015, Algorithm 1 (two moments); T. Dettmers, M. Lewis, S.
Shleifer and L. Zettlemoyer, "8-bit Optimizers via Block-wise Quantization", ICLR 2022, §2 (two
8-bit states, one absmax per block of 2,048; bitsandbytes uses blocks of 256 since release 0.44,
pull request 1365, "Change 8bit optimizer blocksize 2048->256"); N. Shazeer and M. Stern, "Adafactor: Adaptive Learning
Rates with Sublinear Memory Cost", ICML 2018, §3 (a factored second moment: row and column sums).
"""
import math
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
FP32_B = 4              # one FP32 value: a master weight, a moment, a block's absmax
MASTER_B = FP32_B       # the FP32 master copy kept beside 16-bit working weights (0 when the weights are FP32)
OPTIMIZERS = ("adam", "sgd_momentum", "adam_8bit", "adafactor")
ADAM_MOMENTS_B = 2 * FP32_B   # Adam's two FP32 moments, without the master copy: ADAM_STATE_B = MASTER_B + this
ADAM_8BIT_BLOCK = 2048  # values per quantization block of an 8-bit state (Dettmers et al. 2022, §2)
BNB_8BIT_BLOCK = 256    # the same block in bitsandbytes since 0.44 (pull request 1365, "blocksize 2048->256")
RECOMPUTE_FACTOR = 4 / 3   # full recomputation reruns the forward pass: 2N of the step's 6N FLOPs per token


@_check.finite
def optimizer_state_B(optimizer: str = "adam", fan_in: int | None = None, fan_out: int | None = None,
                      block: int = ADAM_8BIT_BLOCK) -> float:
    """Bytes per parameter that the optimizer itself keeps, beside weights, gradients and master copy.

    Equation eq-optimizer-state in chapter 7:

    - ``"adam"`` (and AdamW): two FP32 moments, m and v, 4 + 4 = 8 bytes (Kingma and Ba 2015,
      Algorithm 1; ``torch.optim.Adam`` keeps ``exp_avg`` and ``exp_avg_sq`` in the parameter's dtype);
    - ``"sgd_momentum"``: one FP32 momentum buffer, 4 bytes (``torch.optim.SGD``'s ``momentum_buffer``);
    - ``"adam_8bit"``: both moments in 8 bits, each with one FP32 absmax per ``block`` values,
      2 x (1 + 4/block) bytes (Dettmers et al. 2022, §2: block-wise dynamic quantization, B = 2,048;
      bitsandbytes since 0.44 uses B = 256, :data:`BNB_8BIT_BLOCK`, 2 x (1 + 4/256) = 2.031 bytes);
    - ``"adafactor"``: no first moment (beta_1 = 0, the paper's setting) and the second moment of an
      r x c matrix factored into its r row sums and c column sums, 4 (r + c) / (r c) bytes per
      parameter (Shazeer and Stern 2018, §3, Algorithm 4); ``fan_in`` and ``fan_out`` give the matrix.
      A vector (a side of 1) keeps its full second moment, 4 bytes.

    >>> optimizer_state_B("adam"), optimizer_state_B("sgd_momentum"), optimizer_state_B("adam_8bit")
    (8.0, 4.0, 2.00390625)
    >>> optimizer_state_B("adam_8bit", block=BNB_8BIT_BLOCK)   # bitsandbytes >= 0.44: 2 x (1 + 4/256)
    2.03125
    >>> optimizer_state_B("adafactor", 8192, 8192)      # 4 x 16384 / 8192**2 bytes
    0.0009765625
    """
    opt = _check.choice("optimizer", optimizer, OPTIMIZERS)
    b = _check.count("block", block, "values")
    r = None if fan_in is None else _check.count("fan_in", fan_in, "")     # checked even where unused
    c = None if fan_out is None else _check.count("fan_out", fan_out, "")
    if opt == "adam":
        return float(ADAM_MOMENTS_B)
    if opt == "sgd_momentum":
        return float(FP32_B)
    if opt == "adam_8bit":
        return 2.0 * (1 + FP32_B / b)
    if r is None or c is None:
        raise ValueError("fan_in and fan_out: Adafactor factors the second moment of a matrix; give both "
                         f"sides of the weight matrix (got fan_in={fan_in!r}, fan_out={fan_out!r})")
    if r == 1 or c == 1:
        return float(FP32_B)
    return FP32_B * (r + c) / (float(r) * c)


@_check.finite
def training_bytes_per_param(optimizer: str = "adam", weight_B: float = WEIGHT_B, grad_B: float = GRAD_B,
                             master_B: float = MASTER_B, fan_in: int | None = None,
                             fan_out: int | None = None) -> float:
    """Bytes per parameter of training state: weight + gradient + master copy + optimizer state.

    Equation eq-optimizer-state in chapter 7. The conventions are parameters: the working weights'
    and the gradients' bytes (2 for BF16, 4 for FP32), the master copy (4 for an FP32 copy beside
    16-bit weights, 0 when the weights are FP32 themselves, as under ``torch.autocast``) and the
    optimizer (:func:`optimizer_state_B`). Defaults: ZeRO's mixed-precision Adam, 2 + 2 + (4 + 8).

    >>> training_bytes_per_param()                                      # ZeRO §3.1: 2 + 2 + 12
    16.0
    >>> training_bytes_per_param(weight_B=4, grad_B=4, master_B=0)      # torch.autocast: 4 + 4 + 8
    16.0
    >>> training_bytes_per_param(grad_B=4)                              # Megatron-LM, FP32 gradients
    18.0
    >>> training_bytes_per_param("sgd_momentum"), training_bytes_per_param("adam_8bit")
    (12.0, 10.00390625)
    """
    w = _check.positive("weight_B", weight_B, "bytes per parameter")
    g = _check.positive("grad_B", grad_B, "bytes per parameter")
    m = _check.non_negative("master_B", master_B, "bytes per parameter")
    return w + g + m + optimizer_state_B(optimizer, fan_in, fan_out)


@_check.finite
def bytes_per_param(stage: int = 0, shards: int = 1, weight_B: float = WEIGHT_B, grad_B: float = GRAD_B,
                    master_B: float = MASTER_B, opt_state_B: float = ADAM_MOMENTS_B) -> float:
    """Bytes per parameter on each GPU under ZeRO ``stage`` sharded ``shards`` ways.

    Equation eq-zero-memory in chapter 7 (ZeRO §5, Figure 1), with Psi parameters and N_d shards:
    stage 0 (DDP): 2 + 2 + 12; stage 1 shards the optimizer state: 2 + 2 + 12/N_d; stage 2 also the
    gradients: 2 + (2 + 12)/N_d; stage 3 (= FSDP full sharding) everything: (2 + 2 + 12)/N_d.
    ZeRO's K = 12 is the FP32 master copy (``master_B``, 4) plus the optimizer's own state
    (``opt_state_B``, Adam's two moments, 8: :func:`optimizer_state_B`); the four byte counts take
    the same convention as :func:`training_bytes_per_param`, whose sum is stage 0.

    >>> bytes_per_param(0), bytes_per_param(1, 64), bytes_per_param(2, 64), bytes_per_param(3, 64)
    (16.0, 4.1875, 2.21875, 0.25)
    >>> bytes_per_param(1, 8, opt_state_B=optimizer_state_B("adam_8bit"))   # 2 + 2 + (4 + 2.0039)/8
    4.75048828125
    >>> bytes_per_param(3, 8, weight_B=4, grad_B=4, master_B=0)             # torch.autocast: 16/8
    2.0
    """
    s = STAGES[STAGES.index(_check.count("stage", stage, "", minimum=0))] if stage in STAGES else None
    if s is None:
        raise ValueError(f"stage must be 0, 1, 2 or 3 (ZeRO stage; 0 is plain data parallelism), got {stage!r}")
    n = _check.count("shards", shards, "GPUs")
    w = _check.positive("weight_B", weight_B, "bytes per parameter")
    g = _check.positive("grad_B", grad_B, "bytes per parameter")
    k = _check.non_negative("master_B", master_B, "bytes per parameter") \
        + _check.non_negative("opt_state_B", opt_state_B, "bytes per parameter")
    if s == 0:
        return w + g + k
    if s == 1:
        return w + g + k / n
    if s == 2:
        return w + (g + k) / n
    return (w + g + k) / n


@_check.finite
def model_state_B(params: float, stage: int = 0, shards: int = 1, weight_B: float = WEIGHT_B,
                  grad_B: float = GRAD_B, master_B: float = MASTER_B, opt_state_B: float = ADAM_MOMENTS_B) -> float:
    """Bytes of weights, gradients, master copy and optimizer state on each GPU:
    Psi x bytes_per_param(stage, N_d, ...), in the convention its byte counts give (default: ZeRO's
    mixed-precision Adam, 2 + 2 + 4 + 8).

    ZeRO's Figure 1 example, 7.5 B parameters on 64 GPUs: 120 GB, 31.4 GB, 16.6 GB, 1.9 GB.

    >>> [round(model_state_B(7.5e9, s, 64) / 1e9, 1) for s in STAGES]
    [120.0, 31.4, 16.6, 1.9]
    >>> model_state_B(1e9, opt_state_B=optimizer_state_B("sgd_momentum")) / 1e9   # 2 + 2 + 4 + 4
    12.0
    """
    p = _check.positive("params", params, "parameters")
    return p * bytes_per_param(stage, shards, weight_B, grad_B, master_B, opt_state_B)


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
def min_shard_degree(params: float, capacity_B: float, other_B: float = 0.0, max_degree: int = 1024,
                     state_B_per_param: float = WEIGHT_B + GRAD_B + ADAM_STATE_B) -> int:
    """The smallest power-of-two FSDP sharding degree F at which (2+2+12) Psi / F + other fits.

    FSDP's hybrid sharding shards within groups of F GPUs and replicates across groups (Zhao et
    al. 2023, §3.2.1); a smaller F keeps the all-gathers inside a faster domain. ``other_B`` is
    what does not shard (activations, buffers); ``state_B_per_param`` another convention than
    mixed-precision Adam's 16 bytes (:func:`training_bytes_per_param`). The smallest that fits is
    not always the fastest (:func:`fastest_fsdp_degree`).

    >>> min_shard_degree(70e9, 141e9, 20e9)       # 1120 GB of state, 121 GB free: 16
    16
    >>> min_shard_degree(70e9, 141e9, 20e9, state_B_per_param=training_bytes_per_param("adam_8bit"))   # 700 GB: 8
    8
    """
    p = _check.positive("params", params, "parameters")
    cap = _check.positive("capacity_B", capacity_B, "bytes")
    other = _check.non_negative("other_B", other_B, "bytes")
    top = _check.count("max_degree", max_degree, "GPUs")
    state = _check.positive("state_B_per_param", state_B_per_param, "bytes per parameter")
    f = 1
    while f <= top:
        if p * state / f + other <= cap:
            return f
        f *= 2
    raise ValueError(f"params: {p:.3g} parameters with {other:.3g} B of other memory do not fit in "
                     f"capacity_B = {cap:.3g} B at any sharding degree up to max_degree = {top}")


MAX_WORLD = 2 ** 20   # GPUs: a bound on the job sizes the degree search enumerates


@dataclass(frozen=True)
class FsdpOption:
    """One FSDP sharding degree F of a job on ``world`` GPUs: its memory, communication and step time.

    ``memory_B`` is per GPU (sharded state plus what does not shard, with or without recomputation as
    ``recompute`` says); ``recompute_share`` the share of the layers that recompute (1 with full
    checkpointing, k / L when only k of L layers do, 0 when none does); ``gather_s`` the
    two all-gathers and one reduce-scatter inside the group of F; ``replica_s`` the all-reduce of
    each GPU's gradient shard across the world / F replicas (HSDP); ``compute_s`` the step's
    arithmetic (longer by a third of the recomputed layers' share, up to :data:`RECOMPUTE_FACTOR`);
    ``step_s`` the step (:func:`fsdp_options`).
    """
    degree: int
    memory_B: float
    fits: bool
    recompute: bool
    recompute_share: float
    gather_s: float
    replica_s: float
    compute_s: float
    step_s: float

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("memory_B", "gather_s", "replica_s", "compute_s", "step_s"):
            _check.non_negative(name, getattr(self, name), "bytes" if name.endswith("_B") else "s")
        _check.share("recompute_share", self.recompute_share, "the share of the layers that recompute")

    @property
    def comm_s(self) -> float:
        return self.gather_s + self.replica_s


def _ring_s(size_B: float, ranks: int, node_gpus: int, nvlink_Bps: float, nic_Bps: float) -> float:
    """An all-reduce of size_B over ``ranks`` GPUs packed min(ranks, g) to a node, one ring per NIC."""
    per_node = min(ranks, node_gpus)
    return collectives.multi_channel_ring_all_reduce(size_B, per_node, ranks // per_node, nvlink_Bps,
                                                     nic_Bps).time_s


@_check.finite
def fsdp_options(params: float, world: int, node_gpus: int, capacity_B: float, compute_s: float,
                 nvlink_Bps: float, nic_Bps: float, checkpointed_B: float, no_recompute_B: float | None = None,
                 state_B_per_param: float = WEIGHT_B + GRAD_B + ADAM_STATE_B, comm_B_per_param: float = WEIGHT_B,
                 overlap: bool = True, layers: int | None = None) -> tuple[FsdpOption, ...]:
    """Every FSDP (HSDP) sharding degree F of a ``world``-GPU job, with its memory and step time.

    Equation eq-fsdp-step in chapter 7. F divides the world and either divides a node's ``node_gpus``
    or is a whole number of nodes; groups are packed onto nodes, one NIC per GPU. Per step, with
    S = Psi x ``comm_B_per_param`` (the 16-bit weights gathered, the gradients reduced in that dtype):

    - memory per GPU: ``state_B_per_param`` x Psi / F plus what does not shard: ``checkpointed_B``
      under full recomputation, ``no_recompute_B`` without it (None: always recompute). Without
      recomputation the step's arithmetic is ``compute_s``; with it, x :data:`RECOMPUTE_FACTOR`
      (one more forward pass: 2N more of the step's 6N FLOPs per token);
    - with ``layers`` = L given, recomputation is selective by layer (checkpoint only some layers,
      as Megatron-LM's ``--recompute-num-layers`` and FSDP's per-module wrapping allow): each
      recomputed layer saves Delta = (``no_recompute_B`` - ``checkpointed_B``) / L, k = ceil(excess /
      Delta) layers recompute, where excess is what the state plus ``no_recompute_B`` exceeds the
      capacity by, and the arithmetic grows by rho = 1 + k / (3 L). Without ``layers`` it is all
      or nothing (k = 0 or L);
    - inside the group: two all-gathers of the weights and one reduce-scatter of the gradients,
      1.5 all-reduces of S over F GPUs (ZeRO §7.2.2);
    - across the world / F groups: an all-reduce of each GPU's gradient shard, S / F (FSDP's hybrid
      sharding, Zhao et al. 2023, §3.2.1; with F = world there is none, with F = 1 it is DDP's);
    - each all-reduce priced as NCCL's ring with one channel per NIC
      (:func:`infra_lib.collectives.multi_channel_ring_all_reduce`, the model of eq-placement-all-reduce),
      latency left out;
    - step = max(compute, communication) when FSDP's prefetch hides it (``overlap``), else the sum.

    A larger F frees memory (less state per GPU, room to stop recomputing) and moves the gathers
    onto the network; :func:`fastest_fsdp_degree` picks the degree that minimises the step.

    8B parameters on 16 GPUs in 2 nodes, 141 GB each, a 1 s step of compute, 5 GB that does not
    shard with recomputation and 20 GB without: F = 1 (DDP, 128 GB of state) fits only by recomputing,
    1.33 s; F = 2 (64 GB) fits without, and its 0.12 s of communication hides under the 1 s; at
    F = 16 the gathers cross the nodes (0.11 s) and no replica all-reduce is left.

    >>> opts = fsdp_options(8e9, 16, 8, 141e9, 1.0, 450e9, 50e9, 5e9, 20e9)
    >>> [(o.degree, o.recompute, round(o.step_s, 2), round(o.comm_s, 3)) for o in opts]
    [(1, True, 1.33, 0.075), (2, False, 1.0, 0.123), (4, False, 1.0, 0.14), (8, False, 1.0, 0.133), (16, False, 1.0, 0.112)]

    With its 32 layers recomputed selectively, F = 1 needs 128 + 20 - 141 = 7 GB back, 15 of
    the 32 layers at 15/32 GB each, and its step grows by 15/96 instead of a third:

    >>> o = fsdp_options(8e9, 16, 8, 141e9, 1.0, 450e9, 50e9, 5e9, 20e9, layers=32)[0]
    >>> o.recompute_share, round(o.memory_B / 1e9, 2), o.step_s
    (0.46875, 140.97, 1.15625)
    """
    p = _check.positive("params", params, "parameters")
    n = _check.count("world", world, "GPUs")
    g = _check.count("node_gpus", node_gpus, "GPUs per node")
    if n > MAX_WORLD:
        raise ValueError(f"world must be at most {MAX_WORLD:,} GPUs, got {n:,}")
    if n % g and g % n:
        raise ValueError(f"world = {n} GPUs must be a whole number of nodes of node_gpus = {g} (or fit in one)")
    g = min(g, n)
    cap = _check.positive("capacity_B", capacity_B, "bytes")
    comp = _check.positive("compute_s", compute_s, "s")
    nvl = _check.positive("nvlink_Bps", nvlink_Bps, "bytes/s per direction")
    nic = _check.positive("nic_Bps", nic_Bps, "bytes/s per direction")
    ckpt = _check.non_negative("checkpointed_B", checkpointed_B, "bytes")
    full = None if no_recompute_B is None else _check.non_negative("no_recompute_B", no_recompute_B, "bytes")
    if full is not None and full < ckpt:
        raise ValueError(f"no_recompute_B = {full:.4g} B must be at least checkpointed_B = {ckpt:.4g} B "
                         "(recomputation only ever saves memory)")
    state = _check.positive("state_B_per_param", state_B_per_param, "bytes per parameter")
    size = p * _check.positive("comm_B_per_param", comm_B_per_param, "bytes per parameter")
    ov = _check.flag("overlap", overlap)
    L = None if layers is None else _check.count("layers", layers, "layers")
    out = []
    for f in (d for d in range(1, n + 1) if n % d == 0 and (g % d == 0 or d % g == 0)):
        sharded = state * p / f
        if full is not None and sharded + full <= cap:
            share, memory = 0.0, sharded + full                   # nothing recomputes
        elif full is None or L is None or full == ckpt:
            share, memory = 1.0, sharded + ckpt                   # every layer recomputes
        else:                                                     # the fewest layers that make it fit
            delta = (full - ckpt) / L
            k = min(L, math.ceil((sharded + full - cap) / delta))
            share, memory = k / L, sharded + full - k * delta
        recompute = share > 0
        gather = 1.5 * _ring_s(size, f, g, nvl, nic) if f > 1 else 0.0
        replicas = n // f
        per_node = max(1, g // f)                     # a replica ring's GPUs on one node
        replica = collectives.multi_channel_ring_all_reduce(size / f, per_node, replicas // per_node, nvl,
                                                            nic).time_s if replicas > 1 else 0.0
        c = comp * (1 + (RECOMPUTE_FACTOR - 1) * share)
        comm = gather + replica
        out.append(FsdpOption(f, memory, memory <= cap, recompute, share, gather, replica, c,
                              max(c, comm) if ov else c + comm))
    return tuple(out)


@_check.finite
def fastest_fsdp_degree(params: float, world: int, node_gpus: int, capacity_B: float, compute_s: float,
                        nvlink_Bps: float, nic_Bps: float, checkpointed_B: float,
                        no_recompute_B: float | None = None,
                        state_B_per_param: float = WEIGHT_B + GRAD_B + ADAM_STATE_B,
                        comm_B_per_param: float = WEIGHT_B, overlap: bool = True,
                        layers: int | None = None) -> FsdpOption:
    """The sharding degree that fits and minimises the step time (:func:`fsdp_options`); among
    equal steps, the smallest: the model leaves latency out, and a smaller group has fewer ring
    steps per collective and spans fewer nodes, so a tie on bandwidth goes to it
    (:func:`fsdp_ties` lists the tied degrees).

    Not the smallest degree that fits (:func:`min_shard_degree`): in the example of :func:`fsdp_options`
    F = 1 (DDP) fits only by recomputing; F = 2 to 16 all take the 1 s of compute, and F = 2 is
    the smallest of them.

    >>> fastest_fsdp_degree(8e9, 16, 8, 141e9, 1.0, 450e9, 50e9, 5e9, 20e9).degree
    2
    """
    opts = fsdp_ties(params, world, node_gpus, capacity_B, compute_s, nvlink_Bps, nic_Bps, checkpointed_B,
                     no_recompute_B, state_B_per_param, comm_B_per_param, overlap, layers)
    return opts[0]


@_check.finite
def fsdp_ties(params: float, world: int, node_gpus: int, capacity_B: float, compute_s: float,
              nvlink_Bps: float, nic_Bps: float, checkpointed_B: float, no_recompute_B: float | None = None,
              state_B_per_param: float = WEIGHT_B + GRAD_B + ADAM_STATE_B, comm_B_per_param: float = WEIGHT_B,
              overlap: bool = True, layers: int | None = None) -> tuple[FsdpOption, ...]:
    """The degrees that fit and share the shortest step (:func:`fsdp_options`), smallest first.

    >>> [o.degree for o in fsdp_ties(8e9, 16, 8, 141e9, 1.0, 450e9, 50e9, 5e9, 20e9)]
    [2, 4, 8, 16]
    """
    opts = [o for o in fsdp_options(params, world, node_gpus, capacity_B, compute_s, nvlink_Bps, nic_Bps,
                                    checkpointed_B, no_recompute_B, state_B_per_param, comm_B_per_param, overlap,
                                    layers)
            if o.fits]
    if not opts:
        raise ValueError(f"capacity_B: {params:.3g} parameters do not fit in {capacity_B:.3g} B per GPU at any "
                         f"sharding degree of world = {world} GPUs")
    fastest = min(o.step_s for o in opts)
    return tuple(sorted((o for o in opts if math.isclose(o.step_s, fastest, rel_tol=1e-9)), key=lambda o: o.degree))


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
