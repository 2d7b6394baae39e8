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


@lru_cache(maxsize=None)
def load(run: str = RUN, name: str = "reality_check") -> Any:
    """The parsed JSON file ``name`` ('reality_check' or 'ladder') of measurement run ``run``."""
    path = DATA_DIR / run / f"{name}.json"
    if not path.exists():
        have = sorted(p.name for p in DATA_DIR.iterdir())
        raise FileNotFoundError(f"no measurement file {run}/{name}.json; runs available: {', '.join(have)}")
    return json.loads(path.read_text(encoding="utf-8"))


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

    @property
    def error(self) -> float:
        """(predicted - measured) / measured, against the CUDA-graph timing."""
        return (self.predicted_s - self.measured_graph_s) / self.measured_graph_s

    @property
    def achieved_Bps(self) -> float:
        return self.read_B / self.measured_graph_s


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


def skinny_matmul_Bps(run: str = RUN) -> float:
    """Effective bandwidth of the 8192x8192 bf16 matmul with one input row (M = 1)."""
    return float(_skinny_row(run)["GBps"] * 1e9)


def skinny_matmul_n(run: str = RUN) -> int:
    """N of the N x N weight matrix in the matmul benchmark: FLOPs = 2 * M * N * N at M = 1."""
    return round((_skinny_row(run)["flops"] / 2) ** 0.5)


def _skinny_row(run: str) -> Any:
    """The M = 1 row of the run's matmul benchmark; a run without one is an error that says so."""
    for row in load(run)["matmul_roofline"]:
        if row["M"] == 1:
            return row
    raise ValueError(f"measurement run {run!r} has no matmul_roofline row with M = 1")
