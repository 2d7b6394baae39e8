"""Chapter 4 widget (infra_lib/widgets/planner.py): GPUs needed worked out by hand and against
the library; bad input is a message in the page's language naming the slider."""
import pytest

from infra_lib import generations, hardware as hw, models, planner as p
from infra_lib.widgets import planner as w
from widget_checks import text_of

DEFAULTS = dict(model=3, bytes_per_param=2.0, gpu_mem_gb=85, batch=1, context=4096, overhead_pct=10,
                runtime_gib=5)


def test_defaults_are_llama3_70b_bf16_on_an_h100_as_cuda_reports_it():
    assert w.PANEL.defaults() == DEFAULTS
    assert models.shape_at(3) is models.LLAMA3_70B
    # 79.18 GiB = 85.02 GB, not the datasheet's "80 GB" read as 10^9 bytes
    assert DEFAULTS["gpu_mem_gb"] == round(hw.usable_memory_B("h100_sxm5").value_B / 1e9) != 80
    assert DEFAULTS["runtime_gib"] * 2**30 == p.RUNTIME_B


def test_the_memory_slider_covers_every_compared_gpu():
    mem = next(c for c in w.CONTROLS if c.name == "gpu_mem_gb")
    usable = [hw.usable_memory_B(d.key).value_B / 1e9 for d in generations.comparison_devices()
              if "mem_capacity_B" in d.specs]
    assert mem.kind is int and mem.step == 1 and not mem.options       # a slider, as before the registry fed it
    assert mem.min <= min(usable) and max(usable) <= mem.max            # 34 GB (V100) ... 309 GB (Rubin)
    assert (mem.min, mem.max) == (16, 400)                              # today's registry: the range stays as it was


def test_summary_by_hand():
    rows = w.summary("en", **DEFAULTS).rows
    # 141.1 GB of weights + 1.3 GB of KV; per 85 GB GPU 0.9 x 85 - 5 GiB = 71.1 GB -> 3 GPUs
    # (2 x 71.1 = 142.1 < 142.4), weights dominate; without the runtime term 2 would do
    assert rows[1][1] == f"{2 * models.LLAMA3_70B.n_params / 1e9:,.1f} GB"
    assert rows[2][1] == "3" and rows[2][2].endswith("weights")
    assert w.summary("en", **dict(DEFAULTS, runtime_gib=0)).rows[2][1] == "2"
    assert rows[4][1] == "4"                     # 3 heads-splits fail: 4 is the next valid degree


def test_kv_cache_limits_at_long_context_and_large_batch():
    rows = w.summary("en", **dict(DEFAULTS, model=1, batch=256, context=32768)).rows
    plan = p.gpus_needed(models.LLAMA3_8B, 85e9, 2, 256, 32768)
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
