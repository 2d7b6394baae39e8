"""Tests for infra_lib.generations: per-SM and per-Tensor-Core rates, peaks from parts, bytes per
FLOP, ridge point, batch-1 decode ceiling; the GPUs chapter 4 compares, and a scratch GPU added to
a copy of the registry reaching chapter 4's table, figures, decode ceilings and planner.

Expected values by hand from published figures: H100 SXM5 (whitepaper V1.04, Table 1): 132 SMs,
528 Tensor Cores, 989.4 TFLOP/s dense BF16, 1,978.9 FP8, 3,352 GB/s; A100 and V100 (A100
whitepaper, section 4.1).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from infra_lib import generations as gen, hardware as hw, models, roofline, specsheet

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


# ---- chapter 4: per stack, per pin, per joule ------------------------------------------------

def test_per_stack_pin_rate_and_flop_per_joule_by_hand():
    assert gen.per_stack_bw_Bps("v100_sxm2") == pytest.approx(900e9 / 4)          # 225 GB/s
    assert gen.device_pin_rate_bps("h200_sxm") == pytest.approx(4.8e12 * 8 / 6144)       # 6.25 Gb/s
    assert gen.device_pin_rate_bps("b200_hgx") == pytest.approx(7.7e12 * 8 / 8192)       # 7.52 Gb/s
    assert gen.flop_per_joule("v100_sxm2") == pytest.approx(125e12 / 300)
    assert gen.flop_per_joule("b200_hgx") == pytest.approx(2.25e15 / 1000)
    with pytest.raises(KeyError):
        gen.flop_per_joule("rubin_vr200")
    with pytest.raises(KeyError):
        gen.per_stack_bw_Bps("rubin_vr200")
    with pytest.raises(KeyError, match="rubin_vr200"):
        gen.device_pin_rate_bps("rubin_vr200")


def test_the_device_pin_rate_is_memory_pin_rate_over_the_bus():
    # one meaning per name: memory.pin_rate_bps(bandwidth, bus bits); the device's reads both from the registry
    from infra_lib import memory
    assert gen.device_pin_rate_bps("h100_sxm5") == memory.pin_rate_bps(3352e9, 5 * 1024)   # 5.2375 Gb/s
    assert not hasattr(gen, "pin_rate_bps")


def test_flop_per_joule_is_checked_like_every_formula():
    assert getattr(gen.flop_per_joule, "__wrapped__", None) is not None          # @_check.finite
    with pytest.raises((TypeError, ValueError), match="device"):
        gen.flop_per_joule(3.0)


# ---- chapter 4 compares the registry's marked GPUs: a new one needs no edit to the chapter -------

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "infra_lib" / "data" / "registry"
CHAPTER_4 = ROOT / "notebooks" / "en" / "04_generations.md"
DEFAULT_COMPARED = [d.key for d in gen.comparison_devices()]      # the course's registry, read at import

# A GPU that exists only here: announced in 2025 like the B300, in a file after nvidia_blackwell.toml,
# so year then file order puts it between the B300 and Rubin. 30 TB/s is beyond the figure's 16.
SCRATCH_GPU = '''
[entries.x900_scratch]
name = "Scratch X900 (a GPU of this test only)"
short_name = "X900"
category = "device"
family = "blackwell"
vendor = "nvidia"
year = 2025
compared = true

[entries.x900_scratch.specs.peak_flop_s]
value = 5e15
unit = "FLOP/s"
kind = "datasheet"
source = "h100_wp_v104"
where = "a scratch value"
caveats = ["dense", "BF16"]

[entries.x900_scratch.specs.mem_bw_Bps]
value = 30e12
unit = "B/s"
kind = "datasheet"
source = "h100_wp_v104"
where = "a scratch value (HBM4)"

[entries.x900_scratch.specs.mem_capacity_B]
value = 500e9
unit = "B"
kind = "datasheet"
source = "h100_wp_v104"
where = "a scratch value"
'''


@pytest.fixture
def scratch_registry(tmp_path):
    """A copy of the registry with the scratch GPU in a file of its own."""
    folder = tmp_path / "registry"
    shutil.copytree(REGISTRY, folder)
    (folder / "scratch.toml").write_text(SCRATCH_GPU, encoding="utf-8")
    return folder


@pytest.fixture
def using_scratch_registry(scratch_registry, monkeypatch):
    """This process reads the scratch registry (hardware.REGISTRY_ENV) until the test ends."""
    monkeypatch.setenv(hw.REGISTRY_ENV, str(scratch_registry))
    hw.registry.cache_clear()
    yield scratch_registry
    monkeypatch.delenv(hw.REGISTRY_ENV)
    hw.registry.cache_clear()


def test_the_compared_gpus_are_the_marked_devices_oldest_first():
    compared = gen.comparison_devices()
    assert [d.key for d in compared] == [d.key for d in hw.devices() if d.compared]
    order = {key: i for i, key in enumerate(hw.registry().entries)}
    assert [(d.year, order[d.key]) for d in compared] == sorted((d.year, order[d.key]) for d in compared)
    keys = {d.key for d in compared}
    assert {"v100_sxm2", "a100_sxm4_40gb", "h100_sxm5", "h200_sxm", "b200_hgx", "b300_gpu", "rubin_vr200"} <= keys
    assert "h100_pcie" not in keys and "grace" not in keys     # a form factor of the H100; a CPU


def test_the_comparison_rows_are_the_compared_gpus_with_a_bf16_peak():
    rows = gen.comparison_rows()
    assert [r.device for r in rows] == [k for k in DEFAULT_COMPARED if k != "rubin_vr200"]   # NVFP4 only
    h100 = next(r for r in rows if r.device == "h100_sxm5")
    assert h100 == gen.generation_row("h100_sxm5")
    assert gen.comparison_rows(16e9, 70e9)[0].decode_70b_tok_s == 900e9 / 70e9    # V100: 900 GB/s


def test_a_scratch_gpu_joins_the_comparison_in_year_then_file_order(using_scratch_registry):
    assert hw.registry().directory == using_scratch_registry
    keys = [d.key for d in gen.comparison_devices()]
    b300 = DEFAULT_COMPARED.index("b300_gpu")
    assert keys == DEFAULT_COMPARED[:b300 + 1] + ["x900_scratch"] + DEFAULT_COMPARED[b300 + 1:]
    row = next(r for r in gen.comparison_rows() if r.device == "x900_scratch")
    assert (row.year, row.decode_8b_tok_s, row.ridge_flop_per_B) == (2025, 30e12 / 16e9, 5e15 / 30e12)
    cells = specsheet.generation_specs("x900_scratch")
    assert (cells.bandwidth.value, cells.capacity.value, cells.power.kind) == (30e12, 500e9, "unpublished")


def test_without_the_mark_a_scratch_gpu_is_not_compared(scratch_registry, monkeypatch):
    path = scratch_registry / "scratch.toml"
    path.write_text(path.read_text(encoding="utf-8").replace("compared = true\n", ""), encoding="utf-8")
    monkeypatch.setenv(hw.REGISTRY_ENV, str(scratch_registry))
    hw.registry.cache_clear()
    try:
        assert "x900_scratch" in {d.key for d in hw.devices()}
        assert [d.key for d in gen.comparison_devices()] == DEFAULT_COMPARED
    finally:
        monkeypatch.delenv(hw.REGISTRY_ENV)
        hw.registry.cache_clear()


# Runs chapter 4's code cells in a fresh interpreter that reads the registry named by
# INFRA_LIB_REGISTRY (as book/tools/glue_snapshot.py runs a page), then reports what the scratch
# GPU reached: the glued values, the two tables' rows, the figures' labels, the planner's choices.
_RUN_CHAPTER = r'''
import json, os, sys
import matplotlib
matplotlib.use("Agg")
import jupytext
sys.path.insert(0, sys.argv[2])
from infra_lib import glue as glue_module
glue_module.FOR_MYST_NB = False
scope = {"__name__": "__main__"}
for cell in jupytext.read(sys.argv[1]).cells:
    if cell.cell_type == "code" and "skip-execution" not in cell.metadata.get("tags", []):
        exec(compile(cell.source, "chapter 4", "exec"), scope)
peak_bw, ridge = glue_module.GLUED["ch4_fig_peak_bw"].axes[0], glue_module.GLUED["ch4_fig_ridge"].axes[0]
from infra_lib.widgets import planner as widget
print(json.dumps({
    "glued": {k: v for k, v in glue_module.GLUED.items() if isinstance(v, (int, float, str))},
    "compute": scope["compute"], "memory": scope["memory"], "names": scope["NAMES"],
    "peak_bw_labels": [t.get_text() for t in peak_bw.texts], "peak_bw_xlim": list(peak_bw.get_xlim()),
    "ridge_ticks": [t.get_text() for t in ridge.get_xticklabels()],
    "planner_gb": next(c for c in widget.CONTROLS if c.name == "gpu_mem_gb").max,
}))
'''


def run_chapter_4(registry_folder, chapter=CHAPTER_4):
    """What chapter 4 computes and shows when the registry is ``registry_folder``."""
    env = dict(os.environ, **{hw.REGISTRY_ENV: str(registry_folder)})
    out = subprocess.run([sys.executable, "-c", _RUN_CHAPTER, str(chapter), str(ROOT)], cwd=chapter.parent,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.splitlines()[-1])


def scratch_gpu_problems(seen):
    """What of the scratch GPU is missing from a run of chapter 4 ([] when it reached everything)."""
    problems = []
    weights = {"dec8": models.LLAMA3_8B.weight_B(), "dec70": models.LLAMA3_70B.weight_B()}
    for suffix, weight_B in weights.items():
        got = seen["glued"].get(f"ch4_x900_{suffix}")
        if got is None or got != pytest.approx(30e12 / weight_B):
            problems.append(f"decode ceiling ch4_x900_{suffix}: {got!r}")
    if not any(r.startswith("| X900\u00a0(2025) |") for r in seen["compute"]):
        problems.append("no X900 row in the compute table")
    if not any(r.startswith("| X900 |") and "30.00" in r for r in seen["memory"]):
        problems.append("no X900 row (30.00 TB/s) in the memory table")
    if seen["names"][-1:] != ["X900"] or "X900" not in seen["peak_bw_labels"] or "X900\n2025" not in seen["ridge_ticks"]:
        problems.append(f"X900 not last in the figures' GPUs: {seen['names']}")
    if not seen["peak_bw_xlim"][0] < 30 < seen["peak_bw_xlim"][1]:
        problems.append(f"30 TB/s outside the peak-bandwidth figure's axis {seen['peak_bw_xlim']}")
    if seen["planner_gb"] < 500:
        problems.append(f"500 GB is above the planner's memory slider (max {seen['planner_gb']} GB)")
    return problems


@pytest.mark.pages          # runs chapter 4's cells in a fresh process: with the pages, not in make check
def test_a_scratch_gpu_reaches_chapter_4_without_an_edit(scratch_registry):
    seen = run_chapter_4(scratch_registry)
    assert scratch_gpu_problems(seen) == []
    # and the GPUs already compared keep their rows and glue keys
    for tag in ("v100", "a100", "h100", "h200", "b200", "b300"):
        assert f"ch4_{tag}_dec8" in seen["glued"] and f"ch4_{tag}_dec70" in seen["glued"]
    assert seen["names"] == ["V100", "A100", "H100", "H200", "B200", "B300", "X900"]
    assert seen["glued"]["ch4_h100_dec8"] == pytest.approx(3352e9 / models.LLAMA3_8B.weight_B())


# ---- what a newer peak is made of; one basis per row ----------------------------------------

@given(st.floats(1e14, 1e16), st.integers(1, 400), st.floats(1e14, 1e16), st.integers(1, 400),
       st.sampled_from([1024, 2048, 4096]), st.sampled_from([0.5, 1, 2, 4]))
def test_peak_gain_factors_multiply_to_the_ratio(new, new_sms, old, old_sms, rate, k):
    g = gen.peak_gain(new, new_sms, old, old_sms, rate, k)
    assert g.sm_factor * g.per_sm_factor * g.clock_factor == pytest.approx(new / old, rel=1e-9)
    # the implied clock rebuilds the new peak from its parts
    assert gen.peak_flop_s(new_sms, rate * k, g.implied_clock_hz) == pytest.approx(new, rel=1e-9)


def test_b200_over_h100_is_mostly_the_per_sm_rate():
    h, b = "h100_sxm5", "b200_hgx"
    g = gen.peak_gain(gen.dense_bf16_flop_s(b), int(hw.value(b, "sm_count")),
                              hw.value(h, "peak_flop_s"), int(hw.value(h, "sm_count")),
                              hw.value(h, "tensor_flop_per_clock_per_sm"), 2)
    assert 0.97 < g.clock_factor < 1.05 and g.sm_factor < 1.2 < g.per_sm_factor


def test_b300_row_has_one_basis():
    r = {x.device: x for x in gen.comparison_rows()}["b300_gpu"]
    assert r.mem_bw_Bps == hw.value("b300_gpu", "hgx_mem_bw_Bps") != hw.value("b300_gpu", "mem_bw_Bps")
    assert specsheet.generation_specs("b300_gpu").capacity.value == hw.value("b300_gpu", "hgx_mem_capacity_B")


# ---- the scale-up domain, FP8 accumulation, the SFU, the L2 (chapter 4, "Beyond the peak") ----

@given(st.integers(min_value=1, max_value=512), st.integers(min_value=1, max_value=576))
def test_largest_group_divides_and_fits_and_is_largest(units, domain):
    g = gen.largest_group_in_domain(units, domain)
    assert units % g == 0 and g <= domain
    assert all(units % d for d in range(g + 1, min(units, domain) + 1))


def test_largest_group_for_llama_and_a_many_expert_moe():
    l70 = models.LLAMA3_70B
    assert gen.largest_group_in_domain(l70.n_kv_heads, 72) == l70.n_kv_heads   # a rack does not widen TP
    assert gen.largest_group_in_domain(256, 72) == 64
    assert gen.largest_group_in_domain(7, 72) == 7


def test_all_to_all_inside_one_domain_is_the_nvlink_share():
    # 8 ranks in one domain: each sends 7/8 of 8 GB over 400 GB/s = 17.5 ms; the network is unused.
    assert gen.all_to_all_s(8e9, 8, 72, 400e9, 1.0) == pytest.approx(7 / 8 * 8e9 / 400e9)


def test_all_to_all_across_domains_is_bound_by_the_network():
    # 64 ranks, 8 per domain: 56/64 of the bytes leave the node.
    t = gen.all_to_all_s(64e9, 64, 8, 900e9, 50e9)
    assert t == pytest.approx(56 / 64 * 64e9 / 50e9)
    assert gen.all_to_all_s(64e9, 64, 64, 900e9, 50e9) < t        # a bigger domain never slows it


def test_all_to_all_is_the_slower_of_its_two_paths():
    # 20 ranks: in a 19-GPU domain 1/20 crosses the network (1 ms) and 18/20 NVLink (1 ms);
    # in a 20-GPU domain everything is on NVLink, 19/20 at 900 GB/s: a little slower, the model's max().
    assert gen.all_to_all_s(1e9, 20, 19, 900e9, 50e9) == pytest.approx(1e-3)
    assert gen.all_to_all_s(1e9, 20, 20, 900e9, 50e9) == pytest.approx(19 / 20 * 1e9 / 900e9)


def test_accumulation_bound_by_hand():
    u = 2.0 ** -14
    assert gen.accumulation_error_bound(4096, 14) == pytest.approx(4095 * u)
    assert gen.accumulation_error_bound(4096, 14, statistical=True) == pytest.approx(4095 ** 0.5 * u)
    assert gen.accumulation_error_bound(4096, 14, 128) == pytest.approx(127 * u + 31 * 2.0 ** -24)
    assert gen.accumulation_error_bound(100, 14, 128) == gen.accumulation_error_bound(100, 14)   # N_C >= K: no promotion


@given(st.integers(min_value=2, max_value=2**20), st.integers(min_value=8, max_value=23),
       st.integers(min_value=2, max_value=4096))
def test_promotion_never_hurts_and_more_bits_help(k, bits, nc):
    plain = gen.accumulation_error_bound(k, bits)
    assert gen.accumulation_error_bound(k, bits, nc) <= plain * (1 + 1e-12)
    assert gen.accumulation_error_bound(k, bits + 1) < plain
    assert gen.accumulation_error_bound(k, bits, statistical=True) <= plain


def test_promotions_per_output():
    assert gen.promotions_per_output(gen.DEEPSEEK_ERROR_K, gen.DEEPSEEK_PROMOTION_INTERVAL) == 4096 // 128
    assert gen.promotions_per_output(129, 128) == 2


def test_the_registry_fp8_accumulation_facts_agree_with_the_bound():
    bits = int(hw.value("gh100_die", "fp8_accumulator_retained_bits"))
    seen = hw.value("gh100_die", "fp8_gemm_max_rel_error")
    k = gen.DEEPSEEK_ERROR_K
    # the measured maximum lies between the random-sign estimate and the worst-case bound
    assert gen.accumulation_error_bound(k, bits, statistical=True) < seen < gen.accumulation_error_bound(k, bits)


def test_softmax_exp_ratio_matches_flashattention3():
    # FlashAttention-3, section 3.2: 512x more matmul FLOPs at d = 128, 256x lower throughput -> 50%.
    assert gen.softmax_exp_to_matmul_time(256 * 3.9e12, 3.9e12, 128) == pytest.approx(256 / 512)
    r = gen.softmax_exp_to_matmul_time(989.4e12, 4.5e12, 128)
    assert gen.softmax_exp_share(989.4e12, 4.5e12, 128) == pytest.approx(r / (1 + r))


@given(rates, st.floats(min_value=1e11, max_value=1e14), st.integers(min_value=16, max_value=512))
def test_softmax_share_is_a_fraction_that_falls_with_a_faster_sfu(mm, exp, d):
    share = gen.softmax_exp_share(mm, exp, d)
    assert 0 < share < 1
    assert gen.softmax_exp_share(mm, 2 * exp, d) < share


def test_blackwell_ultra_restores_the_hopper_softmax_balance():
    share = {k: gen.softmax_exp_share(gen.dense_bf16_flop_s(k), hw.value(k, "sfu_exp_per_s"), 128)
             for k in ("h100_sxm5", "b200_hgx", "b300_gpu")}
    assert share["b200_hgx"] > share["h100_sxm5"] and share["b300_gpu"] < share["b200_hgx"]
    assert hw.value("b300_gpu", "sfu_exp_per_s") / hw.value("b200_hgx", "sfu_exp_per_s") == pytest.approx(2, rel=0.1)


def test_l2_cells_cover_the_compared_gpus_with_kinds():
    cells = dict(gen.l2_cells())
    assert list(cells) == [d.key for d in gen.comparison_devices()]
    assert cells["h200_sxm"].kind == "measured" and cells["b200_hgx"].known
    known = [c.value for c in cells.values() if c.known]
    assert known == sorted(known)                     # the L2 grew with every generation the registry sizes


@pytest.mark.parametrize("call", [
    lambda: gen.largest_group_in_domain(0, 8), lambda: gen.all_to_all_s(1e9, 0, 8, 1e9, 1e9),
    lambda: gen.all_to_all_s(1e9, 8, 8, 0.0, 1e9), lambda: gen.accumulation_error_bound(4096, 0),
    lambda: gen.accumulation_error_bound(4096, 14, -1), lambda: gen.softmax_exp_share(1e15, 0.0, 128),
    lambda: gen.promotions_per_output(4096, 0)])
def test_new_functions_refuse_bad_values(call):
    with pytest.raises((ValueError, TypeError)):
        call()
