"""Chapter 1 widget (infra_lib/widgets/wafer.py): one wafer under each yield model, worked
out by hand; bad input is a message in the page's language naming the slider."""
import math

import pytest

from infra_lib import fab
from infra_lib.i18n import LANGUAGES
from infra_lib.widgets import wafer
from widget_checks import assert_names_control, expected_reason, text_of

DEFAULTS = dict(die_area_mm2=814, d0_per_cm2=0.10, alpha=3, wafer_price_usd=16988)


def test_the_defaults_are_the_gh100_die_on_n5():
    assert wafer.PANEL.defaults() == DEFAULTS


def test_summary_shows_the_worked_example():
    out = wafer.PANEL.render("en", DEFAULTS)
    gross = math.pi * 150 ** 2 / 814 - math.pi * 300 / math.sqrt(1628)
    y = ((1 - math.exp(-0.814)) / 0.814) ** 2                        # Murphy
    assert f"{gross:,.1f}" in out
    assert f"{y:.1%}" in out and f"{gross * y:,.1f}" in out
    assert f"${16988 / (gross * y):,.0f}" in out
    assert f"{math.exp(-0.814):.1%}" in out                          # Poisson
    assert f"{(1 + 0.814 / 3) ** -3:.1%}" in out                     # negative binomial, alpha 3
    assert "reticle" not in out


@pytest.mark.parametrize("values", [dict(DEFAULTS, die_area_mm2=100, d0_per_cm2=0.05, alpha=1.5),
                                    dict(DEFAULTS, die_area_mm2=1700, d0_per_cm2=0, wafer_price_usd=40000)])
def test_summary_is_the_library(values):
    rows = wafer.summary("en", **values).rows
    for row, model in zip(rows, fab.MODELS):
        w = fab.wafer(values["die_area_mm2"], values["d0_per_cm2"], values["wafer_price_usd"], model,
                      values["alpha"], fab.wafer_diameter_mm())
        assert row[1:3] == (f"{w.die_yield:.1%}", f"{w.good_dies:,.1f}")
        assert row[3].startswith(f"${w.cost_per_good_die_usd:,.0f} ")


def test_summary_warns_beyond_the_reticle():
    assert "单次曝光上限" in wafer.PANEL.render("zh", dict(DEFAULTS, die_area_mm2=1200))
    assert "reticle" in wafer.PANEL.render("en", dict(DEFAULTS, die_area_mm2=1200))


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("bad, name, reason", [
    (dict(die_area_mm2=0), "die_area_mm2", {"en": "greater than 0", "zh": "必须大于 0"}),
    (dict(d0_per_cm2=-0.1), "d0_per_cm2", {"en": "0 or more", "zh": "不能小于 0"}),
    (dict(alpha=0), "alpha", {"en": "greater than 0", "zh": "必须大于 0"}),
    (dict(wafer_price_usd=0), "wafer_price_usd", {"en": "greater than 0", "zh": "必须大于 0"}),
    (dict(die_area_mm2=float("nan")), "die_area_mm2", {"en": "finite number", "zh": "有限的数"}),
    (dict(alpha="3"), "alpha", {"en": "finite number", "zh": "有限的数"}),
])
def test_bad_input_is_a_message_naming_the_slider(lang, bad, name, reason):
    values = dict(DEFAULTS, **bad)
    out = wafer.PANEL.render(lang, values)
    assert_names_control(out, wafer.PANEL, lang, name, values)
    assert expected_reason(wafer.PANEL, lang, name, values[name], reason[lang]) in text_of(out)
