"""Chapter 8 widget (infra_lib/widgets/autoscale.py): the rows are the library's numbers, the
defaults are the teaching cluster's, every slider at its limits computes, bad input is a message."""
import itertools

import pytest

from infra_lib import autoscale
from infra_lib.i18n import LANGUAGES
from infra_lib.widgets import autoscale as W
from widget_checks import assert_names_control


def test_defaults_are_the_teaching_cluster():
    assert W.PANEL.defaults() == dict(rate=30, latency_s=2, load_GBps=1, model_gb=16)


def test_rows_by_hand():
    rows = W.summary("en", 30, 2, 1, 16).rows
    assert rows[0][1] == "60"                       # Little: 30/s x 2 s
    assert rows[1][1] == "5"                        # 60 / (16 x 0.8) = 4.7
    assert rows[2][1] == "66 s"                     # 10/0.5 + 16/1 + 30
    assert rows[3][1] == "924"                      # (30 - 16)/s x 66 s
    # 140 GB from host memory at 25 GB/s: 20 + 5.6 + 30 = 55.6 s
    assert W.summary("en", 30, 2, 25, 140).rows[2][1] == "56 s"


def test_queue_grows_with_model_size():
    q = [float(W.summary("en", 30, 2, 1, m).rows[3][1].replace(",", "")) for m in (16, 140)]
    assert q[1] - q[0] == pytest.approx(14 * 124, abs=1)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_slider_at_min_mid_max(lang):
    grid = [(c.min, (c.min + c.max) / 2, c.max) for c in W.PANEL.controls]
    for values in itertools.product(*grid):
        out = W.PANEL.render(lang, dict(zip((c.name for c in W.PANEL.controls), values)))
        assert "<table" in out, (values, out)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("bad, name", [(dict(rate=-1), "rate"), (dict(latency_s=0), "latency_s"),
                                       (dict(load_GBps=0), "load_GBps"), (dict(model_gb="big"), "model_gb")])
def test_bad_input_is_a_message_naming_the_slider(lang, bad, name):
    values = dict(W.PANEL.defaults(), **bad)
    assert_names_control(W.PANEL.render(lang, values), W.PANEL, lang, name, values)


def test_summary_is_the_library():
    c = autoscale.cold_start(10e9, 0.5e9, 70e9, 5e9, 30)
    assert W.summary("en", 50, 4, 5, 70).rows[2][1] == f"{c.total_s:,.0f} s"
