"""Print each edition of the built site to one PDF: `site/downloads/ai-infra-course-<lang>.pdf`.

    python book/tools/pdf.py --lang en       # after book/tools/build.py

Chromium (Debian's, through Playwright) opens the edition's first page from a local server, appends
every other page of the table of contents to it in reading order, and prints the result with the
print stylesheet of book/_static/course.css. Before printing: links between pages become links
inside the document (ids get a per-page prefix so they stay unique), links to files that are not
in the PDF lose their target, folded answers are opened and moved after the chapter's last exercise
(under "Solutions to the exercises"), folded code stays hidden, and each widget cell is replaced by a
note saying where it runs. Nothing is fetched from outside 127.0.0.1.

The bookmarks are Chromium's (one per heading, nested as the headings are), with each title then
set to its heading's text (:func:`fix_outline`): Chromium writes a title as the heading was laid
out, so a heading that wraps loses the space at the break ("thewhole chain"), and some have their
last line written twice ("Plugging inPlugging in", "thenback upback up").
"""
import argparse
import functools
import http.server
import logging
import os
import re
import threading
import unicodedata

from course import EDITIONS, NAME, SITE, edition_config, site_toc, toc_docs  # book/tools

CHROMIUM = "/usr/bin/chromium"
NOTE = {"en": "Interactive in Jupyter: download this chapter's notebook from the website to move the sliders.",
        "zh": "这里的滑块要在 Jupyter 里运行：从网站下载本章的 notebook 即可。"}
ANSWERS = {"en": "Solutions to the exercises", "zh": "练习解答"}   # the heading over them, at the chapter's end
FOOTER = ('<div style="font-size:8px;width:100%;text-align:center;color:#666">'
          '<span class="pageNumber"></span> / <span class="totalPages"></span></div>')

ASSEMBLE = r"""
async ({pages, lang, note, answers}) => {
  const origin = location.origin;
  const pageUrl = p => `${origin}/${lang}/${p}.html`;
  const known = new Map(pages.map((p, i) => [pageUrl(p), i]));
  const main = document.querySelector('article.bd-article');
  const parts = [main];
  for (const p of pages.slice(1)) {
    const html = await (await fetch(pageUrl(p))).text();
    const doc = new DOMParser().parseFromString(html, 'text/html');
    const art = doc.querySelector('article.bd-article');
    const box = document.createElement('div');
    box.className = 'course-print-page';
    box.append(...art.childNodes);
    main.parentNode.appendChild(box);
    parts.push(box);
  }
  parts.forEach((art, i) => {
    const base = pageUrl(pages[i]);
    art.querySelectorAll('[id]').forEach(el => { el.id = `p${i}-${el.id}`; });
    const top = document.createElement('span'); top.id = `p${i}-top`; art.prepend(top);
    art.querySelectorAll('img[src]').forEach(img => { img.src = new URL(img.getAttribute('src'), base).href; });
    art.querySelectorAll('a[href]').forEach(a => {
      const url = new URL(a.getAttribute('href'), base);
      if (url.origin !== origin) return;                      // the web: keep
      const j = known.get(url.origin + url.pathname);
      if (j === undefined) { a.removeAttribute('href'); return; }   // a download: not in the PDF
      a.setAttribute('href', '#p' + j + '-' + (url.hash ? decodeURIComponent(url.hash.slice(1)) : 'top'));
    });
    art.querySelectorAll('.toggle-hidden').forEach(el => el.classList.remove('toggle-hidden'));
    art.querySelectorAll('button.toggle-button').forEach(el => el.remove());
    art.querySelectorAll('.cell.tag_skip-execution').forEach(el => el.remove());
    art.querySelectorAll('.local-only').forEach(el => {
      const p = document.createElement('p'); p.className = 'course-print-note'; p.textContent = note;
      el.replaceWith(p);
    });
    // the worked solutions after the chapter's exercises, not under each one: a reader who tries
    // an exercise on paper does not see its answer on the same page (each keeps its title, which
    // names and links its exercise)
    const solutions = [...art.querySelectorAll('div.solution')];
    if (solutions.length) {
      const host = solutions[solutions.length - 1].closest('section') || art;
      const head = document.createElement('p');
      head.className = 'rubric course-print-answers'; head.textContent = answers;
      host.append(head, ...solutions);
    }
  });
  return parts.length;
}
"""


# each printed heading's text as a reader sees it (without the "#" link Sphinx adds), in document
# order; the landing page's list captions are headings by their role. Run with print media on: a
# heading print hides (the page's own contents list, the header's title) has no box and no bookmark
HEADINGS_JS = r"""() => [...document.querySelectorAll('h1, h2, h3, h4, h5, h6, [role="heading"]')]
  .filter(h => h.getClientRects().length > 0).map(h => {
    const copy = h.cloneNode(true);
    copy.querySelectorAll('.headerlink').forEach(a => a.remove());
    return copy.textContent.replace(/\s+/g, ' ').trim();
  })"""
# copying the document adds objects beyond the /Size of Chromium's trailer, which pypdf says on
# every build and handles (it writes the new /Size); that one message is dropped, no other
logging.getLogger("pypdf._writer").addFilter(lambda r: "exceeds defined trailer size" not in r.getMessage())


def _squash(text):
    """Text for comparing a bookmark with its heading: compatibility forms folded (Chromium writes
    a formula's letters as mathematical italics), case folded (CSS may print a heading in capitals),
    soft hyphens and the hyphens Chromium writes at a hyphenated break, and all white space, gone."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return re.sub(r"[\s\u00ad\u2010]+", "", text)


def _is_title_of(title, heading):
    """Whether Chromium's bookmark ``title`` is ``heading`` (both without white space): it starts as the
    heading does, holds the heading's characters in order, and is at most twice as long (Chromium
    writes some lines of some headings twice, the first one, or the last, or all of it; two
    characters of slack).

    >>> _is_title_of("Followonedecodestepdown,thenbackupbackup", "Followonedecodestepdown,thenbackup")
    True
    >>> _is_title_of("Beyondthepeak:domains,Beyondthepeak:domains,accumulators", "Beyondthepeak:domains,accumulators")
    True
    >>> _is_title_of("SourcesSources", "Sources"), _is_title_of("Sources", "Sources"), _is_title_of("Source", "Sources")
    (True, True, False)
    >>> _is_title_of("Sourcesofthisdata", "Sources")
    False
    """
    if not heading or not title.startswith(heading[:8]) or not len(heading) <= len(title) <= 2 * len(heading) + 2:
        return False
    rest = iter(title)
    return all(c in rest for c in heading) and set(title) <= set(heading)


def outline_items(outline):
    """Every bookmark of a PDF's ``/Outlines`` dictionary, depth first (a parent before its children)."""
    item = outline.get("/First")
    while item is not None:
        item = item.get_object()
        yield item
        yield from outline_items(item)
        item = item.get("/Next")


def fix_outline(path, headings):
    """Set the title of each bookmark of the PDF at ``path`` to its heading's text, from ``headings``
    (the printed headings, in order: Chromium bookmarks each one). The n-th bookmark is the n-th
    heading; that their counts agree and that each title is its heading's text, but for Chromium's
    repeats (:func:`_is_title_of`), is checked, and a mismatch is an error that names both. The
    document is written again with its version, to a new file that then replaces the old (pypdf's
    incremental update would be smaller, but its trailer loses the Info dictionary: poppler then
    finds no title). Returns the number of titles changed."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject, TextStringObject

    writer = PdfWriter(clone_from=str(path))
    writer.pdf_header = PdfReader(str(path)).pdf_header      # Chromium's version (1.4), not pypdf's default
    outline = writer.root_object.get("/Outlines")
    if outline is None:
        raise RuntimeError(f"{path}: Chromium wrote no bookmarks (page.pdf(outline=True) did nothing)")
    items = list(outline_items(outline.get_object()))
    if len(items) != len(headings):
        raise RuntimeError(f"{path}: {len(items)} bookmarks for {len(headings)} printed headings: "
                           "a heading is printed without a bookmark, or the other way round")
    changed = 0
    for item, heading in zip(items, headings):
        title = str(item["/Title"])
        if not _is_title_of(_squash(title), _squash(heading)):
            raise RuntimeError(f"{path}: the bookmark {title!r} is where the heading {heading!r} is printed")
        if title != heading:
            item[NameObject("/Title")] = TextStringObject(heading)
            changed += 1
    partial = path.with_name(path.name + ".part")
    writer.write(str(partial))
    os.replace(partial, path)
    return changed


def pdf_path(lang):
    return SITE / "downloads" / f"{NAME}-{lang}.pdf"


def page_names(lang):
    _, toc = edition_config(lang)
    return toc_docs(site_toc(toc))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def make_pdf(lang, playwright):
    """Print one edition; returns (path, pages of the course printed)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    try:
        page = browser.new_page()
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(origin)
                   else route.abort())
        pages = page_names(lang)
        page.goto(f"{origin}/{lang}/{pages[0]}.html", wait_until="load")
        count = page.evaluate(ASSEMBLE, {"pages": pages, "lang": lang, "note": NOTE[lang], "answers": ANSWERS[lang]})
        page.wait_for_load_state("networkidle")
        # the PDF's Title is the page's title: the course's, once (the root page's reads "T — T")
        page.evaluate("title => { document.title = title; }", edition_config(lang)[0]["title"])
        page.emulate_media(media="print")
        path = pdf_path(lang)
        path.parent.mkdir(parents=True, exist_ok=True)
        # outline: bookmarks from the headings (each chapter and its sections); tagged: a structured PDF
        page.pdf(path=str(path), format="A4", print_background=True, prefer_css_page_size=True,
                 display_header_footer=True, header_template="<span></span>", footer_template=FOOTER,
                 outline=True, tagged=True)
        fix_outline(path, page.evaluate(HEADINGS_JS))
        return path, count
    finally:
        browser.close()
        server.shutdown()


def make_pdfs(langs=EDITIONS):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        return [make_pdf(lang, p) for lang in langs]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=EDITIONS, action="append")
    args = parser.parse_args(argv)
    for path, count in make_pdfs(args.lang or EDITIONS):
        print(f"[pdf] {path} ({path.stat().st_size / 1e6:,.1f} MB, {count} pages of the course)")


if __name__ == "__main__":
    main()
