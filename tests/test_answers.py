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
    ("$12,000", Answer(12000, "USD"), True), ("US$12,000", Answer(12000, "USD"), True),
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


# ---- the review of December 2026: natural input read, garbage refused, the rule and its messages ----

NATURAL = [  # (typed, answer): each is right
    ("~4.8 ms", Answer(4.77, "ms")), ("≈4.77 ms", Answer(4.77, "ms")), ("≈300", Answer(295.3, "FLOP/B")),
    ("约 300", Answer(295.3, "FLOP/B")), ("1/8", Answer(0.125, "")), ("1/6", Answer(1 / 6, "")),
    ("2 megabytes", Answer(2e6, "B")), ("112 gigabytes", Answer(112, "GB")), ("3.35 TB/sec", Answer(3350, "GB/s")),
    ("3350 GBps", Answer(3350, "GB/s")), ("990 TFLOP/sec", Answer(989.4e12, "FLOP/s")),
    ("4.77 ms/token", Answer(4.77, "ms")), ("4.77 ms per token", Answer(4.77, "ms")),
    ("4.77·10⁻³ s", Answer(4.77, "ms")), ("4.77×10⁻³ s", Answer(4.77, "ms")), ("1.83×10³ MHz", Answer(1830, "MHz")),
    ("$572", Answer(572.3, "USD")), ("US$572", Answer(572.3, "USD")), ("USD 572", Answer(572.3, "USD")),
    ("295 FLOP/B", Answer(295.3, "FLOP/B")), ("295 flop/byte", Answer(295.3, "FLOP/B")), ("1 FLOPs/B", Answer(1, "FLOP/B")),
    ("每字节 295 次", Answer(295.3, "FLOP/B")), ("4.250 位", Answer(4.25, "bits")), ("320 KiB", Answer(327.68, "KB")),
    ("0.3125 MiB", Answer(327.68, "KB")), ("16 warps", Answer(16, "warps", rel_tol=0)),
    ("16 warp", Answer(16, "warps", rel_tol=0)), ("16 个 warp", Answer(16, "warps", rel_tol=0)),
    ("16个", Answer(16, "warps", rel_tol=0)), ("2 块", Answer(2, "GPUs", rel_tol=0)), ("2 GPUs", Answer(2, "GPUs", rel_tol=0)),
    ("7 个副本", Answer(7, "replicas", rel_tol=0)),
]
GARBAGE = [  # (typed, answer): each is refused as unreadable, never graded right
    ("16e", Answer(16, "warps", rel_tol=0)), ("16 e", Answer(16, "warps", rel_tol=0)), ("16e-", Answer(16, "warps", rel_tol=0)),
    ("16 E", Answer(16, "warps", rel_tol=0)), ("16 nan", Answer(16, "warps", rel_tol=0)),
    ("16 bananas", Answer(16, "warps", rel_tol=0)), ("4.773²", Answer(4.773, "ms")), ("4.773² ms", Answer(4.773, "ms")),
    ("2⁴ warps", Answer(24, "warps", rel_tol=0)), ("2⁴", Answer(24, "")), ("½", Answer(0.5, "")), ("5e-400", Answer(0, "")),
    ("16 warps", Answer(16, "")), ("4.77 furlongs", Answer(4.77, "ms")), ("1/0", Answer(1, "")),
]


@pytest.mark.parametrize("typed, expected", NATURAL, ids=[t for t, _ in NATURAL])
def test_natural_input_is_read(typed, expected):
    for lang in ("en", "zh"):
        v = grade(typed, expected, lang)
        assert v.correct, (typed, lang, v)


@pytest.mark.parametrize("typed, expected", GARBAGE, ids=[t for t, _ in GARBAGE])
def test_anything_that_is_not_a_number_a_unit_or_a_word_is_refused(typed, expected):
    for lang in ("en", "zh"):
        v = grade(typed, expected, lang)
        assert not v.correct and v.status == "unreadable", (typed, lang, v)


def test_bits_and_bytes_follow_the_case_of_the_b():
    assert parse("50 Kb").dimension == "bits" and parse("50 KB").dimension == "bytes"
    assert parse("400 Gb/s").dimension == parse("400 Gbps").dimension == "bit_rate"
    assert parse("400 GB/s").dimension == parse("400 GBps").dimension == "bandwidth"


def test_two_significant_figures_are_enough_unless_the_answer_is_a_count():
    for typed, key in [("300", 295.3), ("1.8 GHz", 1830), ("1.4", 1.43), ("3.6", 3.56), ("17%", 0.1667),
                       ("3.3 TB/s", 3347), ("3.9 ms", 3.89)]:
        unit = {"1.8 GHz": "MHz", "17%": "fraction", "3.3 TB/s": "GB/s", "3.9 ms": "ms"}.get(typed, "×")
        assert grade(typed, Answer(key, unit)).correct, typed
    assert not grade("290", Answer(295.3, "FLOP/B")).correct and not grade("4 ms", Answer(3.89, "ms")).correct
    assert not grade("300", Answer(295.3, "FLOP/B"), sig_figs=None).correct     # a question that states its precision
    exact = Answer(16, "warps", rel_tol=0)
    assert grade("16", exact).correct and not grade("16.4", exact).correct and not grade("17", exact).correct
    assert answers.agrees(0.0097, 0.009672) and not answers.agrees(0.010, 0.009672)     # a decade boundary


def test_feedback_echoes_what_was_typed_in_the_pages_language():
    v = grade("46.8%", Answer(0.4681, "fraction"))
    assert v.correct and "46.8 %" in v.message and "4680" not in v.message
    assert "4680" not in grade("46.8%", Answer(0.4681, "fraction"), "zh").message
    for typed in ("24", "16.5 warps", "hello"):
        assert "exactly" not in grade(typed, Answer(16, "warps", rel_tol=0)).message
    zh = grade("3", Answer(2, "requests", rel_tol=0), "zh").message
    assert "个请求" in zh and "requests" not in zh, zh
    assert "美元" in grade("100", Answer(572.3, "USD"), "zh").message
    assert "FLOP/B" in grade("64 ms", Answer(295.3, "FLOP/B")).message     # the example names the answer's unit


def test_a_binary_prefix_slip_gets_its_own_hint():
    for typed in ("320", "320 KB"):
        for lang, word in (("en", "KiB"), ("zh", "KiB")):
            v = grade(typed, Answer(327.68, "KB"), lang)
            assert not v.correct and word in v.message and "1.024" in v.message, (typed, v.message)
    assert "1.048576" in grade("16", Answer(16.777216, "MB")).message
    assert "KiB" not in grade("330", Answer(327.68, "KB")).message and grade("330", Answer(327.68, "KB")).correct


CHOICE_EN, CHOICE_ZH = ("Twice the peak FLOP/s", "Twice the memory bandwidth", "A faster CPU"), ("峰值算力翻倍", "显存带宽翻倍", "更快的 CPU")


@pytest.mark.parametrize("typed", ["b", "B", "(b)", "b.", "b)", "option b", "Option B", "选b", "选 B", "（ｂ）", "answer b",
                                   "Twice the memory bandwidth", "twice the memory bandwidth.", "显存带宽翻倍",
                                   "(b) Twice the memory bandwidth", "b. 显存带宽翻倍"])
def test_a_choice_is_read_in_every_common_form_on_both_pages(typed):
    for lang, shown, other in (("en", CHOICE_EN, CHOICE_ZH), ("zh", CHOICE_ZH, CHOICE_EN)):
        v = grade_choice(typed, shown, shown[1], lang, other=other)
        assert v.correct, (typed, lang, v)
        assert any("\u4e00" <= c <= "\u9fff" for c in v.message) == (lang == "zh"), v.message


def test_a_padded_or_wrong_choice_is_refused():
    for typed in ("b" + " " * 90 + "nonsense", "b" + " " * 85, "d", "(a) Twice the memory bandwidth", "bb", "b c"):
        v = grade_choice(typed, CHOICE_EN, CHOICE_EN[1], "en", other=CHOICE_ZH)
        assert not v.correct, (typed, v)
    assert grade_choice("a", CHOICE_EN, CHOICE_EN[1], "zh", other=CHOICE_ZH).message == "不对：（a）不是答案。"


def test_a_chinese_classifier_before_the_answers_unit_is_read_as_that_unit():
    # the Chinese feedback writes "2,474 个 token"; typed back, it is the answer
    from infra_lib.answers import grade
    from infra_lib.exercises import Answer
    key = Answer(2474, "tokens")
    assert grade("2,474 个 token", key, "zh").correct and grade("2474 tokens", key, "zh").correct
    assert not grade("2,474 个 token", Answer(2474, "ms"), "zh").correct          # another dimension: not read as ms
    assert grade("3,000 个 token", key, "zh").status == "wrong_number"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_answers_own_unit_typed_after_the_number_is_read(lang):
    """A unit the table does not know ("wafers/month", "thousand GPUs") is still the answer's own:
    typed after the number, exactly as the answer names it, it is read; anything else is not."""
    key = Answer(6159.38, "wafers/month")
    assert grade("6,159 wafers/month", key, lang).correct and grade("6200 Wafers/Month", key, lang).correct
    assert not grade("7,000 wafers/month", key, lang).correct
    assert grade("6159 wafers/monthx", key, lang).status == "unreadable"
    assert grade("6159 ms wafers/month", key, lang).status == "unreadable"     # one unit, not two
    assert grade("110 thousand GPUs", Answer(110.04, "thousand GPUs"), lang).correct


def test_a_value_already_in_percent_is_shown_as_it_is():
    """An answer in "%" (49.99 %) and one as a fraction (0.4999) both print as 49.99 %."""
    assert "expected 49.99 %" in grade("50 %", Answer(49.99, "%")).message
    assert "expected 49.99 %" in grade("50 %", Answer(0.4999, "fraction")).message


def test_a_text_answer_with_full_width_punctuation_matches_itself():
    key = Answer("拒绝：已没有可放置 1g.10gb 的空位")
    assert grade("拒绝：已没有可放置 1g.10gb 的空位", key, "zh").correct
    assert grade("拒绝:已没有可放置 1g.10gb 的空位", key, "zh").correct
    assert not grade("接受", key, "zh").correct
