"""The review chapter's question bank (infra_lib/review/), its pages and its quiz widget.

Every numeric answer is recomputed from the question's own parameters and graded right by the
checker in the forms a reader types; ids are unique and the same in both editions; every question
links to a section label that exists; every bank module tests a chapter _toc.yml lists; importing
the bank reads nothing from the registry (the page builds it after ``sources.reset()``, so its
Sources list what it read); the chapter numbers the page prints are the chapters' places in
_toc.yml, as book/ext/course_ext.py numbers them; the generated pages are up to date with the
bank; the widget builds.
"""
import importlib
import pkgutil
import random
import re
import subprocess
import sys

import pytest
import yaml

import make_review
import prose
from infra_lib import answers, review
from infra_lib.widgets import quiz

import course_ext

QUESTIONS = review.questions()
IDS = [q.id for q in QUESTIONS]
NUMERIC = [q for q in QUESTIONS if q.numeric]


def toc_stems():
    """The series' chapter files in _toc.yml, in order (read here, not through make_review)."""
    toc = yaml.safe_load((prose.ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return [c["file"].removeprefix("notebooks/en/") for part in toc["parts"] for c in part["chapters"]
            if c["file"].startswith("notebooks/en/")]


REVIEW_STEM = next(s for s in toc_stems() if s.endswith("_review"))
PAGE = {lang: prose.ROOT / f"notebooks/{lang}/{REVIEW_STEM}.md" for lang in prose.EDITIONS}


def test_enough_questions_everywhere():
    assert len(QUESTIONS) >= 60
    for chapter in review.chapters():
        qs = review.chapter_questions(chapter)
        assert len(qs) >= 5, chapter
        assert any(q.numeric for q in qs) and any(not q.numeric for q in qs), chapter
    assert sum(q.flip for q in QUESTIONS) >= 8
    assert {q.kind for q in QUESTIONS} == {"interview", "self-check"}


def test_ids_are_unique_and_named_for_their_chapter():
    assert len(set(IDS)) == len(IDS)
    for q in QUESTIONS:
        assert re.fullmatch(rf"rv_{q.chapter}_q\d+", q.id), q.id


def bank_modules():
    return [importlib.import_module(f"infra_lib.review.{m.name}") for m in pkgutil.iter_modules(review.__path__)
            if m.name != "core"]


def test_every_bank_module_tests_a_chapter_of_the_toc():
    stems = toc_stems()
    modules = bank_modules()
    assert len(modules) >= 10 and len(modules) == len(review.chapters())
    for m in modules:
        assert m.FILE in stems, f"{m.__name__} tests {m.FILE}, which _toc.yml does not list"
        assert m.FILE != REVIEW_STEM, f"{m.__name__}: the review has no questions about itself"
        assert m.__name__.rsplit(".", 1)[1] == m.FILE.split("_", 1)[1], f"{m.__name__}: name it for its chapter's slug"
        assert {q.chapter for q in m.questions()} == {m.KEY}, m.__name__
    assert list(review.chapter_files().values()) == [s for s in stems if s in review.chapter_files().values()]


def test_importing_the_review_reads_nothing_from_the_registry():
    code = ("from infra_lib import hardware as hw\n"
            "import infra_lib.review as review, infra_lib.widgets.quiz\n"
            "on_import = len(hw.used_specs())\n"
            "review.chapters()\n"
            "found = len(hw.used_specs())\n"
            "review.questions()\n"
            "print(on_import, found, len(hw.used_specs()))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=prose.ROOT)
    assert run.returncode == 0, run.stderr
    on_import, found, built = map(int, run.stdout.split())
    assert on_import == 0, "importing infra_lib.review read the registry"
    assert found == 0, "finding the bank modules read the registry"
    assert built > 0, "building the bank read nothing: the recorder this test relies on sees nothing"


def test_the_page_lists_the_banks_registry_reads_in_its_sources():
    """The page's cells run up to its Sources: the specs recorded since its sources.reset() are the bank's."""
    cells = re.findall(r"^```\{code-cell\} ipython3\n:tags: \[([^\]]*)\]\n\n(.*?)^```$", PAGE["en"].read_text(encoding="utf-8"),
                       re.M | re.S)
    code = "\n".join(src for tags, src in cells if "skip-execution" not in tags and "sources.show" not in src)
    run = subprocess.run([sys.executable, "-c", "from infra_lib import glue, hardware as hw\nglue.FOR_MYST_NB = False\n"
                          + code + "\nprint(sorted(f'{s.device}.{s.name}' for s in hw.used_specs()))"],
                         capture_output=True, text=True, cwd=prose.ROOT)
    assert run.returncode == 0, run.stderr
    listed = set(eval(run.stdout))
    assert {"h100_sxm5.mem_bw_Bps", "h200_sxm.mem_bw_Bps", "gh100_die.area_mm2", "teaching_request.n_params",
            "leading_edge_fab.wafer_diameter_mm", "h100_sxm5.tensor_flop_per_clock_per_sm"} <= listed, listed
    assert "noqa: E402" not in "\n".join(src for _, src in cells), "the imports cell imports after code again"


def test_the_chapter_numbers_in_the_page_are_their_places_in_the_toc():
    stems, files = toc_stems(), review.chapter_files()
    review_number = int(course_ext.CHAPTER.match(f"notebooks/en/{REVIEW_STEM}").group(1))
    assert review_number == stems.index(REVIEW_STEM), "course_ext numbers the review's exercises by another number"
    assert make_review.review_chapter(make_review.toc_chapters()).number == review_number
    words = {"en": r"Chapter (\d+): (.+)", "zh": r"第 (\d+) 章：(.+)"}
    for lang, path in PAGE.items():
        text = path.read_text(encoding="utf-8")
        headings = [h for h in re.findall(r"^\(rv-(\w+)\)=\n## (.+)$", text, re.M) if h[0] != "sources"]
        assert [key for key, _ in headings] == [k for k in sorted(files, key=lambda k: stems.index(files[k]))]
        for key, heading in headings:
            stem = files[key]
            title = prose.ROOT.joinpath(f"notebooks/{lang}/{stem}.md").read_text(encoding="utf-8")
            title = re.search(r"^# (.+)$", title, re.M).group(1)
            m = re.fullmatch(words[lang], heading)
            if stems.index(stem) == 0:
                assert m is None and heading == title, (lang, heading)      # the overview: unnumbered
                continue
            assert m, (lang, heading)
            assert int(m.group(1)) == stems.index(stem) == int(course_ext.CHAPTER.match(f"notebooks/en/{stem}").group(1))
            assert title.startswith(m.group(2)), (lang, heading, title)


def test_a_toc_whose_order_disagrees_with_the_file_numbers_is_refused(tmp_path):
    toc = yaml.safe_load((prose.ROOT / "_toc.yml").read_text(encoding="utf-8"))
    series = toc["parts"][0]["chapters"]
    series[1], series[2] = series[2], series[1]
    moved = tmp_path / "_toc.yml"
    moved.write_text(yaml.safe_dump(toc), encoding="utf-8")
    with pytest.raises(ValueError, match="must start with 01_"):
        make_review.toc_chapters(moved)
    assert [c.number for c in make_review.toc_chapters()] == list(range(len(toc_stems())))


@pytest.mark.parametrize("q", NUMERIC, ids=[q.id for q in NUMERIC])
def test_every_numeric_answer_is_the_librarys_and_the_checker_accepts_it(q):
    ex = q.exercise
    expected = q.expected()
    assert expected.numeric and expected.value == ex.answers()[q.answer].value
    # recomputed from the parameters, not stored: a variant with other parameters gives another answer
    drawn = [ex.draw(random.Random(seed)) for seed in range(1, 6)]
    if any(p.drawable and p.low != p.high for p in ex.parameters().values()):
        assert any(q.expected(d).value != expected.value for d in drawn), f"{q.id}: the answer ignores its parameters"
    for exercise in [ex, *drawn]:
        a = q.expected(exercise)
        value = float(a.value)
        assert answers.grade(repr(value), a).correct, (q.id, value)
        assert answers.grade(f"{value:.6g}", a, "zh").correct, (q.id, value)
        if a.unit and answers.answer_unit(a.unit)[0] not in (None, "count", "fraction", "ratio"):
            assert answers.grade(f"{value:.6g} {a.unit}", a).correct, (q.id, a.unit)
        assert not answers.grade(repr(value * 1.5 + 1), a).correct
        assert quiz.check(q.id, f"{value:.6g}", "en", 0 if exercise is ex else 1).status in ("right", "wrong_number")
    for lang in ("en", "zh"):
        for part in ("text", "hint", "solution"):
            review.fill(getattr(q, part)[lang], review.values_of(ex))


def test_multiple_choice_answers_grade():
    for q in QUESTIONS:
        if q.options is None:
            continue
        letter = "abc"[q.correct]
        assert quiz.check(q.id, letter, "en").correct and quiz.check(q.id, letter.upper(), "zh").correct
        assert not quiz.check(q.id, "abc"[(q.correct + 1) % 3], "en").correct


def test_templates_name_the_same_fields_in_both_languages():
    for q in QUESTIONS:
        for part in ("text", "hint", "solution"):
            fields = [{m.group(1) for m in review.FIELD.finditer(getattr(q, part)[lang]) if m.group(1)}
                      for lang in ("en", "zh")]
            assert fields[0] == fields[1], (q.id, part, fields[0] ^ fields[1])


def _labels(lang, stem="*"):
    found = set()
    for path in (prose.ROOT / "notebooks" / lang).glob(f"{stem}.md"):
        found |= set(prose.LABEL.findall(path.read_text(encoding="utf-8")))
    return found


def test_each_question_links_to_a_section_that_exists():
    labels = _labels("en")
    for q in QUESTIONS:
        assert q.section in labels, f"{q.id}: no label ({q.section})= in the English chapters"
        assert q.section in _labels("en", review.chapter_files()[q.chapter]), f"{q.id}: {q.section} is in another chapter"
    for stem in review.chapter_files().values():       # the Chinese twins carry the same labels
        en, zh = _labels("en", stem), _labels("zh", stem)
        assert en == zh, (stem, en ^ zh)


def test_pages_are_generated_from_the_bank():
    run = subprocess.run([sys.executable, str(prose.ROOT / "book/tools/make_review.py"), "--check"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_both_editions_have_every_question_with_a_widget_and_a_folded_solution():
    for lang, path in PAGE.items():
        text = path.read_text(encoding="utf-8")
        labels = re.findall(r"^```\{exercise\}[^\n]*\n:label: (\S+)", text, re.M)
        solutions = re.findall(r"^```\{solution\} (\S+)\n:class: dropdown$", text, re.M)
        widgets = re.findall(r'^quiz\("(\w+)", LANG\)$', text, re.M)
        assert labels == solutions == [i.replace("_", "-") for i in IDS], lang
        assert widgets == IDS, lang
        assert text.count(":tags: [remove-input, remove-output, skip-execution]") == len(IDS)


def test_editions_are_twins():
    problems = prose.parity_problems(PAGE["en"], PAGE["zh"])
    assert not problems, "\n".join(problems)


def test_prose_has_no_typed_numbers():
    problems = [p for lang in prose.EDITIONS for p in prose.check_page(PAGE[lang])]
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_widget_builds_and_new_variant_recomputes(lang):
    pytest.importorskip("ipywidgets")
    for qid in ("rv_ov_q1", "rv_ov_q5"):
        box = quiz.quiz(qid, lang)
        prompt, row, out = box.children
        text, check = row.children[0], row.children[1]
        text.value = "nonsense"
        check.click()
        assert "✗" in out.value
        if len(row.children) > 2:
            new, seed = row.children[2], row.children[3]
            before = prompt.value
            new.click()
            assert seed.value > 0 and prompt.value != before
            expected = review.by_id(qid).expected(quiz.variant(qid, seed.value))
            text.value = f"{float(expected.value):.6g}"
            check.click()
            assert "✓" in out.value


def test_quiz_hint_only_when_wrong():
    right = answers.Verdict(True, "right", "ok")
    wrong = answers.Verdict(False, "wrong_number", "no")
    assert "Hint" not in quiz.feedback_html("rv_ov_q1", right, "en")
    assert "Hint" in quiz.feedback_html("rv_ov_q1", wrong, "en") and "提示" in quiz.feedback_html("rv_ov_q1", wrong, "zh")
    assert quiz.question_html("rv_ov_q1", "en", 3) != quiz.question_html("rv_ov_q1", "en", 0)
    assert quiz.question_html("rv_ov_q1", "en", 3) == quiz.question_html("rv_ov_q1", "en", 3)   # a seed reproduces


def test_a_question_must_be_consistent():
    texts = {"en": "a", "zh": "a"}, {"en": "h", "zh": "h"}, {"en": "s", "zh": "s"}
    with pytest.raises(ValueError):
        review.Question("x", "ov", "ov-start", "interview", {"en": "a"}, texts[1], texts[2],
                        options={"en": ("a",), "zh": ("a",)})
    with pytest.raises(ValueError):
        review.Question("x", "ov", "ov-start", "interview", *texts)
    with pytest.raises(ValueError, match="chapter"):       # a chapter without a bank module
        review.Question("x", "ch99", "ov-start", "interview", *texts, options={"en": ("a", "b"), "zh": ("甲", "乙")})
    assert review.Question("x", "ov", "ov-start", "self-check", *texts, options={"en": ("a", "b"), "zh": ("甲", "乙")},
                           correct=1)
