"""Overview widget: the teaching request (prefill and decode) for the reader's assumptions.

Calls :func:`infra_lib.inference.prefill` and :func:`infra_lib.inference.decode_step` (pure
Python, no numpy).
"""
from typing import Any

from .. import _check, inference, units
from ..i18n import t
from .panel import Control, Panel, Result

_GPU, _REQ = inference.teaching_gpu(), inference.teaching_request()

CONTROLS = (
    Control("n_params_b", "w_params", float, _REQ.n_params / 1e9, 1, 400, 1, aliases=("n_params",)),
    Control("prompt_tokens", "w_prompt", int, _REQ.prompt_tokens, 100, 32000, 100),
    Control("kv_gb", "w_kv", float, _REQ.kv_B / units.GB, 0, 10, 0.05, aliases=("kv_B", "kv_bytes")),
    Control("batch", "w_batch", int, 32, 1, 512, 1),
    Control("peak_tflop_s", "w_peak", float, _GPU.peak_flop_s / units.TB, 50, 5000, 10, aliases=("peak_flop_s",)),
    Control("flop_eff", "w_flop_eff", float, _GPU.flop_efficiency, 0.05, 1, 0.05, aliases=("flop_efficiency",)),
    Control("bw_TBps", "w_bw", float, _GPU.mem_bw_Bps / units.TB, 0.5, 25, 0.1, aliases=("mem_bw_Bps",)),
    Control("bw_eff", "w_bw_eff", float, _GPU.bw_efficiency, 0.05, 1, 0.05, aliases=("bw_efficiency",)),
)


def summary(lang: str, n_params_b: float, prompt_tokens: int, kv_gb: float, batch: int,
            peak_tflop_s: float, flop_eff: float, bw_TBps: float, bw_eff: float) -> Result:
    """Prefill, a decode step at batch 1 and at ``batch``, for the given assumptions.

    >>> r = summary("en", 8, 2000, 0.3, 32, 1000, 0.5, 3, 0.7)
    >>> r.rows[2][1]
    '12.19 ms'
    """
    n_params_b = _check.positive("n_params_b", n_params_b, "billion parameters")
    prompt_tokens = _check.count("prompt_tokens", prompt_tokens, "tokens")
    kv_gb = _check.non_negative("kv_gb", kv_gb, "GB")
    batch = _check.count("batch", batch, "requests")
    peak_tflop_s = _check.positive("peak_tflop_s", peak_tflop_s, "TFLOP/s")
    flop_eff = _check.fraction("flop_eff", flop_eff)
    bw_TBps = _check.positive("bw_TBps", bw_TBps, "TB/s")
    bw_eff = _check.fraction("bw_eff", bw_eff)
    req = inference.Request(n_params_b * 1e9, prompt_tokens, kv_gb * units.GB, _REQ.bytes_per_param)
    acc = inference.Accelerator("custom", peak_tflop_s * units.TB, bw_TBps * units.TB, flop_eff, bw_eff)
    pre = inference.prefill(req, acc)
    one = inference.decode_step(req, acc, 1)
    many = inference.decode_step(req, acc, batch)
    paren = lambda text, inner: t("w_paren", lang, text=text, inner=inner)
    labelled = lambda label, value: t("w_labelled", lang, label=label, value=value)
    rows = (
        (t("w_prefill", lang), f"{pre.time_s / units.MS:,.1f} ms", labelled(t("w_bound", lang), t(pre.bound, lang))),
        (paren(t("w_step", lang), t("w_at_batch", lang, b=1)), f"{one.time_s / units.MS:,.2f} ms",
         f"{t('w_tput', lang)} {one.throughput_tok_s:,.0f} tokens/s"),
        (paren(t("w_step", lang), t("w_at_batch", lang, b=many.batch)), f"{many.time_s / units.MS:,.2f} ms",
         t("w_list_sep", lang).join((f"{t('w_tput', lang)} {many.throughput_tok_s:,.0f} tokens/s",
                                     f"{t('w_kv_share', lang)} {many.kv_share:.0%}",
                                     labelled(t("w_bound", lang), t(many.bound, lang))))),
    )
    return Result(rows)


PANEL = Panel(CONTROLS, summary)


def explore(lang: str = "en") -> Any:
    """Sliders for the teaching request's assumptions, the results recomputed live (an ipywidgets.VBox)."""
    return PANEL.build(lang)
