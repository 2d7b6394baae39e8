"""Chapter 8 widget: replicas, cold start and the queue of a burst, for the reader's assumptions.

Calls :mod:`infra_lib.autoscale` (pure Python): replicas for the burst rate by Little's law,
the cold start of one replica (image pull, weight load at the chosen bandwidth, engine start,
with the image, pull bandwidth and engine start of the chapter's teaching cluster), and the
discrete-time burst simulation from the base rate's fleet.
"""
import math
from typing import Any

from .. import _check, autoscale, hardware as hw, units
from ..i18n import t
from .panel import Control, Panel, Result

_T = lambda name: hw.value("cluster_teaching", name)   # noqa: E731

CONTROLS = (
    Control("rate", "ch8_w_rate", float, _T("burst_rate_per_s"), 1, 200, 1),
    Control("latency_s", "ch8_w_latency", float, _T("request_latency_s"), 0.5, 30, 0.5),
    Control("load_GBps", "ch8_w_load_gbps", float, _T("object_store_Bps") / units.GB, 0.5, 50, 0.5),
    Control("model_gb", "ch8_w_model_gb", float, 16, 1, 400, 1),
)


def summary(lang: str, rate: float, latency_s: float, load_GBps: float, model_gb: float) -> Result:
    """Replicas for the burst, one replica's cold start, and the queue while new replicas start.

    >>> r = summary("en", 30, 2, 1, 16).rows
    >>> r[1][1], r[2][1], r[3][1]
    ('5', '66 s', '924')
    """
    rate = _check.non_negative("rate", rate, "requests/s")
    latency_s = _check.positive("latency_s", latency_s, "s")
    load_GBps = _check.positive("load_GBps", load_GBps, "GB/s")
    model_gb = _check.non_negative("model_gb", model_gb, "GB")
    slots, u = int(_T("slots_per_replica")), _T("target_utilization")
    base = _T("base_rate_per_s")
    cold = autoscale.cold_start(_T("image_B"), _T("registry_pull_Bps"), model_gb * units.GB, load_GBps * units.GB,
                                _T("engine_init_s"))
    n = autoscale.replicas_needed(rate, latency_s, slots, u)
    n0 = autoscale.replicas_needed(base, latency_s, slots, u)
    duration_s = 60 + 3 * cold.total_s + 600
    trace = autoscale.simulate_burst(base, rate, latency_s, slots, cold.total_s, burst_at_s=60,
                                     duration_s=duration_s, dt_s=max(1, math.ceil(duration_s / 5000)))
    rows = (
        (t("ch8_w_inflight", lang), f"{autoscale.in_flight(rate, latency_s):,.0f}", ""),
        (t("ch8_w_replicas", lang), f"{n:,d}", t("ch8_w_from", lang, n=n0)),
        (t("ch8_w_cold", lang), f"{cold.total_s:,.0f} s",
         t("ch8_w_cold_parts", lang, pull=cold.pull_s, load=cold.load_s, init=cold.init_s)),
        (t("ch8_w_queued", lang), f"{trace.peak_queued:,.0f}", ""),
        (t("ch8_w_drained", lang), f"{trace.drained_s:,.0f} s", ""),
    )
    return Result(rows)


PANEL = Panel(CONTROLS, summary)


def explore(lang: str = "en") -> Any:
    """Sliders for burst rate, latency target, load bandwidth and model size (an ipywidgets.VBox)."""
    return PANEL.build(lang)
