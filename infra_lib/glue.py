"""``glue`` for the chapters: myst-nb's record when the book is built, a stand-in anywhere else.

On the website, a glued value is stored in the cell's output so the prose can insert it
(``{glue:text}`key` ``). When myst-nb is installed (the build, nbval) :func:`_publish` writes that
output itself, in myst-nb's format, rather than calling ``myst_nb.glue``: importing
``myst_nb.ext.glue`` loads Sphinx and docutils, 2-3 s in every kernel, for three lines of
IPython. ``tests/test_glue.py`` checks that both write the same output. A reader who runs a
chapter in plain Jupyter, without myst-nb, gets the stand-in: it keeps the value in :data:`GLUED`
(to look at after a run) and shows it only when ``display=True``, or when it is a figure (the page
shows a figure glued with ``display=False`` through ``{glue:figure}``, so a reader who runs the
notebook sees it under the cell that drew it). Nothing else in the chapter changes.
:data:`FOR_MYST_NB` says which of the two a process gets (``glue_snapshot.py`` turns it off to
collect a chapter's values in :data:`GLUED`).
"""
import importlib.util
from typing import Any

GLUED: dict[str, Any] = {}
GLUE_PREFIX = "application/papermill.record/"   # myst_nb.ext.glue.GLUE_PREFIX (myst-nb 1.x)
FOR_MYST_NB: bool = importlib.util.find_spec("myst_nb") is not None   # looked up once: 0.16 ms a call


def glue(name: str, variable: Any, display: bool = True) -> None:
    """Glue ``variable`` under ``name``: for myst-nb if installed, else keep it in :data:`GLUED`."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string (the glue key), got {name!r}")
    if FOR_MYST_NB:
        _publish(name, variable, display)
        return
    GLUED[name] = variable
    if display or _is_figure(variable):
        try:
            from IPython.display import display as show
            show(variable)
        except ImportError:
            print(f"{name} = {variable!r}")


def _is_figure(variable: Any) -> bool:
    """A matplotlib figure (checked by its class, so that gluing a number never imports matplotlib)."""
    return any(c.__module__ == "matplotlib.figure" and c.__name__ == "Figure" for c in type(variable).__mro__)


def _publish(name: str, variable: Any, display: bool) -> None:
    """Display ``variable`` as ``myst_nb.glue`` does: its mime bundle, prefixed unless shown, with
    the key in the output's ``scrapbook`` metadata (myst_nb/ext/glue/__init__.py, ``glue``)."""
    from IPython.core.formatters import format_display_data
    from IPython.display import display as show
    bundle, metadata = format_display_data(variable)
    prefix = "" if display else GLUE_PREFIX
    metadata["scrapbook"] = {"name": name, "mime_prefix": prefix}
    show({prefix + mime: data for mime, data in bundle.items()}, raw=True, metadata=metadata)

