"""Tests for infra_lib.hardware: the spec registry, its provenance, and the derived formulas."""
import json
import re
import tomllib
from pathlib import Path

import pytest

from infra_lib import hardware as hw

ROOT = Path(__file__).resolve().parents[1]


def _merge_registry_files():
    """Every infra_lib/data/*.toml merged here independently of the library's own loader."""
    merged = {"sources": {}, "devices": {}}
    for path in sorted((ROOT / "infra_lib" / "data").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        merged["sources"].update(data.get("sources", {}))
        for key, dev in data.get("devices", {}).items():
            merged["devices"].setdefault(key, {"specs": {}})["specs"].update(dev.get("specs", {}))
    return merged


RAW = _merge_registry_files()
CORE = tomllib.loads((ROOT / "infra_lib" / "data" / "hardware.toml").read_text(encoding="utf-8"))
REALITY = json.loads((ROOT / "infra_lib" / "data" / "measurements" / "h200-2026-11-29"
                      / "reality_check.json").read_text(encoding="utf-8"))
ALLOWED_KINDS = {"datasheet", "derived", "reported", "measured", "teaching"}
TEACHING_DEVICES = {"teaching_gpu", "teaching_request"}

NAN, INF = float("nan"), float("inf")
BAD_POSITIVE = [0, 0.0, -1, -1e-9, NAN, INF, -INF, True, False, "1", None]
BAD_COUNT = BAD_POSITIVE + [1.5]


def names(param):
    return rf"^{re.escape(param)}\b"


def raw_specs():
    return [(dev, name, row) for dev, d in RAW["devices"].items() for name, row in d["specs"].items()]


# ---- the registry: provenance of every value -----------------------------------------------

def test_registry_lists_every_device_in_the_toml():
    assert hw.devices() == sorted(RAW["devices"])


def test_every_toml_spec_is_loaded():
    loaded = {(s.device, s.name) for s in hw.specs_used()}
    assert loaded == {(dev, name) for dev, name, _ in raw_specs()}


@pytest.mark.parametrize("s", hw.specs_used(), ids=lambda s: f"{s.device}.{s.name}")
def test_every_spec_has_provenance(s):
    assert s.kind in ALLOWED_KINDS
    assert s.where.strip()
    assert s.unit.strip()
    assert s.source.key in RAW["sources"]
    assert s.source.title == RAW["sources"][s.source.key]["title"]


@pytest.mark.parametrize("dev, name, row", raw_specs(), ids=lambda x: x if isinstance(x, str) else None)
def test_toml_rows_are_complete(dev, name, row):
    assert {"value", "unit", "kind", "source", "where"} <= set(row)
    assert row["source"] in RAW["sources"]
    assert hw.value(dev, name) == float(row["value"])


def test_every_source_has_title_and_date():
    for key, src in RAW["sources"].items():
        assert src["title"].strip() and src["date"].strip(), key


@pytest.mark.parametrize("s", [s for s in hw.specs_used() if s.device in TEACHING_DEVICES],
                         ids=lambda s: f"{s.device}.{s.name}")
def test_teaching_values_are_marked_teaching(s):
    assert s.kind == "teaching"
    assert s.source.key == "seed"


def test_real_products_hold_no_teaching_values():
    """A teaching assumption never hides among a real product's specs in the core registry."""
    products = set(CORE["devices"]) - TEACHING_DEVICES
    wrong = [f"{s.device}.{s.name}" for s in hw.specs_used() if s.device in products and s.kind == "teaching"]
    assert wrong == []


def test_reported_values_do_not_cite_a_vendor_document():
    # The TOML header: "reported | press or a third party states it, not the vendor's own text".
    # A number implied by the vendor's own table is 'derived', not 'reported'.
    wrong = [f"{s.device}.{s.name} cites {s.source.key!r}" for s in hw.specs_used()
             if s.kind == "reported" and s.source.title.startswith("NVIDIA")]
    assert wrong == []


def test_flop_specs_say_dense_or_sparse():
    for s in hw.specs_used():
        if s.unit == "FLOP/s":
            assert any("dense" in c or "spars" in c for c in s.caveats), f"{s.device}.{s.name}"


def test_link_bandwidths_say_which_direction():
    for s in hw.specs_used():
        if s.unit in ("B/s", "bit/s") and any(k in s.name for k in ("nvlink", "pcie", "nic")):
            assert any("direction" in c or "total" in c for c in s.caveats), f"{s.device}.{s.name}"


def test_unit_matches_name_suffix():
    # units.py convention: _Bps bytes/s, _bps bits/s, flop_s FLOP/s, _hz Hz, _B bytes.
    for s in hw.specs_used():
        if "_Bps" in s.name:
            assert s.unit == "B/s", s.name
        elif s.name.endswith("_bps"):
            assert s.unit == "bit/s", s.name
        elif "flop_s" in s.name:
            assert s.unit == "FLOP/s", s.name
        elif s.name.endswith("_hz"):
            assert s.unit == "Hz", s.name
        elif s.name.endswith("_B"):
            assert s.unit == "B", s.name


def test_cite_is_title_and_where():
    s = hw.spec("h100_sxm5", "mem_bw_Bps")
    assert s.cite() == ("NVIDIA H100 Tensor Core GPU Architecture whitepaper, V1.04, "
                        "Table 3, pp. 39-40 ('80GB (HBM3, 5 stacks) 2619 MHz DDR, 3352 GB/sec')")


def test_device_names():
    assert hw.device_name("h100_sxm5") == "NVIDIA H100 SXM5"
    assert hw.device_name("h200_sxm") == "NVIDIA H200 SXM"


# ---- values against their datasheets ------------------------------------------------------

@pytest.mark.parametrize("dev, name, expected", [
    # H100 whitepaper V1.04, Table 1 and Table 3, sections 2.1, 4, 4.7
    ("h100_sxm5", "peak_flop_s", 989.4e12),
    ("h100_sxm5", "peak_flop_s_sparse", 1978.9e12),
    ("h100_sxm5", "mem_bw_Bps", 3352e9),
    ("h100_sxm5", "sm_count", 132),
    ("h100_sxm5", "hbm_stacks", 5),
    ("h100_sxm5", "hbm_clock_hz", 2619e6),
    ("h100_sxm5", "mem_capacity_B", 80e9),
    ("h100_sxm5", "nvlink_links", 18),
    ("h100_sxm5", "nvlink_link_Bps_per_direction", 25e9),
    ("h100_sxm5", "nvlink_total_Bps", 900e9),
    ("h100_sxm5", "pcie_total_Bps", 128e9),
    # the 2022 preliminary figures, kept to show the change
    ("h100_sxm5", "preliminary_peak_flop_s", 1000e12),
    ("h100_sxm5", "preliminary_mem_bw_Bps", 3000e9),
    ("h100_sxm5", "product_page_bf16_flop_s", 1979e12),
    # H200 product page
    ("h200_sxm", "mem_bw_Bps", 4.8e12),
    ("h200_sxm", "mem_capacity_B", 141e9),
    ("h200_sxm", "peak_flop_s_sparse", 1979e12),
    # DGX H100 user guide, Table 1
    ("dgx_h100", "gpus", 8),
    ("dgx_h100", "cores_per_cpu", 56),
    ("dgx_h100", "nvlink_gpu_to_gpu_Bps", 900e9),
    ("dgx_h100", "nic_bps", 400e9),
    ("dgx_h100", "system_memory_B", 2e12),
    # the seed's teaching numbers
    ("teaching_gpu", "peak_flop_s", 1e15),
    ("teaching_gpu", "mem_bw_Bps", 3e12),
    ("teaching_gpu", "flop_efficiency", 0.5),
    ("teaching_gpu", "bw_efficiency", 0.7),
    ("teaching_request", "n_params", 8e9),
    ("teaching_request", "bytes_per_param", 2),
    ("teaching_request", "prompt_tokens", 2000),
    ("teaching_request", "kv_bytes_per_request", 0.3e9),
    ("teaching_request", "batch", 32),
])
def test_value_matches_source(dev, name, expected):
    assert hw.value(dev, name) == expected


def test_h200_sm_count_matches_measurement():
    assert hw.value("h200_sxm", "sm_count") == REALITY["gpu"]["sms"]


def test_sparse_is_twice_dense_within_rounding():
    # 2 x 989.4 = 1978.8 vs 1978.9: both rounded to 0.1 TFLOPS.
    assert hw.value("h100_sxm5", "peak_flop_s_sparse") == pytest.approx(2 * 989.4e12, abs=0.15e12)


def test_teaching_gpu_is_h100_rounded():
    assert hw.value("teaching_gpu", "peak_flop_s") == pytest.approx(989.4e12, rel=0.02)
    assert hw.value("teaching_gpu", "mem_bw_Bps") == pytest.approx(3352e9, rel=0.15)


def test_nvlink_links_times_per_direction_times_two_is_total():
    links = hw.value("h100_sxm5", "nvlink_links")
    each_way = hw.value("h100_sxm5", "nvlink_link_Bps_per_direction")
    assert links * each_way * 2 == hw.value("h100_sxm5", "nvlink_total_Bps") == 900e9


# ---- derived formulas ---------------------------------------------------------------------

def test_hbm_bandwidth_from_stacks_width_and_clock():
    # 5 stacks x 1024 bits x 2619 MHz x 2 (DDR) / 8 = 3352.32 GB/s; datasheet says 3352.
    expected = 5 * 1024 * 2619e6 * 2 / 8
    assert hw.hbm_bandwidth_Bps(5, 1024, 2619e6) == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx(3352e9, rel=2e-4)   # 2619 MHz is rounded to 1 MHz: +-1.9e-4


def test_hbm_bandwidth_from_registry_matches_datasheet():
    v = lambda n: hw.value("h100_sxm5", n)
    derived = hw.hbm_bandwidth_Bps(v("hbm_stacks"), v("hbm_bits_per_stack"), v("hbm_clock_hz"))
    assert derived == pytest.approx(v("mem_bw_Bps"), rel=2e-4)


def test_hbm_transfers_per_clock_scales_linearly():
    assert hw.hbm_bandwidth_Bps(1, 1024, 1e9, transfers_per_clock=1) == 1024 * 1e9 / 8


def test_peak_flop_s_from_sms_and_clock():
    # Whitepaper V1.04: 132 SMs x 4096 FLOP/clock/SM x 1.83 GHz = 989.4 TFLOPS.
    expected = 132 * 4096 * 1.83e9
    assert hw.peak_flop_s(132, 4096, 1.83e9) == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx(989.4e12, abs=0.05e12)


def test_implied_clock_of_the_bf16_peak_is_1830_mhz():
    expected = 989.4e12 / (132 * 4096)
    assert hw.implied_clock_hz(989.4e12, 132, 4096) == pytest.approx(expected, rel=1e-12)
    assert expected == pytest.approx(1830e6, abs=0.5e6)


def test_implied_clock_from_registry():
    v = lambda n: hw.value("h100_sxm5", n)
    clock = hw.implied_clock_hz(v("peak_flop_s"), v("sm_count"), v("tensor_flop_per_clock_per_sm"))
    assert clock == pytest.approx(1830e6, abs=0.5e6)
    assert clock < v("max_sm_clock_hz")          # the tensor peak assumes a lower clock than max


def test_max_clock_is_implied_by_fp32_peak():
    # FP32 66.9 TFLOPS / (132 SMs x 256 FLOP/clock/SM) = 1979.8 MHz, reported as 1980.
    assert hw.implied_clock_hz(66.9e12, 132, 256) == pytest.approx(
        hw.value("h100_sxm5", "max_sm_clock_hz"), abs=2e6)


def test_peak_and_implied_clock_are_inverse():
    clock = hw.implied_clock_hz(989.4e12, 132, 4096)
    assert hw.peak_flop_s(132, 4096, clock) == pytest.approx(989.4e12, rel=1e-12)


# ---- unknown keys -------------------------------------------------------------------------

def test_unknown_device_names_it_and_lists_valid_ones():
    with pytest.raises(KeyError) as err:
        hw.spec("h900", "mem_bw_Bps")
    msg = str(err.value)
    assert "'h900'" in msg
    for dev in RAW["devices"]:
        assert dev in msg


@pytest.mark.parametrize("call", [hw.device_name, lambda d: hw.value(d, "mem_bw_Bps")])
def test_unknown_device_everywhere(call):
    with pytest.raises(KeyError, match="h900"):
        call("h900")


def test_unknown_spec_names_it_and_lists_valid_ones():
    with pytest.raises(KeyError) as err:
        hw.value("h100_sxm5", "mem_bandwidth")
    msg = str(err.value)
    assert "'mem_bandwidth'" in msg and "h100_sxm5" in msg
    for name in RAW["devices"]["h100_sxm5"]["specs"]:
        assert name in msg


def test_spec_of_another_device_is_not_found():
    with pytest.raises(KeyError, match="hbm_clock_hz"):
        hw.spec("h200_sxm", "hbm_clock_hz")


# ---- validation of the derived formulas ---------------------------------------------------

@pytest.mark.parametrize("bad", BAD_COUNT)
@pytest.mark.parametrize("param, call", [
    ("sm_count", lambda x: hw.peak_flop_s(x, 4096, 1.83e9)),
    ("sm_count", lambda x: hw.implied_clock_hz(989.4e12, x, 4096)),
    ("stacks", lambda x: hw.hbm_bandwidth_Bps(x, 1024, 2619e6)),
    ("bits_per_stack", lambda x: hw.hbm_bandwidth_Bps(5, x, 2619e6)),
    ("transfers_per_clock", lambda x: hw.hbm_bandwidth_Bps(5, 1024, 2619e6, x)),
])
def test_counts_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("param, call", [
    ("flop_per_clock_per_sm", lambda x: hw.peak_flop_s(132, x, 1.83e9)),
    ("clock_hz", lambda x: hw.peak_flop_s(132, 4096, x)),
    ("peak", lambda x: hw.implied_clock_hz(x, 132, 4096)),
    ("flop_per_clock_per_sm", lambda x: hw.implied_clock_hz(989.4e12, 132, x)),
    ("clock_hz", lambda x: hw.hbm_bandwidth_Bps(5, 1024, x)),
])
def test_positives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)
