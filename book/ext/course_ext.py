"""Sphinx extension for the course: twin links between editions, and numbers per chapter.

The English site is built into site/en and the Chinese one into site/zh, with the same page
names except for /en/ <-> /zh/. Each page gets ``twin_url`` (a relative link to the same page
in the other edition) and ``twin_label`` for the template book/_templates/twin-link.html.
"""
import posixpath
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import course  # noqa: E402  (book/tools/course.py: the downloads' file name)
import lite  # noqa: E402  (book/tools/lite.py: which chapters have live widgets, and where)

TWIN = {"en": ("zh", "中文"), "zh_CN": ("en", "English")}
LIVE_BUTTON = {"en": ("Live", "Open this chapter live in your browser: its sliders and answer boxes run here "
                               "(JupyterLite; the site must be served over HTTP)"),
               "zh": ("在线运行", "在浏览器里打开本章的在线版，滑块和答案框都能直接运行（JupyterLite；网站须通过 HTTP 访问）")}
IPYNB_TITLE = {"en": "Download this chapter as a Jupyter notebook, with its outputs",
               "zh": "下载本章的 Jupyter notebook（含运行结果）"}


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
    context["downloads_url"] = posixpath.join(*([".."] * depth), "downloads")   # the PDF and EPUB of each edition
    context["edition"] = here
    context["download_name"] = f"{course.NAME}-{here}"            # NAME-<lang>.pdf and .epub
    if pagename.startswith("notebooks/"):          # a chapter: its executed notebook lies beside it
        context["ipynb_url"] = pagename.rsplit("/", 1)[-1] + ".ipynb"
        context["ipynb_title"] = IPYNB_TITLE[here]
        m = re.match(r"notebooks/(en|zh)/(\d+_[\w-]+)$", pagename)
        if m and app.builder.name == "html" and lite.has_live(app.env.doc2path(pagename)):
            context["live_url"] = posixpath.join(*([".."] * depth), lite.lite_url(here, m.group(2)))
            context["live_label"], context["live_title"] = LIVE_BUTTON[here]


# Figures, tables, exercises and equations are numbered per chapter, "Figure 3.2", "Exercise 3.4",
# "Eq. (3.1)": the chapter's number is the NN of its file name. Sphinx would count them across the
# whole book ("displaymath" is the equations' type when math_numfig is on).
PER_CHAPTER = ("figure", "table", "exercise", "displaymath")
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


# sphinx-book-theme's zh_CN catalogue has a few Taiwan wordings; the Chinese edition is mainland
# Chinese throughout. Its header buttons' tooltips are set per page, so they are replaced here.
ZH_CN_WORDING = {"列印成 PDF": "打印为 PDF"}
# myst-nb writes this label into the page's HTML in English, whatever the language
ZH_CN_BODY = {'aria-label="Toggle hidden content"': 'aria-label="显示或隐藏内容"'}
# sphinx-exercise writes an exercise's title as "练习 10.1 </span> (面试题)": full-width brackets in
# Chinese, and no space before them (the space inside the span showed as "练习 10.1 （面试题）"); a
# solution's title, "解答<a …> 练习 10.1 (面试题)</a>", reads "解答：练习 10.1（面试题）".
ZH_EXERCISE_TITLE = re.compile(r"(练习 [\d.]+)( </span>)? \(([^()<>]+)\)")
ZH_SOLUTION_TITLE = re.compile(r"解答(<a [^>]*>) 练习")


def mainland_wording(app, pagename, templatename, context, doctree):
    if app.config.language != "zh_CN":
        return

    def fix(buttons):
        for button in buttons or ():
            tooltip = str(button.get("tooltip", ""))
            button["tooltip"] = ZH_CN_WORDING.get(tooltip, button.get("tooltip"))
            fix(button.get("buttons"))
    fix(context.get("header_buttons"))
    if isinstance(context.get("body"), str):
        for english, chinese in ZH_CN_BODY.items():
            context["body"] = context["body"].replace(english, chinese)
        body = ZH_EXERCISE_TITLE.sub(lambda m: f"{m.group(1)}{'</span>' if m.group(2) else ''}（{m.group(3)}）",
                                     context["body"])
        context["body"] = ZH_SOLUTION_TITLE.sub(r"解答：\1练习", body)


# A figure's image without alt text would get its file path as alt (docutils' HTML writer does
# that): give it the figure's caption instead, its first sentence, in the page's language.
def alt_from_caption(app, doctree, docname):
    from docutils import nodes

    for figure in doctree.findall(nodes.figure):
        captions = list(figure.findall(nodes.caption))
        if not captions:
            continue
        text = " ".join(captions[0].astext().split())
        first = re.split(r"(?<=。)|(?<=\.)\s", text, maxsplit=1)[0]    # not at the point of "0.10"
        for image in figure.findall(nodes.image):
            if not image.get("alt"):
                image["alt"] = first


# The "Explore the assumptions" box of a chapter with a widget cell (the admonition of class
# local-only) gets a link to the chapter's live notebook, which book/tools/lite.py builds into
# site/lite from that same cell. Only on the HTML site: the EPUB and the PDF have no lite/ folder.
LIVE = {
    "en": ("Run it live in your browser: ", "open this chapter live",
           ", the whole chapter in a notebook that ships with this site (JupyterLite). Python runs in your browser tab "
           "(Pyodide) and nothing is loaded from outside this site; choose Run → Run All Cells in its menu, "
           "then move the sliders, and check your answers to the exercises. This works only when the site is served over HTTP (",
           "make serve", " or any web server), not when its files are opened directly from disk."),
    "zh": ("直接在浏览器里运行：", "打开本章的在线版",
           "。在线版是随本站发布的一个 notebook（JupyterLite），包含整章内容：Python 在你的浏览器标签页里运行（Pyodide），"
           "不从本站以外加载任何东西；在它的菜单里选 Run → Run All Cells，然后就能拖动滑块、检查练习答案。这要求本站通过 HTTP 访问（",
           "make serve", " 或任何 Web 服务器），直接从磁盘打开网页文件时用不了。"),
}


LIVE_REVIEW = {
    "en": ("Run it live in your browser: ", "open the answer checker",
           " in a notebook that ships with this site (JupyterLite). Python runs in your browser tab "
           "(Pyodide) and nothing is loaded from outside this site; choose Run → Run All Cells in its menu, "
           "then type your answers; your score is kept in this browser. This works only when the site is "
           "served over HTTP (", "make serve", " or any web server), not when its files are opened directly "
           "from disk."),
    "zh": ("在浏览器里直接运行：", "打开答案检查器",
           "。它是随本站发布的 notebook（JupyterLite）：Python 在你的浏览器标签页里运行（Pyodide），"
           "不从本站以外加载任何东西；在它的菜单里选 Run → Run All Cells，再输入答案，得分保存在这个浏览器里。"
           "这要求本站通过 HTTP 访问（", "make serve", " 或任何 Web 服务器），直接从磁盘打开网页文件时用不了。"),
}


def add_live_link(app, doctree, docname):
    from docutils import nodes

    m = re.match(r"notebooks/(en|zh)/(\d+_[\w-]+)$", docname)
    if app.builder.name != "html" or not m or not lite.has_live(app.env.doc2path(docname)):
        return
    lang, chapter = m.groups()
    words = LIVE_REVIEW if lite.has_quiz(app.env.doc2path(docname)) else LIVE   # the review: its answer checker
    lead, text, middle, command, tail = words[lang]
    url = posixpath.join(*([".."] * (docname.count("/") + 1)), lite.lite_url(lang, chapter))
    for box in doctree.findall(nodes.admonition):
        if "local-only" not in box["classes"]:
            continue
        link = nodes.reference("", text, refuri=url, classes=["course-live-link"])
        box += nodes.paragraph("", "", nodes.strong("", lead), link, nodes.Text(middle),
                               nodes.literal("", command), nodes.Text(tail), classes=["course-live"])


# The reference list's labels in the form the text cites them, [Williams et al., 2009]: the text
# uses sphinxcontrib-bibtex's author_year referencing style, but the list took its labels from the
# formatting style, alpha, whose labels are [WWP09]. ``course_author_year`` is alpha (same entries,
# same order) with author-year labels: one author "Last", two "Last and Last", more "Last et al.";
# two entries with the same label in one list get "2020a", "2020b".
def _person_names(entry):
    for role in ("author", "editor"):
        people = entry.persons.get(role)
        if people:
            return people
    return []


def author_year_label(entry) -> str:
    """'Williams et al., 2009' for a pybtex entry (the in-text citation's words, without markup)."""
    from pybtex.richtext import Text

    def last(person):
        return str(Text.from_latex(" ".join(person.prelast_names + person.last_names)))
    people = _person_names(entry)
    if not people:
        who = str(Text.from_latex(entry.fields.get("organization") or entry.fields.get("title") or entry.key))
    elif len(people) == 1:
        who = last(people[0])
    elif len(people) == 2:
        who = f"{last(people[0])} and {last(people[1])}"
    else:
        who = f"{last(people[0])} et al."
    return f"{who}, {entry.fields.get('year', 'n.d.')}"


BIB_FILE = Path(__file__).resolve().parents[1] / "references.bib"
_SUFFIXES: dict = {}


def _label_suffixes(bib_file: Path = BIB_FILE) -> dict:
    """key -> "a", "b", ... for the entries of the whole bibliography that share an author-year label,
    in the order of the file. Sphinx checks labels across every page's list, so two pages that each
    list one "vLLM Team, 2025" entry still need different labels: the suffix is the entry's, not the
    page's."""
    if bib_file not in _SUFFIXES:
        from pybtex.database import parse_file
        groups: dict = {}
        for key, entry in parse_file(str(bib_file)).entries.items():
            groups.setdefault(author_year_label(entry), []).append(key)
        _SUFFIXES[bib_file] = {k: chr(ord("a") + i) for keys in groups.values() if len(keys) > 1
                               for i, k in enumerate(keys)}
    return _SUFFIXES[bib_file]


def _register_bibliography_style():
    from pybtex.plugin import register_plugin
    from pybtex.style.formatting.alpha import Style as Alpha
    from pybtex.style.labels import BaseLabelStyle

    class AuthorYearLabels(BaseLabelStyle):
        def format_labels(self, sorted_entries):
            suffix = _label_suffixes()
            labels = [author_year_label(e) + suffix.get(e.key, "") for e in sorted_entries]
            repeated = {label for label in labels if labels.count(label) > 1}   # entries not in the file
            seen: dict = {}
            for label in labels:
                if label in repeated:
                    seen[label] = seen.get(label, 0) + 1
                    label += chr(ord("a") + seen[label] - 1)
                yield label

    class AuthorYearStyle(Alpha):
        default_label_style = "course_author_year"

    register_plugin("pybtex.style.labels", "course_author_year", AuthorYearLabels, force=True)
    register_plugin("pybtex.style.formatting", "course_author_year", AuthorYearStyle, force=True)


def setup(app):
    _register_bibliography_style()
    app.connect("html-page-context", add_twin_link)
    app.connect("doctree-resolved", add_live_link)
    app.connect("doctree-resolved", alt_from_caption)
    app.connect("html-page-context", mainland_wording, priority=900)   # after the theme adds its buttons
    app.connect("env-get-updated", number_per_chapter, priority=900)   # after Sphinx assigns them
    return {"parallel_read_safe": True, "parallel_write_safe": True}
