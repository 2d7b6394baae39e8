"""Chapter 7 widget (infra_lib/widgets/training_memory.py): the summary is the library's
gpu_memory; every slider at its minimum, middle and maximum computes in both languages."""
import itertools

import pytest

from infra_lib import training_memory as T
from infra_lib.i18n import LANGUAGES
from infra_lib.widgets import training_memory as W
from widget_checks import assert_names_control


def _gb(row):
    return float(row[1].split()[0].replace(",", ""))


def test_summary_is_the_library():
    shape = T.teaching_shape(70e9)
    m = T.gpu_memory(70e9, shape.layers, 8192, 1, shape.hidden, shape.heads, 3, 64, "full")
    rows = W.summary("en", 70, 3, 64, 2, 8192).rows
    assert _gb(rows[0]) == pytest.approx(70e9 * 2 / 64 / 1e9, abs=0.05)
    assert _gb(rows[4]) == pytest.approx(m.total_B / 1e9, abs=0.05)


def test_sharding_and_recompute_shrink_memory():
    ddp = _gb(W.summary("en", 8, 0, 8, 0, 4096).rows[4])
    z3 = _gb(W.summary("en", 8, 3, 8, 0, 4096).rows[4])
    full = _gb(W.summary("en", 8, 3, 8, 2, 4096).rows[4])
    assert ddp > z3 > full
    assert W.summary("en", 8, 3, 1024, 0, 32768).rows[-1][1] == "activations"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_slider_min_mid_max(lang):
    for c in W.PANEL.controls:
        values = c.options or (c.min, c.kind((c.min + c.max) // 2 if c.kind is int else (c.min + c.max) / 2), c.max)
        for v in (values[0], values[len(values) // 2], values[-1]):
            out = W.PANEL.render(lang, dict(W.PANEL.defaults(), **{c.name: v}))
            assert "GB" in out


def test_corners_compute():
    for p, s, d, r, q in itertools.product((1, 400), (0, 3), (1, 1024), (0, 2), (1024, 32768)):
        assert len(W.summary("zh", p, s, d, r, q).rows) == 6


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("bad, name", [(dict(params_b=0), "params_b"), (dict(stage=5), "stage")])
def test_bad_input_names_the_slider(lang, bad, name):
    values = dict(W.PANEL.defaults(), **bad)
    assert_names_control(W.PANEL.render(lang, values), W.PANEL, lang, name, values)
