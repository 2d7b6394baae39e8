"""Figures of chapter 5 (CUDA): coalescing against the H200, tile intensity, stream overlap, the
measured matmul roofline.

Each function takes the numbers to draw (computed by :mod:`infra_lib.cuda`) and ``lang``, calls
:func:`style.setup`, closes the figure and returns it.
"""
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .. import cuda
from ..i18n import t
from .roofline import draw_roof, mark
from .style import COLORS, finish, setup


def coalescing(rows: Sequence[cuda.StridedRow], lang: str) -> Figure:
    """Useful rate of the strided gather as a share of the copy's: the sector models against the H200."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    s = [r.stride for r in rows]
    ax.plot(s, [r.model_of_copy for r in rows], "s--", color=COLORS["grey"], label=t("ch5_sector_model", lang))
    ax.plot(s, [r.model_64_of_copy for r in rows], "^:", color=COLORS["compute"], label=t("ch5_fetch64_model", lang))
    ax.plot(s, [r.of_copy for r in rows], "o-", color=COLORS["memory"], label=t("ch5_measured_h200", lang))
    ax.set_xscale("log", base=2)
    ticks = [v for v in s if v & (v - 1) == 0]          # powers of two (33 sits beside 32)
    ax.set_xticks(ticks, [f"{v}" for v in ticks])
    ax.minorticks_off()
    ax.set_ylim(0, 1.08)
    ax.set_xlabel(t("ch5_stride", lang))
    ax.set_ylabel(t("ch5_useful_of_copy", lang))
    ax.legend(loc="upper right", fontsize=9)
    return finish(fig)


def tiling(tiles: Sequence[int], ridge_flop_per_B: float, lang: str) -> Figure:
    """Intensity of square tiles in FP32 and BF16 against tile size, the naive kernel and the H200 ridge."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    x = np.array(tiles, dtype=float)
    for e, color, key in ((4, COLORS["memory"], "ch5_fp32"), (2, COLORS["compute"], "ch5_bf16")):
        ax.plot(x, [cuda.tile_intensity(int(v), int(v), e) for v in x], "o-", color=color,
                label=f"{t('ch5_tiled', lang)}{'，' if lang == 'zh' else ', '}{t(key, lang)}")
        ax.axhline(cuda.naive_matmul_intensity(e), color=color, ls=":", lw=1.2)
    ax.annotate(t("ch5_naive", lang), (x[0], cuda.naive_matmul_intensity(2)), xytext=(2, 4),
                textcoords="offset points", fontsize=9, color=COLORS["grey"])
    ax.axhline(ridge_flop_per_B, color=COLORS["grey"], ls="--", lw=1)
    ax.annotate(f"{t('ch5_ridge_h200', lang)} ≈ {ridge_flop_per_B:.0f}", (x[0], ridge_flop_per_B),
                xytext=(2, 4), textcoords="offset points", fontsize=9, color=COLORS["grey"])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(x, [f"{int(v)}" for v in x])
    ax.set_xlabel(t("ch5_tile", lang))
    ax.set_ylabel(t("intensity", lang))
    ax.legend(loc="lower right", fontsize=9)
    return finish(fig)


def streams(serial: Sequence[cuda.Span], overlapped: Sequence[cuda.Span], lang: str) -> Figure:
    """Two timelines of the same chunks: one after the other, and overlapped on three engines."""
    lang = setup(lang)
    fig, axes = plt.subplots(2, 1, figsize=(8.2, 3.9), sharex=True)
    colors = {"h2d": COLORS["memory"], "kernel": COLORS["compute"], "d2h": COLORS["accent"]}
    for ax, spans, title in ((axes[0], serial, "ch5_serial"), (axes[1], overlapped, "ch5_overlapped")):
        for y, stage in enumerate(cuda.STAGES):
            for sp in (s for s in spans if s.stage == stage):
                ax.barh(y, (sp.end_s - sp.start_s) * 1e3, left=sp.start_s * 1e3, color=colors[stage],
                        edgecolor="white", height=0.7)
                if sp.end_s - sp.start_s > 0:
                    ax.annotate(f"{sp.chunk + 1}", ((sp.start_s + sp.end_s) / 2 * 1e3, y), ha="center",
                                va="center", color="white", fontsize=8)
        end = max(s.end_s for s in spans) * 1e3
        ax.axvline(end, color=COLORS["grey"], ls="--", lw=1)
        ax.set_yticks(range(3), [t(f"ch5_{s}", lang) for s in cuda.STAGES])
        ax.invert_yaxis()
        ax.set_title(f"{t(title, lang)}{'：' if lang == 'zh' else ': '}{end:,.1f} ms", fontsize=10)
    axes[1].set_xlabel(t("ch5_time_ms", lang))
    return finish(fig)


def matmul_roofline(points: Sequence[cuda.MatmulPoint], peak_flop_s: float, peak_fp8_flop_s: float,
                    mem_bw_Bps: float, measured: dict[str, float], lang: str) -> Figure:
    """The measured BF16 matmul sweep on the H200's BF16 and FP8 roofs, with the measured large-matmul rates."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.4, 4.4))
    xs = [p.intensity for p in points]
    rng = (min(xs) / 2, max(xs) * 3)
    roof = draw_roof(ax, peak_flop_s, mem_bw_Bps, rng, label=t("ch5_roof_bf16", lang))
    draw_roof(ax, peak_fp8_flop_s, mem_bw_Bps, rng, color=COLORS["grey"], lw=1.2, label=t("ch5_roof_fp8", lang),
              ridge="tick")
    roof.label_ridge(f"{t('ridge', lang)} ≈ {roof.ridge_point:.0f}")
    ax.plot(xs, [p.flop_s / 1e12 for p in points], "o", color=COLORS["memory"], ms=6,
            label=t("ch5_measured_sweep", lang))
    for key, color in (("bf16", COLORS["compute"]), ("fp8", COLORS["accent"])):
        ax.axhline(measured[key] / 1e12, color=color, ls=":", lw=1.2)
        ax.annotate(f"{t('ch5_measured_' + key, lang)}{'：' if lang == 'zh' else ': '}{measured[key] / 1e12:,.0f} TFLOP/s",
                    (rng[0] * 1.2, measured[key] / 1e12), xytext=(0, 4), textcoords="offset points",
                    fontsize=8.5, color=color)
    last = points[-1]
    mark(ax, last.intensity, last.flop_s, label=f"M = {last.m}", color=COLORS["memory"], ms=0, xytext=(-40, -20),
         fontsize=8.5)
    ax.set_xlabel(t("intensity", lang))
    ax.set_ylabel(t("attainable", lang))
    ax.legend(loc="lower right", fontsize=8.5)
    return finish(fig)
