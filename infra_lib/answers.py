"""Read and grade an answer as a reader types it: a pure parser, no evaluation of code.

:func:`parse` turns what a reader typed ("64", "64 ms", "0.064 s", "6.4e-2 s", "64毫秒", "６４",
"1,024", "1 024", "2.6k tok/s", "2.6万", "25%") into a number and a unit. It only matches
regular expressions and calls ``float`` on a string the expression has already checked to be
digits: nothing the reader types is ever evaluated (no ``eval``, no symbolic parser).
:func:`grade` compares it with an :class:`infra_lib.exercises.Answer` within the answer's
tolerance and tells four outcomes apart: right, a wrong number, a wrong unit (a time given for a
bandwidth), and input that could not be read; every outcome carries a message in the page's
language. Neither function raises on any string.

>>> grade("64毫秒", Answer(64.0, "ms")).status
'right'
>>> grade("0.064 s", Answer(64.0, "ms")).correct
True
>>> grade("64 GB", Answer(64.0, "ms")).status
'wrong_unit'
>>> grade("__import__('os')", Answer(64.0, "ms"), "zh").status
'unreadable'
>>> parse("2.6k tok/s").value, parse("2.6万").value, parse("１,０２４").value
(2600.0, 26000.0, 1024.0)
"""
import math
import re
import unicodedata
from dataclasses import dataclass

from . import _check
from .exercises import Answer

MAX_LENGTH = 80          # characters; a longer input is refused before it is looked at
LANGUAGES = ("en", "zh")

# unit as typed -> (dimension, factor to the dimension's base unit)
_UNITS: dict[str, tuple[str, float]] = {}


def _add(dimension: str, factor: float, *names: str) -> None:
    for n in names:
        _UNITS[n.lower()] = (dimension, factor)


_add("time", 1.0, "s", "sec", "secs", "second", "seconds", "秒")
_add("time", 1e-3, "ms", "msec", "millisecond", "milliseconds", "毫秒")
_add("time", 1e-6, "us", "µs", "μs", "microsecond", "microseconds", "微秒")
_add("time", 1e-9, "ns", "nanosecond", "nanoseconds", "纳秒")
_add("time", 60.0, "min", "minute", "minutes", "分钟")
_add("time", 3600.0, "h", "hr", "hour", "hours", "小时")
_add("time", 86400.0, "day", "days", "d", "天")
for _p, _f in (("", 1.0), ("k", 1e3), ("m", 1e6), ("g", 1e9), ("t", 1e12), ("p", 1e15)):
    _add("bytes", _f, f"{_p}b", f"{_p}byte", f"{_p}bytes")
    _add("bandwidth", _f, f"{_p}b/s")
    _add("flop", _f, f"{_p}flop")
    _add("flop_rate", _f, f"{_p}flop/s", f"{_p}flops")
    _add("frequency", _f, f"{_p}hz")
    _add("power", _f, f"{_p}w")
for _p, _f in (("ki", 2.0**10), ("mi", 2.0**20), ("gi", 2.0**30), ("ti", 2.0**40)):
    _add("bytes", _f, f"{_p}b", f"{_p}byte")
    _add("bandwidth", _f, f"{_p}b/s")
_add("bytes", 1.0, "字节")
_add("bits", 1.0, "bit", "bits", "比特")
_add("bit_rate", 1e9, "gbit/s")
_add("bit_rate", 1e12, "tbit/s")
_add("frequency", 1.0, "赫兹")
_add("power", 1.0, "瓦")
_add("tokens", 1.0, "tok", "token", "tokens", "个token")
_add("token_rate", 1.0, "tok/s", "token/s", "tokens/s", "tokens per second")
_add("money", 1.0, "$", "usd", "dollar", "dollars", "美元")
_add("ratio", 1.0, "x", "×", "times", "倍")
_add("fraction", 0.01, "%", "percent", "pct")
del _p, _f

# the unit an exercise's Answer states -> the dimension and factor it is in
_ANSWER_UNITS: dict[str, tuple[str, float]] = {"fraction": ("fraction", 1.0), "×": ("ratio", 1.0),
                                               "tokens/s": ("token_rate", 1.0), "USD": ("money", 1.0)}
# magnitude words typed after a number: "2.6k", "3 million", "2.6万", "3亿"
_MAGNITUDES = {"k": 1e3, "K": 1e3, "thousand": 1e3, "M": 1e6, "million": 1e6, "billion": 1e9, "bn": 1e9,
               "千": 1e3, "万": 1e4, "萬": 1e4, "亿": 1e8, "億": 1e8, "百万": 1e6}
# words that say "how many" without a dimension: accepted for any count answer
_COUNT_WORDS = {"个", "块", "张", "颗", "片", "次", "台", "units", "pcs"}

_NUMBER = re.compile(r"""
    (?P<sign>[+-])?
    (?P<int>\d{1,3}(?:(?P<sep>[,\u0020_\u00a0\u2009\u202f'])\d{3})+(?!\d)|\d+)?
    (?P<frac>\.\d+)?
    (?:\s*(?:[eE](?P<exp>[+-]?\d{1,6})|[x×*·]\s*10\s*(?:\^|\*\*)\s*(?P<exp2>[+-]?\d{1,6})))?
    """, re.X)

_MESSAGES = {
    "right": {"en": "Right: {given} (expected {expected}, within {tol}).",
              "zh": "正确：{given}（答案 {expected}，允许误差 {tol}）。"},
    "wrong_number": {"en": "Not quite: {given} is not {expected} within {tol}.",
                     "zh": "不对：{given} 与答案相差超过 {tol}。"},
    "wrong_scale": {"en": "Off by a factor of {factor}: check the prefix of the unit (k, M, G; ms against s).",
                    "zh": "差了 {factor} 倍：检查单位的前缀（k、M、G，毫秒还是秒）。"},
    "wrong_unit": {"en": "Wrong unit: you gave {got}, but the answer is {want} (in {unit}).",
                   "zh": "单位不对：你给的是{got}，答案是{want}（单位 {unit}）。"},
    "empty": {"en": "Type a number first, for example 64 or 64 ms.",
              "zh": "请先输入一个数，比如 64 或 64 ms。"},
    "too_long": {"en": "That is too long to be an answer: type one number and, if you like, its unit.",
                 "zh": "输入太长了：只需输入一个数，可以带单位。"},
    "no_number": {"en": "Could not read a number in {text!r}: type digits, such as 64, 0.064 s or 6.4e-2 s.",
                  "zh": "没能从“{text}”里读出数字：请输入数字，比如 64、0.064 s 或 6.4e-2 s。"},
    "bad_separator": {"en": "Could not read {text!r}: use a point for decimals (1.5) and groups of three digits "
                            "for thousands (1,024).",
                      "zh": "没能读懂“{text}”：小数用小数点（1.5），千位分隔每组三位（1,024）。"},
    "unknown_unit": {"en": "Unknown unit {unit!r}: type the number alone, or with a unit such as {example}.",
                     "zh": "不认识的单位“{unit}”：只输入数字，或带上 {example} 这样的单位。"},
    "not_finite": {"en": "That number is too large (or too small) to be an answer.",
                   "zh": "这个数太大（或太小），不可能是答案。"},
    "choice_right": {"en": "Right: {expected}.", "zh": "正确：{expected}。"},
    "choice_wrong": {"en": "Not quite: that is not the answer.", "zh": "不对：这不是答案。"},
    "choice_unknown": {"en": "Choose one of: {options}.", "zh": "请从这些选项中选一个：{options}。"},
}
_DIMENSION_NAMES = {
    "time": ("a time", "时间"), "bytes": ("a size in bytes", "字节数"), "bandwidth": ("a bandwidth", "带宽"),
    "flop": ("a number of FLOP", "浮点运算次数"), "flop_rate": ("a FLOP rate", "算力"),
    "frequency": ("a frequency", "频率"), "power": ("a power", "功率"), "bits": ("a number of bits", "比特数"),
    "bit_rate": ("a bit rate", "比特率"), "tokens": ("a number of tokens", "token 数"),
    "token_rate": ("a token rate", "token 速率"), "money": ("an amount of money", "金额"),
    "ratio": ("a ratio", "倍数"), "fraction": ("a percentage", "百分比"), None: ("a plain number", "纯数字"),
    "count": ("a count", "个数"),
}


@dataclass(frozen=True)
class Parsed:
    """A reader's answer, read: the number (magnitude words applied), the unit as a key of the
    unit table (or the word typed, or ""), its dimension (None for no unit or a plain word) and
    its factor to the dimension's base unit."""
    value: float
    unit: str = ""
    dimension: str | None = None
    factor: float = 1.0

    def __post_init__(self) -> None:
        _check.fields(self)


@dataclass(frozen=True)
class ParseError:
    """Why an input could not be read: a key of the messages and the fields they name."""
    reason: str
    text: str = ""
    unit: str = ""

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.choice("reason", self.reason, tuple(_MESSAGES))


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`grade`: ``status`` is one of right, wrong_number, wrong_unit,
    unreadable; ``message`` says it in the page's language."""
    correct: bool
    status: str
    message: str

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.choice("status", self.status, ("right", "wrong_number", "wrong_unit", "unreadable"))


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)          # full-width digits, ％, ，: ASCII
    text = text.replace("\u2212", "-").replace("，", ",").replace("。", ".").replace("．", ".")
    return " ".join(text.split())


def _unit_key(word: str) -> str:
    w = word.strip().rstrip(".").strip()
    w = w.replace(" per second", "/s")
    w = re.sub(r"\s*/\s*", "/", w)
    return w


def parse(text: str) -> Parsed | ParseError:
    """Read ``text`` as a number with an optional magnitude word and unit; never raises on a string.

    >>> parse("1 024 ms")
    Parsed(value=1024.0, unit='ms', dimension='time', factor=0.001)
    >>> parse("6.4e-2 s").value
    0.064
    >>> parse("25%").dimension, parse("25%").value
    ('fraction', 25.0)
    >>> parse("1,5").reason
    'bad_separator'
    """
    text = _check.text("text", text)
    if len(text) > MAX_LENGTH:
        return ParseError("too_long")
    s = _normalise(text)
    if not s:
        return ParseError("empty")
    m = _NUMBER.match(s)
    if not m or not (m.group("int") or m.group("frac")):
        return ParseError("no_number", s)
    digits = re.sub(r"[,\u0020_\u00a0\u2009\u202f']", "", m.group("int") or "0") + (m.group("frac") or "")
    exp = m.group("exp") or m.group("exp2")
    rest = s[m.end():].strip()
    if rest and (rest[0].isdigit() or rest[0] in ",."):
        return ParseError("bad_separator", s)
    try:
        value = float(digits) * (10.0 ** int(exp) if exp else 1.0)
    except OverflowError:
        return ParseError("not_finite")
    if m.group("sign") == "-":
        value = -value
    if rest in _MAGNITUDES or (rest and rest.split(" ")[0] in _MAGNITUDES and _unit_key(rest) not in _UNITS):
        word = rest if rest in _MAGNITUDES else rest.split(" ")[0]
        value *= _MAGNITUDES[word]
        rest = rest[len(word):].strip()
    elif rest and rest[0] in _MAGNITUDES and _unit_key(rest) not in _UNITS and _unit_key(rest[1:]) in _UNITS:
        value *= _MAGNITUDES[rest[0]]
        rest = rest[1:].strip()
    if not math.isfinite(value) or (value != 0 and abs(value) < 1e-300):
        return ParseError("not_finite")
    if not rest:
        return Parsed(value)
    key = _unit_key(rest)
    bits = re.fullmatch(r"([kKMGT]?)(?:b/s|bps|bit/s)", key)
    if bits:                                           # Gb/s, Gbps: bits, not bytes
        return Parsed(value, key, "bit_rate", {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[bits.group(1)])
    if key.lower() in _UNITS:
        dimension, factor = _UNITS[key.lower()]
        return Parsed(value, key, dimension, factor)
    if re.fullmatch(r"[A-Za-z\u3400-\u9fff][\w\u3400-\u9fff -]{0,30}", key):
        return Parsed(value, key)                      # a word: a count's label ("warps", "dies")
    return ParseError("unknown_unit", s, rest)


def answer_unit(unit: str) -> tuple[str | None, float]:
    """The dimension and factor of an :class:`Answer`'s unit ("ms" -> ("time", 0.001));
    ``(None, 1.0)`` for no unit, and ("count", 1.0) for a label such as "warps".

    >>> answer_unit("GB/s"), answer_unit("warps")
    (('bandwidth', 1000000000.0), ('count', 1.0))
    """
    unit = _check.text("unit", unit)
    if not unit.strip():
        return (None, 1.0)
    if unit in _ANSWER_UNITS:
        return _ANSWER_UNITS[unit]
    return _UNITS.get(_unit_key(unit).lower(), ("count", 1.0))


def _fmt(x: float) -> str:
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e6:
        return f"{x:,.4g}" if abs(x) < 1e4 else f"{x:,.0f}"
    return f"{x:.3g}"


def _tolerance(expected: Answer, lang: str) -> str:
    parts = []
    if expected.rel_tol:
        parts.append(f"{expected.rel_tol * 100:g} %")
    if expected.abs_tol:
        parts.append(f"± {_fmt(expected.abs_tol)}")
    if not parts:
        return "exactly" if lang == "en" else "0"
    return (" or " if lang == "en" else " 或 ").join(parts)


def _msg(key: str, lang: str, **fields: object) -> str:
    return _MESSAGES[key][lang].format(**fields)


def _shown(value: float, unit: str, dimension: str | None) -> str:
    if dimension == "fraction":
        return f"{value * 100:.4g} %"
    return f"{_fmt(value)} {unit}".strip()


def grade(text: str, expected: Answer, lang: str = "en") -> Verdict:
    """Grade what a reader typed against ``expected``; never raises on a string ``text``.

    A plain number is read in the answer's unit (a fraction may be typed as 0.25, 25 or 25 %);
    a number with a unit of the same dimension is converted; a unit of another dimension is a
    wrong unit, told apart from a wrong number. A text answer ("memory") is compared ignoring case.

    >>> grade("25", Answer(0.25, "fraction")).correct, grade("0.25", Answer(0.25, "fraction")).correct
    (True, True)
    >>> grade("64 s", Answer(64.0, "ms")).message
    'Not quite: 64 s is not 64 ms within 1 %. Off by a factor of 1,000: check the prefix of the unit (k, M, G; ms against s).'
    """
    lang = _check.choice("lang", lang, LANGUAGES)
    expected = _check.instance("expected", expected, Answer)
    text = _check.text("text", text)
    if not expected.numeric:
        given = _normalise(text[:MAX_LENGTH]).strip().lower()
        want = str(expected.value).strip().lower()
        ok = given == want or given.replace(" ", "") == want.replace(" ", "")
        return Verdict(ok, "right" if ok else "wrong_number",
                       _msg("choice_right", lang, expected=expected.value) if ok else _msg("choice_wrong", lang))
    want_dim, want_factor = answer_unit(expected.unit)
    unit = expected.unit if expected.unit != "fraction" else ""
    exp_shown = _shown(float(expected.value), unit, want_dim)
    tol = _tolerance(expected, lang)
    p = parse(text)
    if isinstance(p, ParseError):
        example = expected.unit if want_dim not in (None, "count", "fraction") else ("%" if want_dim == "fraction" else "")
        fields = {"text": p.text, "unit": p.unit, "example": example or "ms"}
        return Verdict(False, "unreadable", _msg(p.reason, lang, **fields))
    if p.dimension is None:
        if p.unit and want_dim != "count" and p.unit not in _COUNT_WORDS:
            return Verdict(False, "unreadable", _msg("unknown_unit", lang, unit=p.unit,
                                                     example=expected.unit or "ms"))
        candidates = [p.value]
        if want_dim == "fraction":
            candidates.append(p.value / 100)
    elif p.dimension == want_dim:
        candidates = [p.value * p.factor / want_factor]
    else:
        got = _DIMENSION_NAMES.get(p.dimension, (str(p.dimension), str(p.dimension)))[lang == "zh"]
        want = _DIMENSION_NAMES.get(want_dim, (str(want_dim), str(want_dim)))[lang == "zh"]
        return Verdict(False, "wrong_unit", _msg("wrong_unit", lang, got=f"{got} ({p.unit})" if lang == "en"
                                                 else f"{got}（{p.unit}）", want=want, unit=expected.unit or "—"))
    given_shown = _shown(p.value, p.unit, p.dimension) if p.unit else _fmt(p.value)
    if any(expected.check(c) for c in candidates):
        return Verdict(True, "right", _msg("right", lang, given=given_shown, expected=exp_shown, tol=tol))
    message = _msg("wrong_number", lang, given=given_shown, expected=exp_shown, tol=tol)
    ratio = abs(candidates[0] / float(expected.value)) if float(expected.value) and candidates[0] else 0.0
    for power in (3, 6, 9, 12, 2, 1):
        for f in (10.0**power, 10.0**-power):
            if ratio and math.isclose(ratio, f, rel_tol=max(expected.rel_tol, 1e-9)):
                message += (" " if lang == "en" else "") + _msg("wrong_scale", lang, factor=_fmt(10.0**power))
                return Verdict(False, "wrong_number", message)
    return Verdict(False, "wrong_number", message)


def grade_choice(choice: str, options: tuple[str, ...], correct: str, lang: str = "en") -> Verdict:
    """Grade a multiple-choice answer: ``choice`` is an option's letter ("b") or its text.

    >>> grade_choice("B", ("memory", "compute"), "compute").correct
    True
    """
    lang = _check.choice("lang", lang, LANGUAGES)
    if not isinstance(options, (tuple, list)) or not options:
        raise TypeError(f"options must be a non-empty tuple of strings, got {options!r}")
    options = tuple(_check.text("options", o) for o in options)
    correct = _check.choice("correct", correct, options)
    choice = _normalise(_check.text("choice", choice)[:MAX_LENGTH]).strip().lower().rstrip(")")
    letters = [chr(ord("a") + i) for i in range(len(options))]
    if choice in letters:
        picked = options[letters.index(choice)]
    elif choice in [o.lower() for o in options]:
        picked = options[[o.lower() for o in options].index(choice)]
    else:
        return Verdict(False, "unreadable", _msg("choice_unknown", lang, options=", ".join(letters)))
    ok = picked == correct
    return Verdict(ok, "right" if ok else "wrong_number",
                   _msg("choice_right", lang, expected=correct) if ok else _msg("choice_wrong", lang))
