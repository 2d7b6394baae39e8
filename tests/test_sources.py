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
    assert "accessed 2026" in en and "Measurements on" in en and "updated" in en


# What a Chinese Sources line may keep in Latin letters after its date: quotations of the document
# (in “ ”), identifiers (a token with _ . : / < > = * # \\ a digit or an inner hyphen: file and code
# names, flags, versions, nvidia-smi), names (a word with a capital: NVIDIA, Tensor Core, hwLat) and
# the few terms the Chinese chapters keep in English (the glossary's kernel, warp, lane, die, ...)
# and units. Anything else is explanation written in English: a lower-case word ("read through
# secondary notes", "p."), a possessive ("NVIDIA's") or a word naming the document's structure
# ("Table 3" is "表 3", "section 4.7" is "4.7 节").
_QUOTED = re.compile(r"“[^”]*”")
_TOKEN = re.compile(r"[A-Za-z0-9_.:/<>=*#\\'’-]+")
_IDENTIFIER = re.compile(r"[_.:/<>=*#\\\d]|\w-\w")
_KEPT_IN_ENGLISH = {"kernel", "warp", "lane", "die", "bank", "token", "decode", "reticle",
                    "ms", "ns", "s", "mm", "nm"}
_NAMES = ("Chips and Cheese",)          # names with a lower-case word in them
_STRUCTURE = {"Table", "Tables", "Figure", "Section", "Chapter", "Page", "Pages", "Column", "Row", "Note", "Appendix"}


def english_in_chinese_location(text):
    """The English words of a Chinese Sources line's locations (the part after its date), [] when none."""
    words = []
    for name in _NAMES:
        text = text.replace(name, " ")
    for token in _TOKEN.findall(_QUOTED.sub(" ", text)):
        word = token.strip(".'’-")
        if word.endswith(("'s", "’s")):
            words.append(token)
        elif not word or _IDENTIFIER.search(word) or word in _KEPT_IN_ENGLISH:
            continue
        elif word == word.lower() or word in _STRUCTURE:
            words.append(token)
    return words


@pytest.mark.parametrize("text, english", [
    ("表 3（“Memory Bandwidth 3000 GB/sec”）", []),
    ("reality_check.json，gpu.sms（CUDA 报告的值）；nvidia-smi 输出", []),
    ("cuda::arch::traits<id::sm_100>：max_shared_memory_per_block_optin（每个 SM 的量减去预留的 1024）", []),
    ("转引自二手资料", []),
    ("Table 3 ('2619 MHz DDR': two transfers per clock)", ["Table", "two", "transfers", "per", "clock"]),
    ("p. 5, HGX B300 column", ["p.", "column"]),
    ("表 3；read through secondary notes", ["read", "through", "secondary", "notes"]),
    ("NVIDIA's own page gives neither", ["NVIDIA's", "own", "page", "gives", "neither"]),
    ("“Shared Memory”一节：每个 bank 每周期 4 字节", []),
    ("据 Chips and Cheese，56 个切片", []),
])
def test_the_english_finder(text, english):
    assert english_in_chinese_location(text) == english


def test_chinese_sources_locations_are_chinese():
    """Every registry value's location, as the Chinese Sources print it (its ``where_zh``, else its
    ``where``), carries no explanatory English: quotations of the document stay as printed, in “ ”."""
    md = sources.markdown("zh", _every_spec(), [measurements.RUN])
    lines = [line for line in md.splitlines() if line.startswith("- ") and "`infra_lib" not in line]
    found = [(line[:60], words) for line in lines
             if (words := english_in_chinese_location(line.split("）：", 1)[1]))]
    assert not found, f"{len(found)} Chinese Sources lines carry English: give their specs a where_zh: {found[:5]}"


def test_a_location_without_where_zh_is_caught():
    """The guard above can fail: the same specs without their where_zh print their English where."""
    import dataclasses
    bare = [dataclasses.replace(s, where_zh="") for s in _every_spec()]
    md = sources.markdown("zh", bare, [])
    lines = [line for line in md.splitlines() if line.startswith("- ")]
    assert sum(bool(english_in_chinese_location(line.split("）：", 1)[1])) for line in lines) > len(lines) // 2


# Chinese typography (GB/T 15834): no space on either side of a full-width quotation mark, whether
# the text next to it is Chinese, Latin or digits ("表 2，“Attention acceleration”行", "读取“最多 0.3 GB 的 KV”").
_SPACED_QUOTE = re.compile(r"\s[“”]|[“”]\s")


def spaced_quotes(text):
    """The full-width quotation marks in ``text`` with a space beside them, each with its neighbours."""
    return [text[max(m.start() - 6, 0):m.end() + 6] for m in _SPACED_QUOTE.finditer(text)]


@pytest.mark.parametrize("text, n", [
    ("“Memory Types”一项：“Up to DDR5 4800 MT/s 1DPC”", 0),
    ("公式“M = (P * 4B) / (32 / Q) * 1.2”，以 16 位的 Llama 70B 为例", 0),
    ("“Memory Types” 一项：“Up to DDR5 4800 MT/s 1DPC”", 1),
    ("每核 “2 MB L2”", 1),
    ("“ Shared Memory ”一节", 2),
])
def test_the_spaced_quote_finder(text, n):
    assert len(spaced_quotes(text)) == n, spaced_quotes(text)


def test_chinese_locations_put_no_space_beside_quotation_marks():
    """A ``where_zh`` sets its “ ” as Chinese text does: no space on either side."""
    found = [(f"{s.device}.{s.name}", hits) for s in _every_spec() if (hits := spaced_quotes(s.where_zh))]
    assert not found, f"{len(found)} where_zh put a space beside “ or ”: {found[:5]}"


def test_the_english_pages_print_where_not_where_zh():
    en = sources.markdown("en", _every_spec(), [measurements.RUN])
    assert not re.search(r"[\u4e00-\u9fff]", en), re.search(r".*[\u4e00-\u9fff].*", en).group(0)


def test_locations_hold_no_notes_for_authors():
    """A spec's ``where`` is printed in every page's Sources: notes for the course's authors (the fact
    sheet's sections, what was not read) go in its caveats."""
    notes = [f"{s.device}.{s.name}: {s.where}" for s in _every_spec()
             if re.search(r"facts\.md|was not read|not read for", s.where)]
    assert notes == [], notes
