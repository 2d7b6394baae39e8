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


# --- scheduling beyond continuous batching: chunked prefill, prefix hits, KV reload -----------------
from infra_lib import decode_model as dm, measurements

EFF = dm.efficiencies()
SHAPE = measurements.load()["model"]


def _attn(c, prior):
    """Causal attention by pairs: each new token attends to every cached one and to the new ones
    up to itself (c(c+1)/2 pairs, the model counts c^2/2), 4 d L FLOPs a pair."""
    return 4 * SHAPE["d"] * SHAPE["layers"] * (c * prior + c * c / 2)


def test_mixed_step_reduces_to_the_decode_model():
    for b, t in ((1, 1000), (64, 1000), (128, 4000)):
        assert E.mixed_step_s(b, t, 0, EFF) == pytest.approx(dm.decode_step_s(b, t, EFF))
    with pytest.raises(ValueError, match="prior_tokens"):
        E.mixed_step_s(64, 1000, 0, EFF, prior_tokens=10)
    with pytest.raises(ValueError, match="decode_batch"):
        E.mixed_step_s(0, 1000, 512, EFF)
    with pytest.raises(TypeError, match="eff"):
        E.mixed_step_s(64, 1000, 512, 1.0)


def test_prefill_chunk_adds_only_the_cached_attention_and_reads():
    assert E.prefill_chunk_s(2000, 0, EFF) == dm.prefill_s(2000, EFF)
    c, s = 300, 1700
    kv_read = s * SHAPE["kv_bytes_per_token"] / EFF.kv_Bps
    extra = (_attn(c, s) - _attn(c, 0)) / EFF.peak_flop_s
    assert E.prefill_chunk_s(c, s, EFF) - dm.prefill_s(c, EFF) == pytest.approx(extra + kv_read)


def test_chunks_sum_to_the_whole_prompts_attention():
    p, size = 4096, 512
    total = sum(_attn(size, j) for j in range(0, p, size))
    assert total == pytest.approx(_attn(p, 0))          # chunking moves attention, it does not add it


def test_free_chunk_is_the_last_that_hides_under_the_weight_read():
    b, t = 64, 1000
    n = E.free_chunk_tokens(b, t, EFF)
    d = dm.decode_terms(b, t, EFF)
    per = 2 * (SHAPE["params"] - 2 * SHAPE["vocab"] * SHAPE["d"]) / EFF.peak_flop_s   # no embedding, no head
    assert d.compute_s + n * per <= d.weights_s < d.compute_s + (n + 1) * per
    # a larger batch leaves less room; a compute-bound batch none
    assert E.free_chunk_tokens(128, t, EFF) < n
    assert E.free_chunk_tokens(400, t, EFF) == 0


def test_admission_whole_against_chunked():
    b, t, p = 64, 1000, 8192
    base = dm.decode_step_s(b, t, EFF)
    whole = E.admit_prompt(b, t, p, EFF)
    assert whole == E.admit_prompt(b, t, p, EFF, chunk_tokens=p) == E.admit_prompt(b, t, p, EFF, chunk_tokens=10 * p)
    assert whole.chunks == 1 and whole.stall_s == pytest.approx(E.mixed_step_s(b, t, p, EFF) - base)
    assert whole.ttft_s == pytest.approx(whole.stall_s + base)
    previous = whole
    for size in (2048, 1000, 512, 256):                 # smaller chunks: shorter stalls, later first token
        a = E.admit_prompt(b, t, p, EFF, chunk_tokens=size)
        assert a.chunks == -(-p // size)
        assert a.stall_s < previous.stall_s and a.ttft_s > previous.ttft_s
        assert a.extra_s <= previous.extra_s + 1e-12    # the chunks' matmuls hide under the weight reads
        assert a.stall_s <= a.extra_s + 1e-12
        previous = a
    with pytest.raises(ValueError, match="chunk_tokens"):
        E.admit_prompt(b, t, p, EFF, chunk_tokens=0)


def test_prefix_hit_by_hand():
    s, u = 2000, 200
    cold, hot, saved = E.prefix_hit(s, u, EFF)
    assert cold == dm.prefill_s(s + u, EFF) and hot == E.prefill_chunk_s(u, s, EFF)
    layer_flops = 2 * (SHAPE["params"] - 2 * SHAPE["vocab"] * SHAPE["d"])
    assert saved == pytest.approx(layer_flops * s + _attn(s, 0))     # the prefix's own layers and attention
    assert hot < cold


def test_kv_reload_breakeven():
    kv = SHAPE["kv_bytes_per_token"]
    for n in (500, 2000, 16000):
        bw = E.kv_reload_breakeven_Bps(n, kv, EFF)
        assert E.kv_reload_s(n, kv, bw) == pytest.approx(dm.prefill_s(n, EFF))
    assert E.kv_reload_breakeven_Bps(32000, kv, EFF) < E.kv_reload_breakeven_Bps(2000, kv, EFF)
    with pytest.raises(ValueError, match="link_Bps"):
        E.kv_reload_s(100, kv, 0)
