"""Chapter 2 widget: kernel launches, eager against CUDA-graph replay, for the reader's assumptions.

Calls :class:`infra_lib.launch.LaunchModel` and, for the defaults,
:func:`infra_lib.launch.h200_launch_model` (pure Python, no numpy): the overlapped reading of the
H200 run, whose kernel count is the batch-1 eager step over the eager cost of a tiny op, and whose
GPU time is the CUDA-graph step. The serial row shows what the same kernels would cost if the GPU
waited for every launch; the graph row is the overlapped limit with graph launch costs.

The graph-launch slider stays one step below the eager one (a graph replay is cheaper than an
eager launch by construction of the model), so every state the sliders reach computes.
"""
from typing import Any

from .. import _check, launch, units
from ..i18n import t
from .panel import Control, InputError, Panel, Result, snap

_M = launch.h200_launch_model()

CONTROLS = (
    Control("kernels", "cpu_w_kernels", int, round(_M.kernels), 0, 3000, 1),
    Control("launch_us", "cpu_w_launch_us", float, snap(_M.eager_launch_s / units.US, 0.5, 0.01), 0.5, 50, 0.01,
            aliases=("eager_launch_s",)),
    Control("graph_launch_us", "cpu_w_graph_us", float, snap(_M.graph_launch_s / units.US, 0, 0.01), 0, 10, 0.01,
            below="launch_us", aliases=("graph_launch_s",)),
    Control("gpu_ms", "cpu_w_gpu_ms", float, snap(_M.gpu_s / units.MS, 0.05, 0.01), 0.05, 50, 0.01,
            aliases=("gpu_s",)),
)


def summary(lang: str, kernels: int, launch_us: float, graph_launch_us: float, gpu_ms: float) -> Result:
    """The step eager (serial and overlapped limits) and replayed from a CUDA graph (overlapped limit).

    >>> summary("en", 224, 7.1, 1.2, 1.0).rows[1][2]      # 224 x 7.1 us = 1.59 ms > 1 ms
    'CPU-bound even with overlap'
    """
    kernels = _check.count("kernels", kernels, "kernels", minimum=0)
    launch_us = _check.positive("launch_us", launch_us, "µs")
    graph_launch_us = _check.non_negative("graph_launch_us", graph_launch_us, "µs")
    gpu_ms = _check.positive("gpu_ms", gpu_ms, "ms")
    m = launch.LaunchModel(kernels, launch_us * units.US, graph_launch_us * units.US, gpu_ms * units.MS)
    if graph_launch_us >= launch_us:
        raise InputError("graph_launch_us", "w_err_below", other="launch_us")
    bound = "cpu_w_cpu_bound" if m.eager_cpu_s > m.gpu_s else "cpu_w_gpu_bound"
    rows = (
        (t("cpu_w_serial", lang), f"{m.eager_serial_s / units.MS:,.3f} ms",
         t("w_labelled", lang, label=t("cpu_w_lost", lang), value=f"{m.lost_share_serial:.1%}")),
        (t("cpu_w_overlap", lang), f"{m.eager_overlapped_s / units.MS:,.3f} ms", t(bound, lang)),
        (t("cpu_w_graph", lang), f"{m.graph_overlapped_s / units.MS:,.3f} ms",
         f"{t('cpu_w_saved', lang)} {(m.eager_overlapped_s - m.graph_overlapped_s) / units.MS:,.3f} ms"),
    )
    return Result(rows)


PANEL = Panel(CONTROLS, summary)


def explore(lang: str = "en") -> Any:
    """Sliders for kernels per step, launch costs and GPU time, the step recomputed live (an ipywidgets.VBox)."""
    return PANEL.build(lang)
