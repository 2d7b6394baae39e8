"""Browser test of the built site (_build/site): every page of both editions, in Chromium.

    .venv/bin/python book/tools/build.py                     # build both editions first
    .venv/bin/python -m pytest tests/test_site.py -q         # add `-k en` for the English pages only
    SITE_SCREENSHOTS=/tmp/shots .venv/bin/python -m pytest tests/test_site.py   # plus a PNG per page
    COURSE_BUILD_DIR=/tmp/b COURSE_SITE_PREBUILT=1 .venv/bin/python -m pytest tests/test_site.py
                                  # test the site already built in /tmp/b/site, without rebuilding

The site comes from the session's strict build (the ``strict_build`` fixture of conftest.py:
built once, by whichever test asks first); a test fails (never skips) when an edition is missing.
Pages come from _toc.yml and from walking the built folders, so a new chapter is tested without
touching this file. Each page is loaded once per session (in a fresh browser context, so nothing
is served from cache) and the checks below read that one load:

- requests: nothing leaves 127.0.0.1 (outside requests are recorded, then blocked), none fails,
  no response has a status >= 400;
- math: each ``.math`` element holds MathML written at build time (book/tools/mathml.py), drawn by
  the browser with some height, with no ``merror``, no MathJax script loaded, and no raw TeX
  (``$$``, ``\\(``, ``\\frac`` ...) visible outside code;
- twin link: ``a.course-twin-link`` leads to a page of the other edition that loads (HTTP 200)
  and whose own twin link leads back to this page;
- ``<html lang>``: ``en`` for the English edition, ``zh-CN`` for the Chinese one;
- console: no error logged on a first visit (empty localStorage), and a favicon;
- phones: at a 390 px wide viewport nothing makes the page scroll sideways;
- phones (one chapter per edition, 390 px, touch): the ☰ button opens the chapter list and the
  page-contents button the contents panel, each drawn on screen, and Escape closes them;
- search also works from file:// (the site opened from disk), with no uncaught error.
"""
import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit, urlunsplit

import pytest
from playwright.sync_api import Error as PlaywrightError

from course import edition_config, is_chapter, page_name, toc_docs  # book/tools
from infra_lib.figures.style import PIXEL_DENSITY
from site_server import (CHAPTER_MAX_B, EDITIONS, HTML_LANG, MOVED_DIRS, ROOT, SITE, WEIGHT_JS, SiteServer, built_pages,
                         redirect_target, site_pages, toc_pages)

# Under `--dist loadfile` (make test) this file runs in one worker: one browser, each page loaded once.
pytestmark = [pytest.mark.build, pytest.mark.site, pytest.mark.xdist_group("site")]

NAV_TIMEOUT_MS = 15_000       # one page load, or the redirect of an index.html stub
SEARCH_TIMEOUT_MS = 15_000    # Sphinx search: index load, query, results
IDLE_TIMEOUT_MS = 3_000       # late requests (fonts, lazily loaded scripts): best effort
PHONE_WIDTH = 390            # CSS px: a phone held upright
EDITION_NAME = {"en": "English", "zh": "Chinese"}
OTHER = {"en": "zh", "zh": "en"}
PAGES = [page for lang in EDITIONS for page in site_pages(lang)]
SCREENSHOTS = os.environ.get("SITE_SCREENSHOTS")

# Raw TeX that the build should have turned into MathML, looked for in visible text outside code.
RAW_TEX = re.compile(r"\$\$|\\[(\[\])]|\\[A-Za-z]{2,}|\$[^$\s][^$]*[\\^_{}][^$]*\$")

# Collected in the page: math without MathML (or drawn with no height), TeX errors, MathJax scripts,
# raw TeX in visible text.
MATH_STATE_JS = r"""
(pattern) => {
  const math = [...document.querySelectorAll('.math')];
  const untypeset = math.filter(el => { const m = el.querySelector('math');
                                          return !m || (el.checkVisibility() && m.getBoundingClientRect().height < 5); })
                        .map(el => el.textContent.trim().slice(0, 100));
  const errors = [...document.querySelectorAll('merror')]
                   .map(el => (el.getAttribute('data-mjx-error') || el.textContent).slice(0, 120));
  const scripts = [...document.scripts].map(s => s.src).filter(src => /mathjax|course-math/i.test(src));
  const parts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest('pre, code, script, style, textarea, noscript, template, math')) continue;
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
    parts.push(n.data);
  }
  const text = parts.join('');
  const re = new RegExp(pattern, 'g');
  const raw = [];
  for (const m of text.matchAll(re)) {
    raw.push(text.slice(Math.max(0, m.index - 30), m.index + m[0].length + 30).replace(/\s+/g, ' '));
    if (raw.length >= 10) break;
  }
  return {containers: document.querySelectorAll('.math math').length, untypeset, errors, scripts, raw};
}
"""


# At a phone's width: how far the page scrolls sideways and, if it does, the element to blame:
# from <body> down, the child whose hiding stops the sideways scroll (text that overflows its box,
# such as a long URL, is found too, which comparing element boxes would miss).
OVERFLOW_JS = r"""
() => {
  const width = window.innerWidth, doc = document.scrollingElement;
  const scrollWidth = doc.scrollWidth, path = [];
  let node = document.body;
  while (scrollWidth > width && path.length < 60) {
    let found = null;
    for (const child of node.children) {
      const before = child.style.display;
      child.style.display = 'none';
      const fixed = doc.scrollWidth <= width;
      child.style.display = before;
      if (fixed) { found = child; break; }
    }
    if (!found) break;
    node = found;
    path.push(node.tagName.toLowerCase() + (node.className ? '.' + String(node.className).trim().split(/\s+/).join('.') : ''));
  }
  const culprits = path.length ? [path.slice(-3).join(' > ') + ': ' + (node.textContent || '').trim().slice(0, 100)] : [];
  return {scrollWidth, width, culprits};
}
"""


def require(*langs):
    """Fail (never skip) when an edition the test needs has not been built."""
    for lang in langs:
        index = SITE / lang / "index.html"
        if not index.is_file():
            pytest.fail(f"The {EDITION_NAME[lang]} edition is not built: {index} is missing. Build the site "
                        f"first: `cd {SITE.parents[1]} && .venv/bin/python book/tools/build.py` (or `make site`).",
                        pytrace=False)


def lang_of(page):
    return page.split("/", 1)[0]


def strip_fragment(url):
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, ""))


def screenshot(page, name, full_page=True):
    """Save a PNG (the full page, or the viewport) when SITE_SCREENSHOTS is set; never affects the
    result of a test."""
    if not SCREENSHOTS:
        return
    try:
        folder = Path(SCREENSHOTS)
        folder.mkdir(parents=True, exist_ok=True)
        safe = re.sub(r"[^\w.=-]+", "_", name.removesuffix(".html")).strip("_") or "index"
        page.screenshot(path=str(folder / f"{safe}.png"), full_page=full_page)
    except Exception as exc:            # a screenshot is for humans: warn, do not fail
        warnings.warn(f"screenshot of {name} failed: {exc}")


@dataclass
class Visit:
    """What one load of one page showed."""
    page: str                                   # path under _build/site that was asked for
    url: str
    final_url: str = ""                         # after an index.html redirect stub
    status: int | None = None                   # of the final document
    load_error: str | None = None
    outside: list = field(default_factory=list)         # requests that would leave 127.0.0.1
    failed: list = field(default_factory=list)          # requests that failed
    bad_status: list = field(default_factory=list)      # responses >= 400
    page_errors: list = field(default_factory=list)     # uncaught JavaScript errors
    console_errors: list = field(default_factory=list)  # console.error() and the browser's own errors
    favicon: str | None = None                          # resolved href of link[rel~=icon]
    phone: dict | None = None                           # OVERFLOW_JS at PHONE_WIDTH
    html_lang: str | None = None
    math_in_html: int = 0
    math: dict | None = None
    twins: list = field(default_factory=list)           # resolved hrefs of a.course-twin-link
    links: list = field(default_factory=list)           # resolved hrefs of every a[href]
    text: str = ""
    pasted: list = field(default_factory=list)          # glued values (span.pasted-text)
    weight: int = 0                                     # bytes the page and what it loaded (WEIGHT_JS)

    def where(self):
        return self.page if self.final_url in ("", self.url) else f"{self.page} (-> {self.final_url})"


class Site:
    """The served site plus the browser; loads each page at most once per session."""

    def __init__(self, server, browser):
        self.server, self.browser = server, browser
        self._visits = {}

    def path_of(self, url):
        """'http://127.0.0.1:PORT/en/x.html#y' -> 'en/x.html' (None for a URL outside the site)."""
        if not strip_fragment(url).startswith(self.server.base):
            return None
        return urlsplit(url).path.lstrip("/")

    def new_context(self, record, **options):
        """A fresh browser context (``options``: Playwright's, e.g. a phone's viewport) that
        records into ``record`` and blocks every request leaving 127.0.0.1."""
        context = self.browser.new_context(**options)
        context.set_default_timeout(NAV_TIMEOUT_MS)
        server = self.server

        def on_request(request):
            if not server.is_local(request.url):
                record.outside.append(f"{request.method} {request.url}")

        def on_failed(request):
            if server.is_local(request.url):           # outside ones are already listed
                record.failed.append(f"{request.url} ({request.failure})")

        def on_response(response):
            if response.status >= 400:
                record.bad_status.append(f"{response.status} {response.url}")

        context.on("request", on_request)
        context.on("requestfailed", on_failed)
        context.on("response", on_response)
        # Record, then block: the test must not depend on (or wait for) a network that is not there.
        context.route(lambda url: not server.is_local(url), lambda route: route.abort("blockedbyclient"))
        return context

    def visit(self, page_path):
        page_path = page_path.lstrip("/")
        if page_path not in self._visits:
            self._visits[page_path] = self._load(page_path)
        return self._visits[page_path]

    def _load(self, page_path):
        url = self.server.url(page_path)
        record = Visit(page=page_path, url=url)
        context = self.new_context(record)
        page = context.new_page()
        page.on("pageerror", lambda exc: record.page_errors.append(str(exc)))
        page.on("console", lambda msg: record.console_errors.append(msg.text) if msg.type == "error" else None)
        documents = []
        page.on("response", lambda r: documents.append(r.status)
                if r.request.is_navigation_request() and r.frame == page.main_frame else None)
        try:
            page.goto(url, wait_until="load")
            target = redirect_target(page_path, self.server.root)
            if target:
                page.wait_for_url(strip_fragment(urljoin(url, target)), wait_until="load")
            record.final_url = strip_fragment(page.url)
            record.status = documents[-1] if documents else None
            record.html_lang = page.evaluate("document.documentElement.getAttribute('lang')")
            record.math_in_html = page.locator(".math").count()
            if record.math_in_html:
                record.math = page.evaluate(MATH_STATE_JS, RAW_TEX.pattern)
            try:
                page.wait_for_load_state("networkidle", timeout=IDLE_TIMEOUT_MS)
            except PlaywrightError:
                pass
            record.weight = page.evaluate(WEIGHT_JS)["bytes"]
            record.twins = page.eval_on_selector_all("a.course-twin-link", "els => els.map(e => e.href)")
            record.links = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
            record.pasted = page.eval_on_selector_all(".pasted-text", "els => els.map(e => e.textContent.trim())")
            record.text = page.inner_text("body")
            record.favicon = page.evaluate("document.querySelector('link[rel~=icon]')?.href || null")
            screenshot(page, page_path)
            page.set_viewport_size({"width": PHONE_WIDTH, "height": 844})
            page.wait_for_timeout(50)
            record.phone = page.evaluate(OVERFLOW_JS)
        except PlaywrightError as exc:
            record.load_error = str(exc).splitlines()[0]
        finally:
            context.close()
        return record


@pytest.fixture(scope="session")
def site_server(strict_build):
    assert strict_build.returncode == 0, "the strict build failed:\n" + strict_build.summary()
    with SiteServer(SITE) as server:
        yield server


@pytest.fixture(scope="session")
def site(site_server, browser):
    return Site(site_server, browser)


def loaded(site, page):
    """The visit of a page that must have loaded; fails with the reason otherwise."""
    visit = site.visit(page)
    assert visit.load_error is None, f"{page} did not load: {visit.load_error}"
    assert visit.status == 200, f"{visit.where()} answered HTTP {visit.status}"
    return visit


# --- the site is there, and every page of it is tested ----------------------------------------

@pytest.mark.parametrize("lang", EDITIONS)
def test_site_is_built(strict_build, lang):
    require(lang)


@pytest.mark.parametrize("lang", EDITIONS)
def test_every_built_page_is_tested(strict_build, lang):
    """A page built after collection (or missing from the toc) would otherwise go untested."""
    require(lang)
    untested = sorted(set(built_pages(lang)) - set(PAGES))
    assert not untested, f"pages built but not collected (rerun pytest after building): {untested}"
    missing = sorted(p for p in PAGES if lang_of(p) == lang and not (SITE / p).is_file())
    assert not missing, f"pages in _toc.yml that the build did not produce: {missing}"


# --- every page ------------------------------------------------------------------------------

def test_the_sites_root_has_the_course_icon_as_favicon_ico(strict_build):
    """Browsers ask the root for /favicon.ico when a page shows no icon (JupyterLite's page, while it
    swaps its busy and idle icons): the course's chip, at 32 and 16 px, in its own colour."""
    import io

    from PIL import Image
    assert strict_build.returncode == 0, strict_build.summary()
    image = Image.open(io.BytesIO((SITE / "favicon.ico").read_bytes()))
    assert image.format == "ICO" and image.info["sizes"] == {(32, 32), (16, 16)}
    colour = (*bytes.fromhex(re.search(r'fill="#([0-9a-fA-F]{6})"', (ROOT / "book" / "_static" / "favicon.svg")
                                       .read_text()).group(1)), 255)
    pixels = image.convert("RGBA")
    assert pixels.getpixel((8, 8)) == colour                       # the body (6-26 px in the SVG's 32)
    assert pixels.getpixel((16, 16)) == (255, 255, 255, 255)       # the die (11-21)
    assert pixels.getpixel((16, 3)) == pixels.getpixel((3, 22)) == colour    # a pin above, a pin to the left
    assert pixels.getpixel((13, 3))[3] == pixels.getpixel((3, 3))[3] == 0     # between pins, a corner: clear


@pytest.mark.parametrize("page", PAGES)
def test_requests_stay_local(site, page):
    require(lang_of(page))
    visit = loaded(site, page)
    problems = [f"outside 127.0.0.1: {r}" for r in visit.outside] + [f"HTTP {r}" for r in visit.bad_status]
    answered = {r.split(" ", 1)[1] for r in visit.bad_status}      # a 404 font also shows as aborted
    problems += [f"failed: {r}" for r in visit.failed if r.rsplit(" (", 1)[0] not in answered]
    assert not problems, f"{visit.where()}: {len(problems)} bad request(s):\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("page", PAGES)
def test_no_javascript_errors(site, page):
    require(lang_of(page))
    visit = loaded(site, page)
    assert not visit.page_errors, f"{visit.where()}: uncaught JavaScript errors:\n  " + "\n  ".join(visit.page_errors)


@pytest.mark.parametrize("page", PAGES)
def test_no_console_errors_on_a_first_visit(site, page):
    """Each page is loaded in a fresh context: empty localStorage, as for a new reader."""
    require(lang_of(page))
    visit = loaded(site, page)
    assert not visit.console_errors, f"{visit.where()}: console errors:\n  " + "\n  ".join(visit.console_errors)


@pytest.mark.parametrize("page", [p for p in PAGES if is_chapter(Path(p).stem)])
def test_a_chapter_page_weighs_at_most_one_megabyte(site, page):
    """A cold load of a chapter page (a fresh browser context, nothing cached) until the network is
    idle: the page and its scripts, styles, fonts and figures, as bytes of response bodies with no
    compression (book/tools/slim.py trims the theme's style sheets and icon fonts)."""
    visit = loaded(site, page)
    print(f"{page}: {visit.weight / 1e6:.2f} MB")
    assert 0 < visit.weight <= CHAPTER_MAX_B, f"{page} weighs {visit.weight / 1e6:.2f} MB, over {CHAPTER_MAX_B / 1e6:.1f} MB"


@pytest.mark.parametrize("page", PAGES)
def test_favicon(site, page):
    require(lang_of(page))
    visit = loaded(site, page)
    assert visit.favicon, f"{visit.where()} has no <link rel=icon>"
    path = site.path_of(visit.favicon)
    assert path and (SITE / path).is_file(), f"{visit.where()}: favicon {visit.favicon} is not in the site"


@pytest.mark.parametrize("page", PAGES)
def test_no_sideways_scroll_on_a_phone(site, page):
    require(lang_of(page))
    visit = loaded(site, page)
    phone = visit.phone
    assert phone["scrollWidth"] <= phone["width"], \
        f"{visit.where()} scrolls sideways at {PHONE_WIDTH} px: {phone['scrollWidth'] - phone['width']} px too wide; " \
        f"sticking out:\n  " + "\n  ".join(phone["culprits"])


@pytest.mark.parametrize("page", PAGES)
def test_math_is_mathml(site, page):
    require(lang_of(page))
    visit = loaded(site, page)
    if not visit.math_in_html:
        return                                  # a page without formulas
    math = visit.math
    assert math["containers"] == visit.math_in_html, (
        f"{visit.where()}: {visit.math_in_html} .math elements but {math['containers']} hold MathML")
    assert not math["untypeset"], f"{visit.where()}: math not drawn as MathML: {math['untypeset'][:5]}"
    assert not math["errors"], f"{visit.where()}: TeX errors in the MathML: {math['errors'][:5]}"
    assert not math["scripts"], f"{visit.where()}: loads a math script although its math is MathML: {math['scripts']}"
    assert not math["raw"], f"{visit.where()}: raw TeX visible in the page:\n  " + "\n  ".join(math["raw"])


@pytest.mark.parametrize("page", PAGES)
def test_twin_link_round_trip(site, page):
    lang = lang_of(page)
    require(lang)
    visit = loaded(site, page)
    assert visit.twins, f"{visit.where()} has no a.course-twin-link"
    assert len(set(visit.twins)) == 1, f"{visit.where()} has twin links to different pages: {visit.twins}"
    twin_url = strip_fragment(visit.twins[0])
    twin_page = site.path_of(twin_url)
    other = OTHER[lang]
    assert twin_page and lang_of(twin_page) == other, \
        f"{visit.where()}: twin link {twin_url} is not in the {EDITION_NAME[other]} edition"
    require(other)
    twin = site.visit(twin_page)
    assert twin.load_error is None, f"twin of {page}, {twin_page}, did not load: {twin.load_error}"
    assert twin.status == 200, f"twin of {page}, {twin_page}, answered HTTP {twin.status}"
    assert twin.twins, f"twin of {page}, {twin_page}, has no a.course-twin-link"
    back = strip_fragment(twin.twins[0])
    assert back == visit.final_url, f"{page} -> {twin_page} -> {site.path_of(back) or back}, not back to {site.path_of(visit.final_url)}"


@pytest.mark.parametrize("page", PAGES)
def test_html_lang(site, page):
    lang = lang_of(page)
    require(lang)
    visit = loaded(site, page)
    assert visit.html_lang == HTML_LANG[lang], f"{visit.where()}: <html lang={visit.html_lang!r}>, expected {HTML_LANG[lang]!r}"


LICENCE = {"en": ("CC BY 4.0", "MIT licence", "The course authors", "as an issue"),
           "zh": ("CC BY 4.0", "MIT 许可", "本课程作者", "issue")}


@pytest.mark.parametrize("page", PAGES)
def test_footer_names_licence_authors_and_where_to_report(page):
    """Every page says under which licence it may be reused, whose it is and how to report an error,
    in its own language (read from the built file: the footer is static)."""
    lang = lang_of(page)
    require(lang)
    target = redirect_target(page)                # Jupyter Book's index.html stub: the page it leads to
    path = (SITE / page).parent / target if target else SITE / page
    text = path.read_text(encoding="utf-8")
    footer = text[text.find('class="course-licence"'):]
    assert 'class="course-licence"' in text, f"{page}: no licence line in the footer"
    missing = [w for w in LICENCE[lang] if w not in footer[:2000]]
    assert not missing, f"{page}: the footer lacks {missing}"


# --- phones: the chapter list and the page contents open --------------------------------------

# Whether an element is drawn where a reader can see it: visible (CSS, opacity), with a box inside
# the viewport's width and reaching into its height, and not covered (what is at the middle of its
# box on screen is the element or inside it).
ON_SCREEN_JS = r"""
(el) => {
  if (!el) return {shown: false, why: 'not in the page'};
  const r = el.getBoundingClientRect(), w = window.innerWidth, h = window.innerHeight;
  const box = [r.left, r.top, r.width, r.height].map(Math.round);
  if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return {shown: false, why: 'hidden', box};
  if (r.width < 50 || r.height < 20) return {shown: false, why: 'too small', box};
  if (r.left < -1 || r.right > w + 1 || r.top >= h || r.bottom <= 0) return {shown: false, why: 'off screen', box};
  const x = (Math.max(r.left, 0) + Math.min(r.right, w)) / 2, y = (Math.max(r.top, 0) + Math.min(r.bottom, h)) / 2;
  const hit = document.elementFromPoint(x, y);
  if (!hit || !(el === hit || el.contains(hit))) return {shown: false, why: 'covered by ' + (hit ? hit.tagName : 'nothing'), box};
  return {shown: true, why: '', box};
}
"""
PHONE = {"viewport": {"width": PHONE_WIDTH, "height": 844}, "is_mobile": True, "has_touch": True}
OPEN_TIMEOUT_MS = 3_000       # the drawer's slide-in
# The visible buttons (sphinx-book-theme's, in the article header) and what each opens.
PHONE_DRAWERS = [("chapter list", ".primary-toggle", "nav.bd-docs-nav"),
                 ("page contents", ".secondary-toggle", "nav.page-toc")]


def chapter_page(lang):
    """The first chapter page (<lang>/NN_name.html) of one built edition."""
    chapters = [p for p in built_pages(lang) if is_chapter(Path(p).stem)]
    assert chapters, f"the {EDITION_NAME[lang]} edition has no chapter page (NN_name.html) under {SITE / lang}"
    return chapters[0]


def wait_on_screen(page, selector, shown):
    """Wait until the element of ``selector`` is (``shown``) or is not drawn on screen; its last state."""
    try:
        page.wait_for_function(f"(sel) => ({ON_SCREEN_JS})(document.querySelector(sel)).shown === {str(shown).lower()}",
                               arg=selector, timeout=OPEN_TIMEOUT_MS)
    except PlaywrightError:
        pass
    return page.evaluate(f"(sel) => ({ON_SCREEN_JS})(document.querySelector(sel))", selector)


@pytest.mark.parametrize("lang", EDITIONS)
def test_phone_buttons_open_chapter_list_and_page_contents(site, lang):
    """At 390 px (touch), the ☰ button opens the chapter list and the page-contents button the
    contents panel; Escape closes each (pydata-sphinx-theme 0.17 with sphinx-book-theme left both
    without a click handler: a second, hidden pair of buttons in the theme's top bar got them)."""
    require(lang)
    page_path = chapter_page(lang)
    record = Visit(page=page_path, url=site.server.url(page_path))
    context = site.new_context(record, **PHONE)
    problems = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: record.page_errors.append(str(exc)))
        page.goto(record.url, wait_until="load")
        for what, button, panel in PHONE_DRAWERS:
            toggles = page.locator(f"{button}:visible")
            if toggles.count() != 1:
                problems.append(f"{toggles.count()} visible {button} buttons for the {what} (one expected)")
                continue
            before = wait_on_screen(page, panel, False)
            if before["shown"]:
                problems.append(f"the {what} ({panel}) is on screen before its button is tapped: {before}")
                continue
            toggles.first.tap()
            opened = wait_on_screen(page, panel, True)
            if not opened["shown"]:
                problems.append(f"tapping {button} does not show the {what} ({panel}: {opened['why']}, box {opened.get('box')})")
                continue
            screenshot(page, f"phone_{lang}_{what.replace(' ', '_')}_open", full_page=False)
            page.keyboard.press("Escape")
            closed = wait_on_screen(page, panel, False)
            if closed["shown"]:
                problems.append(f"Escape does not close the {what} ({panel} still on screen, box {closed['box']})")
    finally:
        context.close()
    assert not problems, f"{page_path} at {PHONE_WIDTH} px:\n  " + "\n  ".join(problems)
    assert not record.page_errors, f"{page_path}: uncaught JavaScript errors:\n  " + "\n  ".join(record.page_errors)
    assert not record.outside, f"{page_path}: requests outside 127.0.0.1: {record.outside}"


PHONE_READING_JS = r"""
(density) => {
  const w = window.innerWidth, out = {hidden_numbers: [], figures: 0, unlinked: [], lowres: [], wide_tables: 0, unhinted: 0};
  for (const eq of document.querySelectorAll('.bd-article div.math')) {
    const no = eq.querySelector('.eqno');
    if (!no) continue;
    eq.scrollLeft = 0;
    const r = no.getBoundingClientRect(), box = eq.getBoundingClientRect();
    if (r.right > Math.min(box.right, w) + 1 || r.left < box.left - 1) out.hidden_numbers.push(no.textContent.trim());
  }
  for (const img of document.querySelectorAll('.bd-article figure img')) {
    out.figures += 1;
    const a = img.closest('a');
    if (!a || !a.getAttribute('href') || !/\.(png|svg|jpe?g)$/.test(a.getAttribute('href'))) out.unlinked.push(img.getAttribute('src'));
    const shown = parseFloat(img.style.width);   // the width the figure is drawn for (hidpi_png's metadata)
    if (!(shown > 0) || Math.abs(img.naturalWidth - density * shown) > density) out.lowres.push(`${img.getAttribute('src')}: ${img.naturalWidth} px for ${img.style.width || 'no set width'}`);
  }
  for (const t of document.querySelectorAll('.bd-article .pst-scrollable-table-container')) {
    if (t.scrollWidth <= t.clientWidth + 1) continue;
    out.wide_tables += 1;
    const hint = t.previousElementSibling;
    if (!hint || !hint.classList.contains('course-scroll-hint')) out.unhinted += 1;
  }
  return out;
}
"""


@pytest.mark.parametrize("lang", EDITIONS)
def test_phone_reading_equation_numbers_figures_tables(site, lang):
    """At 390 px, on the chapter with the most formulas and tables (6): every equation's number is in
    view even when its formula scrolls, every figure links to its full-size image, and every table
    wider than the screen says that it scrolls. Every figure carries twice the pixels of the width it is
    set to (infra_lib.figures.style.hidpi_png), so it stays sharp on a phone's screen."""
    require(lang)
    page_path = f"{lang}/06_performance.html"
    record = Visit(page=page_path, url=site.server.url(page_path))
    context = site.new_context(record, **PHONE)
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: record.page_errors.append(str(exc)))
        page.goto(record.url, wait_until="load")
        found = page.evaluate(PHONE_READING_JS, PIXEL_DENSITY)
    finally:
        context.close()
    assert found["figures"] > 0, f"{page_path}: no figure found"
    assert not found["hidden_numbers"], f"{page_path}: equation numbers out of view at {PHONE_WIDTH} px: {found['hidden_numbers']}"
    assert not found["unlinked"], f"{page_path}: figures without a link to the full-size image: {found['unlinked']}"
    assert not found["lowres"], f"{page_path}: figures not drawn at {PIXEL_DENSITY}x the width they are shown at: {found['lowres']}"
    assert found["unhinted"] == 0, f"{page_path}: {found['unhinted']} of {found['wide_tables']} wide tables do not say they scroll"
    assert not record.page_errors, record.page_errors


# --- search, inserted numbers, landing page ---------------------------------------------------

@pytest.mark.parametrize("lang, query", [("zh", "显存带宽"), ("zh", "推理引擎"), ("zh", "中介层"), ("zh", "已知良品裸片"),
                                         ("zh", "降级出售"), ("en", "bandwidth")],
                         ids=["zh-xiancun_daikuan", "zh-tuili_yinqing", "zh-zhongjieceng", "zh-yizhi_liangpin_luopian",
                              "zh-jiangji_chushou", "en-bandwidth"])
def test_search_finds(site, lang, query):
    require(lang)
    from urllib.parse import quote

    record = Visit(page=f"{lang}/search.html", url=site.server.url(f"{lang}/search.html?q={quote(query)}"))
    context = site.new_context(record)
    try:
        page = context.new_page()
        page.goto(record.url, wait_until="load")
        try:
            page.wait_for_function(
                """() => document.querySelector('#search-results li') ||
                         (document.querySelector('#search-results .search-summary')?.textContent || '').trim()""",
                timeout=SEARCH_TIMEOUT_MS)
        except PlaywrightError:
            pytest.fail(f"search for {query!r} ({lang}) neither showed results nor finished within "
                        f"{SEARCH_TIMEOUT_MS / 1000:.0f} s", pytrace=False)
        page.wait_for_timeout(100)              # results are appended one every 5 ms
        results = page.locator("#search-results li").count()
        summary = (page.text_content("#search-results .search-summary") or "").strip()
        screenshot(page, f"{lang}/search={query}")
        ran = urlsplit(page.url).query
    finally:
        context.close()
    assert results >= 1, f"search for {query!r} in the {EDITION_NAME[lang]} edition found nothing " \
                         f"(query run: {ran!r}; summary: {summary!r})"
    assert not record.outside, f"search page requests resources outside 127.0.0.1: {record.outside}"


SEARCH_BOXES_JS = r"""
() => {
  const drawn = e => { const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'
           && r.right > 0 && r.left < window.innerWidth; };   // a drawer off screen is not shown; the sidebar may be scrolled
  const boxes = [...document.querySelectorAll('.search-button__button, form.bd-search input[name=q]')].filter(drawn);
  const overlaps = [];
  for (const form of document.querySelectorAll('form.bd-search')) {
    const icon = form.querySelector('.fa-magnifying-glass'), input = form.querySelector('input[name=q]');
    if (!icon || !input || !drawn(input)) continue;
    const text_start = input.getBoundingClientRect().left + parseFloat(getComputedStyle(input).paddingLeft);
    if (icon.getBoundingClientRect().right > text_start + 0.5) overlaps.push(Math.round(icon.getBoundingClientRect().right - text_start));
  }
  const active = document.activeElement;
  return {boxes: boxes.map(e => e.className || e.tagName), overlaps,
          focused_in_page: !!(active && active.closest && active.closest('.bd-search-container'))};
}
"""


@pytest.mark.parametrize("lang", EDITIONS)
@pytest.mark.parametrize("width", [1280, PHONE_WIDTH], ids=["desktop", "phone"])
def test_one_search_box_per_page_and_typed_text_clear_of_the_magnifier(site, lang, width):
    """A chapter page shows one way to search (the sidebar's field on a desktop, the header's
    magnifier on a phone), the search page one box, its own; in each box the typed text starts
    after the magnifier (pydata-sphinx-theme laid the icon over it), and a query typed in the
    chapter's box opens the search page with results."""
    require(lang)
    query = {"en": "roofline", "zh": "屋顶线"}[lang]
    page_path = f"{lang}/06_performance.html"
    record = Visit(page=page_path, url=site.server.url(page_path))
    options = PHONE if width == PHONE_WIDTH else {"viewport": {"width": width, "height": 900}}
    context = site.new_context(record, **options)
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: record.page_errors.append(str(exc)))
        page.goto(record.url, wait_until="load")
        page.wait_for_selector(".search-button__button:visible", timeout=OPEN_TIMEOUT_MS)
        chapter = page.evaluate(SEARCH_BOXES_JS)
        page.locator(".search-button__button:visible").first.click()
        page.wait_for_selector("#pst-search-dialog[open] input[name=q]", timeout=OPEN_TIMEOUT_MS)
        page.keyboard.type(query)
        dialog = page.evaluate(SEARCH_BOXES_JS)
        screenshot(page, f"{lang}_search_dialog_{width}", full_page=False)
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelector('#search-results li')", timeout=SEARCH_TIMEOUT_MS)
        results = page.evaluate(SEARCH_BOXES_JS)
        typed = page.input_value(".bd-search-container input[name=q]")
        screenshot(page, f"{lang}_search_results_{width}", full_page=False)
    finally:
        context.close()
    assert len(chapter["boxes"]) == 1, f"{page_path} at {width} px: {len(chapter['boxes'])} search boxes: {chapter['boxes']}"
    assert not dialog["overlaps"], f"{page_path} at {width} px: the magnifier covers the typed text by {dialog['overlaps']} px"
    assert len(results["boxes"]) == 1, f"search.html at {width} px: {len(results['boxes'])} search boxes: {results['boxes']}"
    assert not results["overlaps"], f"search.html at {width} px: the magnifier covers the typed text by {results['overlaps']} px"
    assert typed == query and results["focused_in_page"], (typed, results)
    assert not record.page_errors, record.page_errors


@pytest.mark.parametrize("lang, query", [("en", "bandwidth"), ("zh", "显存带宽")], ids=["en", "zh"])
def test_search_from_file_url(site, lang, query):
    """The site opened from disk: search lists results (without snippets) and throws nothing."""
    require(lang)
    from urllib.parse import quote

    url = (SITE / lang / "search.html").as_uri() + f"?q={quote(query)}"
    record = Visit(page=f"{lang}/search.html (file://)", url=url)
    context = site.new_context(record)
    try:
        page = context.new_page()
        page.on("pageerror", lambda exc: record.page_errors.append(str(exc)))
        page.on("console", lambda msg: record.console_errors.append(msg.text) if msg.type == "error" else None)
        page.goto(url, wait_until="load")
        try:
            page.wait_for_function("() => document.querySelector('#search-results li')", timeout=SEARCH_TIMEOUT_MS)
        except PlaywrightError:
            pytest.fail(f"search for {query!r} from {url} showed no result within {SEARCH_TIMEOUT_MS / 1000:.0f} s",
                        pytrace=False)
        page.wait_for_timeout(300)              # snippet fetches, had they started, fail by now
    finally:
        context.close()
    assert not record.page_errors, f"{url}: uncaught JavaScript errors:\n  " + "\n  ".join(record.page_errors)
    assert not record.console_errors, f"{url}: console errors:\n  " + "\n  ".join(record.console_errors)
    assert not record.outside, f"{url}: requests outside the machine: {record.outside}"


def overview_numbers():
    """Values that notebooks/*/00_overview inserts with glue, computed from infra_lib as the notebook does."""
    from infra_lib import hardware, inference

    bandwidth = f"{hardware.value('h100_sxm5', 'mem_bw_Bps') / 1e9:,.0f}"
    step = inference.decode_step(inference.teaching_request(), inference.teaching_gpu())
    return {"H100 SXM5 memory bandwidth, GB/s": bandwidth, "teaching decode step, ms": f"{step.time_s * 1e3:.1f}"}


@pytest.mark.parametrize("lang", EDITIONS)
def test_inserted_numbers_on_overview(site, lang):
    require(lang)
    page = f"{lang}/00_overview.html"
    visit = loaded(site, page)
    for what, value in overview_numbers().items():
        assert value in visit.text, f"{page}: {what} = {value} is not in the page text"
        assert value in visit.pasted, f"{page}: {what} = {value} appears, but not as an inserted (glued) value; " \
                                      f"glued values on the page: {sorted(set(visit.pasted))[:40]}"


@pytest.mark.parametrize("lang", EDITIONS)
def test_a_page_is_at_its_name_and_its_old_address_leads_there(site, lang):
    """A page's address holds the edition once, en/06_performance.html; the address it had before,
    en/notebooks/en/06_performance.html, is a page that sends the reader on (the #section kept).
    Every file under the old folders is such a page: none of the course's pages hides there."""
    require(lang)
    docs = toc_docs(edition_config(lang)[1])
    old = {f"{lang}/{d}.html": f"{lang}/{page_name(d)}.html" for d in docs if "/" in d}
    assert old, "the table of contents has no page in a folder: nothing moved"
    stubs = sorted(p.relative_to(SITE).as_posix() for folder in MOVED_DIRS for p in (SITE / lang / folder).rglob("*.html"))
    assert stubs == sorted(old), (stubs, sorted(old))
    for stub, page in old.items():
        target = redirect_target(stub)
        assert target and (SITE / stub).parent.joinpath(target).resolve() == (SITE / page).resolve(), (stub, target)
        assert (SITE / page).is_file() and not redirect_target(page), page
    chapter = next(s for s in old if is_chapter(Path(s).stem))
    record = Visit(page=chapter, url=site.server.url(chapter) + "#exercises")
    context = site.new_context(record)
    try:
        browser_page = context.new_page()
        browser_page.goto(record.url, wait_until="load")
        browser_page.wait_for_url(lambda url: "/notebooks/" not in url, timeout=NAV_TIMEOUT_MS)
        assert browser_page.url == site.server.url(old[chapter]) + "#exercises", browser_page.url
    finally:
        context.close()


@pytest.mark.parametrize("lang", EDITIONS)
def test_landing_links_to_edition(site, lang):
    require(lang)
    landing = loaded(site, "index.html")
    target = site.server.url(f"{lang}/index.html")
    assert target in map(strip_fragment, landing.links), f"index.html does not link to {lang}/index.html: {landing.links}"
    assert not landing.outside, f"index.html requests resources outside 127.0.0.1: {landing.outside}"
    assert not landing.bad_status and not landing.failed, f"index.html: {landing.bad_status + landing.failed}"
    edition = loaded(site, f"{lang}/index.html")
    assert site.path_of(edition.final_url).startswith(f"{lang}/"), \
        f"{lang}/index.html leads out of its edition, to {edition.final_url}"


@pytest.mark.parametrize("lang", EDITIONS)
def test_landing_maps_every_page_with_the_overviews_numbers(site, lang):
    """The landing page links every page of the table of contents in each edition, and its headline
    prints the overview's numbers as the overview prints them."""
    require(lang)
    landing = loaded(site, "index.html")
    links = set(map(strip_fragment, landing.links))
    home = (f"{lang}/index.html",)     # the edition's home: the buttons above
    missing = [p for p in toc_pages(lang) if p not in home and site.server.url(p) not in links]
    assert not missing, f"index.html does not link {missing}"
    overview = loaded(site, f"{lang}/00_overview.html")
    headline = re.search(r"(\d+%)[^\n]*?(\d+\.\d) ms", landing.text if lang == "en" else
                         landing.text[landing.text.find("在概览"):])
    assert headline, "the landing page has no headline with the decode share and the step time"
    for value in headline.groups():
        assert value in overview.pasted, f"landing prints {value}, which the overview ({lang}) does not glue"
