"""A chapter's glue works without myst-nb: values are kept, and shown only when asked."""
import sys

import pytest

from infra_lib import glue as g


@pytest.fixture
def no_myst_nb(monkeypatch):
    monkeypatch.setitem(sys.modules, "myst_nb", None)   # `import myst_nb` now raises ImportError
    monkeypatch.setattr(g, "GLUED", {})


def test_without_myst_nb_values_are_kept_silently(no_myst_nb, capsys):
    g.glue("ch9_x", 42, display=False)
    assert g.GLUED == {"ch9_x": 42}
    assert capsys.readouterr().out == ""


def test_without_myst_nb_display_shows_the_value(no_myst_nb, capsys):
    g.glue("ch9_y", 3.5)
    assert g.GLUED["ch9_y"] == 3.5
    assert "3.5" in capsys.readouterr().out


def test_with_myst_nb_the_call_is_passed_on(monkeypatch):
    calls = []
    fake = type(sys)("myst_nb")
    fake.glue = lambda name, value, display=True: calls.append((name, value, display))
    monkeypatch.setitem(sys.modules, "myst_nb", fake)
    g.glue("ch9_z", 1, display=False)
    assert calls == [("ch9_z", 1, False)]


@pytest.mark.parametrize("bad", ["", None, 3])
def test_a_bad_key_is_named(bad):
    with pytest.raises(TypeError, match="glue key"):
        g.glue(bad, 1)
