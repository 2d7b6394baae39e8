"""The explore-the-assumptions widget: recomputes on change, and bad input gives a message, not a traceback."""
from infra_lib import inference, widgets

DEFAULTS = dict(n_params_b=8, prompt_tokens=2000, kv_gb=0.3, batch=32, peak_tflop_s=1000,
                flop_eff=0.5, bw_tbps=3, bw_eff=0.7)


def test_summary_shows_the_worked_example():
    html = widgets.request_summary("en", **DEFAULTS)
    step = inference.decode_step(inference.teaching_request(), inference.teaching_gpu(), 32)
    assert f"{step.time_s * 1e3:,.2f} ms" in html
    assert f"{step.throughput_tok_s:,.0f} tokens/s" in html


def test_bad_input_is_a_message_naming_the_parameter():
    for bad, name in ((dict(bw_tbps=0), "mem_bw_Bps"), (dict(bw_eff=1.5), "bw_efficiency"),
                      (dict(prompt_tokens=0), "prompt_tokens"), (dict(batch=0), "batch")):
        html = widgets.request_summary("zh", **{**DEFAULTS, **bad})
        assert "无法计算" in html and name in html, (bad, html)


def test_moving_a_slider_recomputes():
    box = widgets.explore_request("en")
    out = box.children[-1]
    before = out.value
    batch = next(c for c in box.children if getattr(c, "description", "") == "batch")
    batch.value = 1
    assert out.value != before
    step = inference.decode_step(inference.teaching_request(), inference.teaching_gpu(), 1)
    assert f"{step.time_s * 1e3:,.2f} ms" in out.value
