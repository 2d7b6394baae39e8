"""Chapter 6 widget: pick which microbenchmark feeds each term of the H200 model and watch the
error table against the measured decode steps and prefill change.

Calls :func:`infra_lib.decode_model.predictions` and :func:`infra_lib.decode_model.mean_abs_error`.
"""
from typing import Any

from .. import _check, decode_model
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


def summary(lang: str, weights: int, kv: int, compute: int, overlap: int) -> Result:
    """One row per measured configuration (measured, predicted, error), then the mean absolute error.

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
                                     decode_model.COMPUTE_SOURCES[c], bool(o))
    rows = []
    for p in preds:
        name = (t("ch6_w_config", lang, b=p.batch, c=p.context) if p.phase == "decode"
                else t("w_paren", lang, text=t("ch6_prefill", lang), inner=f"{p.context:,}"))
        rows.append((name, f"{p.measured_s * 1e3:,.2f} ms", f"{p.predicted_s * 1e3:,.2f} ms", f"{p.error:+.1%}"))
    mae = decode_model.mean_abs_error(preds)
    rows.append((t("ch6_w_mae", lang), "", t("ch6_w_goal_met" if mae <= GOAL else "ch6_w_goal_missed", lang),
                 f"{mae:.1%}"))
    return Result(tuple(rows), header=("", t("ch6_w_measured", lang), t("ch6_w_predicted", lang), t("ch6_w_error", lang)), align="lrrr")


PANEL = Panel(CONTROLS, summary)


def explore(lang: str = "en") -> Any:
    """The panel's widget for ``lang``."""
    return PANEL.build(lang)
