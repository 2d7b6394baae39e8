"""The library type-checks: mypy, configured in pyproject.toml ([tool.mypy]), finds nothing.

Every public function and dataclass of infra_lib carries type hints (``disallow_untyped_defs``),
so a caller who passes the wrong kind of value is told before the page is built. On failure the
test prints mypy's own report.
"""
import tempfile
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[1]
# mypy's cache goes to the system's temporary folder, not into the working tree
CACHE = Path(tempfile.gettempdir()) / "infra_lib_mypy_cache"


def test_infra_lib_type_checks():
    stdout, stderr, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(CACHE),
                                      str(ROOT / "infra_lib")])
    assert status == 0, f"mypy found problems (exit {status}):\n{stdout}{stderr}"
    assert stdout.startswith("Success"), stdout


# The concept modules compute; they never format for a language, draw, or build widgets.
CONCEPT_MODULES = ("units", "models", "inference", "roofline", "interconnect", "fab", "cpu", "gpu", "formats",
                   "measurements", "machine_bench", "fmt", "_check", "memory", "collectives", "generations")
PRESENTATION = ("i18n", "ipywidgets", "matplotlib", "html", "figures", "widgets")


def test_concept_modules_import_no_presentation_layer():
    import ast
    for name in CONCEPT_MODULES:
        tree = ast.parse((ROOT / "infra_lib" / f"{name}.py").read_text(encoding="utf-8"))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level and not node.module:          # from . import a, b
                    imported |= {a.name for a in node.names}
                else:
                    imported.add((node.module or "").split(".")[0])
        assert not imported & set(PRESENTATION), f"infra_lib/{name}.py imports {sorted(imported & set(PRESENTATION))}"
