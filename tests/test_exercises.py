"""Exercises: parameters bound once (infra_lib.exercises), and no chapter glues an exercise's input as a literal."""
import ast
import random
import re

import jupytext
import pytest

import prose
from infra_lib.exercises import Answer, Exercise, Param, Scenario, glue_all

NOTEBOOKS = [p for lang in prose.EDITIONS for p in prose.pages(lang) if "notebooks" in p.parts]
def _literal_number(node):
    """A number typed in the code: 60, 0.25, -1, 70e9 (a Constant, possibly negated)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def literal_exercise_glues(source):
    """(line, key) of every glue("<exercise key>", <numeric literal>) in a code cell's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "glue"
                and len(node.args) >= 2 and isinstance(node.args[0], (ast.Constant, ast.JoinedStr))):
            key = node.args[0].value if isinstance(node.args[0], ast.Constant) else ast.unparse(node.args[0])
            if isinstance(key, str) and _exercise_key(key) and _literal_number(node.args[1]):
                found.append((node.lineno, key))
    return found


def _exercise_key(key):
    """ov_ex_..., chN_ex_..., chN_exK_... (f-strings included, as written)."""
    return re.match(r"^f?['\"]?(ov|ch\d+)_ex\d*_", key) is not None


@pytest.mark.parametrize("page", NOTEBOOKS, ids=[str(p.relative_to(prose.ROOT)) for p in NOTEBOOKS])
def test_no_exercise_parameter_is_glued_as_a_literal(page):
    """A question's parameter glued as a literal and typed again in the answer's call can drift apart:
    bind it once in an infra_lib.exercises.Exercise instead."""
    nb = jupytext.read(page)
    problems = [f"{page.relative_to(prose.ROOT)}, code cell {i + 1}, line {line}: glue({key!r}, <literal>); "
                f"bind it as a Param of an Exercise"
                for i, cell in enumerate(c for c in nb.cells if c.cell_type == "code")
                for line, key in literal_exercise_glues(cell.source)]
    assert not problems, "\n".join(problems)


def test_the_literal_check_catches_the_old_pattern():
    old = 'glue("ch3_ex1_a", 60, display=False)\nglue("ch3_ex1_eff", gpu.branch_efficiency(2, 60, 20), display=False)\n'
    assert literal_exercise_glues(old) == [(1, "ch3_ex1_a")]
    assert literal_exercise_glues('glue("ov_ex_nic_gb", -10)\nglue(f"ch1_ex_nb_{a}", 1)') == [(1, "ov_ex_nic_gb"),
                                                                                            (2, "f'ch1_ex_nb_{a}'")]
    assert literal_exercise_glues('glue("ch3_warp", 32)\nglue("ch3_ex1_k", k)') == []


@pytest.mark.parametrize("page", NOTEBOOKS, ids=[str(p.relative_to(prose.ROOT)) for p in NOTEBOOKS])
def test_every_exercise_has_a_folded_solution(page):
    """Each {exercise} has a :label: and a {solution} of that label with :class: dropdown."""
    text = page.read_text(encoding="utf-8")
    exercises = re.findall(r"^```\{exercise\}[^\n]*\n:label: (\S+)", text, re.M)
    solutions = re.findall(r"^```\{solution\} (\S+)\n:class: dropdown$", text, re.M)
    assert exercises, f"{page.name}: no {{exercise}} in its Check yourself section"
    assert exercises == solutions, f"{page.name}: exercises {exercises} vs folded solutions {solutions}"
    assert "{admonition} Answer" not in text and "{admonition} 答案" not in text


# ---- the representation ------------------------------------------------------------------

def _ex():
    return Exercise("ch9_ex1", {"k": Param(2, "lanes", 1, 31, integer=True), "a": Param(60.0, "cycles", 10, 100)},
                    solve=lambda k, a: {"work": Answer(k * a, "lane-cycles"), "bound": "memory"})


def test_glued_names_every_parameter_and_answer_once():
    assert _ex().glued() == {"ch9_ex1_k": 2, "ch9_ex1_a": 60.0, "ch9_ex1_work": 120.0, "ch9_ex1_bound": "memory"}


def test_glue_calls_the_given_glue_without_display():
    calls = []
    _ex().glue(lambda key, value, display=True: calls.append((key, value, display)))
    assert calls[0] == ("ch9_ex1_k", 2, False) and len(calls) == 5      # 4 values, then the answer key
    assert calls[-1][0] == "ch9_ex1_answer_key" and calls[-1][2] is False


def test_prefix_and_scale():
    ex = Exercise("ov_ex4", {"peak": Param(989.4e12, "FLOP/s", scale=1e12)}, solve=lambda peak: {"t_s": peak / 1e15},
                  prefix="ov_ex")
    assert ex.glued() == {"ov_ex_peak": 989.4, "ov_ex_t_s": 0.9894}


def test_grading_uses_unit_and_tolerance():
    ex = _ex()
    assert ex.grade("work", 120.5).correct          # within 1 %
    assert not ex.grade("work", 130).correct
    assert ex.grade("bound", " Memory ").correct and not ex.grade("bound", "compute").correct
    assert not ex.grade("work", "a lot").correct
    assert ex.answers()["work"].unit == "lane-cycles"
    strict = Answer(16, "warps", rel_tol=0)
    assert strict.check(16) and not strict.check(16.1)
    with pytest.raises(KeyError, match="no answer 'speed'"):
        ex.grade("speed", 1)


def test_drawn_variants_stay_in_range_and_recompute_answers():
    ex = _ex()
    for seed in range(50):
        v = ex.draw(seed)
        k, a = v.values()["k"], v.values()["a"]
        assert isinstance(k, int) and 1 <= k <= 31 and 10 <= a <= 100
        assert v.answers()["work"].value == pytest.approx(k * a)
    assert ex.draw(random.Random(3)).values() == ex.draw(3).values()      # reproducible
    assert Exercise("x", {"n": 5}, solve=lambda n: {"m": n}).draw(1).values() == {"n": 5}   # no range: kept


def test_variant_and_its_errors():
    assert _ex().variant(k=4).glued()["ch9_ex1_work"] == 240.0
    with pytest.raises(KeyError, match="no parameter z"):
        _ex().variant(z=1)


@pytest.mark.parametrize("bad, match", [
    (lambda: Param(True), "must be a number"),
    (lambda: Param(1, low=0), "both low and high"),
    (lambda: Param(1, low=2, high=1), "must not exceed"),
    (lambda: Param(1, scale=0), "scale"),
    (lambda: Answer(1, rel_tol=-1), "tolerances"),
    (lambda: Exercise("ch3 ex1", {}, solve=dict), "identifier"),
])
def test_bad_definitions_are_named(bad, match):
    with pytest.raises((TypeError, ValueError), match=match):
        bad()


def test_a_name_that_is_both_parameter_and_answer_is_an_error():
    with pytest.raises(ValueError, match="both a parameter and an answer"):
        Exercise("e", {"k": 1}, solve=lambda k: {"k": 2}).glued()


def test_glue_all_refuses_a_key_glued_twice():
    a = Exercise("ov_ex1", {}, solve=lambda: {"x": 1}, prefix="ov_ex")
    b = Exercise("ov_ex2", {}, solve=lambda: {"x": 2}, prefix="ov_ex")
    with pytest.raises(ValueError, match="ov_ex_x"):
        glue_all([a, b], lambda *args, **kw: None)


def test_the_module_imports_nothing_heavy():
    import infra_lib.exercises as mod
    source = open(mod.__file__, encoding="utf-8").read()
    for heavy in ("numpy", "matplotlib", "ipywidgets"):
        assert f"import {heavy}" not in source and f"from {heavy}" not in source


# ---- a chapter's scenario ----------------------------------------------------------------

def test_a_scenario_keeps_each_value_and_its_type():
    s = Scenario(context=1000, batch=64, share=0.1, torus=(4, 4, 2), device="h200_sxm")
    assert (s.context, s.batch, s.share, s.torus, s.device) == (1000, 64, 0.1, (4, 4, 2), "h200_sxm")
    assert type(s.batch) is int and type(s.share) is float     # glued from it is what the literal glued
    assert s.as_dict() == {"context": 1000, "batch": 64, "share": 0.1, "torus": (4, 4, 2), "device": "h200_sxm"}
    assert repr(Scenario(batch=64, torus=(4, 2))) == "Scenario(batch=64, torus=(4, 2))"


def test_a_scenario_is_frozen_and_replace_makes_another():
    s = Scenario(context=1000, batch=64)
    with pytest.raises(AttributeError, match="frozen: batch stays 64"):
        s.batch = 128
    with pytest.raises(AttributeError, match="takes no new value tp"):
        s.tp = 8
    with pytest.raises(AttributeError, match="cannot be deleted"):
        del s.context
    t = s.replace(batch=128)
    assert (t.batch, s.batch, t.context) == (128, 64, 1000)
    assert t != s and s == Scenario(context=1000, batch=64) and hash(s) == hash(Scenario(context=1000, batch=64))
    with pytest.raises(AttributeError, match="no 'bacth' .did you mean batch"):
        s.replace(bacth=1)


def test_a_scenario_survives_copy_and_pickle():
    import copy
    import pickle
    s = Scenario(context=1000, torus=(4, 4, 2))
    assert copy.deepcopy(s) == s and pickle.loads(pickle.dumps(s)) == s


def test_an_unknown_scenario_name_is_named_with_the_known_ones():
    with pytest.raises(AttributeError, match=r"no 'ctx' \(did you mean context\?\); it has: context, batch"):
        Scenario(context=1000, batch=64).ctx


@pytest.mark.parametrize("values, error, match", [
    ({"batch": True}, TypeError, "batch must be a number, a string or a tuple"),
    ({"batch": None}, TypeError, "batch must be a number"),
    ({"batch": [1, 2]}, TypeError, "a tuple, which cannot change, instead of a list"),
    ({"torus": (4, float("nan"))}, ValueError, r"torus\[1\] must be a finite number"),
    ({"context": float("inf")}, ValueError, "context must be a finite number"),
    ({"context": 10**400}, ValueError, "context must be a finite number"),
    ({"replace": 1}, ValueError, "not one of replace, as_dict"),
    ({"_hidden": 1}, ValueError, "not starting with _"),
])
def test_bad_scenario_values_are_named(values, error, match):
    with pytest.raises(error, match=match):
        Scenario(**values)
