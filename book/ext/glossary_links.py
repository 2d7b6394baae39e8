"""Sphinx extension: link each glossary term from its first use in each chapter.

The glossary page (book/{en,zh}/glossary.md, generated from infra_lib/data/glossary.toml) defines
every term with Sphinx's ``glossary`` directive. After a chapter's doctree is resolved, this walks
its text (never code, maths, headings, captions, existing links or the glossary itself) and turns
the first occurrence of each term into a link to its entry. Chapters need no markup, so authors
writing a chapter do not have to add ``{term}`` roles; a term already linked with ``{term}`` by hand
counts as its first use.

Enable it in _config.yml: ``sphinx: local_extensions: {glossary_links: book/ext}``.
"""
import re
import sys
import tomllib
from pathlib import Path

from docutils import nodes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from course import is_chapter  # noqa: E402  (book/tools/course.py: 06_performance is a chapter's page)

GLOSSARY_FILE = Path(__file__).resolve().parents[2] / "infra_lib" / "data" / "glossary.toml"
# Where a term is never linked: code, maths, headings, captions, links, the rubric of an admonition.
SKIP = (nodes.literal, nodes.literal_block, nodes.math, nodes.math_block, nodes.reference, nodes.title,
        nodes.raw, nodes.caption, nodes.term, nodes.rubric, nodes.FixedTextElement, nodes.target)
# Too general to be worth a link at every first use.
NOT_LINKED = {"latency", "batch", "token", "cache", "yield", "decode", "grid", "pipeline", "stack", "die",
              "memory bandwidth", "registry", "replica", "scale factor"}


def term_patterns(lang: str, glossary: dict | None = None) -> list[tuple[str, "re.Pattern[str]"]]:
    """(term as defined on the glossary page, pattern of its uses in prose) per glossary entry."""
    glossary = glossary if glossary is not None else tomllib.loads(GLOSSARY_FILE.read_text(encoding="utf-8"))
    out = []
    for entry in glossary.values():
        name = entry[lang]
        if entry["en"] in NOT_LINKED:
            continue
        if lang == "en":
            pattern = entry.get("en_pattern") or r"\b" + re.escape(name) + r"s?\b"
            flags = re.I if name == name.lower() else 0
        else:
            pattern, flags = re.escape(name), 0
            if re.fullmatch(r"[\x00-\x7f]+", name):      # an English word kept in Chinese prose
                pattern = r"(?<![A-Za-z0-9])" + pattern + r"(?![A-Za-z0-9])"   # not "HBM" inside "HBM3"
        out.append((name, re.compile(pattern, flags)))
    # longer terms first, so "warp divergence" wins over "warp" where both start
    return sorted(out, key=lambda t: -len(t[0]))


def _skipped(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, SKIP):
            return True
        if isinstance(parent, nodes.Element) and "cell_input" in parent.get("classes", []):
            return True
        parent = parent.parent
    return False


def link_first_uses(doctree: nodes.document, patterns, target_uri) -> list[str]:
    """Wrap the first use of each term in ``doctree`` in a reference; return the terms linked.

    ``target_uri(term)`` gives the link for a term (or None when the glossary does not define it).
    """
    linked: list[str] = []
    done: set[str] = set()
    for ref in doctree.findall(nodes.reference):     # {term} roles written by hand count as a first use
        title = ref.get("reftitle") or ""
        if "term-" in (ref.get("refuri") or "") and title:
            done.add(title)
    for text in list(doctree.findall(nodes.Text)):
        if _skipped(text):
            continue
        node = text
        while node is not None:
            best = None
            for name, pattern in patterns:
                if name in done:
                    continue
                m = pattern.search(str(node))
                if m and (best is None or m.start() < best[1].start()):
                    best = (name, m)
            if best is None:
                break
            name, m = best
            uri = target_uri(name)
            done.add(name)
            if uri is None:
                continue
            s = str(node)
            before, word, after = s[:m.start()], s[m.start():m.end()], s[m.end():]
            ref = nodes.reference(word, word, refuri=uri, classes=["glossary-link"], reftitle=name)
            parent = node.parent
            index = parent.index(node)
            new = [n for n in (nodes.Text(before) if before else None, ref, nodes.Text(after) if after else None) if n]
            parent.replace(node, new[0])
            for offset, extra in enumerate(new[1:], start=1):
                parent.insert(index + offset, extra)
            linked.append(name)
            node = new[-1] if after else None
    return linked


def _on_doctree_resolved(app, doctree, docname):
    if not is_chapter(docname):                     # a chapter (06_performance), not the glossary itself
        return
    lang = "zh" if str(app.config.language).startswith("zh") else "en"
    std = app.env.get_domain("std")

    def target_uri(name: str):
        entry = std.objects.get(("term", name.lower())) or std.objects.get(("term", name))
        if entry is None:
            return None
        gdoc, anchor = entry[0], entry[1]
        return app.builder.get_relative_uri(docname, gdoc) + "#" + anchor

    link_first_uses(doctree, term_patterns(lang), target_uri)


def setup(app):
    app.connect("doctree-resolved", _on_doctree_resolved)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
