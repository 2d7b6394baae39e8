"""The review chapter live in the browser (site/lite, book/tools/lite.py), in each edition.

    COURSE_BUILD_DIR=/tmp/b COURSE_SITE_PREBUILT=1 .venv/bin/python -m pytest tests/test_live_review.py

In Chromium, with every request outside 127.0.0.1 blocked: the live review notebook opens, the
kernel starts, Run All builds the scoreboard and a quiz per question; one question answered right
says right (✓, in the edition's words), one answered wrong says wrong (✗) with the hint folded;
the scoreboard counts one right of two answered; nothing left the machine or logged an error.
The answers typed are the library's own (CPython here), not copied numbers.
"""
import os
import re
import time
from pathlib import Path

import pytest

import lite  # book/tools/lite.py
from course import TOC
from infra_lib import review
from infra_lib.widgets import quiz
from live_browser import CELLS_TIMEOUT_MS, KERNEL_TIMEOUT_MS, UI_TIMEOUT_MS, run_all
from site_server import EDITIONS, SITE, SiteServer

pytestmark = [pytest.mark.site, pytest.mark.build, pytest.mark.xdist_group("site")]
ROOT = Path(__file__).resolve().parents[1]
SHOTS = os.environ.get("SITE_SCREENSHOTS")
REVIEW = next((c for c in lite.chapters(TOC) if c.endswith("_review")), None)
ALL_CELLS_TIMEOUT_MS = 300_000   # Run All -> the last of the quizzes (about 90) built
RIGHT = {"en": "Right", "zh": "正确"}
WRONG = {"en": "Not quite", "zh": "不对"}


def test_the_review_has_a_live_notebook_in_each_edition(strict_build):
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    assert REVIEW, f"no NN_review chapter in {TOC}"
    for lang in EDITIONS:
        text = (SITE / "lite" / "files" / lang / f"{REVIEW}.ipynb").read_text(encoding="utf-8")
        assert re.findall(r'quiz\(\\"(\w+)\\", LANG\)', text) == [q.id for q in review.questions()], lang
        page = (SITE / lang / f"{REVIEW}.html").read_text(encoding="utf-8")
        assert f"path={lang}/{REVIEW}.ipynb" in page, lang


@pytest.mark.parametrize("lang", EDITIONS)
def test_live_review_grades_right_and_wrong_offline(strict_build, browser, lang):
    assert strict_build.returncode == 0, "the build failed:\n" + strict_build.summary()
    first, second = review.questions()[0], review.questions()[1]
    right = quiz.answer_text(first.id, lang).split(" ")[0] if first.numeric else "abc"[first.order(0).index(first.correct)]
    key = float(quiz.expected(second.id).value) if second.numeric else None
    wrong = f"{key * 3:.6g}" if key is not None else "abc"[(second.order(0).index(second.correct) + 1) % 3]
    blocked, errors, missing = [], [], []
    with SiteServer(SITE) as server:
        context = browser.new_context(viewport={"width": 1200, "height": 900})

        def route(r):
            if server.is_local(r.request.url):
                r.continue_()
            else:
                blocked.append(r.request.url)
                r.abort()
        context.route("**/*", route)
        page = context.new_page()
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("response", lambda r: r.status >= 400 and missing.append(f"{r.status} {r.url}"))
        try:
            start = time.perf_counter()
            page.goto(server.url(f"lite/notebooks/index.html?path={lang}/{REVIEW}.ipynb"))
            page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=UI_TIMEOUT_MS)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status=idle]", timeout=KERNEL_TIMEOUT_MS)
            run_all(page)                  # clicked again if the first click is lost (a session still starting)
            starts = page.locator("button", has_text=re.compile(rf"^\s*{re.escape(quiz.WORDS[lang]['start'])}\s*$"))
            n = len(review.questions())
            starts.nth(n - 1).wait_for(timeout=ALL_CELLS_TIMEOUT_MS)     # every question shown: the kernel is free
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status=idle]", timeout=KERNEL_TIMEOUT_MS)
            cold_s = time.perf_counter() - start
            boxes = page.locator(".widget-text input[type=text]")     # not the seed (a number box)
            for i in range(2):              # the first two questions: their controls are built on the click
                starts.first.click()
                boxes.nth(i).wait_for(timeout=CELLS_TIMEOUT_MS)
            checks = page.locator("button", has_text=re.compile(quiz.t("ch10_quiz_check", lang)))
            for i, typed in ((0, right), (1, wrong)):
                boxes.nth(i).fill(typed)
                boxes.nth(i).press("Enter")
                checks.nth(i).click()
            verdicts = page.locator(".widget-html-content", has_text=re.compile("[✓✗]"))
            page.wait_for_function("n => document.querySelectorAll('.widget-html-content').length >= n", arg=3)
            verdicts.nth(1).wait_for(timeout=CELLS_TIMEOUT_MS)
            texts = [verdicts.nth(i).inner_text() for i in range(2)]
            board = page.locator(".widget-html-content", has_text=quiz.WORDS[lang]["score"]).first
            page.wait_for_function("el => /\\b1\\b/.test(el.innerText)", arg=board.element_handle(), timeout=10_000)
            score = board.inner_text()
            if SHOTS:
                page.screenshot(path=str(Path(SHOTS) / f"live-review-{lang}.png"), full_page=False)
        finally:
            context.close()
    assert blocked == [], blocked[:5]
    # the one miss allowed: the progress file, looked for before the first answer writes it
    missing = [m for m in missing if not m.endswith(f"/{quiz.PROGRESS_FILE}")]
    assert missing == [], missing[:5]
    errors = [e for e in errors if not (e.startswith("Failed to load resource") and "404" in e)]   # (checked above)
    assert errors == [], errors[:5]
    assert "✓" in texts[0] and RIGHT[lang] in texts[0], texts[0]
    assert "✗" in texts[1] and WRONG[lang] in texts[1] and quiz.t("ch10_quiz_hint", lang) in texts[1], texts[1]
    total = quiz.WORDS[lang]["total"]
    line = next(x for x in score.splitlines() if x.startswith(total))
    assert re.sub(r"\s+", " ", line).endswith(f"2 of {len(review.questions())} 1 of {len(review.questions())}"
                                               if lang == "en" else f"2/{len(review.questions())} 1/{len(review.questions())}"), line
    print(f"{lang}: live review ready for answers (cold start) {cold_s:.1f} s")
