"""Chapter 1 widget: recomputes on change; bad input gives a message naming the parameter."""
import math

import pytest

from infra_lib import fab, fab_widgets

DEFAULTS = dict(die_area_mm2=814, d0_per_cm2=0.10, alpha=3, wafer_price_usd=16988)


def test_summary_shows_the_worked_example():
    html = fab_widgets.wafer_summary("en", **DEFAULTS)
    gross = math.pi * 150 ** 2 / 814 - math.pi * 300 / math.sqrt(1628)
    y = ((1 - math.exp(-0.814)) / 0.814) ** 2
    assert f"{gross:,.1f}" in html
    assert f"{y:.1%}" in html and f"{gross * y:,.1f}" in html
    assert f"${16988 / (gross * y):,.0f}" in html
    assert "reticle" not in html


def test_summary_warns_beyond_the_reticle():
    html = fab_widgets.wafer_summary("zh", **{**DEFAULTS, "die_area_mm2": 1200})
    assert "单次曝光上限" in html


@pytest.mark.parametrize("bad, name", [
    (dict(die_area_mm2=0), "die_area_mm2"), (dict(d0_per_cm2=-0.1), "d0_per_cm2"),
    (dict(alpha=0), "alpha"), (dict(wafer_price_usd=0), "wafer_price_usd"),
    (dict(die_area_mm2=float("nan")), "die_area_mm2"), (dict(alpha="3"), "alpha"),
])
def test_bad_input_is_a_message_naming_the_parameter(bad, name):
    html = fab_widgets.wafer_summary("zh", **{**DEFAULTS, **bad})
    assert "无法计算" in html and name in html, (bad, html)


def test_moving_a_slider_recomputes():
    box = fab_widgets.explore_wafer("en")
    out = box.children[-1]
    before = out.value
    area = box.children[0]
    area.value = 100
    assert out.value != before
    w = fab.wafer(100, 0.10, 16988)
    assert f"{w.good_dies:,.1f}" in out.value
