"""Input validation shared by every public function.

Each checker returns the value as a float (or int) or raises an error that names the
parameter, the value it got and the unit it expected, so a reader who passes the wrong
thing sees what to change instead of a traceback from deep inside numpy.
"""
import math
from collections.abc import Sequence
from numbers import Real


def _number(name: str, value: object, unit: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number in {unit}, got {value!r} ({type(value).__name__})")
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"{name} must be a finite number in {unit}, got {value}")
    return value


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
    if value not in options:
        listed = ", ".join(repr(o) for o in options)
        raise ValueError(f"{name} must be one of {listed}, got {value!r}")
    return value
