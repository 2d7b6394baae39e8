"""Figures of links between chips and servers: the server's link ladder and NVLink by generation.

Each function takes ``lang``, calls :func:`style.setup`, closes the figure and returns it.
"""
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .. import gpu, hardware, interconnect, units
from ..i18n import t
from .style import COLORS, finish, setup

def link_ladder(ladder: Sequence[interconnect.Link], lang: str) -> Figure:
    """Quoted number vs bytes per second per direction for each link of the server ladder."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 3.6))
    y = np.arange(len(ladder))
    quoted = [l.quoted for l in ladder]
    real = [l.per_direction_Bps / units.GB for l in ladder]
    ax.barh(y + 0.2, quoted, height=0.38, color="#c7c7c7", label=t("quoted", lang))
    ax.barh(y - 0.2, real, height=0.38, color=COLORS["memory"], label=t("converted", lang))
    for yi, q, r, l in zip(y, quoted, real, ladder):
        ax.annotate(f"{q:,.0f} {l.quoted_unit}", (q, yi + 0.2), xytext=(4, -4), textcoords="offset points", fontsize=9)
        ax.annotate(f"{r:,.0f} GB/s", (r, yi - 0.2), xytext=(4, -4), textcoords="offset points", fontsize=9)
    ax.set_yticks(y, [t(l.key, lang) for l in ladder])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(10, 20000)
    ax.set_xlabel(t("per_direction", lang))
    ax.legend(loc="lower right")
    return finish(fig)


def nvlink_generations(gens: Sequence[gpu.NVLinkGen], lang: str) -> Figure:
    """Per-direction NVLink bandwidth per GPU by generation, each bar labelled links x per link."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    x = np.arange(len(gens))
    per_dir = [g.per_direction_Bps / units.GB for g in gens]
    ax.bar(x, per_dir, color=COLORS["memory"], width=0.6)
    for xi, g, v in zip(x, gens, per_dir):
        ax.annotate(t("gpu_nvlink_label", lang, links=g.links, per=g.per_link_per_direction_Bps / units.GB),
                    (xi, v), xytext=(0, 14), textcoords="offset points", ha="center", fontsize=9)
        ax.annotate(t("gpu_total_label", lang, total=g.total_Bps / units.GB), (xi, v), xytext=(0, 3),
                    textcoords="offset points", ha="center", fontsize=8, color=COLORS["grey"])
    ax.set_xticks(x, [f"{hardware.product_name(g.device)}\nNVLink {g.generation}" for g in gens], fontsize=9)
    ax.set_ylim(0, max(per_dir) * 1.25)
    ax.set_ylabel(t("gpu_nvlink_dir", lang))
    return finish(fig)
