"""Figures of chapter 8: two jobs with and without gang scheduling, and a burst while replicas start.

Each function takes ``lang``, calls :func:`style.setup`, closes the figure and returns it.
"""
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from ..autoscale import BurstTrace
from ..scheduling import ClusterState
from ..i18n import t
from .style import COLORS, finish, setup


def gang_steps(plain: Sequence[ClusterState], gang: Sequence[ClusterState], need_gpus: int, lang: str) -> Figure:
    """GPUs held by each job, step by step, without (left) and with (right) gang scheduling."""
    lang = setup(lang)
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.4), sharey=True)
    colors = (COLORS["memory"], COLORS["compute"])
    for ax, states, title in zip(axes, (plain, gang), ("ch8_fig_no_gang", "ch8_fig_gang")):
        steps = [s.step for s in states]
        for j, c in enumerate(colors):
            ax.step(steps, [s.held[j] for s in states], where="post", color=c, lw=4.5 if j == 0 else 1.8,
                    alpha=0.55 if j == 0 else 1.0,
                    label=t("ch8_fig_job", lang, job="A" if j == 0 else "B"))
        ax.step(steps, [s.free for s in states], where="post", color=COLORS["grey"], ls="--",
                label=t("ch8_fig_free", lang))
        ax.axhline(need_gpus, color="black", lw=0.8, ls=":")
        ax.annotate(t("ch8_fig_need", lang, n=need_gpus), (steps[0], need_gpus), xytext=(2, 3),
                    textcoords="offset points", fontsize=8)
        ax.set_title(t(title, lang), fontsize=10)
        ax.set_xlabel(t("ch8_fig_step", lang))
    axes[0].set_ylabel(t("ch8_fig_gpus", lang))
    axes[0].set_ylim(0, max(need_gpus, max(s.free for s in plain)) * 1.25)
    axes[1].legend(loc="upper right", fontsize=8)
    return finish(fig)


def burst(trace: BurstTrace, slots: int, latency_s: float, lang: str) -> Figure:
    """Offered rate against the ready replicas' capacity (top), requests queued (bottom)."""
    lang = setup(lang)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.0, 4.6), sharex=True)
    cap = [r * slots / latency_s for r in trace.ready]
    top.plot(trace.time_s, trace.rate_per_s, color=COLORS["compute"], lw=2, label=t("ch8_fig_offered", lang))
    top.step(trace.time_s, cap, where="post", color=COLORS["memory"], lw=2, label=t("ch8_fig_capacity", lang))
    top.set_ylabel(t("ch8_fig_rate", lang))
    top.set_ylim(0, max(max(cap), max(trace.rate_per_s)) * 1.3)
    top.legend(loc="lower right", fontsize=8)
    bottom.fill_between(trace.time_s, trace.queued, color=COLORS["accent"], alpha=0.5, lw=0)
    bottom.plot(trace.time_s, trace.queued, color=COLORS["accent"], lw=1.5)
    bottom.set_ylabel(t("ch8_fig_queued", lang))
    bottom.set_xlabel(t("ch8_fig_time", lang))
    bottom.set_ylim(0, max(1.0, trace.peak_queued) * 1.2)
    return finish(fig)
