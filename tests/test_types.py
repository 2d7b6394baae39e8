"""The library type-checks: mypy, configured in pyproject.toml ([tool.mypy]), finds nothing.

Every public function and dataclass of infra_lib carries type hints (``disallow_untyped_defs``),
so a caller who passes the wrong kind of value is told before the page is built. On failure the
test prints mypy's own report.
"""
import tempfile
from pathlib import Path

from imports import imported
from mypy import api

ROOT = Path(__file__).resolve().parents[1]
# mypy's cache goes to the system's temporary folder, not into the working tree
CACHE = Path(tempfile.gettempdir()) / "infra_lib_mypy_cache"


def test_infra_lib_type_checks():
    stdout, stderr, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(CACHE),
                                      str(ROOT / "infra_lib")])
    assert status == 0, f"mypy found problems (exit {status}):\n{stdout}{stderr}"
    assert stdout.startswith("Success"), stdout


# The concept modules compute; they never format for a language, draw, or build widgets. The set
# is every module of the library's layer map but the course pages' layer (infra_lib.LAYERS, which
# tests/test_docs.py checks against the tree), so a new module is checked without being listed.
PRESENTATION = ("i18n", "ipywidgets", "matplotlib", "html", "figures", "widgets")


def concept_modules():
    import infra_lib
    return [m for layer, (_, modules) in infra_lib.LAYERS.items() if layer != infra_lib.PAGE_LAYER for m in modules]


def test_concept_modules_import_no_presentation_layer():
    names = concept_modules()
    assert len(names) >= 30, names          # the map holds the concept modules, not a sample
    for name in names:
        path = ROOT / "infra_lib" / f"{name}.py"
        if not path.exists():
            path = ROOT / "infra_lib" / name / "__init__.py"
        bad = imported(path) & set(PRESENTATION)
        assert not bad, f"infra_lib/{name}.py imports {sorted(bad)}"


def test_the_presentation_check_can_fail(tmp_path):
    page = tmp_path / "page.py"
    page.write_text("import matplotlib.pyplot as plt\nfrom . import i18n, units\n", encoding="utf-8")
    assert imported(page) & set(PRESENTATION) == {"matplotlib", "i18n"}
