"""Parity guard: the English and Chinese twins have the same code, numbers, figures and structure."""
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
