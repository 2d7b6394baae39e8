"""Exercises whose parameters are bound once: in the question's text and in the answer's computation.

An :class:`Exercise` holds the inputs of a question (:class:`Param`: a value, a unit, and the
range a new variant may be drawn from) and a ``solve`` function that turns them into the
answers (:class:`Answer`: a value, a unit and the tolerance a reader's answer is graded with).
The chapter glues every parameter and every answer under ``<prefix>_<name>``, so the question
and the answer can never be typed with two different numbers:

>>> ex = Exercise("ch3_ex1", {"k": 2, "a": Param(60, "cycles", low=10, high=100)},
...               solve=lambda k, a: {"useful": Answer(k * a, "lane-cycles")})
>>> ex.glued()
{'ch3_ex1_k': 2, 'ch3_ex1_a': 60, 'ch3_ex1_useful': 120}
>>> ex.grade("useful", 121).correct          # within the default 1 % tolerance
True
>>> ex.variant(a=40).glued()["ch3_ex1_useful"]
80

A review chapter can draw new variants (:meth:`Exercise.draw`, inside each parameter's range)
and grade a reader's answers against them (:meth:`Exercise.grade`). This module imports nothing
heavier than the standard library; the chapter's ``glue`` is imported only when
:meth:`Exercise.glue` is called without one.

A chapter's own assumptions (the context and batch it computes with, its sweeps, its teaching
examples) are bound the same way, once, in a :class:`Scenario` at the top of its first computing
cell, and read by name wherever the chapter uses them (``tests/test_scenarios.py`` fails on a
literal typed three times in a chapter's code):

>>> scenario = Scenario(context=1000, batch=64)
>>> scenario.context * scenario.batch
64000
"""
import functools
import importlib
import json
import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from numbers import Real
from typing import Any

from . import _check

Number = int | float
ANSWER_KEY_SUFFIX = "_answer_key"   # the glue key of an exercise's answers as data: <key>_answer_key


@dataclass(frozen=True)
class Param:
    """One input of a question: its value, its unit, and the range new variants are drawn from.

    ``integer`` draws whole numbers; ``low``/``high`` (both or neither) bound :meth:`Exercise.draw`.
    A parameter without a range is kept as it is when a variant is drawn. ``solve`` receives
    ``value``; the question shows ``value / scale`` (a peak in FLOP/s glued in TFLOP/s: scale 1e12).
    """
    value: Number
    unit: str = ""
    low: Number | None = None
    high: Number | None = None
    integer: bool = False
    scale: float = 1.0

    def __post_init__(self) -> None:
        _check.fields(self)
        if isinstance(self.value, bool) or not isinstance(self.value, (int, float)):
            raise TypeError(f"a parameter's value must be a number, got {self.value!r}")
        if (self.low is None) != (self.high is None):
            raise ValueError(f"give both low and high, or neither (got low={self.low!r}, high={self.high!r})")
        if not self.scale > 0:
            raise ValueError(f"scale must be greater than 0, got {self.scale!r}")
        if self.low is not None and self.high is not None and not self.low <= self.high:
            raise ValueError(f"low must not exceed high (got low={self.low!r}, high={self.high!r})")

    @property
    def shown(self) -> Number:
        """What the question shows (and the chapter glues): ``value / scale``."""
        return self.value if self.scale == 1 else self.value / self.scale

    @property
    def drawable(self) -> bool:
        """True when it has a range to draw from."""
        return self.low is not None

    def draw(self, rng: random.Random) -> "Param":
        """A copy with a value drawn uniformly from [low, high] (the same value if no range).

        >>> Param(3, low=1, high=9, integer=True).draw(random.Random(0)).value in range(1, 10)
        True
        >>> Param(3).draw(None)
        Traceback (most recent call last):
        ...
        TypeError: rng must be a Random, got None (NoneType)
        """
        _check.instance("rng", rng, random.Random)
        if self.low is None or self.high is None:
            return self
        if self.integer:
            return replace(self, value=rng.randint(math.ceil(self.low), math.floor(self.high)))
        return replace(self, value=rng.uniform(self.low, self.high))


@dataclass(frozen=True)
class Answer:
    """One answer: its value (glued as it is), its unit, and how close a reader's answer must be.

    A numeric answer is correct within ``rel_tol`` (relative) or ``abs_tol`` (absolute), whichever
    is looser; a text answer (``"memory"``) must match exactly, ignoring case and spaces.
    """
    value: Any
    unit: str = ""
    rel_tol: float = 0.01
    abs_tol: float = 0.0

    def __post_init__(self) -> None:
        _check.fields(self)
        if self.rel_tol < 0 or self.abs_tol < 0:
            raise ValueError(f"tolerances must be 0 or more, got rel_tol={self.rel_tol}, abs_tol={self.abs_tol}")

    @property
    def numeric(self) -> bool:
        """True when the value is a number (a numpy scalar counts) rather than text. A NaN or an
        infinity is a number too (a drawn variant's impossible answer, which no reading matches),
        not the text "nan"."""
        if isinstance(self.value, (str, bool)):
            return False
        try:
            float(self.value)
        except OverflowError:
            return True
        except (TypeError, ValueError):
            return False
        return True

    def check(self, given: Any) -> bool:
        """Is ``given`` right, within the tolerances? A number beyond any float is not.

        >>> Answer(4.77).check(4.8), Answer(4.77).check(10**400), Answer("memory").check(" Memory ")
        (True, False, True)
        >>> Answer(float("nan")).check("nan"), Answer(float("nan")).numeric
        (False, True)
        """
        if not self.numeric:
            return str(given).strip().lower() == str(self.value).strip().lower()
        if isinstance(given, bool) or not _is_number(given) or not _is_number(self.value):
            return False
        return math.isclose(float(given), float(self.value), rel_tol=self.rel_tol, abs_tol=self.abs_tol)


@dataclass(frozen=True)
class Grade:
    """The result of :meth:`Exercise.grade`: right or not, and what was expected."""
    name: str
    given: Any
    expected: Answer
    correct: bool

    def __post_init__(self) -> None:
        _check.fields(self)
        _given(self.given)


def _given(given: Any) -> None:
    """A reader's answer: text, or a number that is finite (a NaN is no answer to grade)."""
    if isinstance(given, Real) and not isinstance(given, bool):
        _check.number("given", given, "(the reader's answer)")


def _is_number(x: Any) -> bool:
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError, OverflowError):      # 10**400: a number, but not a finite float
        return False


def _as_param(x: "Param | Number") -> Param:
    return x if isinstance(x, Param) else Param(x)


def _as_answer(x: Any) -> Answer:
    return x if isinstance(x, Answer) else Answer(x)


@dataclass(frozen=True)
class Exercise:
    """A question's parameters and the function that answers it.

    ``key`` names the exercise (``"ch3_ex1"``); ``prefix`` is what its glue keys start with
    (defaults to ``key``; chapters whose exercises share a prefix, ``"ov_ex"``, give it).
    ``params`` maps each name to a :class:`Param` or a plain number; ``solve`` takes the
    parameters' values as keyword arguments and returns ``{answer name: Answer or value}``.
    A parameter and an answer may not share a name (each is one glue key).
    """
    key: str
    params: Mapping[str, "Param | Number"]
    solve: Callable[..., Mapping[str, Any]] = field(compare=False)
    prefix: str | None = None

    def __post_init__(self) -> None:
        _check.fields(self)
        if not self.key.isidentifier():
            raise ValueError(f"an exercise key must be a Python identifier such as 'ch3_ex1', got {self.key!r}")
        object.__setattr__(self, "params", {n: _as_param(p) for n, p in self.params.items()})

    @property
    def glue_prefix(self) -> str:
        """What every glue key of this exercise starts with."""
        return self.prefix or self.key

    def parameters(self) -> dict[str, Param]:
        """Every parameter as a :class:`Param`."""
        return {n: _as_param(p) for n, p in self.params.items()}

    def values(self) -> dict[str, Number]:
        """The parameters' values, as ``solve`` receives them."""
        return {n: p.value for n, p in self.parameters().items()}

    def answers(self) -> dict[str, Answer]:
        """Every answer, computed from the parameters."""
        out = {n: _as_answer(a) for n, a in self.solve(**self.values()).items()}
        clash = sorted(set(out) & set(self.params))
        if clash:
            raise ValueError(f"exercise {self.key}: {', '.join(clash)} is both a parameter and an answer")
        return out

    def glued(self) -> dict[str, Any]:
        """``{glue key: value}`` of every parameter, then every answer."""
        p = self.glue_prefix
        return ({f"{p}_{n}": q.shown for n, q in self.parameters().items()}
                | {f"{p}_{n}": a.value for n, a in self.answers().items()})

    def answer_key(self) -> dict[str, dict[str, Any]]:
        """Every answer as plain data (``{name: {"value", "unit", "rel_tol", "abs_tol"}}``, in the
        order ``solve`` returns them): what the live chapter's answer boxes grade against, where the
        chapter's own code, which computed them, does not run (``infra_lib.widgets.exercise_check``).

        >>> Exercise("ch3_ex1", {"a": 2}, solve=lambda a: {"t": Answer(a * 3, "ms"), "b": "memory"}).answer_key()
        {'t': {'value': 6, 'unit': 'ms', 'rel_tol': 0.01, 'abs_tol': 0.0}, 'b': {'value': 'memory', 'unit': '', 'rel_tol': 0.01, 'abs_tol': 0.0}}
        """
        out = {}
        for name, a in self.answers().items():
            if a.numeric:
                value: Any = int(a.value) if isinstance(a.value, int) or type(a.value).__name__.startswith("int") \
                    else float(a.value)
                if not math.isfinite(value):
                    raise ValueError(f"exercise {self.key}: answer {name!r} is {value!r}, not a number a reader can give")
            else:
                value = str(a.value)
            out[name] = {"value": value, "unit": a.unit, "rel_tol": float(a.rel_tol), "abs_tol": float(a.abs_tol)}
        return out

    @property
    def answer_key_name(self) -> str:
        """The glue key of :meth:`answer_key` (``<key>_answer_key``)."""
        return f"{self.key}{ANSWER_KEY_SUFFIX}"

    def glue(self, glue_fn: Callable[..., Any] | None = None) -> dict[str, Any]:
        """Glue every parameter and answer (``display=False``), then the :meth:`answer_key` as JSON
        text under :attr:`answer_key_name`; returns the parameters and answers glued.

        ``glue_fn`` defaults to :func:`infra_lib.glue.glue` (myst-nb's glue when installed).
        """
        if glue_fn is None:
            glue_fn = importlib.import_module("infra_lib.glue").glue   # myst-nb's glue when installed
        glued = self.glued()
        for name, value in glued.items():
            glue_fn(name, value, display=False)
        glue_fn(self.answer_key_name, json.dumps(self.answer_key(), ensure_ascii=False), display=False)
        return glued

    def variant(self, **values: Number) -> "Exercise":
        """The same exercise with some parameters given new values (units and ranges kept)."""
        unknown = sorted(set(values) - set(self.params))
        if unknown:
            raise KeyError(f"exercise {self.key} has no parameter {', '.join(unknown)}; "
                           f"it has: {', '.join(self.params)}")
        params = {n: replace(p, value=values[n]) if n in values else p for n, p in self.parameters().items()}
        return replace(self, params=params)

    def draw(self, rng: random.Random | int | None = None) -> "Exercise":
        """A new variant: every parameter with a range drawn inside it, the others kept.

        ``rng`` is a :class:`random.Random`, a whole-number seed, or None (a fresh seed); a
        float, a bool or a string is refused rather than silently hashed into a seed.
        """
        if not isinstance(rng, random.Random):
            if rng is not None and (isinstance(rng, bool) or not isinstance(rng, int)):
                raise TypeError(f"rng must be a random.Random, a whole-number seed or None, "
                                f"got {_check._show(rng)} ({type(rng).__name__})")
            rng = random.Random(rng)
        return replace(self, params={n: p.draw(rng) for n, p in self.parameters().items()})

    def grade(self, name: str, given: Any) -> Grade:
        """Grade a reader's answer ``given`` to the answer ``name``."""
        _check.text("name", name)
        _given(given)
        answers = self.answers()
        if name not in answers:
            raise KeyError(f"exercise {self.key} has no answer {name!r}; it has: {', '.join(answers)}")
        return Grade(name, given, answers[name], answers[name].check(given))


def glue_all(exercises: list[Exercise], glue_fn: Callable[..., Any] | None = None) -> dict[str, Any]:
    """Glue every exercise of a chapter; a glue key produced twice is an error."""
    glued: dict[str, Any] = {}
    for ex in exercises:
        mine = ex.glued()
        twice = sorted(set(mine) & set(glued))
        if twice:
            raise ValueError(f"exercise {ex.key} glues {', '.join(twice)}, already glued by another exercise")
        glued |= ex.glue(glue_fn)
    return glued


class Scenario:
    """A chapter's assumptions, bound once and read by name: the parameter record of a lecture.

    ``Scenario(context=1000, batch=64)`` at the top of a chapter replaces the 1000 and the 64
    typed wherever the chapter uses them; a figure, a glue call and a later cell then read
    ``scenario.context``, so the text and every computation cannot drift apart. Each value is a
    number (finite, not a bool), a string or a tuple of them, and keeps its type, so what is
    glued from ``scenario.batch`` is what the literal 64 glued. The record is frozen: no later
    cell can change what an earlier one computed with; :meth:`replace` makes another. Unlike an
    :class:`Exercise` it has no ranges and no answers: nothing is drawn from it or graded.

    >>> scenario = Scenario(context=1000, batch=64, torus=(4, 4, 2), device="h200_sxm")
    >>> scenario.batch, scenario.torus
    (64, (4, 4, 2))
    >>> scenario.replace(batch=128).batch, scenario.batch
    (128, 64)
    >>> scenario.batch = 128
    Traceback (most recent call last):
    ...
    AttributeError: a Scenario is frozen: batch stays 64; make another with .replace(batch=...)
    >>> scenario.batches
    Traceback (most recent call last):
    ...
    AttributeError: this scenario has no 'batches' (did you mean batch?); it has: context, batch, torus, device
    >>> Scenario(batch=True)
    Traceback (most recent call last):
    ...
    TypeError: batch must be a number, a string or a tuple of them, got True (bool)
    """
    __slots__ = ("_values",)
    _values: dict[str, Any]

    def __init__(self, **values: Any) -> None:
        for name, value in values.items():
            if not name.isidentifier() or name.startswith("_") or hasattr(Scenario, name):
                raise ValueError(f"a scenario value needs a name that is a Python identifier, not starting "
                                 f"with _ and not one of replace, as_dict; got {name!r}")
            _scenario_value(name, value)
        object.__setattr__(self, "_values", dict(values))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_values":    # copy and pickle look for these first
            raise AttributeError(name)
        if name not in self._values:
            raise AttributeError(f"this scenario has no {name!r}{_check.nearest(name, self._values)}; "
                                 f"it has: {', '.join(self._values)}")
        return self._values[name]

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._values:
            raise AttributeError(f"a Scenario is frozen: it takes no new value {name}; bind it in the Scenario(...) call")
        raise AttributeError(f"a Scenario is frozen: {name} stays {self._values[name]!r}; "
                             f"make another with .replace({name}=...)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Scenario is frozen: {name} cannot be deleted")

    def __repr__(self) -> str:
        return f"Scenario({', '.join(f'{k}={v!r}' for k, v in self._values.items())})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._values == other._values

    def __hash__(self) -> int:
        return hash(tuple(self._values.items()))

    def __reduce__(self) -> tuple[Any, tuple[()]]:
        return functools.partial(Scenario, **self._values), ()

    def as_dict(self) -> dict[str, Any]:
        """The values by name, in the order they were given (a copy)."""
        return dict(self._values)

    def replace(self, **changes: Any) -> "Scenario":
        """The same scenario with some values changed (a name it does not have is an error)."""
        unknown = [n for n in changes if n not in self._values]
        if unknown:
            raise AttributeError(f"this scenario has no {unknown[0]!r}{_check.nearest(unknown[0], self._values)}; "
                                 f"it has: {', '.join(self._values)}")
        return Scenario(**(self._values | changes))


def _scenario_value(name: str, value: Any) -> None:
    """A number (finite, not a bool), a string, or a tuple of them; anything else is an error."""
    if isinstance(value, str):
        return
    if isinstance(value, tuple):
        for i, item in enumerate(value):
            _scenario_value(f"{name}[{i}]", item)
        return
    if isinstance(value, bool) or not isinstance(value, Real):
        hint = " (a tuple, which cannot change, instead of a list)" if isinstance(value, list) else ""
        raise TypeError(f"{name} must be a number, a string or a tuple of them{hint}, "
                        f"got {value!r:.80} ({type(value).__name__})")
    _check.number(name, value, "(a scenario value)")
