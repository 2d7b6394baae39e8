"""Chapter 6 widget: pick which microbenchmark feeds each term of the H200 model and watch the
error table against the measured decode steps and prefill change.

Calls :func:`infra_lib.decode_model.predictions` and :func:`infra_lib.decode_model.mean_abs_error`.
"""
import functools
from pathlib import Path
from typing import Any

from .. import _check, decode_model, measurements
from ..i18n import t
from .panel import Control, Panel, Result

GOAL = 0.05

# the names of decode_model's sources, in its order (a source added there without a name here is an
# error on import: Control.named checks one name per option)
BANDWIDTH_NAMES = {"skinny": "w_opt_bw_skinny", "copy": "w_opt_bw_copy", "read": "w_opt_bw_read",
                   "datasheet": "w_opt_datasheet"}
COMPUTE_NAMES = {"matmul": "w_opt_fl_matmul", "matmul_8192": "w_opt_fl_8192", "datasheet": "w_opt_datasheet"}
_bw = tuple(BANDWIDTH_NAMES[s] for s in decode_model.WEIGHT_SOURCES)

CONTROLS = (
    Control.named("weights", "ch6_w_weights", _bw, 0),
    Control.named("kv", "ch6_w_kv", _bw, 1),
    Control.named("compute", "ch6_w_compute", tuple(COMPUTE_NAMES[s] for s in decode_model.COMPUTE_SOURCES), 0),
    Control.named("overlap", "ch6_w_overlap", ("w_opt_kv_after", "w_opt_kv_overlap"), 0),
)


def summary(lang: str, weights: int, kv: int, compute: int, overlap: int,
            run: str | Path = measurements.RUN) -> Result:
    """One row per measured configuration (measured, predicted, error), then the mean absolute error,
    for measurement run ``run``: the course's H200 run, or a folder written by ``infra_lib.gpu_bench``.

    >>> summary("en", 0, 1, 0, 0).rows[-1][3]
    '4.7%'
    """
    n = len(decode_model.WEIGHT_SOURCES)
    w = _check.count("weights", weights, "", minimum=0)
    k = _check.count("kv", kv, "", minimum=0)
    c = _check.count("compute", compute, "", minimum=0)
    o = _check.count("overlap", overlap, "", minimum=0)
    for name, v, top in (("weights", w, n - 1), ("kv", k, n - 1),
                         ("compute", c, len(decode_model.COMPUTE_SOURCES) - 1), ("overlap", o, 1)):
        if v > top:
            raise ValueError(f"{name} must be at most {top}, got {v}")
    preds = decode_model.predictions(decode_model.WEIGHT_SOURCES[w], decode_model.WEIGHT_SOURCES[k],
                                     decode_model.COMPUTE_SOURCES[c], bool(o), run=run)
    rows = []
    for p in preds:
        name = (t("ch6_w_config", lang, b=p.batch, c=f"{p.context:,}") if p.phase == "decode"
                else t("w_paren", lang, text=t("ch6_prefill", lang), inner=f"{p.context:,}"))
        rows.append((name, f"{p.measured_s * 1e3:,.2f} ms", f"{p.predicted_s * 1e3:,.2f} ms", f"{p.error:+.1%}"))
    mae = decode_model.mean_abs_error(preds)
    rows.append((t("ch6_w_mae", lang), "", t("ch6_w_goal_met" if mae <= GOAL else "ch6_w_goal_missed", lang),
                 f"{mae:.1%}"))
    return Result(tuple(rows), header=("", t("ch6_w_measured", lang), t("ch6_w_predicted", lang), t("ch6_w_error", lang)), align="lrrr")


def run_caption(lang: str, run: str | Path = measurements.RUN) -> str:
    """One HTML paragraph naming the machine, run and date the table's measurements come from.

    >>> run_caption("en")
    '<p>Measured on NVIDIA H200, run h200-2026-11-29 (2026-11-29); decode steps timed as replays of a CUDA graph.</p>'
    """
    import html
    meta = measurements.info(run)
    graphs = all(r.get("s_graph") is not None for r in measurements.load(run)["decode"])
    name = measurements.run_name(run)
    text = t("ch6_run_caption", lang, device=meta["device"], run=name, date=meta["date"],
             how=t("ch6_run_graph" if graphs else "ch6_run_eager", lang))
    return f"<p>{html.escape(text)}</p>"


PANEL = Panel(CONTROLS, summary)


def explore(lang: str = "en", run: str | Path = measurements.RUN) -> Any:
    """The panel's widget for ``lang``, on measurement run ``run`` (see :func:`summary`)."""
    if run == measurements.RUN:
        return PANEL.build(lang)
    measurements.folder(run)                  # a run that does not exist is an error now, not on a slider
    return Panel(CONTROLS, functools.partial(summary, run=run)).build(lang)
