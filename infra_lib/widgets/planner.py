"""Chapter 4 widget: how many GPUs a model needs, and what fills their memory.

Calls :func:`infra_lib.planner.gpus_needed`, :func:`infra_lib.planner.max_batch` and
:func:`infra_lib.planner.smallest_valid_tensor_parallel` (pure Python, no numpy). The memory
per GPU is a slider that starts at the bytes a program can use on the chapter's reference GPU
(:func:`infra_lib.hardware.usable_memory_B`: the total CUDA reports) and reaches past the largest
of the GPUs chapter 4 compares (:func:`infra_lib.generations.comparison_devices`, read from the
registry when this module is imported): a GPU added there is within its range. The engine's
runtime memory per GPU (:data:`infra_lib.planner.RUNTIME_B`) and the headroom share are sliders.
"""
import math
from typing import Any

from .. import _check, generations, hardware, models, planner, units
from ..i18n import t
from .panel import Control, Panel, Result

DEFAULT_GPU = "h100_sxm5"
"""The chapter's reference GPU: the memory slider starts at its capacity."""


MEMORY_RANGE_GB = (16, 400)
"""The slider's range in whole GB before the registry widens it (16 GB: the smallest V100)."""


def gpu_memory_range_gb() -> tuple[int, int]:
    """The memory slider's (min, max) in GB: :data:`MEMORY_RANGE_GB`, its top raised to the
    largest usable memory (rounded up) of the GPUs chapter 4 compares.

    >>> lo, hi = gpu_memory_range_gb()
    >>> lo == MEMORY_RANGE_GB[0] and hi >= max(MEMORY_RANGE_GB[1], 290)     # the HGX B300's 270 GiB
    True
    """
    largest = max(hardware.usable_memory_B(d.key).value_B for d in generations.comparison_devices()
                  if any(n in d.specs for n in hardware.CAPACITY_SPECS))
    return MEMORY_RANGE_GB[0], max(MEMORY_RANGE_GB[1], math.ceil(largest / units.GB))


CONTROLS = (
    Control.named("model", "ch4_w_model", tuple(f"w_model_{k}" for k in models.SHAPES), 3),
    Control("bytes_per_param", "ch4_w_bytes", float, 2.0, 0.5, 2.0, 1, (0.5, 1.0, 2.0),
            names=("w_opt_int4", "w_opt_fp8", "w_opt_bf16")),
    Control("gpu_mem_gb", "ch4_w_mem", int, round(hardware.usable_memory_B(DEFAULT_GPU).value_B / units.GB),
            *gpu_memory_range_gb(), 1),
    Control("batch", "ch4_w_batch", int, 1, 1, 512, 1),
    Control("context", "ch4_w_context", int, 4096, 512, 131072, 512),
    Control("overhead_pct", "ch4_w_overhead", int, round(planner.OVERHEAD_FRACTION * 100), 0, 50, 1),
    # up to 7 GiB: the smallest memory (16 GB) at the largest headroom (50%) leaves 8 GB, so every
    # corner of the sliders still has room for weights (tests/test_widgets.py)
    Control("runtime_gib", "ch4_w_runtime", int, round(planner.RUNTIME_B / units.GiB), 0, 7, 1),
)


def summary(lang: str, model: int, bytes_per_param: float, gpu_mem_gb: float, batch: int, context: int,
            overhead_pct: float, runtime_gib: float = 5) -> Result:
    """Weights, KV cache, GPUs needed and what limits, the largest batch, the tensor-parallel degree.

    >>> summary("en", 3, 2.0, 85, 1, 4096, 10, 5).rows[2][1], summary("en", 3, 2.0, 85, 1, 4096, 10, 0).rows[2][1]
    ('3', '2')
    """
    shape = models.shape_at(model)
    share = _check.non_negative("overhead_pct", overhead_pct, "%") / 100
    mem = _check.positive("gpu_mem_gb", gpu_mem_gb, "GB") * units.GB
    runtime = _check.non_negative("runtime_gib", runtime_gib, "GiB") * units.GiB
    plan = planner.gpus_needed(shape, mem, bytes_per_param, batch, context, overhead_fraction=share,
                               runtime_B=runtime)
    fits = planner.max_batch(shape, mem, plan.gpus, bytes_per_param, context, overhead_fraction=share,
                             runtime_B=runtime)
    tp = planner.smallest_valid_tensor_parallel(shape, plan.gpus)
    limit = t("ch4_w_weights" if plan.limit == "weights" else "ch4_w_kv", lang)
    rows = (
        (shape.name, f"{shape.n_params / 1e9:,.1f}B / {shape.n_active_params / 1e9:,.1f}B",
         t("ch4_w_params", lang)),
        (t("ch4_w_weights", lang), f"{plan.weights_B / units.GB:,.1f} GB",
         t("w_labelled", lang, label=t("ch4_w_kv", lang), value=f"{plan.kv_B / units.GB:,.1f} GB")),
        (t("ch4_w_gpus", lang), f"{plan.gpus:,}", t("w_labelled", lang, label=t("ch4_w_limit", lang), value=limit)),
        (t("ch4_w_maxbatch", lang), f"{fits:,}", f"× {context:,}"),
        (t("ch4_w_tp", lang), f"{tp:,}" if tp else t("ch4_w_tp_none", lang),
         f"Q {shape.n_heads} / KV {shape.n_kv_heads}"),
    )
    return Result(rows)


PANEL = Panel(CONTROLS, summary)


def explore(lang: str = "en") -> Any:
    """Sliders for model, precision, GPU memory, batch, context, headroom and runtime (an ipywidgets.VBox)."""
    return PANEL.build(lang)
