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
