"""How busy the hardware is: model FLOPs utilization (MFU), hardware FLOPs utilization (HFU),
memory bandwidth utilization (MBU), and the training and generation times they imply.

Counting conventions (chapter 6):

- training: 6N FLOPs per token for the weights (2N forward, 4N backward) plus 12 L T d for
  attention (Chowdhery et al., 2022, PaLM, appendix B: 6N + 12 L H Q T with H Q = d);
- Megatron-LM: 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) per iteration with full activation
  recomputation, 72 B s l h^2 (1 + s/(6h) + V/(12 l h)) without (Narayanan et al., 2021, §5.1);
- MFU counts only the model's FLOPs; HFU also counts the recomputed forward pass;
- inference: 2N FLOPs per generated token; MBU = bytes a step must read / step time / bandwidth
  (Databricks, "LLM Inference Performance Engineering: Best Practices", 2023).

What the counts leave to the writer, and a reported MFU must state: whether attention is counted
in full (PaLM's 12 L T d) or, for causal attention, half (FlashAttention-2 counts it so: the
``causal`` flag here); whether N includes the embedding table and the LM head; and that the
peak is the dense figure at the precision trained in.
"""
from . import _check


@_check.finite
def train_flops_per_token(n_params: float, layers: int = 1, seq_len: int = 1, d_model: int = 1,
                          attention: bool = True, causal: bool = False) -> float:
    """FLOPs to train on one token: 6N + 12 L T d (PaLM appendix B). Equation eq-train-flops.

    PaLM's attention term counts every query-key pair; a causal kernel computes about half of
    them, and ``causal=True`` counts that half (6N + 6 L T d), as FlashAttention-2 does.
    Llama-3-8B (N = 8.03e9, 32 layers, d = 4096) at 8,192 tokens of context: 6N = 48.2 GFLOP,
    attention 12 x 32 x 8192 x 4096 = 12.9 GFLOP, 6.4 GFLOP causal.

    >>> round(train_flops_per_token(8.03e9, 32, 8192, 4096) / 1e9, 1)
    61.1
    >>> round(train_flops_per_token(8.03e9, 32, 8192, 4096, causal=True) / 1e9, 1)
    54.6
    >>> train_flops_per_token(1e9, attention=False) / 1e9
    6.0
    """
    n = _check.positive("n_params", n_params, "parameters")
    nl = _check.count("layers", layers, "layers")
    t = _check.count("seq_len", seq_len, "tokens")
    d = _check.count("d_model", d_model, "")
    attn = (6.0 if _check.flag("causal", causal) else 12.0) * nl * t * d
    return 6 * n + (attn if _check.flag("attention", attention) else 0.0)


@_check.finite
def train_flops(n_params: float, tokens: float, layers: int = 1, seq_len: int = 1, d_model: int = 1,
                attention: bool = True, causal: bool = False) -> float:
    """Total training FLOPs: D tokens x :func:`train_flops_per_token`, 6 N D plus the attention term.

    Llama-3-8B on 15e12 tokens at a context of 8,192: 6 N D = 7.2e23, 9.2e23 with attention.

    >>> round(train_flops(8.03e9, 15e12, attention=False) / 1e23, 2), round(train_flops(8.03e9, 15e12, 32, 8192, 4096) / 1e23, 2)
    (7.23, 9.16)
    """
    return _check.positive("tokens", tokens, "tokens") * train_flops_per_token(
        n_params, layers, seq_len, d_model, attention, causal)


@_check.finite
def attention_parity_context(n_params: float, layers: int, d_model: int, causal: bool = False) -> float:
    """The context T at which attention's FLOPs equal the parameters': 12 L T d = 6N, so
    T = N / (2 L d) (T = N / (L d) when causal attention is counted as half).

    Llama-3-8B's 6.98e9 non-embedding parameters, 32 layers, d = 4096: about 26,600 tokens.

    >>> round(attention_parity_context(6.98e9, 32, 4096))
    26627
    >>> attention_parity_context(1e9, 10, 1000, causal=True) == 2 * attention_parity_context(1e9, 10, 1000)
    True
    """
    n = _check.positive("n_params", n_params, "parameters")
    nl = _check.count("layers", layers, "layers")
    d = _check.count("d_model", d_model, "")
    return n / ((1.0 if _check.flag("causal", causal) else 2.0) * nl * d)


@_check.finite
def tokens_per_s(batch: int, seq_len: int, iteration_s: float) -> float:
    """Throughput of a training run from its iteration: batch x sequence length / iteration time.

    >>> tokens_per_s(512, 8192, 4.0)
    1048576.0
    """
    return (_check.count("batch", batch, "sequences") * _check.count("seq_len", seq_len, "tokens")
            / _check.positive("iteration_s", iteration_s, "s"))


@_check.finite
def achieved_flop_s(tokens_per_s: float, flops_per_token: float, gpus: int = 1) -> float:
    """Achieved model FLOP/s per GPU: tokens/s x FLOPs per token / GPUs. Over the peak, it is MFU.

    >>> achieved_flop_s(1000, 6e12, 16)
    375000000000000.0
    """
    return (_check.positive("tokens_per_s", tokens_per_s, "tokens/s")
            * _check.positive("flops_per_token", flops_per_token, "FLOPs")
            / _check.count("gpus", gpus, "GPUs"))


@_check.finite
def megatron_flops_per_iteration(batch: int, seq_len: int, layers: int, d_model: int, vocab: int,
                                 recompute: bool = True) -> float:
    """FLOPs of one training iteration by Narayanan et al. (2021), §5.1, equation 3.

    With full activation recomputation: 96 B s l h^2 (1 + s/(6h) + V/(16 l h)); without it the
    forward pass runs once, not twice: 72 B s l h^2 (1 + s/(6h) + V/(12 l h)).
    Equation eq-megatron-flops in chapter 6.

    GPT-3 175B (96 layers, h = 12288, V = 51200), batch 1, s = 2048:
    96 x 2048 x 96 x 12288^2 x (1 + 0.0278 + 0.0027) = 2.937e15 FLOPs.

    >>> f = megatron_flops_per_iteration(1, 2048, 96, 12288, 51200)
    >>> round(f / 1e15, 3), round(megatron_flops_per_iteration(1, 2048, 96, 12288, 51200, False) / 1e15, 3)
    (2.937, 2.205)
    """
    b = _check.count("batch", batch, "sequences")
    s = _check.count("seq_len", seq_len, "tokens")
    nl = _check.count("layers", layers, "layers")
    h = _check.count("d_model", d_model, "")
    v = _check.count("vocab", vocab, "tokens")
    if _check.flag("recompute", recompute):
        return 96.0 * b * s * nl * h * h * (1 + s / (6 * h) + v / (16 * nl * h))
    return 72.0 * b * s * nl * h * h * (1 + s / (6 * h) + v / (12 * nl * h))


@_check.finite
def mfu(tokens_per_s: float, flops_per_token: float, gpus: int, peak_flop_s: float) -> float:
    """Model FLOPs utilization: tokens/s x model FLOPs per token / (GPUs x peak). Eq. eq-mfu.

    Count recomputation in ``flops_per_token`` and the same formula gives HFU.

    >>> mfu(1000, 6e12, 16, 989e12) > 0.37
    True
    >>> round(mfu(1000, 6e12, 16, 989e12), 3)
    0.379
    """
    return (achieved_flop_s(tokens_per_s, flops_per_token, gpus)
            / _check.positive("peak_flop_s", peak_flop_s, "FLOP/s"))


@_check.finite
def hfu_over_mfu(recompute: bool = True) -> float:
    """HFU / MFU when recomputation re-runs the forward pass: (8N) / (6N) = 4/3 for full recompute.

    Full activation recomputation adds one forward pass (2N per token) to the 6N the model needs.

    >>> round(hfu_over_mfu(), 4), hfu_over_mfu(False)
    (1.3333, 1.0)
    """
    return 8 / 6 if _check.flag("recompute", recompute) else 1.0


@_check.finite
def mbu(read_B: float, step_s: float, mem_bw_Bps: float) -> float:
    """Memory bandwidth utilization: bytes a decode step must read / its time / peak bandwidth.

    Equation eq-mbu in chapter 6 (Databricks' "LLM inference performance engineering" uses it
    with the time per output token). 16 GB of weights in 5.14 ms on 4.8 TB/s: 65%.

    >>> round(mbu(16e9, 5.14e-3, 4.8e12), 3)
    0.649
    """
    return achieved_Bps(read_B, step_s) / _check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s")


@_check.finite
def achieved_Bps(read_B: float, step_s: float) -> float:
    """Achieved bandwidth of a decode step: bytes it must read / its time per output token.

    >>> achieved_Bps(16e9, 5e-3)
    3200000000000.0
    """
    return _check.positive("read_B", read_B, "bytes") / _check.positive("step_s", step_s, "s")


@_check.finite
def training_time_s(tokens: float, flops_per_token: float, gpus: int, peak_flop_s: float,
                    mfu_fraction: float) -> float:
    """Wall-clock time to train on ``tokens``: tokens x FLOPs per token / (GPUs x peak x MFU).

    Equation eq-train-time in chapter 6. Llama-3-8B-sized (6N = 48 GFLOP per token) on 15e12
    tokens, 1,024 GPUs at 989 TFLOP/s and 40% MFU: 17.8e5 s, about 20.6 days.

    >>> round(training_time_s(15e12, 48e9, 1024, 989e12, 0.4) / 86400, 1)
    20.6
    """
    m = _check.fraction("mfu_fraction", mfu_fraction)
    if m == 0:
        raise ValueError("mfu_fraction: must be above 0")
    return (_check.positive("tokens", tokens, "tokens") * _check.positive("flops_per_token", flops_per_token, "FLOPs")
            / (_check.count("gpus", gpus, "GPUs") * _check.positive("peak_flop_s", peak_flop_s, "FLOP/s") * m))


@_check.finite
def mfu_from_training_time(tokens: float, flops_per_token: float, gpus: int, peak_flop_s: float,
                           time_s: float) -> float:
    """The reverse of :func:`training_time_s`: the MFU a reported run must have reached.

    >>> round(mfu_from_training_time(15e12, 48e9, 1024, 989e12, 1777777), 3)
    0.4
    """
    return (_check.positive("tokens", tokens, "tokens") * _check.positive("flops_per_token", flops_per_token, "FLOPs")
            / (_check.count("gpus", gpus, "GPUs") * _check.positive("peak_flop_s", peak_flop_s, "FLOP/s")
               * _check.positive("time_s", time_s, "s")))


@_check.finite
def generation_time_s(prefill_s: float, output_tokens: int, step_s: float) -> float:
    """Total time of one request: prefill + output tokens x time per output token. Eq. eq-gen-time.

    48.7 ms of prefill and 500 tokens at 5.14 ms: 2.62 s.

    >>> round(generation_time_s(0.0487, 500, 0.00514), 3)
    2.619
    """
    return (_check.non_negative("prefill_s", prefill_s, "s")
            + _check.count("output_tokens", output_tokens, "tokens") * _check.positive("step_s", step_s, "s"))
