"""Chapter 6 widget (infra_lib/widgets/model_check.py): the error table is the library's, the
default is the separate-microbenchmark model, and bad input names the slider."""
import pytest

from infra_lib import decode_model
from infra_lib.i18n import LANGUAGES
from infra_lib.widgets import model_check
from widget_checks import assert_names_control, text_of

DEFAULTS = dict(weights=0, kv=1, compute=0, overlap=0)


def test_defaults_are_skinny_copy_matmul_sequential():
    assert model_check.PANEL.defaults() == DEFAULTS


@pytest.mark.parametrize("values", [DEFAULTS, dict(weights=3, kv=3, compute=2, overlap=1),
                                    dict(weights=1, kv=0, compute=1, overlap=0)])
def test_rows_are_the_library(values):
    rows = model_check.summary("en", **values).rows
    preds = decode_model.predictions(decode_model.WEIGHT_SOURCES[values["weights"]],
                                     decode_model.WEIGHT_SOURCES[values["kv"]],
                                     decode_model.COMPUTE_SOURCES[values["compute"]], bool(values["overlap"]))
    assert len(rows) == len(preds) + 1
    assert [r[3] for r in rows[:-1]] == [f"{p.error:+.1%}" for p in preds]
    assert rows[-1][3] == f"{decode_model.mean_abs_error(preds):.1%}"


def test_datasheet_misses_the_goal():
    out = text_of(model_check.PANEL.render("en", dict(weights=3, kv=3, compute=2, overlap=0)))
    assert "goal of 5% missed" in out
    assert "达到 5% 目标" in text_of(model_check.PANEL.render("zh", DEFAULTS))


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("bad, name", [(dict(weights=-1), "weights"), (dict(kv=9), "kv"),
                                       (dict(compute=1.5), "compute"), (dict(overlap=2), "overlap")])
def test_bad_input_names_the_slider(lang, bad, name):
    values = dict(DEFAULTS, **bad)
    assert_names_control(model_check.PANEL.render(lang, values), model_check.PANEL, lang, name, values)
