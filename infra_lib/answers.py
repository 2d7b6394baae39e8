"""Read and grade an answer as a reader types it: a pure parser, no evaluation of code.

:func:`parse` turns what a reader typed ("64", "64 ms", "0.064 s", "6.4e-2 s", "4.77·10⁻³ s",
"64毫秒", "６４", "1,024", "1 024", "2.6k tok/s", "2.6万", "25%", "~300", "1/8", "$572",
"2 megabytes", "295 FLOP/B", "每字节 295 次") into a number and a unit. It only matches regular
expressions and calls ``float`` on a string the expression has already checked to be digits:
nothing the reader types is ever evaluated (no ``eval``, no symbolic parser). Anything that is not
a number, a unit, a magnitude word or a count word is refused: ``16e``, ``16 nan`` and ``4.77²``
are not read as numbers.

:func:`grade` compares it with an :class:`infra_lib.exercises.Answer` and tells four outcomes
apart: right, a wrong number, a wrong unit (a time given for a bandwidth), and input that could
not be read; every outcome carries a message in the page's language. The course's rule for a
number: it is right when it agrees with the key to two significant figures (300 for 295), or
within the answer's own tolerance; an answer with no tolerance (a count: GPUs, warps) must be
exact. Neither function raises on any string.

>>> grade("64毫秒", Answer(64.0, "ms")).status
'right'
>>> grade("0.064 s", Answer(64.0, "ms")).correct
True
>>> grade("300 FLOP/B", Answer(295.3, "FLOP/B")).correct     # two significant figures
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
SIG_FIGS = 2             # the course's rule: an answer that agrees with the key to this many significant figures

# unit as typed (lower case) -> (dimension, factor to the dimension's base unit)
_UNITS: dict[str, tuple[str, float]] = {}


def _add(dimension: str, factor: float, *names: str) -> None:
    for n in names:
        _UNITS[n.lower()] = (dimension, factor)


_TIME = (("s", 1.0, ("s", "sec", "secs", "second", "seconds", "秒")),
         ("ms", 1e-3, ("ms", "msec", "millisecond", "milliseconds", "毫秒")),
         ("us", 1e-6, ("us", "µs", "μs", "microsecond", "microseconds", "微秒")),
         ("ns", 1e-9, ("ns", "nanosecond", "nanoseconds", "纳秒")),
         ("min", 60.0, ("min", "minute", "minutes", "分钟")),
         ("h", 3600.0, ("h", "hr", "hour", "hours", "小时")),
         ("d", 86400.0, ("day", "days", "d", "天")))
for _key, _f, _names in _TIME:
    _add("time", _f, *_names)
    _add("time", _f, *(f"{n}/{per}" for n in _names for per in ("token", "tok", "step", "个token")))   # ms/token
_WORD_PREFIX = (("", 1.0, ""), ("k", 1e3, "kilo"), ("m", 1e6, "mega"), ("g", 1e9, "giga"), ("t", 1e12, "tera"),
                ("p", 1e15, "peta"))
for _p, _f, _w in _WORD_PREFIX:
    _add("bytes", _f, f"{_p}b", f"{_p}byte", f"{_p}bytes", f"{_w}byte", f"{_w}bytes")
    _add("bandwidth", _f, f"{_p}b/s", f"{_p}byte/s", f"{_p}bytes/s", f"{_w}bytes/s", f"{_w}byte/s")
    _add("flop", _f, f"{_p}flop", f"{_w}flop")
    _add("flop_rate", _f, f"{_p}flop/s", f"{_p}flops", f"{_w}flop/s", f"{_w}flops")
    _add("frequency", _f, f"{_p}hz", f"{_w}hertz")
    _add("power", _f, f"{_p}w", f"{_w}watt", f"{_w}watts")
    _add("bit_rate", _f, f"{_p}bit/s", f"{_p}bits/s", f"{_w}bit/s", f"{_w}bits/s")
    _add("bits", _f, f"{_w}bit", f"{_w}bits")
for _p, _f in (("ki", 2.0**10), ("mi", 2.0**20), ("gi", 2.0**30), ("ti", 2.0**40)):
    _add("bytes", _f, f"{_p}b", f"{_p}byte", f"{_p}bytes")
    _add("bandwidth", _f, f"{_p}b/s")
_add("bytes", 1.0, "字节")
_add("bits", 1.0, "比特", "位")
_add("frequency", 1.0, "赫兹")
_add("power", 1.0, "瓦")
_add("intensity", 1.0, "flop/b", "flop/byte", "flops/b", "flops/byte", "flop per byte", "flops per byte",
     "flop/字节", "次/字节")
_add("tokens", 1.0, "tok", "token", "tokens", "个token")
_add("token_rate", 1.0, "tok/s", "token/s", "tokens/s", "tokens per second")
_add("money", 1.0, "$", "usd", "us$", "dollar", "dollars", "美元")
_add("ratio", 1.0, "x", "×", "times", "倍")
_add("fraction", 0.01, "%", "percent", "pct")
del _key, _f, _names, _p, _w

# the unit an exercise's Answer states -> the dimension and factor it is in
_ANSWER_UNITS: dict[str, tuple[str, float]] = {"fraction": ("fraction", 1.0), "×": ("ratio", 1.0),
                                               "tokens/s": ("token_rate", 1.0), "USD": ("money", 1.0),
                                               "FLOP/B": ("intensity", 1.0)}
# magnitude words typed after a number: "2.6k", "3 million", "2.6万", "3亿"
_MAGNITUDES = {"k": 1e3, "K": 1e3, "thousand": 1e3, "M": 1e6, "million": 1e6, "billion": 1e9, "bn": 1e9,
               "千": 1e3, "万": 1e4, "萬": 1e4, "亿": 1e8, "億": 1e8, "百万": 1e6}
# classifiers that say "how many" without a dimension: accepted, alone or before the noun, for any count
_CLASSIFIERS = "个块张颗片次台条道"
_COUNT_WORDS = {"units", "pcs"}
# a count answer's unit -> its Chinese noun (what 个/块 counts) and how the feedback writes it in Chinese
_COUNT_NOUNS_ZH: dict[str, tuple[str, str]] = {
    "requests": ("请求", "个请求"), "gpus": ("gpu", "块 GPU"), "warps": ("warp", "个 warp"),
    "cycles": ("周期", "个周期"), "dies": ("die", "个 die"), "blocks": ("线程块", "个线程块"),
    "threads": ("线程", "个线程"), "replicas": ("副本", "个副本"), "endpoints": ("端点", "个端点"),
    "operators": ("算子", "个算子"), "codes": ("码值", "个码值"), "tokens": ("token", "个 token"),
    "values": ("值", "个值"), "questions": ("题", "道题"), "sequences": ("序列", "条序列"),
    "sockets": ("cpu", "颗 CPU"), "steps": ("步", "步"), "sectors": ("扇区", "个扇区"),
    "registers": ("寄存器", "个寄存器"), "kernels": ("kernel", "个 kernel"),
    "microbatches": ("micro-batch", "个 micro-batch"), "nodes": ("节点", "个节点"),
    "instances": ("实例", "个实例"), "tiles": ("分块", "个分块"), "loads": ("load", "条 load"),
    "stacks": ("堆栈", "个堆栈"), "promotions": ("加法", "次加法"), "dimensions": ("维", "维"),
}
# units whose Chinese feedback writes them another way
_UNITS_ZH = {"USD": "美元", "bits": "位", "FLOP/B": "FLOP/B", "tokens/s": "token/s", "bytes": "字节",
             "days": "天", "FLOP/byte": "FLOP/字节", "×": "倍"}

_NUMBER = re.compile(r"""
    (?P<sign>[+-])?
    (?P<int>\d{1,3}(?:(?P<sep>[,\u0020_\u00a0\u2009\u202f'])\d{3})+(?!\d)|\d+)?
    (?P<frac>\.\d+)?
    (?:\s*(?:[eE](?P<exp>[+-]?\d{1,6})|[x×*·⋅]\s*10\s*(?:\^|\*\*)\s*(?P<exp2>[+-]?\d{1,6})))?
    """, re.X)
_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺"
_POWER_OF_TEN = re.compile(r"([x×*·⋅]\s*)10([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,6})")      # ×10⁻³: an exponent, written up
_APPROX = re.compile(r"^(?:~|≈|about\s|approx\.?\s*|approximately\s|circa\s|ca\.\s*|大约|约为|约)\s*", re.I)
_MONEY = re.compile(r"^(?:US\s?\$|\$|USD\s*)", re.I)
_PER_BYTE = re.compile(r"^每字节\s*")
_FRACTION = re.compile(r"^\s*[/⁄]\s*(\d{1,9})(?![\d.,])")

_MESSAGES = {
    "right": {"en": "Right: {given} (expected {expected}{rule}).",
              "zh": "正确：{given}（答案 {expected}{rule}）。"},
    "wrong_number": {"en": "Not quite: {given} is not {expected}{rule}.",
                     "zh": "不对：{given} 不是 {expected}{rule}。"},
    "wrong_scale": {"en": "Off by a factor of {factor}: check the prefix of the unit (k, M, G; ms against s).",
                    "zh": "差了 {factor} 倍：检查单位的前缀（k、M、G，毫秒还是秒）。"},
    "wrong_binary": {"en": "Off by a factor of {factor}: KiB against KB? A KiB is 1,024 bytes, a KB 1,000 "
                           "(MiB and MB: 1,048,576 against 1,000,000).",
                     "zh": "差了 {factor} 倍：是不是把 KiB 和 KB 混了？1 KiB 是 1,024 字节，1 KB 是 1,000 字节"
                           "（MiB 与 MB：1,048,576 对 1,000,000）。"},
    "wrong_unit": {"en": "Wrong unit: you gave {got}, but the answer is {want} (in {unit}).",
                   "zh": "单位不对：你给的是{got}，答案是{want}（单位 {unit}）。"},
    "empty": {"en": "Type a number first, for example 64 or 64 ms.",
              "zh": "请先输入一个数，比如 64 或 64 ms。"},
    "too_long": {"en": "That is too long to be an answer: type one number and, if you like, its unit.",
                 "zh": "输入太长了：只需输入一个数，可以带单位。"},
    "no_number": {"en": "Could not read a number in {text!r}: type digits, such as 64, 0.064 s or 6.4e-2 s.",
                  "zh": "没能从“{text}”里读出数字：请输入数字，比如 64、0.064 s 或 6.4e-2 s。"},
    "bad_exponent": {"en": "Could not read the exponent in {text!r}: write it as 4.77e-3 or 4.77×10^-3.",
                     "zh": "没能读懂“{text}”里的指数：请写成 4.77e-3 或 4.77×10^-3。"},
    "bad_separator": {"en": "Could not read {text!r}: use a point for decimals (1.5) and groups of three digits "
                            "for thousands (1,024).",
                      "zh": "没能读懂“{text}”：小数用小数点（1.5），千位分隔每组三位（1,024）。"},
    "unknown_unit": {"en": "Unknown unit {unit!r}: type the number alone, or with a unit such as {example}.",
                     "zh": "不认识的单位“{unit}”：只输入数字，或带上 {example} 这样的单位。"},
    "unknown_word": {"en": "Unknown unit {unit!r}: type the number alone.",
                     "zh": "不认识的单位“{unit}”：只输入数字即可。"},
    "not_finite": {"en": "That number is too large (or too small) to be an answer.",
                   "zh": "这个数太大（或太小），不可能是答案。"},
    "choice_right": {"en": "Right: ({letter}) {expected}.", "zh": "正确：（{letter}）{expected}。"},
    "choice_wrong": {"en": "Not quite: ({letter}) is not the answer.", "zh": "不对：（{letter}）不是答案。"},
    "choice_unknown": {"en": "Choose one of: {options} (a letter, or an option's text).",
                       "zh": "请从这些选项中选一个：{options}（输入字母或选项原文）。"},
}
_RULES = {   # how the message states what counts as right (zh_wrong: after "不是 ...", in brackets)
    "sig": {"en": ", to two significant figures", "zh": "，按两位有效数字比较", "zh_wrong": "（按两位有效数字比较）"},
    "exact": {"en": "", "zh": "", "zh_wrong": ""},
    "tol": {"en": ", within {tol}", "zh": "，允许误差 {tol}", "zh_wrong": "（允许误差 {tol}）"},
    "sig_tol": {"en": ", to two significant figures or within {tol}", "zh": "，按两位有效数字比较或误差在 {tol} 以内",
                "zh_wrong": "（按两位有效数字比较，或允许误差 {tol}）"},
}
_DIMENSION_NAMES = {
    "time": ("a time", "时间"), "bytes": ("a size in bytes", "字节数"), "bandwidth": ("a bandwidth", "带宽"),
    "flop": ("a number of FLOP", "浮点运算次数"), "flop_rate": ("a FLOP rate", "算力"),
    "frequency": ("a frequency", "频率"), "power": ("a power", "功率"), "bits": ("a number of bits", "比特数"),
    "bit_rate": ("a bit rate", "比特率"), "tokens": ("a number of tokens", "token 数"),
    "token_rate": ("a token rate", "token 速率"), "money": ("an amount of money", "金额"),
    "ratio": ("a ratio", "倍数"), "fraction": ("a percentage", "百分比"), None: ("a plain number", "纯数字"),
    "count": ("a count", "个数"), "intensity": ("FLOP per byte", "每字节运算量"),
}


@dataclass(frozen=True)
class Parsed:
    """A reader's answer, read: the number (magnitude words applied), the unit as typed (or ""),
    its dimension (None for no unit or a plain word) and its factor to the dimension's base unit."""
    _signed = ("value",)                       # a reader may type a negative number
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
    """NFKC (full-width digits, ％, ，: ASCII), one space between words; an exponent written in
    superscripts after ×10 becomes ^ (``4.77·10⁻³`` -> ``4.77·10^-3``), and any other superscript
    or vulgar fraction is kept out of NFKC (which would fold ``2⁴`` into ``24``) as ``?``."""
    text = _POWER_OF_TEN.sub(lambda m: m.group(1) + "10^" + m.group(2).translate(str.maketrans(_SUPERSCRIPTS,
                                                                                             "0123456789-+")), text)
    text = "".join("?" if unicodedata.category(c) == "No" or c in _SUPERSCRIPTS else c for c in text)
    text = unicodedata.normalize("NFKC", text)
    text = text.replace("\u2212", "-").replace("，", ",").replace("。", ".").replace("．", ".")
    return " ".join(text.split())


def _unit_key(word: str) -> str:
    w = word.strip().rstrip(".").strip()
    w = re.sub(r"\s+per\s+(second|sec|s)$", "/s", w, flags=re.I)
    w = re.sub(r"\s+per\s+(token|tok|step|byte)$", r"/\1", w, flags=re.I)
    w = re.sub(r"\s*/\s*", "/", w)
    w = re.sub(r"/(sec|second|secs)$", "/s", w, flags=re.I)
    return w


_PREFIXES = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "m": 1e6, "G": 1e9, "g": 1e9, "T": 1e12, "t": 1e12,
             "P": 1e15, "p": 1e15}


def _lookup(key: str) -> tuple[str, float] | None:
    """The dimension and factor of a unit as typed; case decides bits against bytes: a lower-case
    b after an upper-case prefix is bits (Gb/s, Kb), as is bps (Gbps); GBps and GB/s are bytes."""
    m = re.fullmatch(r"([kKmMgGtTpP]?)bps", key)
    if m:
        return ("bit_rate", _PREFIXES[m.group(1)])
    m = re.fullmatch(r"([kKmMgGtTpP]?)Bps", key)
    if m:
        return ("bandwidth", _PREFIXES[m.group(1)])
    m = re.fullmatch(r"([KMGTP])b(/s)?", key)
    if m:
        return ("bit_rate" if m.group(2) else "bits", _PREFIXES[m.group(1)])
    m = re.fullmatch(r"([kKmMgGtTpP]?)bits?(/s)?", key, re.I)
    if m:
        return ("bit_rate" if m.group(2) else "bits", _PREFIXES[m.group(1)])
    return _UNITS.get(key.lower())


def parse(text: str) -> Parsed | ParseError:
    """Read ``text`` as a number with an optional magnitude word and unit; never raises on a string.

    >>> parse("1 024 ms")
    Parsed(value=1024.0, unit='ms', dimension='time', factor=0.001)
    >>> parse("6.4e-2 s").value, parse("4.77·10⁻³ s").value, parse("1/8").value
    (0.064, 0.00477, 0.125)
    >>> parse("25%").dimension, parse("25%").value
    ('fraction', 25.0)
    >>> parse("$572").dimension, parse("~300").value
    ('money', 300.0)
    >>> parse("1,5").reason, parse("16e").reason, parse("4.77²").reason, parse("16 nan").reason
    ('bad_separator', 'bad_exponent', 'bad_exponent', 'no_number')
    """
    text = _check.text("text", text)
    if len(text) > MAX_LENGTH:
        return ParseError("too_long")
    s = _normalise(text)
    if not s:
        return ParseError("empty")
    if "?" in s and "?" not in text:
        return ParseError("bad_exponent", " ".join(text.split()))    # 4.77², 2⁴: a superscript that is no ×10ⁿ
    body = _APPROX.sub("", s)
    unit_before = ""
    for pattern, unit in ((_MONEY, "$"), (_PER_BYTE, "FLOP/B")):
        m0 = pattern.match(body)
        if m0:
            body, unit_before = body[m0.end():], unit
            break
    m = _NUMBER.match(body)
    if not m or not (m.group("int") or m.group("frac")):
        return ParseError("no_number", s)
    digits = re.sub(r"[,\u0020_\u00a0\u2009\u202f']", "", m.group("int") or "0") + (m.group("frac") or "")
    exp = m.group("exp") or m.group("exp2")
    rest = body[m.end():].strip()
    if re.match(r"(?:[eE][+-]?|[x×*·⋅]\s*10\s*(?:\^|\*\*)?\s*[+-]?)(?:\s|$)", rest):
        return ParseError("bad_exponent", s)         # 16e, 16e-, 4.77×10^: an exponent begun, not finished
    try:
        value = float(digits) * (10.0 ** int(exp) if exp else 1.0)
    except OverflowError:
        return ParseError("not_finite")
    if float(digits) != 0 and value == 0:
        return ParseError("not_finite")               # 5e-400: too small to be an answer, not zero
    frac = _FRACTION.match(rest)
    if frac and not (m.group("frac") or exp or m.group("sep")):
        if int(frac.group(1)) == 0:
            return ParseError("not_finite")
        value /= int(frac.group(1))                   # 1/8: a fraction of two whole numbers
        rest = rest[frac.end():].strip()
    if rest and (rest[0].isdigit() or rest[0] in ",."):
        return ParseError("bad_separator", s)
    if m.group("sign") == "-":
        value = -value
    if rest in _MAGNITUDES or (rest and rest.split(" ")[0] in _MAGNITUDES and _lookup(_unit_key(rest)) is None):
        word = rest if rest in _MAGNITUDES else rest.split(" ")[0]
        value *= _MAGNITUDES[word]
        rest = rest[len(word):].strip()
    elif rest and rest[0] in _MAGNITUDES and _lookup(_unit_key(rest)) is None and _lookup(_unit_key(rest[1:])):
        value *= _MAGNITUDES[rest[0]]
        rest = rest[1:].strip()
    if not math.isfinite(value) or (value != 0 and abs(value) < 1e-300):
        return ParseError("not_finite")
    if unit_before:                                    # $572, 每字节 295 次: the unit came first
        dimension, factor = _UNITS[unit_before.lower()]
        if rest and (_lookup(_unit_key(rest)) or ("", 0.0))[0] != dimension \
                and not (unit_before == "FLOP/B" and rest in ("次", "FLOP", "次浮点运算")):
            return ParseError("unknown_unit", s, rest)
        return Parsed(value, unit_before, dimension, factor)
    if not rest:
        return Parsed(value)
    key = _unit_key(rest)
    found = _lookup(key)
    if found:
        return Parsed(value, key, *found)
    if key.lower() in ("nan", "inf", "infinity", "e"):
        return ParseError("no_number", s)
    if re.fullmatch(r"[A-Za-z\u3400-\u9fff][\w\u3400-\u9fff -]{0,30}", key):
        return Parsed(value, key)                      # a word: a count's label ("warps"), checked by grade
    return ParseError("unknown_unit", s, rest)


def answer_unit(unit: str) -> tuple[str | None, float]:
    """The dimension and factor of an :class:`Answer`'s unit ("ms" -> ("time", 0.001));
    ``(None, 1.0)`` for no unit, and ("count", 1.0) for a label such as "warps".

    >>> answer_unit("GB/s"), answer_unit("warps"), answer_unit("FLOP/B")
    (('bandwidth', 1000000000.0), ('count', 1.0), ('intensity', 1.0))
    """
    unit = _check.text("unit", unit)
    if not unit.strip():
        return (None, 1.0)
    if unit in _ANSWER_UNITS:
        return _ANSWER_UNITS[unit]
    return _lookup(_unit_key(unit)) or ("count", 1.0)


def _count_label_ok(label: str, unit: str) -> bool:
    """Is ``label`` (typed after a count) a way to name the answer's ``unit``: the unit itself, its
    singular, its Chinese noun, a classifier (个, 块) alone or before it."""
    got = label.strip().lower().replace(" ", "")
    if got in _COUNT_WORDS:
        return True
    got = got.lstrip(_CLASSIFIERS) if got[:1] in _CLASSIFIERS else got
    want = unit.strip().lower()
    names = {want.replace(" ", ""), want.removesuffix("s").replace(" ", "")}
    if want in _COUNT_NOUNS_ZH:
        names.add(_COUNT_NOUNS_ZH[want][0])
    return got == "" and label.strip()[:1] in _CLASSIFIERS or got in names


def _fmt(x: float) -> str:
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e6:
        return f"{x:,.4g}" if abs(x) < 1e4 else f"{x:,.0f}"
    return f"{x:.3g}"


def _unit_shown(unit: str, lang: str) -> str:
    if lang == "zh":
        if unit.lower() in _COUNT_NOUNS_ZH:
            return _COUNT_NOUNS_ZH[unit.lower()][1]
        return _UNITS_ZH.get(unit, unit)
    return unit


def _shown(value: float, unit: str, dimension: str | None, lang: str) -> str:
    if dimension == "fraction":         # a share: 0.25 as "25 %"; a value already in percent ("%") as it is
        per_cent = answer_unit(unit)[1] * 100 if unit.strip() else 100.0
        return f"{value * per_cent:.4g} %"
    u = _unit_shown(unit, lang)
    if lang == "zh" and u.startswith(("个", "块")):
        return f"{_fmt(value)} {u}"
    return f"{_fmt(value)} {u}".strip()


def lenient(expected: Answer, sig_figs: int | None = SIG_FIGS) -> bool:
    """True when the significant-figure rule applies to ``expected``: a numeric answer with a
    tolerance (a count graded exactly, rel_tol = abs_tol = 0, is not)."""
    expected = _check.instance("expected", expected, Answer)
    if sig_figs is not None:
        sig_figs = _check.count("sig_figs", sig_figs, "significant figures")
    return sig_figs is not None and bool(expected.rel_tol or expected.abs_tol)


def agrees(given: float, key: float, sig_figs: int = SIG_FIGS) -> bool:
    """Does ``given`` agree with ``key`` to ``sig_figs`` significant figures: within half a unit
    of the key's last such figure? 300 and 290.5 agree with 295 to two; 289 does not.

    >>> agrees(300, 295.3), agrees(3.9, 3.89), agrees(290, 295.3), agrees(0.17, 0.1667)
    (True, True, False, True)
    """
    given = _check.number("given", given, "(the reader's value)")
    key = _check.number("key", key, "(the answer's value)")
    sig_figs = _check.count("sig_figs", sig_figs, "significant figures")
    if key == 0:
        return given == key
    half = 0.5 * 10.0 ** (math.floor(math.log10(abs(key))) - (sig_figs - 1))
    return abs(given - key) <= half * (1 + 1e-9)


def _right(value: float, expected: Answer, sig_figs: int | None) -> bool:
    if expected.check(value):
        return True
    return lenient(expected, sig_figs) and agrees(value, float(expected.value), sig_figs or SIG_FIGS)


def _rule(expected: Answer, sig_figs: int | None, lang: str, wrong: bool = False) -> str:
    lang = "zh_wrong" if wrong and lang == "zh" else lang
    tol = []
    if expected.rel_tol:
        tol.append(f"{expected.rel_tol * 100:g} %")
    if expected.abs_tol:
        tol.append(f"± {_fmt(expected.abs_tol)}")
    tols = (" or " if lang == "en" else " 或 ").join(tol)
    if not tol:
        return _RULES["exact"][lang]
    if not lenient(expected, sig_figs):
        return _RULES["tol"][lang].format(tol=tols)
    if expected.rel_tol >= 0.05 or expected.abs_tol:
        return _RULES["sig_tol"][lang].format(tol=tols)
    return _RULES["sig"][lang]


def _msg(key: str, lang: str, **fields: object) -> str:
    return _MESSAGES[key][lang].format(**fields)


_BINARY = (1.024, 1.048576, 1.073741824)     # KiB/KB, MiB/MB, GiB/GB


def grade(text: str, expected: Answer, lang: str = "en", sig_figs: int | None = SIG_FIGS) -> Verdict:
    """Grade what a reader typed against ``expected``; never raises on a string ``text``.

    A plain number is read in the answer's unit (a fraction may be typed as 0.25, 25 or 25 %);
    a number with a unit of the same dimension is converted; a unit of another dimension is a
    wrong unit, told apart from a wrong number. It is right within the answer's tolerance, or
    when it agrees with the key to ``sig_figs`` significant figures (None: the tolerance alone,
    for a question that states its precision); a count with no tolerance must be exact. A count
    may carry its own unit word ("16 warps", "16 个 warp"), no other word. A text answer
    ("memory") is compared ignoring case.

    >>> grade("25", Answer(0.25, "fraction")).correct, grade("0.25", Answer(0.25, "fraction")).correct
    (True, True)
    >>> grade("64 s", Answer(64.0, "ms")).message
    'Not quite: 64 s is not 64 ms, to two significant figures. Off by a factor of 1,000: check the prefix of the unit (k, M, G; ms against s).'
    """
    lang = _check.choice("lang", lang, LANGUAGES)
    expected = _check.instance("expected", expected, Answer)
    text = _check.text("text", text)
    if sig_figs is not None:
        sig_figs = _check.count("sig_figs", sig_figs, "significant figures")
    if not expected.numeric:
        if len(text) > MAX_LENGTH:
            return Verdict(False, "unreadable", _msg("too_long", lang))
        given = _normalise(text).strip().lower()
        want = _normalise(str(expected.value)).strip().lower()     # the key's full-width colon as the reader's
        ok = given == want or given.replace(" ", "") == want.replace(" ", "")
        return Verdict(ok, "right" if ok else "wrong_number",
                       _msg("right", lang, given=text.strip(), expected=expected.value, rule="") if ok
                       else _msg("wrong_number", lang, given=text.strip(), expected=expected.value, rule=""))
    want_dim, want_factor = answer_unit(expected.unit)
    own = expected.unit.strip()
    if want_dim == "count" and own and text.strip().lower().endswith(own.lower()):
        # the answer's own unit typed after the number ("6,159 wafers/month", "110 thousand GPUs"):
        # read as the number alone, which is read in the answer's unit
        head = text.strip()[: -len(own)].strip()
        alone = parse(head) if head else None
        if isinstance(alone, Parsed) and not alone.unit:
            text = head
    unit = expected.unit if expected.unit != "fraction" else ""
    exp_shown = _shown(float(expected.value), unit, want_dim, lang)
    rule = _rule(expected, sig_figs, lang)
    p = parse(text)
    if isinstance(p, ParseError):
        example = expected.unit if want_dim not in (None, "count", "fraction") else ("%" if want_dim == "fraction" else "")
        if p.reason == "unknown_unit" and not example and want_dim != "count":
            return Verdict(False, "unreadable", _msg("unknown_word", lang, unit=p.unit))
        fields = {"text": p.text, "unit": p.unit, "example": example or expected.unit or "ms"}
        return Verdict(False, "unreadable", _msg(p.reason, lang, **fields))
    if p.dimension is None and p.unit[:1] in _CLASSIFIERS and p.unit[1:].strip():
        # "2,474 个 token": a Chinese classifier before a unit word (as the Chinese feedback writes
        # it) is read as that unit
        q = parse(f"{p.value!r} {p.unit[1:].strip()}")
        if isinstance(q, Parsed) and q.dimension is not None and q.dimension == want_dim:
            p = Parsed(value=p.value, unit=p.unit, dimension=q.dimension, factor=q.factor)
    if p.dimension is None:
        if p.unit and not (want_dim == "count" and _count_label_ok(p.unit, expected.unit)):
            if want_dim == "count":
                return Verdict(False, "unreadable", _msg("unknown_unit", lang, unit=p.unit, example=expected.unit))
            if want_dim is None:
                return Verdict(False, "unreadable", _msg("unknown_word", lang, unit=p.unit))
            return Verdict(False, "unreadable", _msg("unknown_unit", lang, unit=p.unit, example=expected.unit or "%"
                                                     if want_dim != "fraction" else "%"))
        candidates = [p.value]
        if want_dim == "fraction":
            candidates.append(p.value / 100)
    elif p.dimension == want_dim:
        candidates = [p.value * p.factor / want_factor]
    elif p.dimension == "bits" and want_dim == "count" and expected.unit.lower() in ("bits", "bit"):
        candidates = [p.value * p.factor]
    else:
        got = _DIMENSION_NAMES.get(p.dimension, (str(p.dimension), str(p.dimension)))[lang == "zh"]
        want = _DIMENSION_NAMES.get(want_dim, (str(want_dim), str(want_dim)))[lang == "zh"]
        return Verdict(False, "wrong_unit", _msg("wrong_unit", lang, got=f"{got} ({p.unit})" if lang == "en"
                                                 else f"{got}（{p.unit}）", want=want,
                                                 unit=_unit_shown(expected.unit, lang) or "—"))
    given_shown = (f"${_fmt(p.value)}" if p.unit == "$" else f"{_fmt(p.value)} {p.unit}") if p.unit else _fmt(p.value)
    if any(_right(c, expected, sig_figs) for c in candidates):
        return Verdict(True, "right", _msg("right", lang, given=given_shown, expected=exp_shown, rule=rule))
    message = _msg("wrong_number", lang, given=given_shown, expected=exp_shown, rule=_rule(expected, sig_figs, lang, True))
    sep = " " if lang == "en" else ""
    key = float(expected.value)
    c = candidates[0]
    if key and c:
        for f in _BINARY:
            if any(math.isclose(c * g, key, rel_tol=2e-3) for g in (f, 1 / f)):
                return Verdict(False, "wrong_number", message + sep + _msg("wrong_binary", lang, factor=f"{f:.10g}"))
        for power in (3, 6, 9, 12, 2, 1):
            for g in (10.0**power, 10.0**-power):
                if _right(c * g, expected, sig_figs):
                    return Verdict(False, "wrong_number",
                                   message + sep + _msg("wrong_scale", lang, factor=_fmt(10.0**power)))
    return Verdict(False, "wrong_number", message)


_LETTER = re.compile(r"^(?:option|choice|answer|选项|选|答案是|答案)?\s*[(\[]?\s*([a-z])\s*[)\].:]?$")
_LETTER_AND_TEXT = re.compile(r"^[(\[]?([a-z])[)\].:]\s*(.+)$")


def _plain(text: str) -> str:
    return _normalise(text).strip().lower().rstrip(".").replace(" ", "")


def choice_index(choice: str, *option_lists: tuple[str, ...]) -> int | None:
    """Which option ``choice`` names: a letter ("b", "(b)", "b.", "option b", "选b"), an option's text
    in any of ``option_lists`` (the same options in each language, in the same order), or both
    ("(b) Twice the bandwidth"); None when it names none, or is longer than :data:`MAX_LENGTH`.

    >>> choice_index("选B", ("x", "y")), choice_index("（b）", ("x", "y")), choice_index("乙", ("x", "y"), ("甲", "乙"))
    (1, 1, 1)
    """
    _check.text("choice", choice)
    for options in option_lists:
        if not isinstance(options, (tuple, list)) or not all(isinstance(o, str) for o in options):
            raise TypeError(f"option_lists must be tuples of option texts, got {options!r:.80}")
    if len(choice) > MAX_LENGTH or not option_lists:
        return None
    n = len(option_lists[0])
    s = _normalise(choice).strip().lower()
    m = _LETTER.match(s)
    if m:
        i = ord(m.group(1)) - ord("a")
        return i if i < n else None
    texts = [[_plain(o) for o in options] for options in option_lists]
    for opts in texts:
        if _plain(s) in opts:
            return opts.index(_plain(s))
    m = _LETTER_AND_TEXT.match(s)
    if m:
        i = ord(m.group(1)) - ord("a")
        if i < n and any(opts[i] == _plain(m.group(2)) for opts in texts):
            return i
    return None


def grade_choice(choice: str, options: tuple[str, ...], correct: str, lang: str = "en",
                 other: tuple[str, ...] = ()) -> Verdict:
    """Grade a multiple-choice answer: ``choice`` is an option's letter ("b", "(b)", "option b",
    "选b") or its text, in ``options`` (as the page shows them) or ``other`` (the same options, in
    the same order, in the other language).

    >>> grade_choice("B", ("memory", "compute"), "compute").correct
    True
    >>> grade_choice("算力", ("memory", "compute"), "compute", "zh", other=("显存", "算力")).message
    '正确：（b）compute。'
    """
    lang = _check.choice("lang", lang, LANGUAGES)
    if not isinstance(options, (tuple, list)) or not options:
        raise TypeError(f"options must be a non-empty tuple of strings, got {options!r}")
    options = tuple(_check.text("options", o) for o in options)
    correct = _check.choice("correct", correct, options)
    other = tuple(_check.text("other", o) for o in other)
    if other and len(other) != len(options):
        raise ValueError(f"other must list as many options as options ({len(options)}), got {len(other)}")
    letters = [chr(ord("a") + i) for i in range(len(options))]
    i = choice_index(_check.text("choice", choice), options, *([other] if other else []))
    if i is None:
        return Verdict(False, "unreadable", _msg("choice_unknown", lang, options=", ".join(letters)))
    ok = options[i] == correct
    right = options.index(correct)
    return Verdict(ok, "right" if ok else "wrong_number",
                   _msg("choice_right", lang, letter=letters[right], expected=correct) if ok
                   else _msg("choice_wrong", lang, letter=letters[i]))
