"""Figures of number formats: quantization error of block-scaled formats against block size.

Each function takes ``lang``, calls :func:`style.setup`, closes the figure and returns it.
"""
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from .. import formats
from ..i18n import t
from .style import COLORS, finish, setup

SCALE_STYLE = {"e8m0": (COLORS["compute"], "-", "gpu_scale_e8m0"),
               "e4m3": (COLORS["memory"], "-", "gpu_scale_e4m3"),
               "fp32": (COLORS["grey"], ":", "gpu_scale_fp32")}

def block_scaling_error(sweeps: Mapping[str, Sequence[tuple[int, float]]],
                        marks: Sequence[tuple[formats.BlockFormat, float]], lang: str) -> Figure:
    """Relative RMS error against block size, one line per scale kind.

    ``sweeps``: {scale: [(block_size, error)]}; ``marks``: [(BlockFormat, error)] to label.
    """
    lang = setup(lang)
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
    return finish(fig)
