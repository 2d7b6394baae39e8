"""Chapter 7 widget: memory per GPU of a mixed-precision Adam training job, for the reader's
model size, ZeRO stage, data-parallel degree, recomputation and sequence length.

Calls :func:`infra_lib.training_memory.gpu_memory` on the shape of
:func:`infra_lib.training_memory.teaching_shape` (micro-batch 1) and compares the total with the
H200's memory from the registry.
"""
from typing import Any

from .. import _check, hardware, training_memory, units
from ..i18n import t
from .panel import Control, Panel, Result

RECOMPUTE = ("none", "selective", "full")
_H200_B = hardware.usable_memory_B("h200_sxm").value_B   # what CUDA reports (chapter 4)

CONTROLS = (
    Control("params_b", "ch7_w_params_b", float, 8, 1, 400, 1, aliases=("params",)),
    Control("stage", "ch7_w_stage", int, 1, 0, 3, 1),   # ZeRO-1: the data-parallel degree matters
    Control.choice("dp", "ch7_w_dp", (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024), 8, aliases=("shards",)),
    Control.named("recompute", "ch7_w_recompute", ("w_opt_recompute_none", "w_opt_recompute_selective",
                                                   "w_opt_recompute_full"), 0),
    Control.choice("seq", "ch7_w_seq", (1024, 2048, 4096, 8192, 16384, 32768), 4096),
)


def summary(lang: str, params_b: float, stage: int, dp: int, recompute: int, seq: int) -> Result:
    """Per-GPU memory by part, the largest part, and whether it fits in one H200.

    >>> summary("en", 8, 0, 8, 2, 4096).rows[-1][1]
    'optimizer states'
    """
    p = _check.positive("params_b", params_b, "billion parameters") * 1e9
    stage = _check.count("stage", stage, "", minimum=0)
    dp = _check.count("dp", dp, "GPUs")
    seq = _check.count("seq", seq, "tokens")
    recompute = _check.count("recompute", recompute, "", minimum=0)
    if recompute > 2:
        raise ValueError(f"recompute must be 0, 1 or 2, got {recompute!r}")
    shape = training_memory.teaching_shape(p)
    m = training_memory.gpu_memory(p, shape.layers, seq, 1, shape.hidden, shape.heads, stage=stage,
                                   shards=dp, recompute=RECOMPUTE[recompute])
    gb = lambda b: f"{b / units.GB:,.1f} GB"
    fits = "ch7_w_fits" if m.total_B <= _H200_B else "ch7_w_no_fit"
    return Result((
        (t("ch7_w_weights", lang), gb(m.weights_B)),
        (t("ch7_w_grads", lang), gb(m.grads_B)),
        (t("ch7_w_optimizer", lang), gb(m.optimizer_B)),
        (t("ch7_w_activations", lang), gb(m.activations_B)),
        (t("ch7_w_total", lang), gb(m.total_B) + f" · {t(fits, lang)}"),
        (t("ch7_w_dominant", lang), t(f"ch7_w_{m.largest}", lang)),
    ))


PANEL = Panel(CONTROLS, summary)


def explore(lang: str = "en") -> Any:
    """Sliders for model size, ZeRO stage, data-parallel degree, recomputation and sequence length."""
    return PANEL.build(lang)
