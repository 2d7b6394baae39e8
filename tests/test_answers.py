"""The answer checker (infra_lib.answers): every form a reader types is read, and nothing crashes it.

The fuzz test feeds it random strings (ASCII, unicode, control characters), huge exponents, empty
input and code-like input, and prints how many inputs it tried: every call must return a Verdict
with a non-empty message in the page's language, never raise.
"""
import random
import string

import pytest

from infra_lib import answers
from infra_lib.answers import Parsed, ParseError, grade, grade_choice, parse
from infra_lib.exercises import Answer

MS64 = Answer(64.0, "ms")
# every form the issue lists, each read as 64 ms (or the value given)
RIGHT_FOR_64_MS = ["64", "64 ms", "64ms", "0.064 s", "6.4e-2 s", "6.4E-2 s", "64毫秒", "64 毫秒", "６４", "６４ ｍｓ",
                   "0.064秒", "64000 µs", "64,000 us", "64 000 µs", "64 000 us", "6.4×10^-2 s", "+64", " 64 ",
                   "64.0 ms", "64 msec", "6.4e1", "0.0640 s", "64 milliseconds", "６４毫秒"]
FORMS = [  # (typed, answer, correct)
    ("1,024", Answer(1024, "B"), True), ("1 024", Answer(1024, "B"), True), ("1\u202f024", Answer(1024, "B"), True),
    ("1 KiB", Answer(1024, "B"), True), ("１，０２４", Answer(1024, "B"), True),
    ("2.6k tok/s", Answer(2600, "tokens/s"), True), ("2.6k", Answer(2600, "tokens/s"), True),
    ("2,600 tokens/s", Answer(2600, "tokens/s"), True), ("2600 tokens per second", Answer(2600, "tokens/s"), True),
    ("2.6万", Answer(26000, "tokens/s"), True), ("2.6 万 tok/s", Answer(26000, "tokens/s"), True),
    ("3亿", Answer(3e8, ""), True), ("3 million", Answer(3e6, ""), True),
    ("25%", Answer(0.25, "fraction"), True), ("25 %", Answer(0.25, "fraction"), True),
    ("25％", Answer(0.25, "fraction"), True), ("0.25", Answer(0.25, "fraction"), True), ("25", Answer(0.25, "fraction"), True),
    ("3.35 TB/s", Answer(3350, "GB/s"), True), ("3350 GB/s", Answer(3350, "GB/s"), True), ("3,350", Answer(3350, "GB/s"), True),
    ("1.98 GHz", Answer(1980, "MHz"), True), ("2x", Answer(2, "×"), True), ("2×", Answer(2, "×"), True),
    ("2倍", Answer(2, "×"), True), ("8 warps", Answer(8, "warps"), True), ("8个", Answer(8, "warps"), True),
    ("$12,000", Answer(12000, "USD"), False),                         # a leading $ is not read (said so)
    ("12,000 USD", Answer(12000, "USD"), True), ("12000 美元", Answer(12000, "USD"), True),
    ("990 TFLOP/s", Answer(989.4e12, "FLOP/s"), True), ("0.99 PFLOPS", Answer(989.4e12, "FLOP/s"), True),
    ("memory", Answer("memory"), True), ("Memory ", Answer("memory"), True), ("compute", Answer("memory"), False),
    ("400 Gb/s", Answer(50, "GB/s"), False),                          # bits: a wrong unit
]


@pytest.mark.parametrize("typed", RIGHT_FOR_64_MS)
def test_every_listed_form_of_64_ms_is_right(typed):
    for lang in ("en", "zh"):
        v = grade(typed, MS64, lang)
        assert v.correct and v.status == "right", (typed, v)


@pytest.mark.parametrize("typed, expected, correct", FORMS, ids=[f[0] for f in FORMS])
def test_forms(typed, expected, correct):
    assert grade(typed, expected).correct is correct, grade(typed, expected)


def test_a_wrong_unit_is_told_apart_from_a_wrong_number():
    assert grade("64 GB", MS64).status == "wrong_unit"
    assert grade("64 GB/s", MS64, "zh").status == "wrong_unit" and "单位不对" in grade("64 GB/s", MS64, "zh").message
    assert grade("400 Gb/s", Answer(50, "GB/s")).status == "wrong_unit"      # bits per second for bytes
    assert grade("65 ms", MS64).status == "wrong_number"
    off = grade("64 s", MS64)
    assert off.status == "wrong_number" and "1,000" in off.message           # a prefix slip is named
    assert grade("64 warps", MS64).status == "unreadable"                    # a count word is no time unit


def test_tolerance_is_the_answers_and_is_stated():
    loose = Answer(100.0, "GB", rel_tol=0.05)
    assert grade("104", loose).correct and not grade("106", loose).correct
    assert "5 %" in grade("104", loose).message
    exact = Answer(8, "warps", rel_tol=0)
    assert grade("8", exact).correct and not grade("8.1", exact).correct
    assert grade("0.5", Answer(0.0, "GB", abs_tol=1)).correct


def test_messages_speak_the_pages_language():
    for typed in ("", "abc", "1,5", "x" * 500, "1e99999", "64 furlongs"):
        en, zh = grade(typed, MS64, "en"), grade(typed, MS64, "zh")
        assert en.status == zh.status == "unreadable", (typed, en, zh)
        assert not any("\u4e00" <= c <= "\u9fff" for c in en.message), en.message
        assert any("\u4e00" <= c <= "\u9fff" for c in zh.message), zh.message


def test_parse_reads_magnitudes_and_units():
    assert parse("2.6k tok/s") == Parsed(2600.0, "tok/s", "token_rate", 1.0)
    assert parse("2.6万").value == 26000.0 and parse("1.5亿").value == 1.5e8
    assert parse("1 024 ms").value == 1024.0
    assert isinstance(parse("1,5"), ParseError) and isinstance(parse("1,02"), ParseError)
    assert isinstance(parse("1e400"), ParseError)


def test_multiple_choice():
    opts = ("memory bandwidth", "FLOP/s", "PCIe")
    assert grade_choice("a", opts, "memory bandwidth").correct
    assert grade_choice("A)", opts, "memory bandwidth").correct
    assert not grade_choice("b", opts, "memory bandwidth").correct
    assert grade_choice("z", opts, "memory bandwidth", "zh").status == "unreadable"


# ---- fuzz: nothing crashes ------------------------------------------------------------------

CODE_LIKE = ["__import__('os')", "__import__('os').system('ls')", "eval('1+1')", "exec('x=1')", "1+1", "2**10",
             "1e308*10", "lambda: 0", "open('/etc/passwd')", "()", "[]", "{}", "64; import os", "${64}", "`64`",
             "'; DROP TABLE answers; --", "<script>alert(1)</script>", "{0.__class__}", "%s%s%s", "\\x00",
             "64 ms\n\n64 ms", "nan", "inf", "-inf", "NaN ms", "1e-400", "9" * 400, "1" + "0" * 80, "0x40",
             "0b1000000", "1_000", "64..0", "..", ".", "-", "+", "e5", "1e", "1e+", "６４ｅ９９９", "∞", "六十四"]
ALPHABET = string.printable + "０１２３４５６７８９，．％　毫秒万亿千×·−µμ¹²³\u200b\u202f\u00a0\ufeff\U0001f600\ud7ff"
ANSWERS = [MS64, Answer(0.25, "fraction"), Answer(3350, "GB/s"), Answer(8, "warps", rel_tol=0), Answer("memory"),
           Answer(2.0, "×"), Answer(2600, "tokens/s"), Answer(1024, "B"), Answer(-3.0, ""), Answer(0.0, "ms", abs_tol=1)]


def fuzz_inputs(n=4000, seed=12):
    rng = random.Random(seed)
    out = list(CODE_LIKE) + ["", " ", "\t", "\n"]
    for _ in range(n):
        kind = rng.random()
        if kind < 0.4:
            out.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40))))
        elif kind < 0.6:
            out.append(f"{rng.uniform(-1e6, 1e6):.{rng.randint(0, 8)}g}e{rng.randint(-99999, 99999)}")
        elif kind < 0.8:
            units = list(answers._UNITS) + ["", "k", "万", "亿", "%", "warps", "?", "ms ms"]
            out.append(f"{rng.choice(['', '-', '+'])}{rng.randint(0, 10**rng.randint(0, 30))}"
                       f"{rng.choice(['', '.5', ',000', ' 000'])}{rng.choice(['', ' '])}{rng.choice(units)}")
        else:
            out.append("".join(chr(rng.randint(0, 0x2FFFF)) for _ in range(rng.randint(1, 20))))
    return out


def test_fuzz_never_crashes(capsys):
    inputs = fuzz_inputs()
    tried = 0
    for text in inputs:
        for expected in ANSWERS:
            for lang in ("en", "zh"):
                v = grade(text, expected, lang)
                assert isinstance(v.correct, bool) and v.status in ("right", "wrong_number", "wrong_unit", "unreadable")
                assert v.message.strip(), (text, expected)
                tried += 1
        c = grade_choice(text, ("a1", "b1"), "a1")
        assert c.message
        p = parse(text)
        assert isinstance(p, (Parsed, ParseError))
    with capsys.disabled():
        print(f"\nanswer checker fuzz: {len(inputs)} distinct inputs, {tried} gradings, no exception")
    assert len(inputs) > 4000


def test_code_is_never_evaluated(monkeypatch):
    import builtins
    called = []
    monkeypatch.setattr(builtins, "eval", lambda *a, **k: called.append(a))
    monkeypatch.setattr(builtins, "exec", lambda *a, **k: called.append(a))
    for text in CODE_LIKE:
        assert not grade(text, MS64).correct or text in ("6.4e1",)
    assert not called
    import ast
    tree = ast.parse(open(answers.__file__, encoding="utf-8").read())
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    imported = {a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    assert not names & {"eval", "exec", "compile", "__import__"}
    assert not attrs & {"literal_eval", "sympify", "parse_expr"} and not imported & {"sympy", "ast"}
