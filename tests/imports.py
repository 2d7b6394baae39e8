"""What a Python file imports, read from its syntax tree (for tests/test_types.py and tests/test_docs.py)."""
import ast


def imported(path, in_package=False):
    """Every name a file imports: the top-level package of an absolute import (``matplotlib``,
    ``json``) and each ``infra_lib`` module, relative or absolute (``from . import units`` and
    ``from infra_lib import units`` give ``units``; ``from ..i18n import t`` gives ``i18n``).
    In a subpackage's own files (``in_package``) a one-dot import names a sibling and is left out."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                names.add(parts[1] if parts[0] == "infra_lib" and len(parts) > 1 else parts[0])
        elif isinstance(node, ast.ImportFrom):
            if node.level == 1 and in_package:
                continue
            parts = [p for p in (node.module or "").split(".") if p]
            if node.level == 0 and parts[0] != "infra_lib":
                names.add(parts[0])
                continue
            if node.level == 0:
                parts = parts[1:]
            names |= {parts[0]} if parts else {a.name for a in node.names}
    return names


# The packages the live pages' Python (Pyodide) cannot load here, and the first lines of a probe
# script (``python -c``) that makes importing any of them fail, for the tests that run code as the
# browser would: tests/test_widgets_pure.py (each widget module) and tests/test_lite.py (each live
# chapter's cells). A str.format template: fill ``blocked``; braces of the rest are doubled.
NOT_IN_BROWSER = ("numpy", "matplotlib", "PIL", "yaml", "myst_nb")
BLOCK_IN_BROWSER = r"""
import importlib, sys
BLOCKED = {blocked!r}

class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is not available in the browser (blocked by the test)")

sys.meta_path.insert(0, Block())
"""
