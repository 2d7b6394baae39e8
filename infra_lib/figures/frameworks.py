"""Figures of chapter 7 (the framework layer): what CUDA graphs saved across the H200 decode sweep,
per-GPU training memory against the data-parallel degree under ZeRO, and the KV cache with and
without pages. Each function takes ``lang``, calls :func:`style.setup`, and returns the closed figure.
"""
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .. import _check, framework, training_memory, units
from ..i18n import t
from .style import COLORS, finish, setup


def graph_savings(points: Sequence[framework.GraphSaving], lang: str) -> Figure:
    """Eager and CUDA-graph decode steps of the sweep (bars, ms) and the CPU's issue time (line)."""
    lang = setup(lang)
    if not points:
        raise ValueError("points: need at least one GraphSaving")
    fig, ax = plt.subplots(figsize=(7.6, 3.8))
    x = np.arange(len(points))
    g = [p.graph_s / units.MS for p in points]
    e = [p.eager_s / units.MS for p in points]
    ax.bar(x - 0.2, g, 0.4, color=COLORS["memory"], label=t("fw_graph", lang))
    ax.bar(x + 0.2, e, 0.4, color=COLORS["compute"], label=t("fw_eager", lang))
    for xi, p in zip(x, points):
        ax.annotate(f"−{p.saved_share:.0%}", (xi + 0.2, p.eager_s / units.MS), xytext=(0, 3),
                    textcoords="offset points", ha="center", fontsize=8)
    ax.axhline(points[0].cpu_issue_s / units.MS, color=COLORS["grey"], ls="--", lw=1,
               label=t("fw_issue", lang))
    ax.set_xticks(x, [f"{p.batch}×{p.context:,}" for p in points], fontsize=8)
    ax.set_xlabel(t("fw_batch_ctx", lang))
    ax.set_ylabel(t("fw_step_ms", lang))
    ax.set_ylim(0, max(e) * 1.15)
    ax.legend(fontsize=8, loc="upper left")
    return finish(fig)


def zero_memory(params: float, degrees: Sequence[int], other_B: float, capacity_B: float, lang: str) -> Figure:
    """Per-GPU memory (GB, log) against the data-parallel degree for ZeRO stages 0-3, with ``other_B``
    of activations added to each and the GPU's capacity as a line."""
    lang = setup(lang)
    p = _check.positive("params", params, "parameters")
    other = _check.non_negative("other_B", other_B, "bytes")
    cap = _check.positive("capacity_B", capacity_B, "bytes")
    if not degrees:
        raise ValueError("degrees: need at least one degree")
    fig, ax = plt.subplots(figsize=(7.0, 3.9))
    colors = [COLORS["compute"], "#ff7f0e", COLORS["accent"], COLORS["memory"]]
    for stage, c in zip(training_memory.STAGES, colors):
        y = [(training_memory.model_state_B(p, stage, n) + other) / units.GB for n in degrees]
        ax.plot(degrees, y, marker="o", ms=3, color=c, label=t(f"fw_stage{stage}", lang))
    ax.axhline(cap / units.GB, color=COLORS["grey"], ls="--", lw=1)
    ax.annotate(t("fw_capacity", lang, gb=cap / units.GB), (degrees[0], cap / units.GB), xytext=(2, 3),
                textcoords="offset points", fontsize=8, color=COLORS["grey"])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(t("fw_dp_degree", lang))
    ax.set_ylabel(t("fw_gb_per_gpu", lang))
    ax.legend(fontsize=8, loc="lower left")
    return finish(fig)
