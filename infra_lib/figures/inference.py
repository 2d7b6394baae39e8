"""Figures of the overview (one request's seconds): batching and a real GPU's check.

Each function takes ``lang``, calls :func:`style.setup`, closes the figure and returns it.
"""
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .. import inference, measurements, units
from ..i18n import t
from .style import COLORS, finish, setup

def batch_sweep(request: inference.Request, acc: inference.Accelerator, lang: str,
                batches: Sequence[int] | None = None, mark: int | None = None,
                max_batch: int | None = None) -> Figure:
    """Step time and throughput against batch size for ``request`` on ``acc``.

    ``max_batch`` (from :func:`inference.max_batch_that_fits`) shades the batches whose weights
    and KV caches do not fit in the GPU's memory: the curve goes on there only on paper.
    """
    lang = setup(lang)
    batches = list(batches or [1, 2, 4, 8, 16, 32, 64, 128, 256])
    steps = [inference.decode_step(request, acc, b) for b in batches]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9.0, 3.8))
    a1.plot(batches, [s.time_s / units.MS for s in steps], "o-", color=COLORS["memory"])
    a1.set_xscale("log", base=2)
    a1.set_xlabel(t("batch", lang))
    a1.set_ylabel(t("step_ms", lang))
    a2.plot(batches, [s.throughput_tok_s for s in steps], "o-", color=COLORS["compute"])
    a2.set_xscale("log", base=2)
    a2.set_xlabel(t("batch", lang))
    a2.set_ylabel(t("throughput", lang))
    if mark in batches:
        s = steps[batches.index(mark)]
        a1.plot([mark], [s.time_s / units.MS], "s", ms=11, mfc="none", color="black")
        a2.plot([mark], [s.throughput_tok_s], "s", ms=11, mfc="none", color="black")
    for ax in (a1, a2):
        ax.set_xticks(batches, [str(b) for b in batches])
        if max_batch is not None and max_batch < batches[-1]:
            ax.axvspan(max(max_batch, batches[0]), batches[-1] * 1.15, color="#bdbdbd", alpha=0.45, lw=0)
            ax.axvline(max(max_batch, batches[0]), color="black", lw=1, ls="--")
            ax.set_xlim(batches[0] / 1.15, batches[-1] * 1.15)
    if max_batch is not None and max_batch < batches[-1]:
        a1.text(0.03, 0.95, t("does_not_fit", lang, batch=max_batch), transform=a1.transAxes,
                ha="left", va="top", fontsize=9)
    return finish(fig)


def predicted_vs_measured(checks: Sequence[measurements.DecodeCheck], lang: str) -> Figure:
    """Predicted vs measured decode step (ms) for each :class:`measurements.DecodeCheck`."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(max(6.4, 1.25 * len(checks) + 1.5), 3.9))
    x = np.arange(len(checks))
    w = 0.27
    ax.bar(x - w, [c.predicted_s / units.MS for c in checks], w, color="#c7c7c7", label=t("predicted", lang))
    ax.bar(x, [c.measured_s / units.MS for c in checks], w, color=COLORS["memory"], label=t("measured_graph", lang))
    ax.bar(x + w, [c.measured_eager_s / units.MS for c in checks], w, color=COLORS["compute"], label=t("measured_eager", lang))
    for xi, c in enumerate(checks):   # the prediction's error against the CUDA-graph timing
        ax.text(xi, max(c.measured_s, c.measured_eager_s) / units.MS * 1.03, f"{c.error:+.0%}",
                ha="center", va="bottom", fontsize=8)
    contexts = {c.context for c in checks}
    if len(contexts) > 1:
        ax.set_xticks(x, [t("batch_ctx", lang, batch=c.batch, ctx=f"{c.context:,}" if lang == "en" else str(c.context))
                           for c in checks], fontsize=8)
    else:
        ax.set_xticks(x, [t("decode_batch", lang, batch=c.batch) for c in checks])
    ax.set_ylabel(t("step_ms", lang))
    top = max(max(c.measured_s, c.measured_eager_s) for c in checks) / units.MS
    ax.set_ylim(0, top * 1.35)
    ax.legend(loc="upper left", fontsize=9)
    return finish(fig)
