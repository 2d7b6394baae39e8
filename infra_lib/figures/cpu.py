"""Figures of chapter 2 (CPU architecture): the latency ladder, peak FLOP/s, launch overhead.

(The chapter's roofline of several machines is :func:`infra_lib.figures.roofline.machines`.)
Each function takes ``lang``, calls :func:`style.setup`, closes the figure and returns it.
"""
from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .. import _check, cpu, launch, units
from ..i18n import t
from .style import COLORS, finish, setup

def latency_ladder(levels: Sequence[cpu.CacheLevel], clock_hz: float, lang: str) -> Figure:
    """Horizontal bars of each level's latency (log scale), annotated with cycles at ``clock_hz`` and size."""
    lang = setup(lang)
    clock = _check.positive("clock_hz", clock_hz, "Hz")
    fig, ax = plt.subplots(figsize=(7.4, 3.6))
    y = np.arange(len(levels))
    ns = [lv.latency_s / 1e-9 for lv in levels]
    colors = [COLORS["memory"]] * (len(levels) - 1) + [COLORS["compute"]]
    ax.barh(y, ns, height=0.6, color=colors)
    labels = []
    for lv in levels:
        name = t(f"cpu_{lv.key}", lang)
        if lv.size_B:
            size = lv.size_B / units.MiB if lv.size_B >= units.MiB else lv.size_B / units.KiB
            unit = "MiB" if lv.size_B >= units.MiB else "KiB"
            per = f", {t('cpu_per_core', lang)}" if lv.key in ("l1", "l2") else ""
            name += f"\n{size:,.0f} {unit}{per}"
        labels.append(name)
    for yi, v, lv in zip(y, ns, levels):
        ax.annotate(f"{v:,.1f} ns · " + t("cpu_cycles_at", lang, cycles=lv.latency_s * clock, ghz=clock / 1e9),
                    (v, yi), xytext=(5, -4), textcoords="offset points", fontsize=9)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(0.5, max(ns) * 40)
    ax.set_xlabel(t("cpu_latency_ns", lang))
    ax.grid(axis="y", visible=False)
    return finish(fig)


def peak_flops(peaks: Sequence[cpu.Peak], lang: str) -> Figure:
    """Horizontal bars of peak FLOP/s (log scale): CPUs in blue, GPUs in red, precision and clock noted."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.4, 3.8))
    y = np.arange(len(peaks))
    tf = [p.flop_s / 1e12 for p in peaks]
    colors = [COLORS["memory"] if p.device == "cpu" else COLORS["compute"] for p in peaks]
    ax.barh(y, tf, height=0.6, color=colors)
    for yi, v, p in zip(y, tf, peaks):
        note = f"{v:,.2f} TFLOP/s · {p.precision}" if v < 10 else f"{v:,.1f} TFLOP/s · {p.precision}"
        if p.clock_hz:
            note += " · " + t("cpu_at_ghz", lang, ghz=p.clock_hz / 1e9)
        ax.annotate(note, (v, yi), xytext=(5, -4), textcoords="offset points", fontsize=9)
    ax.set_yticks(y, [t(f"cpu_{p.key}", lang) for p in peaks])
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(0.05, max(tf) * 60)
    ax.set_xlabel(t("cpu_peak_tflops", lang))
    ax.grid(axis="y", visible=False)
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLORS["memory"]),
               plt.Rectangle((0, 0), 1, 1, color=COLORS["compute"])]
    ax.legend(handles, [t("cpu_cpu", lang), t("cpu_gpu", lang)], loc="upper right", fontsize=9)
    return finish(fig)


def launch_readings(fit: launch.LaunchFit, lang: str) -> Figure:
    """The measured eager decode steps of the H200 sweep against the serial and overlapped readings.

    Horizontal: the CUDA-graph step (the GPU's work); vertical: the eager step, both in ms.
    """
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 4.0))
    g = np.array([p.graph_s for p in fit.points]) / units.MS
    xs = np.linspace(min(g.min(), 4.5), g.max() * 1.05, 200)
    serial = xs + fit.kernels_serial * (fit.eager_launch_s - fit.graph_launch_s) / units.MS
    overlap = np.maximum(fit.cpu_issue_s / units.MS, xs + fit.tail_s / units.MS)
    ax.plot(xs, xs, color="0.6", lw=1, ls=":", label=t("cpu_reading_graph", lang))
    ax.plot(xs, serial, color=COLORS["compute"], lw=1.6, ls="--", label=t("cpu_reading_serial", lang))
    ax.plot(xs, overlap, color=COLORS["memory"], lw=1.6, label=t("cpu_reading_overlap", lang))
    ax.scatter(g, [p.eager_s / units.MS for p in fit.points], color="black", zorder=3, s=22,
               label=t("cpu_measured", lang))
    above = {(1, 4000), (8, 1000), (32, 2000)}   # labels above-left where neighbours would collide
    for p in fit.points:                         # labelled batch x context
        up = (p.batch, p.context) in above
        ax.annotate(f"{p.batch}×{p.context}", (p.graph_s / units.MS, p.eager_s / units.MS),
                    xytext=(-5, 5) if up else (6, -12), ha="right" if up else "left",
                    textcoords="offset points", fontsize=7.5)
    ax.set_xlabel(t("cpu_graph_step_ms", lang))
    ax.set_ylabel(t("cpu_eager_step_ms", lang))
    ax.legend(loc="upper left", fontsize=8.5)
    return finish(fig)
