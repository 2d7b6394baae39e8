"""Chapter 9 widget: what fewer bits buy in memory and bandwidth.

Weights = parameters x bits / 8; KV cache = batch x context x KV bytes per token at the KV bits;
GPUs needed and the largest batch from :mod:`infra_lib.planner` (10% of each GPU kept back,
``planner.OVERHEAD_FRACTION``); the batch-1 decode ceiling = bandwidth of those GPUs / weight
bytes (:func:`infra_lib.generations.decode_ceiling_tok_s`).

Pure Python: it calls ``planner`` and ``generations``, never :mod:`infra_lib.quantization`,
whose error side needs numpy (a widget must import without numpy).
"""
from typing import Any

from .. import _check, generations, hardware, models, planner, quant_storage, units
from ..i18n import t
from .panel import Control, Panel, Result, snap

_BW_MIN, _BW_STEP = 0.5, 0.1
_W_BITS = (quant_storage.storage_format("int4_g128_z4").bits_per_param,
           quant_storage.storage_format("mxfp4").bits_per_param,
           quant_storage.storage_format("nvfp4").bits_per_param, 8.0, 16.0)

CONTROLS = (
    Control.named("model", "ch9_w_model", tuple(f"w_model_{k}" for k in models.SHAPES), 3),
    # the weight formats by their bits per weight, scales and zero points included (quant_storage)
    Control("weight_bits", "ch9_w_weight_bits", float, 8.0, _W_BITS[0], _W_BITS[-1], 1, _W_BITS,
            names=("w_opt_gptq", "w_opt_mxfp4", "w_opt_nvfp4", "w_opt_fp8_w", "w_opt_bf16_w")),
    Control.choice("kv_bits", "ch9_w_kv_bits", (4, 8, 16), 16),
    Control("context", "ch9_w_context", int, 4096, 512, 131072, 512),
    Control("batch", "ch9_w_batch", int, 16, 1, 512, 1),
    Control("gpu_mem_gb", "ch9_w_mem", int, round(hardware.usable_memory_B("h200_sxm").value_B / units.GB),
            16, 400, 1, aliases=("gpu_mem_B",)),
    Control("bw_TBps", "ch9_w_bw", float, snap(hardware.value("h200_sxm", "mem_bw_Bps") / units.TB, _BW_MIN,
                                                _BW_STEP), _BW_MIN, 10.0, _BW_STEP, aliases=("mem_bw_Bps",)),
)


def summary(lang: str, model: int, weight_bits: float, kv_bits: float, context: int, batch: int,
            gpu_mem_gb: float, bw_TBps: float) -> Result:
    """Weights, KV cache, GPUs needed, batch-1 decode ceiling and largest batch.

    Llama-3-70B with FP8 weights on one 141 GB GPU at 4.8 TB/s: 70.6 GB of weights,
    4.8e12 / 70.55e9 = 68 tokens/s.

    >>> summary("en", 3, 8.0, 16, 4096, 16, 141, 4.8).rows[4][1]
    '68 tokens/s'
    """
    shape = models.shape_at(model)
    w_bytes = _check.positive("weight_bits", weight_bits, "bits") / 8
    kv_bytes = _check.positive("kv_bits", kv_bits, "bits") / 8
    mem = _check.positive("gpu_mem_gb", gpu_mem_gb, "GB") * units.GB
    bw = _check.positive("bw_TBps", bw_TBps, "TB/s") * units.TB
    plan = planner.gpus_needed(shape, mem, w_bytes, batch, context, kv_bytes)
    ceiling = generations.decode_ceiling_tok_s(plan.gpus * bw, plan.weights_B)
    fits = planner.max_batch(shape, mem, plan.gpus, w_bytes, context, kv_bytes)
    rows = (
        (shape.name, f"{shape.n_params / 1e9:,.1f}B", t("ch9_w_params", lang)),
        (t("ch9_w_weights", lang), f"{plan.weights_B / units.GB:,.1f} GB", t("ch9_w_bits_each", lang, bits=f"{weight_bits:g}")),
        (t("ch9_w_kv", lang), f"{plan.kv_B / units.GB:,.1f} GB",
         t("w_labelled", lang, label=t("ch9_w_per_token", lang), value=f"{shape.kv_B_per_token(kv_bytes) / 1e3:,.1f} kB")),
        (t("ch9_w_gpus", lang, pct=f"{100 * planner.OVERHEAD_FRACTION:g}"), f"{plan.gpus:,}",
         t("ch9_w_fits_one" if plan.gpus == 1 else "ch9_w_split", lang)),
        (t("ch9_w_decode", lang), f"{ceiling:,.0f} tokens/s", t("ch9_w_decode_on", lang, gpus=plan.gpus, bw=f"{bw_TBps:g}")),
        (t("ch9_w_maxbatch", lang), f"{fits:,}", f"× {context:,}"),
    )
    return Result(rows)


PANEL = Panel(CONTROLS, summary)


def explore(lang: str = "en") -> Any:
    """Sliders for model, weight bits, KV bits, context, batch, GPU memory and bandwidth (an ipywidgets.VBox)."""
    return PANEL.build(lang)
