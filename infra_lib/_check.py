"""Input validation shared by every public function.

Each checker returns the value as a float (or int) or raises an error that names the
parameter, the value it got and the unit it expected, so a reader who passes the wrong
thing sees what to change instead of a traceback from deep inside numpy.
"""
import dataclasses
import difflib
import functools
import inspect
import math
import re
import types
import typing
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from numbers import Real
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


def _number(name: str, value: object, unit: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number in {unit}, got {_show(value)} ({type(value).__name__})")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a finite number in {unit}, got an integer too large "
                         f"for a float ({_show(value)})") from None
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"{name} must be a finite number in {unit}, got {value}")
    return value


def number(name: str, value: object, unit: str) -> float:
    """Any finite number (not a bool), as a float."""
    return _number(name, value, unit)


def positive(name: str, value: object, unit: str) -> float:
    """A finite number > 0."""
    value = _number(name, value, unit)
    if value <= 0:
        raise ValueError(f"{name} must be greater than 0 {unit}, got {value:g}")
    return value


def non_negative(name: str, value: object, unit: str) -> float:
    """A finite number >= 0."""
    value = _number(name, value, unit)
    if value < 0:
        raise ValueError(f"{name} must be 0 or more {unit}, got {value:g}")
    return value


def fraction(name: str, value: object) -> float:
    """An efficiency or share: 0 < value <= 1."""
    value = _number(name, value, "(a fraction between 0 and 1)")
    if not 0 < value <= 1:
        raise ValueError(f"{name} must be a fraction in (0, 1], e.g. 0.7 for 70%, got {value:g}")
    return value


def share(name: str, value: object, what: str = "a fraction between 0 and 1", below_one: bool = False) -> float:
    """A share that may be 0: 0 <= value <= 1, or 0 <= value < 1 with ``below_one`` (a share kept
    back, where all of it would leave nothing). ``what`` says what the share is of.

    >>> share("alpha", 0.5, "the share of the range moved")
    0.5
    >>> share("overhead_fraction", 1, "a share of each GPU's memory kept back", below_one=True)
    Traceback (most recent call last):
    ...
    ValueError: overhead_fraction must be at least 0 and below 1 (a share of each GPU's memory kept back), got 1
    """
    value = _number(name, value, f"{'[0, 1)' if below_one else '[0, 1]'} ({what})")
    if value < 0 or value > 1 or (below_one and value == 1):
        upper = "below 1" if below_one else "at most 1"
        raise ValueError(f"{name} must be at least 0 and {upper} ({what}), got {value:g}")
    return value


def count(name: str, value: object, unit: str = "", minimum: int = 1) -> int:
    """A whole number >= minimum (ints, or floats with no fractional part)."""
    what = f"a whole number of {unit}".strip() if unit else "a whole number"
    value = _number(name, value, what)
    if value != int(value):
        raise ValueError(f"{name} must be {what}, got {value:g}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value:g}")
    return int(value)


def choice(name: str, value: str, options: Sequence[str]) -> str:
    """One of a fixed set of strings."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {', '.join(repr(o) for o in options)}; "
                        f"got {_show(value)} ({type(value).__name__})")
    if value not in options:
        listed = ", ".join(repr(o) for o in options)
        raise UnknownChoice(f"{name} must be one of {listed}, got {value!r}{nearest(value, options)}")
    return value


def _show(value: object) -> str:
    """repr() of a value, shortened (a 400-digit integer is not worth printing in full)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def nearest(name: object, known: Iterable[str]) -> str:
    """' (did you mean a, b?)' or '' — the closest known names by difflib."""
    close = difflib.get_close_matches(str(name), list(known), n=3, cutoff=0.6)
    return f" (did you mean {', '.join(close)}?)" if close else ""


class UnknownName(KeyError):
    """A name (model, format, run, label...) that is not one of the known ones."""

    def __str__(self) -> str:          # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


class UnknownChoice(UnknownName, ValueError):
    """A string that is not one of a fixed set of options (a yield model, a collective, a
    language): a KeyError like every unknown name, and a ValueError like every bad value."""


def text(name: str, value: object) -> str:
    """A string (a name, a key, a language code)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {_show(value)} ({type(value).__name__})")
    return value


def lookup(name: str, value: object, known: Mapping[str, T], what: str) -> T:
    """``known[value]``, or a KeyError that names ``what`` and suggests the nearest keys."""
    key = text(name, value)
    if key not in known:
        raise UnknownName(f"{name}: unknown {what} {key!r}{nearest(key, known)}; "
                          f"known: {', '.join(sorted(known))}")
    return known[key]


def instance(name: str, value: object, cls: type[T] | tuple[type, ...]) -> T:
    """An object of class ``cls`` (a product, a supply, a link, a format, a request...)."""
    if not isinstance(value, cls):
        wanted = (" or ".join(c.__name__ for c in cls) if isinstance(cls, tuple) else cls.__name__)
        raise TypeError(f"{name} must be a {wanted}, got {_show(value)} ({type(value).__name__})")
    return value  # type: ignore[return-value]


def flag(name: str, value: object) -> bool:
    """True or False (not 1, 0 or 'yes')."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {_show(value)} ({type(value).__name__})")
    return value


def _non_finite(value: object, path: str = "") -> str | None:
    """Where in ``value`` (a number, a dataclass, a list, a dict) a NaN or infinity sits, or None."""
    if isinstance(value, bool) or isinstance(value, str) or value is None:
        return None
    if isinstance(value, Real):
        try:
            f = float(value)
        except OverflowError:
            return path or "the result"
        return None if math.isfinite(f) else (path or "the result")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for fld in dataclasses.fields(value):
            where = _non_finite(getattr(value, fld.name), f"{path}.{fld.name}" if path else fld.name)
            if where:
                return where
        return None
    if isinstance(value, Mapping):
        for k, v in value.items():
            where = _non_finite(v, f"{path}[{k!r}]")
            if where:
                return where
        return None
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            where = _non_finite(v, f"{path}[{i}]")
            if where:
                return where
        return None
    if hasattr(value, "dtype") and hasattr(value, "shape"):      # a numpy array, without numpy
        import numpy as np
        ok = bool(np.all(np.isfinite(np.asarray(value, dtype=float))))
        return None if ok else (path or "the result")
    return None


def finite_result(name: str, value: R) -> R:
    """``value`` unless it is (or holds) a NaN or an infinity: then a ValueError naming ``name``."""
    where = _non_finite(value)
    if where:
        raise ValueError(f"{name} is not a finite number ({where}): the inputs are outside the range "
                         f"this formula can compute (overflow to infinity or 0/0)")
    return value


def finite(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorator for a library function: checks its object parameters and its result.

    - a parameter whose type hint is a library class (a ``Product``, a ``MiniFloat``, a
      ``Link``...) must get one (a TypeError naming the parameter otherwise), and a parameter
      hinted as a sequence or iterable must get one (not a number, a string or None);
    - an overflow from finite inputs (an OverflowError inside, or an infinity or NaN returned)
      becomes a ValueError that names the function and the arguments it was given;
    - a ValueError or TypeError from inside that names none of the parameters gets the call
      appended, so the reader sees which inputs led to it.
    """
    sig = inspect.signature(fn)
    names = list(sig.parameters)
    hints: list[dict[str, object]] = []

    def _args(bound: inspect.BoundArguments | None) -> str:
        if bound is None:
            return ""
        return ", ".join(f"{k}={_show(v)}" for k, v in bound.arguments.items())

    def _check_objects(bound: inspect.BoundArguments) -> None:
        if not hints:
            try:
                hints.append(typing.get_type_hints(fn))
            except Exception:           # pragma: no cover - an unresolvable hint: no checks
                hints.append({})
        for name, value in bound.arguments.items():
            _check_argument(name, value, hints[0].get(name))

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            bound: inspect.BoundArguments | None = sig.bind(*args, **kwargs)
        except TypeError:
            bound = None                # let the call itself say what is missing
        if bound is not None:
            _check_objects(bound)
        try:
            result = fn(*args, **kwargs)
        except OverflowError:
            raise ValueError(f"{fn.__name__}({_args(bound)}): the result is too large for a "
                             f"float; reduce the largest of these inputs") from None
        except (ValueError, TypeError) as err:
            if type(err) in (ValueError, TypeError) and not _names_any(str(err), names):
                raise type(err)(f"{err} [in {fn.__name__}({_args(bound)})]") from err
            raise
        where = _non_finite(result)
        if where:
            raise ValueError(f"{fn.__name__}({_args(bound)}) is not finite ({where}): the "
                             f"inputs are outside the range this formula can compute")
        return result
    return wrapper


def _names_any(message: str, names: Sequence[str]) -> bool:
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", message) for n in names)


def _library_classes(hint: object) -> tuple[type, ...]:
    if isinstance(hint, type) and hint.__module__.startswith("infra_lib"):
        return (hint,)
    if typing.get_origin(hint) is None:
        return ()
    return tuple(c for a in typing.get_args(hint) for c in _library_classes(a))


def _check_argument(name: str, value: object, hint: object) -> None:
    """The type checks :func:`finite` makes from a parameter's hint (objects and sequences)."""
    if hint is None:
        return
    origin = typing.get_origin(hint)
    options = typing.get_args(hint) if origin in (typing.Union, types.UnionType) else (hint,)
    if value is None and type(None) in options:
        return
    if all(o in (bool, type(None)) for o in options):      # a flag: True or False, not 1 or 'yes'
        flag(name, value)
        return
    for option in options:
        o = typing.get_origin(option)
        if o in (list, tuple, Sequence, Iterable, Collection):
            if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
                raise TypeError(f"{name} must be a sequence (a list or a tuple), got {_show(value)} "
                                f"({type(value).__name__})")
            inner = _library_classes(option)
            if inner and isinstance(value, (list, tuple)):
                for i, item in enumerate(value):
                    instance(f"{name}[{i}]", item, inner)
            return
    classes = tuple(c for option in options if isinstance(option, type)
                    and option.__module__.startswith("infra_lib") for c in (option,))
    if classes and len(classes) == len([o for o in options if o is not type(None)]):
        instance(name, value, classes if len(classes) > 1 else classes[0])


@functools.lru_cache(maxsize=None)
def _field_hints(cls: type) -> tuple[tuple[str, object], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((f.name, hints.get(f.name, Any)) for f in dataclasses.fields(cls))


def _matches(value: object, hint: object) -> bool | None:
    """Whether ``value`` fits a simple type hint; None when the hint is too complex to say."""
    if hint is Any or hint is object:
        return True
    if hint is None or hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint in (int, float):
        if isinstance(value, bool) or not isinstance(value, Real):
            return False
        try:
            return math.isfinite(float(value))
        except OverflowError:
            return False
    if hint is str:
        return isinstance(value, str)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        answers = [_matches(value, a) for a in typing.get_args(hint)]
        return True if any(answers) else (None if None in answers else False)
    if origin is tuple:
        return isinstance(value, tuple)
    if isinstance(origin, type):            # Mapping[str, Spec], list[float]...: the container
        return isinstance(value, origin)
    if isinstance(hint, type) and origin is None:
        return isinstance(value, hint)
    return None


def fields(obj: object) -> None:
    """Check every field of a dataclass against its type hint: numbers finite and not bools,
    strings strings, flags True or False, library objects of their class. For __post_init__."""
    cls: Any = type(obj)
    for name, hint in _field_hints(cls):
        value = getattr(obj, name)
        if _matches(value, hint) is False:
            wanted = _describe(hint)
            if "a number" in wanted and isinstance(value, Real) and not isinstance(value, bool):
                raise ValueError(f"{name} must be a finite number, got {_show(value)}")
            raise TypeError(f"{name} must be {wanted}, got {_show(value)} ({type(value).__name__})")


def _describe(hint: object) -> str:
    """'a number', 'a string or None', 'a Source'... for a message."""
    words = {int: "a number", float: "a number", str: "a string", bool: "True or False",
             type(None): "None", None: "None"}
    parts: list[str] = []
    for h in typing.get_args(hint) if typing.get_args(hint) and typing.get_origin(hint) not in (tuple, list) else [hint]:
        word = words.get(h) if isinstance(h, type) or h is None else None
        word = word or f"a {getattr(h, '__name__', str(h))}"
        if word not in parts:
            parts.append(word)
    return " or ".join(parts)
