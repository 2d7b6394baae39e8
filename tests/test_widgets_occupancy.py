"""Chapter 5 widget (infra_lib/widgets/occupancy.py): the calculator against the library and the
guides' worked example; every slider at its minimum, middle and maximum in both languages; bad
input is a message naming the slider; a block that cannot launch says so."""
import itertools

import pytest

from infra_lib import occupancy as occ
from infra_lib.i18n import LANGUAGES
from infra_lib.widgets import occupancy as w
from widget_checks import assert_names_control, text_of


def test_best_practices_example_in_the_widget():
    rows = w.summary("en", 128, 37, 0, 7.0).rows
    assert rows[0][1] == "12 blocks, 48 warps" and rows[1][1] == "75.0%" and rows[1][2].endswith("registers")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_corner_renders(lang):
    for values in itertools.product(*(c.values() for c in w.PANEL.controls)):
        kw = dict(zip((c.name for c in w.PANEL.controls), values))
        out = text_of(w.PANEL.render(lang, kw))
        assert out and ("nan" not in out.lower())
        rows = w.summary(lang, **kw).rows
        if len(rows) > 1:                                       # it launches: the library's numbers
            o = occ.occupancy(kw["threads"], kw["registers"], kw["smem_kib"] * 1024, f"{kw['cc']:.1f}")
            assert rows[0][1].startswith(f"{o.blocks} ")


def test_a_block_too_large_does_not_launch():
    assert w.summary("en", 1024, 255, 0, 9.0).rows[0][0] == "Does not launch"
    assert w.summary("zh", 32, 16, 200, 7.0).rows[0][0] == "无法发射"      # the glossary: kernel launch is 发射


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("bad, name", [(dict(threads=0), "threads"), (dict(registers=0), "registers"),
                                       (dict(smem_kib=-1), "smem_kib")])
def test_bad_input_names_the_slider(lang, bad, name):
    values = dict(w.PANEL.defaults(), **bad)
    assert_names_control(w.PANEL.render(lang, values), w.PANEL, lang, name, values)
