"""Chapter 3 widget: Little's law on one GPU, bytes in flight needed against bytes kept in flight.

Calls :func:`infra_lib.gpu.bytes_in_flight_B`, :func:`infra_lib.gpu.achievable_Bps`,
:func:`infra_lib.gpu.warps_needed` and the registry (pure Python, no numpy).
"""
from typing import Any

from .. import _check, gpu, hardware, units
from ..i18n import t
from .panel import Control, Panel, Result

WARP_SIZE = 32

CONTROLS = (
    Control("bw_TBps", "gpu_w_bw", float, hardware.value("h100_sxm5", "mem_bw_Bps") / units.TB, 0.5, 25, 0.001,
            aliases=("bandwidth_Bps",)),
    Control("latency_ns", "gpu_w_latency", float, round(gpu.TEACHING_HBM_LATENCY_S * 1e9, 6), 100, 2000, 50,
            aliases=("latency_s",)),
    Control("sms", "gpu_w_sms", int, int(hardware.value("h100_sxm5", "sm_count")), 1, 300, 1, aliases=("sm_count",)),
    Control("warps", "gpu_w_warps", int, 16, 1, int(hardware.value("h100_sxm5", "max_warps_per_sm")), 1),
    Control.choice("bytes_per_thread", "gpu_w_bytes", (2, 4, 8, 16), 4),
    Control("loads_per_thread", "gpu_w_loads", int, 1, 1, 16, 1),
)


def summary(lang: str, bw_TBps: float, latency_ns: float, sms: int, warps: int,
            bytes_per_thread: float, loads_per_thread: int) -> Result:
    """Bytes in flight the chip needs (Little's law), what these settings keep in flight, the bandwidth reached.

    >>> summary("en", 3.352, 600, 132, 16, 4, 1).rows[2][1]
    '0.45 TB/s'
    """
    bw_TBps = _check.positive("bw_TBps", bw_TBps, "TB/s")
    latency_ns = _check.positive("latency_ns", latency_ns, "ns")
    sms = _check.count("sms", sms, "SMs")
    warps = _check.count("warps", warps, "warps per SM")
    bytes_per_thread = _check.positive("bytes_per_thread", bytes_per_thread, "bytes")
    loads_per_thread = _check.count("loads_per_thread", loads_per_thread, "loads")
    bw, lat = bw_TBps * units.TB, latency_ns * 1e-9
    need = gpu.bytes_in_flight_B(bw, lat)
    reach = gpu.achievable_Bps(bw, lat, sms, warps, bytes_per_thread, loads_per_thread, WARP_SIZE)
    per_warp = _check.finite_result("bytes per warp (32 x bytes_per_thread x loads_per_thread)",
                                    WARP_SIZE * bytes_per_thread * loads_per_thread)
    warps_needed = gpu.warps_needed(bw, lat, sms, per_warp)
    limit = t("gpu_w_lim_bw" if reach >= bw else "gpu_w_lim_latency", lang)
    labelled = lambda label, value: t("w_labelled", lang, label=label, value=value)
    rows = (
        (t("gpu_w_need_chip", lang), f"{need / units.MB:,.2f} MB",
         f"{t('gpu_w_need_sm', lang)} {need / sms / units.KB:,.1f} KB"),
        (t("gpu_w_have_sm", lang), f"{warps * per_warp / units.KB:,.1f} KB",
         labelled(t('gpu_w_warps_needed', lang), f"{warps_needed:,}")),
        (t("gpu_w_achieved", lang), f"{reach / units.TB:,.2f} TB/s",
         t("gpu_w_of_peak", lang, pct=f"{reach / bw:.0%}") + t("w_list_sep", lang) + labelled(t("gpu_w_limit", lang), limit)),
    )
    return Result(rows)


PANEL = Panel(CONTROLS, summary)


def explore(lang: str = "en") -> Any:
    """Sliders for bandwidth, latency, SMs, warps and loads per thread, recomputed live (an ipywidgets.VBox)."""
    return PANEL.build(lang)
