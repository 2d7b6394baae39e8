"""The Chinese edition's wording and typography: one term per concept across chapters, Chinese
quotation marks, bold (not italics) for terms, Chinese words inside formulas.

Only the prose is read: code cells, fenced code, inline code, maths (except where a check is about
maths), URLs and HTML tags are left out. To change a chosen term, change TERMS and the chapters
together.
"""
import re

import pytest

import prose

ZH_PAGES = prose.pages("zh")
IDS = [str(p.relative_to(prose.ROOT)) for p in ZH_PAGES]
CJK = r"\u3400-\u9fff\uf900-\ufaff"

# concept: (the chosen term, [rejected variants as regular expressions])
TERMS = {
    "memory hierarchy": ("内存层级", [r"存储层次", r"存储层级", r"内存层次"]),
    "kernel launch": ("发射", [r"kernel\s*启动", r"启动[^，。；：\n]{0,8}kernel"]),
    "interposer": ("中介层", [r"(?<!silicon )interposer"]),         # English only as a gloss: 硅中介层（silicon interposer）
    "the widget section": ("动手改假设", [r"动手改改假设"]),
    "the Sources section": ("资料来源", [r"^#+\s*参考资料"]),
    "a conclusion that flips": ("翻转", [r"反转"]),
    "cache miss rate": ("缺失率", [r"失效率", r"未命中率"]),
    "cache miss penalty": ("缺失代价", [r"失效惩罚", r"缺失惩罚"]),
    # the cross-chapter decisions of the December native reading (issue 23: X1, X2, X4, X5, 8-6, 7-10)
    "the chapter's opening line": ("本章最该记住的是", [r"要带走的数字", r"要记住的数字是", r"这一章最该记住"]),
    # "N times faster" reads as N + 1 times in Chinese: "是原来的 N 倍", "为……的 N 分之一"
    "a ratio of speeds": ("是原来的……倍", [r"[快慢]了?\s*\{glue:text\}\s*倍", r"快\s*\d[\d.,]*\s*倍"]),
}
# The title of the sliders box ("live in your browser, or on your machine"), the same in every chapter.
RUN_BOX_TITLE = "滑块：在浏览器里直接运行，或在你自己的机器上运行"

_DROP = [
    re.compile(r"\$\$.*?\$\$", re.S),                  # display maths
    re.compile(r"(?<!\$)\$(?!\$)[^$\n]+\$"),           # inline maths
    re.compile(r"`[^`\n]*`"),                          # inline code and roles' targets
    re.compile(r"https?://\S+"),
    re.compile(r"<[^>\n]+>"),                          # HTML tags and their attributes
    re.compile(r"^:[\w-]+:.*$", re.M),                 # directive options
]


def markdown(page):
    cells, _ = prose.page_cells(page)
    return "\n".join(prose.blank_code_fences(src) for kind, src, _ in cells if kind == "markdown")


def prose_text(page):
    text = markdown(page)
    for pattern in _DROP:
        text = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return text


def quote_problems(text):
    """Lines whose quotation marks do not pair as “…” (a ” that opens, a “ that never closes),
    and ASCII double quotes in a line of Chinese prose."""
    problems = []
    for line in text.split("\n"):
        if '"' in line and re.search(f"[{CJK}]", line):
            problems.append(f"ASCII \" in Chinese prose (use “ ”): {line.strip()[:80]}")
        depth, wrong = 0, None            # the first mismatch of the line is reported
        for m in re.finditer(r"[“”]", line):
            if m.group(0) == "“":
                wrong = wrong or ("“ inside a quotation (nest with ‘ ’)" if depth else None)
                depth += 1
            else:
                wrong = wrong or (None if depth else "” opens a quotation (use “)")
                depth = max(0, depth - 1)
        wrong = wrong or ("“ never closed" if depth else None)
        if wrong:
            problems.append(f"{wrong}: {line.strip()[:80]}")
    return problems


ITALIC = re.compile(r"(?<![*\\])\*(?![*\s])([^*\n]+?)(?<![\s*\\])\*(?!\*)")


def italic_spans(text):
    return [m.group(0) for m in ITALIC.finditer(text)]


TEXT_IN_FORMULA = re.compile(r"(?<!_)(?<!_\{)\\text\{([^{}]*)\}")


def english_in_formulas(md):
    """\\text{...} in a formula (not a subscript such as W_{\\text{logic}}) that is English words."""
    maths = re.findall(r"\$\$.*?\$\$|(?<!\$)\$(?!\$)[^$\n]+\$", md, re.S)
    found = []
    for formula in maths:
        for m in TEXT_IN_FORMULA.finditer(formula):
            words = m.group(1)
            if not re.search(f"[{CJK}]", words) and re.search(r"[a-z]{3,}", words):
                found.append(words)
    return found


# --- the checks on the pages ------------------------------------------------------------------

@pytest.mark.parametrize("page", ZH_PAGES, ids=IDS)
def test_one_term_per_concept(page):
    text = prose_text(page)
    if page.name == "glossary.md":      # the glossary glosses each term with its English name on purpose
        text = re.sub(r"（[^（）]*(?:（[^（）]*）[^（）]*)*）$", "", text, flags=re.M)
    problems = []
    for concept, (chosen, rejected) in TERMS.items():
        for pattern in rejected:
            for m in re.finditer(pattern, text, re.M):
                context = " ".join(text[max(0, m.start() - 20):m.end() + 20].split())
                problems.append(f"{m.group(0)!r} for {concept}; the course writes {chosen!r}: …{context}…")
    assert not problems, f"{page.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", ZH_PAGES, ids=IDS)
def test_quotation_marks(page):
    problems = quote_problems(prose_text(page))
    assert not problems, f"{page.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", ZH_PAGES, ids=IDS)
def test_terms_are_bold_not_italic(page):
    """Chinese fonts have no italic: emphasis and new terms are **bold**."""
    spans = italic_spans(prose_text(page))
    assert not spans, f"{page.name}: italic spans (write **…**): {spans[:10]}"


@pytest.mark.parametrize("page", ZH_PAGES, ids=IDS)
def test_formulas_speak_chinese(page):
    found = english_in_formulas(markdown(page))
    assert not found, f"{page.name}: English words in \\text{{}} of a formula: {found}"


@pytest.mark.parametrize("page", ZH_PAGES, ids=IDS)
def test_run_it_yourself_box_has_one_title(page):
    titles = re.findall(r"^(?:`{3,}|:{3,})\{admonition\}\s*(.*自己的机器.*)$", markdown(page), re.M)
    assert all(t.strip() == RUN_BOX_TITLE for t in titles), f"{page.name}: {titles} (the course writes {RUN_BOX_TITLE!r})"


# --- the checks themselves catch what they should ---------------------------------------------

@pytest.mark.parametrize("line, n", [
    ("Intel 写道：“64 FP32 operations per cycle”。", 0),
    ("Intel 写道：”64 FP32 operations per cycle”。", 1),       # ASCII quotes turned into closing marks
    ("”开头就是闭合号”", 1),
    ("Intel 写道：\"64 FP32\"。", 1),                           # ASCII quotes in Chinese prose
    ("He said \"hi\".", 0),                                     # English prose is not checked
    ("“外层“内层”外层”", 1),
    ("“没有闭合", 1),
])
def test_quote_check_catches(line, n):
    assert len(quote_problems(line)) == n, quote_problems(line)


def test_italic_check_catches():
    assert italic_spans("一个*术语*和**粗体**") == ["*术语*"]
    assert italic_spans("$a*b$ 之外 2 * 3 与 **粗体**") == []


def test_formula_check_catches():
    assert english_in_formulas(r"$$\text{BW} = \text{channels} \times \text{每秒传输次数}$$") == ["channels"]
    assert english_in_formulas(r"$W_{\text{logic}} \cdot \text{GPU 数}$") == []


def test_rejected_terms_are_caught():
    text = "受 kernel 启动开销限制，存储层次，冷启动"
    hits = [p for _, (_, rejected) in TERMS.items() for p in rejected if re.search(p, text, re.M)]
    assert hits == [r"存储层次", r"kernel\s*启动"]


# --- search: jieba cuts the index with the course's own terms -----------------------------------

def test_search_dictionary_is_loaded_and_used():
    """The Chinese build hands jieba book/zh/jieba-userdict.txt (Sphinx's html_search_options
    'dict'), so that a term such as 已知良品裸片 is one word in the index; every term in it is
    one the Chinese edition uses."""
    import yaml

    overrides = yaml.safe_load((prose.ROOT / "book/zh/config-overrides.yml").read_text(encoding="utf-8"))
    path = prose.ROOT / overrides["sphinx"]["config"]["html_search_options"]["dict"]
    assert path.is_file(), path
    words = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        assert len(parts) in (1, 2, 3) and (len(parts) < 2 or parts[1].isdigit()), f"bad line {line!r} in {path.name}"
        words.append(parts[0])
    text = "\n".join(markdown(p) for p in ZH_PAGES)
    unused = [w for w in words if w not in text]
    assert not unused, f"{path.name}: terms the Chinese edition never uses: {unused}"
    for term in ("中介层", "已知良品裸片", "降级出售", "预填充", "张量核心", "芯粒", "内存层级"):
        assert term in words and term in text, term


@pytest.mark.parametrize("page", ZH_PAGES, ids=IDS)
def test_cross_references_have_short_link_texts(page):
    """A bare {doc}`00_overview` prints the whole chapter title mid-sentence ("还是拿概览：一次请求
    背后的整条链路里那台机器来看"): write the link text, {doc}`概览 <00_overview>`."""
    bare = re.findall(r"\{doc\}`([^`<>]+)`", markdown(page))
    assert not bare, f"{page.name}: {{doc}} without a link text: {bare}"


def test_speed_ratios_are_caught():
    """A glued ratio after 快/慢 ("快 {glue:text}`k` 倍", as prose_text leaves it) is refused; "是原来的 N 倍" is not."""
    ratio = TERMS["a ratio of speeds"][1]
    assert [p for p in ratio if re.search(p, "ms，快 {glue:text} 倍。")] == [ratio[0]]
    assert [p for p in ratio if re.search(p, "慢了 {glue:text} 倍")] == [ratio[0]]
    assert [p for p in ratio if re.search(p, "快 2.5 倍")] == [ratio[1]]
    assert not [p for p in ratio if re.search(p, "速度是原来的 {glue:text} 倍，快了不少")]


# --- punctuation that code puts into Chinese text (issue 23, X9) ---------------------------------

# After a Chinese character, a colon, semicolon, comma, question or exclamation mark, or a parenthesis is
# full-width (：；，？！（）); half-width belongs to English text and to formulas.
HALF_WIDTH_AFTER_CJK = re.compile(f"[{CJK}]\\s*[:;,?!()]")
# labels that are formulas, where half-width is right: label key -> why
FORMULA_LABELS = {"cpu_reading_overlap": "a formula, max(a, b), after the full-width colon"}


def half_width_problems(text):
    """The spots in ``text`` where a half-width mark follows a Chinese character."""
    return [text[max(0, m.start() - 12):m.end() + 12] for m in HALF_WIDTH_AFTER_CJK.finditer(text)]


def test_half_width_check_catches():
    assert half_width_problems("提示: 先算字节数") and half_width_problems("对象存储 (1 GB/s)")
    assert half_width_problems("必须是 0 (不做), 1 (选择性)")
    assert not half_width_problems("提示：先算字节数；对象存储（1 GB/s）") and not half_width_problems("KV cache: 1 GB")


def test_chinese_labels_have_full_width_punctuation():
    import tomllib
    labels = tomllib.loads((prose.ROOT / "infra_lib/data/labels.toml").read_text(encoding="utf-8"))
    assert set(FORMULA_LABELS) <= set(labels), set(FORMULA_LABELS) - set(labels)
    problems = {key: half_width_problems(texts["zh"]) for key, texts in labels.items() if key not in FORMULA_LABELS}
    problems = {key: spots for key, spots in problems.items() if spots}
    assert not problems, f"labels.toml, zh: half-width punctuation after a Chinese character (use ：；，（）): {problems}"


def _visible(fragment):
    """The text a reader sees in a widget's HTML, without tags, code and maths."""
    import html
    fragment = re.sub(r"<code>.*?</code>|\$[^$]*\$", " ", fragment, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_widget_tables_and_messages_are_full_width():
    """Each widget's table at its defaults and at a value it refuses, in Chinese: the label and value pairs,
    lists and brackets that code joins use the full-width marks."""
    import importlib
    import pkgutil

    from infra_lib import widgets
    from infra_lib.widgets import panel

    problems = []
    for info in pkgutil.iter_modules(widgets.__path__):
        module = importlib.import_module(f"infra_lib.widgets.{info.name}")
        if not hasattr(module, "CONTROLS") or not hasattr(module, "summary"):
            continue
        p = panel.Panel(module.CONTROLS, module.summary)
        tries = [p.defaults()] + [{**p.defaults(), c.name: c.max * 10 + 1} for c in module.CONTROLS]
        for values in tries:
            spots = half_width_problems(_visible(p.render("zh", values)))
            problems += [f"{info.name} {values}: {s!r}" for s in spots]
    assert not problems, "\n".join(problems)


def test_quiz_feedback_is_full_width():
    """The review's feedback in Chinese (a wrong option with its misconception, a wrong number, the answer
    shown): no half-width colon or bracket after a Chinese character, outside formulas."""
    from infra_lib import review
    from infra_lib.widgets import quiz

    problems = []
    for q in review.questions():
        wrong = "a" if q.options is not None else "12345 GB"
        verdict = quiz.check(q.id, wrong, "zh")
        shown = _visible(quiz.feedback_html(q.id, verdict, "zh", typed=wrong, wrong_tries=quiz.WRONG_TRIES))
        shown = re.sub(r"[\w.]+\([^()]*\)|\([^()]*[=×/+−][^()]*\)", " ", shown)     # formulas: f(a, b), (a × b)
        problems += [f"{q.id}: {s!r}" for s in half_width_problems(shown)]
    assert not problems, "\n".join(problems)
