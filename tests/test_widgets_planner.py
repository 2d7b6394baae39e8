"""Chapter 4 widget (infra_lib/widgets/planner.py): GPUs needed worked out by hand and against
the library; bad input is a message in the page's language naming the slider."""
import pytest

from infra_lib import generations, hardware as hw, models, planner as p
from infra_lib.widgets import planner as w
from widget_checks import text_of

DEFAULTS = dict(model=3, bytes_per_param=2.0, gpu_mem_gb=80, batch=1, context=4096, overhead_pct=10)


def test_defaults_are_llama3_70b_bf16_on_80gb():
    assert w.PANEL.defaults() == DEFAULTS
    assert models.shape_at(3) is models.LLAMA3_70B
    assert DEFAULTS["gpu_mem_gb"] * 1e9 == hw.value("h100_sxm5", "mem_capacity_B")     # the H100's 80 GB


def test_the_memory_slider_covers_every_compared_gpu():
    mem = next(c for c in w.CONTROLS if c.name == "gpu_mem_gb")
    capacities = [hw.value(d.key, "mem_capacity_B") / 1e9 for d in generations.comparison_devices()
                  if "mem_capacity_B" in d.specs]
    assert mem.kind is int and mem.step == 1 and not mem.options       # a slider, as before the registry fed it
    assert mem.min <= min(capacities) and max(capacities) <= mem.max   # 32 GB (V100) ... 288 GB (B300)
    assert (mem.min, mem.max) == (16, 400)                              # today's registry: the range stays as it was


def test_summary_by_hand():
    rows = w.summary("en", **DEFAULTS).rows
    # 141.1 GB of weights + 1.3 GB of KV over 72 GB usable per GPU -> 2 GPUs, weights dominate
    assert rows[1][1] == f"{2 * models.LLAMA3_70B.n_params / 1e9:,.1f} GB"
    assert rows[2][1] == "2" and rows[2][2].endswith("weights")
    assert rows[4][1] == "2"


def test_kv_cache_limits_at_long_context_and_large_batch():
    rows = w.summary("en", **dict(DEFAULTS, model=1, batch=256, context=32768)).rows
    plan = p.gpus_needed(models.LLAMA3_8B, 80e9, 2, 256, 32768)
    assert rows[2][1] == f"{plan.gpus:,}" and rows[2][2].endswith("KV cache")
    # 16 GPUs for Llama-3-8B, which has 8 KV heads: no tensor-parallel degree splits 8 heads 16 ways
    assert plan.gpus == 16 and models.LLAMA3_8B.n_kv_heads == 8
    assert rows[4][1] == w.t("ch4_w_tp_none", "en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_corner_computes(lang):
    for c in w.CONTROLS:
        for v in (*c.values(), c.default):
            out = w.PANEL.render(lang, dict(DEFAULTS, **{c.name: v}))
            assert text_of(out)


def test_zh_rows_are_chinese():
    out = text_of(w.PANEL.render("zh", DEFAULTS))
    assert "所需 GPU" in out and "权重" in out
