"""Print timings (targets on a 2-core machine in brackets) and each page's weight. Asserts nothing.

    make bench            # all of it
    python book/tools/bench.py --skip-tests
    python book/tools/bench.py --weights-only [SITE]   # page weights of a built site (_build/site)

A page's weight is measured in Chromium: a fresh context (nothing cached), the page and everything
it loads until the network is idle (scripts, styles, fonts, figures), as bytes of response bodies
and a count of requests, from the browser's Resource Timing entries; then again after scrolling to
the end, which loads MathJax on pages with math (book/_static/course-math.js).
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

import jupytext
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable
CHAPTER_TARGET_B = 1.5e6        # a chapter page, figures included

# Bytes and requests of the page and of everything it loaded (Resource Timing; no compression here).
WEIGHT_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  const top = res.slice().sort((a, b) => b.encodedBodySize - a.encodedBodySize).slice(0, 3)
                 .map(r => [r.name.split('/').pop().split('?')[0], r.encodedBodySize]);
  return {bytes: (nav ? nav.encodedBodySize : 0) + res.reduce((s, r) => s + r.encodedBodySize, 0),
          requests: 1 + res.length, top};
}"""


def timed(label, cmd, target):
    start = time.perf_counter()
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - start
    status = "ok" if run.returncode == 0 else f"FAILED (exit {run.returncode})"
    print(f"{label:<34} {took:7.1f} s   [target {target}]  {status}", flush=True)
    return took


def notebook_times():
    for path in sorted((ROOT / "notebooks").glob("*/*.md")):
        nb = jupytext.read(path)
        start = time.perf_counter()
        NotebookClient(nb, timeout=300, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        print(f"notebook {str(path.relative_to(ROOT)):<25} {time.perf_counter() - start:7.1f} s   [target 5 s]", flush=True)


def page_weights(site=None):
    """Print bytes and requests per page of both editions, loaded in Chromium from a local server."""
    sys.path.insert(0, str(ROOT / "tests"))
    from playwright.sync_api import sync_playwright
    from site_server import EDITIONS, SITE, SiteServer, launch_chromium, redirect_target, site_pages

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
                # then what a reader who scrolls to the end loads too (MathJax, when the page has math)
                page.evaluate("() => { window.courseLoadMath && window.courseLoadMath(); "
                              "window.scrollTo(0, document.body.scrollHeight); }")
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
        chapter = "/notebooks/" in page_path
        flag = "  over target" if chapter and w["bytes"] > CHAPTER_TARGET_B else ""
        top = ", ".join(f"{name} {size / 1e3:.0f} kB" for name, size in w["top"])
        whole = w["whole"]
        print(f"page {page_path:<38} {w['bytes'] / 1e6:5.2f} MB {w['requests']:3d} requests"
              f"{' [target 1.5 MB]' if chapter else ''}{flag}; scrolled to the end: {whole['bytes'] / 1e6:.2f} MB "
              f"{whole['requests']} requests; largest: {top}", flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-tests", action="store_true")
    parser.add_argument("--weights-only", nargs="?", const="", metavar="SITE",
                        help="only the page weights of a built site (default: _build/site)")
    args = parser.parse_args()
    if args.weights_only is not None:
        page_weights(args.weights_only or None)
        return
    if not args.skip_tests:
        timed("full test command (pytest)", [PY, "-m", "pytest", "-q"], "240 s")
    timed("clean build, both editions", [PY, "book/tools/build.py", "--strict"], "120 s")
    timed("no-change rebuild", [PY, "book/tools/build.py"], "15 s")
    notebook_times()
    page_weights()


if __name__ == "__main__":
    main()
