"""The bilingual glossary (infra_lib/data/glossary.toml) and the Chinese edition's terms.

Each term has English and Chinese names and a one-line definition in each language; the glossary
pages of both editions are generated from it (book/tools/make_review.py). The Chinese chapters must
use the glossary's Chinese term: a rejected variant (``reject``) anywhere in a Chinese chapter's
prose fails, and where a chapter's English twin uses a term (``en_pattern``), the Chinese twin must
contain the glossary's Chinese term, unless the pair is listed in EXCEPTIONS with the reason. The
term lists of tests/test_zh_terms.py are folded in: each of its concepts is a glossary entry with
the same chosen term and at least the same rejected variants.
"""
import re
import tomllib

import pytest

import prose
import test_zh_terms

GLOSSARY = tomllib.loads((prose.ROOT / "infra_lib/data/glossary.toml").read_text(encoding="utf-8"))
CHAPTERS = sorted(p.name for p in (prose.ROOT / "notebooks" / "zh").glob("*.md"))
# (page, glossary key): why the Chinese twin may use the English term or another wording there.
EXCEPTIONS = {
    # Found when the glossary landed (1 December 2026); each is a wording for the chapter's author or
    # the lead to settle. Remove the line once the chapter follows the glossary (a test says when).
    ("03_gpu.md", "ridge_point"): "writes 脊点 twice beside 屋脊点 elsewhere in the same chapter",
    ("04_generations.md", "kernel_launch"): "its English uses 'launch' for product launches, not kernel launches",
    ("00_overview.md", "occupancy"): "the overview's table of contents keeps the English word occupancy",
}


def zh_prose(name):
    return test_zh_terms.prose_text(prose.ROOT / "notebooks" / "zh" / name)


def en_prose(name):
    return test_zh_terms.prose_text(prose.ROOT / "notebooks" / "en" / name)


def test_every_entry_is_complete():
    assert len(GLOSSARY) >= 60
    for key, t in GLOSSARY.items():
        for field in ("en", "zh", "def_en", "def_zh"):
            assert isinstance(t.get(field), str) and t[field].strip(), f"{key}: {field}"
        assert not re.search(r"[\u4e00-\u9fff]", t["def_en"]), f"{key}: Chinese in def_en"
        assert re.search(r"[\u4e00-\u9fff]", t["def_zh"]), f"{key}: def_zh has no Chinese"
        assert set(t) <= {"en", "zh", "def_en", "def_zh", "en_pattern", "reject", "check"}, key
        for pattern in [t.get("en_pattern", "")] + t.get("reject", []):
            re.compile(pattern)
    names = [t["en"].lower() for t in GLOSSARY.values()]
    assert len(set(names)) == len(names), "an English term is listed twice"


def test_zh_terms_lists_are_folded_in():
    """Each concept of test_zh_terms.TERMS is in the glossary, with the same chosen term and its rejects."""
    by_en = {t["en"].lower(): t for t in GLOSSARY.values()}
    aliases = {"the widget section": None, "the sources section": None, "cache miss rate": "miss rate",
               "cache miss penalty": "miss penalty", "a conclusion that flips": "the conclusion flips",
               "the chapter's opening line": None, "a ratio of speeds": None}
    for concept, (chosen, rejected) in test_zh_terms.TERMS.items():
        name = aliases.get(concept.lower(), concept.lower())
        if name is None:           # page furniture, not a term of the subject
            continue
        assert name in by_en, f"{concept} is in tests/test_zh_terms.py but not in glossary.toml"
        entry = by_en[name]
        assert entry["zh"] == chosen, (concept, entry["zh"], chosen)
        assert set(rejected) <= set(entry.get("reject", [])), (concept, set(rejected) - set(entry.get("reject", [])))


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_rejected_variant(name):
    text = zh_prose(name)
    problems = []
    for key, t in GLOSSARY.items():
        if (name, key) in EXCEPTIONS:
            continue
        for pattern in t.get("reject", []):
            for m in re.finditer(pattern, text, re.M):
                context = " ".join(text[max(0, m.start() - 20):m.end() + 20].split())
                problems.append(f"{m.group(0)!r}: the glossary writes {t['zh']!r} for {t['en']!r}: …{context}…")
    assert not problems, f"{name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", CHAPTERS)
def test_chinese_twin_uses_the_glossary_term(name):
    if not (prose.ROOT / "notebooks" / "en" / name).exists():
        pytest.skip("no English twin yet")
    en, zh = en_prose(name), zh_prose(name)
    missing = []
    for key, t in GLOSSARY.items():
        if not t.get("check", True) or (name, key) in EXCEPTIONS:
            continue
        pattern = t.get("en_pattern") or r"\b" + re.escape(t["en"]) + r"s?\b"
        if re.search(pattern, en, re.I) and t["zh"] not in zh:
            missing.append(f"{t['en']!r} is in the English twin but {t['zh']!r} is not in the Chinese one")
    assert not missing, f"{name}:\n" + "\n".join(missing)


def test_exceptions_are_still_needed():
    """An exception that no longer excuses anything is removed."""
    for (name, key), why in EXCEPTIONS.items():
        assert key in GLOSSARY, key
        path = prose.ROOT / "notebooks" / "zh" / name
        if not path.exists():
            continue
        t = GLOSSARY[key]
        text = zh_prose(name)
        rejected = any(re.search(p, text, re.M) for p in t.get("reject", []))
        absent = t.get("check", True) and t["zh"] not in text
        assert rejected or absent or "review" in name, f"exception ({name}, {key}) excuses nothing: {why}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_glossary_pages_come_from_the_toml(lang):
    import make_review
    page = (prose.ROOT / f"book/{lang}/glossary.md").read_text(encoding="utf-8")
    assert page == make_review.render_glossary(lang)
    for t in GLOSSARY.values():
        assert f"\n{t[lang]}\n  " in page


def test_first_use_of_each_term_is_linked():
    """book/ext/glossary_links.py: the first use of a term in a chapter becomes a link, later uses do not,
    and code and headings are left alone."""
    from docutils import nodes
    from docutils.core import publish_doctree
    import glossary_links

    doc = publish_doctree("Title with occupancy\n====================\n\nThe ridge point and occupancy, "
                          "then the ridge point again.\n\n``occupancy in code``\n")
    linked = glossary_links.link_first_uses(doc, glossary_links.term_patterns("en"), lambda name: f"glossary.html#{name}")
    refs = [r.astext() for r in doc.findall(nodes.reference)]
    assert refs == ["ridge point", "occupancy"] and sorted(linked) == ["occupancy", "ridge point"]
    assert doc.findall(nodes.title).__next__().astext() == "Title with occupancy"
    zh = publish_doctree("屋脊点之前先说占用率，然后又是屋脊点。\n")
    assert glossary_links.link_first_uses(zh, glossary_links.term_patterns("zh"), lambda n: "#") == ["屋脊点", "占用率"]
    assert len(list(zh.findall(nodes.reference))) == 2


def test_a_link_never_splits_a_word():
    """A term is linked as a whole word: "tensor parallelism", not "[Tensor parallel]ism"; on a Chinese page an
    English term kept as is does not match inside a longer name ("HBM" in "HBM3")."""
    from docutils import nodes
    from docutils.core import publish_doctree
    import glossary_links

    doc = publish_doctree("Tensor parallelism splits each layer; data parallelism copies it.\n")
    glossary_links.link_first_uses(doc, glossary_links.term_patterns("en"), lambda name: "#")
    assert [r.astext() for r in doc.findall(nodes.reference)] == ["Tensor parallelism", "data parallelism"]
    for lang in ("en", "zh"):
        for name, pattern in glossary_links.term_patterns(lang):
            for m in pattern.finditer("HBM3 and SMEM, NICs2, tensor parallelisms, 张量并行度"):
                text = m.string
                before = text[m.start() - 1] if m.start() else " "
                after = text[m.end()] if m.end() < len(text) else " "
                assert not (before.isascii() and before.isalnum()) and not (after.isascii() and after.isalnum()), \
                    (lang, name, m.group(0), text)
