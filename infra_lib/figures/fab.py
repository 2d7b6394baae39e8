"""Figures of chapter 1 (how chips are made): yield, dies and cost per wafer, supply.

(The chapter's HBM figure is :func:`infra_lib.figures.memory.hbm_bandwidth`.)

Each function takes the numbers to draw (or computes them with :mod:`infra_lib.fab` and
:mod:`infra_lib.supply`) and ``lang``, calls :func:`style.setup`, closes the figure and returns it.
"""
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter
import numpy as np
from matplotlib.figure import Figure

from .. import fab, supply
from ..i18n import t
from .style import COLORS, finish, setup

MODEL_COLORS = {"poisson": COLORS["compute"], "murphy": COLORS["memory"], "negative_binomial": COLORS["accent"]}
SUPPLY_KEYS = {"logic": "fab_logic", "packaging": "fab_packaging", "hbm": "fab_hbm"}
SUPPLY_COLORS = {"logic": COLORS["memory"], "packaging": COLORS["accent"], "hbm": COLORS["compute"]}


def _model_label(model: str, alpha: float | None, lang: str) -> str:
    return t(f"fab_{model}", lang, alpha=alpha) if model == "negative_binomial" else t(f"fab_{model}", lang)


def yield_curves(d0_per_cm2: float, alpha: float, marks: Sequence[tuple[str, float]], lang: str,
                 max_area_mm2: float = 1000) -> Figure:
    """Die yield against die area for the three models at one defect density.

    ``marks``: list of (label, area mm²) drawn as points on the Murphy curve; the reticle is a
    dashed line.
    """
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    a = np.linspace(10, max_area_mm2, 300)
    for model in fab.MODELS:
        curve = [fab.die_yield(x, d0_per_cm2, model, alpha) for x in a]
        ax.plot(a, curve, color=MODEL_COLORS[model], lw=2, label=_model_label(model, alpha, lang))
    reticle = fab.reticle_area_mm2()
    ax.axvline(reticle, color=COLORS["grey"], ls="--", lw=1)
    ax.annotate(t("fab_reticle", lang, area=reticle), (reticle, 0.97), xytext=(-6, 0), textcoords="offset points",
                ha="right", va="top", color=COLORS["grey"], fontsize=9)
    for i, (label, area) in enumerate(marks):
        y = fab.murphy_yield(area, d0_per_cm2)
        ax.plot([area], [y], "o", ms=7, color="black", zorder=5)
        ax.annotate(f"{label} {area:.0f} mm²", (area, y), xytext=(-10, 26 - 52 * (i % 2)), textcoords="offset points",
                    ha="right", fontsize=9, arrowprops=dict(arrowstyle="-", color="black", lw=0.6))
    ax.set_xlim(0, max_area_mm2)
    ax.set_ylim(0, 1)
    ax.set_xlabel(t("fab_die_area", lang))
    ax.set_ylabel(t("fab_yield", lang))
    ax.set_title(t("fab_yield_title", lang, d0=d0_per_cm2), fontsize=10.5)
    ax.legend(loc="lower left", fontsize=9)
    return finish(fig)


def dies_and_cost(d0_per_cm2: float, wafer_price_usd: float, marks: Sequence[tuple[str, float]], lang: str,
                  model: str = "murphy", alpha: float | None = None, max_area_mm2: float = 858) -> Figure:
    """Left: candidate and good dies per wafer against die area. Right: cost per good die and
    per mm² of good silicon. ``marks``: list of (label, area mm²)."""
    lang = setup(lang)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7.0, 7.4))
    a = np.linspace(25, max_area_mm2, 300)
    wafers = [fab.wafer(x, d0_per_cm2, wafer_price_usd, model, alpha) for x in a]
    a1.plot(a, [w.gross_dies for w in wafers], color=COLORS["grey"], lw=2, label=t("fab_gross", lang))
    a1.plot(a, [w.good_dies for w in wafers], color=COLORS["memory"], lw=2,
            label=t("fab_good", lang, model=_model_label(model, alpha, lang)))
    a1.set_yscale("log")
    a1.set_ylim(min(w.good_dies for w in wafers) / 2.5, None)
    a1.set_xlabel(t("fab_die_area", lang))
    a1.set_ylabel(t("fab_dies", lang))
    a1.legend(loc="upper right", fontsize=9.5)
    a2.plot(a, [w.cost_per_good_die_usd for w in wafers], color=COLORS["compute"], lw=2)
    a2.set_yscale("log")
    a2.set_xlabel(t("fab_die_area", lang))
    a2.set_ylabel(t("fab_cost", lang), color=COLORS["compute"])
    a3 = a2.twinx()
    a3.plot(a, [w.good_silicon_usd_per_mm2 for w in wafers], color=COLORS["accent"], lw=2, ls="--")
    a3.set_ylabel(t("fab_cost_mm2", lang), color=COLORS["accent"])
    a3.set_yscale("log")            # the same kind of axis as the cost per die it shares the panel with
    for axis in (a3.yaxis.set_major_formatter, a3.yaxis.set_minor_formatter):
        axis(FuncFormatter(lambda v, _: f"{v:.2f}"))
    a3.grid(False)
    a3.spines["right"].set_visible(True)
    for label, area in marks:
        w = fab.wafer(area, d0_per_cm2, wafer_price_usd, model, alpha)
        a1.plot([area], [w.good_dies], "o", color="black", ms=6)
        a1.annotate(f"{label}: {w.good_dies:.1f}", (area, w.good_dies), xytext=(-6, -15), textcoords="offset points",
                    ha="right", fontsize=10)
        a2.plot([area], [w.cost_per_good_die_usd], "o", color="black", ms=6)
        a2.annotate(f"{label}: ${w.cost_per_good_die_usd:,.0f}", (area, w.cost_per_good_die_usd), xytext=(-10, 6),
                    textcoords="offset points", ha="right", va="bottom", fontsize=10, zorder=5,
                    bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85})
    # head-room above the dearest die, so that its label stays clear of the title and the frame
    a2.set_ylim(None, max(w.cost_per_good_die_usd for w in wafers) * 3)
    a3.set_ylim(None, max(w.good_silicon_usd_per_mm2 for w in wafers) * 1.25)
    a2.set_title(t("fab_wafer_price", lang, price=wafer_price_usd), fontsize=10)
    return finish(fig)


def supply_limits(results: Sequence[supply.SupplyResult], lang: str,
                  perfect: Sequence[supply.SupplyResult] | None = None) -> Figure:
    """GPUs per month each supply allows, per product; the binding supply outlined.

    ``results``: list of :class:`infra_lib.supply.SupplyResult`. ``perfect``: the same products with only
    perfect dies counted (``supply.gpu_supply(..., salvage=False)``), drawn as a black tick on the
    logic bar, so that both readings of the logic supply are visible.
    """
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.6, 3.9))
    n = len(supply.SUPPLIES)
    h = 0.8 / n
    y = np.arange(len(results))
    scale = 1e4 if lang == "zh" else 1e3   # Chinese counts in 万 (10⁴), English in thousands
    for i, s in enumerate(supply.SUPPLIES):
        vals = [getattr(r, s) / scale for r in results]
        bars = ax.barh(y + (i - (n - 1) / 2) * h, vals, height=h * 0.92, color=SUPPLY_COLORS[s],
                       label=t(SUPPLY_KEYS[s], lang))
        for bar, r, v in zip(bars, results, vals):
            binding = r.binding == s
            if binding:
                bar.set_edgecolor("black")
                bar.set_linewidth(2)
            text = (f"{v:,.1f}" if lang == "zh" else f"{v:,.0f}") + (f"  ← {t('fab_binding', lang)}" if binding else "")
            ax.annotate(text, (v, bar.get_y() + bar.get_height() / 2), xytext=(3, 0), textcoords="offset points",
                        va="center", fontsize=8.5, fontweight="bold" if binding else "normal")
    if perfect is not None:
        y_logic = y + (supply.SUPPLIES.index("logic") - (n - 1) / 2) * h
        ax.plot([q.logic / scale for q in perfect], y_logic, "|", color="black", ms=13, mew=2.2,
                label=t("fab_logic_perfect", lang))
    ax.set_yticks(y, [t("fab_like", lang, name=r.product) for r in results])
    ax.invert_yaxis()
    ax.set_xlim(0, max(max(r.logic, r.packaging, r.hbm) for r in results) / scale * 1.35)
    ax.set_xlabel(t("fab_gpus_month", lang))
    ax.legend(loc="lower right", fontsize=8.5)
    return finish(fig)
