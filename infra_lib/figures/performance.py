"""Chapter 6 figures: the measured matmul roofline over the model, and the model-vs-measurement errors."""
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from ..decode_model import Efficiencies, Prediction
from ..i18n import t
from .roofline import draw_roof, mark
from .style import COLORS, finish, setup


def measured_roofline(rows: Sequence[dict[str, float]], eff: Efficiencies, datasheet_flop_s: float,
                      datasheet_Bps: float, lang: str) -> Figure:
    """The H200's matmul sweep (``rows`` of the run: intensity, TFLOPs) over two roofs: the
    datasheet's and the model's (large-matmul peak, skinny-matmul bandwidth)."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.4, 4.6))
    rng = (0.5, 6000.0)
    draw_roof(ax, datasheet_flop_s, datasheet_Bps, rng, color=COLORS["grey"], lw=1.5,
              label=t("ch6_roof_datasheet", lang), ridge="tick")
    roof = draw_roof(ax, eff.peak_flop_s, eff.weight_Bps, rng, label=t("ch6_roof_model", lang))
    roof.label_ridge(f"{t('ridge', lang)} ≈ {roof.ridge_point:.0f}")
    for i, r in enumerate(rows):
        mark(ax, r["intensity"], r["TFLOPs"] * 1e12, color=COLORS["compute"], ms=6,
             label=(f"M = {int(r['M'])}" if int(r["M"]) in (1, 128, 4096) else None),
             xytext=(10, -4) if int(r["M"]) != 4096 else (-20, -24), fontsize=9)
    ax.plot([], [], "o", color=COLORS["compute"], label=t("ch6_measured_mm", lang))
    ax.set_xlabel(t("intensity", lang))
    ax.set_ylabel(t("attainable", lang))
    ax.legend(loc="lower right", fontsize=9)
    return finish(fig)


def model_errors(seq: Sequence[Prediction], ovl: Sequence[Prediction], goal: float, lang: str) -> Figure:
    """Error of each configuration (decode at batch/context, then prefill), sequential and overlapped models."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.4, 4.2))
    names = [(f"{p.batch}/{p.context}" if p.phase == "decode" else t("ch6_prefill", lang)) for p in seq]
    x = range(len(seq))
    ax.bar([i - 0.2 for i in x], [100 * p.error for p in seq], 0.4, color=COLORS["memory"],
           label=t("ch6_model_seq", lang))
    ax.bar([i + 0.2 for i in x], [100 * p.error for p in ovl], 0.4, color=COLORS["grey"],
           label=t("ch6_model_ovl", lang))
    ax.axhspan(-100 * goal, 100 * goal, color=COLORS["compute"], alpha=0.12, label=t("ch6_goal_band", lang))
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xticks(list(x), names, fontsize=9)
    ax.set_xlabel(t("ch6_config", lang))
    ax.set_ylabel(t("ch6_error_pct", lang))
    ax.legend(fontsize=9, loc="lower left")
    return finish(fig)
