"""Every widget module imports, and its panel renders, with numpy and matplotlib unavailable.

The live pages (book/tools/lite.py) run the widgets in the browser, in Pyodide, where numpy,
matplotlib, pillow and pyyaml cannot be had (no Pyodide wheels on the registries). So a widget,
and everything in the library it calls, must be pure Python. Each module is imported in a fresh
interpreter (an import that works only because another module ran first would hide a gap) in
which importing any of BLOCKED raises ImportError; a module with a ``PANEL`` then renders its
defaults in both languages.
"""
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import infra_lib.widgets
from imports import BLOCK_IN_BROWSER, NOT_IN_BROWSER   # tests/imports.py

ROOT = Path(__file__).resolve().parents[1]
BLOCKED = NOT_IN_BROWSER   # not in the browser (tests/imports.py)
MODULES = sorted(m.name for m in pkgutil.iter_modules(infra_lib.widgets.__path__))

# Widget modules that are not (yet) pure: they have no live page. Strict: fixing one fails here,
# as a reminder to take it off this list.
KNOWN_IMPURE: dict[str, str] = {}   # quiz left it once the banks' formulas had pure homes (minifloat, quant_storage)

PROBE = BLOCK_IN_BROWSER + r"""
module = importlib.import_module("infra_lib.widgets.{name}")
panel = getattr(module, "PANEL", None)
if panel is not None:
    from infra_lib.i18n import t
    for lang in ("en", "zh"):
        out = panel.render(lang)
        assert "<table" in out and t("w_error", lang) not in out, out
assert not [m for m in sys.modules if m.split(".")[0] in BLOCKED]
print("pure")
"""


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_IMPURE[n])) if n in KNOWN_IMPURE else n
    for n in MODULES])
def test_widget_module_is_pure_python(name):
    run = subprocess.run([sys.executable, "-c", PROBE.format(blocked=BLOCKED, name=name)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "pure", run.stderr[-3000:]


def test_every_chapter_widget_is_covered():
    """The modules the chapters' widget cells import are among those tested above (and pure)."""
    import re

    used = set()
    for md in sorted((ROOT / "notebooks").glob("*/*.md")):
        used |= set(re.findall(r"from infra_lib\.widgets\.(\w+) import explore", md.read_text(encoding="utf-8")))
    assert used, "no chapter imports a widget"
    assert used <= set(MODULES) - set(KNOWN_IMPURE), sorted(used & set(KNOWN_IMPURE))


# The quiz imports the question bank only when a question is asked: build the whole bank, ask,
# grade and give feedback for every question, in both languages, with the arrays blocked too.
QUIZ_PROBE = PROBE.split("module = ")[0] + r"""
import json, tempfile
from pathlib import Path
from infra_lib import review
from infra_lib.widgets import quiz
assert len(review.questions()) >= 60
for q in review.questions():
    for lang in ("en", "zh"):
        for seed in (0, 1):
            quiz.question_html(q.id, lang, seed)
            v = quiz.check(q.id, "1", lang, seed)
            quiz.feedback_html(q.id, v, lang, seed, "1", wrong_tries=2)
            right = quiz.answer_text(q.id, lang, seed)
            typed = right.split(". ")[0] if q.options else right.split(" ")[0]   # the letter, the number
            assert quiz.check(q.id, typed, lang, seed).correct, (q.id, right)
p = quiz.Progress(Path(tempfile.mkdtemp()) / "p.json")
p.record(review.questions()[0].id, True)
assert "<table" in quiz.score_html(p, "zh")
assert not [m for m in sys.modules if m.split(".")[0] in BLOCKED], sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
print("pure")
"""


def test_the_whole_review_runs_without_arrays():
    """Every question of the bank asked, graded and answered with numpy and matplotlib blocked."""
    run = subprocess.run([sys.executable, "-c", QUIZ_PROBE.format(blocked=BLOCKED)], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "pure", run.stderr[-3000:]
