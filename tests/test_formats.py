"""Tests for infra_lib.formats: minifloat ranges against the specs, rounding, block scaling."""
import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, strategies as st

from infra_lib import formats as f

from bad_values import NAN, INF, BAD_POSITIVE, BAD_COUNT, PROPS, names

BAD_NUMBER = [NAN, INF, -INF, True, False, "1", None]


# ---- ranges against the published values ---------------------------------------------------

@pytest.mark.parametrize("fmt, max_normal", [
    (f.E4M3, 448.0),          # Micikevicius et al. 2022, Table 1; OCP MX v1.0 (MXFP8)
    (f.E5M2, 57344.0),        # Micikevicius et al. 2022, Table 1
    (f.E3M2, 28.0),           # OCP MX v1.0, FP6 E3M2
    (f.E2M3, 7.5),            # OCP MX v1.0, FP6 E2M3
    (f.E2M1, 6.0),            # OCP MX v1.0, FP4 E2M1; NVIDIA NVFP4 blog
    (f.E8M0, 2.0 ** 127),     # OCP MX v1.0: E8M0 scales from 2^-127 to 2^127
])
def test_max_normal_matches_the_spec(fmt, max_normal):
    assert fmt.max_normal == max_normal


@pytest.mark.parametrize("fmt, min_normal, min_positive", [
    (f.E4M3, 2.0 ** -6, 2.0 ** -9),     # Micikevicius et al. 2022, Table 1
    (f.E5M2, 2.0 ** -14, 2.0 ** -16),   # Micikevicius et al. 2022, Table 1
    (f.E3M2, 2.0 ** -2, 2.0 ** -4),     # OCP MX v1.0
    (f.E2M3, 1.0, 0.125),               # OCP MX v1.0
    (f.E2M1, 1.0, 0.5),                 # OCP MX v1.0: min normal 1.0, subnormal 0.5
    (f.E8M0, 2.0 ** -127, 2.0 ** -127),
])
def test_smallest_values_match_the_spec(fmt, min_normal, min_positive):
    assert fmt.min_normal == min_normal
    assert fmt.min_positive == min_positive


def test_e2m1_has_exactly_eight_magnitudes():
    # NVIDIA NVFP4 blog / OCP MX v1.0: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
    assert f.E2M1.values().tolist() == [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


@pytest.mark.parametrize("fmt, count", [
    (f.E4M3, 128 - 1),        # 128 non-negative codes, one NaN (S.1111.111)
    (f.E5M2, 128 - 4),        # exponent 11111 with 4 mantissas: Inf and 3 NaNs
    (f.E3M2, 32), (f.E2M3, 32), (f.E2M1, 8),   # no special values
    (f.E8M0, 256 - 1),        # 0xFF is NaN
])
def test_number_of_finite_values(fmt, count):
    assert len(fmt.values()) == count


@pytest.mark.parametrize("fmt, bits, bias, code", [
    (f.E4M3, 8, 7, "E4M3"), (f.E5M2, 8, 15, "E5M2"), (f.E3M2, 6, 3, "E3M2"),
    (f.E2M3, 6, 1, "E2M3"), (f.E2M1, 4, 1, "E2M1"), (f.E8M0, 8, 127, "E8M0"),
])
def test_bits_bias_and_code(fmt, bits, bias, code):
    assert (fmt.bits, fmt.bias, fmt.code) == (bits, bias, code)


def test_max_normal_parts():
    assert f.E4M3.max_normal_parts == (1.75, 8)      # binary 1.110 x 2^(15 - 7)
    assert f.E5M2.max_normal_parts == (1.75, 15)
    assert f.E2M1.max_normal_parts == (1.5, 2)


def test_binades():
    assert f.E2M1.binades == pytest.approx(math.log2(6 / 0.5))
    assert f.E4M3.binades == pytest.approx(math.log2(448 * 2 ** 9))
    assert f.E8M0.binades == 254


def test_values_are_read_only():
    with pytest.raises(ValueError):
        f.E2M1.values()[0] = 1.0


@PROPS
@given(st.integers(2, 5), st.integers(0, 4), st.sampled_from(f.SPECIALS))
def test_closed_form_max_equals_enumerated_max(e, m, special):
    fmt = f.MiniFloat("x", e, m, special)
    grid = fmt.values()
    assert fmt.max_normal == grid[-1]
    assert fmt.min_positive == grid[grid > 0][0]
    assert np.all(np.diff(grid) > 0)                # ascending, no duplicates
    sig, exp = fmt.max_normal_parts
    assert 1 <= sig < 2 and sig * 2.0 ** exp == fmt.max_normal


# ---- rounding ----------------------------------------------------------------------------

def test_round_to_nearest_ties_to_even():
    x = [0.25, 0.75, 1.25, 2.5, 3.5, 5.0, 0.3, 4.9, 5.1]
    # ties go to the even code: 0 (code 0), 1.0 (2), 1.0 (2), 2.0 (4), 4.0 (6), 4.0 (6)
    assert f.round_to_format(x, f.E2M1).tolist() == [0.0, 1.0, 1.0, 2.0, 4.0, 4.0, 0.5, 4.0, 6.0]


def test_round_saturates_instead_of_overflowing():
    assert f.round_to_format([1e6, -1e6, 7.0], f.E2M1).tolist() == [6.0, -6.0, 6.0]
    assert f.round_to_format([500.0], f.E4M3).tolist() == [448.0]


def test_representable_values_round_to_themselves():
    for fmt in f.ELEMENTS:
        g = fmt.values()
        assert np.array_equal(f.round_to_format(g, fmt), g)
        assert np.array_equal(f.round_to_format(-g, fmt), -g)


@PROPS
@given(st.floats(-10, 10, allow_nan=False), st.sampled_from(f.ELEMENTS))
def test_rounding_picks_a_nearest_grid_value(x, fmt):
    r = float(f.round_to_format([x], fmt)[0])
    grid = fmt.values()
    assert abs(r) in grid
    a = min(abs(x), grid[-1])
    assert abs(a - abs(r)) <= np.min(np.abs(grid - a)) + 1e-12
    assert f.round_to_format([-x], fmt)[0] == -r


def test_unsigned_format_rejects_negatives():
    with pytest.raises(ValueError, match="unsigned"):
        f.round_to_format([-1.0], f.E8M0)


@pytest.mark.parametrize("bad", [[NAN], [INF], "abc", None, True])
def test_round_rejects_bad_x(bad):
    with pytest.raises((TypeError, ValueError), match=names("x")):
        f.round_to_format(bad, f.E2M1)


def test_round_rejects_a_non_format():
    with pytest.raises(TypeError, match=names("fmt")):
        f.round_to_format([1.0], "E2M1")


def test_power_of_two_text():
    assert f.power_of_two_text(2.0 ** -127) == "2⁻¹²⁷"
    assert f.power_of_two_text(256.0) == "2⁸"
    assert f.power_of_two_text(1.75) == "1.75"


# ---- block formats -----------------------------------------------------------------------

@pytest.mark.parametrize("args, expected", [
    ((4, 8, 32), 4.25),        # MXFP4: OCP MX v1.0 Table 1, k = 32, E8M0
    ((4, 8, 16), 4.5),         # NVFP4: "4.5 bits per value" (NVIDIA blog)
    ((6, 8, 32), 6.25),        # MXFP6
    ((8, 8, 32), 8.25),        # MXFP8
    ((4, 16, 128), 4.125),     # INT4, group 128, FP16 scale (facts.md section 7)
])
def test_bits_per_value(args, expected):
    assert f.bits_per_value(*args) == expected


def test_tensor_scale_is_amortized():
    assert f.bits_per_value(4, 8, 16, 32, 4096 * 4096) == pytest.approx(4.5 + 32 / 4096 ** 2)


@PROPS
@given(st.integers(1, 32), st.integers(0, 64), st.integers(1, 4096))
def test_bits_per_value_identity(e, s, k):
    assert f.bits_per_value(e, s, k) * k == pytest.approx(e * k + s)


def test_standard_block_formats():
    assert (f.MXFP4.block_size, f.MXFP4.scale, f.MXFP4.element) == (32, "e8m0", f.E2M1)
    assert (f.NVFP4.block_size, f.NVFP4.scale, f.NVFP4.element) == (16, "e4m3", f.E2M1)
    assert (f.MXFP4.bits_per_value, f.NVFP4.bits_per_value) == (4.25, 4.5)
    assert (f.MXFP6.bits_per_value, f.MXFP8.bits_per_value) == (6.25, 8.25)


def test_element_emax():
    assert [f.element_emax(e) for e in (f.E2M1, f.E2M3, f.E3M2, f.E4M3, f.E5M2)] == [2, 2, 4, 8, 15]


def test_e8m0_scale_follows_the_mx_rule():
    # amax 5.0: floor(log2 5) = 2, minus E2M1's emax 2 -> 2^0. amax 0.3: floor(log2 0.3) = -2 -> 2^-4.
    x = [5.0, 1.0, -2.0, 0.1, 0.3, 0.0, -0.1, 0.2]
    assert f.block_scales(x, f.E2M1, 4, "e8m0").tolist() == [1.0, 2.0 ** -4]


def test_e8m0_scale_is_clamped_to_its_range():
    s = f.block_scales([1e-300, 0.0], f.E2M1, 2, "e8m0")
    assert s.tolist() == [2.0 ** -127]


@PROPS
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=8, max_size=8))
def test_mx_block_max_lands_in_4_to_8(values):
    amax = max(abs(v) for v in values)
    assume(amax > 1e-30)
    scale = f.block_scales(values, f.E2M1, 8, "e8m0")[0]
    assert 4 <= amax / scale < 8


def test_exactly_representable_blocks_survive():
    base = np.array([6.0, 3.0, -1.5, 0.5])
    for k in (-3, 0, 5):
        x = base * 2.0 ** k
        for scale in ("e8m0", "e4m3", "fp32"):
            assert np.array_equal(f.quantize_blocks(x, f.E2M1, 4, scale), x), (k, scale)


def test_zero_blocks_stay_zero():
    for scale in f.SCALE_KINDS:
        q = f.quantize_blocks([0.0] * 4 + [1.0, 2.0, 3.0, 4.0], f.E2M1, 4, scale)
        assert q[:4].tolist() == [0.0] * 4
        assert np.all(np.isfinite(q))


@PROPS
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-30),
                min_size=16, max_size=16))
def test_exact_scale_error_is_at_most_half_the_largest_gap(values):
    # E2M1's largest gap is 4 -> 6, so with an exact scale amax/6 no value moves more than 1 x scale.
    # (A block whose largest value is below FP32's range gets a zero scale and is flushed to zero,
    # as the hardware would: hence values either 0 or above 1e-30.)
    x = np.array(values)
    q = f.quantize_blocks(x, f.E2M1, 16, "fp32")
    scale = f.block_scales(x, f.E2M1, 16, "fp32")[0]
    assert np.all(np.abs(x - q) <= scale * 1.0 * (1 + 1e-12))


def test_relative_rms_error():
    assert f.relative_rms_error([3.0, 4.0], [0.0, 4.0]) == pytest.approx(3 / 5)
    assert f.relative_rms_error([1.0, -1.0], [1.0, -1.0]) == 0.0


def test_relative_rms_error_rejects_bad_input():
    with pytest.raises(ValueError, match="all zeros"):
        f.relative_rms_error([0.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="same shape"):
        f.relative_rms_error([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match=names("y")):
        f.relative_rms_error([1.0], [NAN])


def test_heavy_tailed_sample_is_reproducible():
    a, b = f.heavy_tailed_sample(1000), f.heavy_tailed_sample(1000)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, f.heavy_tailed_sample(1000, seed=1))
    assert a.shape == (1000,)


def test_the_chapters_demonstration_claims():
    # What chapter 3 says about its sweep: error grows with block size; E4M3 scales beat
    # power-of-two scales at every size; one scale per tensor fails; E4M3 at 32 beats E8M0 at 8.
    x = f.heavy_tailed_sample(2 ** 16)
    sizes = [8, 16, 32, 64, 128]
    e8 = dict(f.block_size_sweep(x, f.E2M1, sizes, "e8m0"))
    e4 = dict(f.block_size_sweep(x, f.E2M1, sizes, "e4m3"))
    for rows in (e8, e4):
        errs = [rows[k] for k in sizes]
        assert errs == sorted(errs)
    assert all(e4[k] < e8[k] for k in sizes)
    assert e4[32] < e8[8]
    assert f.block_size_sweep(x, f.E2M1, [x.size], "fp32")[0][1] > 0.5


# ---- validation ----------------------------------------------------------------------------

@pytest.mark.parametrize("bad", BAD_COUNT)
@pytest.mark.parametrize("param, call", [
    ("element_bits", lambda v: f.bits_per_value(v, 8, 32)),
    ("block_size", lambda v: f.bits_per_value(4, 8, v)),
    ("tensor_values", lambda v: f.bits_per_value(4, 8, 16, 32, v)),
    ("block_size", lambda v: f.quantize_blocks([1.0] * 4, f.E2M1, v, "fp32")),
    ("block_size", lambda v: f.BlockFormat("x", f.E2M1, v, "e8m0")),
    ("n_values", lambda v: f.heavy_tailed_sample(v)),
    ("exp_bits", lambda v: f.MiniFloat("x", v, 1, "none")),
])
def test_counts_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", [-1, -1e-9, 1.5] + BAD_NUMBER)
@pytest.mark.parametrize("param, call", [
    ("scale_bits", lambda v: f.bits_per_value(4, v, 32)),
    ("man_bits", lambda v: f.MiniFloat("x", 2, v, "none")),
])
def test_non_negative_counts_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("param, call", [
    ("df", lambda v: f.heavy_tailed_sample(10, df=v)),
    ("x", lambda v: f.power_of_two_text(v)),
])
def test_positives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("param, call", [
    ("scale", lambda: f.quantize_blocks([1.0] * 4, f.E2M1, 4, "e5m2")),
    ("scale", lambda: f.BlockFormat("x", f.E2M1, 16, "int8")),
    ("special", lambda: f.MiniFloat("x", 4, 3, "fnuz")),
])
def test_choices_reject_unknown_options(param, call):
    with pytest.raises(ValueError, match=names(param)):
        call()


def test_length_must_be_whole_blocks():
    with pytest.raises(ValueError, match=names("x")):
        f.quantize_blocks([1.0, 2.0, 3.0], f.E2M1, 2, "fp32")
    with pytest.raises(ValueError, match=names("x")):
        f.quantize_blocks([], f.E2M1, 2, "fp32")


def test_quantize_rejects_a_non_format_element():
    with pytest.raises(TypeError, match=names("element")):
        f.quantize_blocks([1.0, 2.0], "E2M1", 2, "fp32")


def test_minifloat_rejects_too_many_bits():
    with pytest.raises(ValueError, match="exp_bits \\+ man_bits"):
        f.MiniFloat("x", 8, 23, "ieee")


def test_all_formats_and_scales_run():
    x = f.heavy_tailed_sample(64)
    for element, scale in itertools.product(f.ELEMENTS, f.SCALE_KINDS):
        q = f.quantize_blocks(x, element, 16, scale)
        assert q.shape == x.shape and np.all(np.isfinite(q))
