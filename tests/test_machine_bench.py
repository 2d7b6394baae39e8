"""Tests for infra_lib.machine_bench: the plumbing and the bounds, never the machine's speed.

A fake clock makes every duration known in advance, so the expected rates and repetition
counts are worked out here by hand.
"""
import math
import re

import pytest
from hypothesis import given, settings, strategies as st

from infra_lib import machine_bench as mb

NAN, INF = float("nan"), float("inf")
PROPS = settings(max_examples=200, deadline=None)


def names(param):
    return rf"^{re.escape(param)}\b"


STEP = 2.0**-6   # 0.015625 s: a power of two, so sums of steps are exact in floating point


def ticking(step=STEP):
    """A clock that advances by ``step`` seconds every time it is read."""
    state = {"t": 0.0}

    def clock():
        state["t"] += step
        return state["t"]
    return clock


# ---- time_repeats ---------------------------------------------------------------------------

def test_stops_when_the_time_budget_is_spent():
    calls = []
    times = mb.time_repeats(lambda: calls.append(1), max_time_s=0.35, max_reps=100, clock=ticking(0.1))
    # each call is timed by two clock reads 0.1 s apart: after 4 calls 0.4 s >= 0.35 s
    assert times == pytest.approx((0.1,) * 4) and len(calls) == 4


def test_stops_at_the_repetition_cap():
    assert len(mb.time_repeats(lambda: None, max_time_s=5, max_reps=3, clock=ticking(0.01))) == 3


def test_runs_at_least_once_even_if_one_call_exceeds_the_budget():
    assert mb.time_repeats(lambda: None, max_time_s=0.01, max_reps=10, clock=ticking(1.0)) == (1.0,)


@pytest.mark.parametrize("kwargs, param", [
    (dict(max_time_s=0), "max_time_s"), (dict(max_time_s=-1), "max_time_s"), (dict(max_time_s=NAN), "max_time_s"),
    (dict(max_time_s=INF), "max_time_s"), (dict(max_time_s=True), "max_time_s"), (dict(max_time_s="1"), "max_time_s"),
    (dict(max_time_s=None), "max_time_s"), (dict(max_time_s=mb.MAX_TIME_S * 2), "max_time_s"),
    (dict(max_reps=0), "max_reps"), (dict(max_reps=1.5), "max_reps"), (dict(max_reps=True), "max_reps"),
    (dict(max_reps="3"), "max_reps"), (dict(max_reps=None), "max_reps"), (dict(max_reps=mb.MAX_REPS + 1), "max_reps"),
    (dict(clock=3.0), "clock"), (dict(clock=None), "clock"),
])
def test_time_repeats_validation(kwargs, param):
    args = dict(max_time_s=0.1, max_reps=3, clock=ticking())
    args.update(kwargs)
    with pytest.raises((TypeError, ValueError), match=names(param)):
        mb.time_repeats(lambda: None, **args)


def test_fn_must_be_callable():
    with pytest.raises(TypeError, match=names("fn")):
        mb.time_repeats(42, 0.1, 3)


# ---- Timing -------------------------------------------------------------------------------------

def test_timing_keeps_the_best_repetition():
    t = mb.Timing("copy", 1e9, "B", (0.5, 0.25, 0.4))
    assert t.best_s == 0.25 and t.rate == 4e9 and t.reps == 3 and t.total_s == pytest.approx(1.15)


@pytest.mark.parametrize("times", [(), (0.0,), (0.1, -0.1), (NAN,)])
def test_a_clock_that_did_not_advance_cannot_time(times):
    with pytest.raises(ValueError, match="times_s"):
        mb.Timing("copy", 1e9, "B", times)


# ---- the kernels, with a fake clock ------------------------------------------------------------

def test_copy_counts_bytes_read_and_written():
    n = 1 << 20
    t = mb.copy_bandwidth(n, max_time_s=5 * STEP, max_reps=50, clock=ticking())
    assert t.work == 2 * n and t.unit == "B"
    assert t.reps == 5                         # 5 steps reach the budget of 5 steps
    assert t.rate == pytest.approx(2 * n / STEP)


def test_read_counts_the_matrix_and_two_vectors():
    n_bytes = 1 << 20                           # 262,144 float32: a 512 x 512 matrix
    t = mb.read_bandwidth(n_bytes, max_time_s=1, max_reps=4, clock=ticking(0.002))
    assert mb.matvec_side(n_bytes) == 512
    assert t.work == 4 * (512 * 512 + 2 * 512) and t.reps == 4
    assert t.rate == pytest.approx(t.work / 0.002)


def test_matmul_with_a_given_size():
    t = mb.matmul_flop_s(n=128, max_time_s=1, max_reps=2, clock=ticking(0.001))
    assert t.work == 2 * 128**3 and t.reps == 2
    assert t.rate == pytest.approx(2 * 128**3 / 0.001)


def test_matmul_probe_picks_the_size():
    # every timed call takes 0.01 s on the fake clock, so the 512^3 probe reads as 2*512^3/0.01 FLOP/s
    t = mb.matmul_flop_s(n=None, max_time_s=0.4, max_reps=1, max_n=1024, clock=ticking(0.01))
    rate = 2 * 512**3 / 0.01                   # 2.68e10 FLOP/s
    n = int((rate * 0.4 / 3 / 2) ** (1 / 3)) // 64 * 64   # a third of 0.4 s per repetition: 1152 -> capped
    assert n == 1152
    assert t.work == 2 * 1024**3


@pytest.mark.parametrize("bad", [0, 100, mb.MAX_COPY_B + 1, 1048576.5, NAN, INF, True, "1", None])
def test_copy_size_is_bounded(bad):
    with pytest.raises((TypeError, ValueError), match=names("size_B")):
        mb.copy_bandwidth(bad, clock=ticking())


@pytest.mark.parametrize("bad", [0, 32, mb.MAX_MATMUL_N + 64, 100.5, NAN, True, "512"])
def test_matmul_size_is_bounded(bad):
    with pytest.raises((TypeError, ValueError), match=names("n")):
        mb.matmul_flop_s(n=bad, clock=ticking())


def test_matmul_budget_is_validated():
    with pytest.raises(ValueError, match=names("max_time_s")):
        mb.matmul_flop_s(n=128, max_time_s=0)
    with pytest.raises(TypeError, match=names("clock")):
        mb.matmul_flop_s(n=128, clock="now")


# ---- size choice and intensities -----------------------------------------------------------------

def test_choose_matmul_n_by_hand():
    # 50 GFLOP/s x 0.1 s = 5 GFLOP = 2 n^3  ->  n = 1357.2  ->  1344 (a multiple of 64)
    assert mb.choose_matmul_n(50e9, 0.1) == 1344
    assert mb.choose_matmul_n(1e18, 1.0, max_n=512) == 512
    assert mb.choose_matmul_n(1.0, 1.0) == 64


@PROPS
@given(rate=st.floats(min_value=1e3, max_value=1e16), target=st.floats(min_value=1e-4, max_value=2),
       cap=st.integers(min_value=64, max_value=4096))
def test_choose_matmul_n_is_a_bounded_multiple_of_64(rate, target, cap):
    n = mb.choose_matmul_n(rate, target, cap)
    assert mb.MIN_MATMUL_N <= n <= cap
    assert n % 64 == 0 or n == cap
    assert mb.choose_matmul_n(rate * 8, target, cap) >= n


@pytest.mark.parametrize("kwargs, param", [(dict(probe_flop_s=0), "probe_flop_s"), (dict(probe_flop_s=NAN), "probe_flop_s"),
                                           (dict(target_s=-1), "target_s"), (dict(target_s=None), "target_s"),
                                           (dict(max_n=32), "max_n"), (dict(max_n=8192), "max_n"), (dict(max_n=True), "max_n")])
def test_choose_matmul_n_validation(kwargs, param):
    args = dict(probe_flop_s=1e10, target_s=0.1, max_n=2048)
    args.update(kwargs)
    with pytest.raises((TypeError, ValueError), match=names(param)):
        mb.choose_matmul_n(**args)


@PROPS
@given(n=st.integers(min_value=1, max_value=4096))
def test_matmul_intensity_is_n_over_6(n):
    assert mb.matmul_intensity(n) == pytest.approx(n / 6)


# ---- the whole benchmark, for real, with tiny budgets (its plumbing, not its speed) ---------------

def test_measure_returns_a_consistent_machine():
    m = mb.measure(copy_B=1 << 20, copy_time_s=0.01, read_time_s=0.01, matmul_time_s=0.02)
    for rate in (m.copy_Bps, m.read_Bps, m.flop_s):
        assert rate > 0 and math.isfinite(rate)
    assert m.copy.work == 2 * (1 << 20)
    assert m.ridge_point == pytest.approx(m.flop_s / m.read_Bps)
    assert m.matmul.work == 2 * m.matmul_n**3
    assert m.matmul_intensity == pytest.approx(m.matmul_n / 6)
    assert m.logical_cpus >= 1 and m.cpu.strip()
    assert m.timed_s == pytest.approx(m.copy.total_s + m.read.total_s + m.matmul.total_s)


def test_measure_with_a_fake_clock_is_exact():
    m = mb.measure(copy_B=1 << 20, copy_time_s=3 * STEP, read_time_s=2 * STEP, matmul_time_s=4 * STEP,
                   clock=ticking())
    assert m.copy.reps == 3 and m.read.reps == 2 and m.matmul.reps == 4
    assert m.copy_Bps == pytest.approx(2 * (1 << 20) / STEP)
    assert m.read_Bps == pytest.approx(4 * (512 * 512 + 2 * 512) / STEP)


def test_measure_validates_the_buffer_size():
    with pytest.raises(ValueError, match=names("copy_B")):
        mb.measure(copy_B=mb.MAX_COPY_B * 2)
