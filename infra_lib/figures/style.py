"""The look shared by every figure: colours, fonts, the CJK font, and a missing glyph as an error.

Every figure is drawn on an opaque white background (legible in the site's dark mode too)
with a font that has the page's glyphs. A glyph missing from the font is an error, not a
warning, so a figure with tofu boxes fails the build instead of shipping. Chapters call
:func:`setup` once at the top; every figure function calls it again with its own ``lang``.
"""
import functools
import io
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg") if not matplotlib.get_backend().lower().startswith(("module://", "agg")) else None
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from .. import _check  # noqa: E402
from ..i18n import LANGUAGES  # noqa: E402

CJK_FONT_FILES = (  # Debian fonts-noto-cjk, then fonts-wqy-microhei
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
)
# On a reader's macOS or Windows machine: the system's own Chinese fonts, by family name.
CJK_FONT_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "PingFang SC",
                     "Hiragino Sans GB", "Microsoft YaHei", "SimHei", "WenQuanYi Micro Hei")
COLORS = {"memory": "#1f77b4", "compute": "#d62728", "accent": "#2ca02c", "grey": "#7f7f7f"}
MISSING_GLYPH_WARNINGS = (r"Glyph .* missing from", r".*missing from font")
PIXEL_DENSITY = 2      # figures carry twice the pixels they are shown at: sharp on a HiDPI screen or zoomed
PALETTE_COLORS = 256   # and are stored as palette PNGs: line art needs no more colours, and weighs less


@functools.cache
def cjk_font_name() -> str:
    """Register the first CJK font found and return its family name (once per process: each
    registration would empty matplotlib's font lookup cache, 0.2-0.3 s per Chinese figure).

    Debian's font files first (what the site is built with), then any installed font of
    :data:`CJK_FONT_FAMILIES` (a reader's macOS or Windows machine).
    """
    for path in CJK_FONT_FILES:
        if Path(path).exists():
            font_manager.fontManager.addfont(path)
            return str(font_manager.FontProperties(fname=path).get_name())
    installed = {f.name for f in font_manager.fontManager.ttflist}
    for family in CJK_FONT_FAMILIES:
        if family in installed:
            return family
    raise RuntimeError("No Chinese font found for the figures' labels (looked for "
                       + ", ".join(CJK_FONT_FAMILIES) + "). On Debian or Ubuntu: apt install fonts-noto-cjk; "
                       "on macOS and Windows a system font (PingFang SC, Microsoft YaHei) is found by itself. "
                       "The English chapters need no extra font.")


def setup(lang: str) -> str:
    """Style figures for language ``lang`` ('en' or 'zh') and return it; a missing glyph becomes an error.

    >>> setup("en")
    'en'
    """
    lang = _check.choice("lang", lang, LANGUAGES)
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
    for message in MISSING_GLYPH_WARNINGS:
        warnings.filterwarnings("error", message=message)
    _show_figures_hidpi()
    return lang


def hidpi_png(fig: Figure) -> tuple[bytes, dict[str, int]] | None:
    """``fig`` as a PNG at :data:`PIXEL_DENSITY` times its dots per inch, in a palette of
    :data:`PALETTE_COLORS` colours, with the width to show it at (its size at ``fig.dpi``); None for
    a figure with nothing drawn, as IPython's own formatter does.

    The page and the notebook show it at that width, so it looks as large as a 1x figure and
    stays sharp on a phone or a HiDPI laptop; the site links it, so a click opens it full size.
    A 2x palette PNG of a line chart weighs less than the 1x RGBA one it replaces. The PNG is
    opaque (:func:`setup` gives every figure a white background, which dark mode keeps).

    >>> fig = plt.figure(figsize=(2.0, 1.0), dpi=100)
    >>> _ = fig.add_axes((0, 0, 1, 1)).axis("off")          # an empty axes: something to draw
    >>> data, meta = hidpi_png(fig)
    >>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n", meta   # (2 in + 2 x 0.1 in of tight padding) x 100 dpi
    (True, {'width': 220})
    >>> from PIL import Image
    >>> Image.open(io.BytesIO(data)).size, Image.open(io.BytesIO(data)).mode
    ((440, 240), 'P')
    >>> plt.close(fig)
    >>> hidpi_png(plt.figure()) is None   # no axes, no lines: no image
    True
    >>> plt.close("all")
    """
    from PIL import Image
    if not isinstance(fig, Figure):
        raise TypeError(f"hidpi_png draws a matplotlib Figure, got {type(fig).__name__}")
    if not fig.axes and not fig.lines:
        return None
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi * PIXEL_DENSITY, bbox_inches="tight")
    image = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
    width = round(image.width / PIXEL_DENSITY)
    out = io.BytesIO()
    image.quantize(colors=PALETTE_COLORS, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE) \
        .save(out, format="png", optimize=True)
    return out.getvalue(), {"width": width}


def _show_figures_hidpi() -> None:
    """In IPython (the build, Jupyter), display every Figure through :func:`hidpi_png`, a reader's own
    too (in place of the inline backend's PNG and its ``InlineBackend`` settings); elsewhere nothing."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    _load_backend()
    shell.display_formatter.formatters["image/png"].for_type(Figure, hidpi_png)


@functools.cache
def _load_backend() -> None:
    """Load pyplot's backend now, once. matplotlib loads it at the first figure, and Jupyter's inline
    backend then registers its own 1x PNG formatter for Figure, over :func:`hidpi_png`: the first
    figure of every chapter came out at 1x until this ran first."""
    plt.close(plt.figure())


def _non_finite_mark(fig: Figure) -> str | None:
    """The first line, marker set or bar of ``fig`` drawn from a NaN or an infinity, or None."""
    import numpy as np
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle
    for ax in fig.axes:
        for artist in ax.get_children():
            if isinstance(artist, Line2D):
                data = np.asarray(artist.get_xydata(), dtype=float)
            elif isinstance(artist, Collection):
                data = np.asarray(artist.get_offsets(), dtype=float)
            elif isinstance(artist, Rectangle) and artist is not ax.patch:
                data = np.asarray([artist.get_x(), artist.get_y(), artist.get_width(), artist.get_height()],
                                  dtype=float)
            else:
                continue
            if data.size and not np.all(np.isfinite(data)):
                label = str(artist.get_label() or "")
                return f"a {type(artist).__name__}" + (f" ({label!r})" if label and not label.startswith("_") else "")
    return None


def finish(fig: Figure) -> Figure:
    """Lay ``fig`` out tightly, close it (the chapter glues it; nothing else shows it) and return it.

    A mark drawn from a NaN or an infinity (matplotlib leaves it out without a word) is an error:
    the data behind a figure must be finite."""
    bad = _non_finite_mark(fig)
    if bad:
        plt.close(fig)
        raise ValueError(f"the figure's data is not finite: {bad} has a NaN or an infinity")
    fig.tight_layout()
    plt.close(fig)
    return fig
