"""The site builds from clean, both editions, with warnings as errors; library changes re-execute notebooks.

The tests marked ``build`` run Sphinx (the session's strict build, two tiny one-page builds); the
others read the configuration and the log parser only (``pytest -m "not build"``, make check).
"""
import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import build  # book/tools/build.py (pythonpath in pyproject.toml)
import course  # book/tools/course.py: the folders, editions and each edition's config

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.build
def test_strict_clean_build_of_both_editions(strict_build):
    """`build.py --strict`: clean _build, -W -n --keep-going --all, both editions (the site tests use it)."""
    assert strict_build.returncode == 0, strict_build.summary()
    for lang in course.EDITIONS:
        assert (course.SITE / lang / "index.html").exists()
    assert (course.SITE / "index.html").exists()


def test_no_tool_imports_the_build_script():
    """The tools share book/tools/course.py and none imports build.py: `python book/tools/build.py`
    loads it once (an import of `build` would load it again, as a second module), and course.py
    imports no tool, so there is no cycle."""
    tools = {p.stem: p for p in (ROOT / "book" / "tools").glob("*.py")}
    def imported(path):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        return {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names} | {node.module.split(".")[0] for node in ast.walk(tree)
                                            if isinstance(node, ast.ImportFrom) and node.module and not node.level}
    sources = [*tools.values(), *(ROOT / "book" / "ext").glob("*.py")]
    assert [p.name for p in sources if "build" in imported(p)] == []
    assert imported(tools["course"]) & set(tools) == set()


def test_library_change_changes_the_execution_cache(tmp_path):
    lib = tmp_path / "infra_lib"
    (lib / "data").mkdir(parents=True)
    (lib / "core.py").write_text("X = 1\n")
    (lib / "data" / "specs.toml").write_text("a = 1\n")
    before = course.library_fingerprint(lib)
    (lib / "data" / "specs.toml").write_text("a = 2\n")
    after_data = course.library_fingerprint(lib)
    (lib / "core.py").write_text("X = 2\n")
    after_code = course.library_fingerprint(lib)
    assert len({before, after_data, after_code}) == 3


def test_each_edition_caches_under_the_library_fingerprint():
    for lang in course.EDITIONS:
        config, _ = course.edition_config(lang)
        assert Path(config["execute"]["cache"]).name == course.library_fingerprint()
        assert config["execute"]["execute_notebooks"] == "cache"


def test_chinese_edition_config():
    config, toc = course.edition_config("zh")
    sphinx = config["sphinx"]["config"]
    assert sphinx["language"] == "zh_CN" and sphinx["html_search_language"] == "zh"
    assert all(k in sphinx for k in ("nb_code_prompt_show", "nb_code_prompt_hide"))
    assert "搜索" in sphinx["html_theme_options"]["search_bar_text"]
    en_config, en_toc = course.edition_config("en")
    assert str(toc).replace("/zh/", "/en/").count("/en/") == str(en_toc).count("/en/")
    assert "toc_captions" not in config


def test_site_serves_its_own_scripts():
    config, _ = course.edition_config("en")
    sphinx = config["sphinx"]["config"]
    assert not sphinx["mathjax_path"].startswith("http")
    assert all(not url.startswith("http") for url in sphinx["nb_ipywidgets_js"])


# --- a broken book fails loudly: page, line of the .md source, exception ------------------------

TINY_PAGE = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A tiny page

```{code-cell} ipython3
:tags: [edition]

LANG = "LANG_HERE"
```

The value is {glue:text}`KEY_HERE:.1f` here.

```{code-cell} ipython3
from myst_nb import glue
x = 2
BODY_HERE
glue("tiny_value", float(x), display=False)
```
"""


def tiny_book(dest, en_body, zh_body, zh_key="tiny_value"):
    """A copy of the book's tools, extensions, config and templates with a one-page table of
    contents: notebooks/{en,zh}/00_tiny.md, whose second cell runs ``*_body``."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "_config.yml", dest / "_config.yml")
    # all of book/ (tools, extension, templates, static files, overrides, jieba's terms): the
    # one-page table of contents decides what is built
    shutil.copytree(ROOT / "book", dest / "book",
                    ignore=shutil.ignore_patterns("__pycache__", "node_modules", "vendor", "lite-vendor"))
    (dest / "book" / "lite-vendor").symlink_to(ROOT / "book" / "lite-vendor")   # 18 MB: read, not copied
    for rel in build.VENDOR_FILES:                 # stand-ins: the tiny page needs no MathJax
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text("", encoding="utf-8")
    (dest / "_toc.yml").write_text("format: jb-book\nroot: notebooks/en/00_tiny\n", encoding="utf-8")
    for lang, body, key in (("en", en_body, "tiny_value"), ("zh", zh_body, zh_key)):
        page = dest / "notebooks" / lang / "00_tiny.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        text = TINY_PAGE.replace("LANG_HERE", lang).replace("BODY_HERE", body).replace("KEY_HERE", key)
        page.write_text(text, encoding="utf-8")
    return dest


def line_of(path, needle):
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if needle in line)


@pytest.fixture(scope="module")
def broken_build(tmp_path_factory):
    """`build.py` (what `make site` runs) on a tiny book: the English cell raises, the Chinese
    prose uses a glue key that no cell glues. About 40 s: two one-page Sphinx builds."""
    book = tiny_book(tmp_path_factory.mktemp("broken"), en_body="y = 1 / 0", zh_body="y = 1", zh_key="tiny_nowhere")
    run = subprocess.run([sys.executable, str(book / "book/tools/build.py")], cwd=book, capture_output=True,
                         text=True, env={**os.environ, "COURSE_BUILD_DIR": str(book / "_build")})
    return book, run


@pytest.mark.build
def test_a_broken_page_fails_the_build_and_names_page_line_and_exception(broken_build):
    book, run = broken_build
    out = run.stdout + run.stderr
    assert run.returncode == 1, f"exit status {run.returncode}:\n{out[-3000:]}"
    en_line = line_of(book / "notebooks/en/00_tiny.md", "1 / 0")
    assert f"en  notebooks/en/00_tiny.md:{en_line}  cell raised ZeroDivisionError: division by zero" in out, out
    zh_line = line_of(book / "notebooks/zh/00_tiny.md", "tiny_nowhere")
    assert f"zh  notebooks/zh/00_tiny.md:{zh_line}  glue key 'tiny_nowhere'" in out, out
    assert len(out) < 3000, f"the summary should be short, not Sphinx's log:\n{out[:3000]}"


@pytest.mark.build
def test_a_broken_build_publishes_nothing(broken_build):
    book, run = broken_build
    site = book / "_build" / "site"
    assert not list(site.rglob("00_tiny.html")), "a page with a traceback or a hole was published"
    assert {p.name for p in (book / "_build").glob("*.failed")} == {"en.failed", "zh.failed"}


def test_problems_are_read_from_the_sphinx_log(tmp_path):
    """Units of the summary: a kernel that died, and a glue warning mapped to the .md line."""
    page = ROOT / "notebooks/en/00_overview.md"
    key = next(k for k in re.findall(r"\{glue:text\}`(\w+)", page.read_text(encoding="utf-8")))
    log = (f"reading sources... [ 50%] 00_overview\n"
           f"{page}:3: WARNING: No key '{key}' found in glue data for this document. [mystnb.glue]\n"
           "Exception occurred:\n  File \"x.py\", line 1, in f\n"
           "nbclient.exceptions.DeadKernelError: Kernel died\n")
    glue = build.log_problems("en", log, tmp_path)
    assert glue and all(key in (ROOT / p.page).read_text(encoding="utf-8").split("\n")[p.line_no - 1] for p in glue)
    crash = build.crash_problems("en", log)
    assert crash[0].line() == "en  notebooks/en/00_overview.md  the build stopped: DeadKernelError: Kernel died"


def test_theme_macros_override_is_the_themes_less_fontawesome():
    """book/_templates/static/webpack-macros.html is the theme's own file without fontawesome.js
    (the theme's CSS draws the icons with the webfont): after a theme upgrade, copy it again."""
    import pydata_sphinx_theme

    theme = Path(pydata_sphinx_theme.__file__).parent / "theme/pydata_sphinx_theme/static/webpack-macros.html"
    ours = (ROOT / "book/_templates/static/webpack-macros.html").read_text(encoding="utf-8")
    kept = [line for line in theme.read_text(encoding="utf-8").splitlines()
            if "{%" in line or "pathto(" in line]
    expected = [line for line in kept if "fontawesome.js" not in line]
    assert [line for line in ours.splitlines() if "{%" in line or "pathto(" in line] == expected
    assert not [line for line in ours.splitlines() if "<script" in line and "fontawesome" in line]


def test_the_build_marker_guard_refuses_an_unmarked_test():
    """tests/conftest.py: a test that asks for a build without the `build` marker fails before the build starts."""
    from types import SimpleNamespace

    import conftest
    marked = SimpleNamespace(nodeid="t::marked", fixturenames=["broken_build"], get_closest_marker=lambda name: name)
    conftest.pytest_runtest_setup(marked)                       # marked: allowed
    for fixture in conftest.BUILD_FIXTURES:
        bare = SimpleNamespace(nodeid="t::bare", fixturenames=["tmp_path", fixture], get_closest_marker=lambda name: None)
        with pytest.raises(pytest.fail.Exception, match=fixture):
            conftest.pytest_runtest_setup(bare)


REPR_OUTPUT = re.compile(r'class="output text_plain[^"]*"><div class="highlight"><pre><span></span>\s*([\[{(])')


def bare_reprs(html):
    """The first characters of each plain-text output that is a printed dict, list or tuple."""
    return [m.group(1) for m in REPR_OUTPUT.finditer(html)]


@pytest.mark.build
def test_no_page_shows_a_bare_dict_or_list(strict_build):
    """A cell whose last line returns a value prints it: glue_all's dict of every exercise answer
    sat above the exercises of chapters 0 and 2. Such a line ends in ``_ = ...``."""
    assert strict_build.returncode == 0, strict_build.summary()
    shown = {str(p.relative_to(course.SITE)): bare_reprs(p.read_text(encoding="utf-8"))
             for lang in course.EDITIONS for p in course.chapter_pages(lang)}
    assert shown and not {page: r for page, r in shown.items() if r}, {page: r for page, r in shown.items() if r}


def test_the_repr_finder_sees_a_printed_dict():
    page = ('<div class="output text_plain highlight-myst-ansi notranslate"><div class="highlight"><pre><span></span>'
            "{'ov_ex_floor_h200_ms': 3.33}</pre>")
    assert bare_reprs(page) == ["{"] and bare_reprs(page.replace("{'ov", "3.3 ms {'ov")) == []


EQNO = re.compile(r'<span class="eqno">\(([^)<]*)\)')
EQREF = re.compile(r'<a class="reference internal" href="[^"]*#equation-[^"]*"><span class="std std-ref">([^<]*)</span>'
                   r'|<a class="reference internal" href="[^"]*#equation-[^"]*">([^<]*)</a>')
EQREF_TEXT = {"en": re.compile(r"Eq\. \((\d+)\.(\d+)\)"), "zh": re.compile(r"式 \((\d+)\.(\d+)\)")}


def equation_numbers_and_references(html):
    """The numbers beside a page's display equations, and the text of each reference to one."""
    return EQNO.findall(html), [a or b for a, b in EQREF.findall(html)]


@pytest.mark.build
@pytest.mark.parametrize("lang", course.EDITIONS)
def test_equations_are_numbered_by_chapter_and_referenced_as_eq_or_shi(strict_build, lang):
    """Equation (2) of chapter 6 is (6.2), and a reference to it reads "Eq. (6.2)" (zh "式 (6.2)"),
    so that a reference from another chapter cannot be mistaken for one of its own; no page writes
    the word twice ("Eq. Eq.", "式 式")."""
    assert strict_build.returncode == 0, strict_build.summary()
    numbered, referenced, doubled = 0, 0, {}
    for page in sorted(course.chapter_pages(lang)):
        chapter = int(page.name[:2])
        html = page.read_text(encoding="utf-8")
        numbers, refs = equation_numbers_and_references(html)
        assert all(re.fullmatch(rf"{chapter}\.\d+", n) for n in numbers), (page.name, numbers)
        assert all(EQREF_TEXT[lang].fullmatch(r) for r in refs), (page.name, [r for r in refs if not EQREF_TEXT[lang].fullmatch(r)])
        text = re.sub(r"<[^>]+>", "", html)
        found = re.findall(r"Eq\.\s+Eq\.|式\s*式|equation\s+Eq\.", text)
        if found:
            doubled[page.name] = found
        numbered, referenced = numbered + len(numbers), referenced + len(refs)
    assert numbered > 40 and referenced > 40, (numbered, referenced)
    assert not doubled, doubled


def test_the_equation_finder_reads_numbers_and_references():
    page = ('<span class="eqno">(6.2)<a class="headerlink" href="#equation-eq-x">#</a></span>'
            '<a class="reference internal" href="#equation-eq-x">Eq. (6.2)</a> and '
            '<a class="reference internal" href="04_generations.html#equation-eq-y"><span class="std std-ref">式 (4.1)</span></a>')
    assert equation_numbers_and_references(page) == (["6.2"], ["Eq. (6.2)", "式 (4.1)"])


# A count printed with 万 or 亿 ("42 万") is a Chinese number: no space between it and the measure
# word or the character after it ("42 万个 token", "80.3 亿和 706 亿"), unlike a digit before a character.
WAN_YI_SPACE = re.compile(r"\d+(?:\.\d+)? ?[万亿]+ (?=[\u4e00-\u9fff])")


def test_the_wan_yi_finder():
    assert WAN_YI_SPACE.findall("要 42 万 个 token，80.3 亿和") == ["42 万 "]
    assert not WAN_YI_SPACE.search("42 万个 token，2,048 个 token")


@pytest.mark.build
def test_no_space_after_wan_or_yi_in_the_chinese_edition(strict_build):
    assert strict_build.returncode == 0, strict_build.summary()
    found = {}
    for page in sorted(course.chapter_pages("zh")):
        text = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
        hits = WAN_YI_SPACE.findall(text)
        if hits:
            found[page.name] = hits[:5]
    assert not found, found


# --- issue 22 §5: what the pages show that they should not ------------------------------------

CITATION_LABEL = re.compile(r'<div class="citation" id="[^"]*" role="doc-biblioentry">\s*<span class="label">'
                            r'<span class="fn-bracket">\[</span>(?:<a [^>]*>)?([^<]*)')
INTEXT_CITATION = re.compile(r'<span class="bibtex-citation"[^>]*>(.*?)</span>', re.S)


def citation_labels(html):
    """The labels of a page's reference list, and the text of each citation in its prose:
    "[Williams et al., 2009]" ({cite:p}) or "Williams et al. [2009]" ({cite:t})."""
    def text(s):
        return re.sub(r"<[^>]+>", "", s).strip()
    return [text(m) for m in CITATION_LABEL.findall(html)], [text(m) for m in INTEXT_CITATION.findall(html)]


def test_the_citation_finder_reads_labels_and_citations():
    page = ('<span class="bibtex-citation" id="id1">[<a class="reference internal" href="#id23" title="x">Williams '
            '<em>et al.</em>, 2009</a>]</span> <div class="citation" id="id23" role="doc-biblioentry">\n<span class="label">'
            '<span class="fn-bracket">[</span><a role="doc-backlink" href="#id1">WWP09</a><span class="fn-bracket">]</span></span>')
    assert citation_labels(page) == (["WWP09"], ["[Williams et al., 2009]"])


def cites(label, cited):
    """True when some citation of the page names the label's authors and year (either form)."""
    name, year = re.fullmatch(r"(.+), (\d{4}|n\.d\.)[a-z]?", label).groups()
    return any(name in c and year in c for c in cited)


def test_bibliography_labels_are_author_year():
    """The style the config names (book/ext/course_ext.py registers it) labels entries as the text
    cites them: one author, two, three or more, and a suffix only where two labels would be equal."""
    sys.path.insert(0, str(ROOT / "book" / "ext"))
    import course_ext
    from pybtex.database import parse_string
    from pybtex.plugin import find_plugin

    course_ext._register_bibliography_style()
    config, _ = course.edition_config("en")
    assert config["sphinx"]["config"]["bibtex_default_style"] == "course_author_year"
    bib = parse_string("""
        @article{one, author={Daly, John}, title={T1}, journal={J}, year={2006}}
        @article{two, author={Hansen, Casper and {AutoAWQ contributors}}, title={T2}, journal={J}, year={2024}}
        @article{three, author={Williams, Samuel and Waterman, Andrew and Patterson, David}, title={T3}, journal={J}, year={2009}}
        @misc{same1, author={{PyTorch Contributors}}, title={A}, year={2025}}
        @misc{same2, author={{PyTorch Contributors}}, title={B}, year={2025}}
    """, "bibtex")
    style = find_plugin("pybtex.style.formatting", "course_author_year")()
    labels = {e.key: e.label for e in style.format_bibliography(bib)}
    assert labels["one"] == "Daly, 2006"
    assert labels["two"] == "Hansen and AutoAWQ contributors, 2024"
    assert labels["three"] == "Williams et al., 2009"
    assert sorted([labels["same1"], labels["same2"]]) == ["PyTorch Contributors, 2025a", "PyTorch Contributors, 2025b"]
    # Sphinx checks labels across every page's list: two entries of the course's bibliography with
    # one author and year get different labels even when no page lists both.
    suffixes = course_ext._label_suffixes()
    full = parse_string(course_ext.BIB_FILE.read_text(encoding="utf-8"), "bibtex")
    words = {}
    for key, entry in full.entries.items():
        words.setdefault(course_ext.author_year_label(entry) + suffixes.get(key, ""), []).append(key)
    assert all(len(keys) == 1 for keys in words.values()), {w: k for w, k in words.items() if len(k) > 1}


@pytest.mark.build
@pytest.mark.parametrize("lang", course.EDITIONS)
def test_reference_lists_label_entries_as_the_text_cites_them(strict_build, lang):
    """Author–year in the text ([Williams et al., 2009]) and in the reference list (not [WWP09]):
    every label of a chapter's list is "Name…, year" and is what some citation on the page says
    (up to the a/b suffix of two works of one author and year)."""
    assert strict_build.returncode == 0, strict_build.summary()
    checked, problems = 0, {}
    for page in sorted(course.chapter_pages(lang)):
        labels, cited = citation_labels(page.read_text(encoding="utf-8"))
        bad = [label for label in labels if not re.fullmatch(r".+, (\d{4}|n\.d\.)[a-z]?", label)
               or not cites(label, cited)]
        if bad:
            problems[page.name] = bad[:5]
        checked += len(labels)
    assert checked > 20 and not problems, (checked, problems)


HIDDEN_BAR = re.compile(r'<div class="cell tag_hide-input[^"]*">\s*<details class="[^"]*\bhide above-input')


@pytest.mark.build
@pytest.mark.parametrize("lang", course.EDITIONS)
def test_no_empty_code_bar_under_a_chapters_title(strict_build, lang):
    """The edition cell (LANG = ...) and the imports were hide-input cells with no output: two
    "Show code cell source" bars under every chapter's title. They are remove-input (the readable
    notebook still has them, collapsed: book/ext/reader_notebook.py)."""
    assert strict_build.returncode == 0, strict_build.summary()
    found = {}
    for page in sorted(course.chapter_pages(lang)):
        article = page.read_text(encoding="utf-8").split('<article class="bd-article"', 1)[-1]
        first_two = ['<div class="cell ' + c for c in article.split('<div class="cell ')[1:3]]
        bars = [c for c in first_two if HIDDEN_BAR.match(c)]
        if bars:
            found[page.name] = len(bars)
    assert found == {}, found


@pytest.mark.build
@pytest.mark.parametrize("lang", course.EDITIONS)
def test_no_theme_download_menu(strict_build, lang):
    """No menu offering the Jupytext source (.md) or a one-page print (.pdf): a chapter's header
    has its readable .ipynb, the footer the edition's PDF and EPUB."""
    assert strict_build.returncode == 0, strict_build.summary()
    for page in sorted(course.chapter_pages(lang)):
        html = page.read_text(encoding="utf-8")
        assert "dropdown-download-buttons" not in html and "window.print()" not in html, page.name
        assert re.search(r'class="btn btn-sm course-ipynb-link" href="[^"]+\.ipynb" download', html), page.name


def test_each_edition_is_built_from_links_named_for_its_pages(tmp_path, monkeypatch):
    """course.edition_source: one link per page of the table, named for the page (its address on
    the site), to the file in the repository; a page dropped from the table loses its link; two
    files with one name, or a file that does not exist, stop the build with a message naming them."""
    root = tmp_path / "repo"
    for rel in ("book/en/index.md", "notebooks/en/06_x.md", "notebooks/en/07_y.md", "infra_lib/a.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# t\n", encoding="utf-8")
    monkeypatch.setattr(course, "ROOT", root)
    monkeypatch.setattr(course, "SOURCE", tmp_path / "src")
    toc = {"root": "book/en/index", "parts": [{"chapters": [{"file": "notebooks/en/06_x"}, {"file": "notebooks/en/07_y"}]}]}
    folder = course.edition_source("en", toc)
    assert sorted(p.name for p in folder.iterdir()) == ["06_x.md", "07_y.md", "index.md", "infra_lib"]
    assert (folder / "06_x.md").resolve() == root / "notebooks/en/06_x.md"
    assert course.site_toc(toc) == {"root": "index", "parts": [{"chapters": [{"file": "06_x"}, {"file": "07_y"}]}]}
    toc["parts"][0]["chapters"].pop()                        # 07_y leaves the table
    assert sorted(p.name for p in course.edition_source("en", toc).iterdir()) == ["06_x.md", "index.md", "infra_lib"]
    with pytest.raises(SystemExit, match="same address.*06_x"):
        course.edition_source("en", {"root": "book/en/index", "parts": [{"chapters": [
            {"file": "notebooks/en/06_x"}, {"file": "book/en/06_x"}]}]})
    with pytest.raises(SystemExit, match="notebooks/en/08_z.md, which does not exist"):
        course.edition_source("en", {"root": "book/en/index", "parts": [{"chapters": [{"file": "notebooks/en/08_z"}]}]})


@pytest.mark.build
def test_the_chinese_edition_reads_its_interface_words_in_chinese(strict_build):
    """The theme's and Sphinx's words that the packages leave in English come from the course's own
    catalogue (book/locale/zh_CN, locale_dirs in book/zh/config-overrides.yml): lost once already,
    when the edition began to build from its own folder and the relative path pointed nowhere."""
    assert strict_build.returncode == 0, strict_build.summary()
    for page in course.chapter_pages("zh"):
        html = page.read_text(encoding="utf-8")
        assert "链接到本节" in html and "Link to this heading" not in html, page.name
