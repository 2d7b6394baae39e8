"""Chapter 3 widget (infra_lib/widgets/latency.py): Little's law worked out by hand and
against the library; bad input is a message in the page's language naming the slider."""
import math

import pytest

from infra_lib import gpu
from infra_lib.i18n import LANGUAGES
from infra_lib.widgets import latency
from widget_checks import assert_names_control, expected_reason, text_of

DEFAULTS = dict(bw_TBps=3.352, latency_ns=600, sms=132, warps=16, bytes_per_thread=4, loads_per_thread=1)


def test_the_defaults_are_the_h100_with_the_teaching_latency():
    assert latency.PANEL.defaults() == DEFAULTS


def test_summary_shows_littles_law():
    out = latency.PANEL.render("en", DEFAULTS)
    assert f"{3352e9 * 600e-9 / 1e6:,.2f} MB" in out
    assert f"{132 * 16 * 32 * 4 * 1 / 600e-9 / 1e12:,.2f} TB/s" in out
    assert f"{math.ceil(3352e9 * 600e-9 / 132 / 128):,}" in out            # warps needed at 128 B per warp
    assert "too few bytes in flight" in out
    full = latency.PANEL.render("zh", dict(DEFAULTS, bytes_per_thread=16, loads_per_thread=2))
    assert "显存带宽本身" in full and "3.35 TB/s" in full


@pytest.mark.parametrize("values", [DEFAULTS, dict(DEFAULTS, bw_TBps=8, latency_ns=1000, sms=300, warps=64,
                                                   bytes_per_thread=16, loads_per_thread=16)])
def test_summary_is_the_library(values):
    bw, lat = values["bw_TBps"] * 1e12, values["latency_ns"] * 1e-9
    rows = latency.summary("en", **values).rows
    assert rows[0][1] == f"{gpu.bytes_in_flight_B(bw, lat) / 1e6:,.2f} MB"
    reach = gpu.achievable_Bps(bw, lat, values["sms"], values["warps"], values["bytes_per_thread"],
                               values["loads_per_thread"])
    assert rows[2][1] == f"{reach / 1e12:,.2f} TB/s"
    per_warp = 32 * values["bytes_per_thread"] * values["loads_per_thread"]
    assert rows[1][2].endswith(f"{gpu.warps_needed(bw, lat, values['sms'], per_warp):,}")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("bad, name, reason", [
    (dict(bw_TBps=0), "bw_TBps", {"en": "greater than 0", "zh": "必须大于 0"}),
    (dict(latency_ns=0), "latency_ns", {"en": "greater than 0", "zh": "必须大于 0"}),
    (dict(sms=0), "sms", {"en": "at least 1", "zh": "不能小于 1"}),
    (dict(warps=0), "warps", {"en": "at least 1", "zh": "不能小于 1"}),
    (dict(bytes_per_thread=-4), "bytes_per_thread", {"en": "greater than 0", "zh": "必须大于 0"}),
    (dict(loads_per_thread=1.5), "loads_per_thread", {"en": "whole number", "zh": "整数"}),
])
def test_bad_input_is_a_message_naming_the_slider(lang, bad, name, reason):
    values = dict(DEFAULTS, **bad)
    out = latency.PANEL.render(lang, values)
    assert_names_control(out, latency.PANEL, lang, name, values)
    assert expected_reason(latency.PANEL, lang, name, values[name], reason[lang]) in text_of(out)
