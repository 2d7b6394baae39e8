"""The review chapter's widget: an answer checker for one review question, with a "new variant" button.

The reader types an answer (a number with or without a unit, or an option's letter) and presses
Check: :func:`infra_lib.answers.grade` says right or wrong, tells a wrong unit from a wrong number,
and a wrong answer shows the question's hint. "New variant" draws new parameters inside each
parameter's range from a seed shown beside the question (:meth:`infra_lib.exercises.Exercise.draw`),
so a reader can type the seed back to get the same variant; seed 0 is the book's own numbers.

The parts that compute are pure functions (:func:`variant`, :func:`question_html`, :func:`check`)
tested without a kernel; ipywidgets is imported only when :func:`quiz` builds the widget.

>>> check("rv_ov_q5", "b", "en").correct
True
>>> check("rv_ch1_q4", "hello", "zh").status
'unreadable'
"""
import html
import random
from typing import Any

from .. import _check, review
from ..answers import Verdict, grade, grade_choice
from ..exercises import Exercise
from ..i18n import LANGUAGES, t

MAX_SEED = 10**6


def variant(qid: str, seed: int = 0) -> Exercise | None:
    """The exercise of question ``qid`` with parameters drawn from ``seed`` (seed 0: the book's values);
    None for a multiple-choice question."""
    q = review.by_id(qid)
    seed = _check.count("seed", seed, minimum=0)
    if q.exercise is None:
        return None
    return q.exercise if seed == 0 else q.exercise.draw(random.Random(seed))


def question_html(qid: str, lang: str, seed: int = 0) -> str:
    """The question's text in ``lang`` for the variant ``seed``, as HTML (options as a list)."""
    lang = _check.choice("lang", lang, LANGUAGES)
    q = review.by_id(qid)
    ex = variant(qid, seed)
    text = q.text[lang] if ex is None else review.fill(q.text[lang], review.values_of(ex))
    title = t("ch10_quiz_flip", lang) if q.flip else ""
    body = (f"<p><b>{html.escape(title)}</b></p>" if title else "") + f"<p>{html.escape(text)}</p>"
    if q.options is not None:
        items = "".join(f"<li><b>{chr(ord('a') + i)}</b>. {html.escape(o)}</li>" for i, o in enumerate(q.options[lang]))
        body += f"<ul style='list-style:none'>{items}</ul>"
    return body


def check(qid: str, text: str, lang: str, seed: int = 0) -> Verdict:
    """Grade what the reader typed for question ``qid`` (variant ``seed``); never raises on a string."""
    lang = _check.choice("lang", lang, LANGUAGES)
    q = review.by_id(qid)
    text = _check.text("text", text)
    if q.options is not None:
        return grade_choice(text, q.options["en"], q.options["en"][q.correct], lang)
    ex = variant(qid, seed)
    assert ex is not None
    return grade(text, q.expected(ex), lang)


def feedback_html(qid: str, verdict: Verdict, lang: str, seed: int = 0) -> str:
    """The verdict as HTML: green when right; red with the hint (for the variant ``seed``) when not."""
    lang = _check.choice("lang", lang, LANGUAGES)
    q = review.by_id(qid)
    ex = variant(qid, seed)
    hint = q.hint[lang] if ex is None else review.fill(q.hint[lang], review.values_of(ex))
    colour = "#1a7f37" if verdict.correct else "#b42318"
    out = f"<p style='color:{colour}'><b>{'✓' if verdict.correct else '✗'}</b> {html.escape(verdict.message)}</p>"
    if not verdict.correct and verdict.status != "unreadable":
        out += f"<p><i>{html.escape(t('ch10_quiz_hint', lang))}</i>: {html.escape(hint)}</p>"
    return out


def quiz(qid: str, lang: str = "en") -> Any:
    """A text box, a Check button and (for a numeric question) a New variant button and its seed
    (an ipywidgets.VBox)."""
    lang = _check.choice("lang", lang, LANGUAGES)
    q = review.by_id(qid)
    import ipywidgets as w

    seed = w.BoundedIntText(value=0, min=0, max=MAX_SEED, description=t("ch10_quiz_seed", lang),
                            layout=w.Layout(width="14em"))
    prompt = w.HTML(question_html(qid, lang, 0))
    box = w.Text(placeholder=t("ch10_quiz_placeholder" if q.numeric else "ch10_quiz_placeholder_choice", lang),
                 layout=w.Layout(width="22em"))
    button = w.Button(description=t("ch10_quiz_check", lang), button_style="primary")
    out = w.HTML()

    def on_check(_: object = None) -> None:
        out.value = feedback_html(qid, check(qid, box.value, lang, seed.value), lang, seed.value)

    def on_seed(_: object = None) -> None:
        prompt.value = question_html(qid, lang, seed.value)
        box.value, out.value = "", ""

    button.on_click(on_check)
    box.continuous_update = False
    seed.observe(on_seed, names="value")
    controls: list[Any] = [box, button]
    if q.numeric:
        new = w.Button(description=t("ch10_quiz_new", lang))
        rng = random.Random()

        def on_new(_: object) -> None:
            seed.value = rng.randint(1, MAX_SEED)
        new.on_click(on_new)
        controls += [new, seed]
    return w.VBox([prompt, w.HBox(controls), out])
