"""Sources: generated from the registry and the measurements (infra_lib.sources), literature from one .bib."""
import re

import jupytext
import pybtex.database
import pytest

import prose
from infra_lib import hardware, i18n, measurements, sources

NOTEBOOKS = [p for lang in prose.EDITIONS for p in prose.pages(lang) if "notebooks" in p.parts]
IDS = [str(p.relative_to(prose.ROOT)) for p in NOTEBOOKS]
BIB = prose.ROOT / "book" / "references.bib"


def bib_keys():
    return set(pybtex.database.parse_file(str(BIB)).entries)


@pytest.mark.parametrize("page", NOTEBOOKS, ids=IDS)
def test_sources_section_is_generated(page):
    """The page resets usage in its first code cell, lists its sources in a remove-input cell of its
    Sources section, and, when it cites literature, a bibliography filtered to its own citations; nothing is typed as a list."""
    nb = jupytext.read(page)
    code = [c for c in nb.cells if c.cell_type == "code" and "edition" not in c.metadata.get("tags", [])]
    assert "sources.reset()" in code[0].source, f"{page.name}: call sources.reset() in the first code cell"
    last = code[-1]
    assert last.source.strip() == "sources.show(LANG)" and last.metadata.get("tags") == ["remove-input"], page.name
    text = page.read_text(encoding="utf-8")
    tail = text[re.search(r"^\(\w+-sources\)=$", text, re.M).end():]
    if "{cite:" in text:                 # a page that cites literature ends with its own bibliography
        assert "```{bibliography}\n:filter: docname in docnames\n```" in tail, page.name
    typed = [line for line in tail.splitlines() if line.startswith("- ")]
    assert not typed, f"{page.name}: hand-typed Sources lines {typed[:2]}: cite them or let the registry list them"


@pytest.mark.parametrize("page", [p for lang in prose.EDITIONS for p in prose.pages(lang)],
                         ids=[str(p.relative_to(prose.ROOT)) for lang in prose.EDITIONS for p in prose.pages(lang)])
def test_every_citation_is_in_the_bibliography(page):
    cells, _ = prose.page_cells(page)
    md = "\n".join(s for k, s, _ in cells if k == "markdown")
    missing = sorted(set(prose.cited_keys(md)) - bib_keys())
    assert not missing, f"{page.name} cites {missing}, which book/references.bib does not have"


def test_every_bibliography_entry_is_cited():
    cited = {k for lang in prose.EDITIONS for p in prose.pages(lang)
             for k in prose.cited_keys(p.read_text(encoding="utf-8"))}
    assert bib_keys() - cited == set()


def test_registry_documents_are_grouped_primary_first():
    sources.reset()
    hardware.value("tsmc_n5", "defect_density_per_cm2")       # reported
    hardware.value("fab_teaching", "nb_alpha")                 # teaching
    hardware.value("h100_sxm5", "mem_bw_Bps")                  # datasheet
    hardware.value("h100_sxm5", "sm_count")                    # datasheet, same document
    hardware.value("h200_sxm", "sm_count")                     # measured
    uses = sources.documents()
    assert [u.group for u in uses] == ["sources_documents", "sources_reported", "sources_measured", "sources_teaching"]
    assert uses[0].source.key == "h100_wp_v104" and len(uses[0].wheres) == 2
    assert uses[0].specs == ("h100_sxm5.mem_bw_Bps", "h100_sxm5.sm_count")


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_markdown_is_in_the_page_language_and_lists_measurement_runs(lang):
    sources.reset()
    hardware.value("h100_sxm5", "mem_bw_Bps")
    assert sources.measurement_runs() == []
    measurements.load()
    assert sources.measurement_runs() == [measurements.RUN]
    md = sources.markdown(lang)
    assert f"**{i18n.t('sources_documents', lang)}**" in md and f"**{i18n.t('sources_measured', lang)}**" in md
    assert f"infra_lib/data/measurements/{measurements.RUN}/" in md
    assert "H100 Tensor Core GPU Architecture whitepaper" in md and "https://" in md


def test_nothing_read_says_so():
    assert sources.markdown("zh", specs=[], runs=[]) == i18n.t("sources_none", "zh") + "\n"


def test_markup_in_registry_text_is_escaped():
    assert sources._md("a_b *c* [d] <e> `f`") == r"a\_b \*c\* \[d\] \<e\> \`f\`"


def test_loading_the_registry_lists_nothing():
    """A page resets usage before the registry is loaded: loading (and checking every entry's fields)
    must not count as reading, or every page's Sources lists every document of the registry."""
    import subprocess
    import sys
    code = ("from infra_lib import hardware, sources\n"
            "sources.reset()\n"
            "hardware.value('h100_sxm5', 'mem_bw_Bps')\n"
            "print([(s.device, s.name) for s in hardware.used_specs()])\n"
            "print([u.source.key for u in sources.documents()])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=prose.ROOT).stdout.splitlines()
    assert out == ["[('h100_sxm5', 'mem_bw_Bps')]", "['h100_wp_v104']"], out


def _every_spec():
    return [s for e in hardware.registry().entries.values() for s in hardware._quietly(e.specs)]


def test_chinese_sources_carry_no_generated_english():
    """What the library writes around the documents is in the page's language: the course's own
    documents by their Chinese titles, "accessed", the run's title, and Chinese punctuation."""
    md = sources.markdown("zh", _every_spec(), [measurements.RUN])
    for english in ("accessed", "This course", "this course", "teaching assumptions", "Measurements on"):
        assert english not in md, (english, [line for line in md.splitlines() if english in line][:2])
    lines = [line for line in md.splitlines() if line.startswith("- ") and "`infra_lib" not in line]
    assert lines and all("）：" in line and line.endswith("。") for line in lines), lines[:2]
    en = sources.markdown("en", _every_spec(), [measurements.RUN])
    assert "accessed 2026" in en and "Measurements on" in en


def test_locations_hold_no_notes_for_authors():
    """A spec's ``where`` is printed in every page's Sources: notes for the course's authors (the fact
    sheet's sections, what was not read) go in its caveats."""
    notes = [f"{s.device}.{s.name}: {s.where}" for s in _every_spec()
             if re.search(r"facts\.md|was not read|not read for", s.where)]
    assert notes == [], notes
