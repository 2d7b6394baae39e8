"""Figures of chapter 9 (quantization): what fewer bits buy (batch-1 decode speed, room for the
KV cache) and what they cost (the error of a matrix product by scale granularity).

Each function takes ``lang``, computes its data with :mod:`infra_lib.quantization` and the
registry (bandwidths and memory via :func:`infra_lib.hardware.value`), calls :func:`style.setup`,
closes the figure and returns it.
"""
from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from .. import hardware, models, planner
from .. import quantization as q
from ..i18n import t
from .style import COLORS, finish, setup

FORMAT_KEYS = ("bf16", "fp8", "int8", "nvfp4", "mxfp4", "int4_g128_z4")
"""Formats on the decode figure, most bits first (keys of :func:`infra_lib.quantization.storage_format`); INT4 in
the layout GPTQ and AWQ checkpoints store (FP16 scale and 4-bit zero per 128)."""
DEVICES = ("h100_sxm5", "h200_sxm")
"""The GPUs of the decode figure, each labelled by its registry short name."""
CONTEXTS = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
KV_BITS = (16, 8, 4)


def decode_ceiling_vs_bits(lang: str, keys: Sequence[str] = FORMAT_KEYS) -> Figure:
    """Batch-1 decode ceiling (tokens/s, log) of Llama-3-8B and Llama-3-70B on one H100 SXM5 and
    one H200 (:data:`DEVICES`), one point per storage format (:func:`infra_lib.quantization.storage_formats`, bits
    with their scales): bandwidth / (params x bits / 8). A hollow marker: the weights alone
    exceed the GPU's usable memory (90%, ``planner.OVERHEAD_FRACTION``), so the point is what one
    GPU's bandwidth would allow; split over n GPUs, each reads 1/n of the weights and the ceiling
    rises up to n times."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    fmts = [q.storage_format(k) for k in keys]
    xs = list(range(len(fmts)))
    for shape, color in ((models.LLAMA3_8B, COLORS["memory"]), (models.LLAMA3_70B, COLORS["compute"])):
        for device, style in zip(DEVICES, ("--", "-")):
            name = hardware.short_name(device)
            bw, mem = hardware.value(device, "mem_bw_Bps"), hardware.usable_memory_B(device).value_B
            ys = [q.decode_ceiling_at_bits_tok_s(shape.n_params, f.bits_per_param, bw) for f in fmts]
            ax.plot(xs, ys, style, color=color, label=t("ch9_fig_model_on", lang, model=shape.name, gpu=name))
            for x, y, f in zip(xs, ys, fmts):
                fits = planner.kv_budget_B(shape, mem, 1, f.bytes_per_param) > 0
                ax.plot([x], [y], "o", ms=6, color=color, mfc=color if fits else "white")
            ax.annotate(f"{ys[-1]:,.0f}", (xs[-1], ys[-1]), xytext=(7, 0), textcoords="offset points",
                        fontsize=8, va="center", color=color)
    ax.plot([], [], "o", ms=6, color=COLORS["grey"], mfc="white", label=t("ch9_fig_no_fit", lang))
    ax.set_yscale("log")
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi * 8)                     # room above the lines for the legend
    ax.set_xlim(-0.3, len(fmts) - 0.4)
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{f.name.replace(' (', chr(10) + '(')}\n{f.bits_per_param:.3g}" for f in fmts], fontsize=8)
    ax.set_xlabel(t("ch9_fig_bits", lang))
    ax.set_ylabel(t("ch9_fig_tok_s", lang))
    ax.set_title(t("ch9_fig_decode_title", lang), fontsize=10)
    ax.legend(fontsize=7.5, loc="upper left", ncol=2)
    return finish(fig)


def batch_context_vs_kv_bits(lang: str, weight_bits: float = 8.0, device: str = "h200_sxm") -> Figure:
    """Largest batch (log) against context length (log2) for Llama-3-70B on one GPU, one line per
    KV-cache precision. FP8 weights by default: the 70B model's BF16 weights (141 GB) leave no room
    for a KV cache in the 150 GB CUDA reports on an H200 once the engine's headroom and runtime
    memory are set aside (chapter 4's planner); its FP8 weights (71 GB) do. Points where no request fits
    are left out."""
    lang = setup(lang)
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    shape = models.LLAMA3_70B
    mem = hardware.usable_memory_B(device).value_B     # what CUDA reports (chapter 4)
    colors = (COLORS["memory"], COLORS["accent"], COLORS["compute"])
    for kv, color in zip(KV_BITS, colors):
        pts = [(c, q.max_batch_at(shape, mem, weight_bits, kv, c)) for c in CONTEXTS]
        pts = [(c, b) for c, b in pts if b > 0]
        ax.plot([c for c, _ in pts], [b for _, b in pts], marker="o", ms=5, color=color,
                label=t("ch9_fig_kv_bits", lang, bits=kv))
        if pts:
            ax.annotate(f"{pts[0][1]:,}", pts[0], xytext=(-6, 0), textcoords="offset points", fontsize=8,
                        ha="right", va="center", color=color)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlim(CONTEXTS[0] / 2, CONTEXTS[-1] * 1.4)
    ax.set_xticks(CONTEXTS)
    ax.set_xticklabels([f"{c // 1024}K" for c in CONTEXTS], fontsize=8)
    ax.set_xlabel(t("ch9_fig_context", lang))
    ax.set_ylabel(t("ch9_fig_max_batch", lang))
    ax.set_title(t("ch9_fig_batch_title", lang, model=shape.name, bits=f"{weight_bits:g}",
                   mem=f"{mem / 1e9:,.0f}"), fontsize=10)
    ax.legend(fontsize=8, loc="upper right")
    return finish(fig)


ERROR_CASES: tuple[tuple[str, float, float, int, float], ...] = (
    ("clean", 0.0, 1.0, 0, 1.0),
    ("outliers", 0.002, 30.0, 4, 20.0),
)
"""The two teaching cases of :func:`error_by_granularity` (case, weight outlier fraction and scale,
activation outlier channels and scale): 512 x 256 weights and 64 tokens, without outliers, and
with 0.2% of the weights x30 and 4 of 512 activation channels x20."""


def error_by_granularity(lang: str, d_in: int = 512, d_out: int = 256, tokens: int = 64) -> Figure:
    """SQNR (dB) of x @ W_hat against x @ W, W quantized to 8 and 4 bits with one scale per
    tensor, per output channel or per group of 128 inputs: without outliers (left) and with
    them (right), on :func:`infra_lib.quantization.synthetic_weights` / ``synthetic_activations``."""
    lang = setup(lang)
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.6), sharey=True)
    width = 0.38
    top = 0.0
    for ax, (case, w_frac, w_scale, x_channels, x_scale) in zip(axes, ERROR_CASES):
        w = q.synthetic_weights(d_in, d_out, w_frac, w_scale)
        x = q.synthetic_activations(tokens, d_in, x_channels, x_scale)
        for i, (bits, color) in enumerate(((8, COLORS["memory"]), (4, COLORS["compute"]))):
            vals = [q.matmul_output_sqnr_db(x, w, bits, g) for g in q.GRANULARITIES]
            top = max(top, *vals)
            xs = [j + (i - 0.5) * width for j in range(len(vals))]
            bars = ax.bar(xs, vals, width, color=color, label=t("ch9_fig_int_bits", lang, bits=bits))
            ax.bar_label(bars, fmt="%.0f", fontsize=7.5, padding=2)
        ax.set_xticks(range(len(q.GRANULARITIES)))
        ax.set_xticklabels([t(f"ch9_fig_gran_{g}", lang) for g in q.GRANULARITIES], fontsize=8.5)
        ax.set_title(t(f"ch9_fig_case_{case}", lang), fontsize=10)
    axes[0].set_ylabel(t("ch9_fig_sqnr", lang))
    axes[0].set_ylim(0, top * 1.2)
    axes[0].legend(fontsize=8, loc="upper left")
    return finish(fig)
