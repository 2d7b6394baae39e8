"""Tests for infra_lib.hardware: the spec registry (data/registry/), its schema, its provenance,
the device view, usage recording, and the derived formulas."""
import fnmatch
import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest

from infra_lib import generations, hardware as hw, memory


ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "infra_lib" / "data" / "registry"


def _read_registry_files():
    """Every registry file read here independently of the library's loader: {file: parsed TOML}."""
    return {p.name: tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted(REGISTRY.glob("*.toml"))}


FILES = _read_registry_files()
RAW_SOURCES = FILES["sources.toml"]["sources"]
RAW_ENTRIES = {key: (name, e) for name, d in FILES.items() for key, e in d.get("entries", {}).items()}
REALITY = json.loads((ROOT / "infra_lib" / "data" / "measurements" / "h200-2026-11-29"
                      / "reality_check.json").read_text(encoding="utf-8"))
ALLOWED_KINDS = {"datasheet", "derived", "reported", "measured", "teaching"}
SEED_TEACHING = {"teaching_gpu", "teaching_request"}


def raw_specs():
    return [(key, name, row) for key, (_, e) in RAW_ENTRIES.items() for name, row in e["specs"].items()]


# ---- layout: where each entry lives ------------------------------------------------------

# The layout: one file per product family, non-devices in files of their own kind.
FAMILY_FILE = {"volta": "nvidia_volta.toml", "ampere": "nvidia_ampere.toml", "hopper": "nvidia_hopper.toml",
               "blackwell": "nvidia_blackwell.toml", "grace": "nvidia_grace.toml",
               "sapphire_rapids": "intel_xeon.toml", "rubin": "nvidia_rubin.toml", "tpu": "google_tpu.toml"}
CATEGORY_FILE = {"memory_standard": "hbm.toml", "process": "manufacturing.toml", "fab": "manufacturing.toml",
                 "packaging": "manufacturing.toml", "software": "software.toml", "assumption": "teaching.toml"}


def test_registry_files():
    assert sorted(FILES) == sorted({"sources.toml", *FAMILY_FILE.values(), *CATEGORY_FILE.values()})


@pytest.mark.parametrize("d", hw.devices(category=None), ids=lambda d: d.key)
def test_each_entry_lives_in_the_file_of_its_family_or_kind(d):
    if d.category in hw.HARDWARE_CATEGORIES:
        assert d.file == FAMILY_FILE[d.family]
        assert d.vendor and d.year
    else:
        assert d.file == CATEGORY_FILE[d.category]


def test_the_loader_reads_only_the_registry_folder():
    assert hw.registry().directory == REGISTRY
    assert {s.file for s in hw.all_specs()} == set(FILES) - {"sources.toml"}    # never labels.toml


def test_package_data_ships_every_registry_file():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = pyproject["tool"]["setuptools"]["package-data"]["infra_lib"]
    shipped = lambda rel: any(fnmatch.fnmatch(rel, g) for g in globs)
    for path in REGISTRY.iterdir():
        assert shipped(path.relative_to(ROOT / "infra_lib").as_posix()), path.name
    assert shipped("data/labels.toml")


# ---- the registry: provenance of every value -----------------------------------------------

def test_registry_lists_every_entry_in_the_files():
    assert sorted(d.key for d in hw.devices(category=None)) == sorted(RAW_ENTRIES)


def test_every_file_spec_is_loaded():
    loaded = {(s.device, s.name) for s in hw.all_specs()}
    assert loaded == {(key, name) for key, name, _ in raw_specs()}


@pytest.mark.parametrize("s", hw.all_specs(), ids=lambda s: f"{s.device}.{s.name}")
def test_every_spec_has_provenance(s):
    assert s.kind in ALLOWED_KINDS
    assert s.where.strip()
    assert s.unit.strip()
    assert s.source.key in RAW_SOURCES
    assert s.source.title == RAW_SOURCES[s.source.key]["title"]


@pytest.mark.parametrize("key, name, row", raw_specs(), ids=lambda x: x if isinstance(x, str) else None)
def test_file_rows_are_loaded_as_written(key, name, row):
    s = hw.registry().entry(key).specs[name]
    assert (s.value, s.unit, s.kind, s.source.key, s.where) == (
        float(row["value"]), row["unit"], row["kind"], row["source"], row["where"])
    assert s.caveats == tuple(row.get("caveats", ()))


def test_every_source_has_title_date_and_publisher():
    for key, src in RAW_SOURCES.items():
        assert src["title"].strip() and src["date"].strip() and src["publisher"].strip(), key
        assert hw.source(key).title == src["title"]


def test_every_source_is_cited_by_a_spec():
    cited = {s.source.key for s in hw.all_specs()}
    assert [k for k in RAW_SOURCES if k not in cited] == []


def test_each_document_is_registered_once():
    # Same title, or the same page (a URL with a path, not a site's front page), is one document.
    by_title, by_url = {}, {}
    for src in hw.sources():
        assert by_title.setdefault(src.title.casefold(), src.key) == src.key, (src.key, by_title[src.title.casefold()])
        if src.url.rstrip("/").count("/") > 2:
            assert by_url.setdefault(src.url.rstrip("/"), src.key) == src.key, (src.key, by_url[src.url.rstrip("/")])


def test_sources_are_named_for_the_document_not_a_chapter():
    assert [k for k in RAW_SOURCES if re.match(r"(fab|cpu|gpu|ch\d+)_", k)] == []


def test_the_documents_cited_twice_before_are_one_source_now():
    a100 = hw.spec("ga100_die", "area_mm2").source
    assert a100 is hw.spec("a100_sxm4_40gb", "sm_count").source is hw.source("a100_whitepaper")
    assert hw.spec("b200_hgx", "mem_bw_Bps").source is hw.spec("b200_hgx", "nvlink_total_Bps").source
    assert hw.spec("b300_gpu", "mem_bw_Bps").source is hw.spec("b200_hgx", "nvlink_links").source


@pytest.mark.parametrize("s", [s for s in hw.all_specs() if s.device in SEED_TEACHING],
                         ids=lambda s: f"{s.device}.{s.name}")
def test_seed_teaching_values_cite_the_seed(s):
    assert s.kind == "teaching"
    assert s.source.key == "seed_article"


def test_teaching_values_are_exactly_the_assumption_entries():
    """A teaching assumption never hides among a real product's specs, and an assumption entry
    holds nothing else."""
    wrong = [f"{s.device}.{s.name}" for s in hw.all_specs()
             if (s.kind == "teaching") != (hw.entry(s.device).category == "assumption")]
    assert wrong == []


def test_reported_values_do_not_cite_a_vendor_document():
    # The registry README: "reported: press or a third party states it, not the vendor's own text".
    # A number implied by the vendor's own table is 'derived', not 'reported'.
    wrong = [f"{s.device}.{s.name} cites {s.source.key!r}" for s in hw.all_specs()
             if s.kind == "reported" and (s.source.publisher == "NVIDIA"
                                          or s.source.publisher.lower() == (hw.entry(s.device).vendor or ""))]
    assert wrong == []


def test_flop_specs_say_dense_or_sparse():
    for s in hw.all_specs():
        if s.unit == "FLOP/s":
            assert any("dense" in c or "spars" in c for c in s.caveats), f"{s.device}.{s.name}"


def test_link_bandwidths_say_which_direction():
    for s in hw.all_specs():
        if s.unit in ("B/s", "bit/s") and any(k in s.name for k in ("nvlink", "pcie", "nic")):
            assert any("direction" in c or "total" in c for c in s.caveats), f"{s.device}.{s.name}"


def test_unit_matches_name_suffix():
    # units.py convention: _Bps bytes/s, _bps bits/s, flop_s FLOP/s, _hz Hz, _B bytes.
    for s in hw.all_specs():
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


def test_a_source_carries_a_bibliography_line():
    s = hw.source("a100_whitepaper")
    assert (s.publisher, s.title, s.date) == (
        "NVIDIA", "NVIDIA A100 Tensor Core GPU Architecture whitepaper, V1.0", "2020-08-26")
    assert s.url.startswith("https://images.nvidia.com/") and s.note
    assert hw.spec("h200_sxm", "sm_count").source.url == ""        # this course's own measurement


def test_device_names():
    assert hw.device_name("h100_sxm5") == "NVIDIA H100 SXM5"
    assert hw.device_name("h200_sxm") == "NVIDIA H200 SXM"


def test_short_and_product_names_are_read_not_derived():
    # what chapter 4's table, chapter 9's figure and glue keys print, and chapter 3's NVLink figure
    assert [hw.short_name(k) for k in ("v100_sxm2", "h100_sxm5", "b200_hgx", "b300_gpu", "rubin_vr200")] == [
        "V100", "H100", "B200", "B300", "VR200"]
    assert [hw.product_name(k) for k in ("v100_sxm2", "a100_sxm4_40gb", "h100_sxm5", "b200_hgx")] == [
        "V100 SXM2", "A100 SXM4 40GB", "H100 SXM5", "B200"]
    assert (hw.entry("h100_pcie").short_name, hw.entry("h100_pcie").slug) == ("H100 PCIe", "h100_pcie")
    with pytest.raises(KeyError, match="h200_sxm.*nvidia_hopper.toml.*product_name"):
        hw.product_name("h200_sxm")
    with pytest.raises(KeyError, match="gh100_die.*short_name"):
        hw.short_name("gh100_die")


def test_every_device_has_a_short_name_of_its_own():
    devices = hw.devices()
    assert all(d.short_name and d.short_name.strip() for d in devices)
    slugs = [d.slug for d in hw.devices(category=None) if d.short_name]
    assert len(slugs) == len(set(slugs))


# ---- the device view ---------------------------------------------------------------------

# Properties, not a snapshot of the list: a GPU added to the registry breaks none of these.
KNOWN_DEVICES = {"v100_sxm2", "a100_sxm4_40gb", "grace", "h100_sxm5", "h100_pcie", "xeon_8480c", "h200_sxm",
                 "b200_hgx", "b300_gpu", "rubin_vr200"}
NVIDIA_GPU_FAMILIES = ("volta", "ampere", "hopper", "blackwell", "rubin")     # in the order they came


def _file_order():
    return {key: i for i, key in enumerate(hw.registry().entries)}


def test_devices_are_the_products_oldest_first():
    devices = hw.devices()
    assert {d.category for d in devices} == {"device"}
    assert KNOWN_DEVICES <= {d.key for d in devices}
    order = _file_order()
    assert [(d.year, order[d.key]) for d in devices] == sorted((d.year, order[d.key]) for d in devices)
    assert {d.key for d in devices} == {k for k, e in hw.registry().entries.items() if e.category == "device"}


def test_nvidia_gpu_generations_for_chapter_4():
    gens = [d for d in hw.devices() if d.vendor == "nvidia" and d.family in NVIDIA_GPU_FAMILIES]
    # a later family never comes before an earlier one, and each family's GPUs are oldest first
    index = [NVIDIA_GPU_FAMILIES.index(d.family) for d in gens]
    assert index == sorted(index)
    assert {(d.family, d.key) for d in gens} >= {
        ("volta", "v100_sxm2"), ("ampere", "a100_sxm4_40gb"), ("hopper", "h100_sxm5"), ("hopper", "h100_pcie"),
        ("hopper", "h200_sxm"), ("blackwell", "b200_hgx"), ("blackwell", "b300_gpu"), ("rubin", "rubin_vr200")}
    assert {d.family for d in gens} == set(NVIDIA_GPU_FAMILIES)


def _in_order(found, known):
    """``known`` all appear in ``found``, in that order (entries added later may sit between)."""
    positions = [found.index(k) for k in known if k in found]
    return len(positions) == len(known) and positions == sorted(positions)


def test_devices_of_one_family_and_category():
    """A query returns what it asks for and nothing else; the entries known today are there, in
    their order (year, then file order). A new entry must not break this: no full list is pinned."""
    queries = {(("family", "hopper"),): ["h100_sxm5", "h100_pcie", "h200_sxm"],
               (("family", "hopper"), ("category", None)): ["gh100_die", "h100_sxm5", "h100_pcie", "dgx_h100",
                                                             "h200_sxm"],
               (("category", "die"),): ["gv100_die", "ga100_die", "gh100_die"],
               (("category", "system"),): ["dgx_h100", "gb200_nvl72"],
               (("category", "memory_standard"),): ["hbm2_jesd235b", "hbm3_jesd238", "hbm3e_micron", "hbm4_jesd270"],
               (("category", "assumption"),): ["teaching_gpu", "teaching_request"]}
    for query, known in queries.items():
        args = dict(query)
        found = [d.key for d in hw.devices(**args)]
        assert _in_order(found, known), (args, found)
        for d in hw.devices(**args):
            assert d.family == args["family"] if "family" in args else True
            assert d.category == args.get("category", "device") if args.get("category", "device") else True
    assert {"fab_teaching", "cpu_teaching", "cluster_teaching", "perf_teaching", "engine_teaching"} <= {
        d.key for d in hw.devices(category="assumption")}
    assert not _in_order(["b", "a"], ["a", "b"]) and not _in_order(["a"], ["a", "b"])   # the helper can fail


def test_non_devices_say_what_they_are():
    assert {k: hw.entry(k).category for k in ("leading_edge_fab", "tsmc_n5", "tsmc_cowos", "hf_tokenizers",
                                               "teaching_request")} == {
        "leading_edge_fab": "fab", "tsmc_n5": "process", "tsmc_cowos": "packaging",
        "hf_tokenizers": "software", "teaching_request": "assumption"}
    assert all(d.category == "device" for d in hw.devices())
    assert "teaching_gpu" not in {d.key for d in hw.devices()}


def test_device_fields_and_specs():
    h100 = hw.devices(family="hopper")[0]
    assert (h100.key, h100.name, h100.family, h100.vendor, h100.category, h100.year) == (
        "h100_sxm5", "NVIDIA H100 SXM5", "hopper", "nvidia", "device", 2022)
    assert (h100.short_name, h100.product_name, h100.compared, h100.slug) == ("H100", "H100 SXM5", True, "h100")
    assert (hw.entry("h100_pcie").compared, hw.entry("gh100_die").compared) == (False, False)
    assert h100.value("mem_bw_Bps") == 3352e9
    assert h100.spec("sm_count") == hw.spec("h100_sxm5", "sm_count")
    assert h100.specs["hbm_stacks"].value == 5
    assert "mem_bw_Bps" in h100.specs and "nope" not in h100.specs
    assert len(h100.specs) == len([s for s in hw.all_specs() if s.device == "h100_sxm5"])
    with pytest.raises(TypeError):
        h100.specs["mem_bw_Bps"] = None          # read-only


def test_a_non_device_is_read_the_same_way():
    assert hw.entry("tsmc_n5").value("wafer_price_usd") == 16988
    assert hw.value("teaching_request", "batch") == 32
    assert (hw.entry("tsmc_n5").family, hw.entry("teaching_gpu").vendor) == (None, None)


def test_a_loop_over_generations_reads_a_common_spec():
    bw = {d.key: d.value("mem_bw_Bps") for d in hw.devices() if d.vendor == "nvidia" and "mem_bw_Bps" in d.specs}
    # the datasheets' figures (V100 and A100 whitepapers, H100 V1.04 Table 3, H200 and Blackwell pages)
    assert bw.items() >= {"v100_sxm2": 900e9, "a100_sxm4_40gb": 1555e9, "grace": 512e9, "h100_sxm5": 3352e9,
                          "h200_sxm": 4.8e12, "b200_hgx": 7.7e12, "b300_gpu": 8e12,
                          "rubin_vr200": 22e12}.items()
    assert all(v > 0 for v in bw.values())
    assert set(bw) == {d.key for d in hw.devices() if d.vendor == "nvidia" and "mem_bw_Bps" in d.specs}


@pytest.mark.parametrize("call, wrong, right", [
    (lambda: hw.devices(family="hoper"), "'hoper'", "hopper"),
    (lambda: hw.devices(category="gpu"), "'gpu'", "device"),
])
def test_unknown_family_or_category(call, wrong, right):
    with pytest.raises(KeyError) as err:
        call()
    assert wrong in str(err.value) and right in str(err.value)


# ---- usage recording ---------------------------------------------------------------------

def test_usage_is_recorded_in_first_use_order_once():
    hw.reset_usage()
    assert hw.used_specs() == []
    hw.value("h100_sxm5", "mem_bw_Bps")
    hw.spec("teaching_gpu", "peak_flop_s")
    hw.value("h100_sxm5", "mem_bw_Bps")                    # again: still once
    h200 = hw.entry("h200_sxm")
    h200.value("mem_capacity_B")
    h200.spec("sm_count")
    _ = h200.specs["mem_bw_Bps"]
    assert [(s.device, s.name) for s in hw.used_specs()] == [
        ("h100_sxm5", "mem_bw_Bps"), ("teaching_gpu", "peak_flop_s"), ("h200_sxm", "mem_capacity_B"),
        ("h200_sxm", "sm_count"), ("h200_sxm", "mem_bw_Bps")]
    assert hw.used_specs()[0] is hw.registry().entry("h100_sxm5").specs["mem_bw_Bps"]
    hw.reset_usage()
    assert hw.used_specs() == []


def test_listing_records_nothing():
    hw.reset_usage()
    hw.all_specs()
    hw.devices(category=None)
    hw.entry("h100_sxm5")
    hw.device_name("h100_sxm5")
    "mem_bw_Bps" in hw.entry("h100_sxm5").specs
    len(hw.entry("h100_sxm5").specs)
    repr(hw.entry("h100_sxm5"))
    assert hw.used_specs() == []


def test_a_failed_lookup_records_nothing():
    hw.reset_usage()
    with pytest.raises(KeyError):
        hw.value("h100_sxm5", "mem_bandwidth")
    assert hw.used_specs() == []


def test_used_specs_carry_their_sources():
    hw.reset_usage()
    hw.value("ga100_die", "area_mm2")
    hw.value("v100_sxm2", "sm_count")
    assert {s.source.key for s in hw.used_specs()} == {"a100_whitepaper"}
    hw.reset_usage()


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


# ---- registry values agree with the formulas that derive them ------------------------------

def test_hbm_bandwidth_from_registry_matches_datasheet():
    v = lambda n: hw.value("h100_sxm5", n)
    derived = memory.hbm_bandwidth_Bps(v("hbm_stacks"), v("hbm_bits_per_stack"), v("hbm_clock_hz"))
    assert derived == pytest.approx(v("mem_bw_Bps"), rel=2e-4)


def test_implied_clock_from_registry():
    v = lambda n: hw.value("h100_sxm5", n)
    clock = generations.implied_clock_hz(v("peak_flop_s"), v("sm_count"), v("tensor_flop_per_clock_per_sm"))
    assert clock == pytest.approx(1830e6, abs=0.5e6)
    assert clock < v("max_sm_clock_hz")          # the tensor peak assumes a lower clock than max


def test_max_clock_is_implied_by_fp32_peak():
    # FP32 66.9 TFLOPS / (132 SMs x 256 FLOP/clock/SM) = 1979.8 MHz, reported as 1980.
    assert generations.implied_clock_hz(66.9e12, 132, 256) == pytest.approx(
        hw.value("h100_sxm5", "max_sm_clock_hz"), abs=2e6)


# ---- unknown names -----------------------------------------------------------------------

def test_unknown_device_names_it_suggests_and_lists_valid_ones():
    with pytest.raises(KeyError) as err:
        hw.spec("h100_sxm", "mem_bw_Bps")
    msg = str(err.value)
    assert msg.startswith("unknown registry entry 'h100_sxm' (did you mean h100_sxm5")
    for key in RAW_ENTRIES:
        assert key in msg


@pytest.mark.parametrize("call", [hw.device_name, hw.entry, lambda d: hw.value(d, "mem_bw_Bps")])
def test_unknown_device_everywhere(call):
    with pytest.raises(KeyError, match="h900"):
        call("h900")


def test_unknown_spec_names_it_suggests_and_lists_valid_ones():
    with pytest.raises(KeyError) as err:
        hw.value("h100_sxm5", "mem_bw_bps")
    msg = str(err.value)
    assert "'mem_bw_bps'" in msg and "h100_sxm5" in msg and "did you mean mem_bw_Bps" in msg
    for name in RAW_ENTRIES["h100_sxm5"][1]["specs"]:
        assert name in msg


def test_unknown_source_suggests():
    with pytest.raises(KeyError, match="did you mean a100_whitepaper"):
        hw.source("a100_wp")


def test_nothing_close_suggests_nothing():
    with pytest.raises(KeyError) as err:
        hw.entry("zzzz")
    assert "did you mean" not in str(err.value)


def test_spec_of_another_device_is_not_found():
    with pytest.raises(KeyError, match="hbm_clock_hz"):
        hw.spec("h200_sxm", "hbm_clock_hz")


# ---- the loader's schema: one corruption at a time -------------------------------------

def _block(text, header):
    """(start, end) of the TOML table `[header]` in text: its header line up to the next table."""
    start = text.index(f"[{header}]\n")
    nxt = re.compile(r"^\[", re.M).search(text, start + 1)
    return start, nxt.start() if nxt else len(text)


def _edit(header, old, new):
    """A corruption: replace `old` by `new` inside one table."""
    def apply(text):
        a, b = _block(text, header)
        body = text[a:b]
        assert old in body, (header, old)
        return text[:a] + body.replace(old, new, 1) + text[b:]
    return apply


def _line(header, field, new):
    """A corruption: replace the whole `field = ...` line of one table."""
    def apply(text):
        a, b = _block(text, header)
        body, n = re.subn(rf"^{field} = .*$", new, text[a:b], count=1, flags=re.M)
        assert n == 1, (header, field)
        return text[:a] + body + text[b:]
    return apply


def _append(extra):
    return lambda text: text + "\n" + extra + "\n"


H100_BW = "entries.h100_sxm5.specs.mem_bw_Bps"
H100_BW_ROW = ('value = 3352e9\nunit = "B/s"\nkind = "datasheet"\nsource = "h100_wp_v104"\n'
               'where = "Table 3"\n')
HOP, SRC = "nvidia_hopper.toml", "sources.toml"

# (id, file to corrupt, corruption, what the message must name: the file, the entry, the key, the fault)
CORRUPTIONS = [
    ("missing source", HOP, _edit(H100_BW, 'source = "h100_wp_v104"\n', ""),
     [HOP, "h100_sxm5.mem_bw_Bps", "missing field 'source'"]),
    ("missing value", HOP, _edit(H100_BW, "value = 3352e9\n", ""),
     [HOP, "h100_sxm5.mem_bw_Bps", "missing field 'value'"]),
    ("caveats a string", HOP, _edit(H100_BW, 'caveats = ["HBM3, read + write share one bus", "final"]',
                                    'caveats = "HBM3, final"'),
     [HOP, "h100_sxm5.mem_bw_Bps", "caveats must be a list of strings", "'HBM3, final'"]),
    ("caveats hold a number", HOP, _edit(H100_BW, '"final"]', '3]'),
     [HOP, "h100_sxm5.mem_bw_Bps", "caveats", "3"]),
    ("misspelled caveats", HOP, _edit(H100_BW, "caveats =", "caveets ="),
     [HOP, "h100_sxm5.mem_bw_Bps", "unknown field 'caveets'", "did you mean caveats"]),
    ("unknown kind", HOP, _edit(H100_BW, 'kind = "datasheet"', 'kind = "datashet"'),
     [HOP, "h100_sxm5.mem_bw_Bps", "unknown kind 'datashet'", "did you mean datasheet"]),
    ("unknown unit", HOP, _edit(H100_BW, 'unit = "B/s"', 'unit = "GB/s"'),
     [HOP, "h100_sxm5.mem_bw_Bps", "unknown unit 'GB/s'"]),
    ("unknown source", HOP, _edit(H100_BW, '"h100_wp_v104"', '"h100_wp_v105"'),
     [HOP, "h100_sxm5.mem_bw_Bps", "unknown source 'h100_wp_v105'", "did you mean h100_wp_v104"]),
    ("value a string", HOP, _edit(H100_BW, "value = 3352e9", 'value = "3352e9"'),
     [HOP, "h100_sxm5.mem_bw_Bps", "value must be a number", "'3352e9'"]),
    ("value a bool", HOP, _edit(H100_BW, "value = 3352e9", "value = true"),
     [HOP, "h100_sxm5.mem_bw_Bps", "value must be a number", "bool"]),
    ("value nan", HOP, _edit(H100_BW, "value = 3352e9", "value = nan"),
     [HOP, "h100_sxm5.mem_bw_Bps", "value must be finite"]),
    ("value a list", HOP, _edit(H100_BW, "value = 3352e9", "value = [3352e9]"),
     [HOP, "h100_sxm5.mem_bw_Bps", "value must be a number"]),
    ("empty where", HOP, _line(H100_BW, "where", 'where = "  "'),
     [HOP, "h100_sxm5.mem_bw_Bps", "where is empty"]),
    ("where a number", HOP, _line(H100_BW, "where", "where = 3"),
     [HOP, "h100_sxm5.mem_bw_Bps", "where must be a string"]),
    ("where_zh a number", HOP, _line(H100_BW, "where_zh", "where_zh = 3"),
     [HOP, "h100_sxm5.mem_bw_Bps", "where_zh must be a string", "3"]),
    ("where_zh a list", HOP, _line(H100_BW, "where_zh", 'where_zh = ["表 3"]'),
     [HOP, "h100_sxm5.mem_bw_Bps", "where_zh must be a string"]),
    ("empty where_zh", HOP, _line(H100_BW, "where_zh", 'where_zh = ""'),
     [HOP, "h100_sxm5.mem_bw_Bps", "where_zh is empty"]),
    ("misspelled where_zh", HOP, _line(H100_BW, "where_zh", 'wher_zh = "表 3"'),
     [HOP, "h100_sxm5.mem_bw_Bps", "unknown field 'wher_zh'", "did you mean where_zh"]),
    ("teaching value in a product", HOP, _edit(H100_BW, 'kind = "datasheet"', 'kind = "teaching"'),
     [HOP, "h100_sxm5.mem_bw_Bps", "'teaching'", "'assumption'"]),
    ("datasheet value among assumptions", "teaching.toml",
     _edit("entries.teaching_gpu.specs.peak_flop_s", 'kind = "teaching"', 'kind = "datasheet"'),
     ["teaching.toml", "teaching_gpu.peak_flop_s", "'assumption'"]),
    ("spec twice in two files", "nvidia_ampere.toml", _append(f"[{H100_BW}]\n{H100_BW_ROW}"),
     ["nvidia_ampere.toml", "h100_sxm5.mem_bw_Bps", "defined twice", HOP]),
    ("entry twice in two files", "intel_xeon.toml",
     _append(f"[entries.h100_sxm5.specs.new_spec_B]\n{H100_BW_ROW.replace('B/s', 'B')}"),
     ["intel_xeon.toml", "h100_sxm5", "already defined in", HOP]),
    ("device without category in a non-device file", "software.toml",
     _append('[entries.mi300x]\nname = "AMD MI300X"\n\n[entries.mi300x.specs.mem_bw_Bps]\n' + H100_BW_ROW),
     ["software.toml", "mi300x", "missing field 'category'"]),
    ("unknown category", HOP, _edit("entries.h100_sxm5", 'category = "device"', 'category = "gpu"'),
     [HOP, "h100_sxm5", "unknown category 'gpu'"]),
    ("device without family", "nvidia_blackwell.toml", _edit("entries.b200_hgx", 'family = "blackwell"\n', ""),
     ["nvidia_blackwell.toml", "b200_hgx", "needs a family"]),
    ("device without year", "nvidia_volta.toml", _edit("entries.v100_sxm2", "year = 2017\n", ""),
     ["nvidia_volta.toml", "v100_sxm2", "needs a year"]),
    ("year a string", "nvidia_volta.toml", _edit("entries.v100_sxm2", "year = 2017", 'year = "2017"'),
     ["nvidia_volta.toml", "v100_sxm2", "year", "'2017'"]),
    ("misspelled entry field", HOP, _edit("entries.h100_sxm5", 'vendor = "nvidia"', 'vendr = "nvidia"'),
     [HOP, "h100_sxm5", "unknown field 'vendr'", "did you mean vendor"]),
    ("device without short_name", HOP, _edit("entries.h100_sxm5", 'short_name = "H100"\n', ""),
     [HOP, "h100_sxm5", "needs a short_name"]),
    ("misspelled short_name", HOP, _edit("entries.h100_sxm5", "short_name =", "shortname ="),
     [HOP, "h100_sxm5", "unknown field 'shortname'", "did you mean short_name"]),
    ("short_name a number", HOP, _edit("entries.h100_sxm5", 'short_name = "H100"', "short_name = 100"),
     [HOP, "h100_sxm5", "short_name must be a string", "100"]),
    ("empty short_name", HOP, _edit("entries.h100_sxm5", 'short_name = "H100"', 'short_name = " "'),
     [HOP, "h100_sxm5", "short_name is empty"]),
    ("short_name without a letter", HOP, _edit("entries.h100_sxm5", 'short_name = "H100"', 'short_name = "--"'),
     [HOP, "h100_sxm5", "short_name must contain a letter or a digit"]),
    ("one short name for two entries", "nvidia_blackwell.toml",
     _edit("entries.b300_gpu", 'short_name = "B300"', 'short_name = "b200"'),
     ["nvidia_blackwell.toml", "b300_gpu", "'b200' reads the same as b200_hgx's 'B200'"]),
    ("product_name a list", HOP, _edit("entries.h100_sxm5", 'product_name = "H100 SXM5"', 'product_name = ["H100"]'),
     [HOP, "h100_sxm5", "product_name must be a string"]),
    ("compared not a bool", HOP, _edit("entries.h100_sxm5", "compared = true", 'compared = "yes"'),
     [HOP, "h100_sxm5", "compared must be true or false", "'yes'"]),
    ("compared outside a device", HOP, _edit("entries.gh100_die", "year = 2022\n", "year = 2022\ncompared = true\n"),
     [HOP, "gh100_die", "compared = true", "only devices"]),
    ("entry without name", "hbm.toml", _edit("entries.hbm3_jesd238", 'name = "HBM3 (JEDEC JESD238)"\n', ""),
     ["hbm.toml", "hbm3_jesd238", "missing field 'name'"]),
    ("entry without specs", "software.toml", _append('[entries.vllm]\nname = "vLLM"\ncategory = "software"'),
     ["software.toml", "vllm", "missing field 'specs'"]),
    ("spec not a table", "software.toml", _edit("entries.hf_tokenizers", 'category = "software"',
                                                'category = "software"\nspecs.speed = 3'),
     ["software.toml", "hf_tokenizers.speed", "expected a table"]),
    ("source without publisher", SRC, _edit("sources.h100_wp_v104", 'publisher = "NVIDIA"\n', ""),
     [SRC, "h100_wp_v104", "missing field 'publisher'"]),
    ("misspelled source field", SRC, _edit("sources.h100_wp_v104", "title =", "titel ="),
     [SRC, "h100_wp_v104", "unknown field 'titel'", "did you mean title"]),
    ("source url not a url", SRC, _edit("sources.jedec_hbm3", '"https://www.jedec.org/"', '"www.jedec.org"'),
     [SRC, "jedec_hbm3", "url"]),
    ("source outside sources.toml", "hbm.toml", _append('[sources.jedec_hbm5]\ntitle = "x"\ndate = "2030"'),
     ["hbm.toml", "[sources]", SRC]),
    ("the old table name", "software.toml", _append('[devices.x]\nname = "x"'),
     ["software.toml", "[devices]", "[entries.<key>]"]),
    ("not TOML", "nvidia_grace.toml", _append("this is not = = toml"),
     ["nvidia_grace.toml", "not valid TOML"]),
]


@pytest.fixture
def registry_copy(tmp_path):
    copy = tmp_path / "registry"
    shutil.copytree(REGISTRY, copy)
    return copy


def test_an_intact_copy_loads_like_the_registry(registry_copy):
    reg = hw.load(registry_copy)
    assert reg.directory == registry_copy
    assert {(s.device, s.name, s.value) for s in reg.all_specs()} == {
        (s.device, s.name, s.value) for s in hw.all_specs()}


def test_a_copy_with_a_new_spec_serves_it(registry_copy):
    path = registry_copy / HOP
    path.write_text(path.read_text(encoding="utf-8").replace(
        f"[{H100_BW}]", f"[entries.h100_sxm5.specs.test_only_B]\n{H100_BW_ROW.replace('B/s', 'B')}\n[{H100_BW}]"),
        encoding="utf-8")
    assert hw.load(registry_copy).spec("h100_sxm5", "test_only_B").value == 3352e9


@pytest.mark.parametrize("file, corrupt, expected", [c[1:] for c in CORRUPTIONS], ids=[c[0] for c in CORRUPTIONS])
def test_a_corrupted_copy_is_refused_naming_file_entry_and_key(registry_copy, file, corrupt, expected):
    path = registry_copy / file
    path.write_text(corrupt(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(hw.RegistryError) as err:
        hw.load(registry_copy)
    msg = str(err.value)
    for part in expected:
        assert part in msg, f"{part!r} not in:\n{msg}"
    assert any(all(p in line for p in expected[:2]) for line in err.value.errors), err.value.errors


def test_every_error_is_reported_at_once(registry_copy):
    by_id = {c[0]: c[1:3] for c in CORRUPTIONS}
    for file, corrupt in [by_id["missing source"], by_id["device without year"]]:
        path = registry_copy / file
        path.write_text(corrupt(path.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(ValueError) as err:           # a RegistryError is a ValueError
        hw.load(registry_copy)
    assert len(err.value.errors) == 2
    assert err.value.errors[0].startswith(HOP) and err.value.errors[1].startswith("nvidia_volta.toml")


def test_a_folder_without_registry_files_is_refused(tmp_path):
    with pytest.raises(hw.RegistryError, match="no registry files"):
        hw.load(tmp_path)


def test_the_environment_can_name_another_registry_folder(registry_copy, monkeypatch):
    path = registry_copy / HOP
    path.write_text(path.read_text(encoding="utf-8").replace(
        f"[{H100_BW}]", f"[entries.h100_sxm5.specs.test_only_B]\n{H100_BW_ROW.replace('B/s', 'B')}\n[{H100_BW}]"),
        encoding="utf-8")
    monkeypatch.setenv(hw.REGISTRY_ENV, str(registry_copy))
    hw.registry.cache_clear()
    try:
        assert hw.registry().directory == registry_copy
        assert hw.value("h100_sxm5", "test_only_B") == 3352e9
    finally:
        monkeypatch.delenv(hw.REGISTRY_ENV)
        hw.registry.cache_clear()
    assert hw.registry().directory == REGISTRY
    assert "test_only_B" not in hw.entry("h100_sxm5").specs


def test_a_missing_sources_file_is_refused(registry_copy):
    (registry_copy / SRC).unlink()
    with pytest.raises(hw.RegistryError, match="sources.toml: missing"):
        hw.load(registry_copy)


# ---- usable memory: the bytes a program can use on one GPU ----------------------------------

def test_nominal_capacity_is_binary():
    # the printed "141 GB" of HBM names 141 GiB: 141 x 2^30 bytes, 7.4% more than 141 x 10^9
    assert hw.nominal_memory_B("h200_sxm") == 141 * 2**30
    assert hw.nominal_memory_B("h100_sxm5") == 80 * 2**30
    assert hw.nominal_memory_B("b300_gpu") == 270 * 2**30          # the HGX B300, the basis of its peaks


def test_usable_memory_prefers_what_cuda_reports():
    h200 = hw.usable_memory_B("h200_sxm")
    assert (h200.value_B, h200.basis) == (150_109_880_320, "measured")   # reality_check.json, gpu.mem_bytes
    h100 = hw.usable_memory_B("h100_sxm5")
    assert h100.basis == "reported" and h100.value_B == pytest.approx(79.18 * 2**30, abs=2**20)
    for key in ("h100_sxm5", "h200_sxm"):
        # what CUDA reports sits below the nominal binary capacity, and above the decimal misreading
        assert hw.value(key, "mem_capacity_B") < hw.usable_memory_B(key).value_B < hw.nominal_memory_B(key)
    # nvidia-smi's total is a little more than CUDA's (81,559 MiB against 79.18 GiB)
    assert hw.value("h100_sxm5", "nvidia_smi_total_B") == 81_559 * 2**20 > h100.value_B


def test_usable_memory_falls_back_to_nominal_and_says_so():
    for d in hw.devices():
        if any(n in d.specs for n in hw.CAPACITY_SPECS):
            m = hw.usable_memory_B(d.key)
            assert m.basis in hw.MEMORY_BASES
            assert (m.basis == "nominal") == ("cuda_visible_B" not in d.specs)
            if m.basis == "nominal":
                assert m.value_B == hw.nominal_memory_B(d.key) and m.spec.kind == "datasheet"


def test_usable_memory_of_an_entry_without_capacity_is_named():
    with pytest.raises(hw.UnknownNameError, match="gh100_die.*memory capacity"):
        hw.nominal_memory_B("gh100_die")


# ---- meaning: ranges, names and cross-checks ---------------------------------------------

def test_every_unit_has_a_plausible_range_and_every_count_is_a_unit():
    assert set(hw.UNIT_RANGES) == set(hw.UNITS)
    assert all(lo < hi for lo, hi in hw.UNIT_RANGES.values())
    assert hw.COUNT_UNITS <= hw.UNITS


def test_every_spec_lies_in_its_range_and_matches_its_name():
    for s in hw.all_specs():
        lo, hi = hw.UNIT_RANGES[s.unit]
        assert s.value == 0 and s.name in hw.ZERO_OK or lo <= s.value <= hi, (s.device, s.name)
        allowed = hw._units_for(s.name)
        assert allowed is None or s.unit in allowed, (s.device, s.name, s.unit)


@pytest.mark.parametrize("date, ok", [("2023", True), ("2023-05", True), ("2020-08-26", True),
                                      ("accessed 2026", True), ("2025-08-22, updated 2025-09-24", True),
                                      ("sometime", False), ("2023-13", False), ("2023-02-30", False),
                                      ("23-05", False), ("2023/05", False)])
def test_source_dates(date, ok):
    assert (hw._date_problem(date) is None) == ok


def test_a_cross_check_finding_names_both_values_and_their_sources():
    h = {s.name: s for s in hw.entry("h100_sxm5").specs.values()}
    wrong = hw.Spec(**{**h["mem_bw_Bps"].__dict__, "value": 4.8e12})
    found = hw._cross_check_entry({**h, "mem_bw_Bps": wrong})
    assert [f.check for f in found] == ["hbm_bandwidth"]
    f = found[0]
    derived = 5 * 1024 * 2619e6 * 2 / 8                # the whitepaper's parts, multiplied here
    assert f.derived == pytest.approx(derived) and f.gap == pytest.approx(4.8e12 / derived - 1)
    msg = f.message()
    for part in ("nvidia_hopper.toml", "h100_sxm5.mem_bw_Bps", "4.8e+12", f"{derived:g}", "h100_wp_v104",
                 "jedec_hbm3", "hbm_stacks"):
        assert part in msg, part
    assert not f.explained
    caveated = hw.Spec(**{**wrong.__dict__, "caveats": ("cross-check hbm_bandwidth: a test",)})
    assert hw._cross_check_entry({**h, "mem_bw_Bps": caveated})[0].explained


def test_cross_checks_are_within_tolerance_on_the_registry():
    assert [f for f in hw.cross_checks() if not f.explained] == []
