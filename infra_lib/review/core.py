"""The review's machinery: the :class:`Question` type, its templates, and what every bank module shares.

A bank module (one per chapter, :mod:`infra_lib.review`) builds its questions with :func:`_num` (a
numeric question: an :class:`infra_lib.exercises.Exercise` and the name of its graded answer) and
:func:`_mc` (three options, the right one, and the misconception each wrong one tests), from the
registry values :func:`common` reads.

A drawn variant (:meth:`Question.variant`) is on the grid its question displays: each drawn
parameter is rounded to the precision the question's text shows it at, so a reader who computes
from the numbers on the screen computes the key. It is also possible: every fraction between 0
and 1, the graded answer positive and finite, and the question's own ``valid`` predicate (an MFU
below 100 %, a fat tree of two tiers or more) hold, or the drawer draws again.
"""
import math
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

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
    misconceptions: Mapping[str, tuple[str, ...]] | None = None
    valid: Callable[[Mapping[str, float]], bool] | None = field(default=None, compare=False)
    sig_figs: int | None = 2

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
            why = self.misconceptions or {}
            for lang in ("en", "zh"):
                notes = why.get(lang, ())
                if len(notes) != len(self.options[lang]) or any(
                        bool(n.strip()) != (i != self.correct) for i, n in enumerate(notes)):
                    raise ValueError(f"question {self.id}: every wrong option needs the misconception it tests "
                                     f"({lang}), and the right one none")
        if self.sig_figs is not None:
            _check.count("sig_figs", self.sig_figs, "significant figures")

    @property
    def numeric(self) -> bool:
        """True for a question answered with a number (and a unit)."""
        return self.exercise is not None

    def expected(self, exercise: Exercise | None = None) -> Answer:
        """The graded answer of this question (of ``exercise``, a drawn variant, when given)."""
        ex = self.exercise if exercise is None else _check.instance("exercise", exercise, Exercise)
        if ex is None:
            assert self.options is not None
            return Answer(self.options["en"][self.correct])
        return ex.answers()[self.answer]

    def specs(self, name: str) -> list[str]:
        """The format specs the question's text (either language) shows ``name`` with."""
        name = _check.text("name", name)
        return [m.group(2) or "" for lang in ("en", "zh") for m in FIELD.finditer(self.text[lang]) if m.group(1) == name]

    def on_grid(self, exercise: Exercise) -> Exercise:
        """``exercise`` with each drawable, non-integer parameter rounded to the coarsest precision
        the question's text shows it at (what a reader computes from)."""
        exercise = _check.instance("exercise", exercise, Exercise)
        params = {}
        for name, p in exercise.parameters().items():
            places = [d for d in (_decimals(s) for s in self.specs(name)) if d is not None]
            if p.drawable and not p.integer and places:
                shown = round(p.shown, min(places))
                p = replace(p, value=shown if p.scale == 1 else shown * p.scale)
            params[name] = p
        return replace(exercise, params=params)

    def possible(self, exercise: Exercise | None = None) -> bool:
        """Is the variant physically possible: every answer finite, every fraction in [0, 1], the
        graded answer positive, and the question's ``valid`` predicate (on the parameters' values
        and the answers' values) true?"""
        ex = self.exercise if exercise is None else _check.instance("exercise", exercise, Exercise)
        if ex is None:
            return True
        try:
            found = ex.answers()
        except (ValueError, ZeroDivisionError, OverflowError):
            return False          # an answer that cannot be a number (inf, nan, a division by zero): redraw
        for a in found.values():
            if a.numeric and (not math.isfinite(float(a.value)) or (a.unit == "fraction" and not 0 <= float(a.value) <= 1)):
                return False
        if not float(found[self.answer].value) > 0:
            return False
        return self.valid is None or bool(self.valid(ex.values() | {n: a.value for n, a in found.items()}))

    def variant(self, seed: int = 0) -> Exercise | None:
        """The numeric question's variant ``seed`` (0: the book's values), drawn on the grid the
        question displays and redrawn until :meth:`possible`; None for a multiple-choice question."""
        seed = _check.count("seed", seed, minimum=0)
        if self.exercise is None:
            return None
        if seed == 0:
            return self.exercise
        rng = random.Random(seed)
        for _ in range(MAX_DRAWS):
            ex = self.on_grid(self.exercise.draw(rng))
            if self.possible(ex):
                return ex
        raise RuntimeError(f"question {self.id}: no possible variant in {MAX_DRAWS} draws from seed {seed}: "
                           "narrow its parameters' ranges")

    def order(self, seed: int = 0) -> tuple[int, ...]:
        """The options' order for variant ``seed`` (indices into :attr:`options`): the bank's
        order at 0, a shuffle seeded by the question and the seed otherwise."""
        seed = _check.count("seed", seed, minimum=0)
        n = len(self.options["en"]) if self.options is not None else 0
        order = list(range(n))
        if seed:
            random.Random(f"{self.id}/{seed}").shuffle(order)
        return tuple(order)


MAX_DRAWS = 2000      # draws per variant before the drawer gives up (a question whose ranges are mostly impossible)


def _decimals(spec: str) -> int | None:
    """The decimal places of the value a format spec shows (".2f": 2, ",.0f": 0, ".1%": 3, "d": 0),
    None for a spec with no fixed grid ("", ".3g").

    >>> _decimals(".2f"), _decimals(",.0f"), _decimals(".0%"), _decimals("d"), _decimals("")
    (2, 0, 2, 0, None)
    """
    m = re.fullmatch(r"[^.]*?(?:\.(\d+))?([fd%])", spec)
    if not m:
        return None
    places = int(m.group(1) or 0) if m.group(2) != "d" else 0
    return places + 2 if m.group(2) == "%" else places


def _sig_figs(shown: str) -> int:
    return len(re.sub(r"[^0-9]", "", shown).lstrip("0"))


def _fit(value: object, spec: str) -> str:
    """``format(value, spec)``, with more decimals while that shows fewer than two significant
    figures of a value it does not show exactly ("0.05%" rather than "0.1%", "5.5" rather than "5").

    >>> _fit(0.0005, ".1%"), _fit(5.46, ".0f"), _fit(0.01, ".0%"), _fit(295.3, ",.0f"), _fit(0.009672, ".1%")
    ('0.050%', '5.5', '1%', '295', '0.97%')
    """
    shown = format(value, spec)
    m = re.fullmatch(r"([^.]*?)(?:\.(\d+))?([f%])", spec)
    if not m or isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value == 0:
        return shown
    places = int(m.group(2) or 0)
    back = float(shown.replace(",", "").rstrip("%")) / (100 if m.group(3) == "%" else 1)
    if math.isclose(back, value, rel_tol=1e-9):
        return shown
    # two significant figures of the value's own decade (0.9672 % is "0.97%", not "1.0%")
    digits = 1 - math.floor(math.log10(abs(value) * (100 if m.group(3) == "%" else 1)))
    if digits > places:
        shown = format(value, f"{m.group(1)}.{min(digits, 12)}{m.group(3)}")
    return shown


FIELD = re.compile(r"\{\{|\}\}|\{(\w+)(?::([^{}]*))?\}")     # {{ and }} are literal braces


def fill(template: str, values: Mapping[str, object], fit: bool = False) -> str:
    """A template with each ``{name:fmt}`` replaced by ``format(values[name], fmt)``; ``fit``: with
    at least two significant figures of a value the spec would show with fewer (a drawn variant).

    >>> fill("{a:.1f} ms and {b}", {"a": 2.345, "b": "memory"})
    '2.3 ms and memory'
    >>> fill("{a:.0f} s", {"a": 5.46}), fill("{a:.0f} s", {"a": 5.46}, fit=True)
    ('5 s', '5.5 s')
    """
    _check.text("template", template)
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be a mapping of field names to values, got {values!r}")

    def one(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return m.group(0)[0]
        if m.group(1) not in values:
            raise KeyError(f"template field {m.group(1)!r} is not a parameter or an answer: {sorted(values)}")
        if fit:
            return _fit(values[m.group(1)], m.group(2) or "")
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
         solution: tuple[str, str], flip: bool = False, valid: Callable[[Mapping[str, float]], bool] | None = None,
         sig_figs: int | None = 2) -> Question:
    """A numeric question: ``params`` and ``solve`` make its exercise, ``answer`` names the graded answer;
    ``valid`` (on the parameters' and answers' values) says which drawn variants are possible, and
    ``sig_figs`` is None for a question that states the precision it asks for."""
    ex = Exercise(qid, dict(params), solve=solve)
    return Question(qid, chapter, section, kind, _t(*text), _t(*hint), _t(*solution), exercise=ex, answer=answer,
                    flip=flip, valid=valid, sig_figs=sig_figs)


def _mc(qid: str, chapter: str, section: str, kind: str, text: tuple[str, str], options: tuple[tuple[str, ...], ...],
        correct: int, solution: tuple[str, str], hint: tuple[str, str], flip: bool = False) -> Question:
    """A multiple-choice question: ``options`` as (English, Chinese) for the right one (index
    ``correct``) and (English, Chinese, misconception in English, in Chinese) for each wrong one:
    what a reader who picks it believes."""
    notes = {lang: tuple(o[2 + i] if len(o) == 4 else "" for o in options) for i, lang in enumerate(("en", "zh"))}
    return Question(qid, chapter, section, kind, _t(*text), _t(*hint), _t(*solution),
                    options={"en": tuple(o[0] for o in options), "zh": tuple(o[1] for o in options)}, correct=correct,
                    flip=flip, misconceptions=notes)


def _clear_of_integer(x: float, margin: float = 1e-6) -> bool:
    """True when ``x`` is not within ``margin`` of a whole number: a count rounded up or down from
    it cannot then turn on the last bit of a float (160B at 1.5 bytes on 80 GB GPUs is 3.0000000000000004).

    >>> _clear_of_integer(2.5), _clear_of_integer(3.0000000000000004), _clear_of_integer(2.9999)
    (True, False, True)
    """
    return abs(x - round(x)) > margin
