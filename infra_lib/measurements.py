"""Real measurements on one NVIDIA H200 SXM (2026-11-29), and the model checked against them.

The files in ``data/measurements/h200-2026-11-29/`` are copied unchanged from the run; the
README there says how each number was taken (CUDA events, median of 10-20 repetitions).
"""
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import _check, hardware

RUN = "h200-2026-11-29"
DATA_DIR = Path(__file__).parent / "data" / "measurements"
_USED: dict[str, None] = {}      # the runs read since reset_usage(), in order: a page's Sources list them


def reset_usage() -> None:
    """Forget which runs were read (a page starts; :func:`infra_lib.sources.reset` calls it)."""
    _USED.clear()


def used_runs() -> list[str]:
    """The measurement runs :func:`load` read since :func:`reset_usage`, in the order first read."""
    return list(_USED)


def runs() -> list[str]:
    """The measurement runs shipped with the course (folders of ``data/measurements/``)."""
    return sorted(p.name for p in DATA_DIR.iterdir() if p.is_dir())


def load(run: str = RUN, name: str = "reality_check") -> Any:
    """The parsed JSON file ``name`` ('reality_check' or 'ladder') of measurement run ``run``.

    An unknown run or file is a KeyError that names the nearest known ones.
    """
    run, name = _check.text("run", run), _check.text("name", name)
    have = runs()
    if run not in have:
        raise _check.UnknownName(f"run: unknown measurement run {run!r}{_check.nearest(run, have)}; "
                                 f"runs available: {', '.join(have)}")
    files = sorted(p.stem for p in (DATA_DIR / run).glob("*.json"))
    if name not in files:
        raise _check.UnknownName(f"name: run {run!r} has no measurement file {name!r}"
                                 f"{_check.nearest(name, files)}; it has: {', '.join(files)}")
    _USED.setdefault(run, None)
    return _load(run, name)


@lru_cache(maxsize=None)
def _load(run: str, name: str) -> Any:
    return json.loads((DATA_DIR / run / f"{name}.json").read_text(encoding="utf-8"))


@_check.finite
def copy_efficiency(run: str = RUN) -> float:
    """Measured device-to-device copy bandwidth over the H200's datasheet 4.8 TB/s.

    Used as eta_B in the decode prediction. It is taken from the copy benchmark, not fitted
    to the decode timings it is then compared with.
    """
    return float(load(run)["copy"]["GBps"] * 1e9 / hardware.value("h200_sxm", "mem_bw_Bps"))


@dataclass(frozen=True)
class DecodeCheck:
    """One measured decode step of the H200 run against the bandwidth model's prediction.

    ``read_B`` is the least the step must read: the weights once plus the KV cache of every
    sequence (the run's ``bytes_min``).
    """
    batch: int
    context: int
    read_B: float
    predicted_s: float
    measured_graph_s: float
    measured_eager_s: float

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("read_B", "predicted_s", "measured_graph_s", "measured_eager_s"):
            _check.positive(name, getattr(self, name), "(bytes or seconds)")

    @property
    def error(self) -> float:
        """(predicted - measured) / measured, against the CUDA-graph timing."""
        return (self.predicted_s - self.measured_graph_s) / self.measured_graph_s

    @property
    def achieved_Bps(self) -> float:
        return self.read_B / self.measured_graph_s


@_check.finite
def decode_check(batch: int, context: int = 1000, run: str = RUN) -> DecodeCheck:
    """Predicted vs measured decode step of the Llama-3-8B-shaped model on the H200.

    prediction = bytes read (weights + KV of every sequence) / (eta_B x 4.8 TB/s),
    with eta_B from :func:`copy_efficiency`.
    """
    batch = _check.count("batch", batch, "requests")
    context = _check.count("context", context, "tokens")
    rows = load(run)["decode"]
    for row in rows:
        if row["batch"] == batch and row["ctx"] == context:
            bw = copy_efficiency(run) * hardware.value("h200_sxm", "mem_bw_Bps")
            return DecodeCheck(batch, context, row["bytes_min"], row["bytes_min"] / bw,
                               row["s_graph"], row["s_eager"])
    have = ", ".join(f"(batch={r['batch']}, context={r['ctx']})" for r in rows)
    raise ValueError(f"no decode measurement for batch={batch}, context={context}; measured: {have}")


@_check.finite
def decode_checks(run: str = RUN) -> list[DecodeCheck]:
    """Every configuration of the run's decode sweep, predicted against measured, in the run's order.

    The same prediction as :func:`decode_check` (bytes read / (eta_B x datasheet bandwidth), eta_B
    from the copy benchmark, taken once and not fitted to these timings), for each measured
    (batch, context); the H200 run has batch 1 to 128 at contexts 1,000 to 4,000.

    >>> cs = decode_checks()
    >>> len(cs), min(c.batch for c in cs), max(c.batch for c in cs)
    (7, 1, 128)
    >>> [round(100 * c.error) for c in cs]
    [-31, -30, -32, -27, -23, -24, -30]
    """
    return [decode_check(row["batch"], row["ctx"], run) for row in load(run)["decode"]]


@_check.finite
def worst_error(checks: list[DecodeCheck]) -> DecodeCheck:
    """The check whose prediction is furthest from its measurement (largest |error|)."""
    if not checks:
        raise ValueError("checks: need at least one DecodeCheck")
    return max(checks, key=lambda c: abs(c.error))


@_check.finite
def skinny_matmul_Bps(run: str = RUN) -> float:
    """Effective bandwidth of the 8192x8192 bf16 matmul with one input row (M = 1)."""
    return float(_skinny_row(run)["GBps"] * 1e9)


@_check.finite
def skinny_matmul_n(run: str = RUN) -> int:
    """N of the N x N weight matrix in the matmul benchmark: FLOPs = 2 * M * N * N at M = 1."""
    return round((_skinny_row(run)["flops"] / 2) ** 0.5)


def _skinny_row(run: str) -> Any:
    """The M = 1 row of the run's matmul benchmark; a run without one is an error that says so."""
    for row in load(run)["matmul_roofline"]:
        if row["M"] == 1:
            return row
    raise ValueError(f"measurement run {run!r} has no matmul_roofline row with M = 1")
