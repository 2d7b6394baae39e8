"""The H200 measurements and the prediction checked against them."""
import pytest

from infra_lib import measurements


def test_files_are_the_measured_ones():
    rc = measurements.load()
    assert rc["gpu"]["name"] == "NVIDIA H200" and rc["model"]["params"] == 8_030_261_248


def test_efficiency_comes_from_the_copy_benchmark():
    # by hand: 8 GiB = 8,589,934,592 B copied in 2.0250 ms is 4,241.9 GB/s; over 4,800 GB/s: 0.8837
    assert measurements.copy_efficiency() == pytest.approx(0.8837, abs=1e-4)


# by hand, from the file: bytes read / 4,241.86 GB/s, against the CUDA-graph step time
#   batch 1:  15,140,921,344 B -> 3.5694 ms, measured 5.1374 ms: error -30.52%
#   batch 32: 19,204,153,344 B -> 4.5273 ms, measured 6.1961 ms: error -26.93%
@pytest.mark.parametrize("batch, predicted_ms, measured_ms, error", [
    (1, 3.5694, 5.1374, -0.3052),
    (32, 4.5273, 6.1961, -0.2693),
])
def test_prediction_is_bytes_over_copy_bandwidth(batch, predicted_ms, measured_ms, error):
    c = measurements.decode_check(batch)
    assert c.predicted_s * 1e3 == pytest.approx(predicted_ms, abs=1e-4)
    assert c.measured_graph_s * 1e3 == pytest.approx(measured_ms, abs=1e-4)
    assert c.error == pytest.approx(error, abs=1e-4)
    assert c.error < 0   # a real decode step never beats a plain copy


def test_unknown_point_names_what_was_measured():
    with pytest.raises(ValueError, match="batch=3.*measured"):
        measurements.decode_check(3)
    with pytest.raises(KeyError, match="runs available"):
        measurements.load("no-such-run")
    with pytest.raises(KeyError, match="did you mean h200-2026-11-29"):
        measurements.load("h200-2026-11-28")
    with pytest.raises(TypeError, match="run must be a string"):
        measurements.copy_efficiency(run=None)          # type: ignore[arg-type]


def test_matmul_size():
    assert measurements.skinny_matmul_n() == 8192


def test_the_whole_sweep_is_checked_with_one_efficiency():
    checks = measurements.decode_checks()
    rows = measurements.load()["decode"]
    assert [(c.batch, c.context) for c in checks] == [(r["batch"], r["ctx"]) for r in rows]
    bw = measurements.copy_efficiency() * 4.8e12      # eta_B once, from the copy benchmark
    for c, r in zip(checks, rows):
        assert c.predicted_s == pytest.approx(r["bytes_min"] / bw)
        assert c.measured_graph_s == r["s_graph"]
        assert c.error < 0                             # optimistic everywhere
    # by hand, batch 128 at 1,000 tokens: 31,787,065,344 B / 4,241.86 GB/s = 7.4937 ms, measured 10.7149 ms
    worst = measurements.worst_error(checks)
    assert (worst.batch, worst.context) == (8, 1000)
    assert worst.error == pytest.approx(-0.3216, abs=1e-4)
    with pytest.raises(ValueError, match="at least one"):
        measurements.worst_error([])


# ---- a run as a zip: how a reader's run reaches the live pages ---------------------------------

def _zip_of(folder, target, top="my-gpu", extra=()):
    import zipfile
    with zipfile.ZipFile(target, "w") as z:
        for name in measurements.FILES:
            z.write(folder / f"{name}.json", f"{top}/{name}.json" if top else f"{name}.json")
        for arcname, data in extra:
            z.writestr(arcname, data)
    return target


@pytest.mark.parametrize("top", ["my-gpu", ""])
def test_a_zip_of_a_run_folder_reads_as_the_folder(tmp_path, top):
    shipped = measurements.DATA_DIR / measurements.RUN
    archive = _zip_of(shipped, tmp_path / "my-gpu.zip", top)
    unpacked = measurements.folder(archive)
    assert unpacked.name.startswith("my-gpu-") and unpacked.parent.name == "infra_lib_runs"
    assert not (tmp_path / "my-gpu").exists()                              # nothing written beside the zip
    assert measurements.folder(archive) == unpacked                        # unpacked once
    assert measurements.load(str(archive)) == measurements.load()          # the same data as the folder
    assert measurements.run_name(str(archive)) == "my-gpu"
    assert measurements.decode_check(1, run=str(archive)).error == measurements.decode_check(1).error


def test_a_damaged_zip_is_refused_naming_what_is_wrong(tmp_path):
    import zipfile
    shipped = measurements.DATA_DIR / measurements.RUN
    partial = tmp_path / "partial.zip"
    with zipfile.ZipFile(partial, "w") as z:
        z.write(shipped / "run.json", "run.json")
    with pytest.raises(measurements.RunError, match=r"partial\.zip: the zip has no reality_check\.json, ladder\.json"):
        measurements.unpack(partial)
    escape = _zip_of(shipped, tmp_path / "escape.zip", extra=[("../evil.json", "{}")])
    with pytest.raises(measurements.RunError, match=r"escape\.zip: the entry '\.\./evil\.json' would be written outside"):
        measurements.unpack(escape)
    assert not (tmp_path.parent / "evil.json").exists()
    twice = _zip_of(shipped, tmp_path / "twice.zip", extra=[("other/run.json", "{}")])
    with pytest.raises(measurements.RunError, match="more than once"):
        measurements.unpack(twice)
    (tmp_path / "text.zip").write_text("not a zip")
    with pytest.raises(measurements.RunError, match=r"text\.zip: not a zip file"):
        measurements.load(str(tmp_path / "text.zip"))
    with pytest.raises(measurements.RunError, match="archive: no zip file"):
        measurements.unpack(tmp_path / "absent.zip")
    with pytest.raises(TypeError, match="archive"):
        measurements.unpack(3)                          # type: ignore[arg-type]


def test_a_zip_whose_data_is_damaged_fails_validation_naming_the_field(tmp_path):
    import json
    import shutil
    shipped = measurements.DATA_DIR / measurements.RUN
    folder = tmp_path / "src"
    shutil.copytree(shipped, folder, ignore=shutil.ignore_patterns("*.md"))
    meta = json.loads((folder / "run.json").read_text())
    meta["dtype_B"] = "two"
    (folder / "run.json").write_text(json.dumps(meta))
    archive = _zip_of(folder, tmp_path / "bad.zip")
    with pytest.raises(measurements.RunError, match="run.json.*dtype_B"):
        measurements.load(str(archive))
