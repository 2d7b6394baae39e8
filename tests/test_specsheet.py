"""Tests for infra_lib.specsheet: aligning quoted figures before comparing them, and the registry's
sheets read as chapter 4's table cells, each value with its kind."""
import pytest
from hypothesis import given, strategies as st

from infra_lib import hardware as hw, specsheet as s


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


# ---- the registry's sheets as chapter 4's table cells: each value and kind, by hand from the documents

TABLE_GPUS = ("v100_sxm2", "a100_sxm4_40gb", "h100_sxm5", "h200_sxm", "b200_hgx", "b300_gpu", "rubin_vr200")


def test_tensor_cores_are_sms_times_per_sm():
    # V100: 80 x 8 = 640; A100: 108 x 4 = 432; H100: 132 x 4 = 528 (whitepapers); B200: 148 x 4 = 592
    for key, n in (("v100_sxm2", 640), ("a100_sxm4_40gb", 432), ("h100_sxm5", 528), ("b200_hgx", 592)):
        assert s.tensor_core_cell(key).value == n
    assert s.tensor_core_cell("h100_sxm5").kind == "derived"
    assert s.tensor_core_cell("b200_hgx").kind == "reported"        # its SM count is a third party's
    assert s.tensor_core_cell("b300_gpu").kind == "datasheet"       # 640, printed by NVIDIA
    assert s.tensor_core_cell("rubin_vr200").kind == "announced"


def test_dense_peaks_and_their_notes():
    b200 = s.generation_specs("b200_hgx")
    assert (b200.bf16.value, b200.fp8.value, b200.fp4.value) == (4.5e15 / 2, 9e15 / 2, 18e15 / 2)
    assert {b200.bf16.note, b200.fp8.note, b200.fp4.note} == {"sparse / 2"}
    assert s.dense_peak_cell("h100_sxm5", "fp8").value == 1978.9e12 and s.dense_peak_cell("h100_sxm5", "fp8").note == ""
    assert s.dense_peak_cell("b300_gpu", "fp4").value == 14e15       # printed dense: 18 | 14
    assert s.dense_peak_cell("v100_sxm2", "bf16").note == "FP16"
    assert s.dense_peak_cell("rubin_vr200", "fp4").note == "basis not stated"


def test_none_versus_unpublished():
    # FP8 arrived with Hopper, FP4 with Blackwell: older cells are "none"; Rubin's BF16 is unpublished
    assert s.dense_peak_cell("v100_sxm2", "fp8").kind == "none"
    assert s.dense_peak_cell("a100_sxm4_40gb", "fp4").kind == "none"
    assert s.dense_peak_cell("h200_sxm", "fp4").kind == "none"
    assert s.dense_peak_cell("rubin_vr200", "bf16").kind == "unpublished"
    assert s.spec_cell("rubin_vr200", "power_W").kind == "unpublished"
    assert not s.Cell(0.0, "none").known and s.Cell(1.0, "derived").known


def test_memory_type_stacks_and_process():
    types = [s.memory_type_cell(k).text for k in TABLE_GPUS]
    assert types == ["HBM2", "HBM2", "HBM3", "HBM3e", "HBM3e", "HBM3e", "HBM4"]
    assert s.stacks_cell("v100_sxm2").value == 4096 / 1024 and s.stacks_cell("v100_sxm2").kind == "derived"
    assert s.stacks_cell("a100_sxm4_40gb").value == 5120 / 1024
    assert s.stacks_cell("h200_sxm").value == 6 and s.stacks_cell("h200_sxm").kind == "reported"
    assert s.stacks_cell("rubin_vr200").kind == "unpublished"
    assert [s.process_cell(k).text for k in TABLE_GPUS[:6]] == ["TSMC 12 nm FFN", "TSMC 7 nm N7", "TSMC 4N",
                                                                 "TSMC 4N", "TSMC 4NP", "TSMC 4NP"]
    assert s.process_cell("h200_sxm").kind == "derived"            # the H100's die, not on the H200's page
    assert s.process_cell("rubin_vr200").kind == "unpublished"


def test_every_table_row_has_every_column():
    for key in TABLE_GPUS:
        r = s.generation_specs(key)
        assert r.capacity.known and r.bandwidth.known and r.nvlink.known and r.sms.known
        assert r.year == hw.entry(key).year


@pytest.mark.parametrize("bad", ["fp16", "", 8])
def test_bad_format(bad):
    with pytest.raises((KeyError, ValueError, TypeError)):
        s.dense_peak_cell("h100_sxm5", bad)


def test_cell_checks_its_kind():
    with pytest.raises((KeyError, ValueError)):
        s.Cell(1.0, "guessed")
