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


# ---- the HPA's scale-down stabilization ---------------------------------------------------------

def _stabilized_by_time(desired, p, w):
    """An independent reading of the rule: at time t_i, the largest recommendation recorded at a time
    t_j <= t_i with t_j > t_i - w (or the current one when the window is shorter than a sync)."""
    out = []
    for i in range(len(desired)):
        ti = i * p
        seen = [desired[j] for j in range(i + 1) if j * p > ti - w] or [desired[i]]
        out.append(max(seen + [desired[i]]))
    return tuple(out)


@pytest.mark.parametrize("p, w", [(15, 300), (15, 60), (10, 25), (15, 0), (30, 15)])
def test_hpa_stabilize_matches_the_rule_read_by_time(p, w):
    desired = [2, 2, 5, 5, 5, 3, 2, 4, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    s = A.hpa_stabilize(desired, p, w)
    assert s.replicas == _stabilized_by_time(desired, p, w)
    assert all(r >= d for r, d in zip(s.replicas, s.desired))


@pytest.mark.parametrize("low, high, p, w", [(2, 5, 15, 300), (1, 4, 15, 60), (3, 8, 20, 100)])
def test_a_spike_holds_its_extra_replicas_for_the_window_less_one_sync(low, high, p, w):
    # the need falls at the first sync after the spike; the last high recommendation leaves the
    # window w later, so the extra replicas idle for w/p - 1 syncs: (high - low) x (w - p)
    desired = [low] * 3 + [high] * 4 + [low] * (w // p + 5)
    s = A.hpa_stabilize(desired, p, w)
    assert s.idle_replica_s == pytest.approx((high - low) * (w - p))
    assert s.idle_gpu_h(4) == pytest.approx(4 * (high - low) * (w - p) / 3600)


def test_no_window_follows_the_need():
    s = A.hpa_stabilize([1, 5, 2, 7, 0], 15, 0)
    assert s.replicas == (1, 5, 2, 7, 0) and s.idle_replica_s == 0


@pytest.mark.parametrize("call, match", [
    (lambda: A.hpa_stabilize([], 15, 300), "desired"),
    (lambda: A.hpa_stabilize("12", 15, 300), "desired"),
    (lambda: A.hpa_stabilize([1, -1], 15, 300), r"desired\[1\]"),
    (lambda: A.hpa_stabilize([1, 2.5], 15, 300), r"desired\[1\]"),
    (lambda: A.hpa_stabilize([1, 2], 0, 300), "sync_period_s"),
    (lambda: A.hpa_stabilize([1, 2], 15, -1), "window_s"),
    (lambda: A.hpa_stabilize([1, 2], 15, 300).idle_gpu_h(0), "gpus_per_replica"),
])
def test_hpa_stabilize_rejects_bad_input(call, match):
    with pytest.raises((TypeError, ValueError), match=match):
        call()
