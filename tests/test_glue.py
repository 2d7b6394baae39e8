"""A chapter's glue works without myst-nb: values are kept, and shown only when asked."""

import numpy as np
import pytest

from infra_lib import glue as g


@pytest.fixture
def no_myst_nb(monkeypatch):
    monkeypatch.setattr(g, "FOR_MYST_NB", False)       # a reader's Jupyter without myst-nb
    monkeypatch.setattr(g, "GLUED", {})


def test_without_myst_nb_values_are_kept_silently(no_myst_nb, capsys):
    g.glue("ch9_x", 42, display=False)
    assert g.GLUED == {"ch9_x": 42}
    assert capsys.readouterr().out == ""


def test_without_myst_nb_display_shows_the_value(no_myst_nb, capsys):
    g.glue("ch9_y", 3.5)
    assert g.GLUED["ch9_y"] == 3.5
    assert "3.5" in capsys.readouterr().out


def test_without_myst_nb_a_figure_is_shown_even_when_glued_silently(no_myst_nb, monkeypatch):
    """The page shows a figure glued with display=False ({glue:figure}); a reader's run shows it too."""
    import IPython.display
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: shown.append(a))
    fig = Figure()
    g.glue("ch9_fig", fig, display=False)
    g.glue("ch9_n", 7, display=False)
    assert g.GLUED == {"ch9_fig": fig, "ch9_n": 7}
    assert shown == [(fig,)]


@pytest.mark.parametrize("value, display", [(42, False), (3.5, True), ("H200", False),
                                            (np.float64(0.25), False), ([1, 2], True)])
def test_with_myst_nb_the_output_is_what_myst_nb_glue_writes(monkeypatch, value, display):
    """infra_lib writes myst-nb's glue output itself (no Sphinx import in the kernel): the same bundle,
    the same metadata, as myst_nb.ext.glue.glue, so the build finds every key where it looks."""
    import IPython.display
    import myst_nb.ext.glue
    shown = []
    record = lambda *args, **kwargs: shown.append((args, kwargs))   # noqa: E731
    monkeypatch.setattr(g, "FOR_MYST_NB", True)
    monkeypatch.setattr(myst_nb.ext.glue, "ipy_display", record)
    monkeypatch.setattr(IPython.display, "display", record)
    myst_nb.ext.glue.glue("ch9_z", value, display)
    g.glue("ch9_z", value, display=display)
    assert len(shown) == 2 and shown[0] == shown[1]
    bundle = shown[1][0][0]
    assert all(mime.startswith("" if display else g.GLUE_PREFIX) for mime in bundle)
    assert shown[1][1]["metadata"]["scrapbook"]["name"] == "ch9_z"


@pytest.mark.parametrize("bad", ["", None, 3])
def test_a_bad_key_is_named(bad):
    with pytest.raises(TypeError, match="glue key"):
        g.glue(bad, 1)
