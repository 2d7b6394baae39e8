"""Tests for infra_lib.roofline: intensity, ridge point, attainable FLOP/s, which roof binds."""
import math

import pytest
from hypothesis import given, strategies as st

from infra_lib import roofline as r

from bad_values import BAD_NON_NEGATIVE, BAD_POSITIVE, PROPS, names


peaks = st.floats(1e9, 1e18)          # FLOP/s
bandwidths = st.floats(1e6, 1e15)     # bytes/s
intensities = st.floats(0, 1e7)       # FLOP per byte


# ---- worked numbers -----------------------------------------------------------------------

def test_ridge_point_of_h100_sxm5():
    # Whitepaper V1.04: 989.4 TFLOPS dense BF16, 3352 GB/s.
    assert r.ridge_point(989.4e12, 3352e9) == pytest.approx(989.4 / 3.352)
    assert round(r.ridge_point(989.4e12, 3352e9), 1) == 295.2


def test_arithmetic_intensity():
    # One decode step of the seed's 8B model: 2N = 16 GFLOP over 16 GB of weights = 1 FLOP/byte.
    assert r.arithmetic_intensity(16e9, 16e9) == 1.0
    assert r.arithmetic_intensity(3.2e13, 16e9) == 3.2e13 / 16e9 == 2000.0
    assert r.arithmetic_intensity(0, 1) == 0


def test_decode_is_memory_bound_and_prefill_compute_bound_on_h100():
    assert r.bound(1.0, 989.4e12, 3352e9) == "memory"
    assert r.bound(2000.0, 989.4e12, 3352e9) == "compute"


def test_attainable_on_both_sides_of_the_ridge():
    assert r.attainable_flop_s(1.0, 1e15, 3e12) == 1.0 * 3e12
    assert r.attainable_flop_s(2000.0, 1e15, 3e12) == 1e15
    assert r.attainable_flop_s(0, 1e15, 3e12) == 0


# ---- identities ---------------------------------------------------------------------------

def test_ridge_point_by_hand():
    # teaching GPU: 1,000 TFLOP/s over 3 TB/s = 333.3 FLOP/byte; H200: 989.4 TFLOP/s over 4.8 TB/s = 206.1
    assert r.ridge_point(1e15, 3e12) == pytest.approx(333.33, abs=0.01)
    assert r.ridge_point(989.4e12, 4.8e12) == pytest.approx(206.125)


@PROPS
@given(peaks, bandwidths, st.floats(0.01, 100))
def test_ridge_point_scales_with_peak_and_inversely_with_bandwidth(peak, bw, k):
    assert r.ridge_point(k * peak, bw) == pytest.approx(k * r.ridge_point(peak, bw), rel=1e-12)
    assert r.ridge_point(peak, k * bw) == pytest.approx(r.ridge_point(peak, bw) / k, rel=1e-12)
    assert r.attainable_flop_s(r.ridge_point(peak, bw), peak, bw) == pytest.approx(peak, rel=1e-12)


@PROPS
@given(peaks, bandwidths)
def test_bound_flips_exactly_at_the_ridge(peak, bw):
    ridge = r.ridge_point(peak, bw)
    assert r.bound(ridge, peak, bw) == "compute"
    assert r.bound(math.nextafter(ridge, 0), peak, bw) == "memory"
    assert r.bound(math.nextafter(ridge, math.inf), peak, bw) == "compute"


@PROPS
@given(intensities, peaks, bandwidths)
def test_attainable_never_exceeds_either_roof(i, peak, bw):
    a = r.attainable_flop_s(i, peak, bw)
    assert a <= peak
    assert a <= i * bw


@PROPS
@given(intensities, peaks, bandwidths)
def test_bound_agrees_with_attainable(i, peak, bw):
    a = r.attainable_flop_s(i, peak, bw)
    if r.bound(i, peak, bw) == "compute":
        assert a == pytest.approx(peak, rel=1e-12)   # at the ridge i*bw may round 1 ulp below peak
    else:
        assert a == pytest.approx(i * bw, rel=1e-12)


@PROPS
@given(st.floats(0, 1e6), peaks, bandwidths)
def test_attainable_is_non_decreasing_in_intensity(i, peak, bw):
    assert r.attainable_flop_s(i + 1, peak, bw) >= r.attainable_flop_s(i, peak, bw)


def test_intensity_by_hand():
    # a 4096-cubed BF16 matmul: 2 x 4096^3 FLOPs over three 4096^2 matrices of 2 bytes = 4096/3
    assert r.arithmetic_intensity(2 * 4096**3, 3 * 4096**2 * 2) == pytest.approx(1365.333, abs=1e-3)


@PROPS
@given(st.floats(0, 1e20), st.floats(1, 1e18), st.floats(0.01, 100))
def test_intensity_is_unchanged_when_work_and_traffic_scale_together(flops, n_bytes, k):
    assert r.arithmetic_intensity(k * flops, k * n_bytes) == pytest.approx(r.arithmetic_intensity(flops, n_bytes), rel=1e-12)


# ---- validation --------------------------------------------------------------------------

@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("param, call", [
    ("moved_B", lambda x: r.arithmetic_intensity(1e9, x)),
    ("peak_flop_s", lambda x: r.ridge_point(x, 3e12)),
    ("mem_bw_Bps", lambda x: r.ridge_point(1e15, x)),
    ("peak_flop_s", lambda x: r.attainable_flop_s(10, x, 3e12)),
    ("mem_bw_Bps", lambda x: r.attainable_flop_s(10, 1e15, x)),
    ("peak_flop_s", lambda x: r.bound(10, x, 3e12)),
    ("mem_bw_Bps", lambda x: r.bound(10, 1e15, x)),
])
def test_positive_inputs_reject_bad_values(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_NON_NEGATIVE)
@pytest.mark.parametrize("param, call", [
    ("flops", lambda x: r.arithmetic_intensity(x, 1e9)),
    ("intensity", lambda x: r.attainable_flop_s(x, 1e15, 3e12)),
    ("intensity", lambda x: r.bound(x, 1e15, 3e12)),
])
def test_non_negative_inputs_reject_bad_values(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@given(st.floats(0, 10), st.floats(0, 10), st.floats(0, 10))
def test_sequential_step(c, w, k):
    t = r.sequential_step_s(c, w, k)
    one_roof = max(c, w + k)
    assert t >= one_roof - 1e-12                    # never faster than one roofline over every byte
    assert t <= max(c, w) + k + 1e-12
    if c <= w:                                      # below the ridge the two models agree
        assert t == pytest.approx(one_roof)
    else:                                           # above it, slower by min(c - w, k)
        assert t - one_roof == pytest.approx(min(c - w, k), abs=1e-9)


@pytest.mark.parametrize("bad", [-1.0, float("nan"), "1"])
def test_sequential_step_rejects(bad):
    with pytest.raises((ValueError, TypeError)):
        r.sequential_step_s(bad, 1.0, 1.0)
    with pytest.raises((ValueError, TypeError)):
        r.sequential_step_s(1.0, 1.0, bad)
