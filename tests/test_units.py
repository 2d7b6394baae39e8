"""Tests for infra_lib.units: bits vs bytes, SI vs binary prefixes, per direction vs total."""

import pytest
from hypothesis import given, strategies as st

from infra_lib import units as u

from bad_values import NAN, BAD_NON_NEGATIVE, BAD_POSITIVE, PROPS, names

# Up to 1e300 so that 8x or 2x of the input stays a finite float.
finite_non_negative = st.floats(min_value=0, max_value=1e300, allow_nan=False, allow_infinity=False)


# ---- prefix constants --------------------------------------------------------------------

def test_si_prefixes_are_powers_of_ten():
    assert (u.KB, u.MB, u.GB, u.TB, u.PB) == (1000, 1000**2, 1000**3, 1000**4, 1000**5)


def test_binary_prefixes_are_powers_of_1024():
    assert (u.KiB, u.MiB, u.GiB, u.TiB) == (1024, 1024**2, 1024**3, 1024**4)


def test_time_constants():
    assert u.MS == 1 / 1000 and u.US == 1 / 1_000_000 and u.NS == 1 / 1_000_000_000
    assert u.BITS_PER_BYTE == 8


def test_prefixes_for_what_is_not_bytes_are_the_byte_prefixes():
    assert (u.KILO, u.MEGA, u.GIGA, u.TERA, u.PETA) == (u.KB, u.MB, u.GB, u.TB, u.PB)
    assert (u.GFLOP, u.TFLOP, u.PFLOP) == (1000**3, 1000**4, 1000**5)


def test_per_second_multipliers_invert_the_time_constants():
    assert (u.MS_PER_S, u.US_PER_S, u.NS_PER_S) == (1000, 1_000_000, 1_000_000_000)
    assert u.PERCENT_PER_WHOLE == 100
    # why both exist: multiplying by 1e6 and dividing by 1e-6 can differ in the last bit
    t_s = 0.1
    assert t_s * u.US_PER_S == 100000.0 and t_s / u.US != t_s * u.US_PER_S


@pytest.mark.parametrize("prefix, power", [("K", 1), ("M", 2), ("G", 3), ("T", 4)])
def test_binary_over_si(prefix, power):
    assert u.binary_over_si(prefix) == pytest.approx(1024**power / 1000**power, rel=1e-15)


def test_gib_is_about_7_percent_bigger_than_gb():
    assert round(u.binary_over_si("G"), 3) == 1.074   # 1073741824 / 1e9


# ---- bits and bytes ----------------------------------------------------------------------

def test_nic_400_gbit_is_50_gbyte():
    # DGX H100 user guide: ConnectX-7 "Up to 400Gbps"; 400e9 / 8 = 50e9 B/s.
    assert u.bits_to_bytes(400e9) == 50e9
    assert u.bytes_to_bits(50e9) == 400e9


def test_zero_is_allowed_for_bits_and_bytes():
    assert u.bits_to_bytes(0) == 0 and u.bytes_to_bits(0) == 0


@PROPS
@given(finite_non_negative)
def test_bits_to_bytes_inverts_bytes_to_bits(x):
    assert u.bits_to_bytes(u.bytes_to_bits(x)) == x


@PROPS
@given(finite_non_negative)
def test_bytes_to_bits_is_eight_times(x):
    assert u.bytes_to_bits(x) == x * 8


# ---- per direction and both directions ---------------------------------------------------

def test_nvlink4_900_total_is_450_each_way():
    # H100 whitepaper V1.04 section 4.7: 18 links x 25 GB/s each direction = 900 GB/s total.
    assert u.per_direction(900e9) == 450e9
    assert 18 * u.bidirectional(25e9) == 900e9


def test_pcie5_128_total_is_64_each_way():
    # H100 whitepaper V1.04 section 2.1: "128 GB/sec total bandwidth (64 GB/sec in each direction)".
    assert u.per_direction(128e9) == 64e9
    assert u.bidirectional(64e9) == 128e9


@PROPS
@given(finite_non_negative)
def test_per_direction_inverts_bidirectional(x):
    assert u.per_direction(u.bidirectional(x)) == x


def test_nvlink_vs_nic_needs_both_conversions():
    # Per direction, in bytes: 450 GB/s vs 50 GB/s = 9x. Reading the raw numbers
    # (900 "GB/s" vs 400 "Gb/s") gives 2.25x: wrong by 8 / 2 = 4x, because the two
    # conversions push in opposite directions.
    true_ratio = u.per_direction(900e9) / u.bits_to_bytes(400e9)
    assert true_ratio == pytest.approx(9.0)
    assert true_ratio / (900e9 / 400e9) == pytest.approx(8 / 2)


# ---- serial links ------------------------------------------------------------------------

def test_pcie5_x16_payload_after_128b130b():
    # 32 GT/s x 16 lanes x 128/130 / 8 bits = 63.0 GB/s each way (NVIDIA rounds to 64).
    expected = 32e9 * 16 * (128 / 130) / 8
    assert u.serial_link_Bps(32e9, 16, 128 / 130) == pytest.approx(expected, rel=1e-12)
    assert round(expected / 1e9, 1) == 63.0


def test_serial_link_default_encoding_is_raw_rate():
    assert u.serial_link_Bps(32e9, 16) == 32e9 * 16 / 8 == 64e9


def test_serial_link_accepts_whole_float_lanes():
    assert u.serial_link_Bps(16e9, 4.0) == 16e9 * 4 / 8


# ---- validation --------------------------------------------------------------------------

@pytest.mark.parametrize("func, param", [
    (u.bits_to_bytes, "bits"),
    (u.bytes_to_bits, "n_B"),
    (u.per_direction, "total_bidirectional"),
    (u.bidirectional, "per_direction_rate"),
])
@pytest.mark.parametrize("bad", BAD_NON_NEGATIVE)
def test_conversions_reject_bad_input(func, param, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        func(bad)


@pytest.mark.parametrize("bad", ["k", "P", "Gi", "", None, 1, True, NAN])
def test_binary_over_si_rejects_unknown_prefix(bad):
    with pytest.raises((ValueError, TypeError), match=names("prefix")):    # TypeError: not a string
        u.binary_over_si(bad)


@pytest.mark.parametrize("bad", BAD_POSITIVE)
def test_serial_link_rejects_bad_rate(bad):
    with pytest.raises((TypeError, ValueError), match=names("transfer_rate_per_s")):
        u.serial_link_Bps(bad, 16)


@pytest.mark.parametrize("bad", BAD_POSITIVE + [1.5])
def test_serial_link_rejects_bad_lanes(bad):
    with pytest.raises((TypeError, ValueError), match=names("lanes")):
        u.serial_link_Bps(32e9, bad)


@pytest.mark.parametrize("bad", BAD_POSITIVE + [1.01, 128])
def test_serial_link_rejects_bad_encoding_efficiency(bad):
    with pytest.raises((TypeError, ValueError), match=names("encoding_efficiency")):
        u.serial_link_Bps(32e9, 16, bad)


def test_errors_are_the_right_type():
    with pytest.raises(TypeError):
        u.bits_to_bytes("8")
    with pytest.raises(ValueError):
        u.bits_to_bytes(-8)
    assert u.bits_to_bytes(8) == 1
