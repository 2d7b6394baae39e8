"""The review chapter's question bank (infra_lib/review/), its pages and its quiz widget.

Every numeric answer is recomputed from the question's own parameters and graded right by the
checker in the forms a reader types; ids are unique and the same in both editions; every question
links to a section label that exists; every bank module tests a chapter _toc.yml lists; importing
the bank reads nothing from the registry (the page builds it after ``sources.reset()``, so its
Sources list what it read); the chapter numbers the page prints are the chapters' places in
_toc.yml, as book/ext/course_ext.py numbers them; the generated pages are up to date with the
bank; the widget builds.
"""
import html
import importlib
import math
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
    review_number = int(course_ext.CHAPTER.match(REVIEW_STEM).group(1))
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
            assert int(m.group(1)) == stems.index(stem) == int(course_ext.CHAPTER.match(stem).group(1))
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


SEEDS = range(300)          # variants per question: seed 0 is the book's, the others drawn
LANGS = ("en", "zh")
COUNTS = {"numeric": 0, "choice": 0}      # question × seed × language combinations checked, printed at the end


def _read_shown(shown):
    """The number a format spec printed ("1,830", "12.5%"), as a reader reads it."""
    shown = shown.replace(",", "")
    return float(shown[:-1]) / 100 if shown.endswith("%") else float(shown)


def _displayed(q, ex, lang):
    """Every parameter the question's text shows, read back from the text as printed, in the units
    solve takes (so the answer computed from them is what a reader computes from the screen)."""
    out = {}
    for m in review.FIELD.finditer(q.text[lang]):
        name, spec = m.group(1), m.group(2) or ""
        if name in ex.params:
            p = ex.parameters()[name]
            value = _read_shown(format(p.shown, spec)) * p.scale
            out[name] = int(round(value)) if p.integer else value
    return out


def _printed_answer(q, values, lang, fit=True):
    """The worked solution's bold answer (the span that names the graded answer), as printed."""
    spans = [b for b in re.findall(r"\*\*(.+?)\*\*", q.solution[lang]) if re.search(r"\{" + q.answer + r"[:}]", b)]
    assert spans, f"{q.id} ({lang}): the solution prints its answer {q.answer} in no **bold** span"
    return review.fill(spans[0], values, fit=fit)


def _sig2(x):
    """x rounded to two significant figures, in plain digits (295.3 -> "300", 0.009672 -> "0.0097")."""
    if x == 0:
        return "0"
    places = 1 - math.floor(math.log10(abs(x)))
    return f"{round(x, places):.{max(places, 0)}f}"


@pytest.mark.parametrize("q", NUMERIC, ids=[q.id for q in NUMERIC])
def test_numeric_question_grades_right_for_every_variant(q):
    """For 300 variants in both languages: the answer a reader computes from the numbers the
    question shows is right; the worked solution's printed answer, typed back, is right; a
    two-significant-figure rounding of the key is right (a count must be exact); the key is
    physically possible; a wrong number is wrong."""
    ex0 = q.exercise
    assert q.expected().value == ex0.answers()[q.answer].value and q.expected().numeric
    drawable = [n for n, p in ex0.parameters().items() if p.drawable and p.low != p.high]
    for lang in LANGS:       # nothing drawn is hidden from the reader
        shown = {m.group(1) for m in review.FIELD.finditer(q.text[lang])}
        assert set(drawable) <= shown, f"{q.id} ({lang}): {sorted(set(drawable) - shown)} drawn but not shown"
    values_seen, before = set(), COUNTS["numeric"]
    for seed in SEEDS:
        ex = quiz.variant(q.id, seed)
        key = q.expected(ex)
        k = float(key.value)
        values_seen.add(k)
        answers_now = ex.answers()
        assert all(math.isfinite(float(a.value)) for a in answers_now.values() if a.numeric), (q.id, seed)
        assert all(0 <= float(a.value) <= 1 for a in answers_now.values() if a.unit == "fraction"), (q.id, seed)
        assert k > 0, (q.id, seed, k)
        if q.valid is not None:
            assert q.valid(ex.values() | {n: a.value for n, a in answers_now.items()}), (q.id, seed)
        values = {n: p.shown for n, p in ex.parameters().items()} | {n: a.value for n, a in answers_now.items()}
        shown = _displayed(q, ex, "en")
        assert _displayed(q, ex, "zh") == shown, (q.id, seed)       # both editions show the same numbers
        if seed:
            assert all(math.isclose(shown[n], ex.values()[n], rel_tol=1e-12) for n in shown if n in drawable), (q.id, seed)
        exact = all(shown[n] == ex.values()[n] for n in shown)       # the screen shows the values themselves
        from_screen = k if exact else float(ex.variant(**shown).answers()[q.answer].value)
        for lang in LANGS:
            v = quiz.check(q.id, f"{from_screen:.6g}", lang, seed)
            assert v.correct, (q.id, seed, lang, from_screen, k, v.message)
            typed = _printed_answer(q, values, lang, fit=bool(seed))      # seed 0: as the page prints it
            v = quiz.check(q.id, typed, lang, seed)
            assert v.correct, (q.id, seed, lang, typed, k, v.message)
            if key.rel_tol or key.abs_tol:
                v = quiz.check(q.id, _sig2(k), lang, seed)
                assert v.correct, (q.id, seed, lang, _sig2(k), k, v.message)
            elif seed % 5 == 0:
                assert k == round(k) and not quiz.check(q.id, f"{k + 1:.0f}", lang, seed).correct, (q.id, seed, k)
            if seed % 5 == 0:
                assert not quiz.check(q.id, f"{k * 1.5:.6g}", lang, seed).correct, (q.id, seed, lang)
            COUNTS["numeric"] += 1
    assert COUNTS["numeric"] - before == len(SEEDS) * len(LANGS)
    if drawable:
        assert len(values_seen) > 1, f"{q.id}: the answer ignores its parameters"
    for lang in LANGS:
        for part in ("text", "hint", "solution"):
            review.fill(getattr(q, part)[lang], review.values_of(ex0))


GUARDED = [q for q in NUMERIC if q.valid is not None or any(a.unit == "fraction" for a in q.exercise.answers().values())]


@pytest.mark.parametrize("q", GUARDED, ids=[q.id for q in GUARDED])
def test_the_drawer_redraws_until_the_variant_is_possible(q):
    """Over 2,000 more seeds (1,000 for a question with no predicate of its own but a fraction) the
    drawer always finds a variant its predicate accepts, and the premises it shows are possible: an
    MFU or MBU below 100 %, a mispredict rate at most a coin's, every fraction in [0, 1]."""
    for seed in range(300, 2300 if q.valid is not None else 1300):
        ex = quiz.variant(q.id, seed)
        values = ex.values() | {n: a.value for n, a in ex.answers().items()}
        assert q.valid is None or q.valid(values), (q.id, seed)
        for name, a in ex.answers().items():      # an MFU, an MBU, a mispredict rate: fractions
            if a.unit == "fraction":
                assert 0 <= a.value <= 1, (q.id, seed, name, a.value)


def test_variants_show_no_impossible_premise():
    """No drawn text says "1 tiers", "1 GPUs": a parameter shown before a plural noun is at least 2."""
    for q in NUMERIC:
        for seed in range(0, 300, 7):
            shown = quiz.text(q.id, "text", "en", seed)
            bad = re.findall(r"(?<![\d.,])1 (?:[A-Z]\w* )?(?!ms\b|ns\b|µs\b|us\b)[a-zA-Z]+s\b", shown)
            assert not bad, (q.id, seed, bad, shown)


LETTER_FORMS = ["{l}", "{L}", "({l})", "{l}.", "{L})", "option {l}", "Option {L}", "选{l}", "选 {L}", "（{l}）", "答案是{l}"]


@pytest.mark.parametrize("q", [q for q in QUESTIONS if not q.numeric], ids=[q.id for q in QUESTIONS if not q.numeric])
def test_multiple_choice_accepts_letters_and_texts_in_both_languages(q):
    before = COUNTS["choice"]
    for seed in SEEDS:
        order = q.order(seed)
        assert sorted(order) == list(range(len(q.options["en"]))) and order == q.order(seed)
        right = order.index(q.correct)
        letter = "abc"[right]
        for lang in LANGS:
            form = LETTER_FORMS[seed % len(LETTER_FORMS)]
            assert quiz.check(q.id, form.format(l=letter, L=letter.upper()), lang, seed).correct, (q.id, seed, form)
            for text_lang in LANGS:        # either edition's text, on either page
                v = quiz.check(q.id, q.options[text_lang][q.correct], lang, seed)
                assert v.correct, (q.id, seed, lang, text_lang)
            assert quiz.check(q.id, f"({letter}) {q.options[lang][q.correct]}", lang, seed).correct
            wrong = (right + 1 + seed % 2) % 3
            v = quiz.check(q.id, "abc"[wrong], lang, seed)
            assert not v.correct and v.status == "wrong_number"
            why = q.misconceptions[lang][order[wrong]]
            assert why and html.escape(why) in quiz.feedback_html(q.id, v, lang, seed, "abc"[wrong])
            assert not quiz.check(q.id, letter + " " * 90 + "nonsense", lang, seed).correct
            assert quiz.check(q.id, letter + " " * 90, lang, seed).status == "unreadable"
            chinese = any("\u4e00" <= c <= "\u9fff" for c in v.message)
            assert chinese == (lang == "zh"), (q.id, lang, v.message)
            COUNTS["choice"] += 1
    assert COUNTS["choice"] - before == len(SEEDS) * len(LANGS)
    for lang in LANGS:
        assert all(n.strip() for i, n in enumerate(q.misconceptions[lang]) if i != q.correct), q.id


def test_key_positions_are_balanced():
    choice = [q for q in QUESTIONS if not q.numeric]
    on_page = [q.correct for q in choice]
    counts = [on_page.count(i) for i in range(3)]
    assert max(counts) - min(counts) <= 1, counts
    drawn = [q.order(seed).index(q.correct) for q in choice for seed in range(1, 301)]
    for i in range(3):
        assert 0.28 < drawn.count(i) / len(drawn) < 0.39, (i, drawn.count(i) / len(drawn))


def test_property_counts(capsys):
    """The counts of the property tests above (question × seed × language), printed."""
    n_numeric, n_choice = len(NUMERIC), len(QUESTIONS) - len(NUMERIC)
    with capsys.disabled():
        print(f"\nreview property tests: {n_numeric} numeric questions × {len(SEEDS)} seeds × {len(LANGS)} languages = "
              f"{n_numeric * len(SEEDS) * len(LANGS)} variants, each graded four ways; {n_choice} multiple-choice × "
              f"{len(SEEDS)} × {len(LANGS)} = {n_choice * len(SEEDS) * len(LANGS)} (checked so far in this run, "
              f"in random order: {COUNTS['numeric']} and {COUNTS['choice']})")
    assert n_numeric >= 40 and n_choice >= 16      # each test above asserts its own question's 300 × 2


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
def test_widget_builds_and_new_variant_recomputes(lang, tmp_path):
    pytest.importorskip("ipywidgets")
    for qid in ("rv_ov_q1", "rv_ov_q5"):
        box = quiz.quiz(qid, lang, tmp_path / "progress.json", opened=True)
        prompt, row, out = box.children
        text, check, show, new, seed = row.children
        text.value = "nonsense"
        check.click()
        assert "✗" in out.value
        q = review.by_id(qid)
        while True:            # a shuffle may keep the order: draw until the prompt changes
            before = prompt.value
            new.click()
            if prompt.value != before:
                break
        assert seed.value > 0
        expected = q.expected(quiz.variant(qid, seed.value))
        text.value = f"{float(expected.value):.6g}" if q.numeric else q.options[lang][q.correct]
        check.click()
        assert "✓" in out.value
    assert quiz.Progress(tmp_path / "progress.json").state("rv_ov_q1") == "right"


def _widget_instances():
    from ipywidgets.widgets import widget
    return widget._instances              # every widget model alive (Widget.widgets, deprecated in 8)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_controls_are_built_on_the_first_click(lang, tmp_path):
    """A question shows its text, its saved state and one button until the reader starts it."""
    pytest.importorskip("ipywidgets")
    path = tmp_path / "p.json"
    quiz.Progress(path).record("rv_ov_q1", True)
    before = len(_widget_instances())
    box = quiz.quiz("rv_ov_q1", lang, path)
    built_closed = len(_widget_instances()) - before
    prompt, start = box.children
    assert quiz.WORDS[lang]["status_right"] in prompt.value and start.description == quiz.WORDS[lang]["start"]
    start.click()
    prompt2, row, out = box.children
    assert prompt2 is prompt and quiz.WORDS[lang]["status_right"] in out.value
    assert quiz.WORDS[lang]["status_right"] not in prompt.value        # said once, under the controls
    before = len(_widget_instances())
    quiz.quiz("rv_ov_q1", lang, path, opened=True)
    built_open = len(_widget_instances()) - before
    assert built_closed * 2 <= built_open, (built_closed, built_open)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_answer_after_two_wrong_tries_or_on_request(lang, tmp_path):
    pytest.importorskip("ipywidgets")
    qid, path = "rv_ov_q1", tmp_path / "p.json"
    prompt, row, out = quiz.quiz(qid, lang, path, opened=True).children
    text, check, show, new, seed = row.children
    key = float(quiz.expected(qid).value)
    answer = quiz.answer_text(qid, lang)
    text.value = f"{key * 3:.6g}"
    label = quiz.WORDS[lang]["answer"]
    check.click()                       # one wrong try: the key and the solution folded, no answer block
    assert "✗" in out.value and f"<b>{label}" not in out.value and out.value.count("<details>") == 2
    check.click()                       # the second: the answer, open
    assert f"<b>{label}" in out.value and answer in html.unescape(out.value) and out.value.count("<details>") == 1
    assert quiz.Progress(path).state(qid) == "wrong"
    show.click()                        # on request: the answer, and it does not count as right
    assert answer in html.unescape(out.value)
    text.value = f"{key:.6g}"
    check.click()
    assert "✓" in out.value and quiz.Progress(path).state(qid) == "revealed"
    new.click()                         # a new variant answered right counts
    text.value = f"{float(quiz.expected(qid, seed.value).value):.6g}"
    check.click()
    assert quiz.Progress(path).state(qid) == "right"


def test_progress_is_kept_and_scored(tmp_path):
    path = tmp_path / "review-progress.json"
    first = quiz.Progress(path)
    assert first.problem is None and not path.exists()
    ov = [q.id for q in review.chapter_questions("ov")]
    first.record(ov[0], True)
    first.record(ov[1], False)
    first.record(ov[0], False)          # right stays right
    again = quiz.Progress(path)         # a later visit
    assert again.states == {ov[0]: "right", ov[1]: "wrong"}
    rows = {key: rest for key, *rest in again.score()}
    assert rows["ov"] == [2, 1, len(ov)]
    assert rows[""] == [2, 1, len(QUESTIONS)]
    assert sum(r[2] for k, *r in again.score() if k) == len(QUESTIONS)
    table = quiz.score_html(again, "zh")
    assert f"1/{len(ov)}" in table and f"2/{len(QUESTIONS)}" in table and "第 0 章" in table


@pytest.mark.parametrize("damage", ["{not json", '{"format": "something else"}',
                                    '{"format": "infra_lib review progress", "questions": {"rv_ov_q1": "maybe"}}',
                                    "\udcff"])
def test_a_damaged_progress_file_starts_fresh_and_says_so(tmp_path, damage):
    path = tmp_path / "review-progress.json"
    path.write_bytes(damage.encode("utf-8", "surrogateescape"))
    p = quiz.Progress(path)
    assert p.states == {} and p.problem is not None and p.problem[0] == "damaged"
    assert (tmp_path / "review-progress.json.damaged").exists() and not path.exists()
    for lang, word in (("en", "starts fresh"), ("zh", "从头开始")):
        assert word in quiz.score_html(p, lang)
    p.record("rv_ov_q1", True)
    assert quiz.Progress(path).state("rv_ov_q1") == "right" and quiz.Progress(path).problem is None


def test_progress_that_cannot_be_saved_is_kept_in_memory(tmp_path):
    p = quiz.Progress(tmp_path / "missing-folder" / "p.json")
    p.record("rv_ov_q1", True)
    assert p.state("rv_ov_q1") == "right" and p.problem is not None and p.problem[0] == "unsaved"
    assert "cannot be saved" in quiz.score_html(p, "en")


def test_in_jupyter_each_question_appears_once():
    """The page's question and solution blocks are collapsed in Jupyter (the widget shows the
    question), the headings are not; on the site (which ignores that metadata) every question
    and its folded solution stay."""
    import jupytext

    for lang, path in PAGE.items():
        nb = jupytext.read(path)
        hidden = [c for c in nb.cells if c.metadata.get("jupyter", {}).get("source_hidden")]
        blocks = [c for c in nb.cells if c.cell_type == "markdown" and re.search(r"^```\{(exercise|solution)\}", c.source, re.M)]
        assert hidden == blocks and len(blocks) == 2 * len(IDS), lang
        assert all(len(re.findall(r"^```\{(?:exercise|solution)\}", c.source, re.M)) == 1 for c in blocks)
        assert all(not c.metadata.get("jupyter") for c in nb.cells if "\n## " in "\n" + c.source)
        quizzes = [c.source for c in nb.cells if c.cell_type == "code" and c.source.startswith("quiz(")]
        assert quizzes == [f'quiz("{i}", LANG)' for i in IDS]
    for qid in IDS:                          # the widget itself shows the question
        assert "<p>" in quiz.question_html(qid, "en")


def test_quiz_hint_only_when_wrong():
    right = answers.Verdict(True, "right", "ok")
    wrong = answers.Verdict(False, "wrong_number", "no")
    assert "Hint" not in quiz.feedback_html("rv_ov_q1", right, "en")
    assert "Hint" in quiz.feedback_html("rv_ov_q1", wrong, "en") and "提示" in quiz.feedback_html("rv_ov_q1", wrong, "zh")
    folded = quiz.feedback_html("rv_ov_q1", wrong, "en", 5)     # after a wrong try: hint and worked solution, folded
    assert folded.count("<details>") == 2 and quiz.text("rv_ov_q1", "solution", "en", 5).split("**")[1] in folded
    assert quiz.text("rv_ov_q1", "solution", "en", 5) != quiz.text("rv_ov_q1", "solution", "en", 0)   # recomputed
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
    with pytest.raises(ValueError, match="misconception"):   # a wrong option must say what it tests
        review.Question("x", "ov", "ov-start", "self-check", *texts, options={"en": ("a", "b"), "zh": ("甲", "乙")},
                        correct=1)
    assert review.Question("x", "ov", "ov-start", "self-check", *texts, options={"en": ("a", "b"), "zh": ("甲", "乙")},
                           correct=1, misconceptions={"en": ("that a", ""), "zh": ("以为甲", "")})


def test_every_chapter_has_eight_questions_and_estimation_chains():
    """Issue 20: at least eight questions a chapter and ninety in all; most chapters hold a chain
    (a numeric question whose worked solution shows an intermediate answer besides the graded one)."""
    assert len(QUESTIONS) >= 90
    chains = set()
    for chapter in review.chapters():
        qs = review.chapter_questions(chapter)
        assert len(qs) >= 8, (chapter, len(qs))
        for q in qs:
            if q.numeric:
                shown = {m.group(1) for m in review.FIELD.finditer(q.solution["en"])}
                if len((shown & set(q.exercise.answers())) - {q.answer}) >= 1:
                    chains.add(chapter)
    assert len(chains) >= 8, sorted(set(review.chapters()) - chains)
