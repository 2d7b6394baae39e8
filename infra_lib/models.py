"""Model shapes: parameter count, forward FLOPs per token, KV-cache bytes per token.

A decoder-only transformer does about 2N FLOPs per token in the forward pass, plus an
attention term 2 * n_layer * n_ctx * d_model that grows with context (Kaplan et al. 2020,
"Scaling Laws for Neural Language Models", section 2.1, Table 1).
"""
from dataclasses import dataclass

from . import _check


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


@dataclass(frozen=True)
class ModelShape:
    """A decoder-only transformer with SwiGLU FFN and grouped-query attention.

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

    @property
    def n_params(self) -> int:
        """Weights of embeddings, attention (Q, K, V, O), SwiGLU FFN (3 matrices), RMSNorms, LM head."""
        d, hd = self.d_model, self.head_dim
        attn = d * self.n_heads * hd * 2 + d * self.n_kv_heads * hd * 2
        ffn = 3 * d * self.d_ff
        per_layer = attn + ffn + 2 * d
        embed = self.vocab * d
        return self.n_layers * per_layer + d + embed * (1 if self.tied_embeddings else 2)

    def weight_B(self, bytes_per_param: float = 2) -> float:
        """Bytes of weights at ``bytes_per_param`` (2 for BF16)."""
        return self.n_params * _check.positive("bytes_per_param", bytes_per_param, "bytes")

    def flops_per_token(self, n_ctx: float = 0) -> float:
        """Forward FLOPs per token at context ``n_ctx``: 2N + 2 n_layer n_ctx d_model."""
        return forward_flops_per_token(self.n_params, self.n_layers, n_ctx, self.d_model)

    def kv_B_per_token(self, bytes_per_value: float = 2) -> float:
        """KV-cache bytes per token of context."""
        return kv_B_per_token(self.n_layers, self.n_kv_heads, self.head_dim, bytes_per_value)


_LLAMA3_SRC = ("Dubey et al. 2024, 'The Llama 3 Herd of Models', Table 3; "
               "vocabulary 128,256 from the released config.json")
LLAMA3_8B = ModelShape("Llama-3-8B", n_layers=32, d_model=4096, n_heads=32, n_kv_heads=8,
                       d_ff=14336, vocab=128256, source=_LLAMA3_SRC)
LLAMA3_70B = ModelShape("Llama-3-70B", n_layers=80, d_model=8192, n_heads=64, n_kv_heads=8,
                        d_ff=28672, vocab=128256, source=_LLAMA3_SRC)

# The seed's teaching model: "8B parameters" exactly (a teaching assumption), with
# Llama-3-8B's layer count and width for the attention term and the KV cache.
TEACHING_8B_PARAMS = 8e9
TEACHING_8B_SHAPE = LLAMA3_8B
PRESETS: dict[str, ModelShape] = {"llama-3-8b": LLAMA3_8B, "llama-3-70b": LLAMA3_70B}
