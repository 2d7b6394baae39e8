"""Tests for infra_lib.generations: per-SM and per-Tensor-Core rates, peaks from parts, bytes per
FLOP, ridge point, batch-1 decode ceiling.

Expected values by hand from published figures: H100 SXM5 (whitepaper V1.04, Table 1): 132 SMs,
528 Tensor Cores, 989.4 TFLOP/s dense BF16, 1,978.9 FP8, 3,352 GB/s; A100 and V100 (A100
whitepaper, section 4.1).
"""

import pytest
from hypothesis import given, strategies as st

from infra_lib import generations as gen, hardware as hw, roofline

from bad_values import BAD_POSITIVE, BAD_COUNT, PROPS, names


rates = st.floats(min_value=1e12, max_value=1e16)
sms = st.integers(min_value=1, max_value=300)
clocks = st.floats(min_value=5e8, max_value=3e9)


def test_h100_per_sm_and_per_tensor_core():
    # 989.4e12 / (132 x 1.83e9) = 4,095.9; / (528 x 1.83e9) = 1,023.97
    assert gen.flop_per_clock_per_sm(989.4e12, 132, 1.83e9) == pytest.approx(989.4e12 / 241.56e9)
    assert round(gen.flop_per_clock_per_sm(989.4e12, 132, 1.83e9)) == 4096
    assert round(gen.flop_per_clock_per_tensor_core(989.4e12, 528, 1.83e9)) == 1024
    assert round(gen.flop_per_clock_per_sm(1978.9e12, 132, 1.83e9)) == 8192   # FP8: twice BF16


def test_h100_peak_from_its_parts():
    assert gen.peak_flop_s(132, 4096, 1.83e9) == pytest.approx(989.42e12, abs=0.01e12)    # 132 x 4,096 x 1.83e9
    assert gen.tensor_core_peak_flop_s(132, 4, 1024, 1.83e9) == gen.peak_flop_s(132, 4096, 1.83e9)
    assert gen.peak_flop_s(132, 4096, 1.98e9) == pytest.approx(1070.53e12, abs=0.01e12)   # at the max clock


def test_a100_and_v100_from_the_whitepaper():
    # A100: 108 SMs x 1,024 FMA x 2 x 1.41 GHz = 311.9 TFLOPS; V100: 80 x 1,024 x 1.53 GHz = 125.3
    assert gen.peak_flop_s(108, 2048, 1.41e9) == pytest.approx(311.87e12, abs=0.01e12)
    assert gen.tensor_core_peak_flop_s(108, 4, 512, 1.41e9) == pytest.approx(311.87e12, abs=0.01e12)
    assert gen.peak_flop_s(80, 1024, 1.53e9) == pytest.approx(125.34e12, abs=0.01e12)


def test_implied_clock():
    assert gen.implied_clock_hz(989.4e12, 132, 4096) == pytest.approx(989.4e12 / (132 * 4096))
    assert round(gen.implied_clock_hz(989.4e12, 132, 4096) / 1e6) == 1830


def test_implied_clock_from_the_registry():
    v = lambda name: hw.value("h100_sxm5", name)
    clock = gen.implied_clock_hz(v("peak_flop_s"), int(v("sm_count")), v("tensor_flop_per_clock_per_sm"))
    assert round(clock / 1e6) == 1830


def test_bytes_per_flop():
    assert gen.bytes_per_flop(3352e9, 989.4e12) == pytest.approx(3352 / 989400)    # 0.00339


def test_decode_ceiling():
    assert gen.decode_ceiling_tok_s(3352e9, 16e9) == 209.5              # 3,352 / 16
    assert gen.decode_ceiling_tok_s(4.8e12, 16e9) == pytest.approx(300)  # H200


@PROPS
@given(sms, st.floats(min_value=1, max_value=1e5), clocks)
def test_peak_and_rates_are_inverses(n, per_clock, clock):
    peak = gen.peak_flop_s(n, per_clock, clock)
    assert gen.flop_per_clock_per_sm(peak, n, clock) == pytest.approx(per_clock, rel=1e-12)
    assert gen.implied_clock_hz(peak, n, per_clock) == pytest.approx(clock, rel=1e-12)


@PROPS
@given(sms, st.integers(min_value=1, max_value=8), rates, clocks)
def test_per_tensor_core_is_per_sm_over_cores_per_sm(n, per_sm, peak, clock):
    assert gen.flop_per_clock_per_tensor_core(peak, n * per_sm, clock) == pytest.approx(
        gen.flop_per_clock_per_sm(peak, n, clock) / per_sm, rel=1e-12)


@PROPS
@given(rates, st.floats(min_value=1e11, max_value=1e14))
def test_bytes_per_flop_is_the_inverse_of_the_ridge(peak, bw):
    assert gen.bytes_per_flop(bw, peak) * roofline.ridge_point(peak, bw) == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("param, call", [
    ("flop_per_clock_per_sm", lambda x: gen.peak_flop_s(132, x, 1.83e9)),
    ("clock_hz", lambda x: gen.peak_flop_s(132, 4096, x)),
    ("peak_flop_s", lambda x: gen.implied_clock_hz(x, 132, 4096)),
    ("flop_per_clock_per_sm", lambda x: gen.implied_clock_hz(989.4e12, 132, x)),
    ("peak_flop_s", lambda x: gen.flop_per_clock_per_sm(x, 132, 1.83e9)),
    ("clock_hz", lambda x: gen.flop_per_clock_per_sm(989.4e12, 132, x)),
    ("peak_flop_s", lambda x: gen.flop_per_clock_per_tensor_core(x, 528, 1.83e9)),
    ("clock_hz", lambda x: gen.flop_per_clock_per_tensor_core(989.4e12, 528, x)),
    ("flop_per_clock_per_tensor_core", lambda x: gen.tensor_core_peak_flop_s(132, 4, x, 1.83e9)),
    ("clock_hz", lambda x: gen.tensor_core_peak_flop_s(132, 4, 1024, x)),
    ("mem_bw_Bps", lambda x: gen.bytes_per_flop(x, 989.4e12)),
    ("peak_flop_s", lambda x: gen.bytes_per_flop(3352e9, x)),
    ("mem_bw_Bps", lambda x: gen.decode_ceiling_tok_s(x, 16e9)),
    ("weight_B", lambda x: gen.decode_ceiling_tok_s(3352e9, x)),
])
def test_positives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_COUNT)
@pytest.mark.parametrize("param, call", [
    ("sm_count", lambda x: gen.peak_flop_s(x, 4096, 1.83e9)),
    ("sm_count", lambda x: gen.implied_clock_hz(989.4e12, x, 4096)),
    ("sm_count", lambda x: gen.flop_per_clock_per_sm(989.4e12, x, 1.83e9)),
    ("tensor_cores", lambda x: gen.flop_per_clock_per_tensor_core(989.4e12, x, 1.83e9)),
    ("sm_count", lambda x: gen.tensor_core_peak_flop_s(x, 4, 1024, 1.83e9)),
    ("tensor_cores_per_sm", lambda x: gen.tensor_core_peak_flop_s(132, x, 1024, 1.83e9)),
])
def test_counts_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


# ---- chapter 4: rows per generation from the registry ---------------------------------------

def test_dense_peak_aligns_sparse_only_datasheets():
    from infra_lib import generations as g
    assert g.dense_bf16_flop_s("h100_sxm5") == 989.4e12          # dense in the whitepaper
    assert g.dense_bf16_flop_s("h200_sxm") == 1979e12 / 2         # product page prints sparse only
    assert g.dense_bf16_flop_s("b200_hgx") == 4.5e15 / 2


def test_generation_row_by_hand():
    from infra_lib import generations as g
    r = g.generation_row("b200_hgx")
    assert r.ridge_flop_per_B == pytest.approx(2.25e15 / 7.7e12)
    assert r.bytes_per_flop == pytest.approx(7.7e12 / 2.25e15)
    assert r.decode_8b_tok_s == pytest.approx(7.7e12 / 16e9)
    assert r.decode_70b_tok_s == pytest.approx(7.7e12 / 140e9)
    assert r.year == 2024


def test_on_chip_sram_h100():
    from infra_lib import generations as g
    # 132 SMs x (65,536 x 4 B registers + 256 KiB L1/shared) + 50 MB L2
    assert g.on_chip_sram_B(132, 65536 * 4, 256 * 1024, 50e6) == 132 * 2 * 262144 + 50e6


def test_a_device_without_a_bf16_peak_is_named():
    from infra_lib import generations as g
    with pytest.raises(KeyError, match="rubin_vr200"):
        g.dense_bf16_flop_s("rubin_vr200")


# ---- the chapter 4 spec table: each cell's value and kind, by hand from the registry's documents

TABLE_GPUS = ("v100_sxm2", "a100_sxm4_40gb", "h100_sxm5", "h200_sxm", "b200_hgx", "b300_gpu", "rubin_vr200")


def test_tensor_cores_are_sms_times_per_sm():
    # V100: 80 x 8 = 640; A100: 108 x 4 = 432; H100: 132 x 4 = 528 (whitepapers); B200: 148 x 4 = 592
    for key, n in (("v100_sxm2", 640), ("a100_sxm4_40gb", 432), ("h100_sxm5", 528), ("b200_hgx", 592)):
        assert gen.tensor_core_cell(key).value == n
    assert gen.tensor_core_cell("h100_sxm5").kind == "derived"
    assert gen.tensor_core_cell("b200_hgx").kind == "reported"        # its SM count is a third party's
    assert gen.tensor_core_cell("b300_gpu").kind == "datasheet"       # 640, printed by NVIDIA
    assert gen.tensor_core_cell("rubin_vr200").kind == "announced"


def test_dense_peaks_and_their_notes():
    b200 = gen.generation_specs("b200_hgx")
    assert (b200.bf16.value, b200.fp8.value, b200.fp4.value) == (4.5e15 / 2, 9e15 / 2, 18e15 / 2)
    assert {b200.bf16.note, b200.fp8.note, b200.fp4.note} == {"sparse / 2"}
    assert gen.dense_peak_cell("h100_sxm5", "fp8").value == 1978.9e12 and gen.dense_peak_cell("h100_sxm5", "fp8").note == ""
    assert gen.dense_peak_cell("b300_gpu", "fp4").value == 14e15       # printed dense: 18 | 14
    assert gen.dense_peak_cell("v100_sxm2", "bf16").note == "FP16"
    assert gen.dense_peak_cell("rubin_vr200", "fp4").note == "basis not stated"


def test_none_versus_unpublished():
    # FP8 arrived with Hopper, FP4 with Blackwell: older cells are "none"; Rubin's BF16 is unpublished
    assert gen.dense_peak_cell("v100_sxm2", "fp8").kind == "none"
    assert gen.dense_peak_cell("a100_sxm4_40gb", "fp4").kind == "none"
    assert gen.dense_peak_cell("h200_sxm", "fp4").kind == "none"
    assert gen.dense_peak_cell("rubin_vr200", "bf16").kind == "unpublished"
    assert gen.spec_cell("rubin_vr200", "power_W").kind == "unpublished"
    assert not gen.Cell(0.0, "none").known and gen.Cell(1.0, "derived").known


def test_memory_type_stacks_and_process():
    types = [gen.memory_type_cell(k).text for k in TABLE_GPUS]
    assert types == ["HBM2", "HBM2", "HBM3", "HBM3e", "HBM3e", "HBM3e", "HBM4"]
    assert gen.stacks_cell("v100_sxm2").value == 4096 / 1024 and gen.stacks_cell("v100_sxm2").kind == "derived"
    assert gen.stacks_cell("a100_sxm4_40gb").value == 5120 / 1024
    assert gen.stacks_cell("h200_sxm").value == 6 and gen.stacks_cell("h200_sxm").kind == "reported"
    assert gen.stacks_cell("rubin_vr200").kind == "unpublished"
    assert [gen.process_cell(k).text for k in TABLE_GPUS[:6]] == ["TSMC 12 nm FFN", "TSMC 7 nm N7", "TSMC 4N",
                                                                 "TSMC 4N", "TSMC 4NP", "TSMC 4NP"]
    assert gen.process_cell("h200_sxm").kind == "derived"            # the H100's die, not on the H200's page
    assert gen.process_cell("rubin_vr200").kind == "unpublished"


def test_every_table_row_has_every_column():
    for key in TABLE_GPUS:
        r = gen.generation_specs(key)
        assert r.capacity.known and r.bandwidth.known and r.nvlink.known and r.sms.known
        assert r.year == hw.entry(key).year


def test_per_stack_pin_rate_and_flop_per_joule_by_hand():
    assert gen.per_stack_bw_Bps("v100_sxm2") == pytest.approx(900e9 / 4)          # 225 GB/s
    assert gen.pin_rate_bps("h200_sxm") == pytest.approx(4.8e12 * 8 / 6144)       # 6.25 Gb/s
    assert gen.pin_rate_bps("b200_hgx") == pytest.approx(7.7e12 * 8 / 8192)       # 7.52 Gb/s
    assert gen.flop_per_joule("v100_sxm2") == pytest.approx(125e12 / 300)
    assert gen.flop_per_joule("b200_hgx") == pytest.approx(2.25e15 / 1000)
    with pytest.raises(KeyError):
        gen.flop_per_joule("rubin_vr200")
    with pytest.raises(KeyError):
        gen.per_stack_bw_Bps("rubin_vr200")


@pytest.mark.parametrize("bad", ["fp16", "", 8])
def test_bad_format(bad):
    with pytest.raises((KeyError, ValueError, TypeError)):
        gen.dense_peak_cell("h100_sxm5", bad)


def test_cell_checks_its_kind():
    with pytest.raises((KeyError, ValueError)):
        gen.Cell(1.0, "guessed")
