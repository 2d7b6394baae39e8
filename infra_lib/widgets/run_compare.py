"""A chapter's measured quantities on the course's H200 run and on the run its setting names.

Chapters 2, 3, 5 and 7 discuss the H200 run in their prose; each ends its measured section with this
table, whose second column is the reader's own run (``MEASURED_RUN`` in the chapter's setup cell,
a folder written by ``python -m infra_lib.gpu_bench``). Every quantity is read by the function the
chapters use (:mod:`infra_lib.measurements`, :mod:`infra_lib.cuda`); a quantity a run did not
measure (no CUDA graphs or host copies on the CPU backend, no FP8 before Ada/Hopper) shows as such.
"""
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import _check, measurements, units
from ..i18n import t
from .panel import Result


def _row0(run: str | Path) -> dict[str, Any]:
    return measurements.load(run)["decode"][0]


def _strided(run: str | Path, last: bool) -> tuple[float, str]:
    row = measurements.load(run, "ladder")["strided_loads"][-1 if last else 0]
    return float(row["useful_GBps"]), f"s = {row['stride']}"


def _decode(run: str | Path, graph: bool) -> tuple[float | None, str]:
    r = _row0(run)
    v = r.get("s_graph") if graph else r["s_eager"]
    return (None if v is None else v / units.MS), f"B = {r['batch']}|T = {r['ctx']:,}"


def _plain(value: float | None) -> tuple[float | None, str]:
    return value, ""


# name -> (label key, unit, reader); a reader returns (value or None where the run did not measure
# it, the setting it was measured at: a stride, a batch and context)
QUANTITIES: dict[str, tuple[str, str, Callable[[str | Path], tuple[float | None, str]]]] = {
    "copy": ("rc_copy", "GB/s", lambda r: _plain(measurements.copy_Bps(r) / units.GB)),
    "read": ("rc_read", "GB/s", lambda r: _plain(measurements.load(r)["read"]["GBps"])),
    "skinny": ("rc_skinny", "GB/s", lambda r: _plain(measurements.skinny_matmul_Bps(r) / units.GB)),
    "matmul": ("rc_matmul", "TFLOP/s", lambda r: _plain(measurements.large_matmul_flop_s(r) / units.TFLOP)),
    "fp8": ("rc_fp8", "TFLOP/s", lambda r: _plain(measurements.load(r, "ladder").get("fp8_TFLOPs"))),
    "launch_eager": ("rc_launch_eager", "µs", lambda r: _plain(measurements.load(r, "ladder")["tiny_op_eager_us"])),
    "launch_graph": ("rc_launch_graph", "µs", lambda r: _plain(measurements.load(r, "ladder")["tiny_op_graph_us"])),
    "h2d_pinned": ("rc_h2d_pinned", "GB/s", lambda r: _plain(measurements.load(r, "ladder")["h2d_pinned_GBps"])),
    "h2d_pageable": ("rc_h2d_pageable", "GB/s",
                     lambda r: _plain(measurements.load(r, "ladder")["h2d_pageable_GBps"])),
    "strided_first": ("rc_strided_first", "GB/s", lambda r: _strided(r, last=False)),
    "strided_last": ("rc_strided_last", "GB/s", lambda r: _strided(r, last=True)),
    "decode_eager": ("rc_decode_eager", "ms", lambda r: _decode(r, graph=False)),
    "decode_graph": ("rc_decode_graph", "ms", lambda r: _decode(r, graph=True)),
}


def _number(v: float) -> str:
    """Three significant figures at most, thousands separated: 4,242 / 55.3 / 1.17 / 0.0812."""
    if v >= 100:
        return f"{v:,.0f}"
    return f"{v:.1f}" if v >= 10 else f"{v:.2f}" if v >= 1 else f"{v:.3g}"


def summary(lang: str, names: tuple[str, ...], run: str | Path = measurements.RUN) -> Result:
    """One row per quantity in ``names`` (keys of :data:`QUANTITIES`): its value on the course's
    H200 run and, when ``run`` is another run, on that one; a value measured at a setting (a
    stride, a batch B and context T) names it, since two runs need not share their settings.

    >>> summary("en", ("copy", "launch_graph")).rows
    (('device-to-device copy (read + write)', '4,242 GB/s'), ('tiny op replayed from a CUDA graph', '1.17 µs'))
    >>> summary("en", ("strided_last",)).rows
    (('strided load, largest stride (useful bytes)', '455 GB/s (s = 33)'),)
    """
    if isinstance(names, str) or not isinstance(names, (list, tuple)):
        raise TypeError(f"names: need a tuple of quantity names ({', '.join(QUANTITIES)}), got {names!r:.60}")
    if not names:
        raise ValueError("names: need at least one quantity")
    for n in names:
        _check.lookup("names", n, QUANTITIES, "measured quantity")
    runs = [measurements.RUN] + ([run] if run != measurements.RUN else [])
    for r in runs:
        measurements.folder(r)
    rows = []
    for n in names:
        key, unit, read = QUANTITIES[n]
        row = [t(key, lang)]
        for r in runs:
            v, where = read(r)
            cell = t("rc_not_measured", lang) if v is None else f"{_number(v)} {unit}"
            inner = t("w_list_sep", lang).join(where.split("|"))
            row.append(t("w_paren", lang, text=cell, inner=inner) if where and v is not None else cell)
        rows.append(tuple(row))
    header = ("", *(t("rc_run_col", lang, device=measurements.info(r)["device"], run=measurements.run_name(r)) for r in runs)) \
        if len(runs) > 1 else ()
    intro = "" if len(runs) > 1 else t("rc_intro_default", lang)
    return Result(tuple(rows), header=header, align="l" + "r" * len(runs), intro=intro)
