"""Print timings (targets on a 2-core machine in brackets) and each page's weight. Asserts nothing.

    make bench            # all of it: the tests (fast path and full suite), the builds, notebooks, pages
    python book/tools/bench.py --skip-tests
    python book/tools/bench.py --weights-only [SITE]   # page weights of a built site (_build/site)
    python book/tools/bench.py --live-only [SITE]      # the live pages: size, kernel cold start, slider
    python book/tools/bench.py --notebooks-only        # each chapter's execution, kernel start apart

A page's weight is measured in Chromium: a fresh context (nothing cached), the page and everything
it loads until the network is idle (scripts, styles, fonts, figures), as bytes of response bodies
and a count of requests, from the browser's Resource Timing entries; then again after scrolling to
the end (lazily loaded images and fonts). Formulas are MathML in the page, so they load nothing.
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

import jupytext
from nbclient import NotebookClient

from course import ROOT, is_chapter  # book/tools

sys.path.insert(0, str(ROOT / "tests"))   # site_server, live_browser: the browser helpers of the tests
PY = sys.executable


def timed(label, cmd, target):
    start = time.perf_counter()
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - start
    status = "ok" if run.returncode == 0 else f"FAILED (exit {run.returncode})"
    print(f"{label:<34} {took:7.1f} s   [target {target}]  {status}", flush=True)
    return took


def notebook_times():
    """Each chapter as the build runs it (nbclient, a fresh kernel): the whole run, the kernel's start
    in it, and its slowest cell."""
    for path in sorted((ROOT / "notebooks").glob("*/*.md")):
        nb = jupytext.read(path)
        client = NotebookClient(nb, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}})
        start = time.perf_counter()
        with client.setup_kernel():
            kernel_s = time.perf_counter() - start
            cells = []
            for index, cell in enumerate(nb.cells):
                began = time.perf_counter()
                client.execute_cell(cell, index)
                cells.append((time.perf_counter() - began, index))
        slowest, at = max(cells)
        print(f"notebook {str(path.relative_to(ROOT)):<32} {time.perf_counter() - start:5.1f} s   [target 5 s]  "
              f"(kernel start {kernel_s:.1f} s, cells {sum(c for c, _ in cells):.1f} s, slowest cell #{at} "
              f"{slowest:.1f} s)", flush=True)


def page_weights(site=None):
    """Print bytes and requests per page of both editions, loaded in Chromium from a local server."""
    from playwright.sync_api import sync_playwright
    from site_server import CHAPTER_MAX_B, EDITIONS, SITE, WEIGHT_JS, SiteServer, launch_chromium, redirect_target, site_pages

    site = Path(site or SITE)
    rows = []
    with SiteServer(site) as server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        for lang in EDITIONS:
            for page_path in site_pages(lang, site):
                if redirect_target(page_path, site):
                    continue                    # a redirect stub (index.html): weighed as its target
                context = browser.new_context()
                context.route(lambda url: not server.is_local(url), lambda route: route.abort())
                page = context.new_page()
                page.goto(server.url(page_path), wait_until="load")
                try:
                    page.wait_for_load_state("networkidle", timeout=10_000)
                except Exception:               # noqa: BLE001  (a best effort wait)
                    pass
                weight = page.evaluate(WEIGHT_JS)
                # then what a reader who scrolls to the end loads too
                page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
                try:
                    page.wait_for_timeout(300)
                    page.wait_for_load_state("networkidle", timeout=10_000)
                except Exception:               # noqa: BLE001
                    pass
                weight["whole"] = page.evaluate(WEIGHT_JS)
                context.close()
                rows.append((page_path, weight))
        browser.close()
    for page_path, w in rows:
        chapter = is_chapter(Path(page_path).stem)
        flag = "  over target" if chapter and w["bytes"] > CHAPTER_MAX_B else ""
        top = ", ".join(f"{name} {size / 1e3:.0f} kB" for name, size in w["top"])
        whole = w["whole"]
        print(f"page {page_path:<38} {w['bytes'] / 1e6:5.2f} MB {w['requests']:3d} requests"
              f"{f' [target {CHAPTER_MAX_B / 1e6:.1f} MB]' if chapter else ''}{flag}; scrolled to the end: {whole['bytes'] / 1e6:.2f} MB "
              f"{whole['requests']} requests; largest: {top}", flush=True)
    return rows


def live_times(site=None):
    """Print what the live pages (site/lite) add to the site, and, per edition, the time from opening a
    live chapter to its sliders (in a fresh browser profile, then a second chapter in the same one)
    and a slider's response (key press -> new output), in Chromium with requests outside 127.0.0.1 blocked."""
    from live_browser import explore_panel, live_context, moving_slider, run_live
    from playwright.sync_api import sync_playwright
    from site_server import EDITIONS, SITE, SiteServer, launch_chromium

    site = Path(site or SITE)
    lite = site / "lite"
    files = [p for p in lite.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    rest = sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) - size
    pyodide = sum(p.stat().st_size for p in (lite / "static" / "pyodide").rglob("*") if p.is_file())
    print(f"live pages (site/lite): {size / 1e6:.1f} MB in {len(files)} files, of which Pyodide and its wheels "
          f"{pyodide / 1e6:.1f} MB; the rest of the site {rest / 1e6:.1f} MB", flush=True)
    notebooks = sorted((lite / "files").glob("*/*.ipynb"))
    with SiteServer(site) as server, sync_playwright() as p:
        browser = launch_chromium(p)
        for lang in EDITIONS:
            mine = [nb for nb in notebooks if nb.parent.name == lang]
            if not mine:
                continue
            context = live_context(browser)       # a fresh profile, then a second chapter in it
            try:
                for k, path in enumerate(mine[:2]):
                    nb = f"{lang}/{path.name}"
                    slider = moving_slider(explore_panel(path.read_text(encoding="utf-8")), lang)[0]
                    run = run_live(browser, server, nb, slider=slider, context=context)
                    state = "ok" if not (run.blocked or run.failed or run.errors) else \
                        f"{len(run.blocked)} blocked, {len(run.failed)} failed, {len(run.errors)} errors"
                    print(f"live {nb:<24} {'cold start' if k == 0 else 'next chapter, same browser'} (page opened -> "
                          f"sliders on screen) {run.kernel_s + run.cells_s:5.1f} s [target 15 s on a laptop-class machine] "
                          f"(notebook on screen {run.ui_s:.1f} s, Run All -> sliders {run.cells_s:.1f} s), "
                          f"slider {run.slider_s:5.2f} s [target 0.5 s]  {state}", flush=True)
            finally:
                context.close()
        browser.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--weights-only", nargs="?", const="", metavar="SITE",
                        help="only the page weights of a built site (default: _build/site)")
    parser.add_argument("--notebooks-only", action="store_true", help="only each notebook's execution time")
    parser.add_argument("--live-only", nargs="?", const="", metavar="SITE",
                        help="only the live pages of a built site: size, kernel cold start, slider")
    args = parser.parse_args()
    if args.weights_only is not None:
        page_weights(args.weights_only or None)
        return
    if args.live_only is not None:
        live_times(args.live_only or None)
        return
    if args.notebooks_only:
        notebook_times()
        return
    if not args.skip_tests:
        timed("fast path (make check)", ["make", "--no-print-directory", "check"], "60 s")   # the Makefile's command
        timed("full test command (make test)", [PY, "-m", "pytest", "-n", "auto", "--dist", "loadfile", "-q"],
              "240 s")
    timed("clean build, both editions", [PY, "book/tools/build.py", "--strict"], "120 s")
    timed("no-change rebuild", [PY, "book/tools/build.py"], "15 s")
    notebook_times()
    page_weights()
    live_times()


if __name__ == "__main__":
    main()
