"""The H200 measurements and the prediction checked against them."""
import json

import pytest

from infra_lib import hardware, measurements


def test_files_are_the_measured_ones():
    rc = measurements.load()
    assert rc["gpu"]["name"] == "NVIDIA H200" and rc["model"]["params"] == 8_030_261_248


def test_efficiency_comes_from_the_copy_benchmark():
    rc = measurements.load()
    assert measurements.copy_efficiency() == pytest.approx(rc["copy"]["bytes_moved"] / rc["copy"]["s_median"] / 4.8e12, rel=1e-3)


@pytest.mark.parametrize("batch", [1, 32])
def test_prediction_is_bytes_over_copy_bandwidth(batch):
    c = measurements.decode_check(batch)
    row = next(r for r in measurements.load()["decode"] if r["batch"] == batch and r["ctx"] == 1000)
    copy_Bps = measurements.load()["copy"]["GBps"] * 1e9
    assert c.predicted_s == pytest.approx(row["bytes_min"] / copy_Bps)
    assert c.measured_graph_s == row["s_graph"]
    assert c.error == pytest.approx(row["bytes_min"] / copy_Bps / row["s_graph"] - 1)
    assert c.error < 0   # a real decode step never beats a plain copy


def test_unknown_point_names_what_was_measured():
    with pytest.raises(ValueError, match="batch=3.*measured"):
        measurements.decode_check(3)
    with pytest.raises(FileNotFoundError, match="runs available"):
        measurements.load("no-such-run")


def test_matmul_size():
    assert measurements.skinny_matmul_n() == 8192
