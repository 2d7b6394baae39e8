"""The prose and parity guards, as functions the tests call (and you can call by hand).

Prose: every number in a chapter's text must be inserted from code with a glue role, so the
text cannot drift from the library. A number counts as *typed by hand* when it stands on its
own (not part of a name such as H100, 8B, Gen5, V1.04, 4-bit or, in Chinese, 4 位) and is not
one of the page's explicitly allowed phrases (front matter ``course: allowed_numbers``) or a
citation pattern (section, table, chapter or list numbers).

Parity: the English and Chinese twins must have identical code cells (except the one cell
tagged ``edition``), the same glue keys used in the prose, the same figures, the same heading
structure, the same cross-reference labels (exercise and equation labels included) and the same
citations.
"""
import re
from pathlib import Path

import jupytext
import yaml

from infra_lib.i18n import LANGUAGES as EDITIONS  # the editions (book/tools/course.py takes them from there too)

ROOT = Path(__file__).resolve().parents[1]

GLUE_ROLE = re.compile(r"\{glue(?::\w+)?\}`([^`\n]*)`")
GLUE_DIRECTIVE = re.compile(r"^(`{3,}|:{3,})\{glue(?::\w+)?\}\s+(\S+)", re.M)
LABEL = re.compile(r"^\(([\w-]+)\)=\s*$", re.M)
NAME_OPTION = re.compile(r"^:name:\s*(\S+)", re.M)
LABEL_OPTION = re.compile(r"^:label:\s*(\S+)", re.M)                  # {exercise}, {math}
EQUATION_LABEL = re.compile(r"^\s*\$\$\s*\(([\w-]+)\)\s*$", re.M)        # $$ ... $$ (eq-label)
CITE_ROLE = re.compile(r"\{cite(?::\w+)?\}`([^`\n]*)`")
# Directives whose argument is prose (a title): its numbers are checked like the text's.
TITLED_DIRECTIVES = ("admonition", "exercise")
DIRECTIVE_LINE = re.compile(r"^(`{3,}|:{3,})\{([\w:-]+)\}(.*)$", re.M)
HEADING = re.compile(r"^(#{1,6})\s", re.M)
# What is removed before looking for numbers: code, glue, roles' targets, URLs, HTML, options.
STRIP = [
    GLUE_ROLE,
    re.compile(r"\{[\w:-]+\}`[^`\n]*`"),                           # other roles: {ref}`...`, {doc}`...`
    re.compile(r"`[^`\n]*`"),                                      # inline code
    re.compile(r"https?://\S+"),
    re.compile(r"<[^>\n]+>"),
    # directive lines: see _blank_directive_lines (a title is kept, a target is removed)
    re.compile(r"^:[\w-]+:.*$", re.M),                          # directive options (:label:, :class:, :filter:)
    re.compile(r"^\([\w-]+\)=\s*$", re.M),                      # labels
    re.compile(r"^\s*\$\$\s*\([\w-]+\)\s*$", re.M),                # the closing $$ of a labelled equation
]
CITATION = [
    re.compile(r"§\s?\d+(\.\d+)*"),
    re.compile(r"\b(Table|Tables|Figure|chapter|chapters|Chapter|layer|Layer)s?\s+\d+(\s*(and|,|–|-)\s*\d+)*"),
    re.compile(r"第\s*\d+\s*(章|层|节)"),
    re.compile(r"(表|图)\s*\d+"),
    re.compile(r"^\s*\d+\.\s", re.M),                           # numbered list items
    re.compile(r"^\s*\*\*\d+\.\*\*", re.M),                     # bold exercise numbers
    re.compile(r"\|\s*\d+\.\s"),                                # numbered table rows
]
# A number format's bit width as Chinese typography writes it, "4 位" (GB/T 15835: digits for
# counts and measures, not "四位", which also reads as "four digits"): the twin of the English
# "4-bit", which NUMBER already reads as part of a name. Only whole element widths (INT4, FP8,
# BF16, FP32, FP6, 3-bit GPTQ, 2-bit) and not before 数 ("4 位数" is a four-digit number): a
# worked value such as "4.25 位" per parameter, or "12 位", is still a typed number.
BIT_WIDTH_ZH = re.compile(r"(?<![\w.,\d-])(?:2|3|4|6|8|16|32)\s?位(?!数)")
NAMES = [BIT_WIDTH_ZH]
# A number on its own: not inside a name such as H100, 8B, Llama-3-8B, ConnectX-7 or V1.04.
NUMBER = re.compile(r"(?<![\w.,\d-])(\d+(?:[,.]\d+)*)(?![\w\d]|-\w)")


def _is_notebook(path):
    return path.suffix == ".md" and "kernelspec" in path.read_text(encoding="utf-8")[:600]


def page_cells(path):
    """(kind, source, metadata) per cell; a plain Markdown page is one markdown cell."""
    path = Path(path)
    if _is_notebook(path):
        nb = jupytext.read(path)
        return [(c.cell_type, c.source, c.metadata) for c in nb.cells], nb.metadata
    text = path.read_text(encoding="utf-8")
    meta = {}
    if text.startswith("---\n"):
        header, text = text[4:].split("\n---\n", 1)
        meta = yaml.safe_load(header) or {}
    return [("markdown", text, {})], meta


def allowed_phrases(meta):
    return [str(x) for x in meta.get("course", {}).get("allowed_numbers", [])]


def typed_numbers(text, allowed=()):
    """Numbers written by hand in markdown ``text``: a list of (line number, number, line)."""
    lines = text.split("\n")
    found = []
    for i, line in enumerate(lines, 1):
        found += [(i, n, line) for n in _numbers_in(line, allowed)]
    # fenced code spans several lines: strip it on the whole text, then map back by line
    kept = set(_numbers_in_block(text, allowed))
    return [f for f in found if (f[0], f[1]) in kept]


FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})(.*)$")


def blank_code_fences(text):
    """Blank the lines of fenced code blocks; keep directive fences ({admonition}, ...) and their text."""
    out, stack = [], []   # stack of (fence, is_code)
    for line in text.split("\n"):
        m = FENCE.match(line)
        if m and stack and m.group(1)[0] == stack[-1][0][0] and len(m.group(1)) >= len(stack[-1][0]) \
                and not m.group(2).strip():
            stack.pop()
            out.append("")
            continue
        if m and m.group(2).strip() and (not stack or not stack[-1][1]):
            stack.append((m.group(1), not m.group(2).lstrip().startswith("{")))
            out.append("" if stack[-1][1] else line)
            continue
        out.append("" if stack and stack[-1][1] else line)
    return "\n".join(out)


def _blank_directive_lines(text):
    """Blank each directive line; keep the argument of a titled one ({exercise} A 70B model), whose
    numbers are prose, and blank any other argument (a glue key, a label, a language)."""
    def blank(m):
        keep = m.group(2) in TITLED_DIRECTIVES
        head = m.group(1) + "{" + m.group(2) + "}"
        return " " * len(head) + (m.group(3) if keep else " " * len(m.group(3)))
    return DIRECTIVE_LINE.sub(blank, text)


def cited_keys(md):
    """The bibliography keys cited with {cite}, {cite:p}, {cite:t} in ``md``, pre- and post-text removed."""
    keys = []
    for target in CITE_ROLE.findall(md):
        for part in target.split(","):
            keys.append(re.sub(r"\{[^{}]*\}", "", part).strip())
    return keys


# In a formula, 0 and 1 are the formula's own constants ($\delta_a = 1$, $1 - p$), not data: written as
# digits, never spelled out. Any other number in a formula is still checked ($t = 2NP / 5$ names the 5).
INLINE_MATH = re.compile(r"(?<!\$)\$(?!\$)[^$\n]+\$")
FORMULA_CONSTANT = re.compile(r"(?<![\w.,\d])[01](?![\w\d]|[.,]\d)")


def _clean(text, allowed):
    text = _blank_directive_lines(blank_code_fences(text))
    text = INLINE_MATH.sub(lambda m: FORMULA_CONSTANT.sub(" ", m.group(0)), text)
    for pattern in STRIP + CITATION + NAMES:
        text = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    for phrase in sorted(allowed, key=len, reverse=True):
        text = re.sub(r"(?<![\w.,\d])" + re.escape(phrase) + r"(?![\w\d]|[.,]\d)",
                      lambda m: " " * len(m.group(0)), text)
    return text


def _numbers_in(line, allowed):
    return [m.group(1) for m in NUMBER.finditer(_clean(line, allowed))]


def _numbers_in_block(text, allowed):
    cleaned = _clean(text, allowed)
    for i, line in enumerate(cleaned.split("\n"), 1):
        for m in NUMBER.finditer(line):
            yield (i, m.group(1))


def check_page(path, name=None):
    """Messages naming the page, the line and each number typed by hand in its prose."""
    name = name or Path(path).relative_to(ROOT)
    cells, meta = page_cells(path)
    allowed = allowed_phrases(meta)
    problems = []
    for kind, source, _ in cells:
        if kind != "markdown":
            continue
        for line_no, number, line in typed_numbers(source, allowed):
            problems.append(f"{name}: number {number!r} typed in prose "
                            f"(insert it with a glue role or list it in allowed_numbers): {line.strip()[:120]}")
    return problems


def pages(lang):
    """Every page of one edition, in table-of-contents order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    return [ROOT / (f.replace("/en/", f"/{lang}/") + ".md") for f in files]


def structure(path):
    """What must match between twins."""
    cells, _ = page_cells(path)
    md = "\n".join(s for k, s, _ in cells if k == "markdown")
    code = [(s, sorted(m.get("tags", []))) for k, s, m in cells if k == "code" and "edition" not in m.get("tags", [])]
    editions = [s for k, s, m in cells if k == "code" and "edition" in m.get("tags", [])]
    return {
        "code cells": code,
        "edition cells": len(editions),
        "glue keys in prose": sorted({g.split(":")[0] for g in GLUE_ROLE.findall(md)}),
        "figures": [m.group(2) for m in GLUE_DIRECTIVE.finditer(md)],
        "headings": [len(h) for h in HEADING.findall(_clean_fences(md))],
        "sections": sections("\n\n".join(s for k, s, _ in cells if k == "markdown")),
        "labels": LABEL.findall(md) + NAME_OPTION.findall(md) + LABEL_OPTION.findall(md) + EQUATION_LABEL.findall(md),
        "citations": sorted(set(cited_keys(md))),
        "edition_source": editions,
    }


def _clean_fences(md):
    return blank_code_fences(md)


SEPARATOR = re.compile(r"^\s*((`{3,}|:{3,}).*|:[\w-]+:.*|\([\w-]+\)=|<!--.*-->|\$\$.*)$")


def sections(md):
    """(level, heading text, paragraphs) for the text before the first heading and each section.

    A paragraph is a block of consecutive prose lines: code fences, directive fences and options,
    labels and display-math fences separate blocks and are not counted. Twins must agree on the
    count in every section, so a paragraph lost in translation is named by its section."""
    out, count, inside = [], 0, False
    level, title = 0, "(before the first heading)"
    for line in blank_code_fences(md).split("\n") + [""]:
        heading = re.match(r"^(#{1,6})\s+(.*)$", line)
        if heading or not line.strip() or SEPARATOR.match(line):
            inside = False
            if heading:
                out.append((level, title, count))
                level, title, count = len(heading.group(1)), heading.group(2).strip(), 0
            continue
        if not inside:
            count += 1
            inside = True
    out.append((level, title, count))
    return out


def _section_problems(name, en, zh):
    """Headings missing in one twin, named by their text; paragraph counts that differ, by section."""
    import difflib

    problems = []
    en_levels, zh_levels = [s[0] for s in en], [s[0] for s in zh]
    if en_levels != zh_levels:
        matcher = difflib.SequenceMatcher(a=en_levels, b=zh_levels, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag in ("delete", "replace"):
                problems += [f"{name}: heading {'#' * en[i][0]} {en[i][1]!r} has no twin in the Chinese page "
                             f"(after {zh[j1 - 1][1]!r})" if j1 else f"{name}: heading {en[i][1]!r} missing in zh"
                             for i in range(i1, i2)]
            if tag in ("insert", "replace"):
                problems += [f"{name}: the Chinese page has a heading {'#' * zh[j][0]} {zh[j][1]!r} that the "
                             f"English one lacks" for j in range(j1, j2)]
        return problems                     # sections do not line up: paragraph counts would mislead
    for (level, en_title, en_n), (_, zh_title, zh_n) in zip(en, zh):
        if en_n != zh_n:
            problems.append(f"{name}: section {en_title!r} / {zh_title!r} has {en_n} paragraph(s) in English "
                            f"and {zh_n} in Chinese")
    return problems


def parity_problems(en_path, zh_path):
    """Differences between twin pages, each naming the page and what differs."""
    en, zh = structure(en_path), structure(zh_path)
    name = Path(en_path).relative_to(ROOT)
    problems = []
    # headings: named by their text in _section_problems below
    for key in ("code cells", "edition cells", "glue keys in prose", "figures", "labels", "citations"):
        if en[key] != zh[key]:
            detail = ""
            if key == "code cells":
                diff = [i for i, (a, b) in enumerate(zip(en[key], zh[key])) if a != b]
                detail = f" (first difference in code cell {diff[0] + 1})" if diff else f" ({len(en[key])} vs {len(zh[key])})"
            elif isinstance(en[key], list):
                only_en = [x for x in en[key] if x not in zh[key]]
                only_zh = [x for x in zh[key] if x not in en[key]]
                detail = f" (only in en: {only_en[:5]}; only in zh: {only_zh[:5]})" if (only_en or only_zh) else " (order differs)"
            problems.append(f"{name} and its twin differ in {key}{detail}")
    problems += _section_problems(name, en["sections"], zh["sections"])
    for lang, s, path in (("en", en, en_path), ("zh", zh, zh_path)):
        if s["edition cells"] == 1 and f'LANG = "{lang}"' not in s["edition_source"][0]:
            problems.append(f"{Path(path).relative_to(ROOT)}: its edition cell must set LANG = \"{lang}\"")
    return problems
