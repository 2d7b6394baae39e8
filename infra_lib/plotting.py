"""Figures for the chapters, with labels in the page's language.

Every figure is drawn on an opaque white background (legible in the site's dark mode too)
with a font that has the page's glyphs. A glyph missing from the font is an error, not a
warning, so a figure with tofu boxes fails the build instead of shipping.
"""
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg") if not matplotlib.get_backend().lower().startswith(("module://", "agg")) else None
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402

from . import _check, inference, interconnect, units  # noqa: E402
from .i18n import t  # noqa: E402

CJK_FONT_FILES = (  # Debian fonts-noto-cjk, then fonts-wqy-microhei
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
)
COLORS = {"memory": "#1f77b4", "compute": "#d62728", "accent": "#2ca02c", "grey": "#7f7f7f"}


def cjk_font_name():
    """Register the first CJK font found and return its family name."""
    for path in CJK_FONT_FILES:
        if Path(path).exists():
            font_manager.fontManager.addfont(path)
            return font_manager.FontProperties(fname=path).get_name()
    raise RuntimeError("No CJK font found (looked for " + ", ".join(CJK_FONT_FILES) +
                       "). Install Debian's fonts-noto-cjk: the setup script does this.")


def setup(lang):
    """Style figures for language ``lang`` ('en' or 'zh'); call once at the top of a chapter."""
    lang = _check.choice("lang", lang, ("en", "zh"))
    family = ["DejaVu Sans"]
    if lang == "zh":
        family = [cjk_font_name(), "DejaVu Sans"]
    matplotlib.rcParams.update({
        "font.family": "sans-serif", "font.sans-serif": family, "axes.unicode_minus": False,
        "figure.facecolor": "white", "axes.facecolor": "white", "savefig.facecolor": "white",
        "savefig.transparent": False, "figure.dpi": 110, "savefig.dpi": 150,
        "axes.grid": True, "grid.alpha": 0.3, "axes.spines.top": False, "axes.spines.right": False,
        "figure.figsize": (7.0, 4.2), "font.size": 10.5,
    })
    warnings.filterwarnings("error", message=r"Glyph .* missing from")
    warnings.filterwarnings("error", message=r".*missing from font")
    return lang


def roofline_figure(acc, points, lang):
    """Log-log roofline of ``acc`` with named operations marked.

    ``points``: list of (label, intensity FLOP/byte). Draws min(peak, I x BW) in TFLOP/s.
    """
    import numpy as np
    lang = setup(lang)
    fig, ax = plt.subplots()
    lo = min([0.25] + [p[1] / 4 for p in points])
    hi = max([acc.ridge_point * 30] + [p[1] * 4 for p in points])
    x = np.logspace(np.log10(lo), np.log10(hi), 200)
    y = np.minimum(acc.peak_flop_s, x * acc.mem_bw_Bps) / 1e12
    ax.loglog(x, y, color="black", lw=2)
    ax.axvline(acc.ridge_point, color=COLORS["grey"], ls="--", lw=1)
    ax.annotate(f"{t('ridge', lang)} ≈ {acc.ridge_point:.0f}", (acc.ridge_point, acc.peak_flop_s / 1e12 / 3),
                xytext=(6, 0), textcoords="offset points", color=COLORS["grey"])
    for label, intensity in points:
        kind = "compute" if intensity >= acc.ridge_point else "memory"
        yv = min(acc.peak_flop_s, intensity * acc.mem_bw_Bps) / 1e12
        ax.plot([intensity], [yv], "o", ms=9, color=COLORS[kind])
        ax.annotate(f"{label}\n({t(kind + '_bound', lang)})", (intensity, yv), xytext=(8, -28),
                    textcoords="offset points", color=COLORS[kind])
    ax.set_xlabel(t("intensity", lang))
    ax.set_ylabel(t("attainable", lang))
    ax.set_title(acc.name if lang == "en" else acc.name.replace("Teaching GPU", "教学 GPU"))
    fig.tight_layout()
    plt.close(fig)
    return fig


def batch_figure(request, acc, lang, batches=None, mark=None):
    """Step time and throughput against batch size for ``request`` on ``acc``."""
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
    fig.tight_layout()
    plt.close(fig)
    return fig


def ladder_figure(ladder, lang):
    """Quoted number vs bytes per second per direction for each link of the server ladder."""
    import numpy as np
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
    fig.tight_layout()
    plt.close(fig)
    return fig


def reality_figure(checks, lang):
    """Predicted vs measured decode step (ms) for each :class:`measurements.DecodeCheck`."""
    import numpy as np
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    x = np.arange(len(checks))
    w = 0.27
    ax.bar(x - w, [c.predicted_s / units.MS for c in checks], w, color="#c7c7c7", label=t("predicted", lang))
    ax.bar(x, [c.measured_graph_s / units.MS for c in checks], w, color=COLORS["memory"], label=t("measured_graph", lang))
    ax.bar(x + w, [c.measured_eager_s / units.MS for c in checks], w, color=COLORS["compute"], label=t("measured_eager", lang))
    ax.set_xticks(x, [t("decode_batch", lang, batch=c.batch) for c in checks])
    ax.set_ylabel(t("step_ms", lang))
    ax.legend(loc="upper left", fontsize=9)
    fig.tight_layout()
    plt.close(fig)
    return fig
