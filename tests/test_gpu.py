"""Tests for infra_lib.gpu: divergence, Little's law, the hierarchy, peaks, NVLink,
the GPU entries of the registry (data/registry/) and the figures' labels (figures: tests/test_figures.py)."""
import math
from pathlib import Path

import pytest
from hypothesis import assume, given, strategies as st

from infra_lib import generations, gpu, hardware as hw, i18n, measurements, occupancy, units

from bad_values import NAN, INF, BAD_NON_NEGATIVE, BAD_POSITIVE, BAD_COUNT, PROPS, names

ROOT = Path(__file__).resolve().parents[1]
BAD_NUMBER = [NAN, INF, -INF, True, False, "1", None]


# ---- the registry file -------------------------------------------------------------------

@pytest.mark.parametrize("dev, name, expected", [
    # facts.md section 5 (Hopper blog compute-capability table; H100 whitepaper 4.1.5)
    ("h100_sxm5", "threads_per_warp", 32),
    ("h100_sxm5", "max_warps_per_sm", 64),
    ("h100_sxm5", "max_threads_per_sm", 2048),
    ("h100_sxm5", "max_blocks_per_sm", 32),
    ("h100_sxm5", "registers_per_sm", 65536),
    ("h100_sxm5", "max_registers_per_thread", 255),
    ("h100_sxm5", "shared_memory_per_sm_B", 228 * 1024),
    ("h100_sxm5", "l1_shared_per_sm_B", 256 * 1024),
    ("h100_sxm5", "l2_cache_B", 50e6),
    ("h100_sxm5", "shared_memory_banks", 32),           # CUDA C++ Programming Guide
    ("h100_sxm5", "shared_memory_bank_B", 4),           # "32 bits per clock cycle"
    ("h100_sxm5", "fp32_cores_per_sm", 128),
    # H100 whitepaper V1.04 Table 1
    ("h100_sxm5", "peak_flop_s_fp8", 1978.9e12),
    ("h100_sxm5", "peak_flop_s_fp32", 66.9e12),
    ("h100_pcie", "sm_count", 114),
    ("h100_pcie", "peak_flop_s", 756e12),
    # reported (Chips and Cheese via How to Scale Your Model)
    ("h100_sxm5", "l2_Bps", 5.5e12),
    # H200 product page; measured L2 (60 MiB)
    ("h200_sxm", "peak_flop_s_fp8_sparse", 3958e12),
    ("h200_sxm", "l2_cache_B", 60 * 2 ** 20),
    # A100 whitepaper Table 1, 3.3, 4.1; H100 whitepaper 4.7
    ("a100_sxm4_40gb", "sm_count", 108),
    ("a100_sxm4_40gb", "boost_clock_hz", 1410e6),
    ("a100_sxm4_40gb", "tensor_cores_per_sm", 4),
    ("a100_sxm4_40gb", "tensor_fma_per_clock_per_core", 256),
    ("a100_sxm4_40gb", "peak_flop_s", 312e12),
    ("a100_sxm4_40gb", "mem_bw_Bps", 1555e9),
    ("a100_sxm4_40gb", "l2_cache_B", 40e6),
    ("a100_sxm4_40gb", "nvlink_links", 12),
    ("a100_sxm4_40gb", "nvlink_total_Bps", 600e9),
    # A100 whitepaper Table 1 (V100 column) and 4.1; V100 whitepaper
    ("v100_sxm2", "sm_count", 80),
    ("v100_sxm2", "boost_clock_hz", 1530e6),
    ("v100_sxm2", "tensor_cores_per_sm", 8),
    ("v100_sxm2", "tensor_fma_per_clock_per_core", 64),
    ("v100_sxm2", "peak_flop_s", 125e12),
    ("v100_sxm2", "mem_bw_Bps", 900e9),
    ("v100_sxm2", "l2_cache_B", 6144 * 1024),
    ("v100_sxm2", "nvlink_links", 6),
    ("v100_sxm2", "nvlink_total_Bps", 300e9),
    # Blackwell datasheet; Blackwell Ultra blog
    ("b200_hgx", "nvlink_links", 18),
    ("b200_hgx", "nvlink_total_Bps", 1.8e12),
])
def test_value_matches_source(dev, name, expected):
    assert hw.value(dev, name) == expected


def _rows():
    """Every spec of every NVIDIA GPU in the registry (the loader has checked the fields)."""
    gpus = [d for d in hw.devices() if d.vendor == "nvidia" and d.family != "grace"]
    return [(d.key, s.name) for d in gpus for s in hw.all_specs() if s.device == d.key]


@pytest.mark.parametrize("dev, name", _rows())
def test_every_row_has_provenance(dev, name):
    s = hw.spec(dev, name)
    assert s.kind in hw.KINDS and s.kind != "teaching"    # teaching values live in teaching.toml
    assert s.where.strip() and s.source.title.strip()
    if s.unit == "FLOP/s":
        assert any("dense" in c or "spars" in c for c in s.caveats)
    if "nvlink" in name and s.unit == "B/s":
        assert any("direction" in c or "total" in c for c in s.caveats)
    if s.kind == "reported":
        assert not s.source.title.startswith("NVIDIA")


def test_nvidia_does_not_publish_l2_bandwidth_and_the_registry_says_so():
    s = hw.spec("h100_sxm5", "l2_Bps")
    assert s.kind == "reported"
    assert any("does not publish" in c for c in s.caveats)


def test_compute_capability_9_0_limits_are_the_h100s():
    # Chapter 3 reads the H100's SM limits as compute capability 9.0's (the Programming Guide's table);
    # the Hopper blog's table for the H100 itself gives the same figures.
    lim, h100 = occupancy.limits("9.0"), lambda name: hw.value("h100_sxm5", name)
    assert (lim.warp_size, lim.max_warps, lim.max_threads, lim.max_blocks, lim.registers,
            lim.max_registers_per_thread) == (h100("threads_per_warp"), h100("max_warps_per_sm"),
                                              h100("max_threads_per_sm"), h100("max_blocks_per_sm"),
                                              h100("registers_per_sm"), h100("max_registers_per_thread"))
    assert lim.max_threads == 64 * 32 == 2048
    assert lim.smem_per_sm_B == h100("shared_memory_per_sm_B") and lim.warp_granularity == h100("sm_subpartitions")
    assert lim.registers * 4 == h100("l1_shared_per_sm_B") == 256 * 1024   # a 256 KB register file


# ---- divergence --------------------------------------------------------------------------

def test_branch_efficiency_worked_examples():
    assert gpu.branch_efficiency(8, 10, 10) == (8 * 10 + 24 * 10) / (32 * 20)
    assert gpu.branch_efficiency(4, 40) == 4 / 32
    assert gpu.branch_efficiency(1, 100, 10) == pytest.approx((100 + 31 * 10) / (32 * 110))
    assert gpu.branch_efficiency(2, 60, 20) == pytest.approx((2 * 60 + 30 * 20) / (32 * 80))
    assert gpu.branch_efficiency(0, 40, 5) == 1.0          # nobody takes the branch: only else runs
    assert gpu.branch_efficiency(32, 10, 10) == 1.0


@PROPS
@given(st.integers(0, 32), st.floats(0, 100), st.floats(0, 100))
def test_branch_efficiency_properties(k, a, b):
    assume((a > 0 and k > 0) or (b > 0 and k < 32))
    eff = gpu.branch_efficiency(k, a, b)
    assert 0 <= eff <= 1 + 1e-12
    assert eff == pytest.approx(gpu.branch_efficiency(32 - k, b, a))    # swap the sides
    if k in (0, 32):
        assert eff == pytest.approx(1.0)


def test_a_side_nobody_takes_costs_nothing_but_an_empty_branch_is_an_error():
    with pytest.raises(ValueError, match="must not both be 0"):
        gpu.branch_efficiency(0, 40, 0)


def _binomial_efficiency(p, a, b, w=32):
    pmf = [math.comb(w, k) * p ** k * (1 - p) ** (w - k) for k in range(w + 1)]
    useful = sum(q * (k * a + (w - k) * b) for k, q in enumerate(pmf))
    issued = sum(q * w * (a * (k > 0) + b * (k < w)) for k, q in enumerate(pmf))
    return useful / issued


@PROPS
@given(st.floats(0, 1), st.floats(0, 50), st.floats(0, 50))
def test_expected_efficiency_matches_binomial_enumeration(p, a, b):
    assume(a * (1 - (1 - p) ** 32) + b * (1 - p ** 32) > 1e-3)     # away from 0/0, where sums lose digits
    assert gpu.expected_branch_efficiency(p, a, b) == pytest.approx(_binomial_efficiency(p, a, b), rel=1e-7)


def test_random_lanes_with_ten_percent_nearly_always_diverge():
    # a = b = 1: E[useful] / E[issued] = 1 / ((1 - 0.9^32) + (1 - 0.1^32))
    assert gpu.expected_branch_efficiency(0.1, 1, 1) == pytest.approx(1 / (2 - 0.9 ** 32 - 0.1 ** 32), rel=1e-12)


def test_taken_lanes_cannot_exceed_the_warp():
    with pytest.raises(ValueError, match=names("taken_lanes")):
        gpu.branch_efficiency(33, 1, 1)


def test_probability_above_one_is_rejected():
    with pytest.raises(ValueError, match=names("p_taken")):
        gpu.expected_branch_efficiency(1.5, 1, 1)


# ---- occupancy and Little's law ----------------------------------------------------------

@pytest.mark.parametrize("regs, warps", [(32, 64), (64, 32), (96, 20), (128, 16), (168, 12), (255, 8)])
def test_warps_per_sm_from_registers(regs, warps):
    # per warp: 32 r rounded up to a multiple of 256; whole warps in each quarter of 65,536 registers
    assert gpu.warps_per_sm(regs) == min(64, 4 * (16384 // (-(-regs * 32 // 256) * 256))) == warps


def test_more_than_255_registers_is_rejected():
    with pytest.raises(ValueError, match=names("registers_per_thread")):
        gpu.warps_per_sm(256)


def test_littles_law_h100():
    assert gpu.bytes_in_flight_B(3352e9, 600e-9) == pytest.approx(3352e9 * 600e-9)
    assert gpu.bytes_per_warp_needed_B(3352e9, 600e-9, 132, 64) == pytest.approx(3352e9 * 600e-9 / 132 / 64)


def test_teaching_latency_is_a_few_hundred_nanoseconds():
    assert 100e-9 < gpu.TEACHING_HBM_LATENCY_S < 1e-6


@PROPS
@given(st.floats(1e9, 1e14), st.floats(1e-8, 1e-5), st.integers(1, 300), st.integers(1, 64),
       st.sampled_from([2, 4, 8, 16]), st.integers(1, 16))
def test_achievable_is_min_of_peak_and_in_flight_over_latency(bw, lat, sms, warps, nbytes, loads):
    got = gpu.achievable_Bps(bw, lat, sms, warps, nbytes, loads)
    in_flight = sms * warps * 32 * nbytes * loads
    assert got == pytest.approx(min(bw, in_flight / lat))
    assert got <= bw


def test_enough_warps_reach_the_peak_and_one_fewer_does_not():
    need_per_sm = 3352e9 * 600e-9 / 132
    warps = math.ceil(need_per_sm / (32 * 16))
    assert gpu.achievable_Bps(3352e9, 600e-9, 132, warps, 16, 1) == 3352e9
    assert gpu.achievable_Bps(3352e9, 600e-9, 132, warps - 1, 16, 1) < 3352e9


# ---- the memory hierarchy ----------------------------------------------------------------

def test_per_sm_formulas():
    assert gpu.shared_memory_Bps_per_sm(1.98e9) == pytest.approx(32 * 4 * 1.98e9)
    assert gpu.register_operand_Bps_per_sm(128, 1.98e9) == pytest.approx(128 * 3 * 4 * 1.98e9)


def test_a_register_is_32_bits_and_an_fma_reads_three():
    assert gpu.REGISTER_B * units.BITS_PER_BYTE == 32 and gpu.FMA_OPERANDS == 3
    assert gpu.register_operand_Bps_per_sm(128, 1.98e9) == 128 * gpu.FMA_OPERANDS * gpu.REGISTER_B * 1.98e9


def test_h100_hierarchy():
    levels = gpu.h100_hierarchy()
    assert [lv.key for lv in levels] == ["registers", "shared", "l2", "hbm"]
    chip = [lv.chip_Bps for lv in levels]
    assert chip == sorted(chip, reverse=True)
    assert chip[1] == pytest.approx(132 * 128 * 1.98e9)
    assert chip[2:] == [5.5e12, 3352e9]
    assert [lv.kind for lv in levels] == ["derived", "derived", "reported", "datasheet"]
    assert levels[3].per_sm_Bps == pytest.approx(3352e9 / 132)


def test_strided_ceiling_divides_by_eight():
    # CUDA C++ Programming Guide: a 32-byte transaction per 4-byte access divides throughput by 8.
    assert gpu.strided_ceiling_Bps(4242e9) == pytest.approx(4242e9 / 8)
    assert gpu.strided_ceiling_Bps(100.0, 64, 32) == 100.0


def test_strided_ceiling_with_a_coalesced_write_counts_both():
    # one 4-byte read in its own 32-byte sector plus a coalesced 4-byte write: 8 useful bytes per 36 moved
    assert gpu.strided_ceiling_Bps(3600.0, 4, 32, write_B=4) == pytest.approx(3600.0 * 8 / 36)
    assert gpu.strided_ceiling_Bps(3600.0, 4, 32, write_B=4) > gpu.strided_ceiling_Bps(3600.0, 4, 32)
    assert gpu.strided_ceiling_Bps(100.0, 64, 32, write_B=64) == 100.0      # coalesced reads: no loss
    with pytest.raises(ValueError, match="write_B"):
        gpu.strided_ceiling_Bps(100.0, write_B=-1)


def test_the_measurements_support_the_chapters_claims():
    rows = dict(gpu.h200_copy_by_working_set())
    l2, hbm = hw.value("h200_sxm", "l2_cache_B"), hw.value("h200_sxm", "mem_bw_Bps")
    # 32 MB fits in the L2 and reports more than the HBM datasheet, but its copy takes within 1 us of the
    # smallest copy's time: launch-bound, so its rate is only a lower bound (the chapter says so)
    assert 32e6 < l2 and rows[32e6] > hbm
    assert gpu.launch_bound(list(rows.items())) == [ws <= 32e6 for ws in rows]
    assert rows[8192e6] < hbm                              # streaming from HBM: below it
    # launch-bound: a 2 MB and an 8 MB copy take the same time, the order of a tiny kernel's launch
    assert 2e6 / rows[2e6] == pytest.approx(8e6 / rows[8e6], rel=0.05)
    assert 2e6 / rows[2e6] < 1.5 * measurements.load(name="ladder")["tiny_op_eager_us"] * 1e-6
    strided = gpu.h200_strided_loads()
    assert strided[0][0] == 1 and strided[0][1] == max(b for _, b in strided)
    copy = measurements.load()["copy"]["GBps"] * 1e9
    # the benchmark's useful bytes are a read and a coalesced write per element (ladder.py): against that
    # ceiling, stride 32 is below it, and even stride 8 stays below the datasheet's HBM ceiling
    rows_s = dict(strided)
    assert rows_s[32] < gpu.strided_ceiling_Bps(copy, write_B=4)
    assert rows_s[8] < gpu.strided_ceiling_Bps(hbm, write_B=4)


# ---- Tensor Core peaks -------------------------------------------------------------------

def test_tensor_flop_per_clock():
    assert gpu.tensor_flop_per_clock_per_sm(4, 256) == 2048     # A100 whitepaper 4.1: 1,024 FMA/clk/SM
    assert gpu.tensor_flop_per_clock_per_sm(8, 64) == 1024      # V100


def test_peaks_are_sms_times_rate_times_clock():
    v100, a100, h100 = gpu.v100_a100_h100_peak_checks()
    assert v100.computed_flop_s == pytest.approx(80 * 1024 * 1.53e9)
    assert v100.computed_flop_s == pytest.approx(125e12, rel=0.005)
    assert a100.computed_flop_s == pytest.approx(108 * 2048 * 1.41e9)
    assert a100.computed_flop_s == pytest.approx(312e12, rel=0.001)
    assert h100.clock_hz == 1830e6
    assert h100.computed_flop_s == pytest.approx(989.4e12, abs=0.05e12)


def test_the_h100_clock_ambiguity():
    fp32_clock = generations.implied_clock_hz(66.9e12, 132, 2 * 128)
    assert fp32_clock == pytest.approx(1980e6, abs=1e6)
    assert generations.peak_flop_s(132, 4096, 1.98e9) == pytest.approx(1070.53e12, abs=0.01e12)


def test_fp8_is_twice_bf16_per_clock():
    assert round(generations.flop_per_clock_per_sm(1978.9e12, 132, 1.83e9)) == 2 * 4096


# ---- NVLink ------------------------------------------------------------------------------

def test_nvlink_generations():
    gens = gpu.nvlink_generations()
    assert [g.generation for g in gens] == [2, 3, 4, 5]
    assert [(g.links, g.per_link_per_direction_Bps) for g in gens] == [
        (6, 25e9), (12, 25e9), (18, 25e9), (18, 50e9)]
    assert [g.per_direction_Bps for g in gens] == [150e9, 300e9, 450e9, 900e9]
    assert gens[2].per_link_per_direction_Bps == hw.value("h100_sxm5", "nvlink_link_Bps_per_direction")


@PROPS
@given(st.integers(1, 64), st.floats(1e6, 1e12))
def test_nvlink_total_and_per_link_are_inverse(links, per_link):
    total = gpu.nvlink_total_Bps(links, per_link)
    assert total == pytest.approx(2 * links * per_link)
    assert gpu.NVLinkGen("x", 0, links, total).per_link_per_direction_Bps == pytest.approx(per_link)


# ---- validation --------------------------------------------------------------------------

@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("param, call", [
    ("bandwidth_Bps", lambda v: gpu.bytes_in_flight_B(v, 600e-9)),
    ("latency_s", lambda v: gpu.bytes_in_flight_B(3352e9, v)),
    ("bytes_per_thread", lambda v: gpu.achievable_Bps(3352e9, 600e-9, 132, 16, v, 1)),
    ("loads_per_thread", lambda v: gpu.achievable_Bps(3352e9, 600e-9, 132, 16, 4, v)),
    ("clock_hz", lambda v: gpu.shared_memory_Bps_per_sm(v)),
    ("clock_hz", lambda v: gpu.register_operand_Bps_per_sm(128, v)),
    ("coalesced_Bps", lambda v: gpu.strided_ceiling_Bps(v)),
    ("per_link_per_direction_Bps", lambda v: gpu.nvlink_total_Bps(18, v)),
])
def test_positives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_COUNT)
@pytest.mark.parametrize("param, call", [
    ("warp_size", lambda v: gpu.branch_efficiency(1, 1, 1, v)),
    ("registers_per_thread", lambda v: gpu.warps_per_sm(v)),
    ("sm_count", lambda v: gpu.bytes_per_warp_needed_B(3352e9, 600e-9, v, 64)),
    ("warps", lambda v: gpu.bytes_per_warp_needed_B(3352e9, 600e-9, 132, v)),
    ("sm_count", lambda v: gpu.achievable_Bps(3352e9, 600e-9, v, 16, 4, 1)),
    ("fp32_lanes", lambda v: gpu.register_operand_Bps_per_sm(v, 1.98e9)),
    ("tensor_cores_per_sm", lambda v: gpu.tensor_flop_per_clock_per_sm(v, 256)),
    ("fma_per_clock_per_core", lambda v: gpu.tensor_flop_per_clock_per_sm(4, v)),
    ("links", lambda v: gpu.nvlink_total_Bps(v, 25e9)),
])
def test_counts_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_NON_NEGATIVE)
@pytest.mark.parametrize("param, call", [
    ("then_cycles", lambda v: gpu.branch_efficiency(4, v, 1)),
    ("else_cycles", lambda v: gpu.branch_efficiency(4, 1, v)),
    ("p_taken", lambda v: gpu.expected_branch_efficiency(v, 1, 1)),
    ("then_cycles", lambda v: gpu.expected_branch_efficiency(0.5, v, 1)),
])
def test_non_negatives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", [-1, 1.5, NAN, True, "3", None])
def test_taken_lanes_rejects_bad_input(bad):
    with pytest.raises((TypeError, ValueError), match=names("taken_lanes")):
        gpu.branch_efficiency(bad, 1, 1)


# ---- figure labels (the figures themselves: tests/test_figures.py) ----------------------------

def test_chapter_labels_exist_in_both_languages():
    keys = [k for k in i18n.STRINGS if k.startswith("gpu_")]
    assert len(keys) > 30
    for k in keys:
        assert all(i18n.STRINGS[k][lang] for lang in i18n.LANGUAGES), k


# ---- warp_cycles, p_warp_skips_side, warps_needed -----------------------------------------------

def test_warp_cycles_issues_every_side_any_lane_takes():
    assert gpu.warp_cycles(1, 100, 10) == 110          # one slow lane: both sides run
    assert gpu.warp_cycles(0, 100, 10) == 10           # nobody takes `then`
    assert gpu.warp_cycles(32, 100, 10) == 100         # everybody takes it
    with pytest.raises(ValueError, match="taken_lanes"):
        gpu.warp_cycles(33, 1, 1)


def test_p_warp_skips_side():
    assert gpu.p_warp_skips_side(0.1) == pytest.approx(0.9 ** 32)
    assert gpu.p_warp_skips_side(0.0) == 1.0 and gpu.p_warp_skips_side(1.0) == 0.0
    with pytest.raises(ValueError, match="p_taken"):
        gpu.p_warp_skips_side(1.5)


def test_warps_needed_rounds_up_littles_law():
    per_sm = 3352e9 * 600e-9 / 132                     # 15,236 bytes per SM
    assert gpu.warps_needed(3352e9, 600e-9, 132, 512) == math.ceil(per_sm / 512) == 30
    assert gpu.warps_needed(3352e9, 1200e-9, 132, 512) == math.ceil(2 * per_sm / 512)
    with pytest.raises(ValueError, match="bytes_per_warp"):
        gpu.warps_needed(3352e9, 600e-9, 132, 0)
