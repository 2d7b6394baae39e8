"""Parity guard: the English and Chinese twins have the same code, numbers, figures and structure."""
import re

import pytest

import prose

PAIRS = list(zip(prose.pages("en"), prose.pages("zh")))


@pytest.mark.parametrize("en, zh", PAIRS, ids=[str(e.relative_to(prose.ROOT)) for e, _ in PAIRS])
def test_twins_match(en, zh):
    assert zh.exists(), f"{zh.relative_to(prose.ROOT)} is missing: every page needs its Chinese twin"
    problems = prose.parity_problems(en, zh)
    assert not problems, "\n".join(problems)


def test_every_notebook_has_exactly_one_edition_cell():
    for lang in prose.EDITIONS:
        for page in prose.pages(lang):
            if "notebooks" in page.parts:
                assert prose.structure(page)["edition cells"] == 1, page


def test_a_changed_code_cell_is_caught(tmp_path):
    en, zh = next((e, z) for e, z in PAIRS if "notebooks" in e.parts)
    text = zh.read_text(encoding="utf-8").replace("display=False)", "display=False) ", 1)
    assert text != zh.read_text(encoding="utf-8")
    (tmp_path / "notebooks").mkdir()
    mutated = tmp_path / "notebooks" / zh.name
    mutated.write_text(text, encoding="utf-8")
    assert prose.structure(en)["code cells"] != prose.structure(mutated)["code cells"]


def test_toc_has_no_language_specific_entries():
    """The Chinese table of contents is derived from _toc.yml by swapping /en/ for /zh/."""
    files = [str(p.relative_to(prose.ROOT)) for p in prose.pages("en")]
    assert all("/zh/" not in f for f in files), files


def _zh_copy_without(tmp_path, drop):
    """The Chinese twin of the first chapter with ``drop(lines)`` applied, under a notebooks/zh/ path."""
    en, zh = next((e, z) for e, z in PAIRS if "notebooks" in e.parts)
    lines = zh.read_text(encoding="utf-8").split("\n")
    mutated = tmp_path / "notebooks" / "zh" / zh.name
    mutated.parent.mkdir(parents=True)
    mutated.write_text("\n".join(drop(lines)), encoding="utf-8")
    return en, mutated


def _prose_lines(lines):
    """Indices of lines that are a whole paragraph of Chinese prose (one line per paragraph)."""
    return [i for i, line in enumerate(lines) if line.strip() and i and not lines[i - 1].strip()
            and i + 1 < len(lines) and not lines[i + 1].strip() and re.search(r"[\u4e00-\u9fff]", line)
            and not line.lstrip().startswith(("#", "`", ":", "(", "|", "-", "*", "$", "<"))]


def test_a_lost_paragraph_is_named_by_its_section(tmp_path):
    def drop_one(lines):
        i = _prose_lines(lines)[3]
        return lines[:i] + lines[i + 1:]
    en, mutated = _zh_copy_without(tmp_path, drop_one)
    problems = prose.parity_problems(en, mutated)
    assert any("paragraph(s) in English" in p for p in problems), problems
    section = next(p for p in problems if "paragraph(s) in English" in p)
    heading = [s for s in prose.structure(en)["sections"] if s[1] in section]
    assert heading, f"the message names no English section: {section}"


def test_a_lost_heading_is_named_by_its_text(tmp_path):
    def drop_heading(lines):
        i = next(i for i, line in enumerate(lines) if line.startswith("## "))
        return lines[:i] + lines[i + 1:]
    en, mutated = _zh_copy_without(tmp_path, drop_heading)
    problems = prose.parity_problems(en, mutated)
    first_h2 = next(title for level, title, _ in prose.structure(en)["sections"] if level == 2)
    assert any(repr(first_h2) in p and "no twin" in p for p in problems), problems
