"""Tests for infra_lib.launch: kernel launches, eager against CUDA graphs, against the H200 run (the widget:
tests/test_widgets_launch.py).

Expected values are worked out here from the raw measurement files, never copied from the library's output.
"""
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from infra_lib import launch

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "infra_lib" / "data" / "measurements" / "h200-2026-11-29"
LADDER = json.loads((RUN / "ladder.json").read_text(encoding="utf-8"))
DECODE = {(r["batch"], r["ctx"]): r for r in json.loads((RUN / "reality_check.json").read_text(encoding="utf-8"))["decode"]}

NAN, INF = float("nan"), float("inf")
BAD_POSITIVE = [0, -1, -1e-9, NAN, INF, -INF, True, False, "1", None]
BAD_NON_NEGATIVE = [-1, -1e-9, NAN, INF, True, "1", None]
BAD_COUNT = [0, -1, 1.5, NAN, INF, True, "2", None]
PROPS = settings(max_examples=200, deadline=None)


def names(param):
    return rf"^{re.escape(param)}\b"


# ---- kernel launches --------------------------------------------------------------------------

def test_implied_launches_from_the_raw_measurements():
    row = DECODE[(1, 1000)]
    expected = (row["s_eager"] - row["s_graph"]) / ((LADDER["tiny_op_eager_us"] - LADDER["tiny_op_graph_us"]) * 1e-6)
    fit = launch.h200_launch_readings()
    assert fit.kernels_serial == pytest.approx(expected)
    assert round(fit.kernels_serial) == 224
    first = next(p for p in fit.points if (p.batch, p.context) == (1, 1000))
    assert first.serial_s == pytest.approx(row["s_eager"]) and first.overlapped_s == pytest.approx(row["s_eager"])


def test_batch_32_implies_fewer_launches():
    """Same model, longer kernels: the gap shrinks, so the serial reading's assumption (3) fails at batch 32."""
    ce, cg = LADDER["tiny_op_eager_us"] * 1e-6, LADDER["tiny_op_graph_us"] * 1e-6
    n = {b: launch.implied_launches(DECODE[(b, 1000)]["s_eager"], DECODE[(b, 1000)]["s_graph"], ce, cg) for b in (1, 32)}
    assert n[32] < n[1] / 2


def test_the_two_readings_of_the_sweep():
    """Serial: a constant gap, too large from batch 32 on. Overlapped: within 1% from batch 32 on,
    exact at both fitted ends; at batch <= 8 both are within 7%."""
    fit = launch.h200_launch_readings()
    assert len(fit.points) == len(DECODE)
    for p in fit.points:
        row = DECODE[(p.batch, p.context)]
        assert (p.graph_s, p.eager_s) == (row["s_graph"], row["s_eager"])
        assert p.serial_s - p.graph_s == pytest.approx(fit.kernels_serial * (fit.eager_launch_s - fit.graph_launch_s))
        if p.batch >= 32:
            assert p.serial_error > 0.05 and abs(p.overlapped_error) < 0.01
        else:
            assert abs(p.serial_error) < 0.03 and abs(p.overlapped_error) < 0.08
    assert fit.tail_s == pytest.approx(DECODE[(128, 1000)]["s_eager"] - DECODE[(128, 1000)]["s_graph"])
    assert fit.cpu_issue_s == DECODE[(1, 1000)]["s_eager"]


def test_h200_launch_model_is_the_overlapped_reading():
    m, row = launch.h200_launch_model(), DECODE[(1, 1000)]
    assert m.eager_overlapped_s == pytest.approx(row["s_eager"])
    assert m.graph_overlapped_s == pytest.approx(row["s_graph"])
    assert m.eager_serial_s > 1.5 * row["s_eager"]
    assert launch.h200_launch_model(128).eager_overlapped_s == pytest.approx(DECODE[(128, 1000)]["s_eager"])


def test_counted_kernels_exceed_the_serial_estimate():
    """Counting one kernel per operation gives 16-30 per layer, more than twice the serial reading's 7."""
    fit = launch.h200_launch_readings()
    low, high = launch.eager_step_kernels(32), launch.eager_step_kernels(32, fused_norm=False)
    assert 2 * fit.kernels_serial < low < fit.kernels_at_issue < high
    assert (low - 4) // 32 == len(launch.LAYER_OPS) == 16 and (high - 11) // 32 == 30


@PROPS
@given(n=st.floats(min_value=1, max_value=5000), ce=st.floats(min_value=1e-6, max_value=1e-4),
       frac=st.floats(min_value=0, max_value=0.9), gpu=st.floats(min_value=1e-5, max_value=0.1))
def test_launch_model_round_trip(n, ce, frac, gpu):
    m = launch.LaunchModel(kernels=n, eager_launch_s=ce, graph_launch_s=ce * frac, gpu_s=gpu)
    assert launch.implied_launches(m.eager_serial_s, m.graph_serial_s, ce, ce * frac) == pytest.approx(n, rel=1e-6)
    assert max(m.gpu_s, m.eager_cpu_s) == pytest.approx(m.eager_overlapped_s) and m.eager_overlapped_s <= m.eager_serial_s * (1 + 1e-12)
    assert 0 < m.lost_share_serial < 1


def test_implied_launches_checks_order():
    with pytest.raises(ValueError, match="eager_step_s"):
        launch.implied_launches(1e-3, 2e-3, 7e-6, 1e-6)
    with pytest.raises(ValueError, match="eager_launch_s"):
        launch.implied_launches(2e-3, 1e-3, 1e-6, 1e-6)


# ---- validation: every public input -----------------------------------------------------------

CASES = [
    (lambda v: launch.implied_launches(v, 5e-3, 7e-6, 1e-6), "eager_step_s", BAD_POSITIVE),
    (lambda v: launch.implied_launches(6e-3, v, 7e-6, 1e-6), "graph_step_s", BAD_POSITIVE),
    (lambda v: launch.implied_launches(6e-3, 5e-3, v, 1e-6), "eager_launch_s", BAD_POSITIVE),
    (lambda v: launch.implied_launches(6e-3, 5e-3, 7e-6, v), "graph_launch_s", BAD_NON_NEGATIVE),
    (lambda v: launch.LaunchModel(v, 7e-6, 1e-6, 5e-3), "kernels", BAD_NON_NEGATIVE),
    (lambda v: launch.LaunchModel(200, v, 1e-6, 5e-3), "eager_launch_s", BAD_POSITIVE),
    (lambda v: launch.LaunchModel(200, 7e-6, v, 5e-3), "graph_launch_s", BAD_NON_NEGATIVE),
    (lambda v: launch.LaunchModel(200, 7e-6, 1e-6, v), "gpu_s", BAD_POSITIVE),
    (lambda v: launch.h200_launch_model(v), "batch", BAD_COUNT),
]


@pytest.mark.parametrize("call, param, bads", CASES, ids=[f"{i}-{c[1]}" for i, c in enumerate(CASES)])
def test_bad_input_names_the_parameter(call, param, bads):
    for bad in bads:
        with pytest.raises((TypeError, ValueError), match=names(param)):
            call(bad)


def test_unmeasured_batch_is_named():
    with pytest.raises(ValueError, match="no decode measurement"):
        launch.h200_launch_model(3)
