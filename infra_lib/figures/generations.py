"""Figures of chapter 4 (GPU generations): peak against bandwidth, the ridge point over time.

Each function takes rows computed by :func:`infra_lib.generations.generation_row` (chapter 4:
:func:`infra_lib.generations.comparison_rows`), their labels and ``lang``, calls
:func:`style.setup`, closes the figure and returns it.
"""
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from .. import generations, units
from ..i18n import t
from .style import COLORS, finish, setup


def peak_vs_bandwidth(rows: Sequence[generations.GenerationRow], names: Sequence[str], lang: str) -> Figure:
    """Log-log: dense BF16 peak against HBM bandwidth, one labelled point per GPU, with lines of
    constant ridge point (peak / bandwidth) for reference.

    The axes span at least 0.6-16 TB/s and 60-6,000 TFLOP/s (room for the labels of V100 to
    B300) and widen to take in any GPU beyond: down to 2/3 of the lowest bandwidth and half
    the lowest peak, up to twice the highest bandwidth and 2.5 times the highest peak."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    bw = [r.mem_bw_Bps / units.TB for r in rows]
    pk = [r.peak_flop_s / 1e12 for r in rows]
    x_lo, x_hi = min(0.6, min(bw) / 1.5), max(16.0, max(bw) * 2)
    y_lo, y_hi = min(60.0, min(pk) / 2), max(6000.0, max(pk) * 2.5)
    for ridge in (100, 200, 400):
        xs = [min(0.5, x_lo), max(20.0, x_hi)]
        ax.plot(xs, [x * ridge for x in xs], color=COLORS["grey"], lw=0.8, ls=":")
        ax.annotate(f"{ridge} FLOP/B", (0.65, 0.65 * ridge), fontsize=8, color=COLORS["grey"],
                    ha="left", va="bottom")
    ax.plot(bw, pk, "o-", color=COLORS["compute"], ms=6)
    for i, (x, y, n) in enumerate(zip(bw, pk, names)):       # alternate sides: neighbours may coincide
        below = i % 2 == 0
        ax.annotate(n, (x, y), xytext=(6, -11) if below else (-6, 6), textcoords="offset points",
                    fontsize=8.5, ha="left" if below else "right")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.set_xlabel(t("ch4_bw_axis", lang))
    ax.set_ylabel(t("ch4_peak_axis", lang))
    ax.set_title(t("ch4_peak_bw_title", lang), fontsize=10)
    return finish(fig)


def ridge_over_time(rows: Sequence[generations.GenerationRow], names: Sequence[str], lang: str) -> Figure:
    """Ridge point (FLOP per byte) against the year announced, one labelled bar per GPU."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 3.6))
    x = list(range(len(rows)))
    ax.bar(x, [r.ridge_flop_per_B for r in rows], color=COLORS["memory"], width=0.6)
    for xi, r in zip(x, rows):
        ax.annotate(f"{r.ridge_flop_per_B:,.0f}", (xi, r.ridge_flop_per_B), xytext=(0, 3),
                    textcoords="offset points", ha="center", fontsize=8.5)
    ax.set_xticks(x, [f"{n}\n{r.year}" for n, r in zip(names, rows)], fontsize=8.5)
    ax.set_ylim(0, max(r.ridge_flop_per_B for r in rows) * 1.18)
    ax.set_xlabel(t("ch4_year_axis", lang))
    ax.set_ylabel(t("ch4_ridge_axis", lang))
    ax.set_title(t("ch4_ridge_title", lang), fontsize=10)
    return finish(fig)
