"""Prose guard: no number typed by hand in any page of either edition."""
import re

import pytest

import prose

PAGES = [p for lang in prose.EDITIONS for p in prose.pages(lang)]
IDS = [str(p.relative_to(prose.ROOT)) for p in PAGES]


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_no_number_typed_in_prose(page):
    problems = prose.check_page(page)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_a_hand_typed_number_is_caught_and_named(page, tmp_path):
    """Insert a wrong bandwidth into the page's first paragraph: the guard must name the page and the number."""
    text = page.read_text(encoding="utf-8")
    heading = re.search(r"^# .*$", text, re.M)
    typo = "\n\nThe H100 reads 3,351 GB/s. 这块卡的显存带宽是 3351 GB/s。\n"
    mutated = tmp_path / page.name
    mutated.write_text(text[:heading.end()] + typo + text[heading.end():], encoding="utf-8")
    problems = prose.check_page(mutated, name=f"mutated {page.name}")
    assert any("'3,351'" in p and page.name in p for p in problems), problems
    assert any("'3351'" in p for p in problems), problems


@pytest.mark.parametrize("text, numbers", [
    ("An H100 SXM5 with 80 GB", ["80"]),
    ("Llama-3-8B on ConnectX-7, V1.04, FP8, 8B, x16, 128b/130b", []),
    ("see §4.7, Table 3, chapter 6, layer 3, 第 6 章, 表 1", []),
    ("1. first item\n**2.** exercise", []),
    ("{glue:text}`ov_x:.1f` ms and `code 42` and https://example.com/7", []),
    ("```bash\nmake 99\n```\n", []),
    ("```{admonition} Answer\n12 ms\n```\n", ["12"]),
    ("约 7.8 ms，共 25.6 GB", ["7.8", "25.6"]),
    ("$t = 2NP / 5$", ["5"]),
    ("其中 $\\delta_a = 1$，否则 $\\delta_a = 0$；$(1 - p)^{n}$", []),   # a formula's own 0 and 1
    ("$x = 10$ and $y = 1.5$ and 1 GPU", ["10", "1.5", "1"]),
    ("as {cite:t}`hennessy2017architecture{§1.6}` and {cite:p}`kaplan2020scaling{Table 1},pope2022inference` say", []),
    ("by {eq}`eq-yield-murphy2`, see {numref}`fig-ch3-x`", []),
    ("$$\nY=e^{-AD_0}\n$$ (eq-yield-2)\n", []),
    ("```{exercise} A model of 70 GB\n:label: ch3-ex5\n\nIt takes 12 ms.\n```\n", ["70", "12"]),
    ("```{solution} ch3-ex5\n:class: dropdown\n\n12 ms\n```\n", ["12"]),
    ("```{bibliography}\n:filter: docname in docnames\n```\n", []),
    ("权重量化到 4 位，16 位矩阵乘，3 位或 4 位，8 位下相乘", []),        # a format's bit width, like "4-bit"
    ("每个值 4.25 位，省下 12 位，一个 4 位数，4 到 8 位", ["4.25", "12", "4", "4"]),   # worked numbers stay caught
])

def test_what_counts_as_typed(text, numbers):
    assert [n for _, n, _ in prose.typed_numbers(text)] == numbers


def test_cited_keys_drop_pre_and_post_text():
    assert prose.cited_keys("{cite:p}`{see}a2020{§2},b1961` and {cite:t}`c2009`") == ["a2020", "b1961", "c2009"]


def test_allowed_phrases_are_exact(tmp_path):
    assert prose.typed_numbers("in 2020 and 2021", ["2020"])[0][1] == "2021"


# A reference to an equation writes its own word, "Eq. (6.2)" and "式 (6.2)" (math_eqref_format in
# _config.yml and book/zh/config-overrides.yml): the prose writes the bare {eq}`label`.
TYPED_BEFORE_EQ = {"en": re.compile(r"\b(?:Eqs?\.|[Ee]quations?) ?\{eq\}"), "zh": re.compile(r"(?:公式|式) ?\{eq\}|[\u4e00-\u9fff] \{eq\}")}


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_no_word_typed_before_an_equation_reference(page):
    lang = page.parts[-2]
    found = [m.group(0) for m in TYPED_BEFORE_EQ[lang].finditer(page.read_text(encoding="utf-8"))]
    assert not found, f"{page.name}: the reference writes 'Eq.'/'式' itself; write only {{eq}}`label` (and in Chinese no space before it): {found}"


@pytest.mark.parametrize("lang, text, caught", [("en", "by Eq. {eq}`x`", True), ("en", "by {eq}`x`", False),
                                                ("zh", "由式 {eq}`x`", True), ("zh", "由 {eq}`x`", True), ("zh", "由{eq}`x`", False)])
def test_the_typed_word_finder(lang, text, caught):
    assert bool(TYPED_BEFORE_EQ[lang].search(text)) is caught
