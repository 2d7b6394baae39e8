"""Roofline figures, and the one helper that draws every roof.

:func:`draw_roof` draws min(peak, intensity x bandwidth) for one machine on a log-log Axes and
marks its ridge point, peak / bandwidth (:func:`infra_lib.roofline.ridge_point`); the
:class:`Roof` it returns places operations on that roof (:meth:`Roof.add_point`), and
:func:`mark` places a measured point anywhere. Every roofline figure of the course uses them.
"""
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .. import i18n, inference, roofline
from ..i18n import t
from .style import COLORS, finish, setup


def mark(ax: Axes, intensity: float, flop_s: float, *, unit_flop_s: float = 1e12, label: str | None = None,
         color: str = "black", ms: float = 8, xytext: tuple[float, float] = (8, -28), **text_kw: Any) -> float:
    """Plot one point at (``intensity`` FLOP/byte, ``flop_s`` / ``unit_flop_s``), with ``label`` beside it.

    ``text_kw`` go to :meth:`Axes.annotate` (``ha``, ``fontsize`` ...). Returns the plotted height.
    """
    y = flop_s / unit_flop_s
    ax.plot([intensity], [y], "o", ms=ms, color=color)
    if label is not None:
        ax.annotate(label, (intensity, y), xytext=xytext, textcoords="offset points", color=color, **text_kw)
    return y


@dataclass(frozen=True)
class Roof:
    """One machine's roof as drawn on ``ax``, heights in FLOP/s / ``unit_flop_s``."""
    ax: Axes
    peak_flop_s: float
    mem_bw_Bps: float
    unit_flop_s: float

    @property
    def ridge_point(self) -> float:
        """Peak over bandwidth, FLOP per byte: where the slope meets the flat roof."""
        return float(roofline.ridge_point(self.peak_flop_s, self.mem_bw_Bps))

    def attainable_flop_s(self, intensity: float) -> float:
        """min(peak, ``intensity`` x bandwidth), FLOP/s."""
        return float(roofline.attainable_flop_s(intensity, self.peak_flop_s, self.mem_bw_Bps))

    def label_ridge(self, text: str, color: str = COLORS["grey"]) -> None:
        """Write ``text`` beside the ridge point, a third of the way below the flat roof."""
        self.ax.annotate(text, (self.ridge_point, self.peak_flop_s / self.unit_flop_s / 3), xytext=(6, 0),
                         textcoords="offset points", color=color)

    def add_point(self, intensity: float, label: str | None = None, **mark_kw: Any) -> float:
        """Mark an operation of ``intensity`` FLOP/byte on this roof (see :func:`mark`); returns its height."""
        return mark(self.ax, intensity, self.attainable_flop_s(intensity), unit_flop_s=self.unit_flop_s,
                    label=label, **mark_kw)


def draw_roof(ax: Axes, peak_flop_s: float, mem_bw_Bps: float, intensity_range: tuple[float, float], *,
              n: int = 200, unit_flop_s: float = 1e12, color: str = "black", lw: float = 2,
              label: str | None = None, ridge: Literal["line", "tick"] = "line") -> Roof:
    """Draw min(peak, I x bandwidth) / ``unit_flop_s`` for I over ``intensity_range`` (FLOP/byte, log-spaced)
    on log-log axes, and mark the ridge point: a grey dashed vertical line (``ridge="line"``) or a
    tick in the roof's colour at the corner (``ridge="tick"``).

    >>> fig, ax = plt.subplots()
    >>> draw_roof(ax, 1e15, 3e12, (0.1, 1e4)).ridge_point    # 1e15 / 3e12
    333.3333333333333
    >>> plt.close(fig)
    """
    ridge_I = roofline.ridge_point(peak_flop_s, mem_bw_Bps)
    lo, hi = intensity_range
    x = np.logspace(np.log10(lo), np.log10(hi), n)
    kw: dict[str, Any] = {} if label is None else {"label": label}
    ax.loglog(x, np.minimum(peak_flop_s, x * mem_bw_Bps) / unit_flop_s, color=color, lw=lw, **kw)
    if ridge == "line":
        ax.axvline(ridge_I, color=COLORS["grey"], ls="--", lw=1)
    elif ridge == "tick":
        ax.plot([ridge_I], [peak_flop_s / unit_flop_s], "|", ms=12, color=color)
    else:
        raise ValueError(f"ridge must be 'line' or 'tick', got {ridge!r}")
    return Roof(ax, peak_flop_s, mem_bw_Bps, unit_flop_s)


def accelerator(acc: inference.Accelerator, points: Sequence[tuple[str, float]], lang: str) -> Figure:
    """Log-log roofline of the accelerator ``acc`` in TFLOP/s with named operations on it.

    ``points``: list of (label, intensity FLOP/byte); each is coloured by the roof it sits under.
    """
    lang = setup(lang)
    fig, ax = plt.subplots()
    ridge_I = roofline.ridge_point(acc.peak_flop_s, acc.mem_bw_Bps)
    lo = min([0.25] + [p[1] / 4 for p in points])
    hi = max([ridge_I * 30] + [p[1] * 4 for p in points])
    roof = draw_roof(ax, acc.peak_flop_s, acc.mem_bw_Bps, (lo, hi))
    roof.label_ridge(f"{t('ridge', lang)} ≈ {roof.ridge_point:.0f}")
    for label, intensity in points:
        kind = roofline.bound(intensity, acc.peak_flop_s, acc.mem_bw_Bps)
        roof.add_point(intensity, label + "\n" + t("w_paren", lang, text="", inner=t(kind + "_bound", lang)).strip(),
                       color=COLORS[kind], ms=9)
    ax.set_xlabel(t("intensity", lang))
    ax.set_ylabel(t("attainable", lang))
    teaching = acc.name == i18n.STRINGS["teaching_gpu"]["en"]   # the registry's name; drawn in the page's language
    ax.set_title(t("teaching_gpu", lang) if teaching else acc.name)
    return finish(fig)


def machines(roofs: Sequence[tuple[str, float, float, str]], lang: str, decode_intensity: float | None = None,
             point: tuple[str, float, float] | None = None) -> Figure:
    """Log-log rooflines of several machines in GFLOP/s, each ridge point ticked.

    ``roofs``: list of (label, peak_flop_s, bandwidth_Bps, color). ``decode_intensity``: draw a
    vertical line there. ``point``: (label, intensity, flop_s) of a measured kernel.
    """
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.4, 4.4))
    ridges = [roofline.ridge_point(p, b) for _, p, b, _ in roofs]
    hi = max(ridges + ([point[1]] if point else [])) * 20
    for label, peak, bw, color in roofs:
        draw_roof(ax, peak, bw, (0.1, hi), n=300, unit_flop_s=1e9, color=color, label=label, ridge="tick")
    if decode_intensity is not None:
        ax.axvline(decode_intensity, color=COLORS["grey"], ls="--", lw=1)
        ax.annotate(t("cpu_decode_mark", lang), (decode_intensity, ax.get_ylim()[1]), xytext=(3, -8),
                    textcoords="offset points", rotation=90, color=COLORS["grey"], fontsize=9,
                    va="top", ha="left", bbox=dict(facecolor="white", edgecolor="none", pad=1))
    if point is not None:
        label, intensity, flop_s = point
        mark(ax, intensity, flop_s, unit_flop_s=1e9, label=label, xytext=(-10, 8), ha="right", fontsize=9)
    ax.set_xlabel(t("intensity", lang))
    ax.set_ylabel(t("cpu_attainable", lang))
    ax.legend(loc="lower right", fontsize=8.5)
    return finish(fig)
