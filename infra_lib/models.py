"""Model shapes: parameter count, weight bytes, forward FLOPs per token, KV-cache bytes per token.

A decoder-only transformer does about 2N FLOPs per token in the forward pass, plus an
attention term 2 * n_layer * n_ctx * d_model that grows with context (Kaplan et al. 2020,
"Scaling Laws for Neural Language Models", section 2.1, Table 1).
"""
from dataclasses import dataclass

from . import _check

MLPS = ("swiglu", "gelu")
NORMS = ("rmsnorm", "layernorm")


@_check.finite
def forward_flops_per_token(n_params: float, n_layers: int = 0, n_ctx: float = 0, d_model: int = 0) -> float:
    """Forward FLOPs per token: 2N + 2 * n_layer * n_ctx * d_model (Kaplan et al. 2020, section 2.1).

    >>> forward_flops_per_token(8e9)   # attention term left out
    16000000000.0
    >>> forward_flops_per_token(8e9, 32, 1000, 4096) - 16e9
    262144000.0
    """
    n = _check.positive("n_params", n_params, "parameters")
    return 2 * n + attention_flops_per_token(n_layers, n_ctx, d_model)


@_check.finite
def attention_flops_per_token(n_layers: int, n_ctx: float, d_model: int, matmuls: int = 1) -> float:
    """The context-dependent term: matmuls x 2 * n_layer * n_ctx * d_model FLOPs per token.

    Attention does two matrix products that grow with the context: the scores Q K^T and the
    weighted sum of the values (scores x V), each n_layer * n_ctx * d_model multiply-adds.
    Two counting conventions are in use, and both are given here:

    - ``matmuls=1``: Kaplan et al. 2020, Table 1, row "Attention: Mask", 2 n_layer n_ctx d_attn,
      which counts only the first product (their C_forward = 2N + 2 n_layer n_ctx d_attn);
    - ``matmuls=2``: both products, as Hoffmann et al. 2022 (Appendix F, "logits" and
      "reduction") count them: 4 n_layer n_ctx d_model.

    Equation eq-attention-flops in chapter 0 (the overview).

    >>> attention_flops_per_token(32, 1000, 4096)
    262144000.0
    >>> attention_flops_per_token(32, 2000, 4096, matmuls=2) / 16e9   # the example's context, both products
    0.065536
    """
    if matmuls not in (1, 2) or isinstance(matmuls, bool):
        raise ValueError(f"matmuls must be 1 (Kaplan's Q K^T only) or 2 (Q K^T and scores x V), got {matmuls!r}")
    return (2 * matmuls * _check.count("n_layers", n_layers, "layers", minimum=0)
            * _check.non_negative("n_ctx", n_ctx, "tokens of context")
            * _check.count("d_model", d_model, "", minimum=0))


@_check.finite
def non_embedding_params(n_layers: int, d_model: int, d_attn: int = 0, d_ff: int = 0) -> float:
    """Kaplan et al.'s non-embedding parameter count: N = 2 n_layer d_model (2 d_attn + d_ff),
    which is 12 n_layer d_model^2 for d_attn = d_model and d_ff = 4 d_model (their defaults here:
    0 means that). Biases, norms, embeddings and the LM head are left out (section 2.1, Table 1).
    For a shape with grouped-query attention or a gated FFN, :attr:`ModelShape.non_embedding_params`
    counts its own matrices.

    GPT-3 175B (96 layers, d = 12,288): 12 x 96 x 12288^2 = 173.9e9.

    >>> round(non_embedding_params(96, 12288) / 1e9, 1)
    173.9
    """
    nl = _check.count("n_layers", n_layers, "layers")
    d = _check.count("d_model", d_model, "")
    da = _check.count("d_attn", d_attn, "", minimum=0) or d
    f = _check.count("d_ff", d_ff, "", minimum=0) or 4 * d
    return 2.0 * nl * d * (2 * da + f)


@_check.finite
def weight_B(n_params: float, bytes_per_param: float = 2) -> float:
    """Bytes of weights = parameters x bytes per parameter (2 for BF16, 1 for FP8, 0.5 for INT4).

    The one home of this formula: :meth:`ModelShape.weight_B`, :attr:`infra_lib.inference.Request.weight_B`
    and :func:`infra_lib.quantization.weight_B_at_bits` call it. A mixture of experts keeps every
    expert resident, so pass its total parameters. Llama-3-8B (8,030,261,248 parameters) in BF16:
    16.06 GB; in INT4: 4.02 GB.

    >>> round(weight_B(8_030_261_248) / 1e9, 2), round(weight_B(8_030_261_248, 0.5) / 1e9, 2)
    (16.06, 4.02)
    """
    return (_check.positive("n_params", n_params, "parameters")
            * _check.positive("bytes_per_param", bytes_per_param, "bytes"))


@_check.finite
def decoder_params(layers: int, d: int, heads: int, kv_heads: int, head_dim: int, ffn: int, vocab: int) -> int:
    """Parameters of the course's Llama-shaped decoder: per layer a fused QKV projection
    d x (H + 2 H_kv) d_h, the output projection H d_h x d, a fused gate-and-up d x 2F, the down
    projection F x d and two RMSNorm gains (d each); then the embedding table and the untied LM head
    (V x d each) and the final norm's gain. The one count the benchmark (``infra_lib.gpu_bench``)
    checks its own arrays against, and a run's ``model.params`` is checked against.

    >>> decoder_params(32, 4096, 32, 8, 128, 14336, 128256)     # the H200 run's Llama-3-8B shape
    8030261248
    """
    L = _check.count("layers", layers, "layers")
    d = _check.count("d", d, "")
    h = _check.count("heads", heads, "heads")
    hk = _check.count("kv_heads", kv_heads, "heads")
    dh = _check.count("head_dim", head_dim, "")
    f = _check.count("ffn", ffn, "")
    v = _check.count("vocab", vocab, "tokens")
    if h % hk:
        raise ValueError(f"kv_heads: {hk} does not divide heads ({h})")
    per_layer = d * (h + 2 * hk) * dh + h * dh * d + d * 2 * f + f * d + 2 * d
    return L * per_layer + 2 * v * d + d


@_check.finite
def decode_step_read_B(params: int, vocab: int, d: int, kv_B_per_token: float, batch: int, context: int,
                       bytes_per_param: float = 2) -> float:
    """The least one decode step must read: every weight but the embedding table (a token looks up
    one row of it) plus the KV cache of every sequence. Llama-3-8B, batch 1, 1,000 tokens, BF16:

    >>> decode_step_read_B(8030261248, 128256, 4096, 131072, 1, 1000)
    15140921344.0
    """
    n = _check.count("params", params, "parameters")
    v = _check.count("vocab", vocab, "tokens")
    dm = _check.count("d", d, "")
    kv = _check.non_negative("kv_B_per_token", kv_B_per_token, "bytes")
    b = _check.count("batch", batch, "requests")
    t = _check.count("context", context, "tokens")
    if v * dm > n:
        raise ValueError(f"params: {n:,} is fewer than the embedding table's {v * dm:,}")
    return weight_B(n - v * dm, bytes_per_param) + float(b * t * kv)


@_check.finite
def kv_B_per_token(n_layers: int, n_kv_heads: int, head_dim: int, bytes_per_value: float = 2) -> float:
    """KV-cache bytes per token = 2 (K and V) x layers x KV heads x head_dim x bytes per value.

    With grouped-query attention (GQA) only ``n_kv_heads`` heads are cached, fewer than the
    query heads. Llama-3-8B in BF16: 2 x 32 x 8 x 128 x 2 = 131,072 bytes per token.

    >>> kv_B_per_token(32, 8, 128)
    131072.0
    """
    return (2.0 * _check.count("n_layers", n_layers, "layers")
            * _check.count("n_kv_heads", n_kv_heads, "heads")
            * _check.count("head_dim", head_dim, "")
            * _check.positive("bytes_per_value", bytes_per_value, "bytes"))


@_check.finite
def expected_experts_touched(n_experts: int, experts_per_token: int, tokens: int) -> float:
    """Expected number of distinct experts a layer's ``tokens`` tokens route to: E (1 - (1 - k/E)^B).

    A token picks k of the E experts, so a given expert is missed by one token with probability
    1 - k/E, and by all B tokens of a decode step with probability (1 - k/E)^B if tokens route
    independently and uniformly (a teaching assumption: a trained router is skewed, and touches
    fewer experts at the same B). The weight bytes a mixture of experts reads per decode step grow
    with this count until every expert is touched. Equation eq-moe-experts in chapter 6.

    Mixtral 8x7B (E = 8, k = 2): one token touches 2 experts; 8 tokens 7.2; 32 tokens 8.0.

    >>> [round(expected_experts_touched(8, 2, b), 2) for b in (1, 8, 32)]
    [2.0, 7.2, 8.0]
    """
    e = _check.count("n_experts", n_experts, "experts")
    k = _check.count("experts_per_token", experts_per_token, "experts")
    b = _check.count("tokens", tokens, "tokens", minimum=0)
    if k > e:
        raise ValueError(f"experts_per_token ({k}) must be at most n_experts ({e})")
    return e * (1.0 - (1.0 - k / e) ** b)


@dataclass(frozen=True)
class ModelShape:
    """A decoder-only transformer: grouped-query attention and a SwiGLU FFN by default.

    Beyond Llama (fields with defaults, so the Llama shapes are unchanged):

    - ``mlp="gelu"``: a non-gated MLP of two matrices, d_model -> d_ff -> d_model (GPT-2, GPT-3,
      OPT), instead of SwiGLU's three (gate, up, down);
    - ``norm="layernorm"``: LayerNorm with a gain and a bias (2 d_model per norm) instead of
      RMSNorm's gain (d_model);
    - ``bias=True``: biases on every linear layer (GPT-2, GPT-3, OPT);
    - ``n_positions``: learned position embeddings (GPT-2/GPT-3; 0 for rotary);
    - ``n_experts``, ``experts_per_token``: a mixture of experts (Mixtral): every layer has
      ``n_experts`` FFNs and a router, and each token uses ``experts_per_token`` of them, so the
      total parameters (all stored) exceed the active ones (used per token).

    ``source`` says where the shape comes from.
    """
    name: str
    n_layers: int
    d_model: int
    n_heads: int
    n_kv_heads: int
    d_ff: int
    vocab: int
    head_dim: int = 0          # 0 means d_model // n_heads
    tied_embeddings: bool = False
    source: str = ""
    mlp: str = "swiglu"
    norm: str = "rmsnorm"
    bias: bool = False
    n_positions: int = 0
    n_experts: int = 1
    experts_per_token: int = 1

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("n_layers", "d_model", "n_heads", "n_kv_heads", "d_ff", "vocab"):
            _check.count(name, getattr(self, name))
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_heads ({self.n_heads}) must be a multiple of n_kv_heads ({self.n_kv_heads})")
        if self.head_dim == 0 and not isinstance(self.head_dim, bool):
            if self.d_model % self.n_heads:
                raise ValueError(f"d_model ({self.d_model}) must be a multiple of n_heads ({self.n_heads}) "
                                 "when head_dim is not given")
            object.__setattr__(self, "head_dim", self.d_model // self.n_heads)
        else:
            _check.count("head_dim", self.head_dim)
        _check.choice("mlp", self.mlp, MLPS)
        _check.choice("norm", self.norm, NORMS)
        _check.count("n_positions", self.n_positions, "positions", minimum=0)
        _check.count("n_experts", self.n_experts, "experts")
        _check.count("experts_per_token", self.experts_per_token, "experts")
        if self.experts_per_token > self.n_experts:
            raise ValueError(f"experts_per_token ({self.experts_per_token}) must be at most "
                             f"n_experts ({self.n_experts})")

    def _expert_params(self) -> int:
        """One FFN: SwiGLU 3 d d_ff, GELU 2 d d_ff, plus biases (d_ff + d for GELU, 2 d_ff + d for SwiGLU)."""
        d, f = self.d_model, self.d_ff
        if self.mlp == "gelu":
            return 2 * d * f + ((f + d) if self.bias else 0)
        return 3 * d * f + ((2 * f + d) if self.bias else 0)

    def param_breakdown(self) -> dict[str, int]:
        """Parameters by component (all experts counted): embedding, positions, attention,
        mlp, router, norms, lm_head. Their sum is ``n_params``.

        GPT-2 small (12 layers, d 768, vocab 50,257, 1,024 positions, tied): 124,439,808.
        """
        d, hd, L = self.d_model, self.head_dim, self.n_layers
        attn = d * self.n_heads * hd * 2 + d * self.n_kv_heads * hd * 2
        if self.bias:
            attn += self.n_heads * hd + 2 * self.n_kv_heads * hd + d
        per_norm = 2 * d if self.norm == "layernorm" else d
        router = d * self.n_experts if self.n_experts > 1 else 0
        return {"embedding": self.vocab * d, "positions": self.n_positions * d,
                "attention": L * attn, "mlp": L * self.n_experts * self._expert_params(),
                "router": L * router, "norms": (2 * L + 1) * per_norm,
                "lm_head": 0 if self.tied_embeddings else self.vocab * d}

    @property
    def n_params(self) -> int:
        """All stored weights: embeddings, attention (Q, K, V, O), FFNs (every expert), norms, LM head."""
        return sum(self.param_breakdown().values())

    @property
    def non_embedding_params(self) -> int:
        """``n_params`` less the embedding table, the position embeddings and an untied LM head:
        the N of Kaplan et al.'s scaling laws. Llama-3-8B: 8.03e9 - 2 x 128,256 x 4,096 = 6.98e9.

        >>> LLAMA3_8B.non_embedding_params
        6979588096
        """
        b = self.param_breakdown()
        return self.n_params - b["embedding"] - b["positions"] - b["lm_head"]

    @property
    def n_active_params(self) -> int:
        """Weights one token uses: ``n_params`` less the experts it skips (equal for a dense model)."""
        idle = self.n_layers * (self.n_experts - self.experts_per_token) * self._expert_params()
        return self.n_params - idle

    @property
    def matmul_params(self) -> int:
        """Weights one token is multiplied by: ``n_active_params`` less the embedding table and the
        position embeddings, which are looked up, not read whole (the LM head is multiplied, tied
        or not). Llama-3-8B: 8.03e9 - 128,256 x 4,096 = 7.50e9; Mixtral 8x7B: 12.75e9.

        >>> LLAMA3_8B.matmul_params, MIXTRAL_8X7B.matmul_params
        (7504924672, 12748853248)
        """
        b = self.param_breakdown()
        head = b["embedding"] if self.tied_embeddings else 0     # a tied head multiplies the table
        return self.n_active_params - b["embedding"] - b["positions"] + head

    def decode_params_read(self, batch: int) -> float:
        """Parameters one decode step of ``batch`` tokens reads, expected: :attr:`matmul_params` plus
        the experts that some token of the batch routes to beyond its own k
        (:func:`expected_experts_touched`, per layer). Equal to :attr:`matmul_params` for a dense
        model at every batch, and to every weight but the looked-up tables once all experts are touched.

        Mixtral 8x7B: 12.75e9 at batch 1, 46.57e9 at batch 64, where almost every expert of every layer is read.

        >>> round(MIXTRAL_8X7B.decode_params_read(1) / 1e9, 2), round(MIXTRAL_8X7B.decode_params_read(64) / 1e9, 2)
        (12.75, 46.57)
        """
        b = _check.count("batch", batch, "tokens")
        extra = expected_experts_touched(self.n_experts, self.experts_per_token, b) - self.experts_per_token
        return self.matmul_params + self.n_layers * extra * self._expert_params()

    def weight_B(self, bytes_per_param: float = 2) -> float:
        """Bytes of weights at ``bytes_per_param`` (2 for BF16): :func:`weight_B` of ``n_params``
        (every expert of a mixture of experts)."""
        return weight_B(self.n_params, bytes_per_param)

    def flops_per_token(self, n_ctx: float = 0) -> float:
        """Forward FLOPs per token at context ``n_ctx``: 2N + 2 n_layer n_ctx d_model, N the
        active parameters (a mixture of experts runs only its chosen experts)."""
        return forward_flops_per_token(self.n_active_params, self.n_layers, n_ctx, self.d_model)

    def kv_B_per_token(self, bytes_per_value: float = 2) -> float:
        """KV-cache bytes per token of context."""
        return kv_B_per_token(self.n_layers, self.n_kv_heads, self.head_dim, bytes_per_value)


_LLAMA3_SRC = ("Dubey et al. 2024, 'The Llama 3 Herd of Models', Table 3; "
               "vocabulary 128,256 from the released config.json")
LLAMA3_8B = ModelShape("Llama-3-8B", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8,
                       d_ff=14336, vocab=128256, source=_LLAMA3_SRC)
LLAMA3_70B = ModelShape("Llama-3-70B", n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8,
                        d_ff=28672, vocab=128256, source=_LLAMA3_SRC)

GPT2_SMALL = ModelShape("GPT-2 small", n_layers=12, d_model=768, n_heads=12, n_kv_heads=12, d_ff=3072,
                        vocab=50257, tied_embeddings=True, mlp="gelu", norm="layernorm", bias=True,
                        n_positions=1024,
                        source="Radford et al. 2019, GPT-2 (124M released checkpoint, config.json)")
GPT3_175B = ModelShape("GPT-3 175B", n_layers=96, d_model=12288, n_heads=96, n_kv_heads=96, d_ff=4 * 12288,
                       vocab=50257, tied_embeddings=True, mlp="gelu", norm="layernorm", bias=True,
                       n_positions=2048,
                       source="Brown et al. 2020, 'Language Models are Few-Shot Learners', Table 2.1; "
                              "GPT-2 vocabulary and tied embeddings (section 2.1)")
MIXTRAL_8X7B = ModelShape("Mixtral 8x7B", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8, d_ff=14336,
                          vocab=32000, n_experts=8, experts_per_token=2,
                          source="Jiang et al. 2024, 'Mixtral of Experts', Table 1 (46.7B total, "
                                 "12.9B active parameters, section 2.1)")

SHAPES: dict[str, ModelShape] = {"gpt-2-small": GPT2_SMALL, "llama-3-8b": LLAMA3_8B,
                                 "mixtral-8x7b": MIXTRAL_8X7B, "llama-3-70b": LLAMA3_70B,
                                 "gpt-3-175b": GPT3_175B}
"""Every shape defined here, smallest first."""


def shape_at(model: int) -> ModelShape:
    """The shape at position ``model`` of :data:`SHAPES` (0 = GPT-2 small): what a model slider picks.

    >>> shape_at(3).name
    'Llama-3-70B'
    """
    shapes = tuple(SHAPES.values())
    i = _check.count("model", model, "", minimum=0)
    if i >= len(shapes):
        raise ValueError(f"model must be 0 to {len(shapes) - 1} (" + ", ".join(
            f"{n} = {s.name}" for n, s in enumerate(shapes)) + f"), got {i}")
    return shapes[i]
