"""Drive one live notebook (site/lite, book/tools/lite.py) in Chromium, as a reader does.

    with SiteServer(SITE) as server, sync_playwright() as p:
        run = run_live(launch_chromium(p), server, "en/03_gpu.ipynb")

Opens ``lite/notebooks/index.html?path=<notebook>`` in a fresh context in which every request that
leaves 127.0.0.1 is recorded and blocked, waits for the kernel, runs all cells (Run → Run All
Cells), waits for the widget's output, then moves one slider with the keyboard (``steps`` presses of the right arrow on
its handle) and waits for the output to change. Used by tests/test_lite.py and book/tools/bench.py.
"""
import re
import time
from dataclasses import dataclass, field

from widget_checks import text_of

UI_TIMEOUT_MS = 60_000        # the notebook app and the notebook on screen
KERNEL_TIMEOUT_MS = 180_000   # Pyodide boots and loads the wheels (cold: 10-45 s on a busy 2-core machine)
CELLS_TIMEOUT_MS = 120_000    # Run All -> the widget's output (the rest of Pyodide's boot: 21 s on an idle 2-core machine)
RUN_ALL_TRIES = 2             # a Run All clicked while the session still starts can be lost: click it again
STARTED_TIMEOUT_MS = 20_000   # Run All -> the first cell shows as running or run
STARTED_JS = """() => [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
    .some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))"""
SLIDER_TIMEOUT_MS = 15_000    # one slider move to a new output


@dataclass
class LiveRun:
    ui_s: float = 0.0              # page opened -> the notebook's cells on screen
    kernel_s: float = 0.0          # page opened -> the kernel says idle (Pyodide may still be booting)
    cells_s: float = 0.0           # Run All -> the widget's output (the rest of the boot, then the cells)
    slider_s: float = 0.0          # first key press -> the output changed
    before: str = ""               # the widget's output text, then after moving the slider
    after: str = ""
    slider: int = 0                # which slider moved (its index in the panel's controls)
    run_all_clicks: int = 0        # how many times Run All was clicked (a lost first click: 2)
    blocked: list = field(default_factory=list)   # requests that tried to leave 127.0.0.1
    failed: list = field(default_factory=list)    # failed requests and HTTP status >= 400
    errors: list = field(default_factory=list)    # console errors and uncaught exceptions


def run_all(page):
    """Run → Run All Cells, clicked again if no cell has started within STARTED_TIMEOUT_MS (a click
    while the session still starts can be lost); returns the number of clicks."""
    for attempt in range(1, RUN_ALL_TRIES + 1):
        page.locator("li.lm-MenuBar-item[role=menuitem]", has_text=re.compile(r"^\s*Run\s*$")).click(
            timeout=UI_TIMEOUT_MS)
        page.click('li[data-command="runmenu:run-all"]', timeout=UI_TIMEOUT_MS)
        try:
            page.wait_for_function(STARTED_JS, timeout=STARTED_TIMEOUT_MS)
            return attempt
        except Exception:                       # noqa: BLE001  (Playwright's TimeoutError)
            if attempt == RUN_ALL_TRIES:
                raise
    return RUN_ALL_TRIES


def live_context(browser):
    """A browser context for live pages (a fresh profile: nothing cached)."""
    return browser.new_context(viewport={"width": 1200, "height": 900})


def run_live(browser, server, notebook, slider=0, steps=1, screenshot=None, context=None):
    """One live notebook in a new context, or in ``context`` (made by :func:`live_context`, left open:
    a reader's second chapter in the same browser, with what the first left in its caches)."""
    run = LiveRun(slider=slider)
    own = context is None
    context = live_context(browser) if own else context

    def route(r):
        if server.is_local(r.request.url):
            r.continue_()
        else:
            run.blocked.append(r.request.url)
            r.abort()
    context.unroute("**/*")
    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and run.errors.append(m.text))
    page.on("pageerror", lambda e: run.errors.append(str(e)))
    page.on("requestfailed", lambda r: run.failed.append(f"{r.url} ({r.failure})"))
    page.on("response", lambda r: r.status >= 400 and run.failed.append(f"{r.status} {r.url}"))
    try:
        start = time.perf_counter()
        page.goto(server.url(f"lite/notebooks/index.html?path={notebook}"))
        page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=UI_TIMEOUT_MS)
        run.ui_s = time.perf_counter() - start
        # the kernel is ready (Pyodide booted, infra_lib and ipywidgets loaded): before that,
        # Run All can be lost while the notebook's session is still being set up
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status=idle]", timeout=KERNEL_TIMEOUT_MS)
        run.kernel_s = time.perf_counter() - start
        start = time.perf_counter()
        # the chapter's explore widget (a live chapter has other widgets too: answer boxes, an upload)
        output = page.locator(".jp-CodeCell", has_text="explore(").locator(".widget-html-content").first
        # A Run All clicked while the session still starts can be lost; clicking it again once the
        # cells have started would run them twice, and the first run's widget is then disposed
        # under its view ("<model id> was disposed" in the console). So click again only if no
        # cell has started: a prompt "[*]:" (running) or "[1]:" (done) shows that one has.
        run.run_all_clicks = run_all(page)
        output.wait_for(timeout=CELLS_TIMEOUT_MS)
        page.wait_for_function("el => el.innerText.trim().length > 0", arg=output.element_handle(),
                               timeout=CELLS_TIMEOUT_MS)
        run.cells_s = time.perf_counter() - start
        run.before = output.inner_text()
        handle = page.locator(".noUi-handle").nth(slider)
        handle.focus()
        start = time.perf_counter()
        for _ in range(steps):
            page.keyboard.press("ArrowRight")
        page.wait_for_function("([el, b]) => el.innerText !== b", arg=[output.element_handle(), run.before],
                               timeout=SLIDER_TIMEOUT_MS)
        run.slider_s = time.perf_counter() - start
        page.wait_for_timeout(500)             # a late second update would show in `after`
        run.after = output.inner_text()
        if screenshot:
            page.screenshot(path=str(screenshot), full_page=True)
    except Exception:
        if screenshot:                          # what the reader would have seen
            page.screenshot(path=str(screenshot).replace(".png", "-failed.png"), full_page=True)
        raise
    finally:
        if own:
            context.close()
        else:
            page.close()
    return run


EXPLORE = re.compile(r"from infra_lib\.widgets\.(\w+) import explore")


def explore_panel(notebook_text):
    """The slider panel of the chapter's explore widget, from the live notebook's text."""
    import importlib
    return importlib.import_module(f"infra_lib.widgets.{EXPLORE.search(notebook_text).group(1)}").PANEL


def moving_slider(panel, lang):
    """The first slider whose first step right changes the output, and the output's text after it."""
    defaults = panel.defaults()
    before = text_of(panel.render(lang, defaults))
    for i, c in enumerate(panel.controls):
        if c.options:
            k = c.options.index(c.default)
            moved = c.options[min(k + 1, len(c.options) - 1)]
        else:
            moved = round(defaults[c.name] + c.step, 10)
        values = panel.clamp({**defaults, c.name: moved})
        after = text_of(panel.render(lang, values))
        if after != before:
            return i, before, after
    raise AssertionError("no slider changes the output")
