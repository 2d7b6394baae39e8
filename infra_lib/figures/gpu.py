"""Figures of chapter 3 (GPU architecture): divergence, the memory hierarchy, measured memory.

Each function takes the numbers to draw (computed by :mod:`infra_lib.gpu`) and ``lang``, calls
:func:`style.setup`, closes the figure and returns it.
"""
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .. import gpu, units
from ..i18n import t
from .style import COLORS, finish, setup

LEVEL_KEYS = {"registers": "gpu_registers", "shared": "gpu_shared", "l2": "gpu_l2", "hbm": "gpu_hbm"}

def divergence(lang: str, warp_size: int = 32) -> Figure:
    """Left: one warp's efficiency against lanes taking the branch. Right: many warps, by probability."""
    lang = setup(lang)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9.0, 3.8))
    k = np.arange(warp_size + 1)
    a1.plot(k, [gpu.branch_efficiency(int(i), 1, 1, warp_size) for i in k], "o-", ms=3,
            color=COLORS["compute"], label=t("gpu_if_else", lang))
    a1.plot(k[1:], [gpu.branch_efficiency(int(i), 1, 0, warp_size) for i in k[1:]], "s-", ms=3,
            color=COLORS["memory"], label=t("gpu_if_only", lang))
    a1.set_xlabel(t("gpu_taken_lanes", lang))
    a1.set_ylabel(t("gpu_efficiency", lang))
    a1.set_xticks(range(0, warp_size + 1, max(1, warp_size // 4)))
    a1.set_ylim(0, 1.08)
    a1.set_title(t("gpu_one_warp", lang), fontsize=10)
    a1.legend(loc="lower right", fontsize=8.5)
    p = np.linspace(0, 1, 201)
    a2.plot(p, [gpu.expected_branch_efficiency(float(x), 1, 1, warp_size) for x in p],
            color=COLORS["compute"], label=t("gpu_random", lang))
    a2.axhline(1.0, color=COLORS["accent"], ls="--", label=t("gpu_sorted", lang))
    a2.set_xlabel(t("gpu_p_taken", lang))
    a2.set_ylim(0, 1.08)
    a2.set_title(t("gpu_many_warps", lang), fontsize=10)
    a2.legend(loc="lower center", fontsize=8.5)
    return finish(fig)


def memory_hierarchy(levels: Sequence[gpu.Level], lang: str) -> Figure:
    """Horizontal bars, log scale: chip-wide bandwidth of each level, with per-SM value and kind."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.4, 3.4))
    y = np.arange(len(levels))
    chip = [lv.chip_Bps / units.TB for lv in levels]
    colors = [COLORS["grey"] if lv.kind == "derived" else COLORS["compute"] if lv.kind == "reported"
              else COLORS["memory"] for lv in levels]
    ax.barh(y, chip, color=colors, height=0.55)
    for yi, lv, c in zip(y, levels, chip):
        ax.annotate(f"{c:,.1f} TB/s · {t('gpu_per_sm', lang)} {lv.per_sm_Bps / units.GB:,.0f} GB/s "
                    f"({t('gpu_kind_' + lv.kind, lang)})", (c, yi), xytext=(5, -4),
                    textcoords="offset points", fontsize=9)
    ax.set_yticks(y, [t(LEVEL_KEYS[lv.key], lang) for lv in levels])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(1, max(chip) * 60)
    ax.set_xlabel(t("gpu_chip_bw", lang))
    return finish(fig)


def measured_memory(copy_rows: Sequence[tuple[float, float]], strided_rows: Sequence[tuple[int, float]],
                    l2_B: float, datasheet_Bps: float, ceiling_Bps: float, lang: str,
                    launch_bound: Sequence[bool] = ()) -> Figure:
    """Left: copy bandwidth by working set with the L2 size marked, launch-bound copies (``launch_bound``,
    from :func:`infra_lib.gpu.launch_bound`) drawn hollow. Right: strided reads."""
    lang = setup(lang)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9.4, 3.9))
    ws = [r[0] / units.MB for r in copy_rows]
    tb = [r[1] / units.TB for r in copy_rows]
    a1.plot(ws, tb, "-", color=COLORS["memory"])
    bound = list(launch_bound) or [False] * len(ws)
    a1.scatter([w for w, b in zip(ws, bound) if not b], [v for v, b in zip(tb, bound) if not b],
               color=COLORS["memory"], zorder=3, s=26)
    if any(bound):
        a1.scatter([w for w, b in zip(ws, bound) if b], [v for v, b in zip(tb, bound) if b],
                   facecolors="white", edgecolors=COLORS["memory"], zorder=3, s=30, label=t("gpu_launch_bound", lang))
        a1.legend(loc="lower right", fontsize=8.5)
    a1.set_xscale("log", base=2)
    a1.set_xticks(ws, [f"{w:,.0f}" for w in ws])
    a1.axvline(l2_B / units.MB, color=COLORS["accent"], ls="--")
    a1.annotate(t("gpu_l2_size", lang, mib=l2_B / units.MiB), (l2_B / units.MB, 0.6), xytext=(-6, 0),
                textcoords="offset points", ha="right", color=COLORS["accent"], fontsize=9)
    a1.axhline(datasheet_Bps / units.TB, color=COLORS["grey"], ls=":")
    a1.annotate(t("gpu_datasheet_bw", lang, tb=datasheet_Bps / units.TB), (ws[-1], datasheet_Bps / units.TB),
                xytext=(0, 4), textcoords="offset points", ha="right", color=COLORS["grey"], fontsize=9)
    a1.set_ylim(0, datasheet_Bps / units.TB * 1.18)
    a1.set_xlabel(t("gpu_working_set", lang))
    a1.set_ylabel(t("gpu_copy_bw", lang))
    a1.set_title(t("gpu_copy_title", lang), fontsize=10)
    st = [r[0] for r in strided_rows]
    a2.plot(st, [r[1] / units.GB for r in strided_rows], "o-", color=COLORS["compute"])
    a2.set_xscale("log", base=2)
    ticks = [s for s in st if s & (s - 1) == 0]          # powers of two only: 32 and 33 would overlap
    a2.set_xticks(ticks, [str(s) for s in ticks])
    a2.axhline(ceiling_Bps / units.GB, color=COLORS["grey"], ls=":")
    a2.annotate(t("gpu_ceiling", lang), (st[0], ceiling_Bps / units.GB), xytext=(0, 6),
                textcoords="offset points", ha="left", color=COLORS["grey"], fontsize=8.5)
    a2.set_ylim(0, max(r[1] for r in strided_rows) / units.GB * 1.15)
    a2.set_xlabel(t("gpu_stride", lang))
    a2.set_ylabel(t("gpu_useful_bw", lang))
    a2.set_title(t("gpu_stride_title", lang), fontsize=10)
    return finish(fig)
