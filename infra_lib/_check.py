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


#: Name endings that carry a unit of size, time, rate, money or area (CONTRIBUTING: units in
#: names): a record's field so named is a quantity, never negative. An ``int`` field is a count,
#: never negative either. A record declares exceptions and stricter fields as class attributes:
#: ``_signed = ("culprit",)`` (may be negative: an offset, an index with -1 for none, a fitted
#: intercept), ``_non_negative = ("logic",)`` (a quantity whose name carries no unit) and
#: ``_positive = ("die_area_mm2",)`` (must be above 0: a property divides by it).
QUANTITY_SUFFIXES = ("_B", "Bps", "_s", "_hz", "_usd", "_mm2", "_W", "flops", "_tokens", "_per_cm2",
                     "_per_flop", "fraction", "_fraction_64", "yield", "factor", "cycles", "intensity", "dies")


def _sign_rule(cls: type, name: str, hint: object) -> str | None:
    """'positive', 'non_negative' or None (any sign) for field ``name`` of record ``cls``."""
    if name in getattr(cls, "_positive", ()):
        return "positive"
    if name in getattr(cls, "_signed", ()):
        return None
    if name in getattr(cls, "_non_negative", ()):
        return "non_negative"
    leaves = _leaf_hints(hint)
    if leaves and all(h is int for h in leaves):
        return "non_negative"
    if float in leaves and name.endswith(QUANTITY_SUFFIXES):
        return "non_negative"
    return None


def _leaf_hints(hint: object) -> list[object]:
    """The number types inside a hint: ``tuple[int, ...]`` -> [int]; ``float | None`` -> [float]."""
    if hint in (int, float):
        return [hint]
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType, tuple, list) or (
            isinstance(origin, type) and issubclass(origin, Sequence)):
        return [h for a in typing.get_args(hint) if a is not Ellipsis for h in _leaf_hints(a)]
    return []


def _problem(value: object, hint: object, where: str) -> tuple[str, type[Exception]] | None:
    """Why ``value`` does not fit ``hint`` (with ``where`` it sits), or None when it fits or the
    hint is too complex to say: a number finite and not a bool, an ``int`` whole, a string a
    string, the elements of a tuple, list or mapping each of their hint."""
    if hint is Any or hint is object:
        return None
    if hint is None or hint is type(None):
        return None if value is None else (f"{where} must be None, got {_show(value)}", TypeError)
    if hint is bool:
        return None if isinstance(value, bool) else (
            f"{where} must be True or False, got {_show(value)} ({type(value).__name__})", TypeError)
    if hint in (int, float):
        if isinstance(value, bool) or not isinstance(value, Real):
            word = "a whole number" if hint is int else "a number"
            return f"{where} must be {word}, got {_show(value)} ({type(value).__name__})", TypeError
        try:
            f = float(value)
        except OverflowError:
            return f"{where} must be a finite number, got {_show(value)}", ValueError
        if not math.isfinite(f):
            return f"{where} must be a finite number, got {_show(value)}", ValueError
        if hint is int and f != math.floor(f):
            return f"{where} must be a whole number, got {_show(value)}", ValueError
        return None
    if hint is str:
        return None if isinstance(value, str) else (
            f"{where} must be a string, got {_show(value)} ({type(value).__name__})", TypeError)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        problems = [_problem(value, a, where) for a in args]
        if any(p is None for p in problems):
            return None
        numbers = [p for a, p in zip(args, problems) if a in (int, float)]
        if numbers and isinstance(value, Real) and not isinstance(value, bool):
            return numbers[-1]                  # a number of the wrong kind: say what is wrong with it
        return f"{where} must be {_describe(hint)}, got {_show(value)} ({type(value).__name__})", TypeError
    if origin is tuple:
        if not isinstance(value, tuple):
            return f"{where} must be a tuple, got {_show(value)} ({type(value).__name__})", TypeError
        if len(args) == 2 and args[1] is Ellipsis:
            inner: Sequence[object] = [args[0]] * len(value)
        elif args and args != ((),):
            if len(value) != len(args):
                return f"{where} must have {len(args)} items, got {len(value)}", ValueError
            inner = args
        else:
            return None
        for i, (v, h) in enumerate(zip(value, inner)):
            p = _problem(v, h, f"{where}[{i}]")
            if p:
                return p
        return None
    if isinstance(origin, type):                # list[float], Mapping[str, Spec], dict[str, int]...
        if not isinstance(value, origin):
            return f"{where} must be a {origin.__name__}, got {_show(value)} ({type(value).__name__})", TypeError
        if issubclass(origin, Mapping) and len(args) == 2:
            # a mapping that records what is read (the registry's specs) offers its items quietly
            quiet = getattr(value, "_quiet_items", None)
            for k, v in (quiet() if quiet is not None else value.items()):   # type: ignore[attr-defined]
                p = _problem(k, args[0], f"{where} key {_show(k)}") or _problem(v, args[1], f"{where}[{k!r}]")
                if p:
                    return p
        elif issubclass(origin, (list, tuple, Sequence)) and len(args) == 1 and not isinstance(value, str):
            for i, v in enumerate(typing.cast(Iterable[object], value)):
                p = _problem(v, args[0], f"{where}[{i}]")
                if p:
                    return p
        return None
    if isinstance(hint, type) and origin is None:
        return None if isinstance(value, hint) else (
            f"{where} must be {_describe(hint)}, got {_show(value)} ({type(value).__name__})", TypeError)
    return None


def _numbers_in(value: object, where: str) -> Iterable[tuple[str, float]]:
    if isinstance(value, bool):
        return
    if isinstance(value, Real):
        yield where, float(value)
    elif isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            yield from _numbers_in(v, f"{where}[{i}]")


def fields(obj: object) -> None:
    """Check every field of a dataclass against its type hint, for ``__post_init__``: numbers
    finite and not bools, an ``int`` a whole number, strings strings, flags True or False,
    library objects of their class, and the items of a tuple, list or mapping each of theirs.
    Signs by the library's convention: a count (``int``) or a quantity whose name carries a
    unit (``_B``, ``_s``, ``_Bps``... :data:`QUANTITY_SUFFIXES`) is never negative, unless the
    class lists the field in ``_signed``; a field in ``_positive`` must be above 0.

    >>> import dataclasses
    >>> @dataclasses.dataclass(frozen=True)
    ... class Shelf:
    ...     _positive = ("width_mm2",)
    ...     books: int
    ...     width_mm2: float
    ...     titles: tuple[str, ...] = ()
    ...     def __post_init__(self) -> None:
    ...         fields(self)
    >>> Shelf(3, 2.0).books
    3
    >>> Shelf(2.5, 2.0)
    Traceback (most recent call last):
    ...
    ValueError: books must be a whole number, got 2.5
    >>> Shelf(3, 0.0)
    Traceback (most recent call last):
    ...
    ValueError: width_mm2 must be greater than 0, got 0.0
    >>> Shelf(3, 1.0, ("a", float("nan")))
    Traceback (most recent call last):
    ...
    TypeError: titles[1] must be a string, got nan (float)
    """
    cls: Any = type(obj)
    for name, hint in _field_hints(cls):
        value = getattr(obj, name)
        where = name
        problem = _problem(value, hint, where)
        if problem:
            message, error = problem
            raise error(message)
        rule = _sign_rule(cls, name, hint)
        if rule:
            for at, number in _numbers_in(value, where):
                if number < 0 or (rule == "positive" and number == 0):
                    limit = "greater than 0" if rule == "positive" else "0 or more"
                    raise ValueError(f"{at} must be {limit}, got {_show(value if at == where else number)}")
    _properties_finite(obj, cls)


@functools.lru_cache(maxsize=None)
def _property_names(cls: type) -> tuple[str, ...]:
    return tuple(a for a, m in inspect.getmembers(cls, lambda m: isinstance(m, property))
                 if not a.startswith("_") and a not in getattr(cls, "_may_be_infinite", ()))


def _properties_finite(obj: object, cls: type) -> None:
    """Every public property of a record computes to finite numbers: fields that pass one by one
    but together divide by zero or overflow (a 5e-324 s time, a 1e308 count) are refused here,
    naming the property and the fields, rather than when a chapter reads the property. A property
    that refuses by itself (a ValueError or TypeError when read) is left to say so then; a class
    lists a property whose answer may be infinite in ``_may_be_infinite``."""
    for attr in _property_names(cls):
        try:
            value = getattr(obj, attr)
        except Exception:       # a ZeroDivisionError too: the class's own checks, after fields(), say more
            continue
        where = _non_finite(value)
        if where:
            raise ValueError(f"{attr} is not finite ({where}) for these fields: {_fields_shown(obj)}; "
                             f"they are outside the range the record's formulas can compute")


def _fields_shown(obj: object) -> str:
    return ", ".join(f"{f.name}={_show(getattr(obj, f.name))}" for f in dataclasses.fields(obj)  # type: ignore[arg-type]
                     if isinstance(getattr(obj, f.name), Real) and not isinstance(getattr(obj, f.name), bool))


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
