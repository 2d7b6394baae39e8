"""A performance model of the Llama-3-8B-shaped decoder measured on one H200, checked against it.

Every efficiency comes from a separate microbenchmark of the same run, never from the decode or
prefill timings it is compared with (measurements README):

- weight reads: the skinny matmul (8192 x 8192 BF16 weight, one input row), ~2.87 TB/s;
- KV-cache reads and elementwise traffic: the 4 GiB device-to-device copy, ~4.24 TB/s;
- compute: the best large-matmul rate of the matmul sweep, ~785 TFLOP/s.

A decode step at batch B and context T (chapter 6, equations eq-decode-seq and eq-decode-ovl):

- sequential ("added after"): t = max(B_W / BW_w, 2 N B / F) + (B_KV + B_ew) / BW_kv, since
  attention and the elementwise ops are their own memory-bound kernels that run after the matmuls;
- overlapped: t = max((B_W + B_KV + B_ew) / BW_w, (2 N B + attention FLOPs) / F), one roofline
  for the whole step, as if every byte streamed concurrently.

The prefill of P tokens (equation eq-prefill-model): the layers' weight matmuls and causal
attention are compute-bound, the LM head runs as its own matmul, and the elementwise bytes stream:
t = (2 (N - N_head) P + 2 P^2 d L) / F + max(2 N_head R / F, 2 N_head / BW_w) + B_ew(P) / BW_kv,
with R = 1 row of logits when only the last position's are computed (what the measured script
runs: ``rms(x[:, -1]) @ lm_head``) or R = P for every position. N counts the weights a token
multiplies (every weight except the embedding table: 7.50 B of the 8.03 B parameters);
N_head = vocab x d. The elementwise bytes B_ew are counted as the script executes them, eagerly:
see :func:`elementwise_B`.
"""
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _check, cuda, generations, hardware, measurements, models, roofline

WEIGHT_SOURCES = ("skinny", "copy", "read", "datasheet")
COMPUTE_SOURCES = ("matmul", "matmul_8192", "datasheet")
LOGITS = ("last", "all")
"""Which positions of a prefill get logits: the last only (what the H200 run computed), or all."""

SHAPE_FIELDS = ("layers", "d", "heads", "kv_heads", "head_dim", "ffn", "vocab", "params", "kv_bytes_per_token")
"""What a run's ``model`` entry must give (besides ``dtype_B``, the run's element size)."""

Run = str | Path | Mapping[str, Any]
"""A measurement run (a shipped run's name or a run folder, see :func:`infra_lib.measurements.load`)
or, for the benchmark that is about to write one, the decoder's shape itself (:func:`decoder_shape`)."""


@dataclass(frozen=True)
class Efficiencies:
    """Bandwidths and compute rate the model uses, in bytes/s and FLOP/s."""
    weight_Bps: float
    kv_Bps: float
    peak_flop_s: float

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("weight_Bps", "kv_Bps", "peak_flop_s"):
            _check.positive(name, getattr(self, name), "bytes/s or FLOP/s")


def _bandwidth(name: str, source: str, run: Run) -> float:
    source = _check.choice(name, source, WEIGHT_SOURCES)
    if source == "skinny":
        return measurements.skinny_matmul_Bps(_run(run))
    if source == "datasheet":
        return hardware.value(measurements.spec(_run(run)), "mem_bw_Bps")
    return float(measurements.load(_run(run))[source]["GBps"] * 1e9)


@_check.finite
def efficiencies(weights: str = "skinny", kv: str = "copy", compute: str = "matmul",
                 run: Run = measurements.RUN) -> Efficiencies:
    """The efficiencies chosen by name: weight and KV bandwidth from 'skinny' (matmul at M = 1),
    'copy', 'read' (a read-only reduction) or 'datasheet' (4.8 TB/s); compute from 'matmul'
    (best of the matmul sweep), 'matmul_8192' (the 8192^3 matmul of the ladder) or 'datasheet'
    (half the 1,979 TFLOP/s sparse BF16 figure).

    >>> e = efficiencies()
    >>> round(e.weight_Bps / 1e12, 3), round(e.kv_Bps / 1e12, 3), round(e.peak_flop_s / 1e12)
    (2.874, 4.242, 785)
    """
    w = _bandwidth("weights", weights, run)
    k = _bandwidth("kv", kv, run)
    c = _check.choice("compute", compute, COMPUTE_SOURCES)
    if c == "matmul":
        peak = max(r["TFLOPs"] for r in measurements.load(_run(run))["matmul_roofline"]) * 1e12
    elif c == "matmul_8192":
        peak = measurements.large_matmul_flop_s(_run(run))
    else:
        peak = generations.dense_bf16_flop_s(measurements.spec(_run(run)))
    return Efficiencies(w, k, float(peak))


def decoder_shape(layers: int, d: int, heads: int, kv_heads: int, head_dim: int, ffn: int, vocab: int,
                  dtype_B: int = 2) -> dict[str, int]:
    """The ``model`` entry of a run (what every function here reads from it), with the decoder's
    parameters (:func:`infra_lib.models.decoder_params`), its weight bytes and its KV-cache bytes per token
    (:func:`infra_lib.models.kv_B_per_token`) at ``dtype_B`` bytes per element.

    >>> s = decoder_shape(32, 4096, 32, 8, 128, 14336, 128256)
    >>> s["params"], s["kv_bytes_per_token"], s["dtype_B"]
    (8030261248, 131072, 2)
    """
    b = _check.count("dtype_B", dtype_B, "bytes")
    n = models.decoder_params(layers, d, heads, kv_heads, head_dim, ffn, vocab)
    return {"layers": layers, "d": d, "heads": heads, "kv_heads": kv_heads, "head_dim": head_dim, "ffn": ffn,
            "vocab": vocab, "params": n, "weight_bytes": int(models.weight_B(n, b)),
            "kv_bytes_per_token": int(models.kv_B_per_token(layers, kv_heads, head_dim, b)), "dtype_B": b}


def _run(run: Run) -> str | Path:
    """A measurement run (a name or a folder), not a bare decoder shape: what reading timings needs."""
    if isinstance(run, Mapping):
        raise TypeError("run: this needs a measurement run (a shipped run's name or a run folder), "
                        "not a decoder shape")
    return run


def _shape(run: Run) -> dict[str, int]:
    """The decoder's shape and element size, from a run (its ``model`` entry and ``dtype_B``) or given."""
    if isinstance(run, Mapping):
        missing = [k for k in (*SHAPE_FIELDS, "dtype_B") if k not in run]
        if missing:
            raise ValueError(f"run: the decoder shape lacks {', '.join(missing)} (make it with decoder_shape)")
        return dict(run)
    return {**measurements.load(_run(run))["model"], "dtype_B": measurements.dtype_B(run)}


@_check.finite
def params_read(run: Run = measurements.RUN) -> int:
    """Parameters a forward pass multiplies through: all but the embedding table (vocab x d_model),
    which is looked up, not read whole.

    >>> params_read()
    7504924672
    """
    s = _shape(run)
    return s["params"] - s["vocab"] * s["d"]


def _weights_flops(batch: int, run: Run) -> float:
    """FLOPs of one decode step's weight matmuls: 2 per weight a token multiplies, per token."""
    return float(models.forward_flops_per_token(params_read(run)) * batch)


@_check.finite
def weight_read_B(run: Run = measurements.RUN) -> float:
    """Weight bytes a decode step reads: :func:`params_read` at the run's element size (BF16 on the
    H200 run, two bytes each).

    >>> weight_read_B()
    15009849344.0
    """
    return models.weight_B(params_read(run), _shape(run)["dtype_B"])


@_check.finite
def step_read_B(batch: int, context: int, run: Run = measurements.RUN) -> float:
    """The least a decode step at ``batch`` sequences of ``context`` cached tokens must read: every
    weight but the embedding table (:func:`weight_read_B`) plus every sequence's KV cache. The
    benchmark reports this as ``bytes_min``; the model's KV term counts the same bytes.

    >>> step_read_B(1, 1000)
    15140921344.0
    """
    s = _shape(run)
    return models.decode_step_read_B(s["params"], s["vocab"], s["d"], s["kv_bytes_per_token"], batch, context,
                                     s["dtype_B"])


@dataclass(frozen=True)
class PrefillWork:
    """The work of one prefill, by part: FLOPs of the layers' weight matmuls, of the LM head and
    of causal attention, and the bytes of the LM head's weights and of the elementwise kernels."""
    layer_flops: float
    lm_head_flops: float
    attention_flops: float
    lm_head_B: float
    elementwise_B: float

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("layer_flops", "lm_head_flops", "attention_flops", "lm_head_B", "elementwise_B"):
            _check.non_negative(name, getattr(self, name), "FLOPs or bytes")

    @property
    def flops(self) -> float:
        """Every FLOP the prefill executes: layers + LM head + attention."""
        return self.layer_flops + self.lm_head_flops + self.attention_flops


@_check.finite
def prefill_work(prompt_tokens: int, logits: str = "last", run: Run = measurements.RUN) -> PrefillWork:
    """The FLOPs and bytes of a prefill of ``prompt_tokens`` tokens, by part.

    Layers: 2 (N - N_head) P; LM head: 2 N_head per row of logits, one row (``logits="last"``) or
    P (``"all"``); causal attention: Q K^T and scores x V over half the P x P pairs,
    2 x 2 P^2 d L / 2 = 2 P^2 d L. The measured run computed the last position's logits only:
    counting the LM head for all 2,000 tokens adds 2.1 TFLOP it never ran.

    >>> w = prefill_work(2000)
    >>> round(w.layer_flops / 1e12, 2), round(w.lm_head_flops / 1e9, 2), round(w.attention_flops / 1e12, 3)
    (27.92, 1.05, 1.049)
    >>> round((prefill_work(2000, "all").flops - w.flops) / 1e12, 2)
    2.1
    """
    p = _check.count("prompt_tokens", prompt_tokens, "tokens")
    rows = 1 if _check.choice("logits", logits, LOGITS) == "last" else p
    s = _shape(run)
    head = s["vocab"] * s["d"]
    per_token = models.forward_flops_per_token(params_read(run) - head)
    return PrefillWork(per_token * p, models.forward_flops_per_token(head) * rows,
                       2.0 * p * p * s["d"] * s["layers"], models.weight_B(head, s["dtype_B"]),
                       elementwise_B(p, run, prefill=p > 1))


@_check.finite
def elementwise_B(tokens: int, run: Run = measurements.RUN, prefill: bool = False) -> float:
    """Bytes of the non-matmul kernels for ``tokens`` tokens through every layer (BF16), counted as
    the measured script runs them (eager PyTorch, one kernel per op).

    Per token and layer: two RMSNorms (read and write d each: 4d), two residual adds (read 2d,
    write d each: 6d), SwiGLU as ``F.silu(gate) * up``, two kernels (silu reads and writes F, the
    product reads 2F and writes F: 5F), the KV-cache append (4 H_kv d_h):
    (10 d + 5 F + 4 H_kv d_h) x 2 bytes x layers. Llama-3-8B: 233,472 bytes per token and layer.
    With ``prefill``, a sequence of more than one token: ``a.transpose(1, 2).reshape`` copies the
    attention output before the output projection (read and write d: 2d more).

    >>> elementwise_B(1) / 32, (elementwise_B(1, prefill=True) - elementwise_B(1)) / 32
    (233472.0, 16384.0)
    """
    n = _check.count("tokens", tokens, "tokens")
    s = _shape(run)
    per = 10 * s["d"] + 5 * s["ffn"] + 4 * s["kv_heads"] * s["head_dim"]
    if _check.flag("prefill", prefill):
        per += 2 * s["d"]
    return float(n * s["layers"] * per * s["dtype_B"])


@_check.finite
def decode_step_s(batch: int, context: int, eff: Efficiencies, overlap: bool = False,
                  run: Run = measurements.RUN) -> float:
    """Predicted decode step (see the module docstring); ``overlap`` picks the overlapped model.

    Batch 1, 1,000 tokens of context, sequential: 15.01 GB / 2.87 TB/s + 0.136 GB / 4.24 TB/s.

    >>> round(decode_step_s(1, 1000, efficiencies()) * 1e3, 3)
    5.256
    """
    b = _check.count("batch", batch, "requests")
    t = _check.count("context", context, "tokens")
    e = _check.instance("eff", eff, Efficiencies)
    if not _check.flag("overlap", overlap):
        return decode_terms(b, t, e, run).total_s
    s = _shape(run)
    w = weight_read_B(run)
    kv = float(b * t * s["kv_bytes_per_token"])
    ew = elementwise_B(b, run)
    mm_flops = _weights_flops(b, run)
    attn_flops = 4.0 * b * t * s["heads"] * s["head_dim"] * s["layers"]
    return max((w + kv + ew) / e.weight_Bps, (mm_flops + attn_flops) / e.peak_flop_s)


@_check.finite
def prefill_s(prompt_tokens: int, eff: Efficiencies, logits: str = "last", run: Run = measurements.RUN) -> float:
    """Predicted prefill (module docstring; equation eq-prefill-model in chapter 6): layers and
    attention at the compute rate, the LM head at max(its FLOPs / F, its weights / BW_w), the
    elementwise bytes at BW_kv.

    With the last position's logits, as measured, the LM head is a one-row matmul that reads its
    1.05 GB of weights (0.37 ms); with every position's, 2.1 TFLOP more (2.7 ms).

    >>> round(prefill_s(2000, efficiencies()) * 1e3, 2), round(prefill_s(2000, efficiencies(), "all") * 1e3, 2)
    (41.03, 43.35)
    """
    p = _check.count("prompt_tokens", prompt_tokens, "tokens")
    e = _check.instance("eff", eff, Efficiencies)
    w = prefill_work(p, logits, run)
    head = max(w.lm_head_flops / e.peak_flop_s, w.lm_head_B / e.weight_Bps)
    return (w.layer_flops + w.attention_flops) / e.peak_flop_s + head + w.elementwise_B / e.kv_Bps


@dataclass(frozen=True)
class Prediction:
    """One measured configuration against its prediction. ``batch`` 0 with ``context`` P is the prefill."""
    phase: str
    batch: int
    context: int
    predicted_s: float
    measured_s: float

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.positive("predicted_s", self.predicted_s, "s")
        _check.positive("measured_s", self.measured_s, "s")

    @property
    def error(self) -> float:
        """(predicted - measured) / measured."""
        return (self.predicted_s - self.measured_s) / self.measured_s


@_check.finite
def predictions(weights: str = "skinny", kv: str = "copy", compute: str = "matmul", overlap: bool = False,
                logits: str = "last", run: Run = measurements.RUN) -> list[Prediction]:
    """Every measured decode configuration (CUDA-graph timings) and the prefill, predicted; the
    prefill with the logits the run computed (``"last"``) unless ``logits`` says otherwise.

    >>> [round(100 * p.error, 1) for p in predictions()]
    [2.3, 2.7, -1.7, 1.2, 1.7, 0.4, -12.2, -15.7]
    """
    eff = efficiencies(weights, kv, compute, run)
    data = measurements.load(_run(run))
    out = [Prediction("decode", r["batch"], r["ctx"], decode_step_s(r["batch"], r["ctx"], eff, overlap, run),
                      measurements.step_s(r)) for r in data["decode"]]
    pre = data["prefill"]
    out.append(Prediction("prefill", pre["batch"], pre["P"], prefill_s(pre["P"], eff, logits, run),
                          pre["s_median"]))
    return out


@_check.finite
def mean_abs_error(preds: list[Prediction]) -> float:
    """Mean of |error| over the predictions. Equation eq-mae in chapter 6.

    >>> round(mean_abs_error(predictions()), 4)
    0.0474
    """
    if not isinstance(preds, list) or not preds:
        raise ValueError("preds: need a non-empty list of Prediction")
    for p in preds:
        _check.instance("preds", p, Prediction)
    return sum(abs(p.error) for p in preds) / len(preds)


@_check.finite
def ridge_bracket_s(batch: int, context: int, eff: Efficiencies, run: Run = measurements.RUN) -> tuple[float, float]:
    """The sequential model with its weight matmuls at max(memory, compute) and at their sum.

    Near the ridge neither bound holds: the measured matmul at M = 128 is already slower than its
    memory time. The two predictions bracket a step whose matmuls are partly compute-bound.

    >>> lo, hi = ridge_bracket_s(128, 1000, efficiencies())
    >>> round(lo * 1e3, 2), round(hi * 1e3, 2)
    (9.4, 11.85)
    """
    b = _check.count("batch", batch, "requests")
    t = _check.count("context", context, "tokens")
    e = _check.instance("eff", eff, Efficiencies)
    s = _shape(run)
    w = weight_read_B(run)
    rest = (b * t * s["kv_bytes_per_token"] + elementwise_B(b, run)) / e.kv_Bps
    mem, comp = w / e.weight_Bps, _weights_flops(b, run) / e.peak_flop_s
    return max(mem, comp) + rest, mem + comp + rest


@_check.finite
def prefill_required_flop_s(run: Run = measurements.RUN) -> float:
    """The compute rate the measured prefill implies for its layers and attention, once the
    elementwise time (bytes / copy bandwidth) and the one-row LM head (weights / skinny bandwidth)
    are taken out: (2 (N - N_head) P + 2 P^2 d L) / (measured - those two times).

    >>> round(prefill_required_flop_s() / 1e12)
    650
    """
    data = measurements.load(_run(run))
    pre = data["prefill"]
    w = prefill_work(int(pre["P"]), "last", run)
    e = efficiencies(run=run)
    rest = pre["s_median"] - w.elementwise_B / e.kv_Bps - w.lm_head_B / e.weight_Bps
    if rest <= 0:
        raise ValueError(f"run: measured prefill of {run!r} is shorter than its elementwise and LM-head time")
    return (w.layer_flops + w.attention_flops) / rest


@_check.finite
def matmul_slowdown(m: int, run: Run = measurements.RUN) -> float:
    """Measured time of the 8192 x 8192 matmul at M rows over its time at M = 1.

    The skinny bandwidth holds while this stays near 1; at M = 128 the matmul is 3.6% slower.

    >>> round(matmul_slowdown(128), 3)
    1.036
    """
    m = _check.count("m", m, "rows")
    rows = {r["M"]: r["s_median"] for r in measurements.load(_run(run))["matmul_roofline"]}
    if m not in rows:
        raise ValueError(f"m: the sweep measured M in {sorted(rows)}, not {m}")
    return float(rows[m] / rows[1])


@dataclass(frozen=True)
class DecodeTerms:
    """The terms of the sequential model (equation eq-decode-seq) of one decode step, in seconds:
    the weight reads and the matmuls' compute (the larger counts), the KV reads, the elementwise
    bytes. What a per-kernel profile of the step is checked against, category by category."""
    weights_s: float
    compute_s: float
    kv_s: float
    elementwise_s: float

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("weights_s", "compute_s", "kv_s", "elementwise_s"):
            _check.non_negative(name, getattr(self, name), "s")

    @property
    def matmul_s(self) -> float:
        """The weight matmuls: max(weight reads, compute)."""
        return max(self.weights_s, self.compute_s)

    @property
    def total_s(self) -> float:
        """The step: matmuls + KV reads + elementwise kernels, one after the other
        (:func:`infra_lib.roofline.sequential_step_s`, the formula's one home)."""
        return roofline.sequential_step_s(self.compute_s, self.weights_s, self.kv_s + self.elementwise_s)


@_check.finite
def decode_terms(batch: int, context: int, eff: Efficiencies, run: Run = measurements.RUN) -> DecodeTerms:
    """The sequential model's terms at ``batch`` and ``context``; their total is :func:`decode_step_s`.

    >>> d = decode_terms(128, 1000, efficiencies())
    >>> round(d.weights_s * 1e3, 2), round(d.compute_s * 1e3, 2), round(d.kv_s * 1e3, 2)
    (5.22, 2.45, 3.96)
    """
    b = _check.count("batch", batch, "requests")
    t = _check.count("context", context, "tokens")
    e = _check.instance("eff", eff, Efficiencies)
    s = _shape(run)
    w = weight_read_B(run)
    return DecodeTerms(w / e.weight_Bps, _weights_flops(b, run) / e.peak_flop_s, b * t * s["kv_bytes_per_token"] / e.kv_Bps,
                       elementwise_B(b, run) / e.kv_Bps)


def _measured_step(batch: int, context: int, run: Run) -> float:
    for r in measurements.load(_run(run))["decode"]:
        if r["batch"] == batch and r["ctx"] == context:
            return measurements.step_s(r)
    have = ", ".join(f"({r['batch']}, {r['ctx']})" for r in measurements.load(_run(run))["decode"])
    raise ValueError(f"batch, context: no measured decode step at ({batch}, {context}); measured: {have}")


@_check.finite
def implied_kv_Bps(batch: int, context: int, eff: Efficiencies, run: Run = measurements.RUN) -> float:
    """The rate at which a measured step's attention streamed its KV cache, if everything else ran
    as the model says: KV bytes / (measured - matmuls - elementwise time).

    >>> round(implied_kv_Bps(64, 1000, efficiencies()) / 1e12, 2), round(implied_kv_Bps(128, 1000, efficiencies()) / 1e12, 2)
    (4.31, 3.19)
    """
    b = _check.count("batch", batch, "requests")
    t = _check.count("context", context, "tokens")
    e = _check.instance("eff", eff, Efficiencies)
    d = decode_terms(b, t, e, run)
    rest = _measured_step(b, t, run) - d.matmul_s - d.elementwise_s
    if rest <= 0:
        raise ValueError(f"batch, context: the measured step at ({b}, {t}) leaves no time for attention")
    return d.kv_s * e.kv_Bps / rest


@dataclass(frozen=True)
class GapBudget:
    """A measured decode step the model underpredicts, and what each candidate cause would need
    to absorb the part the matmul sweep does not explain.

    ``sweep_s``: the measured slowdown of the 8192 x 8192 matmul at M = batch over M = 1, applied to
    the weight reads; ``kv_Bps_needed``: the KV rate if attention alone took the rest;
    ``weight_Bps_needed``: the weight-read rate if the matmuls alone took the whole gap;
    ``flop_s_needed``: the compute rate at which the matmuls' compute would last as long as their
    reads plus the whole gap (a clock or power limit would have to bring compute that low)."""
    measured_s: float
    predicted_s: float
    sweep_s: float
    kv_Bps_needed: float
    weight_Bps_needed: float
    flop_s_needed: float

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("measured_s", "predicted_s", "kv_Bps_needed", "weight_Bps_needed", "flop_s_needed"):
            _check.positive(name, getattr(self, name), "s, bytes/s or FLOP/s")

    @property
    def gap_s(self) -> float:
        """Measured - predicted."""
        return self.measured_s - self.predicted_s

    @property
    def unexplained_s(self) -> float:
        """The gap less what the matmul sweep accounts for."""
        return self.gap_s - self.sweep_s


@_check.finite
def gap_budget(batch: int, context: int, eff: Efficiencies, run: Run = measurements.RUN) -> GapBudget:
    """The measured step at ``batch`` and ``context`` against the model: see :class:`GapBudget`.

    Batch 128 at 1,000 tokens: 10.71 ms measured, 9.40 ms predicted; the sweep's 3.6% slowdown at
    M = 128 covers 0.19 ms of the 1.31 ms.

    >>> g = gap_budget(128, 1000, efficiencies())
    >>> round(g.gap_s * 1e3, 2), round(g.sweep_s * 1e3, 2), round(g.unexplained_s * 1e3, 2)
    (1.31, 0.19, 1.12)
    """
    b = _check.count("batch", batch, "requests")
    t = _check.count("context", context, "tokens")
    e = _check.instance("eff", eff, Efficiencies)
    d = decode_terms(b, t, e, run)
    measured = _measured_step(b, t, run)
    sweep = (matmul_slowdown(b, run) - 1) * d.weights_s
    rest = measured - d.total_s - sweep
    if rest <= 0:
        raise ValueError(f"batch, context: the model with the sweep's slowdown does not underpredict ({b}, {t})")
    w = weight_read_B(run)
    return GapBudget(measured, d.total_s, sweep, d.kv_s * e.kv_Bps / (d.kv_s + rest),
                     w / (d.weights_s + sweep + rest), w * b / (d.weights_s + sweep + rest))


@_check.finite
def layer_matmuls(run: Run = measurements.RUN) -> dict[str, tuple[int, int]]:
    """The weight matrices of one layer as the measured script builds them, (K, N), and the LM head:
    Q, K and V fused into one d x (H + 2 H_kv) d_h matmul, the output projection, gate and up fused
    into one d x 2F, the down projection, and the d x vocab LM head.

    >>> layer_matmuls()["qkv"], layer_matmuls()["o"]
    ((4096, 6144), (4096, 4096))
    """
    s = _shape(run)
    d, hd = s["d"], s["head_dim"]
    return {"qkv": (d, (s["heads"] + 2 * s["kv_heads"]) * hd), "o": (s["heads"] * hd, d),
            "gate_up": (d, 2 * s["ffn"]), "down": (s["ffn"], d), "lm_head": (d, s["vocab"])}


@_check.finite
def matmul_waves(batch: int, tile: int, sm_count: int, run: Run = measurements.RUN) -> dict[str, cuda.Waves]:
    """Each of :func:`layer_matmuls` at ``batch`` rows cut into ``tile`` x ``tile`` output tiles,
    one per SM without split-K: how many waves, and the fraction of SM slots busy.

    At batch 128 with 128 x 128 tiles on 132 SMs, the output and down projections (4,096 columns)
    have 32 tiles: a quarter of the SMs.

    >>> w = matmul_waves(128, 128, 132)
    >>> w["o"].waves, round(w["o"].efficiency, 3), w["gate_up"].waves
    (1, 0.242, 2)
    """
    b = _check.count("batch", batch, "rows")
    tl = _check.count("tile", tile, "rows and columns")
    sms = _check.count("sm_count", sm_count, "SMs")
    return {name: cuda.wave_quantization(cuda.output_tiles(b, n, tl, tl), sms)
            for name, (_, n) in layer_matmuls(run).items()}
