"""The live pages: each chapter's widgets in JupyterLite inside the built site (book/tools/lite.py).

    COURSE_BUILD_DIR=/tmp/b COURSE_TOC=/tmp/toc.yml COURSE_SITE_PREBUILT=1 \
        .venv/bin/python -m pytest tests/test_lite.py      # a private build already made

- every chapter of the table with a widget cell or an exercise has a live notebook in each
  edition: the whole chapter (its readable notebook: the page's numbers, figures as images), in
  which the only code cells are the ``edition`` cell, the chapter's widget cells (the same source),
  a measured run's cell where the chapter reads one, and one answer-box cell after each exercise,
  graded against the answers the page was built with; those cells run in a Python without numpy
  or matplotlib, as in the browser;
- the page's header has a "Live" button to it, its "Explore the assumptions" box links to it, and
  the page says it needs the site over HTTP;
- in Chromium, with every request outside 127.0.0.1 blocked, one live notebook per edition runs:
  the kernel starts, the widget shows the same text as the library's ``PANEL.render`` under
  CPython, a slider moves and the output changes to what CPython computes for the new value,
  and nothing left the machine, failed or logged an error.
"""
import ast
import json
import os
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

import lite  # book/tools/lite.py (pythonpath in pyproject.toml)
from course import TOC  # book/tools/course.py: the table build.py builds (COURSE_TOC)
from imports import BLOCK_IN_BROWSER, NOT_IN_BROWSER   # tests/imports.py
from live_browser import explore_panel, live_context, moving_slider, run_live
from site_server import EDITIONS, SITE, SiteServer
from widget_checks import text_of

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.site, pytest.mark.xdist_group("site")]   # `build` on each test that needs the site
LIVE = [c for c in lite.chapters(TOC) if lite.has_widgets(ROOT / "notebooks" / "en" / f"{c}.md")]
CHAPTERS = [c for c in lite.chapters(TOC) if lite.has_live(ROOT / "notebooks" / "en" / f"{c}.md")
            and not lite.has_quiz(ROOT / "notebooks" / "en" / f"{c}.md")]      # whole live chapters
BLOCKED = NOT_IN_BROWSER   # not in the browser (tests/imports.py)
RUN_CELLS = BLOCK_IN_BROWSER + r"""
import json
cells = json.loads(sys.stdin.read())
scope = {{}}
for i, source in enumerate(cells):
    exec(compile(source, f"<live cell {{i}}>", "exec"), scope)
print("ran", len(cells))
"""
SHOTS = os.environ.get("SITE_SCREENSHOTS")


def squash(text):
    return re.sub(r"\s+", "", text)


def test_chapters_have_widgets():
    assert LIVE, f"no chapter of {TOC} has a widget cell"


def test_chapters_have_exercises():
    assert CHAPTERS, f"no chapter of {TOC} has an exercise or a widget"


def _live(lang, chapter):
    path = SITE / "lite" / "files" / lang / f"{chapter}.ipynb"
    assert path.exists(), f"no live notebook {path}"
    return nbformat.read(path, as_version=4)


def _answer_boxes(live):
    """(index, the cell, its title, its answers) of each answer-box cell of a live notebook."""
    boxes = []
    for i, cell in enumerate(live.cells):
        if cell.cell_type == "code" and "exercise-check" in cell.metadata.get("tags", []):
            m = re.search(r"exercise_check\((.+?), (\{.*\}), LANG\)$", cell.source, re.S)
            assert m, cell.source[:200]
            boxes.append((i, cell, ast.literal_eval(m.group(1)), json.loads(m.group(2))))
    return boxes


def _glue(lang, chapter):
    build = SITE.parent / lang / "_build" / "jupyter_execute" / f"{chapter}.glue.json"
    return json.loads(build.read_text(encoding="utf-8"))


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_live_chapters_are_the_whole_chapter_with_only_pure_cells_to_run(strict_build, lang):
    """Each live chapter is the page's readable notebook; its code cells are the edition cell, the
    chapter's widget cells (same source, same order), the measured run's cell where the chapter
    reads a run, and one answer-box cell after each exercise; a figure of the page is an image."""
    from site_server import first_glued_number
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    for chapter in CHAPTERS:
        live = _live(lang, chapter)
        md = ROOT / "notebooks" / lang / f"{chapter}.md"
        source = jupytext.read(md)
        widgets = [c.source for c in lite.widget_cells(source)]
        code = [c.source for c in live.cells if c.cell_type == "code"]
        assert code[0].startswith(f'LANG = "{lang}"'), (chapter, code[0])
        assert [c for c in code if c in widgets] == widgets, chapter
        checks = [c for c in live.cells if c.cell_type == "code" and "exercise-check" in c.metadata.get("tags", [])]
        runs = [c for c in code if "MEASURED_RUN = measurements.RUN" in c]
        assert len(code) == 1 + len(widgets) + len(checks) + len(runs), (chapter, [c[:60] for c in code])
        assert len(runs) == ("MEASURED_RUN" in md.read_text(encoding="utf-8")), chapter
        text = "\n".join(c.source for c in live.cells if c.cell_type == "markdown")
        number = first_glued_number((SITE / lang / f"{chapter}.html").read_text(encoding="utf-8"))
        assert number in text, (chapter, number)
        assert not re.search(r"\{glue:|\{eq\}|\{numref\}|\{cite:|```\{", text), chapter
        assert "Run it live in your browser" not in text and "直接在浏览器里运行" not in text, chapter   # no link to itself
        images = len(re.findall(r'(?:\]\(|<img src=")data:image/(?:png|jpeg|gif);base64,', text))   # Markdown, or HTML with a width
        assert not any(c.get("attachments") for c in live.cells) and "attachment:" not in text, chapter
        figures = len(re.findall(r"\{glue:figure\}", md.read_text(encoding="utf-8")))
        assert images >= figures, (chapter, images, figures)


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_every_exercise_with_answers_has_boxes_graded_as_the_page_was_built(strict_build, lang):
    """One answer-box cell after each exercise whose answers the chapter glued, with the glued
    answers; each answer typed back as the feedback writes it is graded right, and a value ten
    times too large is not."""
    from infra_lib.exercises import ANSWER_KEY_SUFFIX
    from infra_lib.widgets import exercise_check as ec
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    total = 0
    for chapter in CHAPTERS:
        live, glue = _live(lang, chapter), _glue(lang, chapter)
        glued = {k.removesuffix(ANSWER_KEY_SUFFIX): json.loads(ast.literal_eval(v["data"]["text/plain"]))
                 for k, v in glue.items() if k.endswith(ANSWER_KEY_SUFFIX)}
        found = {}
        for i, _, title, answers in _answer_boxes(live):
            before = live.cells[i - 1]
            found[before.metadata["course"]["exercise"].replace("-", "_")] = answers
            assert before.metadata["course"]["title"] == title and title in before.source, before.source[:200]
        assert found == glued, (chapter, sorted(found), sorted(glued))
        for key, answers in found.items():
            for name, a in answers.items():
                total += 1
                typed = ec.answer_text(answers, name, lang)
                assert ec.check(answers, name, typed, lang).correct, (key, name, typed)
                if isinstance(a["value"], (int, float)) and a["value"]:
                    wrong = f"{a['value'] * 10!r} {a['unit'] if a['unit'] != 'fraction' else ''}".strip()
                    assert not ec.check(answers, name, wrong, lang).correct, (key, name, wrong)
    assert total >= 2 * len(CHAPTERS), total
    print(f"{lang}: {total} exercise answers graded right when typed back")


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_live_chapters_run_without_numpy_or_matplotlib(strict_build, lang):
    """Run All in the browser runs exactly these code cells: run them, in order, in a Python in which
    numpy, matplotlib and myst-nb cannot be imported (a name a cell needs from a cell that is not
    there, such as MEASURED_RUN, fails here too)."""
    import subprocess
    import sys
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    for chapter in CHAPTERS:
        code = [c.source for c in _live(lang, chapter).cells if c.cell_type == "code"]
        run = subprocess.run([sys.executable, "-c", RUN_CELLS.format(blocked=BLOCKED)], input=json.dumps(code),
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0 and run.stdout.strip() == f"ran {len(code)}", (chapter, run.stderr[-3000:])


def _one_link_to_the_live_notebook(page, html, pattern, lang, chapter):
    """The page has one link matching ``pattern``, to the live notebook of ``lang``/``chapter``."""
    links = re.findall(pattern, html)
    assert len(links) == 1, (page, links)
    target, _, query = links[0].partition("?")
    assert (page.parent / target).resolve() == (SITE / "lite" / "notebooks" / "index.html").resolve()
    assert query == f"path={lang}/{chapter}.ipynb"


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_header_has_a_live_button_to_the_live_chapter(strict_build, lang):
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    for chapter in CHAPTERS:
        page = SITE / lang / f"{chapter}.html"
        html = page.read_text(encoding="utf-8")
        _one_link_to_the_live_notebook(page, html, r'<a class="btn btn-sm course-live-button" href="([^"]+)"',
                                       lang, chapter)


@pytest.mark.build
def test_the_live_site_loads_only_the_extensions_it_uses(strict_build):
    """The widgets and the Pyodide kernel, and not jupytext's extension (the build's, in .venv): the
    app fetches and starts every extension listed before it opens the notebook."""
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    config = json.loads((SITE / "lite" / "jupyter-lite.json").read_text(encoding="utf-8"))
    names = {e["name"] for e in config["jupyter-config-data"]["federated_extensions"]}
    assert {"@jupyter-widgets/jupyterlab-manager", "@jupyterlite/pyodide-kernel-extension"} <= names, names
    assert not names & set(lite.UNUSED_EXTENSIONS), names
    assert not [n for n in lite.UNUSED_EXTENSIONS if (SITE / "lite" / "extensions" / n).exists()]
    schemas = json.loads((SITE / "lite" / "build" / "schemas" / "all_federated.json").read_text(encoding="utf-8"))
    assert not [s["id"] for s in schemas if s["id"].split(":")[0] in lite.UNUSED_EXTENSIONS]
    assert "@jupyter-widgets/jupyterlab-manager:plugin" in [s["id"] for s in schemas]


def test_drop_extensions_removes_the_named_ones_and_keeps_the_rest(tmp_path):
    entries = [{"name": n, "load": "static/remoteEntry.js"} for n in ("keep-me", "jupyterlab-jupytext")]
    (tmp_path / "jupyter-lite.json").write_text(json.dumps({"jupyter-config-data": {"federated_extensions": entries}}))
    for e in entries:
        (tmp_path / "extensions" / e["name"] / "static").mkdir(parents=True)
    (tmp_path / "build" / "schemas").mkdir(parents=True)
    (tmp_path / "build" / "schemas" / "all_federated.json").write_text(json.dumps(
        [{"id": "jupyterlab-jupytext:plugin"}, {"id": "keep-me:plugin"}]))
    assert lite.drop_extensions(tmp_path) == ["jupyterlab-jupytext"]
    assert json.loads((tmp_path / "build" / "schemas" / "all_federated.json").read_text()) == [{"id": "keep-me:plugin"}]
    config = json.loads((tmp_path / "jupyter-lite.json").read_text())
    assert [e["name"] for e in config["jupyter-config-data"]["federated_extensions"]] == ["keep-me"]
    assert sorted(p.name for p in (tmp_path / "extensions").iterdir()) == ["keep-me"]


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_explore_box_links_to_the_live_notebook(strict_build, lang):
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    for chapter in LIVE:
        page = SITE / lang / f"{chapter}.html"
        html = page.read_text(encoding="utf-8")
        _one_link_to_the_live_notebook(page, html, r'<a class="[^"]*course-live-link[^"]*" href="([^"]+)"',
                                       lang, chapter)
        text = squash(text_of(html))
        assert squash("make serve") in text and "HTTP" in text, page


def _local_only_boxes(html):
    """The inside of each box of class local-only of a page (or an EPUB chapter)."""
    return re.findall(r'<div class="[^"]*\blocal-only\b[^"]*">(.*?)</div>', html, re.S)


def _paragraphs(box):
    """The paragraphs of a box, as text without spaces (its title left out)."""
    return [squash(text_of(p)) for p in re.findall(r"<p\b(?![^>]*admonition-title)[^>]*>.*?</p>", box, re.S)]


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_explore_box_says_where_its_widget_runs_only_where_that_is_true(strict_build, lang):
    """On the website the box opens with "this page is static" and where the widget runs (the Live
    button, the .ipynb button, how to run it, linked); in the e-book with "an e-book runs no Python";
    in the readable notebook and the live chapter, where the widget does run, with neither."""
    import zipfile
    import course_ext          # book/ext (pythonpath in pyproject.toml)
    from course import NAME
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    with zipfile.ZipFile(SITE / "downloads" / f"{NAME}-{lang}.epub") as z:
        epub = {Path(n).stem: z.read(n).decode("utf-8") for n in z.namelist() if n.endswith(".xhtml")}
    with_box = [c for c in lite.chapters(TOC) if "local-only" in (ROOT / "notebooks" / "en" / f"{c}.md").read_text(encoding="utf-8")]
    kinds = {c: "checker" if lite.has_quiz(ROOT / "notebooks" / "en" / f"{c}.md") else "sliders" for c in with_box}
    assert "sliders" in kinds.values() and "checker" in kinds.values(), kinds   # the chapters' and the review's
    for chapter in with_box:
        for builder, html in (("html", (SITE / lang / f"{chapter}.html").read_text(encoding="utf-8")),
                              ("epub", epub[chapter])):
            before, text, after = course_ext.WHERE_IT_RUNS[(builder, lang, kinds[chapter])]
            boxes = _local_only_boxes(html)
            assert boxes, (builder, chapter, "no box of class local-only")
            for box in boxes:
                assert _paragraphs(box)[0] == squash(before + text + after), (builder, chapter, _paragraphs(box)[0][:200])
                link = re.search(r'<a class="reference internal" href="(run-it-yourself\.x?html)">', box)
                assert link, (builder, chapter, "the box does not link how to run it")
        for notebook in (SITE / lang / f"{chapter}.ipynb", SITE / "lite" / "files" / lang / f"{chapter}.ipynb"):
            text = squash("".join(c.source for c in nbformat.read(notebook, as_version=4).cells
                                  if c.cell_type == "markdown"))
            for (builder, edition, _), (before, _, _) in course_ext.WHERE_IT_RUNS.items():
                assert squash(before[:30]) not in text, (notebook, builder, before[:30])
            assert "Thepageitselfisstatic" not in text and "网页本身是静态的" not in text, notebook


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_live_widget_runs_offline_and_matches_cpython(strict_build, browser, lang):
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    chapter = "03_gpu" if "03_gpu" in LIVE else LIVE[0]
    panel = explore_panel((SITE / "lite" / "files" / lang / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    slider, want_before, want_after = moving_slider(panel, lang)
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


@pytest.mark.build
def test_a_second_live_chapter_in_the_same_browser_runs_cleanly(strict_build, browser):
    """A reader who opens one live chapter, then another: the second starts its own Python (each
    page is its own JupyterLite app) from the browser's cache, with no error. (Its page asked the
    site's root for /favicon.ico, a 404, before the site had one: when it asks depends on when
    JupyterLab swaps its busy icon, so the file itself is checked by test_site.)"""
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    first, second = LIVE[0], ("03_gpu" if "03_gpu" in LIVE[1:] else LIVE[-1])
    with SiteServer(SITE) as server:
        context = live_context(browser)
        try:
            runs = []
            for chapter in (first, second):
                panel = explore_panel((SITE / "lite" / "files" / "en" / f"{chapter}.ipynb").read_text(encoding="utf-8"))
                slider, _, want_after = moving_slider(panel, "en")
                runs.append(run_live(browser, server, f"en/{chapter}.ipynb", slider=slider, context=context))
                assert squash(runs[-1].after) == squash(want_after), chapter
        finally:
            context.close()
    for chapter, run in zip((first, second), runs):
        assert (run.blocked, run.failed, run.errors) == ([], [], []), (chapter, run.blocked, run.failed, run.errors)
        print(f"en/{chapter}: page opened to sliders {run.kernel_s + run.cells_s:.1f} s")


@pytest.mark.build
@pytest.mark.parametrize("lang", EDITIONS)
def test_live_chapter_grades_an_exercise_right_and_wrong(strict_build, browser, lang):
    """In Chromium, offline: Run All in a live chapter, then the first exercise's first box takes
    the answer as the feedback writes it (graded right) and ten times it (graded wrong)."""
    from infra_lib.widgets import exercise_check as ec
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    chapter = "03_gpu" if "03_gpu" in CHAPTERS else CHAPTERS[0]
    answers = _answer_boxes(_live(lang, chapter))[0][3]
    name, key = next((n, a) for n, a in answers.items() if isinstance(a["value"], (int, float)) and a["value"])
    right = ec.answer_text(answers, name, lang)
    wrong = ec.answer_text({name: {**key, "value": key["value"] * 10}}, name, lang)
    with SiteServer(SITE) as server:
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        blocked, errors = [], []
        context.route("**/*", lambda r: r.continue_() if server.is_local(r.request.url)
                      else (blocked.append(r.request.url), r.abort()))
        page = context.new_page()
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        try:
            page.goto(server.url(f"lite/notebooks/index.html?path={lang}/{chapter}.ipynb"))
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status=idle]", timeout=180_000)
            page.locator("li.lm-MenuBar-item[role=menuitem]", has_text=re.compile(r"^\s*Run\s*$")).click(timeout=60_000)
            page.click('li[data-command="runmenu:run-all"]', timeout=60_000)
            box = page.locator(".jp-CodeCell", has_text="exercise_check").first
            field = box.locator(".widget-text input").first
            field.wait_for(timeout=180_000)
            verdicts = []
            for typed in (right, wrong):
                field.fill(typed)
                box.locator(".widget-button").first.click()
                feedback = box.locator(".widget-html-content", has_text=re.compile("✓|✗")).first
                page.wait_for_function("([el, t]) => el.innerText.includes(t)",
                                       arg=[feedback.element_handle(), "✓" if typed == right else "✗"], timeout=30_000)
                verdicts.append(feedback.inner_text())
            if SHOTS:
                page.screenshot(path=str(Path(SHOTS) / f"lite-{lang}-{chapter}-exercise.png"))
        finally:
            context.close()
    assert blocked == [] and errors == [], (blocked[:3], errors[:3])
    assert verdicts[0].startswith("✓") and verdicts[1].startswith("✗"), verdicts
    print(f"{lang}/{chapter}: {right!r} -> {verdicts[0]}; {wrong!r} -> {verdicts[1]}")
