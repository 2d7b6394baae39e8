"""infra_lib: the one small library behind every number in the course.

Chapters import what they need (``from infra_lib import fab, hardware as hw, inference``); the
library never imports a chapter, and no module imports one from a layer above its own. The map
below is ``LAYERS``; ``tests/test_docs.py`` checks that it names every module of the tree, once.

{map}

The concept modules (every layer but the last) compute: they never format for a language, draw,
or build widgets (``tests/test_types.py``). ``figures`` is the only package that imports
matplotlib; ``widgets`` builds ipywidgets only when a panel is shown.
"""
# layer -> (what it holds, its modules); each module in exactly one layer
LAYERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "base": ("units, checks, the roofline every layer uses",
             ("_check", "units", "roofline", "glue")),
    "registry and data": ("specs with their sources, measured runs, model shapes, what a spec sheet says",
                          ("hardware", "measurements", "specsheet", "models")),
    "chip": ("fab, yield and supply, memory, CPU, an SM's limits and occupancy, GPU, number formats, generations",
             ("fab", "supply", "memory", "cpu", "machine_bench", "occupancy", "gpu", "minifloat", "formats",
              "generations")),
    "kernels": ("CUDA's grid, operators on the roofline, kernel launches, utilization",
                ("cuda", "ops", "launch", "utilization")),
    "serving": ("prefill and decode, the decoder's step, the benchmark that measures it, engines, capacity planning, quantization",
                ("inference", "decode_model", "gpu_bench", "engines", "planner", "quant_storage", "quantization")),
    "cluster": ("interconnect, collectives, parallelism, training memory, scheduling, MIG, autoscaling, reliability",
                ("interconnect", "collectives", "sharding", "framework", "training_memory", "parallelism",
                 "scheduling", "mig", "autoscale", "reliability")),
    "course pages": ("the language layer, numbers as text, exercises, Sources, the review, figures, widgets",
                     ("i18n", "fmt", "exercises", "sources", "answers", "review", "figures", "widgets")),
}
PAGE_LAYER = "course pages"

__doc__ = (__doc__ or "").format(map="\n".join(
    f"- {layer}: {', '.join(modules)} ({what})" for layer, (what, modules) in LAYERS.items()))
__version__ = "0.1.0"
