"""Tests for infra_lib.cpu: chapter 2's registry values and formulas (the launch model: tests/test_launch.py).

Expected values are worked out here by hand or read from the cited documents, never copied
from the library's output.
"""
import math
import re

import pytest
from hypothesis import given, settings, strategies as st

from infra_lib import cpu, hardware as hw

NAN, INF = float("nan"), float("inf")
BAD_POSITIVE = [0, -1, -1e-9, NAN, INF, -INF, True, False, "1", None]
BAD_NON_NEGATIVE = [-1, -1e-9, NAN, INF, True, "1", None]
BAD_SHARE = [-0.1, 1.5, NAN, INF, True, "0.5", None]
BAD_COUNT = [0, -1, 1.5, NAN, INF, True, "2", None]
PROPS = settings(max_examples=200, deadline=None)

pos = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)
share = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
clock = st.floats(min_value=1e8, max_value=6e9)


def names(param):
    return rf"^{re.escape(param)}\b"


# ---- registry values against their documents ----------------------------------------------

@pytest.mark.parametrize("name, value, kind", [
    ("base_clock_hz", 2.0e9, "datasheet"),        # DGX H100 user guide Table 1: 2.0/2.9/3.8 GHz
    ("all_core_turbo_hz", 2.9e9, "datasheet"),
    ("max_turbo_hz", 3.8e9, "datasheet"),
    ("memory_channels", 8, "datasheet"),          # Intel ARK: 'Max # of Memory Channels 8'
    ("ddr5_rate_1dpc", 4.8e9, "datasheet"),       # 'Up to DDR5 4800 MT/s 1DPC'
    ("ddr5_rate_2dpc", 4.4e9, "datasheet"),       # 'Up to DDR5 4400 MT/s 2DPC'
    ("ddr5_bytes_per_transfer", 8, "reported"),  # 64 data bits per DDR5 DIMM channel
    ("l1d_latency_cycles", 5, "reported"),        # Chips and Cheese, 2023
    ("l2_latency_cycles", 16, "reported"),
    ("l3_latency_s", 33e-9, "reported"),
    ("dram_latency_s", 107e-9, "reported"),
    ("l1d_B", 48 * 1024, "reported"),
    ("l2_B", 2 * 1024 * 1024, "reported"),
    ("l3_B", 105 * 1024 * 1024, "datasheet"),
    ("avx512_fma_units", 2, "reported"),
    ("intel_fp32_flop_per_cycle", 64, "datasheet"),   # Intel AMX brief p. 4
    ("amx_bf16_flop_per_cycle", 1024, "datasheet"),
])
def test_xeon_values(name, value, kind):
    s = hw.spec("xeon_8480c", name)
    assert s.value == value and s.kind == kind


def test_amx_figure_says_how_operations_are_counted():
    caveats = " ".join(hw.spec("xeon_8480c", "amx_bf16_flop_per_cycle").caveats)
    assert "512 BF16 FMAs" in caveats and "per core" in caveats


def test_grace_values_and_the_disagreement():
    assert hw.value("grace", "cores") == 72
    assert hw.value("grace", "mem_bw_Bps") == 512e9        # GB200 spec table (primary)
    assert hw.value("grace", "mem_bw_alt_Bps") == 546e9    # DGX Cloud recipes / GH200 blog
    assert hw.value("grace", "c2c_total_Bps") == 900e9
    assert any("total" in c for c in hw.spec("grace", "c2c_total_Bps").caveats)
    assert hw.value("h100_sxm5", "peak_flop_s_fp32") == 66.9e12


def test_teaching_values_are_labelled_teaching():
    specs = [s for s in hw.all_specs() if s.device == "cpu_teaching"]
    assert specs and all(s.kind == "teaching" and s.source.key == "course_ch2_assumptions" for s in specs)


# ---- cycles and seconds -------------------------------------------------------------------

def test_cycle_conversions():
    assert cpu.cycles_to_s(5, 3.8e9) == pytest.approx(5 / 3.8e9)
    assert cpu.s_to_cycles(33e-9, 3.8e9) == pytest.approx(125.4)   # Chips and Cheese: ~125 cycles
    assert cpu.s_to_cycles(107e-9, 2.0e9) == pytest.approx(214)


@PROPS
@given(c=pos, f=clock)
def test_cycles_round_trip(c, f):
    assert cpu.s_to_cycles(cpu.cycles_to_s(c, f), f) == pytest.approx(c, rel=1e-12)


def test_ladder_converts_at_the_stated_clock():
    lad = cpu.xeon_latency_ladder(2.0e9)
    assert [l.key for l in lad] == ["l1", "l2", "l3", "dram"]
    assert lad[0].latency_s == pytest.approx(5 / 2.0e9)
    assert lad[1].latency_s == pytest.approx(16 / 2.0e9)
    assert lad[2].cycles == pytest.approx(33e-9 * 2.0e9)
    assert lad[3].size_B == 0
    assert all(a.latency_s < b.latency_s for a, b in zip(lad, lad[1:]))
    assert cpu.xeon_latency_ladder()[0].latency_s == pytest.approx(5 / 3.8e9)   # default: max turbo


# ---- pipelines ------------------------------------------------------------------------------

def test_cpi_worked_example():
    assert cpu.cpi_with_branches(0.5, 0.2, 0.01, 15) == pytest.approx(0.5 + 0.2 * 0.01 * 15)
    assert cpu.cpi_with_branches(0.5, 0.2, 0.5, 15) == pytest.approx(2.0)
    assert cpu.time_per_instruction_s(2.0, 4e9) == pytest.approx(0.5e-9)


@PROPS
@given(base=pos, f=share, m=share, p=st.floats(min_value=0, max_value=100))
def test_cpi_is_base_plus_stalls(base, f, m, p):
    cpi = cpu.cpi_with_branches(base, f, m, p)
    assert cpi >= base - 1e-9
    assert cpi == pytest.approx(base + f * m * p, rel=1e-9, abs=1e-9)


@PROPS
@given(base=pos, f=st.floats(min_value=0.01, max_value=1), p=st.floats(min_value=1, max_value=100))
def test_breakeven_doubles_the_cpi(base, f, p):
    m = cpu.breakeven_mispredict_rate(base, f, p)
    if m <= 1:
        assert cpu.cpi_with_branches(base, f, m, p) == pytest.approx(2 * base, rel=1e-9)


# ---- caches ---------------------------------------------------------------------------------

def test_amat_by_hand():
    assert cpu.amat(1.0, 0.05, 100.0) == pytest.approx(6.0)
    # three levels + memory, in ns, as in the chapter: 5 and 16 cycles at 3.8 GHz, 33 and 107 ns
    l1, l2 = 5 / 3.8, 16 / 3.8
    expected = 0.95 * l1 + 0.05 * 0.6 * l2 + 0.05 * 0.4 * 0.5 * 33 + 0.05 * 0.4 * 0.5 * 107
    assert cpu.amat_levels([l1, l2, 33.0], [0.05, 0.4, 0.5], 107.0) == pytest.approx(expected)
    increments = l1 + 0.05 * (l2 - l1) + 0.05 * 0.4 * (33 - l2) + 0.01 * (107 - 33)
    assert expected == pytest.approx(increments)


def test_amat_levels_reproduces_the_measured_ladder():
    """A load that misses everywhere costs the measured DRAM latency, not the sum of the ladder."""
    ns = [lv.latency_s * 1e9 for lv in cpu.xeon_latency_ladder()]
    assert cpu.amat_levels(ns[:3], [1, 1, 1], ns[3]) == pytest.approx(ns[3])
    assert cpu.amat_levels(ns[:3], [1, 0, 0], ns[3]) == pytest.approx(ns[1])
    assert cpu.amat_levels(ns[:3], [0, 0, 0], ns[3]) == pytest.approx(ns[0])
    assert sum(cpu.served_fractions([0.05, 0.4, 0.5])) == pytest.approx(1)
    with pytest.raises(ValueError, match="memory_latency"):
        cpu.amat_levels([1.0, 4.0], [0.1, 0.5], 3.0)


@PROPS
@given(t=pos, m=share, penalty=pos)
def test_amat_limits_and_one_level(t, m, penalty):
    assert t <= cpu.amat(t, m, penalty) <= t + penalty + 1e-9
    assert cpu.amat_levels([t], [m], t + penalty) == pytest.approx(cpu.amat(t, m, penalty))
    assert cpu.amat(t, 0, penalty) == t


def test_amat_levels_needs_matching_lists():
    with pytest.raises(ValueError, match="equal length"):
        cpu.amat_levels([1, 2], [0.1], 100)
    with pytest.raises(ValueError, match=r"miss_rates\[1\]"):
        cpu.amat_levels([1, 2], [0.1, 1.5], 100)


# ---- SIMD and peaks -------------------------------------------------------------------------

def test_avx512_derivation_matches_intels_figure():
    assert cpu.simd_lanes(512, 32) == 16
    assert cpu.xeon_avx512_flop_per_cycle() == 16 * 2 * 2 == hw.value("xeon_8480c", "intel_fp32_flop_per_cycle")
    assert cpu.grace_sve2_flop_per_cycle() == 4 * 4 * 2


def test_peaks_by_hand():
    p = {x.key: x for x in cpu.xeon_grace_h100_peaks()}
    assert p["xeon_core_avx512"].flop_s == pytest.approx(64 * 3.8e9)
    assert p["xeon_avx512"].flop_s == pytest.approx(64 * 56 * 2.0e9)      # 7.168 TFLOP/s
    assert p["xeon_amx"].flop_s == pytest.approx(1024 * 56 * 2.0e9)       # 114.688 TFLOP/s
    # Grace at the clock of NVIDIA's own FP64 peak: 7.1 TFLOP/s over 144 cores x 16 FP64 FLOP per cycle
    assert p["grace_sve2"].clock_hz == pytest.approx(7.1e12 / (144 * 16))  # 3.08 GHz, below the 3.5 GHz boost
    assert p["grace_sve2"].flop_s == pytest.approx(32 * 72 * 7.1e12 / (144 * 16))   # = 7.1 TFLOP/s FP32 per Grace
    assert cpu.grace_implied_clock_hz() < hw.value("grace", "max_clock_hz")
    assert p["h100_bf16"].flop_s == 989.4e12 and p["h100_fp32"].flop_s == 66.9e12
    assert {q.key: q.flop_s for q in cpu.xeon_grace_h100_peaks(2.9e9)}["xeon_amx"] == pytest.approx(1024 * 56 * 2.9e9)


def test_simd_lanes_must_divide():
    with pytest.raises(ValueError, match="multiple of element_bits"):
        cpu.simd_lanes(512, 24)


# ---- memory and NUMA ------------------------------------------------------------------------

def test_ddr5_bandwidth_as_in_facts():
    assert cpu.xeon_socket_bandwidth_Bps(1) == pytest.approx(307.2e9)
    assert cpu.xeon_socket_bandwidth_Bps(2) == pytest.approx(281.6e9)
    with pytest.raises(ValueError, match=names("dimms_per_channel")):
        cpu.xeon_socket_bandwidth_Bps(3)


@PROPS
@given(local=st.floats(min_value=1e-9, max_value=1e-6), ratio=st.floats(min_value=1, max_value=5), r=share)
def test_numa_average_lies_between_local_and_remote(local, ratio, r):
    avg = cpu.numa_latency_s(local, ratio, r)
    assert local * (1 - 1e-12) <= avg <= local * ratio * (1 + 1e-12)
    assert avg == pytest.approx(local * (1 - r) + local * ratio * r)


def test_numa_remote_cannot_be_faster():
    with pytest.raises(ValueError, match=names("remote_ratio")):
        cpu.numa_latency_s(100e-9, 0.5, 0.5)


def test_transfer_and_capacity():
    assert cpu.transfer_time_s(16e9, 450e9) == pytest.approx(16 / 450)
    assert cpu.share_of_capacity(41_000 * 8, 50e6 / 4) == pytest.approx(328_000 / 12.5e6)


# ---- validation: every public input -----------------------------------------------------------

CASES = [
    (lambda v: cpu.cycles_to_s(5, v), "clock_hz", BAD_POSITIVE),
    (lambda v: cpu.cycles_to_s(v, 3e9), "cycles", BAD_NON_NEGATIVE),
    (lambda v: cpu.s_to_cycles(v, 3e9), "seconds", BAD_NON_NEGATIVE),
    (lambda v: cpu.s_to_cycles(1e-9, v), "clock_hz", BAD_POSITIVE),
    (lambda v: cpu.cpi_with_branches(v, 0.2, 0.1, 15), "base_cpi", BAD_POSITIVE),
    (lambda v: cpu.cpi_with_branches(0.5, v, 0.1, 15), "branch_fraction", BAD_SHARE),
    (lambda v: cpu.cpi_with_branches(0.5, 0.2, v, 15), "mispredict_rate", BAD_SHARE),
    (lambda v: cpu.cpi_with_branches(0.5, 0.2, 0.1, v), "penalty_cycles", BAD_NON_NEGATIVE),
    (lambda v: cpu.breakeven_mispredict_rate(0.5, v, 15), "branch_fraction", BAD_POSITIVE),
    (lambda v: cpu.time_per_instruction_s(v, 3e9), "cpi", BAD_POSITIVE),
    (lambda v: cpu.amat(v, 0.1, 100), "hit_time", BAD_NON_NEGATIVE),
    (lambda v: cpu.amat(1, v, 100), "miss_rate", BAD_SHARE),
    (lambda v: cpu.amat(1, 0.1, v), "miss_penalty", BAD_NON_NEGATIVE),
    (lambda v: cpu.amat_levels([0], [0.1], v), "memory_latency", BAD_NON_NEGATIVE),
    (lambda v: cpu.xeon_latency_ladder(v), "clock_hz", [0, -1, NAN, INF, True, "1"]),
    (lambda v: cpu.simd_lanes(v, 32), "vector_bits", BAD_COUNT),
    (lambda v: cpu.simd_flop_per_cycle(512, 32, v), "fma_units", BAD_COUNT),
    (lambda v: cpu.cores_peak_flop_s(v, 56, 2e9), "flop_per_cycle_per_core", BAD_POSITIVE),
    (lambda v: cpu.cores_peak_flop_s(64, v, 2e9), "cores", BAD_COUNT),
    (lambda v: cpu.cores_peak_flop_s(64, 56, v), "clock_hz", BAD_POSITIVE),
    (lambda v: cpu.xeon_grace_h100_peaks(v), "clock_hz", [0, -1, NAN, INF, True, "1"]),
    (lambda v: cpu.xeon_socket_bandwidth_Bps(v), "dimms_per_channel", BAD_COUNT),
    (lambda v: cpu.numa_latency_s(v, 1.5, 0.5), "local_s", BAD_POSITIVE),
    (lambda v: cpu.numa_latency_s(1e-7, v, 0.5), "remote_ratio", BAD_POSITIVE),
    (lambda v: cpu.numa_latency_s(1e-7, 1.5, v), "remote_fraction", BAD_SHARE),
    (lambda v: cpu.transfer_time_s(v, 1e9), "size_B", BAD_NON_NEGATIVE),
    (lambda v: cpu.transfer_time_s(1e9, v), "rate_Bps", BAD_POSITIVE),
    (lambda v: cpu.share_of_capacity(v, 1e6), "demand_per_s", BAD_NON_NEGATIVE),
    (lambda v: cpu.share_of_capacity(1e3, v), "capacity_per_s", BAD_POSITIVE),
]


@pytest.mark.parametrize("call, param, bads", CASES, ids=[f"{i}-{c[1]}" for i, c in enumerate(CASES)])
def test_bad_input_names_the_parameter(call, param, bads):
    for bad in bads:
        with pytest.raises((TypeError, ValueError), match=names(param)):
            call(bad)


# ---- figure labels (the figures themselves: tests/test_figures.py) ----------------------------

def test_figure_labels_exist_in_both_languages():
    from infra_lib import i18n
    keys = [k for k in i18n.STRINGS if k.startswith("cpu_")]
    assert len(keys) > 20
    assert all(i18n.STRINGS[k]["en"] and i18n.STRINGS[k]["zh"] for k in keys)
    assert not math.isnan(cpu.xeon_grace_h100_peaks()[0].flop_s)


def test_training_feed_is_tokens_times_bytes():
    assert cpu.training_feed_Bps(41_000, 8, 4) == pytest.approx(8 * 41_000 / 3 * 4)
    assert cpu.training_feed_Bps(30_000, 1, 2, train_over_forward=1) == pytest.approx(60_000)
    with pytest.raises(ValueError, match="gpus"):
        cpu.training_feed_Bps(41_000, 0, 4)
