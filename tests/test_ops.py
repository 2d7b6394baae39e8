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
