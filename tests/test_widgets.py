"""The explore-the-assumptions widgets together: the shared panel (infra_lib/widgets/panel.py),
each widget built in a fresh Python process in each language with every control driven to its
minimum, a middle value and its maximum, every reachable corner of each panel computable, and
the import rules (concept modules without widget code, widget modules without numpy).

The summaries of each topic against the library: tests/test_widgets_<topic>.py.
"""
import ast
import importlib
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from infra_lib.i18n import LANGUAGES, t
from infra_lib.widgets import panel as P
from widget_checks import assert_names_control, text_of

ROOT = Path(__file__).resolve().parents[1]
TOPICS = ("request", "wafer", "launch", "latency", "planner", "occupancy", "model_check", "training_memory",
          "autoscale", "quantization")


def topic(name):
    return importlib.import_module(f"infra_lib.widgets.{name}")


# ---- the scaffold -----------------------------------------------------------------------------

def toy(summary=None):
    def double(lang, n, x):
        if x > 5:
            raise ValueError(f"x_library must be 0 or more, got {-x:g}")
        return P.Result(((t("w_batch", lang), f"{2 * n}", "<b>"),))
    return P.Panel((P.Control("n", "w_batch", int, 4, 1, 8),
                    P.Control("x", "w_kv", float, 0.5, 0, 10, 0.05, aliases=("x_library",))), summary or double)


def test_render_is_a_table_with_escaped_text():
    out = toy().render("en", {"n": 3, "x": 1})
    assert out == ("<table><tr><td>batch</td><td style='text-align:right'>6</td><td>&lt;b&gt;</td></tr></table>")
    assert toy().render("zh") == toy().render("zh", toy().defaults())


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("values, name", [
    ({"n": 2.5, "x": 1}, "n"), ({"n": True, "x": 1}, "n"), ({"n": 2, "x": float("nan")}, "x"),
    ({"n": 2, "x": "1"}, "x"), ({"n": 2, "x": 6}, "x"),          # the last one: the library's own error, by alias
])
def test_bad_values_are_a_message_naming_the_control(lang, values, name):
    out = toy().render(lang, values)
    assert "Traceback" not in out
    assert_names_control(out, toy(), lang, name, values)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_error_about_no_control_gives_the_values_in_the_page_language_then_the_library_words(lang):
    def broken(lang, n, x):
        raise TypeError("wafer_diameter_mm must be a number")
    out = toy(broken).render(lang, {"n": 2, "x": 1.5})
    head, detail = out.split("<details>")
    assert text_of(head).startswith(t("w_error", lang))
    assert "wafer_diameter_mm" not in head and "wafer_diameter_mm" in detail   # the library's words, folded
    for label, value in ((t("w_batch", lang), "2"), (t("w_kv", lang), "1.5")):
        assert f"“{label}” = {value}" in head                                    # every slider, by its label
    if lang == "zh":
        words = text_of(head).replace(t("w_batch", lang), "").replace(t("w_kv", lang), "")
        assert not re.search(r"[A-Za-z]{3,}", words), text_of(head)             # no English before the fold


def test_an_error_in_other_words_still_names_the_control():
    def odd(lang, n, x):
        raise ValueError("x_library is too large for this wafer")
    out = toy(odd).render("zh", {"n": 2, "x": 1})
    assert_names_control(out, toy(), "zh", "x")
    assert "超出了模型能接受的范围" in out


def test_a_programming_error_is_not_hidden():
    with pytest.raises(TypeError, match="exactly the controls"):
        toy().render("en", {"n": 2})
    with pytest.raises(ValueError, match="lang"):
        toy().render("fr")
    with pytest.raises(ZeroDivisionError):
        toy(lambda lang, n, x: 1 / 0).render("en")


@pytest.mark.parametrize("bad, match", [
    (dict(default=0.33), "not on the grid"), (dict(max=9.99), "not on the grid"),
    (dict(default=20), "min <= default <= max"), (dict(step=0), "step > 0"),
    (dict(kind=str), "int or float"), (dict(default=float("inf")), "finite"),
])
def test_a_control_checks_its_own_limits(bad, match):
    args = dict(name="x", label="w_kv", kind=float, default=0.3, min=0, max=10, step=0.05) | bad
    with pytest.raises((TypeError, ValueError), match=match):
        P.Control(**args)
    with pytest.raises(ValueError, match="whole"):
        P.Control("n", "w_batch", int, 4, 1, 8, 0.5)


def test_a_control_below_another_follows_it():
    p = P.Panel((P.Control("hi", "w_kv", float, 5, 0.5, 50, 0.1),
                 P.Control("lo", "w_bw", float, 1, 0, 10, 0.1, below="hi")), lambda lang, hi, lo: P.Result(()))
    assert p.limits({"hi": 5, "lo": 1})["lo"] == (0, 4.9)
    assert p.limits({"hi": 50, "lo": 1})["lo"] == (0, 10)
    assert p.clamp({"hi": 0.5, "lo": 9}) == {"hi": 0.5, "lo": 0.4}
    with pytest.raises(ValueError, match="cannot|can go down"):
        P.Panel((P.Control("hi", "w_kv", float, 5, 0, 50, 0.1),
                 P.Control("lo", "w_bw", float, 1, 0, 10, 0.1, below="hi")), p.summary)


def test_readout_and_middle_values_follow_the_step():
    c = P.Control("x", "w_kv", float, 0.3, 0, 10, 0.05)
    assert c.readout_format() == ".2f" and c.values() == (0, 5, 10)
    assert P.Control("n", "w_batch", int, 32, 1, 512).values() == (1, 257, 512)
    assert P.Control.choice("b", "w_batch", (2, 4, 8, 16), 4).values() == (2, 8, 16)


# ---- every widget ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", TOPICS)
def test_defaults_lie_on_the_step_grid(name):
    for c in topic(name).PANEL.controls:
        if c.options:
            assert c.default in c.options
        else:
            assert c.min <= c.default <= c.max
            k = (c.default - c.min) / c.step
            assert abs(k - round(k)) < 1e-6, (c.name, c.default)


@pytest.mark.parametrize("name", TOPICS)
def test_every_corner_the_sliders_reach_computes(name):
    """Each control at its minimum, middle or maximum, in every combination (limits applied)."""
    panel = topic(name).PANEL
    for combo in itertools.product(*(c.values() for c in panel.controls)):
        values = panel.clamp(dict(zip((c.name for c in panel.controls), combo)))
        out = panel.render("en", values)
        assert out.startswith(("<table>", "<p>")) and t("w_error", "en") not in out, (values, out)


DRIVE = r"""
import json, sys
from infra_lib.widgets import {name} as topic          # nothing else imported first
box = topic.explore({lang!r})
sliders, out = box.children[:-1], box.children[-1]
state = lambda: {{c.name: s.value for c, s in zip(topic.PANEL.controls, sliders)}}
steps = [dict(control=None, state=state(), html=out.value)]
for c, s in zip(topic.PANEL.controls, sliders):
    start = s.value
    for v in c.values():
        s.value = v
        steps.append(dict(control=c.name, asked=v, state=state(), html=out.value))
    s.value = start
print(json.dumps(dict(steps=steps, descriptions=[s.description for s in sliders],
                      numpy="numpy" in sys.modules, matplotlib="matplotlib" in sys.modules)))
"""


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", TOPICS)
def test_each_widget_builds_alone_and_every_slider_recomputes(name, lang):
    run = subprocess.run([sys.executable, "-c", DRIVE.format(name=name, lang=lang)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    panel = topic(name).PANEL
    assert report["descriptions"] == [t(c.label, lang) for c in panel.controls]
    assert not report["numpy"] and not report["matplotlib"]
    by_control = {}
    for step in report["steps"]:
        html = step["html"]
        assert html.strip() and "Traceback" not in html and t("w_error", lang) not in html, step
        assert html == panel.render(lang, step["state"]), step        # the table is the summary of what the sliders show
        by_control.setdefault(step["control"], []).append(html)
    by_control.pop(None)
    for c in panel.controls:
        at_min, middle, at_max = by_control[c.name]
        assert at_min != at_max, c.name          # every control moves the result


# ---- import rules ---------------------------------------------------------------------------

def imported_modules(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {node.module.split(".")[0]} if node.module and not node.level else set()
            names |= {a.name for a in node.names} if node.level else set()
    return names


@pytest.mark.parametrize("module", ["cpu", "gpu"])
def test_concept_modules_have_no_widget_code(module):
    src = ROOT / "infra_lib" / f"{module}.py"
    assert not imported_modules(src) & {"html", "ipywidgets", "i18n"}
    assert "explore_" not in src.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", sorted((ROOT / "infra_lib" / "widgets").glob("*.py")), ids=lambda p: p.name)
def test_widget_modules_import_no_numpy_and_no_ipywidgets_at_import(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = {a.name.split(".")[0] for n in top if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in top if isinstance(n, ast.ImportFrom) and n.module and not n.level}
    assert not names & {"numpy", "matplotlib", "ipywidgets"}
    assert "numpy" not in imported_modules(path) and "matplotlib" not in imported_modules(path)


def test_chapters_call_every_widget_the_same_way():
    for name, chapter in zip(TOPICS, ("00_overview", "01_chips", "02_cpu", "03_gpu")):
        for lang in LANGUAGES:
            text = (ROOT / "notebooks" / lang / f"{chapter}.md").read_text(encoding="utf-8")
            assert f"from infra_lib.widgets.{name} import explore\nexplore(LANG)\n" in text, (lang, chapter)
