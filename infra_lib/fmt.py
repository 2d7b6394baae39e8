"""Numbers formatted for prose: what the chapters glue into their text.

>>> sci(3.2e13)
'3.2 × 10¹³'
>>> sci(8e9)
'8 × 10⁹'
"""
import math

from . import _check

_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sci(x: float, digits: int = 2) -> str:
    """``x`` as 'm × 10ⁿ' with at most ``digits`` significant digits (trailing zeros dropped)."""
    x = _check.positive("x", x, "(any positive number)")
    exp = math.floor(math.log10(x))
    mant = round(x / 10**exp, digits - 1)
    if mant >= 10:
        mant, exp = mant / 10, exp + 1
    text = f"{mant:.{digits - 1}f}".rstrip("0").rstrip(".")
    return f"{text} × 10{str(exp).translate(_SUP)}"
