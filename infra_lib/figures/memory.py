"""Figures of memory built from its parts: HBM bandwidth per stack and per GPU.

Each function takes the numbers to draw (computed with :mod:`infra_lib.memory`) and ``lang``,
calls :func:`style.setup`, closes the figure and returns it.
"""
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .. import memory, units
from ..i18n import t
from .style import COLORS, finish, setup


def hbm_bandwidth(generations: Sequence[tuple[str, int, float]],
                  gpus: Sequence[tuple[str, int, int, float]], lang: str) -> Figure:
    """Left: bandwidth per stack, standard maximum against as run in GPUs. Right: each GPU's
    bandwidth built up stack by stack.

    ``generations``: list of (label, bits per stack, pin rate bit/s) at the standard's maximum.
    ``gpus``: list of (label, stacks, bits per stack, pin rate bit/s) as run.
    """
    lang = setup(lang)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(7.0, 8.0), gridspec_kw={"height_ratios": [1.1, 1]})
    labels = [g[0] for g in generations] + [g[0] for g in gpus]
    per_stack = [memory.stack_bandwidth_Bps(b, r) / units.GB for _, b, r in generations]
    as_run = [memory.stack_bandwidth_Bps(b, r) / units.GB for _, _, b, r in gpus]
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
        one = memory.stack_bandwidth_Bps(bits, rate) / units.TB
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
    a2.set_ylim(0, max(s * memory.stack_bandwidth_Bps(b, r) / units.TB for _, s, b, r in gpus) * 1.15)
    return finish(fig)
