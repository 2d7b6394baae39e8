"""``glue`` for the chapters: myst-nb's when the book is built, a stand-in anywhere else.

On the website, ``myst_nb.glue`` stores a value so the prose can insert it
(``{glue:text}`key` ``). A reader who runs a chapter in plain Jupyter, without myst-nb, gets
this module's stand-in: it keeps the value in :data:`GLUED` (to look at after a run) and shows
it only when ``display=True``. Nothing else in the chapter changes.
"""
import importlib
from typing import Any

GLUED: dict[str, Any] = {}


def glue(name: str, variable: Any, display: bool = True) -> None:
    """Glue ``variable`` under ``name``: through myst-nb if installed, else keep it in :data:`GLUED`."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string (the glue key), got {name!r}")
    try:
        myst_nb = importlib.import_module("myst_nb")   # looked up at each call: the book's build may stub it
    except ImportError:
        GLUED[name] = variable
        if display:
            try:
                from IPython.display import display as show
                show(variable)
            except ImportError:
                print(f"{name} = {variable!r}")
        return
    myst_nb.glue(name, variable, display=display)
