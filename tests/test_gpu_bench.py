"""The course's benchmark (infra_lib.gpu_bench), tested on this CPU through its numpy backend.

A real (CPU) run is measured once per session with the quick plan and written to a temporary run
folder; the tests then read it the way the chapters do. The accounting tests derive every byte and
FLOP count from the decoder's shape and the plan's sizes in plain arithmetic, not through the
library, and check that the benchmark reports exactly those counts: the model and the measurement
count the same work. The CUDA path needs a GPU: on a machine without one the torch backend must
refuse with a message that says so.
"""
import json
import shutil

import pytest

from infra_lib import decode_model as dm
from infra_lib import gpu_bench as gb
from infra_lib import measurements, ops
from infra_lib.widgets import model_check


@pytest.fixture(scope="module")
def quick_plan():
    return gb.plan("numpy", quick=True)


@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory, quick_plan):
    """A measured quick run of this CPU, written as a run folder (path, parsed files)."""
    run = gb.measure(gb.NumpyBackend(), quick_plan)
    out = gb.write(run, tmp_path_factory.mktemp("runs") / "cpu-quick")
    return out, run


# ---- the run folder ------------------------------------------------------------------------

def test_the_cpu_run_is_a_valid_run_folder_the_library_reads(cpu_run):
    out, run = cpu_run
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "ladder.json", "reality_check.json", "run.json"]
    assert measurements.load(str(out))["model"]["layers"] == gb.TINY["layers"]
    assert measurements.info(out)["backend"] == "numpy"
    assert measurements.dtype_B(out) == 4
    assert str(out) in measurements.used_runs()          # a page's Sources would list it


def test_the_readme_is_generated_from_what_was_measured(cpu_run):
    out, run = cpu_run
    text = (out / "README.md").read_text(encoding="utf-8")
    assert run["run"]["device"] in text
    for row in run["reality_check"]["decode"]:
        assert f"| {row['batch']} | {row['ctx']} | {row['s_eager'] * 1e3:,.3f} |" in text
    assert f"{run['reality_check']['copy']['GBps']:,.1f} GB/s" in text


def test_the_models_predict_the_cpu_run(cpu_run, quick_plan):
    out, _ = cpu_run
    preds = dm.predictions(run=out)
    assert [(p.batch, p.context) for p in preds[:-1]] == list(quick_plan.decode_grid)
    assert preds[-1].phase == "prefill" and preds[-1].context == quick_plan.prefill_tokens
    assert all(p.predicted_s > 0 and p.measured_s > 0 for p in preds)
    checks = measurements.decode_checks(out)
    assert all(c.measured_graph_s is None and c.measured_s == c.measured_eager_s for c in checks)


def test_the_chapter_6_widget_shows_the_cpu_run(cpu_run, quick_plan):
    out, run = cpu_run
    rows = model_check.summary("en", 0, 1, 0, 0, run=str(out)).rows
    assert len(rows) == len(quick_plan.decode_grid) + 2          # the steps, the prefill, the mean error
    first = run["reality_check"]["decode"][0]
    assert rows[0][1] == f"{first['s_eager'] * 1e3:,.2f} ms"     # no CUDA graph on a CPU: the eager time
    assert rows[0][1] != model_check.summary("en", 0, 1, 0, 0).rows[0][1]


def test_a_datasheet_comparison_on_a_run_without_a_datasheet_says_so(cpu_run):
    out, _ = cpu_run
    with pytest.raises(measurements.RunError, match="no datasheet entry"):
        dm.predictions("datasheet", "datasheet", "datasheet", run=out)
    with pytest.raises(measurements.RunError, match="spec"):
        measurements.copy_efficiency(out)


def test_write_refuses_a_folder_that_is_not_empty(cpu_run, tmp_path):
    _, run = cpu_run
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(FileExistsError, match="not empty"):
        gb.write(run, tmp_path)
    assert (tmp_path / "keep.txt").read_text(encoding="utf-8") == "mine"


# ---- one accounting: every reported count is the model's, derived here by hand ---------------

def test_the_decoder_shape_is_counted_as_built(cpu_run, quick_plan):
    _, run = cpu_run
    s = quick_plan.shape
    L, d, h, hk, dh, f, v = (s[k] for k in ("layers", "d", "heads", "kv_heads", "head_dim", "ffn", "vocab"))
    params = L * (d * (h + 2 * hk) * dh + h * dh * d + 3 * d * f + 2 * d) + 2 * v * d + d
    m = run["reality_check"]["model"]
    assert m["params"] == params
    assert m["weight_bytes"] == 4 * params
    assert m["kv_bytes_per_token"] == 2 * L * hk * dh * 4


def test_decode_bytes_are_weights_without_the_embedding_plus_the_kv_cache(cpu_run, quick_plan):
    _, run = cpu_run
    s = quick_plan.shape
    weights = (s["params"] - s["vocab"] * s["d"]) * 4
    for row in run["reality_check"]["decode"]:
        kv = row["batch"] * row["ctx"] * 2 * s["layers"] * s["kv_heads"] * s["head_dim"] * 4
        assert row["bytes_min"] == weights + kv
        assert row["kv_bytes_read"] == kv
    for row, (b, t) in zip(run["reality_check"]["attention"], quick_plan.decode_grid):
        assert row["ctx"] == t + 1                           # the cached tokens and the new one
        assert row["bytes"] == 2 * b * (t + 1) * s["kv_heads"] * s["head_dim"] * 4
        assert row["flops"] == 4 * b * (t + 1) * s["heads"] * s["head_dim"]


def test_prefill_flops_count_the_lm_head_the_run_executed(cpu_run, quick_plan):
    _, run = cpu_run
    s, P = quick_plan.shape, quick_plan.prefill_tokens
    head = s["vocab"] * s["d"]
    layers = 2 * (s["params"] - 2 * head) * P                # every weight but the embedding and LM head
    attention = 2 * P * P * s["d"] * s["layers"]              # causal: half of Q K^T and of P V
    pre = run["reality_check"]["prefill"]
    assert pre["flops"] == layers + 2 * head * 1 + attention            # logits of the last position
    assert pre["flops_all_logits"] == layers + 2 * head * P + attention  # logits of every position
    assert pre["s_median"] > 0 and pre["s_median_all_logits"] > 0


def test_matmul_rows_count_x_w_and_y_once(cpu_run, quick_plan):
    _, run = cpu_run
    rows = run["reality_check"]["matmul_roofline"] + run["reality_check"]["matmul_layers"]
    assert [r["M"] for r in run["reality_check"]["matmul_roofline"]] == list(quick_plan.sweep_m)
    layer_names = {r["layer"] for r in run["reality_check"]["matmul_layers"]}
    assert layer_names == {"qkv", "o", "gate_up", "down", "lm_head"}
    for r in rows:
        assert r["flops"] == 2 * r["M"] * r["K"] * r["N"]
        assert r["bytes"] == 4 * (r["M"] * r["K"] + r["K"] * r["N"] + r["M"] * r["N"])
        assert r["TFLOPs"] == pytest.approx(r["flops"] / r["s_median"] / 1e12)


def test_copy_read_and_strided_bytes_count_reads_and_writes_apart(cpu_run, quick_plan):
    _, run = cpu_run
    rc, lad = run["reality_check"], run["ladder"]
    assert rc["copy"]["bytes_moved"] == 2 * quick_plan.big_copy_B           # read once, written once
    assert rc["read"]["bytes_read"] == quick_plan.big_copy_B
    assert [r["working_set_MB"] for r in lad["copy_by_working_set"]] == [
        2 * w / 2**20 for w in quick_plan.working_sets_B]
    for r in lad["strided_loads"]:
        assert r["read_B"] == r["write_B"] == 4 * quick_plan.strided_elements
        assert r["useful_GBps"] == pytest.approx(r["read_GBps"] + r["write_GBps"])


def test_the_benchmark_stops_when_its_arrays_and_the_model_disagree(monkeypatch, quick_plan):
    real = ops.matmul

    def miscounted(m, k, n, *a, **kw):               # a model that forgets the output's bytes
        op = real(m, k, n, *a, **kw)
        return ops.Op(op.flops, op.moved_B - m * n * 4)
    monkeypatch.setattr(gb.ops, "matmul", miscounted)
    with pytest.raises(gb.AccountingError, match="different work"):
        gb.measure(gb.NumpyBackend(), quick_plan)


def test_the_decoder_refuses_a_shape_at_another_element_size():
    shape = dm.decoder_shape(**gb.TINY, dtype_B=2)
    with pytest.raises(ValueError, match="float32"):
        gb.Decoder(gb.NumpyBackend(), shape)


# ---- a damaged or partial run is an error naming the file and the field -----------------------

def _copy(cpu_run, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(cpu_run[0], out)
    return out


def _edit(folder, name, fn):
    path = folder / f"{name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    fn(data)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize("name", measurements.FILES)
def test_a_missing_file_is_named(cpu_run, tmp_path, name):
    out = _copy(cpu_run, tmp_path)
    (out / f"{name}.json").unlink()
    if name == "run":
        with pytest.raises(measurements.RunError, match="no run.json"):
            measurements.load(str(out))
    else:
        with pytest.raises(measurements.RunError, match=rf"{name}\.json: missing"):
            measurements.load(str(out))


@pytest.mark.parametrize("name, edit, field", [
    ("reality_check", lambda d: d["copy"].pop("GBps"), "copy.GBps"),
    ("reality_check", lambda d: d["decode"][1].update(s_eager=-1.0), "decode[1].s_eager"),
    ("reality_check", lambda d: d["decode"][0].update(batch=1.5), "decode[0].batch"),
    ("reality_check", lambda d: d["model"].update(d="4096"), "model.d"),
    ("reality_check", lambda d: d.update(matmul_roofline=[]), "matmul_roofline"),
    ("reality_check", lambda d: d["prefill"].update(s_median=float("nan")), "prefill.s_median"),
    ("ladder", lambda d: d.pop("tiny_op_eager_us"), "tiny_op_eager_us"),
    ("ladder", lambda d: d["strided_loads"][0].update(stride=0), "strided_loads[0].stride"),
    ("run", lambda d: d.update(backend="jax"), "backend"),
    ("run", lambda d: d.update(dtype_B=None), "dtype_B"),
    # consistency: numbers that disagree with each other would load and compute wrong
    ("run", lambda d: d.update(dtype_B=2), "dtype_B"),                         # float32 said to be 2 bytes
    ("run", lambda d: d.update(spec="h200_sxm"), "spec"),                      # a CPU run with a GPU's datasheet
    ("reality_check", lambda d: d["decode"][0].update(bytes_min=1), "decode[0].bytes_min"),
    ("reality_check", lambda d: d["model"].update(kv_bytes_per_token=7), "model.kv_bytes_per_token"),
    ("reality_check", lambda d: d["model"].update(params=3), "model.params"),
    ("reality_check", lambda d: d["decode"].append(dict(d["decode"][0])), "decode[3]"),
    ("reality_check", lambda d: d["copy"].update(GBps=1e6), "copy.GBps"),
    ("reality_check", lambda d: d["matmul_roofline"][1].update(flops=5), "matmul_roofline[1].flops"),
    ("reality_check", lambda d: d["decode"][0].update(batch=1.0), "decode[0].batch"),
])
def test_a_damaged_field_is_named(cpu_run, tmp_path, name, edit, field):
    out = _copy(cpu_run, tmp_path)
    _edit(out, name, edit)
    with pytest.raises(measurements.RunError) as err:
        measurements.load(str(out))
    assert f"{name}.json" in str(err.value) and field in str(err.value), str(err.value)


def test_invalid_json_and_a_wrong_format_are_named(cpu_run, tmp_path):
    out = _copy(cpu_run, tmp_path)
    (out / "ladder.json").write_text('{"h2d_pinned_GBps": ', encoding="utf-8")
    with pytest.raises(measurements.RunError, match="ladder.json: not valid JSON"):
        measurements.load(str(out))
    out2 = _copy(cpu_run, tmp_path / "b")
    _edit(out2, "run", lambda d: d.update(format=2))
    with pytest.raises(measurements.RunError, match="format 1"):
        measurements.load(str(out2))
    out3 = _copy(cpu_run, tmp_path / "c")
    _edit(out3, "run", lambda d: d.update(spec="h300_sxm"))
    with pytest.raises(measurements.RunError, match="spec"):
        measurements.load(str(out3))


def test_a_folder_that_is_not_a_run_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="gpu_bench --out"):
        measurements.load(str(tmp_path / "nowhere"))
    with pytest.raises(measurements.RunError, match="no run.json"):
        measurements.load(str(tmp_path))


# ---- the command ---------------------------------------------------------------------------

def test_dry_run_says_what_and_how_long(capsys):
    assert gb.main(["--dry-run"]) == 0
    out = capsys.readouterr().out
    for what in ("copy and read-only", "matmul sweep", "strided loads", "launch overhead", "host-device",
                 "decoder", "8.030 B parameters", "estimated duration"):
        assert what in out
    minutes = float(out.rsplit("at least ", 1)[1].split(" min")[0])
    assert 0 < minutes < 10                  # the target: the whole run under 10 minutes on an H100


def test_the_estimate_grows_with_the_repetitions():
    p = gb.plan("torch")
    from dataclasses import replace
    assert gb.estimate_s(replace(p, reps=20)) > gb.estimate_s(p)
    assert gb.estimate_s(p, mem_Bps=1.5e12) > gb.estimate_s(p)


def test_the_command_writes_a_cpu_run(tmp_path, capsys):
    out = tmp_path / "cli"
    assert gb.main(["--backend", "numpy", "--quick", "--out", str(out)]) == 0
    assert "MEASURED_RUN" in capsys.readouterr().out
    measurements.validate(out)


def test_the_torch_backend_needs_a_cuda_device(capsys):
    try:
        import torch
        has_cuda = torch.cuda.is_available()
    except ImportError:
        has_cuda = False
    if has_cuda:                              # on a GPU machine the backend starts and names the device
        assert gb.backend("torch").device()["device"]
        return
    with pytest.raises(RuntimeError, match="CUDA"):
        gb.backend("torch")
    assert gb.main(["--out", "unused"]) == 2
    assert "gpu_bench:" in capsys.readouterr().err


def test_a_plan_without_the_skinny_matmul_or_a_decode_step_is_refused():
    from dataclasses import replace
    p = gb.plan("numpy", quick=True)
    with pytest.raises(ValueError, match="M = 1"):
        replace(p, sweep_m=(4, 16))
    with pytest.raises(ValueError, match="decode_grid"):
        replace(p, decode_grid=())
    with pytest.raises(ValueError, match="lacks"):
        replace(p, shape={"layers": 2})


# ---- a chapter on the reader's run --------------------------------------------------------

SETTING = "MEASURED_RUN = measurements.RUN"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chapter_6_has_the_run_setting_and_uses_it(lang):
    from prose import ROOT
    text = (ROOT / f"notebooks/{lang}/06_performance.md").read_text(encoding="utf-8")
    assert text.count(SETTING) == 1
    assert "model_check.summary(LANG, 0, 1, 0, 0, run=MEASURED_RUN)" in text
    assert "explore(LANG, run=MEASURED_RUN)" in text


def test_chapter_6_rendered_against_the_cpu_run(cpu_run, tmp_path):
    """Chapter 6 run whole with its setting pointed at the CPU run: its model-check table shows that
    run (its device in the caption, its eager timings in the rows), and the rest of the page still
    runs (the prose's numbers stay on the H200 run)."""
    import jupytext
    import nbclient
    from prose import ROOT
    out, run = cpu_run
    nb = jupytext.read(ROOT / "notebooks/en/06_performance.md")
    cells = [c for c in nb.cells if c.cell_type == "code" and SETTING in c.source]
    assert len(cells) == 1
    cells[0].source = cells[0].source.replace(SETTING, f"MEASURED_RUN = {str(out)!r}")
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "notebooks/en")}}).execute()
    html = "\n".join(o.get("data", {}).get("text/html", "") for c in nb.cells if c.cell_type == "code"
                     for o in c.get("outputs", []))
    assert run["run"]["device"] in html and "cpu-quick" in html
    first = run["reality_check"]["decode"][0]
    assert f"{first['s_eager'] * 1e3:,.2f} ms" in html


def test_the_comparison_table_adds_the_readers_run(cpu_run):
    from infra_lib.widgets import run_compare
    out, run = cpu_run
    names = tuple(run_compare.QUANTITIES)
    alone = run_compare.summary("en", names)
    both = run_compare.summary("zh", names, run=str(out))
    assert all(len(r) == 2 for r in alone.rows) and all(len(r) == 3 for r in both.rows)
    assert run["run"]["device"] in both.header[2]
    rows = dict((r[0], r[1:]) for r in run_compare.summary("en", names, run=str(out)).rows)
    assert rows["tiny op replayed from a CUDA graph"][1] == "not measured"     # no graphs on the CPU
    assert rows["host to device, pinned memory"][1] == "not measured"
    copy = run["reality_check"]["copy"]["GBps"]
    assert rows["device-to-device copy (read + write)"][1] == f"{run_compare._number(copy)} GB/s"
    assert [run_compare._number(v) for v in (4241.9, 55.29, 1.168, 0.08123)] == ["4,242", "55.3", "1.17", "0.0812"]
    last = run["ladder"]["strided_loads"][-1]["stride"]
    assert rows["strided load, largest stride (useful bytes)"][1].endswith(f"(s = {last})")
    with pytest.raises(KeyError, match="measured quantity"):
        run_compare.summary("en", ("bandwidth",))


@pytest.mark.parametrize("chapter", ["02_cpu", "03_gpu", "05_cuda", "07_frameworks"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chapters_2_3_5_7_compare_with_the_run_their_setting_names(chapter, lang):
    from prose import ROOT
    text = next((ROOT / "notebooks" / lang).glob(f"{chapter}*.md")).read_text(encoding="utf-8")
    assert text.count("MEASURED_RUN = measurements.RUN") == 1
    assert "run_compare.summary(LANG, (" in text and "run=MEASURED_RUN)" in text


def test_a_run_folder_named_relative_to_the_working_directory(cpu_run, tmp_path, monkeypatch):
    shutil.copytree(cpu_run[0], tmp_path / "my-gpu")
    monkeypatch.chdir(tmp_path)
    assert measurements.folder("my-gpu") == (tmp_path / "my-gpu").resolve()
    assert measurements.load("my-gpu")["model"]["layers"] == gb.TINY["layers"]
    with pytest.raises(KeyError, match="unknown measurement run"):
        measurements.folder("your-gpu")                   # neither a shipped run nor a folder here


@pytest.mark.parametrize("name, key", [
    ("NVIDIA H200", "h200_sxm"), ("NVIDIA H100 80GB HBM3", "h100_sxm5"), ("NVIDIA A100-SXM4-40GB", "a100_sxm4_40gb"),
    ("NVIDIA B200", "b200_hgx"), ("NVIDIA GH200 480GB", None), ("NVIDIA H200 NVL", None), ("NVIDIA GeForce RTX 4090", None),
])
def test_a_cuda_device_name_maps_to_its_datasheet_or_to_none(name, key):
    assert gb._registry_key(name) == key


def test_strided_loads_and_the_tiny_op_follow_the_h200_runs_method(cpu_run):
    _, run = cpu_run
    lad = run["ladder"]
    h200 = measurements.load(name="ladder")
    assert [r["stride"] for r in lad["strided_loads"]] == list(gb.plan("numpy", quick=True).strides)
    assert all(r["element_B"] == 4 for r in lad["strided_loads"])          # float32, as chapter 5's model
    assert gb.plan("torch").strides == gb.plan("numpy").strides == tuple(r["stride"] for r in h200["strided_loads"])
    assert "16 float32" in lad["tiny_op"]


def test_a_prefill_after_cached_tokens_is_refused():
    be = gb.NumpyBackend()
    dec = gb.Decoder(be, dm.decoder_shape(**gb.TINY, dtype_B=4))
    caches = dec.cache(1, 16)
    with pytest.raises(ValueError, match="pos"):
        dec.forward(be.tokens(1, 4, gb.TINY["vocab"]), caches, 8)
