"""infra_lib.figures: every figure builds in both languages with the missing-glyph check on, its
labels come from data/labels.toml, its axes are log where the chapter says so; the roofline
helper puts the ridge at peak / bandwidth; the concept modules never import matplotlib.

Expected values are worked out by hand here, never copied from the library's output.
"""
import ast
import dataclasses
import inspect
import json
import pkgutil
import subprocess
import sys
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

import infra_lib
from infra_lib import cpu, figures, formats, gpu, i18n, inference, interconnect, launch, measurements, supply
from infra_lib import autoscale, scheduling
from infra_lib import generations as gen4
from infra_lib import framework
from infra_lib import decode_model
from infra_lib import cuda

ROOT = Path(__file__).resolve().parents[1]
FIGURES_DIR = ROOT / "infra_lib" / "figures"
# every topic module of the package, found in the tree (style is what they share, not a topic)
TOPICS = [getattr(figures, m.name) for m in pkgutil.iter_modules(figures.__path__) if m.name != "style"]

GENS = [("HBM2 (JEDEC)", 1024, 2.4e9), ("HBM4 (JEDEC)", 2048, 8e9)]
GPUS = [("H100", 5, 1024, 5.238e9), ("B200", 8, 1024, 7.52e9)]


def _launch(lang):
    return figures.cpu.launch_readings(launch.h200_launch_readings(), lang)


def _quant(lang):
    x = formats.heavy_tailed_sample(1024)
    sweeps = {s: formats.block_size_sweep(x, formats.E2M1, [8, 16, 32], s) for s in ("e8m0", "e4m3")}
    return figures.formats.block_scaling_error(sweeps, [(formats.MXFP4, 0.14), (formats.NVFP4, 0.09)], lang)


LIN, LOG, LOG2 = "linear", "log", "log2"
# name: (builder(lang) -> Figure, [(x scale, y scale) of each Axes, in order])
FIGURES = {
    "performance.measured_roofline": (lambda lang: figures.performance.measured_roofline(
        measurements.load()["matmul_roofline"], decode_model.efficiencies(), 989e12, 4.8e12, lang), [(LOG, LOG)]),
    "performance.model_errors": (lambda lang: figures.performance.model_errors(
        decode_model.predictions(), decode_model.predictions(overlap=True), 0.05, lang), [(LIN, LIN)]),
    "generations.peak_vs_bandwidth": (lambda lang: figures.generations.peak_vs_bandwidth(
        [gen4.generation_row(d) for d in ("v100_sxm2", "h100_sxm5", "b200_hgx")], ["V100", "H100", "B200"], lang),
        [(LOG, LOG)]),
    "generations.ridge_over_time": (lambda lang: figures.generations.ridge_over_time(
        [gen4.generation_row(d) for d in ("v100_sxm2", "h100_sxm5", "b200_hgx")], ["V100", "H100", "B200"], lang),
        [(LIN, LIN)]),
    "frameworks.graph_savings": (lambda lang: figures.frameworks.graph_savings(
        framework.h200_graph_savings(), lang), [(LIN, LIN)]),
    "frameworks.zero_memory": (lambda lang: figures.frameworks.zero_memory(
        70e9, [1, 2, 4, 8, 16, 32, 64], 20e9, 141e9, lang), [(LOG2, LOG)]),
    "clusters.gang_steps": (lambda lang: figures.clusters.gang_steps(
        scheduling.simulate(96, 64), scheduling.simulate(96, 64, gang=True), 64, lang), [(LIN, LIN), (LIN, LIN)]),
    "clusters.burst": (lambda lang: figures.clusters.burst(
        autoscale.simulate_burst(10, 30, 2, 16, 66), 16, 2, lang), [(LIN, LIN), (LIN, LIN)]),
    "roofline.accelerator": (lambda lang: figures.roofline.accelerator(
        inference.teaching_gpu(), [("prefill", 2000), ("decode", 1)], lang), [(LOG, LOG)]),
    "roofline.machines": (lambda lang: figures.roofline.machines(
        [("a", 1e11, 2e10, "black"), ("b", 7e12, 3e11, "blue")], lang, decode_intensity=1.0,
        point=("m", 200.0, 9e10)), [(LOG, LOG)]),
    "inference.batch_sweep": (lambda lang: figures.inference.batch_sweep(
        inference.teaching_request(), inference.teaching_gpu(), lang, mark=32), [(LOG2, LIN), (LOG2, LIN)]),
    "inference.batch_sweep(capacity)": (lambda lang: figures.inference.batch_sweep(
        inference.teaching_request(), inference.teaching_gpu(), lang, mark=32, max_batch=213),
        [(LOG2, LIN), (LOG2, LIN)]),
    "inference.predicted_vs_measured": (lambda lang: figures.inference.predicted_vs_measured(
        [measurements.decode_check(1)], lang), [(LIN, LIN)]),
    "inference.predicted_vs_measured(sweep)": (lambda lang: figures.inference.predicted_vs_measured(
        measurements.decode_checks(), lang), [(LIN, LIN)]),
    "interconnect.link_ladder": (lambda lang: figures.interconnect.link_ladder(
        interconnect.dgx_h100_ladder(), lang), [(LOG, LIN)]),
    "interconnect.nvlink_generations": (lambda lang: figures.interconnect.nvlink_generations(
        gpu.nvlink_generations(), lang), [(LIN, LIN)]),
    "fab.yield_curves": (lambda lang: figures.fab.yield_curves(
        0.1, 3, [("GH100", 814), ("GA100", 826)], lang), [(LIN, LIN)]),
    "fab.dies_and_cost": (lambda lang: figures.fab.dies_and_cost(
        0.1, 16988, [("GH100", 814)], lang), [(LIN, LOG), (LIN, LOG), (LIN, LOG)]),
    "fab.dies_and_cost(negative_binomial)": (lambda lang: figures.fab.dies_and_cost(
        0.1, 16988, [("GH100", 814)], lang, model="negative_binomial", alpha=2), [(LIN, LOG), (LIN, LOG), (LIN, LOG)]),
    "fab.supply_limits": (lambda lang: figures.fab.supply_limits(
        [supply.gpu_supply(p, supply.teaching_supply()) for p in supply.teaching_products()], lang), [(LIN, LIN)]),
    "fab.supply_limits(both readings)": (lambda lang: figures.fab.supply_limits(
        [supply.gpu_supply(p, supply.teaching_supply()) for p in supply.teaching_products()], lang,
        perfect=[supply.gpu_supply(p, supply.teaching_supply(), salvage=False) for p in supply.teaching_products()]),
        [(LIN, LIN)]),
    "memory.hbm_bandwidth": (lambda lang: figures.memory.hbm_bandwidth(GENS, GPUS, lang), [(LIN, LIN), (LIN, LIN)]),
    "cpu.latency_ladder": (lambda lang: figures.cpu.latency_ladder(cpu.xeon_latency_ladder(), 3.8e9, lang),
                           [(LOG, LIN)]),
    "cpu.peak_flops": (lambda lang: figures.cpu.peak_flops(cpu.xeon_grace_h100_peaks(), lang), [(LOG, LIN)]),
    "cpu.launch_readings": (_launch, [(LIN, LIN)]),
    "gpu.divergence": (lambda lang: figures.gpu.divergence(lang), [(LIN, LIN), (LIN, LIN)]),
    "gpu.memory_hierarchy": (lambda lang: figures.gpu.memory_hierarchy(gpu.h100_hierarchy(), lang), [(LOG, LIN)]),
    "gpu.measured_memory": (lambda lang: figures.gpu.measured_memory(
        gpu.h200_copy_by_working_set(), gpu.h200_strided_loads(), 60 * 2 ** 20, 4.8e12, 530e9, lang,
        gpu.launch_bound(gpu.h200_copy_by_working_set())), [(LOG2, LIN), (LOG2, LIN)]),
    "formats.block_scaling_error": (_quant, [(LOG2, LIN)]),
    "cuda.coalescing": (lambda lang: figures.cuda.coalescing(
        cuda.strided_against_sectors(gpu.h200_strided_loads()), lang), [(LOG2, LIN)]),
    "cuda.tiling": (lambda lang: figures.cuda.tiling([8, 16, 32, 64, 128], 206.0, lang), [(LOG2, LOG)]),
    "cuda.streams": (lambda lang: figures.cuda.streams(cuda.stream_timeline(1, 3, 2, 1),
                                                       cuda.stream_timeline(4, 0.75, 0.5, 0.25), lang),
                     [(LIN, LIN), (LIN, LIN)]),
    "cuda.matmul_roofline": (lambda lang: figures.cuda.matmul_roofline(
        cuda.measured_matmul_roofline(), 989.5e12, 1979e12, 4.8e12, cuda.measured_matmul_peaks_flop_s(), lang),
        [(LOG, LOG)]),
    "quantization.decode_ceiling_vs_bits": (lambda lang: figures.quantization.decode_ceiling_vs_bits(lang),
                                            [(LIN, LOG)]),
    "quantization.batch_context_vs_kv_bits": (lambda lang: figures.quantization.batch_context_vs_kv_bits(lang),
                                              [(LOG2, LOG)]),
    "quantization.batch_context_vs_kv_bits(int4 weights)": (
        lambda lang: figures.quantization.batch_context_vs_kv_bits(lang, weight_bits=4.25), [(LOG2, LOG)]),
    "quantization.error_by_granularity": (lambda lang: figures.quantization.error_by_granularity(lang),
                                          [(LIN, LIN), (LIN, LIN)]),
}


def _scale(axis):
    name = axis.get_scale()
    return LOG2 if name == "log" and axis.get_transform().base == 2 else name


def _texts(fig):
    return [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text")) if t.get_text().strip()]


# ---- every figure ------------------------------------------------------------------------------

def test_the_package_imports_every_module_of_its_folder():
    """figures/__init__.py imports and exports each module, so `figures.fab` works after `from infra_lib import figures`."""
    found = {m.name for m in pkgutil.iter_modules(figures.__path__)}
    assert set(figures.__all__) == found, sorted(found ^ set(figures.__all__))
    assert len(TOPICS) == len(found) - 1 >= 14


def test_every_figure_function_is_in_the_table():
    public = {f"{m.__name__.rsplit('.', 1)[1]}.{name}" for m in TOPICS
              for name, fn in inspect.getmembers(m, inspect.isfunction)
              if fn.__module__ == m.__name__ and not name.startswith("_")
              and inspect.signature(fn).return_annotation is Figure}
    assert public == {k.split("(")[0] for k in FIGURES}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("name", FIGURES)
def test_figure_builds_without_a_missing_glyph(name, lang):
    build, scales = FIGURES[name]
    fig = build(lang)
    assert isinstance(fig, Figure)
    assert not plt.fignum_exists(fig.number)                 # closed: only the glue shows it
    with warnings.catch_warnings():
        warnings.simplefilter("error")                       # a missing glyph warns; here it fails
        fig.canvas.draw()
    assert fig.get_facecolor()[:3] == (1.0, 1.0, 1.0)
    assert [(_scale(ax.xaxis), _scale(ax.yaxis)) for ax in fig.axes] == scales


@pytest.mark.parametrize("name", FIGURES)
def test_figure_labels_come_from_the_labels_file(name, monkeypatch):
    """Record every t() call while the Chinese figure is drawn: each label it returned is on
    the figure, and every axis label is one of them."""
    said = []

    def recording_t(key, lang, **fields):
        text = i18n.t(key, lang, **fields)
        said.append(text)
        return text
    for module in TOPICS:
        monkeypatch.setattr(module, "t", recording_t)
    fig = FIGURES[name][0]("zh")
    drawn = _texts(fig)
    assert said, "the figure draws no label from labels.toml"
    for text in said:
        assert any(text in d for d in drawn), f"label {text!r} was looked up but not drawn"
    for ax in fig.axes:
        for label in (ax.get_xlabel(), ax.get_ylabel()):
            assert not label or any(label.startswith(s) for s in said), label


def test_every_label_key_in_the_figures_exists_in_both_languages():
    """Static check of the source: each t("key") names a label of labels.toml; each t(f"prefix_{...}")
    matches at least one."""
    seen = 0
    for path in FIGURES_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "t" and node.args):
                continue
            key = node.args[0]
            if isinstance(key, ast.Constant):
                assert key.value in i18n.STRINGS, f"{path.name}:{node.lineno}: no label {key.value!r}"
            elif isinstance(key, ast.JoinedStr) and isinstance(key.values[0], ast.Constant):
                prefix = key.values[0].value
                assert any(k.startswith(prefix) for k in i18n.STRINGS), f"{path.name}:{node.lineno}: {prefix}*"
            seen += 1
    assert seen > 60
    for key, texts in i18n.STRINGS.items():
        assert set(texts) == set(i18n.LANGUAGES) and all(texts.values()), key


def test_bad_language_is_named():
    with pytest.raises(ValueError, match="lang"):
        figures.style.setup("fr")
    with pytest.raises(ValueError, match="lang"):
        figures.fab.yield_curves(0.1, 3, [], "fr")
    with pytest.raises(KeyError, match="no label"):
        i18n.t("nonexistent", "en")


# ---- style -------------------------------------------------------------------------------------

def test_a_missing_glyph_fails():
    figures.style.setup("en")   # DejaVu Sans only: no CJK glyphs
    fig, ax = plt.subplots()
    ax.set_title("显存带宽")
    with pytest.raises(UserWarning, match="missing from"):
        fig.canvas.draw()
    plt.close(fig)


def test_chinese_setup_uses_a_cjk_font():
    assert figures.style.setup("zh") == "zh"
    first = plt.rcParams["font.sans-serif"][0]
    assert "CJK" in first or "Micro Hei" in first


# ---- GPU names and ranges come from the registry ----------------------------------------------

def test_the_generations_figure_keeps_its_frame_and_widens_for_a_gpu_beyond_it():
    rows = gen4.comparison_rows()
    fig = figures.generations.peak_vs_bandwidth(rows, ["x"] * len(rows), "en")
    assert (fig.axes[0].get_xlim(), fig.axes[0].get_ylim()) == ((0.6, 16.0), (60.0, 6000.0))   # V100 to B300
    far = dataclasses.replace(rows[-1], mem_bw_Bps=30e12, peak_flop_s=10e15)   # 30 TB/s, 10 PFLOP/s
    fig = figures.generations.peak_vs_bandwidth([*rows, far], ["x"] * (len(rows) + 1), "en")
    (x0, x1), (y0, y1) = fig.axes[0].get_xlim(), fig.axes[0].get_ylim()
    assert (x0, x1, y0) == (0.6, 60.0, 60.0) and y1 == pytest.approx(25_000)    # 30 x 2; 10,000 x 2.5


def test_gpu_labels_are_the_registrys_names():
    nv = figures.interconnect.nvlink_generations(gpu.nvlink_generations(), "en")
    assert [t.get_text() for t in nv.axes[0].get_xticklabels()] == [
        "V100 SXM2\nNVLink 2", "A100 SXM4 40GB\nNVLink 3", "H100 SXM5\nNVLink 4", "B200\nNVLink 5"]
    decode = figures.quantization.decode_ceiling_vs_bits("en")
    legend = [t.get_text() for t in decode.axes[0].get_legend().get_texts()]
    assert legend[:4] == ["Llama-3-8B on H100", "Llama-3-8B on H200", "Llama-3-70B on H100", "Llama-3-70B on H200"]
    plt.close("all")


# ---- the roofline helper -----------------------------------------------------------------------

def test_ridge_lies_at_peak_over_bandwidth():
    # the teaching GPU: 1e15 FLOP/s over 3e12 B/s = 1000/3 = 333.3 FLOP per byte
    fig, ax = plt.subplots()
    roof = figures.roofline.draw_roof(ax, 1e15, 3e12, (0.1, 1e4))
    assert roof.ridge_point == pytest.approx(1000 / 3)
    line, ridge = ax.get_lines()
    assert list(ridge.get_xdata()) == pytest.approx([1000 / 3] * 2)          # the dashed vertical line
    x, y = line.get_xdata(), line.get_ydata()                                # in TFLOP/s
    assert y[0] == pytest.approx(0.1 * 3)                                    # 0.1 FLOP/B x 3 TB/s
    assert y[-1] == pytest.approx(1000)                                      # the flat roof, 1 PFLOP/s
    assert all(v == pytest.approx(1000) for v, i in zip(y, x) if i >= 1000 / 3)
    assert all(v < 1000 for v, i in zip(y, x) if i < 1000 / 3 * 0.99)
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    plt.close(fig)


def test_ridge_tick_sits_on_the_corner():
    # H100 SXM5: 989.4 TFLOP/s over 3,352 GB/s = 295.2 FLOP per byte; tick at 989,400 GFLOP/s
    fig, ax = plt.subplots()
    roof = figures.roofline.draw_roof(ax, 989.4e12, 3352e9, (0.1, 1e4), unit_flop_s=1e9, color="red", ridge="tick")
    tick = ax.get_lines()[1]
    assert tick.get_marker() == "|" and tick.get_color() == "red"
    assert tick.get_xdata()[0] == pytest.approx(295.17, abs=0.01) == roof.ridge_point
    assert tick.get_ydata()[0] == pytest.approx(989_400)
    with pytest.raises(ValueError, match="ridge"):
        figures.roofline.draw_roof(ax, 1e15, 3e12, (0.1, 1e4), ridge="dot")
    plt.close(fig)


def test_points_sit_on_the_roof_or_where_measured():
    fig, ax = plt.subplots()
    roof = figures.roofline.draw_roof(ax, 1e15, 3e12, (0.1, 1e4))
    assert roof.add_point(1.0, "decode") == pytest.approx(3.0)               # 1 FLOP/B x 3 TB/s = 3 TFLOP/s
    assert roof.add_point(2000.0) == pytest.approx(1000.0)                   # above the ridge: the peak
    assert figures.roofline.mark(ax, 10.0, 5e12, label="measured") == pytest.approx(5.0)
    assert [tuple(p.get_xdata()) for p in ax.get_lines()[2:]] == [(1.0,), (2000.0,), (10.0,)]
    assert [t.get_text() for t in ax.texts] == ["decode", "measured"]
    plt.close(fig)


def test_every_roofline_figure_draws_its_roofs_with_the_helper(monkeypatch):
    calls = []
    real = figures.roofline.draw_roof

    def spy(*args, **kwargs):
        calls.append(args[1:3])
        return real(*args, **kwargs)
    monkeypatch.setattr(figures.roofline, "draw_roof", spy)
    FIGURES["roofline.accelerator"][0]("en")
    FIGURES["roofline.machines"][0]("en")
    assert calls == [(1e15, 3e12), (1e11, 2e10), (7e12, 3e11)]


def test_no_other_figure_draws_a_roof_by_hand():
    """min(peak, I x bandwidth) on log-log axes is drawn in one place: roofline.draw_roof."""
    for path in FIGURES_DIR.glob("*.py"):
        for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(fn, ast.FunctionDef) or (path.name, fn.name) == ("roofline.py", "draw_roof"):
                continue
            calls = {getattr(c.func, "attr", None) for c in ast.walk(fn) if isinstance(c, ast.Call)}
            assert not calls & {"loglog", "minimum"}, f"{path.name}: {fn.name} draws a roof by hand"


# ---- the concept modules stay free of matplotlib -----------------------------------------------

def test_concept_modules_import_no_matplotlib():
    names = [m.name for m in pkgutil.iter_modules(infra_lib.__path__)
             if m.name != "figures" and "widget" not in m.name]
    assert {"units", "hardware", "models", "inference", "roofline", "interconnect", "fab", "cpu", "gpu",
            "formats", "measurements", "machine_bench"} <= set(names)
    code = ("import importlib, json, sys\n"
            f"bad = [n for n in {names!r} if importlib.import_module('infra_lib.' + n) and "
            "any(k == 'matplotlib' or k.startswith('matplotlib.') for k in sys.modules)]\n"
            "print(json.dumps(bad[:1]))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [], "imports matplotlib: move its drawing code into infra_lib/figures"


def test_the_teaching_gpu_title_is_the_registry_name_in_each_language():
    from infra_lib import hardware, inference
    from infra_lib.i18n import t
    assert hardware.device_name("teaching_gpu") == t("teaching_gpu", "en")   # the figure matches on it
    fig = figures.roofline.accelerator(inference.teaching_gpu(), [("x", 10.0)], "zh")
    assert fig.axes[0].get_title() == "教学 GPU"
    other = inference.Accelerator("H100 SXM5", 989e12, 3.35e12)
    assert figures.roofline.accelerator(other, [("x", 10.0)], "zh").axes[0].get_title() == "H100 SXM5"
