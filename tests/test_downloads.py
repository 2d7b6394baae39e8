"""The PDF and EPUB of each edition: built with the site, readable, complete, valid.

The PDF must hold every page's title and, for every chapter, the first number the chapter's
prose takes from the code (read from the built HTML page, so nothing is copied here); the EPUB
must pass EPUBCheck with no errors and no warnings and carry the edition's language.
"""
import html
import re
import subprocess
import zipfile
from pathlib import Path

import pytest
import yaml

from course import is_chapter, site_toc, toc_docs  # book/tools
from site_server import EDITIONS, SITE, first_glued_number

pytestmark = pytest.mark.build                    # every test reads the downloads of the strict build
ROOT = Path(__file__).resolve().parents[1]


def pages(lang):
    """The edition's pages as named on the site (06_performance, glossary), in reading order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return toc_docs(site_toc(toc))


def title(page_html):
    return html.unescape(re.sub(r"<[^>]+>", "", re.search(r"<h1>(.*?)</h1>", page_html, re.S).group(1))).strip()


def headings(page_html):
    """The text of every heading of a built page, in order: h1-h6 (without Sphinx's "#" link) and
    what is a heading by its role (the table's part captions)."""
    found = re.findall(r'<(h[1-6])>(.*?)</\1>|<(\w+)\b[^>]*\brole="heading"[^>]*>(.*?)</\3>', page_html, re.S)
    return [html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", re.sub(r'<a class="headerlink".*?</a>', "", a or b))))
            .strip() for _, a, _, b in found]


def squash(text):
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("lang", EDITIONS)
def test_the_pdf_has_a_bookmark_per_chapter_and_section_titled_as_its_heading(strict_build, lang):
    """Top level: each page's title, in the table's order; below: every bookmark is the text of a
    heading of the pages, word for word (Chromium's own titles ran words together at a line break
    and wrote some lines twice: book/tools/pdf.py, fix_outline)."""
    from pypdf import PdfReader
    assert strict_build.returncode == 0, strict_build.summary()
    reader = PdfReader(SITE / "downloads" / f"ai-infra-course-{lang}.pdf")
    built = [(SITE / lang / f"{page}.html").read_text(encoding="utf-8") for page in pages(lang)]
    top = [str(item.title) for item in reader.outline if not isinstance(item, list)]
    assert top == [title(b) for b in built]
    flat, todo = [], list(reader.outline)
    while todo:
        item = todo.pop(0)
        if isinstance(item, list):
            todo[:0] = item
        else:
            flat.append(str(item.title))
    assert len(flat) > 3 * len(built), f"only {len(flat)} bookmarks for {len(built)} pages: sections are missing"
    # in reading order: the bookmarks are the pages' headings, in order, less those print leaves out
    rest = iter([h for b in built for h in headings(b)])
    lost = next((t for t in flat if t not in rest), None)
    assert lost is None, f"the bookmark {lost!r} is not a heading's text where it stands in the reading order"


@pytest.mark.parametrize("lang", EDITIONS)
def test_the_pdf_holds_every_page_and_a_computed_number_of_each_chapter(strict_build, lang):
    assert strict_build.returncode == 0, strict_build.summary()
    pdf = SITE / "downloads" / f"ai-infra-course-{lang}.pdf"
    assert pdf.stat().st_size > 100_000
    text = squash(subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True,
                                 check=True, encoding="utf-8").stdout)
    missing = []
    for page in pages(lang):
        built = (SITE / lang / f"{page}.html").read_text(encoding="utf-8")
        if not all(word in text for word in title(built).split()):   # Latin and CJK runs may come out apart
            missing.append(f"{page}: title {title(built)!r}")
        number = first_glued_number(built) if is_chapter(page) else None
        if is_chapter(page) and (number is None or squash(number) not in text):
            missing.append(f"{page}: glued number {number!r}")
    assert not missing, missing
    assert "127.0.0.1" not in text
    # the worked solutions come after each chapter's exercises, under one heading per chapter
    import pdf as pdf_tool                                  # book/tools/pdf.py
    with_solutions = sum('class="solution' in (SITE / lang / f"{page}.html").read_text(encoding="utf-8")
                         for page in pages(lang))
    assert text.count(squash(pdf_tool.ANSWERS[lang])) == with_solutions > 0
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True, encoding="utf-8").stdout
    want = yaml.safe_load((ROOT / ("_config.yml" if lang == "en" else "book/zh/config-overrides.yml"))
                          .read_text(encoding="utf-8")).get("title")
    assert re.search(r"^Title:\s+(.*)$", info, re.M).group(1).strip() == want, info   # the course's title, once
    assert float(re.search(r"^PDF version:\s+([\d.]+)", info, re.M).group(1)) >= 1.4, info   # soft masks need 1.4


@pytest.mark.parametrize("lang", EDITIONS)
def test_the_epub_passes_epubcheck_and_says_its_language(strict_build, lang):
    assert strict_build.returncode == 0, strict_build.summary()
    epub = SITE / "downloads" / f"ai-infra-course-{lang}.epub"
    run = subprocess.run(["java", "-jar", "/usr/bin/epubcheck", str(epub)], capture_output=True, text=True)
    assert run.returncode == 0 and "0 errors / 0 warnings" in run.stdout + run.stderr, (run.stdout + run.stderr)[-3000:]
    with zipfile.ZipFile(epub) as z:
        assert z.namelist()[0] == "mimetype"
        opf = z.read(next(n for n in z.namelist() if n.endswith(".opf"))).decode("utf-8")
        chapters = [n for n in z.namelist() if n.endswith(".xhtml") and is_chapter(n.removesuffix(".xhtml"))]
    assert f"<dc:language>{'zh-CN' if lang == 'zh' else 'en'}</dc:language>" in opf
    meta = dict(re.findall(r"<dc:(\w+)[^>]*>([^<]*)</dc:\1>", opf))
    title = yaml.safe_load((ROOT / ("_config.yml" if lang == "en" else "book/zh/config-overrides.yml"))
                           .read_text(encoding="utf-8")).get("title")
    for field in ("title", "creator", "publisher", "contributor", "description", "rights", "identifier", "date"):
        assert meta.get(field, "").strip() and meta[field] not in ("unknown", "Project name not set"), (field, meta)
    assert not title or meta["title"] == title, meta["title"]
    assert ".invalid" not in meta["identifier"] and "CC BY 4.0" in meta["rights"] and "MIT" in meta["rights"]
    spine = re.findall(r'<itemref idref="([^"]+)" />', opf)
    items = dict(re.findall(r'<item id="([^"]+)" href="([^"]+)"', opf))
    assert [items[i] for i in spine] == [p + ".xhtml" for p in pages(lang)]
    assert len(chapters) == sum(is_chapter(p) for p in pages(lang)) > 0
    with zipfile.ZipFile(epub) as z:                 # no formula fell back to TeX drawn in red
        red = [n for n in z.namelist() if n.endswith(".xhtml") and 'mathcolor="red"' in z.read(n).decode("utf-8")]
    assert not red, f"formulas with TeX left over (drawn in red) in {red}"


@pytest.mark.parametrize("lang", EDITIONS)
def test_every_page_offers_its_edition_downloads(strict_build, lang):
    assert strict_build.returncode == 0, strict_build.summary()
    for page in pages(lang):
        built = (SITE / lang / f"{page}.html").read_text(encoding="utf-8")
        for kind in ("pdf", "epub"):
            link = re.search(rf'href="([^"]*ai-infra-course-{lang}\.{kind})"', built)
            assert link, f"{page}: no {kind} link"
            assert (SITE / lang / page).parent.joinpath(link.group(1)).resolve().exists(), (page, link.group(1))


FOLIATE = ROOT / "book" / "node_modules" / "foliate-js"     # the Foliate e-reader's engine (book/package.json)


@pytest.mark.parametrize("lang", EDITIONS)
def test_the_epub_opens_in_an_e_reader_with_its_title_author_and_chapters(strict_build, browser, lang, tmp_path):
    """EPUBCheck says the file is valid; this opens it as a reader would, in foliate-js (the engine of
    the Foliate e-reader, its own demo viewer reader.html) in Chromium with every request outside
    127.0.0.1 blocked: the side bar shows the edition's title and author, and the contents list the
    book's pages in order, each under its printed title."""
    import shutil
    from site_server import SiteServer
    import epub as epub_tool                                  # book/tools/epub.py
    assert strict_build.returncode == 0, strict_build.summary()
    assert (FOLIATE / "reader.html").is_file(), f"no {FOLIATE}: run `make setup` (book/package.json)"
    shutil.copytree(FOLIATE, tmp_path / "reader")
    shutil.copy(SITE / "downloads" / f"ai-infra-course-{lang}.epub", tmp_path / "reader" / "book.epub")
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    if lang != "en":
        config.update(yaml.safe_load((ROOT / f"book/{lang}/config-overrides.yml").read_text(encoding="utf-8")))
    want_author = epub_tool.AUTHOR[lang] or config["author"]
    want_titles = [title((SITE / lang / f"{page}.html").read_text(encoding="utf-8")) for page in pages(lang)]
    with SiteServer(tmp_path) as server:
        context = browser.new_context(viewport={"width": 1000, "height": 760})
        outside, errors = [], []
        context.route(lambda url: not server.is_local(url),
                      lambda route: (outside.append(route.request.url), route.abort()))
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url("reader/reader.html?url=book.epub"))
        # the side bar is closed (hidden) until its button is pressed; its page's CSP forbids eval
        page.wait_for_selector("#side-bar-title:not(:empty)", state="attached", timeout=30_000)
        page.click("#side-bar-button")
        page.wait_for_selector("#side-bar-title", state="visible")
        shown_title = page.inner_text("#side-bar-title").strip()
        shown_author = page.inner_text("#side-bar-author").strip()
        contents = page.eval_on_selector_all("#toc-view [role=tree] > li > [role=treeitem]",
                                             "els => els.map(e => e.textContent.trim())")
        context.close()
    assert shown_title == config["title"], shown_title
    assert shown_author == want_author, shown_author
    assert [" ".join(t.split()) for t in contents] == [" ".join(t.split()) for t in want_titles], contents
    assert not errors and not outside, (errors, outside)
