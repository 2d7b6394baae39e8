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

The prefill of P tokens is compute-bound: t = (2 N P + 2 P^2 d L) / F + B_ew(P) / BW_kv.
N counts the weights a token multiplies (every weight except the embedding table).
"""
from dataclasses import dataclass

from . import _check, generations, hardware, measurements, models

WEIGHT_SOURCES = ("skinny", "copy", "read", "datasheet")
COMPUTE_SOURCES = ("matmul", "matmul_8192", "datasheet")


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


def _bandwidth(name: str, source: str, run: str) -> float:
    source = _check.choice(name, source, WEIGHT_SOURCES)
    if source == "skinny":
        return measurements.skinny_matmul_Bps(run)
    if source == "datasheet":
        return hardware.value("h200_sxm", "mem_bw_Bps")
    return float(measurements.load(run)[source]["GBps"] * 1e9)


@_check.finite
def efficiencies(weights: str = "skinny", kv: str = "copy", compute: str = "matmul",
                 run: str = measurements.RUN) -> Efficiencies:
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
        peak = max(r["TFLOPs"] for r in measurements.load(run)["matmul_roofline"]) * 1e12
    elif c == "matmul_8192":
        peak = float(measurements.load(run, "ladder")["bf16_TFLOPs"]) * 1e12
    else:
        peak = generations.dense_bf16_flop_s("h200_sxm")
    return Efficiencies(w, k, float(peak))


def _shape(run: str) -> dict[str, int]:
    return dict(measurements.load(run)["model"])


@_check.finite
def params_read(run: str = measurements.RUN) -> int:
    """Parameters a forward pass multiplies through: all but the embedding table (vocab x d_model),
    which is looked up, not read whole.

    >>> params_read()
    7504924672
    """
    s = _shape(run)
    return s["params"] - s["vocab"] * s["d"]


@_check.finite
def weight_read_B(run: str = measurements.RUN) -> float:
    """Weight bytes a decode step reads: :func:`params_read` in BF16 (two bytes each).

    >>> weight_read_B()
    15009849344.0
    """
    return models.weight_B(params_read(run))


def _prefill_flops(prompt_tokens: int, run: str) -> float:
    """2 N P + 2 P^2 d L: the matmuls of P tokens through N parameters, and attention's scores
    and weighted sum (the measured run's shape)."""
    s, p = _shape(run), prompt_tokens
    return models.forward_flops_per_token(params_read(run)) * p + 2.0 * p * p * s["d"] * s["layers"]


@_check.finite
def elementwise_B(tokens: int, run: str = measurements.RUN) -> float:
    """Bytes of the non-matmul kernels for ``tokens`` tokens through every layer (BF16).

    Per token and layer: two RMSNorms (read and write d each: 4d), two residual adds (read 2d,
    write d each: 6d), SwiGLU (read gate and up, write one: 3F), the KV-cache append (4 H_kv d_h):
    (10 d + 3 F + 4 H_kv d_h) x 2 bytes x layers. Llama-3-8B: 176,128 bytes per token and layer.

    >>> elementwise_B(1) / 32
    176128.0
    """
    n = _check.count("tokens", tokens, "tokens")
    s = _shape(run)
    per = 10 * s["d"] + 3 * s["ffn"] + 4 * s["kv_heads"] * s["head_dim"]
    return float(n * s["layers"] * per * 2)


@_check.finite
def decode_step_s(batch: int, context: int, eff: Efficiencies, overlap: bool = False,
                  run: str = measurements.RUN) -> float:
    """Predicted decode step (see the module docstring); ``overlap`` picks the overlapped model.

    Batch 1, 1,000 tokens of context, sequential: 15.01 GB / 2.87 TB/s + 0.136 GB / 4.24 TB/s.

    >>> round(decode_step_s(1, 1000, efficiencies()) * 1e3, 3)
    5.256
    """
    b = _check.count("batch", batch, "requests")
    t = _check.count("context", context, "tokens")
    e = _check.instance("eff", eff, Efficiencies)
    s = _shape(run)
    w = weight_read_B(run)
    kv = float(b * t * s["kv_bytes_per_token"])
    ew = elementwise_B(b, run)
    mm_flops = w * b                      # 2 FLOPs per 2-byte weight per token
    attn_flops = 4.0 * b * t * s["heads"] * s["head_dim"] * s["layers"]
    if _check.flag("overlap", overlap):
        return max((w + kv + ew) / e.weight_Bps, (mm_flops + attn_flops) / e.peak_flop_s)
    return max(w / e.weight_Bps, mm_flops / e.peak_flop_s) + (kv + ew) / e.kv_Bps


@_check.finite
def prefill_s(prompt_tokens: int, eff: Efficiencies, run: str = measurements.RUN) -> float:
    """Predicted prefill: (2 N P + 2 P^2 d L) / F + elementwise bytes / BW_kv. Eq. eq-prefill-model.

    >>> round(prefill_s(2000, efficiencies()) * 1e3, 2)
    42.23
    """
    p = _check.count("prompt_tokens", prompt_tokens, "tokens")
    e = _check.instance("eff", eff, Efficiencies)
    return _prefill_flops(p, run) / e.peak_flop_s + elementwise_B(p, run) / e.kv_Bps


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
                run: str = measurements.RUN) -> list[Prediction]:
    """Every measured decode configuration (CUDA-graph timings) and the prefill, predicted.

    >>> [round(100 * p.error, 1) for p in predictions()]
    [2.3, 2.7, -1.8, 0.9, 1.5, 0.0, -12.7, -13.2]
    """
    eff = efficiencies(weights, kv, compute, run)
    data = measurements.load(run)
    out = [Prediction("decode", r["batch"], r["ctx"], decode_step_s(r["batch"], r["ctx"], eff, overlap, run),
                      r["s_graph"]) for r in data["decode"]]
    pre = data["prefill"]
    out.append(Prediction("prefill", pre["batch"], pre["P"], prefill_s(pre["P"], eff, run), pre["s_median"]))
    return out


@_check.finite
def mean_abs_error(preds: list[Prediction]) -> float:
    """Mean of |error| over the predictions. Equation eq-mae in chapter 6.

    >>> round(mean_abs_error(predictions()), 4)
    0.044
    """
    if not isinstance(preds, list) or not preds:
        raise ValueError("preds: need a non-empty list of Prediction")
    for p in preds:
        _check.instance("preds", p, Prediction)
    return sum(abs(p.error) for p in preds) / len(preds)


@_check.finite
def ridge_bracket_s(batch: int, context: int, eff: Efficiencies, run: str = measurements.RUN) -> tuple[float, float]:
    """The sequential model with its weight matmuls at max(memory, compute) and at their sum.

    Near the ridge neither bound holds: the measured matmul at M = 128 is already slower than its
    memory time. The two predictions bracket a step whose matmuls are partly compute-bound.

    >>> lo, hi = ridge_bracket_s(128, 1000, efficiencies())
    >>> round(lo * 1e3, 2), round(hi * 1e3, 2)
    (9.35, 11.8)
    """
    b = _check.count("batch", batch, "requests")
    t = _check.count("context", context, "tokens")
    e = _check.instance("eff", eff, Efficiencies)
    s = _shape(run)
    w = weight_read_B(run)
    rest = (b * t * s["kv_bytes_per_token"] + elementwise_B(b, run)) / e.kv_Bps
    mem, comp = w / e.weight_Bps, w * b / e.peak_flop_s
    return max(mem, comp) + rest, mem + comp + rest


@_check.finite
def prefill_required_flop_s(run: str = measurements.RUN) -> float:
    """The compute rate the measured prefill implies once its elementwise time is taken out.

    FLOPs (2 N P + 2 P^2 d L) / (measured time - elementwise bytes / copy bandwidth).

    >>> round(prefill_required_flop_s() / 1e12)
    675
    """
    data = measurements.load(run)
    pre = data["prefill"]
    p = int(pre["P"])
    flops = _prefill_flops(p, run)
    rest = pre["s_median"] - elementwise_B(p, run) / efficiencies(run=run).kv_Bps
    if rest <= 0:
        raise ValueError(f"run: measured prefill of {run!r} is shorter than its elementwise time")
    return flops / rest


@_check.finite
def matmul_slowdown(m: int, run: str = measurements.RUN) -> float:
    """Measured time of the 8192 x 8192 matmul at M rows over its time at M = 1.

    The skinny bandwidth holds while this stays near 1; at M = 128 the matmul is 3.6% slower.

    >>> round(matmul_slowdown(128), 3)
    1.036
    """
    m = _check.count("m", m, "rows")
    rows = {r["M"]: r["s_median"] for r in measurements.load(run)["matmul_roofline"]}
    if m not in rows:
        raise ValueError(f"m: the sweep measured M in {sorted(rows)}, not {m}")
    return float(rows[m] / rows[1])
