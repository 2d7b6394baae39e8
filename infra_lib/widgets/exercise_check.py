"""The live chapter's answer boxes: a chapter's own "Check yourself" exercises, graded as the review is.

A chapter's exercises are :class:`infra_lib.exercises.Exercise` objects whose answers its own code
computes. In the live chapter (book/tools/lite.py) most of that code does not run, since the
browser's Python has no numpy or matplotlib, so the build takes each exercise's answers as
plain data (:meth:`~infra_lib.exercises.Exercise.answer_key`, glued as ``<key>_answer_key`` when
the page is built) and puts a cell after the exercise that calls :func:`exercise_check` with them.
It shows one box per answer, in the order the exercise's solution gives them, each graded by
:func:`infra_lib.answers.grade`, the review's checker: two significant figures are enough unless
the answer's own tolerance is looser, a count must be exact, a unit is converted, and a wrong
unit is told apart from a wrong number. **Show answers** gives every value.

The parts that compute are pure functions (:func:`answer_list`, :func:`check`, :func:`label`,
:func:`answer_text`), tested without a kernel; ipywidgets is imported only by :func:`exercise_check`.

>>> key = {"t": {"value": 4.77, "unit": "ms", "rel_tol": 0.01, "abs_tol": 0.0}}
>>> check(key, "t", "4.8 ms", "en").correct, check(key, "t", "4.8 s", "en").correct
(True, False)
>>> label(key, "t", "zh")
'答案 1（ms）'
"""
import html
from collections.abc import Mapping
from typing import Any

from .. import _check
from ..answers import Verdict, _shown, _unit_shown, answer_unit, grade
from ..exercises import Answer
from ..i18n import LANGUAGES

FIELDS = ("value", "unit", "rel_tol", "abs_tol")
WORDS = {"en": {"title": "Check your answers to {title}", "answer": "Answer {n}", "check": "Check",
                "show": "Show answers", "order": "One box per answer, in the order the solution gives them.",
                "placeholder": "a number and its unit, e.g. 4.8 ms"},
         "zh": {"title": "对答案：{title}", "answer": "答案 {n}", "check": "检查答案",
                "show": "显示答案", "order": "每个答案一个输入框，按解答中给出的先后排列。",
                "placeholder": "数值加单位，如 4.8 ms"}}


def answer_list(answers: Mapping[str, Any]) -> dict[str, Answer]:
    """``answers`` (an exercise's :meth:`~infra_lib.exercises.Exercise.answer_key`) as
    :class:`~infra_lib.exercises.Answer` objects, checked: each entry a dict of exactly
    ``value``, ``unit``, ``rel_tol`` and ``abs_tol``.

    >>> answer_list({"b": {"value": 3, "unit": "GPUs", "rel_tol": 0.0, "abs_tol": 0.0}})["b"].unit
    'GPUs'
    """
    if not isinstance(answers, Mapping) or not answers:
        raise TypeError(f"answers must be a non-empty dict of an exercise's answers, got {_check._show(answers)}")
    out = {}
    for name, entry in answers.items():
        _check.text("answer name", name)
        if not isinstance(entry, Mapping) or set(entry) != set(FIELDS):
            have = sorted(entry) if isinstance(entry, Mapping) else type(entry).__name__
            raise ValueError(f"answer {name!r} must have exactly the fields {', '.join(FIELDS)}; got {have}")
        value = entry["value"]
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise TypeError(f"answer {name!r}: value must be a number or a text, got {_check._show(value)}")
        if not isinstance(entry["unit"], str):
            raise TypeError(f"answer {name!r}: unit must be a text, got {_check._show(entry['unit'])}")
        tols = {k: _check.non_negative(f"answer {name!r}: {k}", entry[k], "") for k in ("rel_tol", "abs_tol")}
        out[name] = Answer(value, entry["unit"], **tols)
    return out


def _answer(answers: Mapping[str, Any], name: str) -> tuple[int, Answer]:
    found = answer_list(answers)
    if name not in found:
        raise KeyError(f"this exercise has no answer {name!r}; it has: {', '.join(found)}")
    return list(found).index(name) + 1, found[name]


def label(answers: Mapping[str, Any], name: str, lang: str) -> str:
    """The box's label: the answer's place and unit ("Answer 2 (µs)", "答案 2（µs）")."""
    lang = _check.choice("lang", lang, LANGUAGES)
    n, a = _answer(answers, name)
    head = WORDS[lang]["answer"].format(n=n)
    unit = "%" if a.unit == "fraction" else _unit_shown(a.unit, lang)    # 块 GPU, 位, ... on the Chinese page
    if not a.numeric or not unit:
        return head
    return f"{head} ({unit})" if lang == "en" else f"{head}（{unit}）"


def check(answers: Mapping[str, Any], name: str, typed: str, lang: str) -> Verdict:
    """Grade what the reader typed for the answer ``name`` with the review's checker; never raises
    on a string ``typed``."""
    lang = _check.choice("lang", lang, LANGUAGES)
    typed = _check.text("typed", typed)
    return grade(typed, _answer(answers, name)[1], lang)


def answer_text(answers: Mapping[str, Any], name: str, lang: str) -> str:
    """The answer as the feedback writes it ("4.77 ms", "16.67 %", "memory")."""
    lang = _check.choice("lang", lang, LANGUAGES)
    a = _answer(answers, name)[1]
    if not a.numeric:
        return str(a.value)
    return _shown(float(a.value), a.unit, answer_unit(a.unit)[0], lang)


def feedback_html(verdict: Verdict) -> str:
    """The verdict as one line of HTML: green when right, red when not."""
    colour = "#1a7f37" if verdict.correct else "#b42318"
    return f"<span style='color:{colour}'><b>{'✓' if verdict.correct else '✗'}</b> {html.escape(verdict.message)}</span>"


def exercise_check(title: str, answers: Mapping[str, Any], lang: str = "en") -> Any:
    """The answer boxes of one exercise (an ipywidgets.VBox): ``title`` as the page prints it
    ("Exercise 6.1"), ``answers`` its :meth:`~infra_lib.exercises.Exercise.answer_key`."""
    lang = _check.choice("lang", lang, LANGUAGES)
    title = _check.text("title", title)
    found = answer_list(answers)
    import ipywidgets as w

    words = WORDS[lang]
    rows: list[Any] = [w.HTML(f"<b>{html.escape(words['title'].format(title=title))}</b>"
                              + (f" <i>{html.escape(words['order'])}</i>" if len(found) > 1 else ""))]
    for name, a in found.items():
        box = w.Text(placeholder=words["placeholder"] if a.numeric else "", layout=w.Layout(width="14em"))
        button = w.Button(description=words["check"], button_style="primary", layout=w.Layout(width="auto"))
        out = w.HTML()

        def on_check(_: object = None, name: str = name, box: Any = box, out: Any = out) -> None:
            out.value = feedback_html(check(answers, name, box.value, lang))
        button.on_click(on_check)
        box.continuous_update = False
        rows.append(w.HBox([w.Label(label(answers, name, lang), layout=w.Layout(width="12em")), box, button],
                           layout=w.Layout(flex_flow="row wrap")))
        rows.append(out)
    shown = w.HTML()
    show = w.Button(description=words["show"], layout=w.Layout(width="auto"))

    def on_show(_: object = None) -> None:
        sep = ": " if lang == "en" else "："
        shown.value = "<br>".join(html.escape(f"{label(answers, n, lang)}{sep}{answer_text(answers, n, lang)}")
                                  for n in found)
    show.on_click(on_show)
    return w.VBox(rows + [w.HBox([show]), shown])
