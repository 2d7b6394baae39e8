"""The registry refuses damage to its meaning, not only to its types: each case below damages a
scratch copy of data/registry/ in one way and must be refused with the file and the key named
(or, for a whole that disagrees with its parts, with the cross-check named), or, for the harmless
ones (a byte-order mark, CRLF line ends), load exactly like the registry."""
import collections
import re
import shutil
from pathlib import Path

import pytest

from infra_lib import hardware as hw

REGISTRY = Path(__file__).resolve().parents[1] / "infra_lib" / "data" / "registry"
HOP, SRC, TEACH, SOFT = "nvidia_hopper.toml", "sources.toml", "teaching.toml", "software.toml"


def _block(text, header):
    start = text.index(f"[{header}]\n")
    nxt = re.compile(r"^\[", re.M).search(text, start + 1)
    return start, nxt.start() if nxt else len(text)


def field(header, name, new):
    """Replace the line `name = ...` inside table [header] by `name = new`."""
    def apply(text):
        a, b = _block(text, header)
        body, n = re.subn(rf"^{name} = .*$", f"{name} = {new}", text[a:b], count=1, flags=re.M)
        assert n == 1, (header, name)
        return text[:a] + body + text[b:]
    return apply


def rename(header, new_header):
    return lambda text: text.replace(f"[{header}]\n", f"[{new_header}]\n", 1)


def append(extra):
    return lambda text: text + "\n" + extra + "\n"


def swap(h1, h2):
    """Swap the values of two specs."""
    def apply(text):
        get = lambda h: re.search(r"^value = (.*)$", text[slice(*_block(text, h))], re.M).group(1)
        v1, v2 = get(h1), get(h2)
        return field(h2, "value", v1)(field(h1, "value", v2)(text))
    return apply


def spec(entry, name):
    return f"entries.{entry}.specs.{name}"


H100 = lambda name: spec("h100_sxm5", name)

# (kind of damage, id, file, damage to the text (or to the bytes for kind "encoding"), what the message names)
CASES = [
    # a unit that does not match the name
    ("unit vs name", "bandwidth in B", HOP, field(H100("mem_bw_Bps"), "unit", '"B"'),
     [HOP, "h100_sxm5.mem_bw_Bps", "unit 'B'"]),
    ("unit vs name", "bytes/s spec in bit/s", HOP, field(H100("mem_bw_Bps"), "unit", '"bit/s"'),
     [HOP, "h100_sxm5.mem_bw_Bps", "unit 'bit/s'"]),
    ("unit vs name", "clock in s", HOP, field(H100("max_sm_clock_hz"), "unit", '"s"'),
     [HOP, "h100_sxm5.max_sm_clock_hz", "unit 's'"]),
    ("unit vs name", "latency in cycles", "intel_xeon.toml", field(spec("xeon_8480c", "l3_latency_s"), "unit", '"cycles"'),
     ["intel_xeon.toml", "xeon_8480c.l3_latency_s", "unit 'cycles'"]),
    ("unit vs name", "capacity in B/s", HOP, field(H100("mem_capacity_B"), "unit", '"B/s"'),
     [HOP, "h100_sxm5.mem_capacity_B", "unit 'B/s'"]),
    ("unit vs name", "a bandwidth named without _Bps", HOP, rename(H100("l2_Bps"), H100("l2_bandwidth")),
     [HOP, "h100_sxm5.l2_bandwidth", "name ending _Bps"]),
    # counts that are not whole
    ("count not whole", "132.5 SMs", HOP, field(H100("sm_count"), "value", "132.5"),
     [HOP, "h100_sxm5.sm_count", "counted whole", "132.5"]),
    ("count not whole", "4.5 Tensor Cores per SM", HOP, field(H100("tensor_cores_per_sm"), "value", "4.5"),
     [HOP, "h100_sxm5.tensor_cores_per_sm", "counted whole"]),
    ("count not whole", "1024.5 threads", SOFT, field(spec("cuda_cc_9_0", "max_threads_per_block"), "value", "1024.5"),
     [SOFT, "cuda_cc_9_0.max_threads_per_block", "counted whole"]),
    ("count not whole", "18.5 links", HOP, field(H100("nvlink_links"), "value", "18.5"),
     [HOP, "h100_sxm5.nvlink_links", "counted whole"]),
    # zero and negative values
    ("not positive", "negative bandwidth", HOP, field(H100("mem_bw_Bps"), "value", "-3352e9"),
     [HOP, "h100_sxm5.mem_bw_Bps", "greater than 0"]),
    ("not positive", "zero bandwidth", HOP, field(H100("mem_bw_Bps"), "value", "0"),
     [HOP, "h100_sxm5.mem_bw_Bps", "greater than 0", "ZERO_OK"]),
    ("not positive", "zero SMs", HOP, field(H100("sm_count"), "value", "0"),
     [HOP, "h100_sxm5.sm_count", "greater than 0"]),
    ("not positive", "negative teaching efficiency", TEACH, field(spec("teaching_gpu", "flop_efficiency"), "value", "-0.5"),
     [TEACH, "teaching_gpu.flop_efficiency", "greater than 0"]),
    # values outside their unit's plausible range
    ("out of range", "1e9x unit slip", HOP, field(H100("mem_bw_Bps"), "value", "3352"),
     [HOP, "h100_sxm5.mem_bw_Bps", "3352 B/s", "plausible range 1e+10 to 1e+14"]),
    ("out of range", "1e308", HOP, field(H100("mem_bw_Bps"), "value", "1e308"),
     [HOP, "h100_sxm5.mem_bw_Bps", "plausible range"]),
    ("out of range", "1000x teaching slip", TEACH, field(spec("teaching_gpu", "mem_bw_Bps"), "value", "3.0e15"),
     [TEACH, "teaching_gpu.mem_bw_Bps", "3e+15 B/s", "plausible range"]),
    ("out of range", "clock in MHz", HOP, field(H100("max_sm_clock_hz"), "value", "1980"),
     [HOP, "h100_sxm5.max_sm_clock_hz", "1980 Hz", "plausible range"]),
    ("out of range", "capacity in GB", HOP, field(H100("mem_capacity_B"), "value", "80"),
     [HOP, "h100_sxm5.mem_capacity_B", "80 B", "plausible range"]),
    ("out of range", "peak in TFLOP/s", HOP, field(H100("peak_flop_s"), "value", "989.4"),
     [HOP, "h100_sxm5.peak_flop_s", "989.4 FLOP/s", "plausible range"]),
    ("out of range", "power in kW", HOP, field(H100("power_W"), "value", "0.7"),
     [HOP, "h100_sxm5.power_W", "0.7 W", "plausible range"]),
    ("out of range", "a fraction above 1", TEACH, field(spec("teaching_gpu", "flop_efficiency"), "value", "50"),
     [TEACH, "teaching_gpu.flop_efficiency", "plausible range 0 to 1"]),
    ("out of range", "latency in ns", "intel_xeon.toml", field(spec("xeon_8480c", "l3_latency_s"), "value", "33e9"),
     ["intel_xeon.toml", "xeon_8480c.l3_latency_s", "plausible range"]),
    # family and category
    ("family or category", "family hoper", HOP, field("entries.h100_sxm5", "family", '"hoper"'),
     [HOP, "h100_sxm5", "unknown family 'hoper'", "did you mean hopper"]),
    ("family or category", "family ampre", "nvidia_ampere.toml", field("entries.a100_sxm4_40gb", "family", '"ampre"'),
     ["nvidia_ampere.toml", "a100_sxm4_40gb", "unknown family 'ampre'"]),
    ("family or category", "a device filed as a die", HOP, field("entries.h100_pcie", "category", '"die"'),
     [HOP, "h100_pcie", "category 'die'"]),
    ("family or category", "a die filed as a device", HOP, field("entries.gh100_die", "category", '"device"'),
     [HOP, "gh100_die", "names a die but the category is 'device'"]),
    ("family or category", "a die with a device's bandwidth", HOP,
     append(f'[{spec("gh100_die", "mem_bw_Bps")}]\nvalue = 3352e9\nunit = "B/s"\nkind = "datasheet"\n'
            f'source = "h100_wp_v104"\nwhere = "Table 3"'),
     [HOP, "gh100_die", "specs of a packaged device", "mem_bw_Bps"]),
    # kind and source
    ("kind vs source", "measured on a datasheet value", HOP, field(H100("mem_bw_Bps"), "kind", '"measured"'),
     [HOP, "h100_sxm5.mem_bw_Bps", "kind 'measured'", "measurement run"]),
    ("kind vs source", "datasheet on a measured value", HOP, field(spec("h200_sxm", "sm_count"), "kind", '"datasheet"'),
     [HOP, "h200_sxm.sm_count", "kind 'datasheet'", "h200_measured"]),
    ("kind vs source", "reported on a measured value", HOP, field(spec("h200_sxm", "cuda_visible_B"), "kind", '"reported"'),
     [HOP, "h200_sxm.cuda_visible_B", "kind 'reported'"]),
    ("source date", "date sometime", SRC, field("sources.h100_wp_v104", "date", '"sometime"'),
     [SRC, "h100_wp_v104", "date 'sometime'"]),
    ("source date", "month 13", SRC, field("sources.h100_wp_v104", "date", '"2023-13"'),
     [SRC, "h100_wp_v104", "date '2023-13'", "month"]),
    ("source date", "slashes", SRC, field("sources.h100_wp_v104", "date", '"2023/05"'),
     [SRC, "h100_wp_v104", "date '2023/05'"]),
    ("source date", "30 February", SRC, field("sources.a100_whitepaper", "date", '"2020-02-30"'),
     [SRC, "a100_whitepaper", "date '2020-02-30'"]),
    # files emptied or missing
    ("file emptied or missing", "emptied family file", HOP, lambda text: "",
     [HOP, "holds no [entries.<key>]"]),
    ("file emptied or missing", "family file of comments only", "nvidia_volta.toml", lambda text: "# nothing\n",
     ["nvidia_volta.toml", "holds no [entries.<key>]"]),
    ("file emptied or missing", "family file renamed .toml.bak", HOP, None,
     [HOP, "missing", "family 'hopper'"]),
    ("file emptied or missing", "emptied sources.toml", SRC, lambda text: "\n",
     [SRC, "holds no [sources.<key>]"]),
    # a whole against its parts
    ("cross-check", "bandwidth and NVLink swapped", HOP, swap(H100("mem_bw_Bps"), H100("nvlink_total_Bps")),
     [HOP, "h100_sxm5.mem_bw_Bps", "cross-check hbm_bandwidth", "h100_wp_v104", "jedec_hbm3"]),
    ("cross-check", "the H200's bandwidth under the H100", HOP, field(H100("mem_bw_Bps"), "value", "4800e9"),
     [HOP, "h100_sxm5.mem_bw_Bps", "cross-check hbm_bandwidth", "4.8e+12", "3.3523"]),
    ("cross-check", "six stacks on the H100", HOP, field(H100("hbm_stacks"), "value", "6"),
     [HOP, "h100_sxm5.mem_bw_Bps", "cross-check hbm_bandwidth", "hbm_stacks = 6"]),
    ("cross-check", "the A100's sparse peak as dense", "nvidia_ampere.toml",
     field(spec("a100_sxm4_40gb", "peak_flop_s"), "value", "624e12"),
     ["nvidia_ampere.toml", "a100_sxm4_40gb.peak_flop_s", "cross-check peak_from_tensor_cores"]),
    ("cross-check", "the V100's base clock as boost", "nvidia_volta.toml",
     field(spec("v100_sxm2", "boost_clock_hz"), "value", "1245e6"),
     ["nvidia_volta.toml", "v100_sxm2.peak_flop_s", "cross-check peak_from_tensor_cores", "boost_clock_hz = 1.245e+09"]),
    ("cross-check", "the H100 PCIe's SM count on the SXM5", HOP, field(H100("sm_count"), "value", "114"),
     [HOP, "h100_sxm5.peak_flop_s", "cross-check peak_within_max_clock"]),
    ("cross-check", "a dense peak in the sparse slot", HOP, field(H100("peak_flop_s_sparse"), "value", "989.4e12"),
     [HOP, "h100_sxm5.peak_flop_s_sparse", "cross-check sparse_twice_dense"]),
    ("cross-check", "16 NVLink links", HOP, field(H100("nvlink_links"), "value", "16"),
     [HOP, "h100_sxm5.nvlink_total_Bps", "cross-check nvlink_total"]),
    ("cross-check", "the H100's bus on the H200", HOP, field(spec("h200_sxm", "hbm_bus_bits"), "value", "5120"),
     [HOP, "h200_sxm.hbm_bus_bits", "cross-check hbm_bus_width_1024"]),
    # corruptions of the bytes
    ("encoding", "400-digit integer", HOP, lambda b: b.replace(b"value = 3352e9", b"value = " + b"9" * 400, 1),
     [HOP, "h100_sxm5.mem_bw_Bps", "400 digits"]),
    ("encoding", "a Latin-1 byte", HOP, lambda b: b.replace(b'unit = "B/s"', b'unit = "B/s\xe9"', 1),
     [HOP, "line", "[entries.h100_sxm5.specs.mem_bw_Bps], key unit", "not UTF-8", "0xe9"]),
    ("encoding", "a UTF-16 file", HOP, lambda b: b.decode("utf-8").encode("utf-16"),
     [HOP, "line 1", "not UTF-8", "UTF-16"]),
    ("encoding", "a NUL byte", HOP, lambda b: b.replace(b'unit = "B/s"', b'unit = "B/s\x00"', 1),
     [HOP, "not valid TOML", "[entries.h100_sxm5.specs.mem_bw_Bps]"]),
]
ACCEPTED = [
    ("encoding", "a UTF-8 byte-order mark", HOP, lambda b: b"\xef\xbb\xbf" + b),
    ("encoding", "CRLF line ends", HOP, lambda b: b.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")),
]


def _damage(folder, case):
    kind, _, file, damage, _ = case
    path = folder / file
    if damage is None:                                    # the file renamed away
        path.rename(path.with_name(path.name + ".bak"))
    elif kind == "encoding":
        path.write_bytes(damage(path.read_bytes()))
    else:
        path.write_text(damage(path.read_text(encoding="utf-8")), encoding="utf-8")


def _refusal(tmp_path, case):
    """The RegistryError of a copy damaged by ``case`` (None if it loaded)."""
    folder = tmp_path / re.sub(r"\W+", "_", case[1])
    shutil.copytree(REGISTRY, folder)
    _damage(folder, case)
    try:
        hw.load(folder)
    except hw.RegistryError as e:
        return e
    return None


@pytest.mark.parametrize("case", CASES, ids=[c[1] for c in CASES])
def test_damage_is_refused_naming_file_and_key(tmp_path, case):
    err = _refusal(tmp_path, case)
    assert err is not None, f"{case[1]}: loaded silently"
    expected = case[4]
    line = next((e for e in err.errors if all(p in e for p in expected)), None)
    assert line is not None, f"{case[1]}: no single error names all of {expected}:\n" + "\n".join(err.errors)


@pytest.mark.parametrize("case", ACCEPTED, ids=[c[1] for c in ACCEPTED])
def test_harmless_changes_load_like_the_registry(tmp_path, case):
    folder = tmp_path / "copy"
    shutil.copytree(REGISTRY, folder)
    _damage(folder, (*case, None))
    got = {(s.device, s.name, s.value, s.unit, s.caveats) for s in hw.load(folder).all_specs()}
    assert got == {(s.device, s.name, s.value, s.unit, s.caveats) for s in hw.load(REGISTRY).all_specs()}


def test_at_least_forty_kinds_of_damage_and_a_summary(tmp_path, capsys):
    assert len(CASES) >= 40 and len({c[1] for c in CASES}) == len(CASES)
    refused, silent = collections.Counter(), []
    for case in CASES:
        if _refusal(tmp_path, case) is None:
            silent.append(case[1])
        else:
            refused[case[0]] += 1
    with capsys.disabled():
        print(f"\nregistry corruptions: {sum(refused.values())} of {len(CASES)} refused, "
              f"{len(ACCEPTED)} harmless accepted; by kind: "
              + ", ".join(f"{k} {n}" for k, n in refused.items()))
    assert not silent, silent


def test_the_registry_has_no_unexplained_disagreement():
    assert [f.message() for f in hw.cross_checks() if not f.explained] == []


def test_each_cross_check_applies_to_some_entry():
    """A check that no entry has the parts of would pass forever: each one runs somewhere."""
    ran = set()
    for e in hw.devices(category=None):
        names = set(e.specs)
        for check, whole, parts, *_ in hw._CROSS_CHECKS:
            if whole in names and set(parts) <= names:
                ran.add(check)
        if {"hbm_bus_bits", "hbm_stacks"} <= names and "hbm_bits_per_stack" not in names:
            ran.add("hbm_bus_width_1024")
    # the cases above damage an entry each of these checks runs on; the others wait for their parts
    assert ran >= {c[4][2].split()[-1] for c in CASES if c[0] == "cross-check"}, ran
    assert ran >= {"peak_from_tensor_cores", "peak_within_max_clock", "hbm_bandwidth", "hbm_bus_width_1024",
                   "nvlink_total", "sparse_twice_dense"}
