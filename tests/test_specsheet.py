"""Tests for infra_lib.specsheet: aligning quoted figures before comparing them."""
import pytest
from hypothesis import given, strategies as st

from infra_lib import specsheet as s


def test_h100_sparse_and_rounded_figures_align_to_dense():
    # product page 1,979 "with sparsity" -> 989.5 dense; whitepaper V1.04: 989.4
    dense = s.align(1979e12, "flop_s", sparse=True)
    assert dense.value == 989.5e12
    assert dense.changes == ("2:4 sparse -> dense: / 2",)
    assert s.relative_gap(dense.value, 989.4e12) == pytest.approx(0.1 / 989.4)
    # the 2022 launch figure of 1,000 is preliminary: flagged, not changed
    pre = s.align(1000e12, "flop_s", preliminary=True)
    assert pre.value == 1000e12 and "preliminary" in pre.changes[0]


def test_precision_ratios_hopper():
    # FP8 1,978.9 dense -> BF16 989.45; TF32 494.7 -> BF16 989.4 (H100 whitepaper Table 1)
    assert s.align(1978.9e12, "flop_s", precision="fp8").value == pytest.approx(989.45e12)
    assert s.align(494.7e12, "flop_s", precision="tf32").value == pytest.approx(989.4e12)


def test_clock_and_sm_scaling():
    # 132 SMs x 4,096 x 1.83 GHz -> at 1.98 GHz: x 1.98/1.83
    a = s.align(989.4e12, "flop_s", clock_hz=1.83e9, target_clock_hz=1.98e9)
    assert a.value == pytest.approx(989.4e12 * 1.98 / 1.83)
    b = s.align(989.4e12, "flop_s", sm_count=132, target_sm_count=114)
    assert b.value == pytest.approx(989.4e12 * 114 / 132)
    with pytest.raises(ValueError, match="target_clock_hz"):
        s.align(1e15, "flop_s", clock_hz=1e9)


def test_link_direction():
    assert s.align(900e9, "link_Bps", direction="total").value == 450e9
    assert s.align(450e9, "link_Bps", target_direction="total").value == 900e9


def test_gb_vs_gib_keeps_bytes_and_says_both():
    a = s.align(192e9, "capacity_B", target_capacity_unit="GiB")
    assert a.value == 192e9
    assert a.changes == ("192 GB = 178.8 GiB",)


def test_a_change_that_does_not_apply_is_refused():
    with pytest.raises(ValueError, match="sparse"):
        s.align(8e12, "mem_bw_Bps", sparse=True)
    with pytest.raises(ValueError, match="direction"):
        s.align(8e12, "flop_s", direction="total")


def test_nothing_asked_nothing_changed():
    assert s.align(3.35e12, "mem_bw_Bps") == s.Aligned(3.35e12, ())


@given(st.floats(1e9, 1e18), st.sampled_from(list(s.RATE_VS_BF16)), st.sampled_from(list(s.RATE_VS_BF16)))
def test_precision_round_trip(v, a, b):
    there = s.align(v, "flop_s", precision=a, target_precision=b).value
    assert s.align(there, "flop_s", precision=b, target_precision=a).value == pytest.approx(v)
