"""Explore-the-assumptions widgets, for readers who run the notebooks locally.

On the static website there is no Python kernel, so a widget could not recompute anything;
the chapters hide its output there and say how to run the notebook instead.
"""
import html

from . import inference
from .i18n import t


def request_summary(lang, n_params_b, prompt_tokens, kv_gb, batch, peak_tflop_s, flop_eff, bw_tbps, bw_eff):
    """The teaching request's numbers for the given assumptions, as a small HTML table.

    Bad input (a zero bandwidth, an efficiency above 1, ...) comes back as a message naming
    the parameter, never as a traceback.
    """
    try:
        req = inference.Request(n_params=n_params_b * 1e9, prompt_tokens=prompt_tokens, kv_bytes=kv_gb * 1e9)
        acc = inference.Accelerator("custom", peak_tflop_s * 1e12, bw_tbps * 1e12, flop_eff, bw_eff)
        pre = inference.prefill(req, acc)
        one = inference.decode_step(req, acc, 1)
        many = inference.decode_step(req, acc, batch)
    except (TypeError, ValueError) as err:
        return f"<p><b>{t('w_error', lang)}:</b> {html.escape(str(err))}</p>"
    rows = [
        (t("w_prefill", lang), f"{pre.time_s * 1e3:,.1f} ms", f"{t('w_bound', lang)}: {t(pre.bound, lang)}"),
        (f"{t('w_step', lang)} (batch 1)", f"{one.time_s * 1e3:,.2f} ms",
         f"{t('w_tput', lang)} {one.throughput_tok_s:,.0f} tokens/s"),
        (f"{t('w_step', lang)} (batch {many.batch})", f"{many.time_s * 1e3:,.2f} ms",
         f"{t('w_tput', lang)} {many.throughput_tok_s:,.0f} tokens/s; "
         f"{t('w_kv_share', lang)} {many.kv_share:.0%}; {t('w_bound', lang)}: {t(many.bound, lang)}"),
    ]
    body = "".join(f"<tr><td>{a}</td><td style='text-align:right'>{b}</td><td>{c}</td></tr>" for a, b, c in rows)
    return f"<table>{body}</table>"


def explore_request(lang="en"):
    """Sliders for the teaching request's assumptions, with the results recomputed live."""
    import ipywidgets as w
    gpu, req = inference.teaching_gpu(), inference.teaching_request()
    style = {"description_width": "14em"}
    layout = w.Layout(width="32em")
    controls = {
        "n_params_b": w.FloatSlider(req.n_params / 1e9, min=1, max=400, step=1, description=t("w_params", lang)),
        "prompt_tokens": w.IntSlider(req.prompt_tokens, min=1, max=32000, step=100, description=t("w_prompt", lang)),
        "kv_gb": w.FloatSlider(req.kv_bytes / 1e9, min=0, max=10, step=0.05, description=t("w_kv", lang)),
        "batch": w.IntSlider(32, min=1, max=512, description=t("w_batch", lang)),
        "peak_tflop_s": w.FloatSlider(gpu.peak_flop_s / 1e12, min=50, max=5000, step=10, description=t("w_peak", lang)),
        "flop_eff": w.FloatSlider(gpu.flop_efficiency, min=0.05, max=1, step=0.05, description=t("w_flop_eff", lang)),
        "bw_tbps": w.FloatSlider(gpu.mem_bw_Bps / 1e12, min=0.5, max=25, step=0.1, description=t("w_bw", lang)),
        "bw_eff": w.FloatSlider(gpu.bw_efficiency, min=0.05, max=1, step=0.05, description=t("w_bw_eff", lang)),
    }
    for c in controls.values():
        c.style, c.layout = style, layout
    out = w.HTML()

    def update(_=None):
        out.value = request_summary(lang, **{k: c.value for k, c in controls.items()})

    for c in controls.values():
        c.observe(update, names="value")
    update()
    return w.VBox(list(controls.values()) + [out])
