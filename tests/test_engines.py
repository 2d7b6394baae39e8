"""infra_lib.engines: batching steps, KV fragmentation, prefix caching, engine CPU time, by hand."""
import pytest

from infra_lib import engines as E


def test_batching_by_hand():
    lens = [8, 1, 1, 1, 1, 1, 1, 1]
    assert E.static_batching_steps(lens, 4) == 8 + 1
    assert E.continuous_batching_steps(lens, 4) == 8       # the short ones pass through the other 3 slots
    assert E.continuous_batching_steps([3, 3, 3], 1) == 9 == E.static_batching_steps([3, 3, 3], 1)
    assert E.slot_utilization([5, 5], 2) == 1.0


def test_continuous_never_slower():
    lens = [(7 * i) % 13 + 1 for i in range(40)]
    for b in (1, 2, 5, 8):
        assert E.continuous_batching_steps(lens, b) <= E.static_batching_steps(lens, b)
        assert E.continuous_batching_steps(lens, b) >= -(-sum(lens) // b)


def test_kv_waste():
    c = E.kv_contiguous([512, 1024], 2048)
    assert c.waste_share == pytest.approx(1 - 1536 / 4096)
    p = E.kv_paged([17, 32], 16)
    assert (p.reserved_tokens, p.wasted_tokens) == (64, 15)
    assert E.kv_paged([17], 1).waste_share == 0
    with pytest.raises(ValueError):
        E.kv_contiguous([3000], 2048)


def test_prefix_and_cpu():
    kv, fl = E.prefix_cache_saving(3, 10, 2.0, 5.0)
    assert (kv, fl) == (40.0, 100.0)
    assert E.prefix_cache_saving(1, 10, 2.0, 5.0) == (0.0, 0.0)
    assert E.engine_cpu_s(10, 1e-3, 1e-4) == pytest.approx(2e-3)
    assert E.engine_step_s(3e-3, 2e-3) == 3e-3


@pytest.mark.parametrize("alpha, k", [(0.0, 3), (0.5, 1), (0.7, 4), (0.9, 8), (1.0, 5)])
def test_speculative_tokens_is_the_explicit_sum(alpha, k):
    # P(at least i drafts accepted) = alpha^i; the step adds the accepted drafts and one target token
    assert E.speculative_tokens_per_step(alpha, k) == pytest.approx(sum(alpha ** i for i in range(k + 1)))


def test_speculative_tokens_by_monte_carlo():
    import random
    rng, alpha, k, n = random.Random(7), 0.75, 4, 200_000
    total = 0
    for _ in range(n):
        accepted = 0
        while accepted < k and rng.random() < alpha:
            accepted += 1
        total += accepted + 1
    assert total / n == pytest.approx(E.speculative_tokens_per_step(alpha, k), rel=0.01)


def test_speculative_speedup():
    assert E.speculative_speedup(0.8, 4, 0.0) == pytest.approx(E.speculative_tokens_per_step(0.8, 4))
    assert E.speculative_speedup(0.0, 4, 0.1) == pytest.approx(1 / 1.4)      # nothing accepted: a loss
    assert E.speculative_speedup(1.0, 3, 0.25) == pytest.approx(4 / 1.75)
    with pytest.raises(ValueError):
        E.speculative_tokens_per_step(1.2, 4)


def test_cuda_graph_padding():
    sizes = [1, 2, 4, 8, 16]
    assert [E.padded_batch(b, sizes) for b in (1, 3, 5, 16)] == [1, 4, 8, 16]
    assert E.padding_share([3, 5], sizes) == pytest.approx(1 - 8 / 12)
    assert E.padding_share([1, 2, 4], sizes) == 0
    with pytest.raises(ValueError):
        E.padded_batch(17, sizes)
