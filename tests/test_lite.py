"""The live pages: each chapter's widgets in JupyterLite inside the built site (book/tools/lite.py).

    COURSE_BUILD_DIR=/tmp/b COURSE_TOC=/tmp/toc.yml COURSE_SITE_PREBUILT=1 \
        .venv/bin/python -m pytest tests/test_lite.py      # a private build already made

- every chapter of the table whose page has a widget cell has a live notebook in each edition,
  generated from that cell (the same source, after the chapter's ``edition`` cell);
- its "Explore the assumptions" box links to it, and the page says it needs the site over HTTP;
- in Chromium, with every request outside 127.0.0.1 blocked, one live notebook per edition runs:
  the kernel starts, the widget shows the same text as the library's ``PANEL.render`` under
  CPython, a slider moves and the output changes to what CPython computes for the new value,
  and nothing left the machine, failed or logged an error.
"""
import importlib
import os
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

import lite  # book/tools/lite.py (pythonpath in pyproject.toml)
from course import TOC  # book/tools/course.py: the table build.py builds (COURSE_TOC)
from live_browser import run_live
from site_server import EDITIONS, SITE, SiteServer
from widget_checks import text_of

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.site, pytest.mark.xdist_group("site")]   # `build` on each test that needs the site
LIVE = [c for c in lite.chapters(TOC) if lite.has_widgets(ROOT / "notebooks" / "en" / f"{c}.md")]
SHOTS = os.environ.get("SITE_SCREENSHOTS")
WIDGET = re.compile(r"from infra_lib\.widgets\.(\w+) import explore")


def squash(text):
    return re.sub(r"\s+", "", text)


def test_chapters_have_widgets():
    assert LIVE, f"no chapter of {TOC} has a widget cell"


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_live_notebooks_are_generated_from_the_chapters(strict_build, lang):
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    for chapter in LIVE:
        path = SITE / "lite" / "files" / lang / f"{chapter}.ipynb"
        assert path.exists(), f"no live notebook {path}"
        live = nbformat.read(path, as_version=4)
        source = lite.widget_cells(jupytext.read(ROOT / "notebooks" / lang / f"{chapter}.md"))
        code = [c.source for c in live.cells if c.cell_type == "code"]
        assert code[0].startswith(f'LANG = "{lang}"'), code[0]
        assert code[1:] == [c.source for c in source], chapter


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_explore_box_links_to_the_live_notebook(strict_build, lang):
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    for chapter in LIVE:
        page = SITE / lang / "notebooks" / lang / f"{chapter}.html"
        html = page.read_text(encoding="utf-8")
        links = re.findall(r'<a class="[^"]*course-live-link[^"]*" href="([^"]+)"', html)
        assert len(links) == 1, (page, links)
        target, _, query = links[0].partition("?")
        assert (page.parent / target).resolve() == (SITE / "lite" / "notebooks" / "index.html").resolve()
        assert query == f"path={lang}/{chapter}.ipynb"
        text = squash(text_of(html))
        assert squash("make serve") in text and "HTTP" in text, page


def _moving_slider(panel, lang):
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


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_live_widget_runs_offline_and_matches_cpython(strict_build, browser, lang):
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    chapter = "03_gpu" if "03_gpu" in LIVE else LIVE[0]
    cell = (SITE / "lite" / "files" / lang / f"{chapter}.ipynb").read_text(encoding="utf-8")
    module = importlib.import_module(f"infra_lib.widgets.{WIDGET.search(cell).group(1)}")
    slider, want_before, want_after = _moving_slider(module.PANEL, lang)
    shot = Path(SHOTS) / f"lite-{lang}-{chapter}.png" if SHOTS else None
    with SiteServer(SITE) as server:
        run = run_live(browser, server, f"{lang}/{chapter}.ipynb", slider=slider, steps=1, screenshot=shot)
    assert run.blocked == [], f"requests left 127.0.0.1: {run.blocked[:5]}"
    assert run.failed == [], run.failed[:5]
    assert run.errors == [], (run.errors[:5], f"Run All clicked {run.run_all_clicks} time(s)")
    assert squash(run.before) == squash(want_before), (run.before, want_before)
    assert squash(run.after) == squash(want_after), (run.after, want_after)
    print(f"{lang}/{chapter}: page opened to sliders (cold start) {run.kernel_s + run.cells_s:.1f} s, "
          f"slider {run.slider_s:.2f} s")
