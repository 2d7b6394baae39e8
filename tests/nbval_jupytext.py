"""pytest plugin: run every chapter notebook with nbval, straight from its Jupytext source.

No .ipynb is written anywhere: each notebooks/**/*.md is read with jupytext and handed to
nbval's collector, which runs its cells in a fresh kernel in the notebook's folder and fails
on the first cell that raises. (With outputless sources nbval compares no outputs: what this
checks is that every cell runs.) Loaded by ``-p nbval_jupytext`` in pyproject.toml.
"""
from unittest import mock

import jupytext
import nbval.plugin


class JupytextNotebook(nbval.plugin.IPyNbFile):
    def collect(self):
        nb = jupytext.read(self.path)
        with mock.patch.object(nbval.plugin.nbformat, "read", lambda *args, **kwargs: nb):
            yield from super().collect()


def pytest_collect_file(file_path, parent):
    if file_path.suffix == ".md" and "notebooks" in file_path.parts and parent.config.option.nbval_lax:
        return JupytextNotebook.from_parent(parent, path=file_path)


def pytest_collection_modifyitems(config, items):
    """Keep each notebook's cells together and in order, wherever test shuffling put them.

    pytest-randomly shuffles items within a module; nbval's cells have no module, so they would
    be run out of order (a NameError in the first cell that needs an earlier one). The notebooks
    themselves still come in random order among the other test files. Under pytest-xdist
    (``--dist loadfile``) a notebook is one file: all its cells run in one worker's kernel.
    """
    order, cells = [], {}
    for item in items:
        if isinstance(item, nbval.plugin.IPyNbCell):
            key = item.parent.nodeid
            if key not in cells:
                cells[key] = []
                order.append(cells[key])
            cells[key].append(item)
        else:
            order.append(item)
    items[:] = [x for entry in order
                for x in (sorted(entry, key=lambda c: c.cell_num) if isinstance(entry, list) else [entry])]
