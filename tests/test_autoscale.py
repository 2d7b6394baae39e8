"""infra_lib/autoscale.py: cold starts, Little's law, replicas, a burst (values worked by hand)."""
import pytest

from infra_lib import autoscale as A


def test_cold_start_adds_its_parts():
    c = A.cold_start(10e9, 0.5e9, 140e9, 5e9, 30)
    assert (c.pull_s, c.load_s, c.init_s, c.total_s) == (20, 28, 30, 78)


@pytest.mark.parametrize("rate, w, slots, u, n", [(20, 2, 16, 1, 3), (20, 2, 16, 0.8, 4), (16, 1, 16, 1, 1),
                                                   (0, 2, 16, 0.8, 1), (8, 2, 16, 1, 1), (8.5, 2, 16, 1, 2)])
def test_replicas(rate, w, slots, u, n):
    assert A.replicas_needed(rate, w, slots, u) == n


def test_burst_queue_grows_by_the_excess_during_the_cold_start():
    b = A.simulate_burst(10, 30, 2, 16, 60, burst_at_s=60, duration_s=600)
    # 2 replicas x 8/s = 16/s served; 30/s offered: 14/s excess for 60 s
    assert b.peak_queued == pytest.approx(14 * 60)
    # the queue peaks at t = 119 s (the last step before the new replicas); from t = 120 s
    # 5 replicas serve 40/s, so the spare 10/s drains 840 in 84 steps
    assert b.time_s[b.queued.index(b.peak_queued)] == 119
    assert b.drained_s == pytest.approx(119 + 84)


def test_instant_start_never_queues():
    assert A.simulate_burst(10, 30, 2, 16, 0).peak_queued == 0


def test_longer_cold_start_queues_more():
    q = [A.simulate_burst(10, 30, 2, 16, c).peak_queued for c in (10, 60, 200)]
    assert q == sorted(q) and q[0] == pytest.approx(140)
