"""Chapter 9 widget (infra_lib/widgets/quantization.py): weights, KV cache, GPUs, the batch-1
decode ceiling and the largest batch, worked out by hand and against the library; every slider
at its minimum, middle and maximum in both languages and in a fresh process without numpy; bad
input is a message in the page's language naming the slider."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from infra_lib import hardware, models, planner, units
from infra_lib.i18n import LANGUAGES
from infra_lib.widgets import quantization as W
from widget_checks import assert_names_control, text_of

ROOT = Path(__file__).resolve().parents[1]


def _num(cell):
    return float(cell.split()[0].replace(",", ""))


def test_defaults_are_llama3_70b_fp8_on_an_h200():
    d = W.PANEL.defaults()
    assert models.shape_at(d["model"]) is models.LLAMA3_70B
    assert (d["weight_bits"], d["kv_bits"]) == (8.0, 16)
    # the memory CUDA reports on the measured H200, to the slider's whole GB, not the sheet's nominal "141 GB"
    assert d["gpu_mem_gb"] == round(hardware.usable_memory_B("h200_sxm").value_B / units.GB) != round(hardware.value("h200_sxm", "mem_capacity_B") / units.GB)
    assert d["bw_TBps"] * units.TB == pytest.approx(hardware.value("h200_sxm", "mem_bw_Bps"))


def test_rows_by_hand():
    # Llama-3-70B, FP8 weights, BF16 KV, 16 x 4,096 tokens, one 141 GB GPU at 4.8 TB/s
    rows = W.summary("en", 3, 8.0, 16, 4096, 16, 141, 4.8).rows
    n = models.LLAMA3_70B.n_params
    assert _num(rows[1][1]) == pytest.approx(n / 1e9, abs=0.05)                      # 1 byte each
    assert _num(rows[2][1]) == pytest.approx(2 * 80 * 8 * 128 * 2 * 16 * 4096 / 1e9, abs=0.05)
    assert rows[3][1] == "1"                                                          # 70.6 + 21.5 < 126.9
    assert _num(rows[4][1]) == pytest.approx(4.8e12 / n, abs=0.5)                     # ~68 tokens/s
    assert rows[5][1] == f"{int((141e9 * 0.9 - 5 * 2**30 - n) // 327680 // 4096):,}"   # 5 GiB of runtime


def test_fewer_bits_double_the_ceiling_and_the_batch():
    at16 = W.summary("en", 1, 16.0, 16, 4096, 1, 141, 4.8).rows
    at8 = W.summary("en", 1, 8.0, 8, 4096, 1, 141, 4.8).rows
    assert _num(at8[4][1]) == pytest.approx(2 * _num(at16[4][1]), abs=1)
    assert _num(at8[5][1]) >= 2 * _num(at16[5][1])


def test_bf16_70b_needs_two_gpus_and_their_bandwidth():
    rows = W.summary("en", 3, 16.0, 16, 4096, 1, 141, 4.8).rows
    plan = planner.gpus_needed(models.LLAMA3_70B, 141e9, 2, 1, 4096, 2)
    assert rows[3][1] == f"{plan.gpus:,}" == "2"
    assert _num(rows[4][1]) == pytest.approx(2 * 4.8e12 / plan.weights_B, abs=0.5)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_slider_min_mid_max(lang):
    for c in W.PANEL.controls:
        values = c.options or (c.min, c.kind((c.min + c.max) // 2 if c.kind is int else (c.min + c.max) / 2),
                               c.max)
        for v in (values[0], values[len(values) // 2], values[-1]):
            out = W.PANEL.render(lang, dict(W.PANEL.defaults(), **{c.name: v}))
            assert out.startswith("<table>") and "GB" in text_of(out), (c.name, v, out)


DRIVE = r"""
import json, sys
from infra_lib.widgets import quantization as W
out = {}
for lang in ("en", "zh"):
    for c in W.PANEL.controls:
        values = c.options or (c.min, c.kind((c.min + c.max) // 2 if c.kind is int else (c.min + c.max) / 2), c.max)
        for v in (values[0], values[len(values) // 2], values[-1]):
            out[f"{lang}:{c.name}:{v}"] = W.PANEL.render(lang, dict(W.PANEL.defaults(), **{c.name: v}))
print(json.dumps(dict(out=out, numpy="numpy" in sys.modules, matplotlib="matplotlib" in sys.modules)))
"""


def test_fresh_process_without_numpy():
    run = subprocess.run([sys.executable, "-c", DRIVE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert not report["numpy"] and not report["matplotlib"]
    for key, html in report["out"].items():
        lang, name, v = key.split(":")
        assert html == W.PANEL.render(lang, dict(W.PANEL.defaults(), **{name: W.PANEL.control(name).kind(
            float(v))})), key


def test_zh_rows_are_chinese():
    out = text_of(W.PANEL.render("zh", W.PANEL.defaults()))
    assert "权重" in out and "所需 GPU" in out and "decode 上限" in out


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("bad, name", [(dict(gpu_mem_gb=0), "gpu_mem_gb"), (dict(bw_TBps=-1.0), "bw_TBps"),
                                       (dict(batch=0), "batch"), (dict(model=7), "model")])
def test_bad_input_names_the_slider(lang, bad, name):
    values = dict(W.PANEL.defaults(), **bad)
    assert_names_control(W.PANEL.render(lang, values), W.PANEL, lang, name, values)
