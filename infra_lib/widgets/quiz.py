"""The review chapter's widget: an answer checker for one review question, with a "new variant" button.

The reader types an answer (a number with or without a unit, or an option's letter or text) and
presses Check: :func:`infra_lib.answers.grade` says right or wrong (two significant figures are
enough, a count must be exact), tells a wrong unit from a wrong number, and a wrong answer shows
the question's hint, the right value and the worked solution recomputed for this variant, each
folded until opened; a wrong option says which misconception it tests. "New variant" draws new
parameters inside each parameter's range from a seed shown beside the question
(:meth:`infra_lib.review.Question.variant`: on the grid the question shows, and possible), or
shuffles a multiple-choice question's options, so a reader can type the seed back to get the
same variant; seed 0 is the book's own numbers and order. After two wrong tries on a variant the
feedback gives the answer, and **Show answer** gives it on request (a question answered that way
does not count as right).

Progress (:class:`Progress`): which questions were answered, right or not, kept in a small JSON
file, ``review-progress.json``, in the working directory: beside the notebook in Jupyter, and in
the browser's storage in JupyterLite (the live page). :func:`scoreboard` shows the score per
chapter and overall; a damaged file is set aside and the board says so, starting fresh.

The parts that compute are pure functions (:func:`variant`, :func:`question_html`, :func:`check`,
:func:`feedback_html`) tested without a kernel; ipywidgets is imported only when :func:`quiz`
builds the widget.

>>> check("rv_ov_q5", "b", "en").correct
True
>>> check("rv_ch1_q4", "hello", "zh").status
'unreadable'
"""
import html
import json
import random
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from .. import _check, review
from ..answers import Verdict, _shown, answer_unit, choice_index, grade, grade_choice
from ..exercises import Answer, Exercise
from ..i18n import LANGUAGES, t

MAX_SEED = 10**6
# the widget's own words (the labels it shares with the page are in infra_lib/data/labels.toml)
WORDS = {"en": {"solution": "Worked solution for these numbers", "why": "Why not", "answer": "Answer",
                "show": "Show answer", "start": "Try it", "shown": "Shown, not counted as right", "score": "Your score",
                "chapter": "Chapter {n}", "total": "All chapters", "right": "right", "answered": "answered",
                "of": "of", "status_right": "Answered right before.", "status_wrong": "Tried before, not yet right.",
                "status_revealed": "Answer shown before.",
                "damaged": "The saved progress in {name} could not be read ({why}); it was set aside as {kept} "
                           "and the score starts fresh.",
                "unsaved": "Progress cannot be saved here ({why}); it is kept until the page is closed.",
                "kept": "Kept in {name} (in this browser on the live page, beside the notebook in Jupyter)."},
         "zh": {"solution": "按这组数的详细解答", "why": "为什么不选", "answer": "答案",
                "show": "显示答案", "start": "作答", "shown": "已显示答案，不计为答对", "score": "你的得分",
                "chapter": "第 {n} 章", "total": "全部章节", "right": "答对", "answered": "已答",
                "of": "/", "status_right": "之前已答对。", "status_wrong": "之前答过，还没答对。",
                "status_revealed": "之前已显示过答案。",
                "damaged": "保存的进度文件 {name} 读不出来（{why}），已另存为 {kept}，得分从头开始。",
                "unsaved": "这里无法保存进度（{why}），关闭页面之前仍然保留。",
                "kept": "进度保存在 {name} 里（在线页面上存于本浏览器，Jupyter 里在 notebook 旁边）。"}}
WRONG_TRIES = 2                      # after this many wrong tries on a variant, the feedback gives the answer
PROGRESS_FILE = "review-progress.json"
PROGRESS_FORMAT = "infra_lib review progress"
STATES = ("right", "wrong", "revealed")


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


def answer_text(qid: str, lang: str, seed: int = 0) -> str:
    """The answer of question ``qid`` for the variant ``seed`` as the page shows it: a value with its
    unit in ``lang`` ("64 ms", "16.67 %"), or the right option's letter and text in this variant's order.

    >>> answer_text("rv_ov_q5", "en").startswith("b. ")
    True
    """
    lang = _check.choice("lang", lang, LANGUAGES)
    q = review.by_id(qid)
    if q.options is not None:
        i = q.order(seed).index(q.correct)
        return f"{chr(ord('a') + i)}. {q.options[lang][q.correct]}"
    a = expected(qid, seed)
    return _shown(float(a.value), a.unit, answer_unit(a.unit)[0], lang)


def answer_html(qid: str, lang: str, seed: int = 0) -> str:
    """The answer for the variant ``seed`` and the worked solution that reaches it, as HTML (open)."""
    lang = _check.choice("lang", lang, LANGUAGES)
    colon = ": " if lang == "en" else "："
    return (f"<p><b>{html.escape(WORDS[lang]['answer'])}{colon}{html.escape(answer_text(qid, lang, seed))}</b></p>"
            + f"<p>{_markdown(text(qid, 'solution', lang, seed))}</p>")


def feedback_html(qid: str, verdict: Verdict, lang: str, seed: int = 0, typed: str = "", wrong_tries: int = 1) -> str:
    """The verdict as HTML: green when right; red when not, with the hint and (for a wrong number
    or unit) the worked solution for the variant ``seed``, each folded; for a wrong option, the
    misconception it tests (``typed``: what the reader chose). From the ``WRONG_TRIES``-th wrong try
    on this variant (``wrong_tries``), the answer and its solution are shown open instead."""
    lang = _check.choice("lang", lang, LANGUAGES)
    wrong_tries = _check.count("wrong_tries", wrong_tries, "tries", minimum=0)
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
            colon = ": " if lang == "en" else "："
            out += f"<p><i>{html.escape(WORDS[lang]['why'])}</i>{colon}{html.escape(q.misconceptions[lang][order[i]])}</p>"
    out += _fold(t("ch10_quiz_hint", lang), f"<p>{_markdown(text(qid, 'hint', lang, seed))}</p>")
    if wrong_tries >= WRONG_TRIES:
        return out + answer_html(qid, lang, seed)
    out += _fold(WORDS[lang]["solution"], f"<p>{_markdown(text(qid, 'solution', lang, seed))}</p>")
    return out


# ---- progress: which questions were answered, kept in a small JSON file ------------------------

class Progress:
    """Each question's state ("right", "wrong": tried and not yet right, "revealed": the answer was
    shown before it was right) in the JSON file ``path`` (``review-progress.json`` in the working
    directory by default), read when made and written after each change.

    A file that cannot be read as this format is set aside (renamed ``<name>.damaged``) and the
    progress starts empty; :attr:`problem` says so in the page's words (:func:`scoreboard` shows it).
    A file that cannot be written (no storage) keeps the progress in memory, and says that too.

    >>> import tempfile; folder = tempfile.mkdtemp()
    >>> p = Progress(Path(folder) / "progress.json"); p.record("rv_ov_q5", True); p.state("rv_ov_q5")
    'right'
    >>> Progress(Path(folder) / "progress.json").state("rv_ov_q5")
    'right'
    """

    def __init__(self, path: Path | str | None = None) -> None:
        self.path = Path(PROGRESS_FILE if path is None else path)
        self.states: dict[str, str] = {}
        self.problem: tuple[str, dict[str, str]] | None = None     # (WORDS key, its fields)
        self.listeners: list[Callable[[], None]] = []
        self._read()

    def _read(self) -> None:
        if not self.path.exists():
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or data.get("format") != PROGRESS_FORMAT:
                raise ValueError("not a progress file of this course")
            states = data.get("questions")
            if not isinstance(states, dict) or not all(isinstance(k, str) and v in STATES for k, v in states.items()):
                raise ValueError("its list of questions is not in the expected form")
        except (OSError, UnicodeDecodeError, ValueError) as error:   # json.JSONDecodeError is a ValueError
            kept = self.path.with_name(self.path.name + ".damaged")
            try:
                self.path.replace(kept)
            except OSError:
                pass
            why = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
            self.problem = ("damaged", {"name": self.path.name, "why": why, "kept": kept.name})
            return
        self.states = {qid: state for qid, state in states.items()}

    def save(self) -> None:
        data = {"format": PROGRESS_FORMAT, "version": 1, "questions": dict(sorted(self.states.items()))}
        try:
            self.path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as error:
            self.problem = ("unsaved", {"why": error.strerror or str(error)})

    def state(self, qid: str) -> str | None:
        """The question's state, None if it was never answered."""
        return self.states.get(_check.text("qid", qid))

    def record(self, qid: str, correct: bool, revealed: bool = False) -> None:
        """A checked answer (``correct``: the quiz passes False once the answer of the variant was
        shown), or an answer shown (``revealed``); right stays right, a new right answer counts."""
        qid = _check.text("qid", qid)
        before = self.states.get(qid)
        if before == "right":
            return
        if _check.flag("revealed", revealed):
            new = "revealed"
        elif _check.flag("correct", correct):
            new = "right"
        else:
            new = before or "wrong"
        self.states[qid] = new
        self.save()
        for listener in list(self.listeners):
            listener()

    def score(self) -> list[tuple[str, int, int, int]]:
        """(chapter key, answered, right, questions) per chapter of the bank, in order, then ("", ...)
        for all of them."""
        rows = []
        for key in review.chapters():
            ids = [q.id for q in review.chapter_questions(key)]
            rows.append((key, sum(i in self.states for i in ids), sum(self.states.get(i) == "right" for i in ids),
                         len(ids)))
        rows.append(("", sum(r[1] for r in rows), sum(r[2] for r in rows), sum(r[3] for r in rows)))
        return rows


_PROGRESS: dict[Path, Progress] = {}


def progress(path: Path | str | None = None) -> Progress:
    """The progress kept in ``path`` (default: ``review-progress.json`` in the working directory),
    one shared object per file, so every quiz and the scoreboard of a notebook see the same."""
    key = Path(PROGRESS_FILE if path is None else path).resolve()
    if key not in _PROGRESS:
        _PROGRESS[key] = Progress(key)
    return _PROGRESS[key]


def score_html(p: Progress, lang: str) -> str:
    """The score per chapter and overall as an HTML table, with any problem reading or saving it."""
    lang = _check.choice("lang", lang, LANGUAGES)
    w = WORDS[lang]
    files = review.chapter_files()
    head = (f"<tr><th></th><th>{html.escape(w['answered'])}</th><th>{html.escape(w['right'])}</th></tr>")
    body = ""
    for key, answered, right, total in p.score():
        name = w["total"] if not key else w["chapter"].format(n=int(files[key][:2]))
        cell = f"{answered} {w['of']} {total}" if lang == "en" else f"{answered}/{total}"
        good = f"{right} {w['of']} {total}" if lang == "en" else f"{right}/{total}"
        tag = "th" if not key else "td"
        body += f"<tr><{tag}>{html.escape(name)}</{tag}><td>{cell}</td><td>{good}</td></tr>"
    out = f"<p><b>{html.escape(w['score'])}</b></p><table class='course-score'>{head}{body}</table>"
    if p.problem is not None:
        out += f"<p style='color:#b42318'>{html.escape(w[p.problem[0]].format(**p.problem[1]))}</p>"
    return out + f"<p><i>{html.escape(w['kept'].format(name=p.path.name))}</i></p>"


def status_html(p: Progress, qid: str, lang: str) -> str:
    """What the saved progress says of question ``qid`` (empty if never answered)."""
    lang = _check.choice("lang", lang, LANGUAGES)
    state = p.state(qid)
    return "" if state is None else f"<p><i>{html.escape(WORDS[lang]['status_' + state])}</i></p>"


def scoreboard(lang: str = "en", path: Path | str | None = None) -> Any:
    """The score per chapter and overall (an ipywidgets.HTML), updated after every check."""
    lang = _check.choice("lang", lang, LANGUAGES)
    p = progress(path)
    import ipywidgets as w

    board = w.HTML(score_html(p, lang))

    def refresh() -> None:
        board.value = score_html(p, lang)
    p.listeners.append(refresh)
    return board


def quiz(qid: str, lang: str = "en", path: Path | str | None = None, opened: bool = False) -> Any:
    """The question, a text box, a Check button, a Show answer button and a New variant button with
    its seed (an ipywidgets.VBox); each check is kept in the progress file ``path`` (:func:`progress`).

    Until the reader presses **Answer** (or with ``opened=True``) the box holds only the question,
    what the progress file says of it and that button: the controls are built on the click. A
    review page builds 90 of these, and in the browser every widget model is a message to the page:
    a question not yet started costs under a third of the models of an open one."""
    lang = _check.choice("lang", lang, LANGUAGES)
    _check.flag("opened", opened)
    q = review.by_id(qid)
    saved = progress(path)
    import ipywidgets as w

    prompt = w.HTML(question_html(qid, lang, 0) + status_html(saved, qid, lang))
    start = w.Button(description=WORDS[lang]["start"], button_style="primary")
    box = w.VBox([prompt, start])

    def on_start(_: object = None) -> None:
        box.children = _controls(qid, lang, q.numeric, saved, prompt)
    start.on_click(on_start)
    if opened:
        on_start()
    return box


def _controls(qid: str, lang: str, numeric: bool, saved: Progress, prompt: Any) -> tuple[Any, ...]:
    """The answering controls of :func:`quiz` under its ``prompt``: (prompt, the row of controls, feedback)."""
    import ipywidgets as w

    seed = w.BoundedIntText(value=0, min=0, max=MAX_SEED, description=t("ch10_quiz_seed", lang),
                            layout=w.Layout(width="14em"))
    prompt.value = question_html(qid, lang, 0)
    box = w.Text(placeholder=t("ch10_quiz_placeholder" if numeric else "ch10_quiz_placeholder_choice", lang),
                 layout=w.Layout(width="22em"))
    button = w.Button(description=t("ch10_quiz_check", lang), button_style="primary")
    out = w.HTML(status_html(saved, qid, lang))
    show = w.Button(description=WORDS[lang]["show"])
    tries = {"wrong": 0, "shown": False}           # on this variant

    def on_check(_: object = None) -> None:
        verdict = check(qid, box.value, lang, seed.value)
        if verdict.status != "unreadable":
            tries["wrong"] += not verdict.correct
            saved.record(qid, verdict.correct and not tries["shown"])
        out.value = feedback_html(qid, verdict, lang, seed.value, box.value, tries["wrong"])

    def on_show(_: object = None) -> None:
        tries["shown"] = True
        saved.record(qid, False, revealed=True)
        out.value = f"<p><i>{html.escape(WORDS[lang]['shown'])}</i></p>" + answer_html(qid, lang, seed.value)

    def on_seed(_: object = None) -> None:
        prompt.value = question_html(qid, lang, seed.value)
        box.value, out.value = "", ""
        tries.update(wrong=0, shown=False)

    button.on_click(on_check)
    show.on_click(on_show)
    box.continuous_update = False
    seed.observe(on_seed, names="value")
    new = w.Button(description=t("ch10_quiz_new", lang))
    rng = random.Random()

    def on_new(_: object) -> None:
        seed.value = rng.randint(1, MAX_SEED)
    new.on_click(on_new)
    return (prompt, w.HBox([box, button, show, new, seed]), out)
