"""Figures of chapter 1 (how chips are made), with labels in the page's language.

Each function takes the numbers to draw (or computes them with :mod:`infra_lib.fab`) and
``lang``, calls :func:`plotting.setup`, closes the figure and returns it, like the figures in
:mod:`infra_lib.plotting`.
"""
import matplotlib.pyplot as plt
from matplotlib.patches import Patch
import numpy as np

from . import fab, i18n, plotting, units
from .i18n import t
from .plotting import COLORS


MODEL_COLORS = {"poisson": COLORS["compute"], "murphy": COLORS["memory"], "negative_binomial": COLORS["accent"]}
SUPPLY_KEYS = {"logic": "fab_logic", "packaging": "fab_packaging", "hbm": "fab_hbm"}
SUPPLY_COLORS = {"logic": COLORS["memory"], "packaging": COLORS["accent"], "hbm": COLORS["compute"]}


def _model_label(model, alpha, lang):
    return t(f"fab_{model}", lang, alpha=alpha) if model == "negative_binomial" else t(f"fab_{model}", lang)


def yield_figure(d0_per_cm2, alpha, marks, lang, max_area_mm2=1000):
    """Die yield against die area for the three models at one defect density.

    ``marks``: list of (label, area mm²) drawn as points on the Murphy curve; the reticle is a
    dashed line.
    """
    lang = plotting.setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    a = np.linspace(10, max_area_mm2, 300)
    for model in fab.MODELS:
        y = [fab.die_yield(x, d0_per_cm2, model, alpha) for x in a]
        ax.plot(a, y, color=MODEL_COLORS[model], lw=2, label=_model_label(model, alpha, lang))
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
    fig.tight_layout()
    plt.close(fig)
    return fig


def dies_figure(d0_per_cm2, wafer_price_usd, marks, lang, model="murphy", alpha=None, max_area_mm2=858):
    """Left: candidate and good dies per wafer against die area. Right: cost per good die and
    per mm² of good silicon. ``marks``: list of (label, area mm²)."""
    lang = plotting.setup(lang)
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
    a3.set_ylim(0, None)
    a3.grid(False)
    a3.spines["right"].set_visible(True)
    for label, area in marks:
        w = fab.wafer(area, d0_per_cm2, wafer_price_usd, model, alpha)
        a1.plot([area], [w.good_dies], "o", color="black", ms=6)
        a1.annotate(f"{label}: {w.good_dies:.1f}", (area, w.good_dies), xytext=(-6, -15), textcoords="offset points",
                    ha="right", fontsize=10)
        a2.plot([area], [w.cost_per_good_die_usd], "o", color="black", ms=6)
        a2.annotate(f"{label}: ${w.cost_per_good_die_usd:,.0f}", (area, w.cost_per_good_die_usd), xytext=(-8, 6),
                    textcoords="offset points", ha="right", fontsize=10)
    a2.set_title(t("fab_wafer_price", lang, price=wafer_price_usd), fontsize=10)
    fig.tight_layout()
    plt.close(fig)
    return fig


def hbm_figure(generations, gpus, lang):
    """Left: bandwidth per stack, standard maximum against as run in GPUs. Right: each GPU's
    bandwidth built up stack by stack.

    ``generations``: list of (label, bits per stack, pin rate bit/s) at the standard's maximum.
    ``gpus``: list of (label, stacks, bits per stack, pin rate bit/s) as run.
    """
    lang = plotting.setup(lang)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7.0, 8.0), gridspec_kw={"height_ratios": [1.1, 1]})
    labels = [g[0] for g in generations] + [g[0] for g in gpus]
    per_stack = [fab.stack_bandwidth_Bps(b, r) / units.GB for _, b, r in generations]
    as_run = [fab.stack_bandwidth_Bps(b, r) / units.GB for _, _, b, r in gpus]
    y = np.arange(len(labels))
    colors = [COLORS["grey"]] * len(generations) + [COLORS["memory"]] * len(gpus)
    a1.barh(y, per_stack + as_run, color=colors, height=0.62)
    for yi, v in zip(y, per_stack + as_run):
        a1.annotate(f"{v:,.0f}", (v, yi), xytext=(3, 0), textcoords="offset points", va="center", fontsize=9.5)
    a1.set_yticks(y, labels, fontsize=9.5)
    a1.invert_yaxis()
    a1.set_xlim(0, max(per_stack + as_run) * 1.2)
    a1.set_xlabel(t("fab_per_stack", lang))
    a1.legend(handles=[Patch(color=COLORS["grey"], label=t("fab_std_max", lang)),
                       Patch(color=COLORS["memory"], label=t("fab_as_run", lang))], loc="upper right", fontsize=9)
    x = np.arange(len(gpus))
    for xi, (label, stacks, bits, rate) in zip(x, gpus):
        one = fab.stack_bandwidth_Bps(bits, rate) / units.TB
        for s in range(stacks):
            a2.bar(xi, one, bottom=s * one, width=0.6, color=COLORS["memory"], edgecolor="white", lw=1.2,
                   alpha=0.55 + 0.45 * (s % 2))
        total = stacks * one
        a2.annotate(f"{total:.2f} TB/s", (xi, total), xytext=(0, 3), textcoords="offset points", ha="center",
                    fontsize=10, fontweight="bold")
    a2.set_xticks(x, [f"{g[0]}\n" + t("fab_stacks_label", lang, stacks=g[1], pin=g[3] / 1e9) for g in gpus],
                  fontsize=9.5)
    a2.set_ylabel(t("fab_gpu_bw", lang))
    a1.yaxis.grid(False)
    a2.xaxis.grid(False)
    a2.set_ylim(0, max(s * fab.stack_bandwidth_Bps(b, r) / units.TB for _, s, b, r in gpus) * 1.15)
    fig.tight_layout()
    plt.close(fig)
    return fig


def supply_figure(results, lang):
    """GPUs per month each supply allows, per product; the binding supply outlined.

    ``results``: list of :class:`fab.SupplyResult`.
    """
    lang = plotting.setup(lang)
    fig, ax = plt.subplots(figsize=(7.6, 3.9))
    n = len(fab.SUPPLIES)
    h = 0.8 / n
    y = np.arange(len(results))
    for i, s in enumerate(fab.SUPPLIES):
        vals = [getattr(r, s) / 1e3 for r in results]
        bars = ax.barh(y + (i - (n - 1) / 2) * h, vals, height=h * 0.92, color=SUPPLY_COLORS[s],
                       label=t(SUPPLY_KEYS[s], lang))
        for bar, r, v in zip(bars, results, vals):
            binding = r.binding == s
            if binding:
                bar.set_edgecolor("black")
                bar.set_linewidth(2)
            text = f"{v:,.0f}" + (f"  ← {t('fab_binding', lang)}" if binding else "")
            ax.annotate(text, (v, bar.get_y() + bar.get_height() / 2), xytext=(3, 0), textcoords="offset points",
                        va="center", fontsize=8.5, fontweight="bold" if binding else "normal")
    ax.set_yticks(y, [t("fab_like", lang, name=r.product) for r in results])
    ax.invert_yaxis()
    ax.set_xlim(0, max(max(r.logic, r.packaging, r.hbm) for r in results) / 1e3 * 1.35)
    ax.set_xlabel(t("fab_gpus_month", lang))
    ax.legend(loc="lower right", fontsize=8.5)
    fig.tight_layout()
    plt.close(fig)
    return fig
