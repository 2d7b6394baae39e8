"""Overview widget (infra_lib/widgets/request.py): the summary is the library's prefill and
decode step; bad input is a message in the page's language naming the slider."""
import pytest

from infra_lib import inference
from infra_lib.i18n import LANGUAGES
from infra_lib.widgets import request
from widget_checks import assert_names_control, expected_reason, text_of

DEFAULTS = dict(n_params_b=8, prompt_tokens=2000, kv_gb=0.3, batch=32, peak_tflop_s=1000,
                flop_eff=0.5, bw_TBps=3, bw_eff=0.7)


def expected(n_params_b, prompt_tokens, kv_gb, batch, peak_tflop_s, flop_eff, bw_TBps, bw_eff):
    req = inference.Request(n_params_b * 1e9, prompt_tokens, kv_gb * 1e9)
    acc = inference.Accelerator("x", peak_tflop_s * 1e12, bw_TBps * 1e12, flop_eff, bw_eff)
    return inference.prefill(req, acc), inference.decode_step(req, acc, 1), inference.decode_step(req, acc, batch)


def test_the_defaults_are_the_teaching_request_on_the_teaching_gpu():
    assert request.PANEL.defaults() == DEFAULTS
    step = inference.decode_step(inference.teaching_request(), inference.teaching_gpu(), 32)
    out = request.PANEL.render("en")
    assert f"{step.time_s * 1e3:,.2f} ms" in out and f"{step.throughput_tok_s:,.0f} tokens/s" in out


@pytest.mark.parametrize("values", [
    DEFAULTS,
    dict(DEFAULTS, n_params_b=70, prompt_tokens=8000, kv_gb=1.5, batch=64, peak_tflop_s=2000, flop_eff=0.4,
         bw_TBps=8, bw_eff=0.8),
    dict(DEFAULTS, kv_gb=0, batch=512, bw_TBps=0.5),
])
def test_summary_is_the_library(values):
    pre, one, many = expected(**values)
    rows = request.summary("en", **values).rows
    assert rows[0][1] == f"{pre.time_s * 1e3:,.1f} ms"
    assert rows[1][1] == f"{one.time_s * 1e3:,.2f} ms" and f"{one.throughput_tok_s:,.0f} tokens/s" in rows[1][2]
    assert rows[2][1] == f"{many.time_s * 1e3:,.2f} ms" and f"{many.kv_share:.0%}" in rows[2][2]
    assert f"batch {values['batch']}" in rows[2][0]


def test_labels_follow_the_language():
    assert "瓶颈" in request.PANEL.render("zh") and "limited by" in request.PANEL.render("en")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("bad, name, reason", [
    (dict(bw_TBps=0), "bw_TBps", {"en": "greater than 0", "zh": "必须大于 0"}),
    (dict(bw_eff=1.5), "bw_eff", {"en": "at most 1", "zh": "不超过 1"}),
    (dict(flop_eff=0), "flop_eff", {"en": "at most 1", "zh": "不超过 1"}),
    (dict(prompt_tokens=0), "prompt_tokens", {"en": "at least 1", "zh": "不能小于 1"}),
    (dict(batch=0), "batch", {"en": "at least 1", "zh": "不能小于 1"}),
    (dict(batch=2.5), "batch", {"en": "whole number", "zh": "整数"}),
    (dict(kv_gb=-1), "kv_gb", {"en": "0 or more", "zh": "不能小于 0"}),
    (dict(n_params_b=float("nan")), "n_params_b", {"en": "finite number", "zh": "有限的数"}),
    (dict(peak_tflop_s="1000"), "peak_tflop_s", {"en": "finite number", "zh": "有限的数"}),
])
def test_bad_input_is_a_message_naming_the_slider(lang, bad, name, reason):
    values = dict(DEFAULTS, **bad)
    out = request.PANEL.render(lang, values)
    assert_names_control(out, request.PANEL, lang, name, values)
    assert expected_reason(request.PANEL, lang, name, values[name], reason[lang]) in text_of(out)
