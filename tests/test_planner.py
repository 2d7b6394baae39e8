"""Tests for infra_lib.planner: weights, KV cache, GPUs needed, largest batch, TP degree."""
import math

import pytest
from hypothesis import given, strategies as st

from infra_lib import models, planner as p

L8, L70 = models.LLAMA3_8B, models.LLAMA3_70B


def test_weights_at_three_precisions():
    n = 8_030_261_248
    assert [p.gpus_needed(L8, 80e9, bpp).weights_B for bpp in (2, 1, 0.5)] == [2 * n, n, n / 2]


def test_kv_cache_counts_kv_heads_not_query_heads():
    # 2 (K,V) x 80 layers x 8 KV heads x 128 x 2 bytes = 327,680 B per token; x 4 seqs x 1,000 tokens
    assert p.kv_cache_B(L70, 4, 1000) == 327_680 * 4000
    # the same model without GQA (64 KV heads) would cache 8 times more
    mha = models.ModelShape("mha", 80, 8192, 64, 64, 28672, 128256)
    assert p.kv_cache_B(mha, 4, 1000) == 8 * p.kv_cache_B(L70, 4, 1000)


GIB = 2**30


def test_gpus_needed_by_hand():
    # 70B BF16: 141.12 GB weights + 1.34 GB KV = 142.5 GB. Per 80 GB GPU: 72 GB for the engine,
    # of which 5 GiB (5.37 GB) runtime -> 66.6 GB for weights and KV -> 3 GPUs (2 without the runtime)
    plan = p.gpus_needed(L70, 80e9)
    assert p.RUNTIME_B == 5 * GIB
    assert plan.gpus == 3
    assert p.gpus_needed(L70, 80e9, runtime_B=0).gpus == 2
    assert plan.weights_B == 2 * L70.n_params
    assert plan.kv_B == 327_680 * 4096
    assert plan.overhead_B == pytest.approx(0.1 * 3 * 80e9)
    assert plan.runtime_B == 3 * 5 * GIB
    assert plan.total_B == pytest.approx(plan.weights_B + plan.kv_B + plan.runtime_B + plan.overhead_B)
    assert plan.limit == "weights"
    # INT4 weights (35.3 GB) fit on one GPU
    assert p.gpus_needed(L70, 80e9, bytes_per_param=0.5).gpus == 1


def test_runtime_is_charged_on_every_gpu():
    # the budget of n GPUs is n x (72 GB - runtime) - weights: each extra GiB of runtime per GPU
    # costs n GiB of KV cache
    for n in (2, 4, 8):
        a = p.kv_budget_B(L70, 80e9, gpus=n, runtime_B=0)
        b = p.kv_budget_B(L70, 80e9, gpus=n, runtime_B=GIB)
        assert a - b == pytest.approx(n * GIB)


def test_runtime_that_fills_the_gpu_is_refused_by_name():
    with pytest.raises(ValueError, match="runtime_B"):
        p.gpus_needed(L8, 80e9, runtime_B=72e9)
    with pytest.raises(ValueError, match="runtime_B"):
        p.gpus_needed(L8, 80e9, runtime_B=-1)
    assert p.kv_budget_B(L8, 80e9, runtime_B=72e9) == 0 == p.max_batch(L8, 80e9, runtime_B=80e9 * 0.9)


def test_runtime_teaching_value_covers_the_reported_profile():
    from infra_lib import hardware as hw
    reported = hw.value("h100_sxm5", "vllm_activation_peak_B") + hw.value("h100_sxm5", "vllm_non_torch_B")
    assert reported <= p.RUNTIME_B <= 1.1 * reported      # rounded up, not invented


def test_kv_cache_becomes_the_limit_at_large_batch():
    plan = p.gpus_needed(L8, 80e9, batch=256, context=8192)
    # 131,072 x 256 x 8,192 = 274.9 GB of KV vs 16.06 GB of weights
    assert plan.kv_B == 131_072 * 256 * 8192
    assert plan.limit == "kv_cache"
    assert plan.gpus == -(-(plan.weights_B + plan.kv_B) // (72e9 - p.RUNTIME_B))


def test_no_overhead_means_exact_fit():
    shape = L8
    mem = shape.weight_B(2) + p.kv_cache_B(shape, 1, 4096)
    assert p.gpus_needed(shape, mem, overhead_fraction=0, runtime_B=0).gpus == 1
    assert p.gpus_needed(shape, mem + p.RUNTIME_B, overhead_fraction=0).gpus == 1
    assert p.gpus_needed(shape, mem + p.RUNTIME_B - 1e6, overhead_fraction=0).gpus == 2


def test_max_tokens_and_batch_by_hand():
    budget = 72e9 - 5 * GIB - 2 * 8_030_261_248
    assert p.kv_budget_B(L8, 80e9) == pytest.approx(budget)
    assert p.max_tokens(L8, 80e9) == int(budget // 131_072)
    assert p.max_batch(L8, 80e9) == int(budget // 131_072) // 4096
    # without the runtime term: the old 72 GB budget, 426,784 tokens
    assert p.max_tokens(L8, 80e9, runtime_B=0) == int((72e9 - 2 * 8_030_261_248) // 131_072) == 426_784
    assert p.max_batch(L70, 80e9) == 0           # 141 GB of weights do not fit in 72 GB
    assert p.max_batch(L70, 80e9, gpus=2) == 0   # 2 x 66.6 GB < 141 GB: two 80 GB GPUs no longer hold it
    assert p.max_batch(L70, 80e9, gpus=3) == int((3 * (72e9 - 5 * GIB) - 2 * L70.n_params) // 327_680) // 4096


@given(st.integers(6, 512), st.sampled_from([1024, 4096, 32768]))
def test_max_batch_fits_and_one_more_does_not(gpus_mem_GB, context):
    mem = gpus_mem_GB * 1e9
    b = p.max_batch(L8, mem, context=context)
    if b >= 1:
        assert p.gpus_needed(L8, mem, batch=b, context=context).gpus == 1
    assert p.gpus_needed(L8, mem, batch=b + 1, context=context).gpus >= 2


def test_tensor_parallel_rules():
    assert [d for d in range(1, 17) if p.valid_tensor_parallel(L70, d).valid] == [1, 2, 4, 8]
    why = p.valid_tensor_parallel(L70, 16)
    assert not why.valid and "8 KV heads" in why.reason
    assert "64 attention heads" in p.valid_tensor_parallel(L70, 3).reason
    assert p.smallest_valid_tensor_parallel(L70, 3) == 4
    assert p.smallest_valid_tensor_parallel(L70, 9) == 0


@pytest.mark.parametrize("bad", [-0.1, 1.0, 1.5])
def test_overhead_fraction_out_of_range_is_named(bad):
    with pytest.raises(ValueError, match="overhead_fraction"):
        p.gpus_needed(L8, 80e9, overhead_fraction=bad)


def test_shape_must_be_a_model_shape():
    with pytest.raises(TypeError, match="shape"):
        p.gpus_needed("llama", 80e9)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="shape"):
        p.kv_budget_B("llama", 80e9)  # type: ignore[arg-type]


# ---- the rule of thumb (eq-rule-of-thumb) and the smallest slice (eq-smallest-slice), by hand ----

def test_rule_of_thumb_is_weights_plus_a_share():
    assert p.rule_of_thumb_B(70e9, 2, 0.2) == pytest.approx(70e9 * 2 * 1.2)       # the blog's 168 GB
    assert p.rule_of_thumb_B(70e9, 0.5, 0.2) == pytest.approx(42e9)                # and its 4-bit 42 GB
    assert p.rule_of_thumb_gpus(70e9, 80e9, 2, 0.2) == 3                           # 168 / 80 = 2.1
    assert p.rule_of_thumb_gpus(1e9, 80e9, 2, 0.2) == 1


def test_rule_of_thumb_ignores_the_batch_the_planner_counts():
    # Llama-3-70B, 64 sequences of 8,192 tokens: the planner adds 64 x 8192 x 327,680 B of KV cache
    big = p.gpus_needed(L70, 80e9, 2, batch=64, context=8192)
    assert big.kv_B == pytest.approx(64 * 8192 * 2 * 80 * 8 * 128 * 2)
    assert p.rule_of_thumb_gpus(L70.n_params, 80e9, 2, 0.2) < big.gpus


def test_gpu_node_slices():
    assert p.gpu_node_slices(8, 2) == ((1, 1), (1, 2), (1, 4), (1, 8), (2, 8))
    assert p.gpu_node_slices(4, 1) == ((1, 1), (1, 2), (1, 4))
    assert p.gpu_node_slices(6, 1) == ((1, 1), (1, 2), (1, 6))          # 4 does not divide 6


def test_smallest_slice_by_hand():
    # 227 GB: 227 / 16 = 14.19 v5e chips' worth -> 4 x 4 (16 chips), 227 / 256 full
    s = p.smallest_slice(227e9, 16e9, p.TPU_V5E_SLICES)
    assert (s.shape, s.chips) == ((4, 4), 16)
    assert s.chips_needed == pytest.approx(227 / 16) and s.fill == pytest.approx(227 / 256)
    # on 95 GB v5p chips: 2.39 chips' worth -> 2 x 2 x 1 (4 chips)
    s = p.smallest_slice(227e9, 95e9, p.TPU_V5P_SLICES)
    assert (s.shape, s.chips) == ((2, 2, 1), 4) and s.fill == pytest.approx(227 / 380)
    # on 80 GB GPUs: 2.84 GPUs' worth -> 4 GPUs of one node, not 3
    s = p.smallest_slice(227e9, 80e9, p.gpu_node_slices(8, 4))
    assert (s.shape, s.chips) == ((1, 4), 4)
    # exactly full: 32 GB on 16 GB chips is 2 chips' worth, but v5e has no 2-chip slice
    assert p.smallest_slice(32e9, 16e9, p.TPU_V5E_SLICES).shape == (2, 2)


def test_the_slice_lists_match_their_chip_counts():
    assert [math.prod(s) for s in p.TPU_V5E_SLICES] == [1, 4, 8, 16, 32, 64, 128, 256]
    assert math.prod(p.TPU_V5P_SLICES[-1]) == 6144                      # the largest single v5p slice


@pytest.mark.parametrize("call, name", [
    (lambda: p.smallest_slice(1e15, 16e9, p.TPU_V5E_SLICES), "need_B"),
    (lambda: p.smallest_slice(1e9, 0, p.TPU_V5E_SLICES), "chip_mem_B"),
    (lambda: p.smallest_slice(1e9, 16e9, ()), "shapes"),
    (lambda: p.smallest_slice(1e9, 16e9, ((2, 0),)), "shapes"),
    (lambda: p.smallest_slice(1e9, 16e9, "2x2"), "shapes"),
    (lambda: p.rule_of_thumb_B(70e9, 2, -0.1), "overhead_share"),
    (lambda: p.gpu_node_slices(8, 0), "max_nodes"),
])
def test_bad_slice_inputs_are_named(call, name):
    with pytest.raises((ValueError, TypeError), match=name):
        call()


def test_charged_is_what_eq_gpus_needed_charges_on_a_given_count():
    # by hand: Llama-3-70B BF16 weights 70,553,706,496 x 2 B; KV 2 x 80 x 8 x 128 x 2 B x 4,096 tokens;
    # on two 80 GB GPUs each is charged 5 GiB of runtime and 10 % of 80 GB
    w = 70_553_706_496 * 2
    kv = 2 * 80 * 8 * 128 * 2 * 4096
    assert p.charged_B(models.LLAMA3_70B, 80e9, 2) == pytest.approx(w + kv + 2 * (5 * 2**30 + 8e9), rel=1e-12)
    plan = p.gpus_needed(models.LLAMA3_70B, 80e9)
    assert plan.total_B == pytest.approx(p.charged_B(models.LLAMA3_70B, 80e9, plan.gpus), rel=1e-12)
    with pytest.raises(ValueError, match="gpus"):
        p.charged_B(models.LLAMA3_70B, 80e9, 0)
