"""infra_lib.ops: FLOPs and bytes by hand, and the two time bounds."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra_lib import ops


def test_matmul_by_hand():
    op = ops.matmul(2, 3, 4)                   # 2 x 2*3*4 = 48 FLOPs; (6 + 12 + 8) x 2 bytes
    assert op.flops == 48 and op.moved_B == 52


def test_square_matmul_intensity_is_n_over_3_in_bf16():
    assert ops.matmul(3000, 3000, 3000).intensity == pytest.approx(1000)


def test_fp8_weights_halve_weight_bytes():
    assert ops.matmul(1, 1000, 1000, bytes_b=1).moved_B == 1000 * 2 + 1000 * 1000 + 1000 * 2


def test_decode_attention_gqa_intensity_does_not_depend_on_batch():
    a = ops.decode_attention(1, 1000, 64, 8, 128)
    b = ops.decode_attention(64, 1000, 64, 8, 128, layers=80)
    assert a.intensity == b.intensity == 2 * 64 / (8 * 2)


def test_attention_rejects_heads_not_divisible():
    with pytest.raises(ValueError, match="kv_heads"):
        ops.decode_attention(1, 10, 32, 6, 128)


def test_elementwise_needs_some_traffic():
    with pytest.raises(ValueError, match="inputs"):
        ops.elementwise(10, inputs=0, outputs=0)


@given(st.floats(1, 1e15), st.floats(1, 1e12), st.floats(1e9, 1e16), st.floats(1e9, 1e13))
def test_max_below_sum_below_twice_max(flops, moved, peak, bw):
    op = ops.Op(flops, moved)
    lo, hi = ops.time_max_s(op, peak, bw), ops.time_sum_s(op, peak, bw)
    assert lo <= hi <= 2 * lo * (1 + 1e-12)


def test_bound_flips_at_ridge():
    # ridge 1000 FLOP/s over 1 B/s = 1000 FLOP/byte: 999 FLOPs on one byte is below it, 1000 on it
    assert ops.Op(999, 1).bound(1000, 1) == "memory"
    assert ops.Op(1000, 1).bound(1000, 1) == "compute"


def test_bound_names_bad_roofs():
    with pytest.raises(ValueError, match="peak_flop_s"):
        ops.Op(1000, 1).bound(0, 1)
    with pytest.raises(ValueError, match="mem_bw_Bps"):
        ops.Op(1000, 1).bound(1000, -1)


# ---- attention: standard (scores in HBM) against tiled (FlashAttention) -------------------------

def test_attention_standard_counts_qkv_o_and_four_passes_over_the_scores():
    t, d = 10, 4                                   # by hand: Q, K, V, O = 4 t d; S, P written and read = 4 t^2
    op = ops.attention_standard(t, d, bytes_per_element=1)
    assert op.moved_B == 4 * t * d + 4 * t * t and op.flops == 2 * (2 * t * t * d)


@given(st.integers(1, 4096), st.sampled_from([64, 128, 256]))
def test_attention_standard_intensity_stays_below_d_over_b(t, d):
    assert ops.attention_standard(t, d).intensity < d / 2


@given(st.integers(1, 8192), st.sampled_from([64, 128]), st.sampled_from([64, 128, 256]))
def test_tiled_attention_moves_no_more_than_standard_and_once_is_least(t, d, bq):
    std, tiled, once = ops.attention_standard(t, d), ops.attention_tiled(t, d, bq), ops.attention_tiled(t, d)
    assert once.moved_B <= tiled.moved_B and once.flops == tiled.flops == std.flops
    if bq >= d:
        assert tiled.moved_B <= std.moved_B


def test_tiled_attention_once_intensity_is_t_over_b_and_the_ridge_crossing():
    assert ops.attention_tiled(1000, 128, heads=8, batch=3).intensity == pytest.approx(1000 / 2)
    for ridge in (206.1, 295.2, 64.0):
        t = ops.attention_tiled_ridge_seq(ridge)
        assert ops.attention_tiled(t, 128).intensity >= ridge > ops.attention_tiled(t - 1, 128).intensity


def test_attention_rejects_bad_block():
    with pytest.raises(ValueError, match="block_q"):
        ops.attention_tiled(100, 64, 0)
