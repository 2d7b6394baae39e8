"""Sphinx extension: each chapter as a notebook that reads like its page, for the downloads.

The executed notebook of myst-nb (``_build/jupyter_execute``) keeps the chapter's MyST Markdown:
``{glue:text}`` placeholders, labels, ``{cite:p}``, ``{eq}``, ``{numref}``, exercise fences, and no
figure (figures are glued with ``display=False``). Plain Jupyter (JupyterLab, Notebook 7, VS Code)
reads none of it. So, once Sphinx has resolved the page (``doctree-resolved``: myst-nb has pasted
every glued value, references carry their numbers, "Fig. 6.2", "Eq. (6.3)", "式 (6.3)", citations
their author-year text, exercises their titles), this extension walks the page's doctree and
writes ``<build>/_build/reader/<docname>.ipynb``:

* the prose between code cells as plain Markdown cells: each number as the page prints it,
  references as the text the page shows, display equations as ``$$ ... \\tag{6.3} $$`` (numbers
  per chapter, as ``course_ext.number_per_chapter`` assigned them), admonitions and exercises as
  block quotes with a bold title, solutions and dropdowns folded in ``<details>``, the
  bibliography as a list;
* every code cell of the executed notebook, in order, with its source and outputs: a cell the page
  hides (``hide-input``, ``remove-input``, ``remove-cell``) has ``metadata.jupyter.source_hidden``;
  a glued figure becomes an image output of the cell that glued it (from myst-nb's glue data), so
  the notebook shows it before anything runs, and runs top to bottom as it is.

book/tools/build.py puts these notebooks beside each page (the ``.ipynb`` download) and
book/tools/bundle.py in the course zip. ``convert`` is a pure function of the doctree and the
executed notebook (tests/test_reader_notebook.py uses it on a small document).
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from docutils import nodes

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from course import is_chapter  # noqa: E402  (book/tools/course.py: 06_performance is a chapter's page)

READER_FOLDER = "reader"          # beside html/ and jupyter_execute/ in Sphinx's build folder
HIDDEN_INPUT = {"hide-input", "remove-input", "remove-cell"}
DROPPED_OUTPUT = {"remove-output", "remove-cell"}
HIDDEN_OUTPUT = {"hide-output"}
ADMONITION_TITLES = {
    "en": {"note": "Note", "tip": "Tip", "hint": "Hint", "important": "Important", "warning": "Warning",
           "caution": "Caution", "attention": "Attention", "danger": "Danger", "error": "Error",
           "seealso": "See also", "solution": "Solution"},
    "zh": {"note": "注意", "tip": "提示", "hint": "提示", "important": "重要", "warning": "警告",
           "caution": "小心", "attention": "注意", "danger": "危险", "error": "错误",
           "seealso": "另请参阅", "solution": "解答"},
}
CHAPTER_LINK = re.compile(r"^(?:[\w./-]*/)?(\d\d_[\w-]+)\.html(?:#.*)?$")


def _escape(text: str) -> str:
    """Text as Markdown that shows it literally (no emphasis, math, HTML or strikethrough)."""
    text = text.replace("\\", "\\\\")
    for ch in "*_`$~|":
        text = text.replace(ch, "\\" + ch)
    text = re.sub(r"&(?=#?\w+;)", "&amp;", text)       # first: "&lt;" in the text stays four characters
    return text.replace("<", "&lt;").replace(">", "&gt;")


def _inline_start(text: str) -> str:
    r"""``text`` kept as one paragraph where it stands alone between blank lines: a start that Markdown
    reads as a block ("- x" a list, "1. x" a numbered one, "# x" a heading, "> x" a quote, "---" a
    rule, "+ x") gets a backslash before its marker.

    >>> [_inline_start(t) for t in ("- 3 %", "12. x", "# 1", "> 2", "=", "+5", "H100", "1.5 TB/s")]
    ['\\- 3 %', '12\\. x', '\\# 1', '\\> 2', '\\=', '\\+5', 'H100', '1.5 TB/s']
    """
    numbered = re.match(r"(\d{1,9})([.)])(\s|$)", text)
    if numbered:
        return numbered.group(1) + "\\" + text[len(numbered.group(1)):]
    return "\\" + text if text[:1] in ("-", "+", "#", ">", "=") else text   # "*", "_": _escape did them


def _fence(code: str, lang: str = "") -> str:
    ticks = "`" * max(3, max((len(m) for m in re.findall(r"`+", code)), default=0) + 1)
    return f"{ticks}{lang}\n{code.rstrip()}\n{ticks}"


def _line_start_safe(text: str) -> str:
    """A paragraph's lines may not start a heading, list, quote or rule by accident."""
    out = []
    for line in text.split("\n"):
        stripped = line.lstrip()
        if re.match(r"(#|>|[-+] |\d+[.)] |=+\s*$|-{3,}\s*$)", stripped):
            m = re.match(r"(\s*)(\d+)([.)])(.*)", line)
            line = f"{m.group(1)}{m.group(2)}\\{m.group(3)}{m.group(4)}" if m else re.sub(r"^(\s*)", r"\1\\", line, 1)
        out.append(line)
    return "\n".join(out)


class Code:
    """A code cell's place in the prose: the index of the cell in the executed notebook."""

    def __init__(self, index: int):
        self.index = index


class ExerciseEnd:
    """The end of an exercise's question (before its folded solution): ``label`` its page label
    ("ch6-ex1"), ``title`` as the page prints it ("Exercise 6.1"). The Markdown cell that ends here
    carries both in ``metadata.course`` (book/tools/lite.py puts the live chapter's answer boxes
    after it)."""

    def __init__(self, label: str, title: str):
        self.label, self.title = label, title


class Converter:
    """One page's doctree as a list of Markdown blocks and code-cell places."""

    def __init__(self, docname: str, lang: str, fignumbers: dict, numfig_format: dict,
                 figure_cells: dict[str, int], glue_images: dict[str, dict]):
        self.docname, self.lang = docname, lang
        self.fignumbers, self.numfig_format = fignumbers, numfig_format
        self.figure_cells = figure_cells          # image hash -> index of the cell that glued it
        self.glue_images = glue_images            # image hash -> the glued output (its mime bundle)
        self.outputs: dict[int, list[dict]] = {}  # cell index -> figure outputs to add
        self.attachments: dict[str, dict] = {}    # figures no cell glued: attachments of the Markdown
        self.section_depth = 0
        self.footnotes: list[str] = []

    # --- numbers as the page prints them ---------------------------------------------------------
    def number(self, figtype: str, node: nodes.Element) -> str | None:
        for node_id in node.get("ids", []):
            found = self.fignumbers.get(figtype, {}).get(node_id)
            if found:
                return ".".join(map(str, found))
        return None

    def numbered(self, figtype: str, node: nodes.Element) -> str | None:
        number = self.number(figtype, node)
        fmt = self.numfig_format.get(figtype)
        return fmt % number if number and fmt else None

    # --- inline ----------------------------------------------------------------------------------
    def inline(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Text):
            return _escape(str(node))
        if isinstance(node, (nodes.comment, nodes.target, nodes.system_message, nodes.substitution_definition)):
            return ""
        if isinstance(node, nodes.raw):
            return node.astext() if "html" in node.get("format", "").split() else ""
        if isinstance(node, nodes.math):
            return f"${node.astext().strip()}$"
        if isinstance(node, nodes.literal):
            text = node.astext()
            ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
            pad = " " if text.startswith("`") or text.endswith("`") else ""
            return f"{ticks}{pad}{text}{pad}{ticks}"
        inner = "".join(self.inline(c) for c in node.children)
        if isinstance(node, nodes.emphasis):
            return self._wrap(inner, "*")
        if isinstance(node, nodes.strong):
            return self._wrap(inner, "**")
        if isinstance(node, nodes.subscript):
            return f"<sub>{inner}</sub>"
        if isinstance(node, nodes.superscript):
            return f"<sup>{inner}</sup>"
        if isinstance(node, nodes.footnote_reference):
            return f"<sup>{inner}</sup>"
        if isinstance(node, nodes.image):
            return _escape(node.get("alt", ""))
        if isinstance(node, nodes.reference):
            return self.reference(node, inner)
        return inner                               # inline (pasted-text, glossary links), abbreviation, ...

    @staticmethod
    def _wrap(inner: str, mark: str) -> str:
        stripped = inner.strip()
        if not stripped:
            return inner
        lead, trail = inner[: len(inner) - len(inner.lstrip())], inner[len(inner.rstrip()):]
        return f"{lead}{mark}{stripped}{mark}{trail}"

    def reference(self, node: nodes.reference, text: str) -> str:
        uri = node.get("refuri", "")
        if not uri or node.get("refid") or uri.startswith("#"):
            return text                              # this page: the text the page shows
        if re.match(r"^(https?|mailto):", uri):
            return f"[{text}]({uri})" if text else f"<{uri}>"
        chapter = CHAPTER_LINK.match(uri)
        if chapter:                                  # another chapter: its notebook, beside this one
            return f"[{text}]({chapter.group(1)}.ipynb)"
        return text

    def text_of(self, node: nodes.Node) -> str:
        return " ".join(self.inline(node).split())

    # --- blocks ----------------------------------------------------------------------------------
    def blocks(self, node: nodes.Node) -> list:
        """A node as a list of items: Markdown strings and Code places."""
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method:
            return method(node)
        if isinstance(node, nodes.container) and node.get("nb_element") == "cell_code":
            return [Code(int(node["cell_index"]))]
        if isinstance(node, (nodes.comment, nodes.target, nodes.system_message, nodes.substitution_definition)):
            return []
        if isinstance(node, nodes.raw):            # HTML the page carries; never its scripts (thebe's config)
            text = node.astext()
            keep = "html" in node.get("format", "").split() and "<script" not in text and "<style" not in text
            return [text] if keep else []
        if isinstance(node, nodes.Admonition):
            return self.admonition(node)
        if isinstance(node, nodes.TextElement):
            text = self.inline(node).strip()
            return [_line_start_safe(text)] if text else []
        return self.children(node)

    def children(self, node: nodes.Node) -> list:
        items: list = []
        for child in node.children:
            blocks = self.blocks(child)
            if isinstance(child, nodes.citation) and blocks and items and isinstance(items[-1], str) and getattr(node.children[node.index(child) - 1],
                                                                          "tagname", "") == "citation":
                items[-1] += "\n" + "\n".join(blocks)   # the bibliography: one list
            else:
                items += blocks
        return items

    def visit_document(self, node):
        return self.children(node)

    def visit_section(self, node):
        self.section_depth += 1
        try:
            return self.children(node)
        finally:
            self.section_depth -= 1

    def visit_title(self, node):
        text = self.text_of(node)
        return ["#" * min(max(self.section_depth, 1), 6) + " " + text] if text else []

    def visit_paragraph(self, node):
        if "course-live" in node.get("classes", []):   # the page's link to its live notebook: the
            return []                                  # notebook is read in Jupyter, or is that notebook
        text = self.inline(node).strip()
        return [_line_start_safe(text)] if text else []

    def visit_rubric(self, node):
        return [f"**{self.text_of(node)}**"]

    def visit_transition(self, node):
        return ["---"]

    def visit_literal_block(self, node):
        return [_fence(node.astext(), node.get("language", "") if node.get("language") not in ("default", "none") else "")]

    def visit_doctest_block(self, node):
        return [_fence(node.astext(), "python")]

    def visit_math_block(self, node):
        tex = node.astext().strip()
        number = self.number("displaymath", node) if node.get("ids") else None
        if node.get("nowrap"):   # amsmath's own environment (\begin{align} ...): MathJax reads it bare
            return [self.tagged_environment(tex, number)]
        if number:
            tex += f" \\tag{{{number}}}"
        return [f"$$\n{tex}\n$$"]

    # amsmath's top-level environments and their forms inside $$ (MathJax and KaTeX read both)
    INNER = {"align": "aligned", "flalign": "aligned", "alignat": "alignedat", "gather": "gathered",
             "multline": "gathered", "eqnarray": "array", "equation": "", "split": "split"}
    COLUMNS = {"eqnarray": "{rcl}"}          # eqnarray's three columns, as array needs them named
    # what numbers or labels one line of an environment: inside $$ with the page's \tag, an error
    LINE_MARKS = re.compile(r"\\(?:nonumber|notag)\b|\\(?:label|tag\*?)\{[^{}]*\}")

    @classmethod
    def tagged_environment(cls, tex: str, number: str | None) -> str:
        r"""An amsmath environment (``\begin{align} ... \end{align}``) as display math that Jupyter,
        JupyterLite and VS Code all show alike, with the page's number: ``$$`` around the
        environment's inner form (``aligned``; KaTeX, VS Code's, has no ``align`` or ``multline``),
        with the page's ``\tag`` and none of the body's own (MathJax allows one tag per display, and
        on its own would number the environment from (1) in every notebook)."""
        tag = f" \\tag{{{number}}}" if number else ""
        env = re.match(r"\\begin\{(\w+)\*?\}(\{\d+\})?", tex)
        if env and env.group(1) in cls.INNER:
            close = re.search(r"\\end\{" + env.group(1) + r"\*?\}\s*$", tex)
            if close:
                body = cls.LINE_MARKS.sub("", tex[env.end():close.start()]).strip()
                inner = cls.INNER[env.group(1)]
                if inner:
                    args = env.group(2) or cls.COLUMNS.get(env.group(1), "")
                    body = rf"\begin{{{inner}}}{args}" + body + rf"\end{{{inner}}}"
                return f"$$\n{body}{tag}\n$$"
        return f"$$\n{tex}{tag}\n$$"

    def visit_bullet_list(self, node):
        return [self._list(node, lambda i: "- ")]

    def visit_enumerated_list(self, node):
        start = node.get("start", 1)
        return [self._list(node, lambda i: f"{start + i}. ")]

    def _list(self, node, marker) -> str:
        items = []
        for i, item in enumerate(c for c in node.children if isinstance(c, nodes.list_item)):
            body = self.join(self.children(item), loose=False) or ""
            lead = marker(i)
            lines = body.split("\n")
            items.append(lead + lines[0] + "".join("\n" + (" " * len(lead) + l if l else "") for l in lines[1:]))
        return "\n".join(items)

    def visit_definition_list(self, node):
        out = []
        for item in node.children:
            term = " ".join(self.text_of(t) for t in item.children if isinstance(t, nodes.term))
            body = " ".join(self.join(self.children(d)) or "" for d in item.children if isinstance(d, nodes.definition))
            out.append(f"**{term}**: {body}")
        return ["\n\n".join(out)]

    def visit_field_list(self, node):
        return [self.visit_definition_list_like(node)]

    def visit_definition_list_like(self, node):
        rows = []
        for field in node.children:
            name = self.text_of(field.children[0])
            body = self.join(self.children(field.children[1])) or ""
            rows.append(f"**{name}**: {body}")
        return "\n\n".join(rows)

    def visit_block_quote(self, node):
        return self.quoted(self.children(node))

    def visit_line_block(self, node):
        return ["  \n".join(self.text_of(line) for line in node.children)]

    def visit_compound(self, node):
        return self.children(node)

    def visit_topic(self, node):
        return self.children(node)

    def visit_footnote(self, node):
        label = next((self.text_of(c) for c in node.children if isinstance(c, nodes.label)), "")
        body = self.join([b for c in node.children if not isinstance(c, nodes.label) for b in self.blocks(c)])
        return [f"<sup>{label}</sup> {body}"]

    def visit_citation(self, node):
        body = self.join([b for c in node.children if not isinstance(c, nodes.label) for b in self.blocks(c)])
        return [f"- {body}"] if body else []

    def visit_table(self, node):
        out = []
        titles = [c for c in node.children if isinstance(c, nodes.title)]
        numbered = self.numbered("table", node)
        caption = " ".join(filter(None, [f"**{numbered}**" if numbered else "",
                                          self.text_of(titles[0]) if titles else ""]))
        if caption:
            out.append(caption)
        for group in node.findall(nodes.tgroup):
            if any(e.get("morecols") or e.get("morerows") for e in group.findall(nodes.entry)):
                out.append(self._html_table(group))   # a Markdown table has no cell spanning two
                break
            head = [self._row(r) for r in group.findall(nodes.row) if isinstance(r.parent, nodes.thead)]
            body = [self._row(r) for r in group.findall(nodes.row) if isinstance(r.parent, nodes.tbody)]
            width = max((len(r) for r in head + body), default=0)
            if not width:
                continue
            head = head or [[""] * width]
            lines = ["| " + " | ".join(head[0] + [""] * (width - len(head[0]))) + " |",
                     "|" + "|".join("---" for _ in range(width)) + "|"]
            for row in head[1:] + body:
                lines.append("| " + " | ".join(row + [""] * (width - len(row))) + " |")
            out.append("\n".join(lines))
            break
        return ["\n\n".join(out)] if out else []

    def _html_table(self, group) -> str:
        """A table with cells spanning rows or columns as HTML (Jupyter, JupyterLite and VS Code
        show it), its spans kept. Each cell's text is Markdown between blank lines, so it is read as
        Markdown (CommonMark ends an HTML block at a blank line): bold, code and math as in any
        other cell, and the Markdown escapes of :meth:`children` are not escaped a second time."""
        lines = ["<table>"]
        for part, cell_tag in ((nodes.thead, "th"), (nodes.tbody, "td")):
            rows = [r for r in group.findall(nodes.row) if isinstance(r.parent, part)]
            if not rows:
                continue
            lines.append(f"<{part.__name__}>")
            for row in rows:
                cells = []
                for entry in row.children:
                    spans = "".join(f' {attr}="{entry[key] + 1}"' for key, attr in
                                    (("morecols", "colspan"), ("morerows", "rowspan")) if entry.get(key))
                    cells.append(f"<{cell_tag}{spans}>\n\n{_inline_start(self._cell_text(entry))}\n\n</{cell_tag}>")
                lines.append("<tr>" + "".join(cells) + "</tr>")
            lines.append(f"</{part.__name__}>")
        return "\n".join(lines + ["</table>"])

    def _row(self, row) -> list[str]:
        """A row's cells for a pipe table (a "|" in a cell escaped once)."""
        return [self._cell_text(entry).replace("\\|", "|").replace("|", "\\|") for entry in row.children]

    def _cell_text(self, entry) -> str:
        """A table cell's Markdown on one line (its paragraphs joined by a space)."""
        return " ".join(" ".join(b.split()) for b in self.children(entry) if isinstance(b, str))

    def visit_figure(self, node):
        out = []
        for image in node.findall(nodes.image):
            out += self.figure_image(image, node)
        numbered = self.numbered("figure", node)
        caption = next((self.text_of(c) for c in node.children if isinstance(c, nodes.caption)), "")
        legend = [b for c in node.children if isinstance(c, nodes.legend) for b in self.children(c)]
        line = " ".join(filter(None, [f"**{numbered}**" if numbered else "", caption]))
        return out + ([line] if line else []) + legend

    def visit_image(self, node):
        return self.figure_image(node, None)

    def figure_image(self, image, figure) -> list:
        digest = Path(image.get("uri", "")).stem
        glued = self.glue_images.get(digest)
        if glued is None:
            return [f"![{_escape(image.get('alt', ''))}]({image.get('uri', '')})"]
        cell = self.figure_cells.get(digest)
        if cell is not None:                         # an output of the cell that glued it
            self.outputs.setdefault(cell, []).append(glued)
            return []
        mime = next(m for m in glued["data"] if m.startswith("image/"))   # no cell glued it: an attachment
        name = f"{digest[:16]}{'.png' if mime == 'image/png' else '.' + mime.split('/')[-1]}"
        self.attachments[name] = {mime: glued["data"][mime]}
        return [f"![{_escape(image.get('alt', ''))}](attachment:{name})"]

    def admonition(self, node) -> list:
        classes = node.get("classes", [])
        kind = type(node).__name__
        title_nodes = [c for c in node.children if isinstance(c, nodes.title)]
        body = [b for c in node.children if not isinstance(c, nodes.title) for b in self.blocks(c)]
        if kind == "exercise_enumerable_node":
            number = self.numbered("exercise", node)
            sub = self.text_of(title_nodes[0]) if title_nodes else ""
            title = (number or "") + (f" {sub}" if sub else "")
        elif title_nodes:
            title = self.text_of(title_nodes[0])
        else:
            name = kind if kind not in ("admonition",) else (classes[0] if classes else "note")
            title = ADMONITION_TITLES.get(self.lang, ADMONITION_TITLES["en"]).get(name, name.capitalize())
        if self.lang == "zh":                        # as the page shows it: 练习 6.7（……）
            from course_ext import ZH_EXERCISE_TITLE
            title = ZH_EXERCISE_TITLE.sub(lambda m: f"{m.group(1)}（{m.group(3)}）", title)
        if kind == "solution_node" or "dropdown" in classes:
            return self.folded(title, body)
        quoted = self.quoted(([f"**{title}**"] if title else []) + body)
        label = node.get("label") or next(iter(node.get("ids", [])), "")
        if kind == "exercise_enumerable_node" and label:
            quoted.append(ExerciseEnd(label, title))
        return quoted

    def folded(self, summary: str, body: list) -> list:
        items: list = [f"<details>\n<summary>{summary}</summary>"]
        items += body
        items.append("</details>")
        return items

    def quoted(self, items: list) -> list:
        """Block-quote the Markdown of ``items`` (a code cell inside stays a code cell)."""
        out, run = [], []

        def flush():
            if run:
                text = "\n\n".join(run)
                out.append("\n".join("> " + l if l else ">" for l in text.split("\n")))
                run.clear()
        for item in items:
            if isinstance(item, str):
                run.append(item)
            else:
                flush()
                out.append(item)
        flush()
        return out

    @staticmethod
    def join(items: list, loose: bool = True) -> str:
        return ("\n\n" if loose else "\n\n").join(i for i in items if isinstance(i, str) and i.strip())


def _glue_images(glue: dict[str, Any]) -> dict[str, tuple[str, dict]]:
    """The glued images of a page by the SHA-256 of their bytes (myst-nb names its image files so):
    hash -> (glue key, the output as a front end shows it)."""
    found = {}
    for key, output in glue.items():
        data = output.get("data", {})
        for mime in ("image/png", "image/jpeg", "image/gif"):
            if mime in data:
                digest = hashlib.sha256(base64.b64decode(data[mime])).hexdigest()
                size = output.get("metadata", {}).get(mime)   # the width a 2x figure is shown at
                shown = {"output_type": "display_data", "metadata": {mime: dict(size)} if size else {},
                         "data": {m: v for m, v in data.items() if m in (mime, "text/plain")}}
                found[digest] = (key, shown)
    return found


def _glue_cell(notebook: dict, key: str) -> int | None:
    """The index of the code cell whose source glues ``key``."""
    pattern = re.compile(r"""glue\(\s*(?:f?["'])""" + re.escape(key) + r"""["']""")
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "code" and pattern.search(_source(cell)):
            return index
    return None


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def convert(doctree: nodes.document, executed: dict, glue: dict[str, Any], *, docname: str, lang: str,
            fignumbers: dict, numfig_format: dict) -> dict:
    """The readable notebook (an nbformat 4 dict) of one resolved page.

    ``executed`` is myst-nb's executed notebook of the page (its code cells, in order, with their
    outputs; the Markdown cells are ignored: the prose comes from ``doctree``), ``glue`` its glue
    data (key -> output, ``<docname>.glue.json``), ``fignumbers`` the page's entry of Sphinx's
    ``env.toc_fignumbers`` and ``numfig_format`` the config's (the page's own "Fig. %s").
    """
    import nbformat

    images = _glue_images(glue)
    figure_cells = {h: c for h, (key, _) in images.items() if (c := _glue_cell(executed, key)) is not None}
    conv = Converter(docname, lang, fignumbers, numfig_format, figure_cells, {h: o for h, (_, o) in images.items()})
    items = conv.blocks(doctree)

    cells, markdown, done = [], [], -1
    code_indices = [i for i, c in enumerate(executed["cells"]) if c["cell_type"] == "code"]

    def flush_markdown(exercise: ExerciseEnd | None = None):
        text = "\n\n".join(m for m in markdown if m.strip()).strip()
        markdown.clear()
        if text:
            cell = nbformat.v4.new_markdown_cell(text)
            used = {n: a for n, a in conv.attachments.items() if f"attachment:{n}" in text}
            if used:
                cell["attachments"] = used
            if exercise is not None:
                cell.metadata["course"] = {"exercise": exercise.label, "title": exercise.title}
            cells.append(cell)

    def code_cell(index: int, shown: bool):
        src = executed["cells"][index]
        tags = _tags(src)
        outputs = [] if tags & DROPPED_OUTPUT else [o for o in src.get("outputs", [])
                                                     if "scrapbook" not in o.get("metadata", {})]
        outputs = outputs + conv.outputs.get(index, [])
        cell = nbformat.v4.new_code_cell(_source(src), outputs=[nbformat.from_dict(o) for o in outputs],
                                         execution_count=src.get("execution_count"))
        if tags:
            cell.metadata["tags"] = sorted(tags)
        jupyter = {}
        if tags & HIDDEN_INPUT or not shown:
            jupyter["source_hidden"] = True
        if tags & HIDDEN_OUTPUT or (not shown and not conv.outputs.get(index)):
            jupyter["outputs_hidden"] = True
        if jupyter:
            cell.metadata["jupyter"] = jupyter
        cells.append(cell)

    def code_up_to(index: int):
        nonlocal done
        for i in code_indices:
            if done < i < index:                      # removed from the page (remove-cell): still runs
                code_cell(i, shown=False)
        if index > done and index < len(executed["cells"]):
            code_cell(index, shown=True)
        done = max(done, index)

    for item in items:
        if isinstance(item, Code):
            flush_markdown()
            code_up_to(item.index)
        elif isinstance(item, ExerciseEnd):
            flush_markdown(item)
        else:
            markdown.append(item)
    flush_markdown()
    code_up_to(len(executed["cells"]))
    meta = {k: executed.get("metadata", {})[k] for k in ("kernelspec", "language_info")
            if k in executed.get("metadata", {})}
    nb = nbformat.v4.new_notebook(cells=cells, metadata=meta)
    nbformat.validate(nb)
    return nb


def write_reader_notebook(app, doctree, docname):
    """``doctree-resolved``: write the readable notebook of a chapter page (HTML builds only)."""
    if app.builder.name != "html" or not is_chapter(docname):   # 06_performance, not the glossary
        return
    import nbformat

    execute_dir = Path(app.outdir).parent / "jupyter_execute"
    ipynb = execute_dir / f"{docname}.ipynb"
    if not ipynb.exists():
        return
    glue_path = execute_dir / f"{docname}.glue.json"
    glue = json.loads(glue_path.read_text(encoding="utf-8")) if glue_path.exists() else {}
    executed = nbformat.read(ipynb, as_version=4)
    lang = "zh" if str(app.config.language).startswith("zh") else "en"
    nb = convert(doctree, executed, glue, docname=docname, lang=lang,
                 fignumbers=app.env.toc_fignumbers.get(docname, {}), numfig_format=dict(app.config.numfig_format))
    target = Path(app.outdir).parent / READER_FOLDER / f"{docname}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)


def setup(app):
    app.connect("doctree-resolved", write_reader_notebook, priority=900)   # after the other extensions' edits
    return {"parallel_read_safe": True, "parallel_write_safe": True}
