"""Sphinx extension for the course: twin links between editions, and numbers per chapter.

The English site is built into site/en and the Chinese one into site/zh, with the same page
names (06_performance, glossary: book/tools/course.py ``page_name``). Each page gets ``twin_url``
(a relative link to the same page in the other edition) and ``twin_label`` for the template
book/_templates/twin-link.html.
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


def add_twin_link(app, pagename, templatename, context, doctree):
    lang = app.config.language
    if lang not in TWIN:
        return
    other, label = TWIN[lang]
    here = "en" if lang == "en" else "zh"
    depth = pagename.count("/") + 1          # up to this edition's root, then one more
    context["twin_url"] = posixpath.join(*([".."] * depth), other, pagename + ".html")   # the same name
    context["twin_label"] = label
    context["twin_lang"] = "zh-CN" if other == "zh" else "en"
    context["downloads_url"] = posixpath.join(*([".."] * depth), "downloads")   # the PDF and EPUB of each edition
    context["edition"] = here
    context["download_name"] = f"{course.NAME}-{here}"            # NAME-<lang>.pdf and .epub
    if course.is_chapter(pagename):               # a chapter: its executed notebook lies beside it
        context["ipynb_url"] = pagename.rsplit("/", 1)[-1] + ".ipynb"
        context["ipynb_title"] = IPYNB_TITLE[here]
        if app.builder.name == "html" and lite.has_live(app.env.doc2path(pagename)):
            context["live_url"] = posixpath.join(*([".."] * depth), lite.lite_url(here, pagename))
            context["live_label"], context["live_title"] = LIVE_BUTTON[here]


# Figures, tables, exercises and equations are numbered per chapter, "Figure 3.2", "Exercise 3.4",
# "Eq. (3.1)": the chapter's number is the NN of its file name. Sphinx would count them across the
# whole book ("displaymath" is the equations' type when math_numfig is on).
PER_CHAPTER = ("figure", "table", "exercise", "displaymath")
CHAPTER = course.CHAPTER_PAGE                 # 06_performance: chapter 6


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


# Where the box's widget runs, said only where it is true: on the website (a static page, with a
# Live button and a download) and in the e-book (no Python at all). The readable notebook and the
# live chapter leave this paragraph out (class course-live: book/ext/reader_notebook.py), so the
# box there says only what the cell below does, which is what a reader running it needs.
WHERE = {   # (builder, lang): the paragraph around its link to how to run it; {what} and {score} from WIDGET
    ("html", "en"): ("This page is static, with no Python behind it, so {what} elsewhere: live in your browser (the "
                     "▶ Live button at the top of the page, or the link at the end of this box){score}, or in your own "
                     "Jupyter after downloading this chapter with the .ipynb button at the top of the page (see ",
                     "how to run it", ")."),
    ("epub", "en"): ("An e-book runs no Python, so {what} elsewhere: on the course's website, live in your browser, or "
                     "in your own Jupyter after downloading this chapter's notebook there (see ", "how to run it", ")."),
    ("html", "zh"): ("本页是静态网页，背后没有 Python，所以{what}要在别处运行：直接在浏览器里运行（点页面顶部的“▶ 在线运行”"
                     "按钮，或本框末尾的链接）{score}或者用页面顶部的 .ipynb 按钮下载本章，在你自己的 Jupyter 里运行（见",
                     "运行说明", "）。"),
    ("epub", "zh"): ("电子书里不能运行 Python，所以{what}要在别处运行：到课程网站上直接在浏览器里运行，或者从网站下载本章的 "
                     "notebook，在你自己的 Jupyter 里运行（见", "运行说明", "）。"),
}
WIDGET = {   # lang -> kind -> (what runs, what the live page keeps): a chapter's sliders, the review's checker
    "en": {"sliders": ("the sliders run", ""), "checker": ("the answer checker runs", ", with your score kept there")},
    "zh": {"sliders": ("滑块", "，"), "checker": ("答案检查器", "，得分保存在浏览器里；")},
}
WHERE_IT_RUNS = {(builder, lang, kind): (before.format(what=what, score=score), text, after)
                 for (builder, lang), (before, text, after) in WHERE.items()
                 for kind, (what, score) in WIDGET[lang].items()}
HOW_TO_RUN = "run-it-yourself"               # the page WHERE_IT_RUNS links (book/<lang>/run-it-yourself.md)


def add_live_link(app, doctree, docname):
    """The "Explore the assumptions" box (class local-only) of a chapter: first, where its widget
    runs (WHERE_IT_RUNS, on the website and in the e-book); last, on the website, the link to the
    chapter's live notebook (LIVE, or LIVE_REVIEW for the review's answer checker)."""
    from docutils import nodes

    builder = "html" if app.builder.name == "html" else "epub" if app.builder.name == "epub" else None
    if builder is None or not course.is_chapter(docname):
        return
    boxes = [box for box in doctree.findall(nodes.admonition) if "local-only" in box["classes"]]
    if not boxes:
        return
    lang = "zh" if str(app.config.language).startswith("zh") else "en"
    quiz = lite.has_quiz(app.env.doc2path(docname))
    if not lite.has_live(app.env.doc2path(docname)):
        raise ValueError(f"{docname}: a box of class local-only, but no widget cell that the live page could run "
                         "(book/tools/lite.py has_live): the box would promise a live page the site does not have")
    before, text, after = WHERE_IT_RUNS[(builder, lang, "checker" if quiz else "sliders")]
    url = posixpath.join(*([".."] * (docname.count("/") + 1)), lite.lite_url(lang, docname))
    for box in boxes:
        if HOW_TO_RUN in app.env.all_docs:
            words = [nodes.Text(before), nodes.reference("", text, internal=True,
                                                         refuri=app.builder.get_relative_uri(docname, HOW_TO_RUN)),
                     nodes.Text(after)]
        else:                                    # a private table without the page: no "(see how to run it)"
            words = [nodes.Text(re.sub(r"\s*[(（][^()（）]*$", "", before) + after[-1])]
        where = nodes.paragraph("", "", *words, classes=["course-live"])
        first = next((i for i, child in enumerate(box.children) if not isinstance(child, nodes.title)), len(box.children))
        box.insert(first, where)
        if builder == "html":
            lead, link_text, middle, command, tail = (LIVE_REVIEW if quiz else LIVE)[lang]
            link = nodes.reference("", link_text, refuri=url, classes=["course-live-link"])
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
