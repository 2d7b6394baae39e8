"""The review chapter's question bank: interview questions and self-checks over the whole course.

Each :class:`Question` has an id (the same in both editions), the chapter and section label it
tests, its text, hint and worked solution in English and Chinese, and either an
:class:`infra_lib.exercises.Exercise` (a numeric question: parameters with the ranges new variants
are drawn from, and a solve function that calls the library) or multiple-choice options with the
index of the right one. Texts are templates: ``{name:fmt}`` is a parameter (as the question shows
it) or an answer of the exercise; the chapter turns each into a glue role, the quiz widget fills
it in with a drawn variant's values.

The machinery is :mod:`.core`. Every other module of this package is one chapter's bank: ``FILE``
names the chapter file it tests (its stem in ``_toc.yml``, ``"04_generations"``), ``KEY`` is the
chapter's key in its question ids (``"ch4"``: ``rv_ch4_q1``), and ``questions()`` builds them. A
new chapter's questions go in a new module; nothing here lists the modules.

Importing the package reads nothing from the registry: the bank is built on first use
(:func:`questions`, :func:`by_id`, :func:`chapter_questions`, :func:`exercises`) and kept, so a page
that calls ``sources.reset()`` first lists the bank's registry reads in its Sources.

>>> q = by_id("rv_ov_q1")
>>> q.exercise.grade(q.answer, q.exercise.answers()[q.answer].value).correct
True
>>> len({q.id for q in questions()}) == len(questions()) >= 60
True
"""
import importlib
import pkgutil
from functools import cache
from types import ModuleType

from .. import _check
from ..exercises import Exercise
from .core import FIELD, Question, fill, glue_roles, values_of

__all__ = ["FIELD", "Question", "by_id", "chapter_files", "chapter_questions", "chapters", "exercises", "fill",
           "glue_roles", "questions", "values_of"]


@cache
def _banks() -> tuple[ModuleType, ...]:
    """The bank modules (every module of the package but core), in the order of the files they test."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        if info.name == "core" or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for attr in ("FILE", "KEY"):
            _check.text(f"{module.__name__}.{attr}", getattr(module, attr, None))
        if not callable(getattr(module, "questions", None)):
            raise TypeError(f"{module.__name__} has no questions() function: every module of {__name__} but core "
                            "is a chapter's bank")
        found.append(module)
    for attr in ("FILE", "KEY"):
        values = [getattr(m, attr) for m in found]
        if len(set(values)) != len(values):
            raise ValueError(f"two bank modules have the same {attr}: {sorted(values)}")
    return tuple(sorted(found, key=lambda m: str(m.FILE)))


def chapters() -> tuple[str, ...]:
    """The keys of the chapters the bank tests ("ov", "ch1", ...), in the order of their files."""
    return tuple(str(m.KEY) for m in _banks())


def chapter_files() -> dict[str, str]:
    """The file each chapter key names (its stem in ``_toc.yml``: "ch4" -> "04_generations")."""
    return {str(m.KEY): str(m.FILE) for m in _banks()}


@cache
def _by_chapter() -> dict[str, tuple[Question, ...]]:
    out = {}
    for m in _banks():
        qs = tuple(m.questions())
        wrong = [q.id for q in qs if q.chapter != m.KEY]
        if wrong:
            raise ValueError(f"{m.__name__} (KEY {m.KEY!r}) builds questions of other chapters: {wrong}")
        out[str(m.KEY)] = qs
    return out


def questions() -> tuple[Question, ...]:
    """Every question, chapter by chapter (built, and reading the registry, on the first call)."""
    return tuple(q for qs in _by_chapter().values() for q in qs)


@cache
def _by_id() -> dict[str, Question]:
    found = {q.id: q for q in questions()}
    if len(found) != len(questions()):
        ids = [q.id for q in questions()]
        raise ValueError(f"question ids used twice: {sorted({i for i in ids if ids.count(i) > 1})}")
    return found


def by_id(qid: str) -> Question:
    """The question with id ``qid`` (a KeyError suggesting the nearest otherwise)."""
    return _check.lookup("qid", qid, _by_id(), "review question")


def chapter_questions(chapter: str) -> tuple[Question, ...]:
    """The questions that test ``chapter`` (a key of :func:`chapters`: "ov", "ch1", ..., "ch9")."""
    chapter = _check.choice("chapter", chapter, chapters())
    return _by_chapter()[chapter]


def exercises() -> list[Exercise]:
    """Every numeric question's exercise, for the chapter's ``glue_all``."""
    return [q.exercise for q in questions() if q.exercise is not None]
