"""FLOPs and bytes of the operations a transformer runs, and where each lands on the roofline.

An operation is an :class:`Op`: FLOPs and bytes moved to and from memory. Its arithmetic
intensity is FLOPs / bytes; against a chip of peak F FLOP/s and bandwidth BW it takes at least
max(FLOPs / F, bytes / BW) (compute and memory traffic overlap perfectly), and
FLOPs / F + bytes / BW if they do not overlap at all. Neither is an upper bound on a real kernel,
which reaches less than the peak rates: on the H200 the 8192 x 8192 matmul at M = 1 took 46.7 us
against 28.1 us for the no-overlap time at the datasheet's peaks. Williams, Waterman and Patterson (2009),
"Roofline"; How to Scale Your Model, "All About Rooflines". Used in chapter 6.
"""
import math
from dataclasses import dataclass

from . import _check, roofline


@dataclass(frozen=True)
class Op:
    """One operation: FLOPs it computes and bytes it must move (each byte read or written once)."""
    flops: float
    moved_B: float

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.non_negative("flops", self.flops, "FLOPs")
        _check.positive("moved_B", self.moved_B, "bytes")

    @property
    def intensity(self) -> float:
        """FLOPs per byte moved."""
        return self.flops / self.moved_B

    def bound(self, peak_flop_s: float, mem_bw_Bps: float) -> str:
        """'compute' if the op's intensity is at or above the ridge peak / bandwidth, else 'memory':
        :func:`infra_lib.roofline.bound` of :attr:`intensity`.

        >>> Op(2e12, 1e9).bound(1e15, 1e12), Op(1e9, 1e9).bound(1e15, 1e12)
        ('compute', 'memory')
        """
        return roofline.bound(self.intensity, peak_flop_s, mem_bw_Bps)


@_check.finite
def matmul(m: int, k: int, n: int, bytes_a: float = 2.0, bytes_b: float = 2.0, bytes_out: float = 2.0) -> Op:
    """C[m, n] = A[m, k] B[k, n]: 2mkn FLOPs; reads A and B once and writes C once.

    bytes = m k b_A + k n b_B + m n b_C; intensity = 2mkn / bytes. Equation eq-matmul-intensity
    in chapter 6. For a weight matrix B read by a batch of m tokens with m << k, n and 2-byte
    elements, the intensity is about m FLOPs per byte.

    >>> op = matmul(1, 8192, 8192)
    >>> op.flops, op.moved_B, round(op.intensity, 4)
    (134217728.0, 134250496.0, 0.9998)
    >>> round(matmul(4096, 4096, 4096).intensity, 1)      # square BF16: n/3
    1365.3
    """
    m = _check.count("m", m, "rows")
    k = _check.count("k", k, "")
    n = _check.count("n", n, "columns")
    ba = _check.positive("bytes_a", bytes_a, "bytes")
    bb = _check.positive("bytes_b", bytes_b, "bytes")
    bc = _check.positive("bytes_out", bytes_out, "bytes")
    return Op(2.0 * m * k * n, float(m * k * ba + k * n * bb + m * n * bc))


@_check.finite
def elementwise(elements: int, flops_per_element: float = 1.0, inputs: int = 1, outputs: int = 1,
                bytes_per_element: float = 2.0) -> Op:
    """An elementwise or normalization op over ``elements`` values (an add, SiLU, RMSNorm...).

    FLOPs = elements x flops per element; bytes = elements x (inputs + outputs) x bytes per element.
    RMSNorm of a 4096-wide BF16 vector: about 4 FLOPs per element; it reads the vector and its
    gain (gamma, as many elements) and writes one, so intensity 4 / 6 = 0.67 FLOP per byte, far
    below any GPU's ridge (1.0 if gamma were not counted).

    >>> round(elementwise(4096, 4, inputs=2).intensity, 2), elementwise(4096, 4).intensity
    (0.67, 1.0)
    >>> elementwise(1000, 1, inputs=2).moved_B
    6000.0
    """
    e = _check.count("elements", elements, "elements")
    f = _check.non_negative("flops_per_element", flops_per_element, "FLOPs")
    i = _check.count("inputs", inputs, "tensors", minimum=0)
    o = _check.count("outputs", outputs, "tensors", minimum=0)
    b = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    if i + o == 0:
        raise ValueError("inputs: an op that reads and writes nothing moves no bytes")
    return Op(e * f, float(e * (i + o) * b))


@_check.finite
def decode_attention(batch: int, context: int, heads: int, kv_heads: int, head_dim: int,
                     layers: int = 1, bytes_per_element: float = 2.0) -> Op:
    """Attention for one new token per sequence against ``context`` cached tokens.

    FLOPs = 4 x B x T x H x d (Q K^T and the weighted sum of V, 2 FLOPs per multiply-add each);
    bytes = 2 x B x T x H_kv x d x b (K and V read once) per layer. Intensity = 2 H / (H_kv b):
    with grouped-query attention it does not grow with the batch, since every sequence has its
    own cache. Equation eq-attn-intensity in chapter 6.

    Llama-3-8B (32 heads, 8 KV heads, d = 128), BF16: intensity 2 x 32 / (8 x 2) = 4.

    >>> op = decode_attention(1, 1000, 32, 8, 128)
    >>> op.flops, op.moved_B, op.intensity
    (16384000.0, 4096000.0, 4.0)
    """
    b = _check.count("batch", batch, "requests")
    t = _check.count("context", context, "tokens")
    h = _check.count("heads", heads, "heads")
    hk = _check.count("kv_heads", kv_heads, "heads")
    d = _check.count("head_dim", head_dim, "")
    nl = _check.count("layers", layers, "layers")
    be = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    if h % hk:
        raise ValueError(f"kv_heads: {hk} does not divide heads ({h})")
    return Op(4.0 * b * t * h * d * nl, 2.0 * b * t * hk * d * be * nl)


@_check.finite
def time_max_s(op: Op, peak_flop_s: float, mem_bw_Bps: float) -> float:
    """Roofline time: max(FLOPs / peak, bytes / bandwidth), compute and memory fully overlapped.

    Equation eq-time-max in chapter 6. It holds inside one well-pipelined kernel (a matmul that
    streams its tiles while the Tensor Cores work).

    >>> time_max_s(Op(2e12, 1e9), 1e15, 1e12)
    0.002
    """
    op = _check.instance("op", op, Op)
    return max(op.flops / _check.positive("peak_flop_s", peak_flop_s, "FLOP/s"),
               op.moved_B / _check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s"))


@_check.finite
def time_sum_s(op: Op, peak_flop_s: float, mem_bw_Bps: float) -> float:
    """No-overlap time: FLOPs / peak + bytes / bandwidth. Equation eq-time-sum in chapter 6.

    The right model for two kernels that run one after the other, one compute-bound and one
    memory-bound; never more than twice :func:`time_max_s`. Not an upper bound on a real kernel:
    below its peak rates it can be slower than both.

    >>> time_sum_s(Op(2e12, 1e9), 1e15, 1e12)
    0.003
    """
    op = _check.instance("op", op, Op)
    return (op.flops / _check.positive("peak_flop_s", peak_flop_s, "FLOP/s")
            + op.moved_B / _check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s"))


@_check.finite
def attention_standard(seq: int, head_dim: int, heads: int = 1, batch: int = 1,
                       bytes_per_element: float = 2.0) -> Op:
    """Attention softmax(Q K^T) V computed the standard way, the T x T scores kept in HBM.

    FLOPs = 4 B H T^2 d (Q K^T and P V, 2 FLOPs per multiply-add; the softmax's few FLOPs per score
    are not counted); bytes = B H b (4 T d + 4 T^2): Q, K and V read and O written once, and the
    score matrix S written, read back for the softmax, its result P written and read back for P V.
    The intensity T d / (b (T + d)) never reaches d / b. Equation eq-attn-standard in chapter 5;
    Dao et al. (2022), FlashAttention, section 2.2 (Algorithm 0).

    T = 4096, d = 128, BF16: bytes 4 x 4096 x 128 x 2 + 4 x 4096^2 x 2 = 138 MB per head.

    >>> op = attention_standard(4096, 128)
    >>> op.moved_B / 1e6, round(op.intensity, 1)
    (138.412032, 62.1)
    """
    t = _check.count("seq", seq, "tokens")
    d = _check.count("head_dim", head_dim, "")
    bh = _check.count("batch", batch, "sequences") * _check.count("heads", heads, "heads")
    b = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    return Op(4.0 * bh * t * t * d, bh * b * (4.0 * t * d + 4.0 * t * t))


@_check.finite
def attention_tiled(seq: int, head_dim: int, block_q: int | None = None, heads: int = 1, batch: int = 1,
                    bytes_per_element: float = 2.0) -> Op:
    """Attention computed tile by tile with an online softmax (FlashAttention): no T x T matrix in HBM.

    Each tile of ``block_q`` query rows reads its Q tile once, streams all of K and V through shared
    memory, and writes its O tile once: bytes = B H b (2 T d + 2 T d ceil(T / B_q)) when every pass over
    K and V comes from HBM. ``block_q=None`` counts K and V once per head, as when the L2 serves the
    query tiles' repeated reads: bytes = 4 B H T d b and the intensity is T / b, whatever d.
    FLOPs as :func:`attention_standard`. Equation eq-attn-standard (its tiled form) in chapter 5; Dao et al. (2022),
    section 3: with B_q ~ M / (4 d) for M bytes of SRAM, the repeated passes are their Theta(T^2 d^2 / M).

    >>> attention_tiled(4096, 128).intensity, attention_tiled(4096, 128, 128).intensity
    (2048.0, 124.12121212121212)
    """
    t = _check.count("seq", seq, "tokens")
    d = _check.count("head_dim", head_dim, "")
    passes = 1 if block_q is None else -(-t // _check.count("block_q", block_q, "rows"))
    bh = _check.count("batch", batch, "sequences") * _check.count("heads", heads, "heads")
    b = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    return Op(4.0 * bh * t * t * d, bh * b * (2.0 * t * d + 2.0 * t * d * passes))


@_check.finite
def attention_tiled_ridge_seq(ridge_flop_per_B: float, bytes_per_element: float = 2.0) -> int:
    """The shortest sequence at which tiled attention, K and V read once per head, reaches a ridge point.

    Its intensity is T / b (:func:`attention_tiled` with ``block_q=None``), so T = ceil(ridge x b).
    The H200's BF16 ridge of 206 FLOP/byte: 413 tokens.

    >>> attention_tiled_ridge_seq(206.1), attention_tiled_ridge_seq(295.2)
    (413, 591)
    """
    return math.ceil(_check.positive("ridge_flop_per_B", ridge_flop_per_B, "FLOP per byte")
                     * _check.positive("bytes_per_element", bytes_per_element, "bytes"))
