"""The live chapter's answer boxes (infra_lib.widgets.exercise_check) and the run upload
(infra_lib.widgets.run_upload): graded by the review's checker, bad input named."""
import io
import zipfile

import pytest

from infra_lib import measurements
from infra_lib.exercises import Answer, Exercise, Param
from infra_lib.widgets import exercise_check as ec
from infra_lib.widgets import run_upload

# an exercise as a chapter writes one: t = 2 * a ms (a = 2.385 -> 4.77 ms), a count, a fraction, a text
EX = Exercise("ch9_ex1", {"a": Param(2.385, "ms", 1, 5)},
              solve=lambda a: {"t": Answer(2 * a, "ms"), "gpus": Answer(3, "GPUs", rel_tol=0),
                               "share": Answer(0.25, "fraction"), "bound": "memory"})
KEY = EX.answer_key()


def test_the_answer_key_is_the_exercises_answers_as_data():
    assert list(KEY) == ["t", "gpus", "share", "bound"]
    assert KEY["t"] == {"value": 4.77, "unit": "ms", "rel_tol": 0.01, "abs_tol": 0.0}
    assert KEY["gpus"]["value"] == 3 and isinstance(KEY["gpus"]["value"], int)
    assert KEY["bound"] == {"value": "memory", "unit": "", "rel_tol": 0.01, "abs_tol": 0.0}


def test_glue_writes_the_answer_key_after_the_values():
    import json
    calls = []
    EX.glue(lambda key, value, display=True: calls.append((key, value, display)))
    assert calls[-1][0] == "ch9_ex1_answer_key" and calls[-1][2] is False
    assert json.loads(calls[-1][1]) == KEY
    assert [c[0] for c in calls[:-1]] == list(EX.glued())


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name, right, wrong", [
    ("t", ["4.77 ms", "4.8 ms", "0.0048 s", "4.8"], ["4.6 ms", "48 ms", "4.8 GB"]),
    ("gpus", ["3", "3 GPUs"], ["4", "2.9"]),
    ("share", ["25 %", "0.25", "25"], ["30 %"]),
    ("bound", ["memory", " Memory "], ["compute"]),
])
def test_boxes_grade_as_the_review_does(lang, name, right, wrong):
    for typed in right:
        assert ec.check(KEY, name, typed, lang).correct, (name, typed)
    for typed in wrong:
        assert not ec.check(KEY, name, typed, lang).correct, (name, typed)
    assert ec.check(KEY, name, ec.answer_text(KEY, name, lang), lang).correct


def test_a_wrong_unit_is_told_apart_and_labels_name_place_and_unit():
    assert ec.check(KEY, "t", "4.8 GB", "en").status == "wrong_unit"
    assert ec.check(KEY, "t", "hello", "en").status == "unreadable"
    assert ec.label(KEY, "t", "en") == "Answer 1 (ms)" and ec.label(KEY, "share", "zh") == "答案 3（%）"
    assert ec.label(KEY, "bound", "en") == "Answer 4"


def test_bad_answer_keys_are_named():
    with pytest.raises(TypeError, match="non-empty dict"):
        ec.answer_list({})
    with pytest.raises(ValueError, match="answer 't' must have exactly the fields value, unit, rel_tol, abs_tol"):
        ec.answer_list({"t": {"value": 1, "unit": "ms"}})
    with pytest.raises(TypeError, match="answer 't': value must be a number or a text"):
        ec.answer_list({"t": {"value": [1], "unit": "ms", "rel_tol": 0.01, "abs_tol": 0}})
    with pytest.raises(ValueError, match="rel_tol"):
        ec.answer_list({"t": {"value": 1, "unit": "ms", "rel_tol": -1, "abs_tol": 0}})
    with pytest.raises(KeyError, match="no answer 'x'; it has: t, gpus, share, bound"):
        ec.check(KEY, "x", "1", "en")
    with pytest.raises(ValueError, match="lang"):
        ec.check(KEY, "t", "1", "fr")


def test_an_impossible_answer_is_refused_when_the_key_is_made():
    ex = Exercise("ch9_ex2", {"a": 0}, solve=lambda a: {"r": Answer(float("inf"), "ms")})
    with pytest.raises(ValueError, match="ch9_ex2: answer 'r' is inf"):
        ex.answer_key()


def test_the_widget_builds_one_row_per_answer_and_shows_answers():
    box = ec.exercise_check("Exercise 9.1", KEY, "en")
    rows = [c for c in box.children if type(c).__name__ == "HBox"][:-1]     # the last: Show answers
    assert len(rows) == len(KEY)
    text_box, button = rows[0].children[1], rows[0].children[2]
    text_box.value = "4.8 ms"
    button.click()
    feedback = box.children[2]
    assert "✓" in feedback.value
    box.children[-2].children[0].click()                      # Show answers
    assert "4.77 ms" in box.children[-1].value and "memory" in box.children[-1].value


# ---- the upload of a run of the reader's own GPU -------------------------------------------------

def _zipped(folder):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name in measurements.FILES:
            z.write(folder / f"{name}.json", f"my-gpu/{name}.json")
    return buf.getvalue()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_uploaded_run_is_unpacked_validated_and_named(tmp_path, lang):
    ok, message = run_upload.receive("my-gpu.zip", _zipped(measurements.DATA_DIR / measurements.RUN), lang, tmp_path)
    assert ok and 'MEASURED_RUN = "my-gpu.zip"' in message and "NVIDIA H200" in message, message
    assert measurements.load(str(tmp_path / "my-gpu.zip")) == measurements.load()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_bad_upload_is_refused_with_the_reason(tmp_path, lang):
    ok, message = run_upload.receive("run.json", b"{}", lang, tmp_path)
    assert not ok and "zip" in message
    ok, message = run_upload.receive("broken.zip", b"PK not really", lang, tmp_path)
    assert not ok and "broken.zip: not a zip file" in message, message
    ok, message = run_upload.receive("../../escape.zip", _zipped(measurements.DATA_DIR / measurements.RUN), lang, tmp_path)
    assert ok and (tmp_path / "escape.zip").is_file()        # the name, never the path
    with pytest.raises(TypeError, match="bytes"):
        run_upload.receive("x.zip", "text", lang, tmp_path)
