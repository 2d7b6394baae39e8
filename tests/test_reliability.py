"""infra_lib/reliability.py: job MTBF against scale, Young's and Daly's checkpoint intervals, goodput.

Expected values are derived here independently: the optima by a numeric search over the waste and
wall-time functions, the MTBF scaling from rates added by hand."""
import math

import pytest

from infra_lib import reliability as R


def _argmin(f, lo, hi, iters=200):
    """Golden-section search for the minimum of a unimodal f on [lo, hi]."""
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    for _ in range(iters):
        if f(c) < f(d):
            b = d
        else:
            a = c
        c, d = b - g * (b - a), a + g * (b - a)
    return (a + b) / 2


def test_job_mtbf_adds_failure_rates():
    part = 5 * 365 * 86400.0
    rates = sum(1 / part for _ in range(1000))            # 1000 parts, one rate each
    assert R.job_mtbf_s(part, 1000) == pytest.approx(1 / rates)
    # halving the job doubles its MTBF: 1/N
    for n in (1, 7, 1024, 16384):
        assert R.job_mtbf_s(part, n) * n == pytest.approx(part)
        assert R.job_mtbf_s(part, 2 * n) == pytest.approx(R.job_mtbf_s(part, n) / 2)
        assert R.part_mtbf_s(R.job_mtbf_s(part, n), n) == pytest.approx(part)


@pytest.mark.parametrize("delta, m", [(60, 11_000), (10, 3600), (300, 86_400), (5, 1e6)])
def test_young_is_the_minimum_of_the_first_order_waste(delta, m):
    best = _argmin(lambda tau: R.young_waste(tau, delta, m), 1.0, 20 * m)
    assert R.young_interval_s(delta, m) == pytest.approx(best, rel=1e-6)


@pytest.mark.parametrize("delta, m", [(60, 11_000), (10, 3600), (300, 86_400), (120, 1800)])
def test_daly_approximates_the_minimum_of_the_exact_wall_time(delta, m):
    best = _argmin(lambda tau: R.wall_time_s(1e6, tau, delta, 600, m), 1.0, 5 * m)
    daly, young = R.daly_interval_s(delta, m), R.young_interval_s(delta, m)
    assert daly == pytest.approx(best, rel=2e-3)
    assert abs(daly - best) <= abs(young - best)        # the higher-order form is the closer one
    # and the wall time at Daly's interval is within a hair of the true minimum
    assert R.wall_time_s(1e6, daly, delta, 600, m) == pytest.approx(R.wall_time_s(1e6, best, delta, 600, m), rel=1e-6)


@pytest.mark.parametrize("mtbf_h, tau_min", [(24, 117), (6, 57), (0.25, 9.1)])
def test_daly_matches_the_papers_own_examples(mtbf_h, tau_min):
    """Daly (2006), Figs. 3 to 5: R = 10 min, delta = 5 min; the model predicts 117, 57 and 9.1 min."""
    tau = R.daly_interval_s(5 * 60, mtbf_h * 3600) / 60
    assert tau == pytest.approx(tau_min, abs=0.5 if tau_min > 10 else 0.05)


def test_daly_caps_at_mtbf_for_long_checkpoints():
    assert R.daly_interval_s(2000, 1000) == 1000
    assert R.daly_interval_s(1999, 1000) > 0


def test_goodput_limits_and_monotonicity():
    tau, delta = 1200.0, 60.0
    assert R.goodput(tau, delta, 600, 1e12) == pytest.approx(tau / (tau + delta))       # no failures
    g = [R.goodput(tau, delta, r, 10_000) for r in (0, 300, 600, 3600)]
    assert all(0 < x < 1 for x in g) and g == sorted(g, reverse=True)                   # slower restarts, less goodput
    # first order in 1/M: each segment of tau + delta costs itself, plus at rate 1/M half a segment and a restart
    m = 1e7
    first = tau / (tau + delta) / (1 + ((tau + delta) / 2 + 600) / m)
    assert R.goodput(tau, delta, 600, m) == pytest.approx(first, rel=1e-5)
    # more GPUs, shorter MTBF, less goodput even at each scale's own best interval
    part = 5 * 365 * 86400.0
    best = [R.goodput(R.daly_interval_s(delta, R.job_mtbf_s(part, n)), delta, 600, R.job_mtbf_s(part, n))
            for n in (1024, 16384, 131072)]
    assert best == sorted(best, reverse=True)


def test_wall_time_is_linear_in_work():
    assert R.wall_time_s(2e6, 1000, 60, 600, 1e4) == pytest.approx(2 * R.wall_time_s(1e6, 1000, 60, 600, 1e4))
    assert R.wall_time_s(0, 1000, 60, 600, 1e4) == 0


@pytest.mark.parametrize("call, match", [
    (lambda: R.young_interval_s(0, 100), "checkpoint_s"),
    (lambda: R.young_interval_s(10, -1), "mtbf_s"),
    (lambda: R.job_mtbf_s(100, 0), "parts"),
    (lambda: R.goodput(100, 10, -1, 1000), "restart_s"),
    (lambda: R.wall_time_s(1, 1e6, 10, 0, 1), "700"),
])
def test_bad_inputs_are_named(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
