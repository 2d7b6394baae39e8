"""Tests for infra_lib.memory: HBM and DDR bandwidth and capacity from stacks, bus width, pin rate.

Expected values are worked out by hand from the formulas and the cited documents (H100
whitepaper V1.04 Table 3, JEDEC releases, Micron, Intel's DDR5 speeds), never copied from the
library's output.
"""

import pytest
from hypothesis import given, strategies as st

from infra_lib import hardware as hw, memory

from bad_values import BAD_POSITIVE, BAD_COUNT, PROPS, names


# ---- HBM bandwidth -----------------------------------------------------------------------------

def test_h100_bandwidth_from_stacks_width_and_clock():
    # Whitepaper V1.04 Table 3: 5 stacks x 1,024 bits, 2,619 MHz DDR: 5 x 1024 x 2619e6 x 2 / 8
    assert memory.hbm_bandwidth_Bps(5, 1024, 2619e6) == pytest.approx(3_352_320_000_000, rel=1e-12)
    assert memory.hbm_bandwidth_Bps(5, 1024, 2619e6) == pytest.approx(3352e9, rel=2e-4)   # datasheet 3,352 GB/s


def test_h100_bandwidth_from_the_registry():
    v = lambda name: hw.value("h100_sxm5", name)
    derived = memory.hbm_bandwidth_Bps(int(v("hbm_stacks")), int(v("hbm_bits_per_stack")), v("hbm_clock_hz"))
    assert derived == pytest.approx(v("mem_bw_Bps"), rel=2e-4)


def test_one_transfer_per_clock():
    assert memory.hbm_bandwidth_Bps(1, 1024, 1e9, transfers_per_clock=1) == 1024 * 1e9 / 8


def test_pin_rate_of_the_h100():
    assert memory.pin_rate_from_clock_bps(2619e6) == 5.238e9     # 2,619 MHz x 2
    assert memory.pin_rate_from_clock_bps(1e9, 4) == 4e9


def test_bandwidth_from_pins_is_bandwidth_from_clock():
    bw = memory.hbm_bandwidth_from_pins_Bps(5, 1024, memory.pin_rate_from_clock_bps(2619e6))
    assert bw == pytest.approx(5 * 1024 * 5.238e9 / 8, rel=1e-12)
    assert bw == pytest.approx(memory.hbm_bandwidth_Bps(5, 1024, 2619e6), rel=1e-12)


def test_pin_rates_implied_by_datasheet_bandwidths():
    assert memory.pin_rate_bps(4.8e12, 6144) == pytest.approx(6.25e9)            # H200: 4.8 TB/s x 8 / 6,144
    assert memory.pin_rate_bps(7.7e12, 8192) == pytest.approx(7.7e12 * 8 / 8192)  # HGX B200: 7.52 Gb/s


def test_jedec_per_stack_bandwidths():
    assert memory.stack_bandwidth_Bps(1024, 2.4e9) == pytest.approx(307.2e9)   # JESD235B: "up to 307 GB/s"
    assert memory.stack_bandwidth_Bps(1024, 6.4e9) == pytest.approx(819.2e9)   # JESD238: "819 GB/s per device"
    assert memory.stack_bandwidth_Bps(2048, 8e9) == pytest.approx(2048e9)      # HBM4: "2 TB/s"


def test_bus_width():
    assert memory.bus_bits(6, 1024) == 6144 == hw.value("h200_sxm", "hbm_bus_bits")
    assert memory.bus_bits(8, 1024) == 8192 == hw.value("b300_gpu", "hbm_bus_bits")


@PROPS
@given(st.integers(min_value=1, max_value=16), st.sampled_from([1024, 2048]),
       st.floats(min_value=1e8, max_value=2e10))
def test_pin_rate_inverts_bandwidth(stacks, bits, rate):
    bw = memory.hbm_bandwidth_from_pins_Bps(stacks, bits, rate)
    assert memory.pin_rate_bps(bw, memory.bus_bits(stacks, bits)) == pytest.approx(rate, rel=1e-12)


@PROPS
@given(st.integers(min_value=1, max_value=16), st.sampled_from([1024, 2048]),
       st.floats(min_value=1e8, max_value=2e10))
def test_stacks_add_up(stacks, bits, rate):
    assert memory.hbm_bandwidth_from_pins_Bps(stacks, bits, rate) == pytest.approx(
        stacks * memory.stack_bandwidth_Bps(bits, rate), rel=1e-12)


# ---- capacity ----------------------------------------------------------------------------------

def test_stack_capacities():
    assert memory.stack_capacity_B(8, 24e9) == 24e9      # Micron: eight 24 Gbit dies = 24 GB
    assert memory.stack_capacity_B(12, 24e9) == 36e9     # 12-Hi: 36 GB


def test_b300_capacity_is_eight_12_high_stacks():
    assert memory.hbm_capacity_B(8, 12, 24e9) == 288e9 == hw.value("b300_gpu", "mem_capacity_B")


# ---- DDR ---------------------------------------------------------------------------------------

def test_ddr5_channels():
    # 8 channels x 8 bytes x 4.8 GT/s = 307.2 GB/s; at 4.4 GT/s 281.6 GB/s
    assert memory.dram_bandwidth_Bps(8, 8, 4.8e9) == pytest.approx(307.2e9)
    assert memory.dram_bandwidth_Bps(8, 8, 4.4e9) == pytest.approx(281.6e9)


@PROPS
@given(st.integers(min_value=1, max_value=24), st.floats(min_value=1e9, max_value=1e10))
def test_channels_add_up(channels, rate):
    assert memory.dram_bandwidth_Bps(channels, 8, rate) == pytest.approx(channels * memory.dram_bandwidth_Bps(1, 8, rate))


# ---- bad input names the parameter ---------------------------------------------------------------

@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("param, call", [
    ("clock_hz", lambda x: memory.hbm_bandwidth_Bps(5, 1024, x)),
    ("clock_hz", lambda x: memory.pin_rate_from_clock_bps(x)),
    ("pin_rate_bps", lambda x: memory.stack_bandwidth_Bps(1024, x)),
    ("pin_rate_bps", lambda x: memory.hbm_bandwidth_from_pins_Bps(5, 1024, x)),
    ("bandwidth_Bps", lambda x: memory.pin_rate_bps(x, 6144)),
    ("die_bits", lambda x: memory.stack_capacity_B(8, x)),
    ("die_bits", lambda x: memory.hbm_capacity_B(8, 8, x)),
    ("bytes_per_transfer", lambda x: memory.dram_bandwidth_Bps(8, x, 4.8e9)),
    ("transfers_per_s", lambda x: memory.dram_bandwidth_Bps(8, 8, x)),
])
def test_positives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_COUNT)
@pytest.mark.parametrize("param, call", [
    ("stacks", lambda x: memory.hbm_bandwidth_Bps(x, 1024, 2619e6)),
    ("bits_per_stack", lambda x: memory.hbm_bandwidth_Bps(5, x, 2619e6)),
    ("transfers_per_clock", lambda x: memory.hbm_bandwidth_Bps(5, 1024, 2619e6, x)),
    ("transfers_per_clock", lambda x: memory.pin_rate_from_clock_bps(1e9, x)),
    ("bits_per_stack", lambda x: memory.stack_bandwidth_Bps(x, 6.4e9)),
    ("stacks", lambda x: memory.hbm_bandwidth_from_pins_Bps(x, 1024, 6.4e9)),
    ("stacks", lambda x: memory.bus_bits(x, 1024)),
    ("bits_per_stack", lambda x: memory.bus_bits(6, x)),
    ("bus_bits", lambda x: memory.pin_rate_bps(4.8e12, x)),
    ("dies_per_stack", lambda x: memory.stack_capacity_B(x, 24e9)),
    ("stacks", lambda x: memory.hbm_capacity_B(x, 8, 24e9)),
    ("channels", lambda x: memory.dram_bandwidth_Bps(x, 8, 4.8e9)),
])
def test_counts_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


def test_error_names_value_and_unit():
    with pytest.raises(ValueError, match=r"clock_hz must be greater than 0 Hz, got -1"):
        memory.hbm_bandwidth_Bps(5, 1024, -1)
