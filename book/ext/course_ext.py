"""Sphinx extension for the course: twin links between editions, and numbers per chapter.

The English site is built into site/en and the Chinese one into site/zh, with the same page
names except for /en/ <-> /zh/. Each page gets ``twin_url`` (a relative link to the same page
in the other edition) and ``twin_label`` for the template book/_templates/twin-link.html.
"""
import posixpath
import re

TWIN = {"en": ("zh", "中文"), "zh_CN": ("en", "English")}


def twin_pagename(pagename, lang_from, lang_to):
    """'notebooks/en/00_overview' -> 'notebooks/zh/00_overview'."""
    parts = pagename.split("/")
    return "/".join(lang_to if p == lang_from else p for p in parts)


def add_twin_link(app, pagename, templatename, context, doctree):
    lang = app.config.language
    if lang not in TWIN:
        return
    other, label = TWIN[lang]
    here = "en" if lang == "en" else "zh"
    target = twin_pagename(pagename, here, other)
    depth = pagename.count("/") + 1          # up to this edition's root, then one more
    context["twin_url"] = posixpath.join(*([".."] * depth), other, target + ".html")
    context["twin_label"] = label
    context["twin_lang"] = "zh-CN" if other == "zh" else "en"


# Figures, tables and exercises are numbered per chapter, "Figure 3.2", "Exercise 3.4": the
# chapter's number is the NN of its file name. Sphinx would count them across the whole book.
PER_CHAPTER = ("figure", "table", "exercise")
CHAPTER = re.compile(r"notebooks/(?:en|zh)/(\d+)_")


def number_per_chapter(app, env):
    for docname, by_type in env.toc_fignumbers.items():
        chapter = CHAPTER.match(docname)
        for figtype in PER_CHAPTER:
            numbers = by_type.get(figtype)
            if not numbers:
                continue
            ordered = sorted(numbers, key=lambda node_id: numbers[node_id])
            prefix = (int(chapter.group(1)),) if chapter else ()
            for i, node_id in enumerate(ordered, start=1):
                numbers[node_id] = prefix + (i,)
    return []


def setup(app):
    app.connect("html-page-context", add_twin_link)
    app.connect("env-get-updated", number_per_chapter, priority=900)   # after Sphinx assigns them
    return {"parallel_read_safe": True, "parallel_write_safe": True}
