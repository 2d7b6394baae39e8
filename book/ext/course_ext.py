"""Sphinx extension for the course: links every page to its twin in the other edition.

The English site is built into site/en and the Chinese one into site/zh, with the same page
names except for /en/ <-> /zh/. Each page gets ``twin_url`` (a relative link to the same page
in the other edition) and ``twin_label`` for the template book/_templates/twin-link.html.
"""
import posixpath

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


def setup(app):
    app.connect("html-page-context", add_twin_link)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
