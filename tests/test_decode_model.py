"""infra_lib.decode_model: the H200 check, its inputs separate from what it predicts."""
import pytest

from infra_lib import decode_model as dm
from infra_lib import measurements


def test_efficiencies_come_from_microbenchmarks():
    e = dm.efficiencies()
    data = measurements.load()
    assert e.weight_Bps == pytest.approx(data["matmul_roofline"][0]["GBps"] * 1e9)
    assert e.kv_Bps == pytest.approx(data["copy"]["GBps"] * 1e9)
    assert e.peak_flop_s == pytest.approx(max(r["TFLOPs"] for r in data["matmul_roofline"]) * 1e12)


def test_datasheet_compute_is_half_the_sparse_figure():
    # H200: 1,979 TFLOP/s sparse BF16 on the datasheet, dense half of it
    assert dm.efficiencies(compute="datasheet").peak_flop_s == 989.5e12


def test_weight_bytes_match_the_runs_bytes_min():
    for r in measurements.load()["decode"]:
        assert dm.weight_read_B() + r["kv_bytes_read"] == r["bytes_min"]


def test_elementwise_by_hand():
    # (10 x 4096 + 3 x 14336 + 4 x 8 x 128) x 2 bytes x 32 layers
    assert dm.elementwise_B(1) == (40960 + 43008 + 4096) * 2 * 32


def test_batch_one_by_hand():
    e = dm.Efficiencies(3e12, 4e12, 800e12)
    want = 15009849344 / 3e12 + (131072 * 1000 + dm.elementwise_B(1)) / 4e12
    assert dm.decode_step_s(1, 1000, e) == pytest.approx(want)


def test_overlapped_never_slower_than_one_stream_of_the_same_bytes():
    e = dm.Efficiencies(4e12, 4e12, 800e12)
    assert dm.decode_step_s(64, 1000, e, overlap=True) <= dm.decode_step_s(64, 1000, e)


def test_every_configuration_and_the_prefill_are_checked():
    ps = dm.predictions()
    assert len(ps) == len(measurements.load()["decode"]) + 1 and ps[-1].phase == "prefill"


def test_goal_is_met_and_batch_128_is_the_worst_decode():
    ps = dm.predictions()
    assert dm.mean_abs_error(ps) <= 0.05
    worst = max((p for p in ps if p.phase == "decode"), key=lambda p: abs(p.error))
    assert worst.batch == 128


def test_sequential_fits_better_than_overlapped():
    assert dm.mean_abs_error(dm.predictions()) < dm.mean_abs_error(dm.predictions(overlap=True))


def test_bracket_contains_batch_128():
    lo, hi = dm.ridge_bracket_s(128, 1000, dm.efficiencies())
    measured = [r for r in measurements.load()["decode"] if r["batch"] == 128][0]["s_graph"]
    assert lo < measured < hi


def test_unknown_source_names_the_parameter():
    with pytest.raises(KeyError, match="weights"):
        dm.efficiencies(weights="skiny")
