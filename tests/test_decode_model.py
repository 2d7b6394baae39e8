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
    # eager SwiGLU: silu (read F, write F) then the product (read 2F, write F) = 5F
    # (10 x 4096 + 5 x 14336 + 4 x 8 x 128) x 2 bytes x 32 layers
    assert dm.elementwise_B(1) == (40960 + 71680 + 4096) * 2 * 32


def test_prefill_adds_the_attention_output_copy():
    # a.transpose(1, 2).reshape copies d values per token and layer: read and write, 2 bytes each
    p = 2000
    assert dm.elementwise_B(p, prefill=True) - dm.elementwise_B(p) == p * 32 * 2 * 4096 * 2
    assert dm.prefill_work(p).elementwise_B == dm.elementwise_B(p, prefill=True)


def test_prefill_flag_must_be_a_bool():
    with pytest.raises(TypeError, match="prefill"):
        dm.elementwise_B(10, prefill=1)


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


def test_batch_128_is_the_worst_decode_and_the_prefill_the_worst_of_all():
    ps = dm.predictions()
    worst = max((p for p in ps if p.phase == "decode"), key=lambda p: abs(p.error))
    assert worst.batch == 128
    assert abs(ps[-1].error) > abs(worst.error)


SHAPE = measurements.load()["model"]
HEAD = SHAPE["vocab"] * SHAPE["d"]


def test_prefill_with_every_logit_adds_the_lm_head_for_every_other_token():
    p = 2000
    last, every = dm.prefill_work(p, "last"), dm.prefill_work(p, "all")
    assert every.flops - last.flops == pytest.approx(2 * HEAD * (p - 1))
    assert last.lm_head_flops == 2 * HEAD


def test_prefill_layers_by_hand():
    # every weight but the embedding table and the LM head, two FLOPs each per token
    p = 100
    w = dm.prefill_work(p)
    assert w.layer_flops == 2 * (SHAPE["params"] - 2 * HEAD) * p
    assert w.attention_flops == 2 * p * p * SHAPE["d"] * SHAPE["layers"]
    assert w.lm_head_B == 2 * HEAD


def test_last_logits_prefill_is_faster_and_all_logits_is_compute_bound():
    e = dm.efficiencies()
    p = 2000
    assert dm.prefill_s(p, e, "last") < dm.prefill_s(p, e, "all")
    w = dm.prefill_work(p, "all")
    assert dm.prefill_s(p, e, "all") == pytest.approx(w.flops / e.peak_flop_s + w.elementwise_B / e.kv_Bps)


def test_unknown_logits_names_the_parameter():
    with pytest.raises(KeyError, match="logits"):
        dm.prefill_work(10, "first")


def test_prediction_uses_the_logits_the_run_computed():
    assert dm.predictions()[-1].predicted_s == dm.prefill_s(2000, dm.efficiencies(), "last")
    assert dm.predictions(logits="all")[-1].predicted_s > dm.predictions()[-1].predicted_s


def test_implied_rate_is_below_the_best_matmul():
    assert dm.prefill_required_flop_s() < dm.efficiencies().peak_flop_s


def test_terms_add_up_to_the_sequential_step():
    e = dm.efficiencies()
    for r in measurements.load()["decode"]:
        d = dm.decode_terms(r["batch"], r["ctx"], e)
        assert d.total_s == pytest.approx(dm.decode_step_s(r["batch"], r["ctx"], e))


def test_implied_kv_rate_is_below_copy_exactly_where_the_model_underpredicts():
    e = dm.efficiencies()
    for p in dm.predictions():
        if p.phase != "decode":
            continue
        try:
            below = dm.implied_kv_Bps(p.batch, p.context, e) < e.kv_Bps
        except ValueError:          # measured faster than the matmuls alone: an overprediction
            below = False
        assert below == (p.error < 0)


def test_gap_budget_is_consistent():
    e = dm.efficiencies()
    g = dm.gap_budget(128, 1000, e)
    d = dm.decode_terms(128, 1000, e)
    assert g.sweep_s + g.unexplained_s == pytest.approx(g.gap_s)
    # attention at the needed rate takes its modelled time plus the unexplained rest
    assert d.kv_s * e.kv_Bps / g.kv_Bps_needed == pytest.approx(d.kv_s + g.unexplained_s)
    assert g.weight_Bps_needed < e.weight_Bps and g.flop_s_needed < e.peak_flop_s


def test_gap_budget_refuses_a_step_the_model_does_not_underpredict():
    with pytest.raises(ValueError, match="batch"):
        dm.gap_budget(1, 1000, dm.efficiencies())


def test_waves_count_the_tiles_of_each_matmul():
    import math
    for name, w in dm.matmul_waves(128, 128, 132).items():
        n = dm.layer_matmuls()[name][1]
        tiles = math.ceil(128 / 128) * math.ceil(n / 128)
        assert w.waves == math.ceil(tiles / 132)
        assert 0 < w.efficiency <= 1


def test_datasheet_rates_predict_every_point_too_fast():
    assert all(p.error < 0 for p in dm.predictions("datasheet", "datasheet", "datasheet"))


def test_sequential_fits_better_than_overlapped():
    assert dm.mean_abs_error(dm.predictions()) < dm.mean_abs_error(dm.predictions(overlap=True))


def test_bracket_contains_batch_128():
    lo, hi = dm.ridge_bracket_s(128, 1000, dm.efficiencies())
    measured = [r for r in measurements.load()["decode"] if r["batch"] == 128][0]["s_graph"]
    assert lo < measured < hi


def test_unknown_source_names_the_parameter():
    with pytest.raises(KeyError, match="weights"):
        dm.efficiencies(weights="skiny")


def test_decode_terms_total_is_the_shared_sequential_model():
    from infra_lib import roofline
    e = dm.efficiencies()
    for b in (1, 64, 128, 512):
        d = dm.decode_terms(b, 1000, e)
        assert d.total_s == roofline.sequential_step_s(d.compute_s, d.weights_s, d.kv_s + d.elementwise_s)
        assert d.total_s == pytest.approx(max(d.weights_s, d.compute_s) + d.kv_s + d.elementwise_s)
