"""The review's machinery: the :class:`Question` type, its templates, and what every bank module shares.

A bank module (one per chapter, :mod:`infra_lib.review`) builds its questions with :func:`_num` (a
numeric question: an :class:`infra_lib.exercises.Exercise` and the name of its graded answer) and
:func:`_mc` (three options and the right one), from the registry values :func:`common` reads.
"""
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .. import _check, hardware as hw, inference
from ..exercises import Answer, Exercise, Param


@dataclass(frozen=True)
class Question:
    """One review question. ``kind`` is "interview" or "self-check"; ``flip`` marks a "when does
    the conclusion flip?" question. A numeric question has ``exercise`` and ``answer`` (the name of
    the graded answer); a conceptual one has ``options`` (per language) and ``correct`` (an index)."""
    id: str
    chapter: str
    section: str
    kind: str
    text: Mapping[str, str]
    hint: Mapping[str, str]
    solution: Mapping[str, str]
    exercise: Exercise | None = field(default=None, compare=False)
    answer: str = ""
    options: Mapping[str, tuple[str, ...]] | None = None
    correct: int = 0
    flip: bool = False

    def __post_init__(self) -> None:
        _check.fields(self)
        from . import chapters          # the chapters that have a bank module (imports them, reads nothing)
        _check.choice("chapter", self.chapter, chapters())
        _check.choice("kind", self.kind, ("interview", "self-check"))
        for name in ("text", "hint", "solution"):
            texts = getattr(self, name)
            if set(texts) != {"en", "zh"} or not all(isinstance(t, str) and t.strip() for t in texts.values()):
                raise ValueError(f"question {self.id}: {name} needs non-empty 'en' and 'zh' texts")
        if (self.exercise is None) == (self.options is None):
            raise ValueError(f"question {self.id}: give an exercise (numeric) or options (multiple choice), not both")
        if self.exercise is not None and self.exercise.key != self.id:
            raise ValueError(f"question {self.id}: its exercise's key is {self.exercise.key!r}")
        if self.options is not None:
            if set(self.options) != {"en", "zh"} or len(self.options["en"]) != len(self.options["zh"]):
                raise ValueError(f"question {self.id}: options need the same number of 'en' and 'zh' entries")
            if not 0 <= self.correct < len(self.options["en"]):
                raise ValueError(f"question {self.id}: correct={self.correct} is not an option's index")

    @property
    def numeric(self) -> bool:
        """True for a question answered with a number (and a unit)."""
        return self.exercise is not None

    def expected(self, exercise: Exercise | None = None) -> Answer:
        """The graded answer of this question (of ``exercise``, a drawn variant, when given)."""
        ex = exercise or self.exercise
        if ex is None:
            assert self.options is not None
            return Answer(self.options["en"][self.correct])
        return ex.answers()[self.answer]


FIELD = re.compile(r"\{\{|\}\}|\{(\w+)(?::([^{}]*))?\}")     # {{ and }} are literal braces


def fill(template: str, values: Mapping[str, object]) -> str:
    """A template with each ``{name:fmt}`` replaced by ``format(values[name], fmt)``.

    >>> fill("{a:.1f} ms and {b}", {"a": 2.345, "b": "memory"})
    '2.3 ms and memory'
    """
    _check.text("template", template)
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be a mapping of field names to values, got {values!r}")

    def one(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return m.group(0)[0]
        if m.group(1) not in values:
            raise KeyError(f"template field {m.group(1)!r} is not a parameter or an answer: {sorted(values)}")
        return format(values[m.group(1)], m.group(2) or "")
    return FIELD.sub(one, template)


def values_of(exercise: Exercise) -> dict[str, object]:
    """What a template may name: each parameter as shown, then each answer's value."""
    exercise = _check.instance("exercise", exercise, Exercise)
    return {n: p.shown for n, p in exercise.parameters().items()} | {n: a.value for n, a in exercise.answers().items()}


def glue_roles(template: str, prefix: str) -> str:
    """A template with each ``{name:fmt}`` turned into a MyST glue role ``{glue:text}`prefix_name:fmt```.

    >>> glue_roles("{a:.1f} ms", "rv_x")
    '{glue:text}`rv_x_a:.1f` ms'
    """
    prefix = _check.text("prefix", prefix)

    def one(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return m.group(0)[0]
        return "{glue:text}`" + f"{prefix}_{m.group(1)}" + (f":{m.group(2)}" if m.group(2) else "") + "`"
    return FIELD.sub(one, _check.text("template", template))


# ---- what the bank modules share ---------------------------------------------------------------

@dataclass(frozen=True)
class Common:
    """The registry values questions of several chapters start from: the H100 SXM5 and the H200 SXM
    they name, and the overview's teaching request and teaching GPU."""
    h100_bw: float
    h100_peak: float
    h100_mem: float
    h100_sms: int
    h200_bw: float
    request: inference.Request
    gpu: inference.Accelerator

    def __post_init__(self) -> None:
        _check.fields(self)


def common() -> Common:
    """:class:`Common`, read from the registry now: a page lists what it reads after ``sources.reset()``,
    each document in the order of its first use (the overview's bank calls this first)."""
    v = hw.value
    return Common(v("h100_sxm5", "mem_bw_Bps"), v("h100_sxm5", "peak_flop_s"), v("h100_sxm5", "mem_capacity_B"),
                  int(v("h100_sxm5", "sm_count")), v("h200_sxm", "mem_bw_Bps"), inference.teaching_request(),
                  inference.teaching_gpu())


def _t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


def _num(qid: str, chapter: str, section: str, kind: str, params: Mapping[str, Param | float],
         solve: Callable[..., Mapping[str, object]], answer: str, text: tuple[str, str], hint: tuple[str, str],
         solution: tuple[str, str], flip: bool = False) -> Question:
    """A numeric question: ``params`` and ``solve`` make its exercise, ``answer`` names the graded answer."""
    ex = Exercise(qid, dict(params), solve=solve)
    return Question(qid, chapter, section, kind, _t(*text), _t(*hint), _t(*solution), exercise=ex, answer=answer,
                    flip=flip)


def _mc(qid: str, chapter: str, section: str, kind: str, text: tuple[str, str], options: tuple[tuple[str, str], ...],
        correct: int, solution: tuple[str, str], hint: tuple[str, str], flip: bool = False) -> Question:
    """A multiple-choice question: ``options`` as (English, Chinese) pairs, ``correct`` the right one's index."""
    return Question(qid, chapter, section, kind, _t(*text), _t(*hint), _t(*solution),
                    options={"en": tuple(o[0] for o in options), "zh": tuple(o[1] for o in options)}, correct=correct,
                    flip=flip)
