"""Figures of chapter 3 (GPU architecture), with labels in the page's language.

Each function takes the numbers to draw (computed by :mod:`infra_lib.gpu` and
:mod:`infra_lib.formats`) and ``lang``, calls :func:`plotting.setup`, closes the figure and
returns it, like the figures in :mod:`infra_lib.plotting`.
"""
import matplotlib.pyplot as plt
import numpy as np

from . import gpu, hardware, i18n, plotting, units
from .i18n import t
from .plotting import COLORS


LEVEL_KEYS = {"registers": "gpu_registers", "shared": "gpu_shared", "l2": "gpu_l2", "hbm": "gpu_hbm"}
SCALE_STYLE = {"e8m0": (COLORS["compute"], "-", "gpu_scale_e8m0"),
               "e4m3": (COLORS["memory"], "-", "gpu_scale_e4m3"),
               "fp32": (COLORS["grey"], ":", "gpu_scale_fp32")}


def divergence_figure(lang, warp_size=32):
    """Left: one warp's efficiency against lanes taking the branch. Right: many warps, by probability."""
    lang = plotting.setup(lang)
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
    fig.tight_layout()
    plt.close(fig)
    return fig


def hierarchy_figure(levels, lang):
    """Horizontal bars, log scale: chip-wide bandwidth of each level, with per-SM value and kind."""
    lang = plotting.setup(lang)
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
    fig.tight_layout()
    plt.close(fig)
    return fig


def measured_memory_figure(copy_rows, strided_rows, l2_B, datasheet_Bps, ceiling_Bps, lang):
    """Left: copy bandwidth by working set with the L2 size marked. Right: strided reads."""
    lang = plotting.setup(lang)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9.4, 3.9))
    ws = [r[0] / units.MB for r in copy_rows]
    a1.plot(ws, [r[1] / units.TB for r in copy_rows], "o-", color=COLORS["memory"])
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
    fig.tight_layout()
    plt.close(fig)
    return fig


def quantization_figure(sweeps, marks, lang):
    """Relative RMS error against block size, one line per scale kind.

    ``sweeps``: {scale: [(block_size, error)]}; ``marks``: [(BlockFormat, error)] to label.
    """
    lang = plotting.setup(lang)
    fig, ax = plt.subplots(figsize=(7.2, 4.0))
    for scale, rows in sweeps.items():
        color, ls, key = SCALE_STYLE[scale]
        ax.plot([r[0] for r in rows], [100 * r[1] for r in rows], marker="o", ls=ls, color=color, label=t(key, lang))
    offsets = [((-12, 16), "right"), ((10, -22), "left")]
    for (fmt, err), (off, ha) in zip(marks, offsets):
        ax.plot([fmt.block_size], [100 * err], "s", ms=12, mfc="none", color="black")
        ax.annotate(t("gpu_bits", lang, name=fmt.name, bits=fmt.bits_per_value), (fmt.block_size, 100 * err),
                    xytext=off, textcoords="offset points", ha=ha, fontsize=9)
    sizes = sorted({r[0] for rows in sweeps.values() for r in rows})
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [str(s) for s in sizes])
    ax.set_ylim(0, max(100 * r[1] for rows in sweeps.values() for r in rows) * 1.2)
    ax.set_xlabel(t("gpu_block_size", lang))
    ax.set_ylabel(t("gpu_rel_err", lang) + " (%)")
    ax.legend(loc="upper left", fontsize=8.5)
    fig.tight_layout()
    plt.close(fig)
    return fig


def nvlink_figure(gens, lang):
    """Per-direction NVLink bandwidth per GPU by generation, each bar labelled links x per link."""
    lang = plotting.setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    x = np.arange(len(gens))
    per_dir = [g.per_direction_Bps / units.GB for g in gens]
    ax.bar(x, per_dir, color=COLORS["memory"], width=0.6)
    for xi, g, v in zip(x, gens, per_dir):
        ax.annotate(t("gpu_nvlink_label", lang, links=g.links, per=g.per_link_per_direction_Bps / units.GB),
                    (xi, v), xytext=(0, 14), textcoords="offset points", ha="center", fontsize=9)
        ax.annotate(t("gpu_total_label", lang, total=g.total_Bps / units.GB), (xi, v), xytext=(0, 3),
                    textcoords="offset points", ha="center", fontsize=8, color=COLORS["grey"])
    ax.set_xticks(x, [hardware.device_name(g.device).replace("NVIDIA ", "").split(" (")[0]
                      + f"\nNVLink {g.generation}" for g in gens], fontsize=9)
    ax.set_ylim(0, max(per_dir) * 1.25)
    ax.set_ylabel(t("gpu_nvlink_dir", lang))
    fig.tight_layout()
    plt.close(fig)
    return fig
