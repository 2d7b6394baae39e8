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
    digits = _check.count("digits", digits, "significant digits")
    exp = math.floor(math.log10(x))
    if exp < -300:      # 10**exp underflows toward 0 in float: let Python's own formatting round
        mant_text, exp_text = f"{x:.{digits - 1}e}".split("e")
        mant, exp = float(mant_text), int(exp_text)
    else:
        mant = round(x / 10**exp, digits - 1)
    if mant >= 10:
        mant, exp = mant / 10, exp + 1
    text = f"{mant:.{digits - 1}f}".rstrip("0").rstrip(".")
    return f"{text} × 10{str(exp).translate(_SUP)}"


# Scale words: Chinese counts in 万 (10⁴) and 亿 (10⁸), English in thousand/million/billion/trillion.
_ZH_UNITS = ((1e12, "万亿"), (1e8, "亿"), (1e4, "万"))
_EN_UNITS = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"))


def _round_sig(x: float, digits: int) -> float:
    return round(x, digits - 1 - math.floor(math.log10(x))) if x else 0.0


def _mantissa(m: float, digits: int, group: str = "") -> str:
    """``m`` with ``digits`` significant digits, but never rounding its whole part; trailing zeros
    dropped; ``group`` is the thousands separator ("," or none)."""
    decimals = max(0, digits - 1 - math.floor(math.log10(m))) if m else 0
    text = f"{m:{group}.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def count(x: float, lang: str, digits: int = 3) -> str:
    """A count in words of scale for prose: '2080 亿' in Chinese, '208 billion' in English.

    Chinese groups by 万 (10⁴) and 亿 (10⁸), never 千/百万/十亿; below 10⁴ the number is written
    out, up to 9,999 exactly. ``digits`` significant digits (trailing zeros dropped); below a scale
    word, a number of 10,000 or more is rounded to them (211,273 -> '211,000').

    >>> count(2.08e11, "zh"), count(2.08e11, "en")
    ('2080 亿', '208 billion')
    >>> count(1.25e7, "zh"), count(1.25e7, "en")
    ('1250 万', '12.5 million')
    >>> count(1.49e5, "zh"), count(1.49e5, "en")
    ('14.9 万', '149,000')
    >>> count(9999, "zh")
    '9,999'
    """
    x = _check.non_negative("x", x, "(a count)")
    lang = _check.choice("lang", lang, ("en", "zh"))
    digits = _check.count("digits", digits, "significant digits")
    units = _ZH_UNITS if lang == "zh" else _EN_UNITS
    if x < 1e4:
        return _mantissa(x, digits, ",")
    rounded = _round_sig(x, digits)
    for scale, word in units:
        if rounded >= scale:
            return f"{_mantissa(rounded / scale, digits)} {word}"
    return _mantissa(rounded, digits, ",")      # English below a million: 211,000
