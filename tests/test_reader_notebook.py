"""The notebooks a reader downloads (the page's .ipynb button and the course zip) read like the page.

book/ext/reader_notebook.py writes them from each chapter's resolved doctree. The first tests feed
its ``convert`` a small page made here (no build); the ``build`` tests read what the strict build
wrote: every chapter of both editions (of course.TOC, so COURSE_TOC=... COURSE_BUILD_DIR=...
COURSE_SITE_PREBUILT=1 checks a private build of some pages).
"""
import base64
import hashlib
import json
import re
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
import yaml
from markdown_it import MarkdownIt
from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.utils import new_document

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "ext"))
import reader_notebook  # noqa: E402

from course import BUILD, EDITIONS, NAME, SITE, TOC, is_chapter, site_toc, toc_docs  # noqa: E402  (book/tools)
from site_server import first_glued_number  # noqa: E402  (tests/, as test_downloads.py reads the page)

from infra_lib.figures.style import PIXEL_DENSITY  # noqa: E402

# What plain Jupyter would show as MyST source: roles, directives, labels, glue placeholders.
MYST_LEFT = re.compile(r"\{glue|\{cite|\{eq\}|\{numref\}|\{ref\}|\{doc\}|\{term\}|\{prf:|```\{|:::\{|^\s*\([\w-]+\)=\s*$"
                       r"|^:(label|class|name|filter|tags):", re.M)
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"figure bytes").decode()


# --- convert, on a page made here ------------------------------------------------------------------

def png_width(b64):
    """The width in pixels of a base64 PNG, from its IHDR chunk (bytes 16-20)."""
    return int.from_bytes(base64.b64decode(b64)[16:20], "big")


def small_page():
    """A resolved page as Sphinx hands it over: a section with glued text, a numbered equation,
    a reference to it, a code cell that glues a figure, the figure, an exercise box and a solution."""
    doc = new_document("page", get_default_settings(Parser))
    section = nodes.section(ids=["start"])
    section += nodes.title("", "A chapter")
    para = nodes.paragraph()
    para += nodes.Text("The mean error is ")
    para += nodes.inline("", "4.7%", classes=["pasted-text"])
    para += nodes.Text(" (see ")
    para += nodes.reference("", "Eq. (6.3)", refid="equation-eq-x", internal=True)
    para += nodes.Text("; ")
    para += nodes.reference("", "Smith et al., 2020", refid="id7", internal=True)
    para += nodes.Text("), cost $2 * n_a.")
    section += para
    section += nodes.math_block("x = 2", "x = 2", ids=["equation-eq-x"], label="eq-x", number=3, nowrap=False)
    cell = nodes.container(nb_element="cell_code", cell_index=1, classes=["cell", "tag_hide-input"])
    section += cell
    image = nodes.image(uri="../../jupyter_execute/" + hashlib.sha256(base64.b64decode(PNG)).hexdigest() + ".png")
    figure = nodes.figure("", image, ids=["fig-x"])
    figure += nodes.caption("", "Measured and predicted.")
    section += figure
    box = nodes.admonition("", classes=["tip"])
    box += nodes.title("", "Try it")
    box += nodes.paragraph("", "Move a slider.")
    section += box
    section += nodes.container(nb_element="cell_code", cell_index=3, classes=["cell", "tag_remove-output"])
    doc += section
    executed = {"metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
                "cells": [{"cell_type": "code", "source": "LANG = 'en'", "metadata": {"tags": ["remove-cell"]},
                           "outputs": [], "execution_count": 1},
                          {"cell_type": "code", "source": 'glue("ch6_fig_x", fig, display=False)',
                           "metadata": {"tags": ["hide-input"]}, "outputs": [], "execution_count": 2},
                          {"cell_type": "markdown", "source": "{glue:text}`ch6_mae:.1%`", "metadata": {}},
                          {"cell_type": "code", "source": "explore(LANG)",
                           "metadata": {"tags": ["remove-output", "skip-execution"]}, "outputs": [],
                           "execution_count": None}]}
    glue = {"ch6_fig_x": {"output_type": "display_data", "metadata": {"scrapbook": {"name": "ch6_fig_x"}},
                          "data": {"image/png": PNG, "text/plain": "<Figure>"}},
            "ch6_mae": {"output_type": "display_data", "metadata": {}, "data": {"text/plain": "0.047"}}}
    return doc, executed, glue


def converted():
    doc, executed, glue = small_page()
    return reader_notebook.convert(doc, executed, glue, docname="06_x", lang="en",
                                   fignumbers={"figure": {"fig-x": (6, 2)}, "displaymath": {"equation-eq-x": (6, 3)}},
                                   numfig_format={"figure": "Fig. %s"})


def test_the_prose_is_the_pages_text_as_markdown():
    nb = converted()
    nbformat.validate(nb)
    md = "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert md.startswith("# A chapter")
    assert "The mean error is 4.7% (see Eq. (6.3); Smith et al., 2020)" in md
    assert r"cost \$2 \* n\_a." in md                  # a dollar, a star, an underscore shown as typed
    assert "$$\nx = 2 \\tag{6.3}\n$$" in md
    assert "**Fig. 6.2** Measured and predicted." in md
    assert "> **Try it**\n>\n> Move a slider." in md
    assert not MYST_LEFT.search(md)


def test_every_code_cell_runs_in_order_and_hidden_input_is_collapsed():
    nb = converted()
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.source for c in code] == ["LANG = 'en'", 'glue("ch6_fig_x", fig, display=False)', "explore(LANG)"]
    removed, glued, widget = code
    assert removed.metadata["jupyter"]["source_hidden"] is True      # not on the page, still run
    assert glued.metadata["jupyter"]["source_hidden"] is True        # hide-input
    assert "jupyter" not in widget.metadata and widget.outputs == []  # the widget cell: shown, ready to run


def test_a_glued_figure_is_an_image_output_of_the_cell_that_glued_it():
    nb = converted()
    glued = [c for c in nb.cells if c.cell_type == "code"][1]
    images = [o for o in glued.outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1 and images[0]["data"]["image/png"] == PNG
    assert images[0]["output_type"] == "display_data"
    md_cells = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "Fig. 6.2" in c.source]
    assert md_cells and nb.cells.index(glued) < md_cells[0]      # the figure, then its caption


def test_a_figure_no_cell_glued_is_an_attachment():
    doc, executed, glue = small_page()
    executed["cells"][1]["source"] = "pass"
    nb = reader_notebook.convert(doc, executed, glue, docname="06_x", lang="en",
                                 fignumbers={}, numfig_format={})
    nbformat.validate(nb)
    with_image = [c for c in nb.cells if c.cell_type == "markdown" and "attachment:" in c.source]
    assert len(with_image) == 1 and list(with_image[0].attachments.values())[0]["image/png"] == PNG


def test_solutions_and_dropdowns_fold():
    doc = new_document("page", get_default_settings(Parser))
    box = nodes.admonition("", classes=["dropdown"])
    box += nodes.title("", "Why")
    box += nodes.paragraph("", "Because.")
    doc += box
    nb = reader_notebook.convert(doc, {"cells": [], "metadata": {}}, {}, docname="p", lang="zh",
                                 fignumbers={}, numfig_format={})
    assert nb.cells[0].source == "<details>\n<summary>Why</summary>\n\nBecause.\n\n</details>"


def test_an_amsmath_environment_keeps_the_pages_number_and_reads_in_every_front_end():
    """``\begin{align}`` (myst's amsmath, a nowrap block) becomes ``aligned`` inside ``$$`` with the
    page's number: KaTeX has no ``align``, and bare MathJax would number it (1); a line's own
    label, tag or ``\nonumber`` goes (one tag per display)."""
    doc = new_document("page", get_default_settings(Parser))
    tex = "\\begin{align}\na &= 1 \\\\\nb &= 2\n\\end{align}"
    doc += nodes.math_block(tex, tex, ids=["equation-eq-y"], label="eq-y", number=4, nowrap=True)
    doc += nodes.math_block("\\begin{gather*}c\\end{gather*}", "\\begin{gather*}c\\end{gather*}", nowrap=True)
    nb = reader_notebook.convert(doc, {"cells": [], "metadata": {}}, {}, docname="07_x", lang="en",
                                 fignumbers={"displaymath": {"equation-eq-y": (7, 4)}}, numfig_format={})
    md = markdown_of(nb)
    assert "$$\n\\begin{aligned}a &= 1 \\\\\nb &= 2\\end{aligned} \\tag{7.4}\n$$" in md
    assert "$$\n\\begin{gathered}c\\end{gathered}\n$$" in md      # no number on the page: none here
    assert "{align}" not in md and "{gather*}" not in md
    convert = reader_notebook.Converter.tagged_environment
    assert convert("\\begin{multline}a\\\\+b\\label{m}\\end{multline}", "2.1") == \
        "$$\n\\begin{gathered}a\\\\+b\\end{gathered} \\tag{2.1}\n$$"
    assert convert("\\begin{alignat}{2}x&=1\\tag{9}\\\\y&=2\\nonumber\\end{alignat}", None) == \
        "$$\n\\begin{alignedat}{2}x&=1\\\\y&=2\\end{alignedat}\n$$"
    assert convert("\\begin{eqnarray}a&=&1\\end{eqnarray}", "1.1") == \
        "$$\n\\begin{array}{rcl}a&=&1\\end{array} \\tag{1.1}\n$$"


def test_text_is_escaped_once():
    shown = MarkdownIt("commonmark").render(reader_notebook._escape("x < y > z, &lt; a_b *c* $5 `k`"))
    assert shown == "<p>x &lt; y &gt; z, &amp;lt; a_b *c* $5 `k`</p>\n"


def test_a_table_with_a_spanning_cell_is_an_html_table_that_keeps_the_span():
    doc = new_document("page", get_default_settings(Parser))
    table = nodes.table()
    group = nodes.tgroup(cols=3)
    table += group
    group += [nodes.colspec(colwidth=1) for _ in range(3)]

    def row(*cells):
        r = nodes.row()
        for text, spans in cells:
            r += nodes.entry("", nodes.paragraph("", text), **spans)
        return r
    head, body = nodes.thead(), nodes.tbody()
    head += row(("GPU", {}), ("Memory & bandwidth", {"morecols": 1}))
    body += row(("H100", {"morerows": 1}), ("80 GiB", {}), ("3.35 TB/s", {}))
    body += row(("(SXM) <1 %", {}), ("- 3 %", {}))
    bold = nodes.entry("", nodes.paragraph("", "", nodes.strong("", "fast")))
    body.children[-1] += bold
    group += [head, body]
    doc += table
    nb = reader_notebook.convert(doc, {"cells": [], "metadata": {}}, {}, docname="p", lang="en",
                                 fignumbers={}, numfig_format={})
    md = markdown_of(nb)
    assert "| " not in md                                          # not flattened into a pipe table
    shown = re.sub(r"\s+", "", MarkdownIt("commonmark").render(md))     # as a CommonMark front end shows it
    assert '<thead><tr><th><p>GPU</p></th><thcolspan="2"><p>Memory&amp;bandwidth</p></th></tr></thead>' in shown
    assert '<tr><tdrowspan="2"><p>H100</p></td><td><p>80GiB</p></td><td><p>3.35TB/s</p></td></tr>' in shown
    assert "<td><p>(SXM)&lt;1%</p></td><td><p>-3%</p></td><td><p><strong>fast</strong></p></td>" in shown


def test_a_2x_figure_keeps_the_width_it_is_shown_at():
    doc, executed, glue = small_page()
    glue["ch6_fig_x"]["metadata"]["image/png"] = {"width": 385}
    nb = reader_notebook.convert(doc, executed, glue, docname="06_x", lang="en",
                                 fignumbers={}, numfig_format={})
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert [o["metadata"] for o in images] == [{"image/png": {"width": 385}}]


# --- what the strict build wrote ----------------------------------------------------------------

def chapters(lang):
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    return [d for d in toc_docs(site_toc(toc)) if is_chapter(d)]     # 06_performance: names on the site


def downloaded(lang, docname):
    return SITE / lang / f"{docname}.ipynb"


def markdown_of(nb):
    return "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


def unescaped(md):
    return re.sub(r"\\([\\*_`$~|])", r"\1", md).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_every_downloaded_notebook_is_plain_jupyter_that_reads_like_its_page(strict_build, lang):
    assert strict_build.returncode == 0, strict_build.summary()
    problems = []
    for docname in chapters(lang):
        path = downloaded(lang, docname)
        if not path.is_file():
            problems.append(f"{docname}: no download at {path}")
            continue
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        md = markdown_of(nb)
        for m in MYST_LEFT.finditer(md):
            line = md[md.rfind("\n", 0, m.start()) + 1: md.find("\n", m.end())]
            problems.append(f"{docname}: MyST left in the Markdown: {line[:120]!r}")
            break
        built = (SITE / lang / f"{docname}.html").read_text(encoding="utf-8")
        number = first_glued_number(built)
        if number and number not in unescaped(md):
            problems.append(f"{docname}: the page's first glued number {number!r} is not in the notebook's prose")
        source = nbformat.read(BUILD / lang / "_build" / "jupyter_execute" / f"{docname}.ipynb", as_version=4)
        code = [c.source for c in source.cells if c.cell_type == "code"]
        if [c.source for c in nb.cells if c.cell_type == "code"] != code:
            problems.append(f"{docname}: the code cells are not the chapter's, in its order")
    assert not problems, "\n".join(problems)


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_every_glued_figure_of_a_page_is_an_image_output_in_its_notebook(strict_build, lang):
    assert strict_build.returncode == 0, strict_build.summary()
    problems = []
    for docname in chapters(lang):
        md_source = (Path(ROOT) / "notebooks" / lang / f"{docname}.md").read_text(encoding="utf-8")
        keys = re.findall(r"^```\{glue:figure\}\s+(\S+)", md_source, re.M)
        glue = json.loads((BUILD / lang / "_build" / "jupyter_execute" / f"{docname}.glue.json").read_text(encoding="utf-8"))
        nb = nbformat.read(downloaded(lang, docname), as_version=4)
        shown = {o["data"]["image/png"]: o.get("metadata", {}).get("image/png", {}).get("width")
                 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if "image/png" in o.get("data", {})}
        for key in keys:
            png = glue[key]["data"].get("image/png")
            if png not in shown:
                problems.append(f"{docname}: figure {key} is not an image output of the notebook")
            elif not shown[png] or abs(png_width(png) - PIXEL_DENSITY * shown[png]) > PIXEL_DENSITY:
                problems.append(f"{docname}: figure {key} is {png_width(png)} px wide, shown at {shown[png]}: "
                                f"not drawn at {PIXEL_DENSITY}x (infra_lib.figures.style.hidpi_png)")
        hidden = [c for c in nb.cells if c.cell_type == "code" and "hide-input" in c.metadata.get("tags", [])
                  and not c.metadata.get("jupyter", {}).get("source_hidden")]
        if hidden:
            problems.append(f"{docname}: {len(hidden)} hide-input cell(s) without jupyter.source_hidden")
    assert not problems, "\n".join(problems)


@pytest.mark.build
def test_the_zip_holds_the_same_readable_notebooks_as_the_pages(strict_build):
    assert strict_build.returncode == 0, strict_build.summary()
    with zipfile.ZipFile(SITE / "downloads" / f"{NAME}.zip") as z:
        for lang in EDITIONS:
            for docname in chapters(lang):
                name = f"{NAME}/notebooks/{lang}/{docname.rsplit('/', 1)[-1]}.ipynb"
                assert z.read(name) == downloaded(lang, docname).read_bytes(), name
