"""The review chapter's question bank (infra_lib/review.py), its pages and its quiz widget.

Every numeric answer is recomputed from the question's own parameters and graded right by the
checker in the forms a reader types; ids are unique and the same in both editions; every question
links to a section label that exists (or, for chapters whose pages are not linked yet, names one
the lead is to add); the generated pages are up to date with the bank; the widget builds.
"""
import random
import re
import subprocess
import sys

import pytest

import prose
from infra_lib import answers, review
from infra_lib.exercises import Answer
from infra_lib.widgets import quiz

sys.path.insert(0, str(prose.ROOT / "book" / "tools"))
import make_review  # noqa: E402

IDS = [q.id for q in review.QUESTIONS]
NUMERIC = [q for q in review.QUESTIONS if q.numeric]
PAGE = {lang: prose.ROOT / f"notebooks/{lang}/10_review.md" for lang in prose.EDITIONS}
# Section labels the bank names in chapters whose pages do not carry them yet: the lead adds these
# (one line "(label)=" above the section's heading in both editions) and then adds the chapter to
# make_review.LINKED.
PENDING_LABELS: set[str] = set()   # labels of chapters not written yet (none now)


def test_enough_questions_everywhere():
    assert len(review.QUESTIONS) >= 60
    for chapter in review.CHAPTERS:
        qs = review.chapter_questions(chapter)
        assert len(qs) >= 5, chapter
        assert any(q.numeric for q in qs) and any(not q.numeric for q in qs), chapter
    assert sum(q.flip for q in review.QUESTIONS) >= 8
    assert {q.kind for q in review.QUESTIONS} == {"interview", "self-check"}


def test_ids_are_unique_and_named_for_their_chapter():
    assert len(set(IDS)) == len(IDS)
    for q in review.QUESTIONS:
        assert re.fullmatch(rf"ch10_{q.chapter}_q\d+", q.id), q.id


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
    for q in review.QUESTIONS:
        if q.options is None:
            continue
        letter = "abc"[q.correct]
        assert quiz.check(q.id, letter, "en").correct and quiz.check(q.id, letter.upper(), "zh").correct
        assert not quiz.check(q.id, "abc"[(q.correct + 1) % 3], "en").correct


def test_templates_name_the_same_fields_in_both_languages():
    for q in review.QUESTIONS:
        for part in ("text", "hint", "solution"):
            fields = [{m.group(1) for m in review.FIELD.finditer(getattr(q, part)[lang]) if m.group(1)}
                      for lang in ("en", "zh")]
            assert fields[0] == fields[1], (q.id, part, fields[0] ^ fields[1])


def _labels():
    found = set()
    for path in (prose.ROOT / "notebooks" / "en").glob("*.md"):
        found |= set(prose.LABEL.findall(path.read_text(encoding="utf-8")))
    return found


def test_each_question_links_to_a_section_that_exists():
    labels = _labels()
    for q in review.QUESTIONS:
        if q.chapter in make_review.LINKED:
            assert q.section in labels, f"{q.id}: no label ({q.section})= in the English chapters"
        else:
            assert q.section in labels | PENDING_LABELS, f"{q.id}: {q.section} is neither a label nor pending"
            assert q.section.startswith(q.chapter + "-"), q.id
    # the Chinese twins carry the same labels
    for chapter in make_review.LINKED:
        name = make_review.CHAPTER_FILES[chapter] if hasattr(make_review, "CHAPTER_FILES") else review.CHAPTER_FILES[chapter]
        en = set(prose.LABEL.findall((prose.ROOT / f"notebooks/en/{name}.md").read_text(encoding="utf-8")))
        zh = set(prose.LABEL.findall((prose.ROOT / f"notebooks/zh/{name}.md").read_text(encoding="utf-8")))
        assert en == zh, (name, en ^ zh)


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
    for qid in ("ch10_ov_q1", "ch10_ov_q5"):
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
    assert "Hint" not in quiz.feedback_html("ch10_ov_q1", right, "en")
    assert "Hint" in quiz.feedback_html("ch10_ov_q1", wrong, "en") and "提示" in quiz.feedback_html("ch10_ov_q1", wrong, "zh")
    assert quiz.question_html("ch10_ov_q1", "en", 3) != quiz.question_html("ch10_ov_q1", "en", 0)
    assert quiz.question_html("ch10_ov_q1", "en", 3) == quiz.question_html("ch10_ov_q1", "en", 3)   # a seed reproduces


def test_a_question_must_be_consistent():
    with pytest.raises(ValueError):
        review.Question("x", "ov", "ov-start", "interview", {"en": "a"}, {"en": "h", "zh": "h"}, {"en": "s", "zh": "s"},
                        options={"en": ("a",), "zh": ("a",)})
    with pytest.raises(ValueError):
        review.Question("x", "ov", "ov-start", "interview", {"en": "a", "zh": "a"}, {"en": "h", "zh": "h"},
                        {"en": "s", "zh": "s"})
    assert review.Question("x", "ov", "ov-start", "self-check", {"en": "a", "zh": "a"}, {"en": "h", "zh": "h"},
                           {"en": "s", "zh": "s"}, options={"en": ("a", "b"), "zh": ("甲", "乙")}, correct=1)
    assert Answer  # imported for the checker's forms above
