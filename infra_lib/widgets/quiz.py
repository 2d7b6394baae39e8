"""The review chapter's widget: an answer checker for one review question, with a "new variant" button.

The reader types an answer (a number with or without a unit, or an option's letter or text) and
presses Check: :func:`infra_lib.answers.grade` says right or wrong (two significant figures are
enough, a count must be exact), tells a wrong unit from a wrong number, and a wrong answer shows
the question's hint, the right value and the worked solution recomputed for this variant, each
folded until opened; a wrong option says which misconception it tests. "New variant" draws new
parameters inside each parameter's range from a seed shown beside the question
(:meth:`infra_lib.review.Question.variant`: on the grid the question shows, and possible), or
shuffles a multiple-choice question's options, so a reader can type the seed back to get the
same variant; seed 0 is the book's own numbers and order.

The parts that compute are pure functions (:func:`variant`, :func:`question_html`, :func:`check`,
:func:`feedback_html`) tested without a kernel; ipywidgets is imported only when :func:`quiz`
builds the widget.

>>> check("rv_ov_q5", "b", "en").correct
True
>>> check("rv_ch1_q4", "hello", "zh").status
'unreadable'
"""
import html
import random
import re
from functools import lru_cache
from typing import Any

from .. import _check, review
from ..answers import Verdict, choice_index, grade, grade_choice
from ..exercises import Answer, Exercise
from ..i18n import LANGUAGES, t

MAX_SEED = 10**6
# the widget's own words (the labels it shares with the page are in infra_lib/data/labels.toml)
WORDS = {"en": {"solution": "Worked solution for these numbers", "why": "Why not", "answer": "Answer"},
         "zh": {"solution": "按这组数的详细解答", "why": "为什么不选", "answer": "答案"}}


@lru_cache(maxsize=8192)
def variant(qid: str, seed: int = 0) -> Exercise | None:
    """The exercise of question ``qid`` for the variant ``seed`` (seed 0: the book's values; drawn
    on the grid the question shows and possible otherwise); None for a multiple-choice question."""
    return review.by_id(qid).variant(_check.count("seed", seed, minimum=0))


@lru_cache(maxsize=8192)
def _values(qid: str, seed: int) -> dict[str, object]:
    ex = variant(qid, seed)
    return {} if ex is None else review.values_of(ex)


@lru_cache(maxsize=8192)
def expected(qid: str, seed: int = 0) -> Answer:
    """The graded answer of question ``qid`` for the variant ``seed`` (a multiple-choice question:
    its right option's text in English)."""
    return review.by_id(qid).expected(variant(qid, seed))


def text(qid: str, part: str, lang: str, seed: int = 0) -> str:
    """The question's ``part`` ("text", "hint" or "solution") in ``lang``, filled in for the variant
    ``seed`` at a precision fit for its values (plain text, with the bank's markdown)."""
    lang = _check.choice("lang", lang, LANGUAGES)
    part = _check.choice("part", part, ("text", "hint", "solution"))
    q = review.by_id(qid)
    template = getattr(q, part)[lang]
    return template if q.exercise is None else review.fill(template, _values(qid, seed), fit=True)


def options(qid: str, lang: str, seed: int = 0) -> tuple[str, ...]:
    """A multiple-choice question's options in ``lang``, in the order of the variant ``seed``."""
    q = review.by_id(qid)
    if q.options is None:
        return ()
    return tuple(q.options[_check.choice("lang", lang, LANGUAGES)][i] for i in q.order(seed))


def _markdown(text: str) -> str:
    """The bank's markdown (bold, inline math) as HTML, escaped."""
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(text))


def question_html(qid: str, lang: str, seed: int = 0) -> str:
    """The question's text in ``lang`` for the variant ``seed``, as HTML (options as a list)."""
    lang = _check.choice("lang", lang, LANGUAGES)
    q = review.by_id(qid)
    title = t("ch10_quiz_flip", lang) if q.flip else ""
    body = (f"<p><b>{html.escape(title)}</b></p>" if title else "") + f"<p>{_markdown(text(qid, 'text', lang, seed))}</p>"
    if q.options is not None:
        items = "".join(f"<li><b>{chr(ord('a') + i)}</b>. {html.escape(o)}</li>" for i, o in enumerate(options(qid, lang, seed)))
        body += f"<ul style='list-style:none'>{items}</ul>"
    return body


def check(qid: str, typed: str, lang: str, seed: int = 0) -> Verdict:
    """Grade what the reader typed for question ``qid`` (variant ``seed``); never raises on a string."""
    lang = _check.choice("lang", lang, LANGUAGES)
    q = review.by_id(qid)
    typed = _check.text("text", typed)
    if q.options is not None:
        other = "zh" if lang == "en" else "en"
        shown = options(qid, lang, seed)
        return grade_choice(typed, shown, q.options[lang][q.correct], lang, other=options(qid, other, seed))
    return grade(typed, expected(qid, seed), lang, q.sig_figs)


def _fold(summary: str, body: str) -> str:
    return f"<details><summary><i>{html.escape(summary)}</i></summary>{body}</details>"


def feedback_html(qid: str, verdict: Verdict, lang: str, seed: int = 0, typed: str = "") -> str:
    """The verdict as HTML: green when right; red when not, with the hint and (for a wrong number
    or unit) the worked solution for the variant ``seed``, each folded; for a wrong option, the
    misconception it tests (``typed``: what the reader chose)."""
    lang = _check.choice("lang", lang, LANGUAGES)
    q = review.by_id(qid)
    colour = "#1a7f37" if verdict.correct else "#b42318"
    out = f"<p style='color:{colour}'><b>{'✓' if verdict.correct else '✗'}</b> {html.escape(verdict.message)}</p>"
    if verdict.correct or verdict.status == "unreadable":
        return out
    if q.options is not None and q.misconceptions is not None:
        order = q.order(seed)
        other = "zh" if lang == "en" else "en"
        i = choice_index(typed, options(qid, lang, seed), options(qid, other, seed)) if typed else None
        if i is not None and order[i] != q.correct:
            out += f"<p><i>{html.escape(WORDS[lang]['why'])}</i>: {html.escape(q.misconceptions[lang][order[i]])}</p>"
    out += _fold(t("ch10_quiz_hint", lang), f"<p>{_markdown(text(qid, 'hint', lang, seed))}</p>")
    out += _fold(WORDS[lang]["solution"], f"<p>{_markdown(text(qid, 'solution', lang, seed))}</p>")
    return out


def quiz(qid: str, lang: str = "en") -> Any:
    """A text box, a Check button and a New variant button with its seed (an ipywidgets.VBox)."""
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
        out.value = feedback_html(qid, check(qid, box.value, lang, seed.value), lang, seed.value, box.value)

    def on_seed(_: object = None) -> None:
        prompt.value = question_html(qid, lang, seed.value)
        box.value, out.value = "", ""

    button.on_click(on_check)
    box.continuous_update = False
    seed.observe(on_seed, names="value")
    new = w.Button(description=t("ch10_quiz_new", lang))
    rng = random.Random()

    def on_new(_: object) -> None:
        seed.value = rng.randint(1, MAX_SEED)
    new.on_click(on_new)
    return w.VBox([prompt, w.HBox([box, button, new, seed]), out])
