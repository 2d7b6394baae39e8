"""The hardware registry: specs loaded from ``data/hardware.toml``, each with its source.

>>> spec("h100_sxm5", "mem_bw_Bps").value / 1e9
3352.0
>>> spec("h100_sxm5", "mem_bw_Bps").kind
'datasheet'

Derived quantities are functions of registry values, never stored: see
:func:`peak_flop_s`, :func:`implied_clock_hz`, :func:`hbm_bandwidth_Bps`.
"""
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from . import _check

DATA_DIR = Path(__file__).parent / "data"
DATA_FILE = DATA_DIR / "hardware.toml"   # the core registry; other data/*.toml files extend it
KINDS = ("datasheet", "derived", "reported", "measured", "teaching")


@dataclass(frozen=True)
class Source:
    key: str
    title: str
    date: str
    url: str = ""
    note: str = ""


@dataclass(frozen=True)
class Spec:
    """One value with its provenance."""
    device: str
    name: str
    value: float
    unit: str
    kind: str
    source: Source
    where: str
    caveats: tuple = field(default_factory=tuple)

    def cite(self):
        """'title, where' — for a Sources list or a footnote."""
        return f"{self.source.title}, {self.where}"


def _load_files():
    """Merge [sources] and [devices] of every data/*.toml; a key defined twice is an error."""
    merged = {"sources": {}, "devices": {}}
    for path in sorted(DATA_DIR.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for key, value in data.get("sources", {}).items():
            if key in merged["sources"]:
                raise ValueError(f"{path.name}: source {key!r} is already defined in another registry file")
            merged["sources"][key] = value
        for key, dev in data.get("devices", {}).items():
            # a device may be extended by several files (a chapter's own specs of the H100, say)
            into = merged["devices"].setdefault(key, {"specs": {}})
            if "name" in dev:
                if "name" in into and into["name"] != dev["name"]:
                    raise ValueError(f"{path.name}: device {key!r} has two names")
                into["name"] = dev["name"]
            for name, row in dev.get("specs", {}).items():
                if name in into["specs"]:
                    raise ValueError(f"{path.name}: spec {key}.{name} is already defined in another registry file")
                into["specs"][name] = row
    for key, dev in merged["devices"].items():
        if "name" not in dev:
            raise ValueError(f"device {key!r} has no name in any registry file")
    return merged


@lru_cache(maxsize=1)
def _registry():
    data = _load_files()
    sources = {k: Source(key=k, **v) for k, v in data["sources"].items()}
    devices = {}
    for dev_key, dev in data["devices"].items():
        specs = {}
        for name, row in dev["specs"].items():
            if row["kind"] not in KINDS:
                raise ValueError(f"{DATA_FILE.name}: {dev_key}.{name} has unknown kind {row['kind']!r}")
            if row["source"] not in sources:
                raise ValueError(f"{DATA_FILE.name}: {dev_key}.{name} cites unknown source {row['source']!r}")
            specs[name] = Spec(device=dev_key, name=name, value=float(row["value"]), unit=row["unit"],
                               kind=row["kind"], source=sources[row["source"]], where=row["where"],
                               caveats=tuple(row.get("caveats", ())))
        devices[dev_key] = {"name": dev["name"], "specs": specs}
    return devices


def devices():
    """Keys of every device in the registry."""
    return sorted(_registry())


def device_name(device):
    """The device's display name, e.g. 'NVIDIA H100 SXM5'."""
    return _device(device)["name"]


def _device(device):
    reg = _registry()
    if device not in reg:
        raise KeyError(f"unknown device {device!r}; the registry has: {', '.join(sorted(reg))}")
    return reg[device]


def spec(device, name):
    """The :class:`Spec` ``name`` of ``device`` (value, unit, kind, source, caveats)."""
    specs = _device(device)["specs"]
    if name not in specs:
        raise KeyError(f"device {device!r} has no spec {name!r}; it has: {', '.join(sorted(specs))}")
    return specs[name]


def value(device, name):
    """Just the number of :func:`spec`."""
    return spec(device, name).value


def specs_used():
    """Every Spec, for tests and for a chapter's Sources list."""
    return [s for d in _registry().values() for s in d["specs"].values()]


# ---- derived values ---------------------------------------------------------------------

def peak_flop_s(sm_count, flop_per_clock_per_sm, clock_hz):
    """Peak FLOP/s = SMs x FLOP per clock per SM x clock.

    H100 SXM5 dense BF16: 132 x 4,096 x 1.83 GHz = 989.4 TFLOPS (whitepaper V1.04, Table 1).

    >>> round(peak_flop_s(132, 4096, 1.83e9) / 1e12, 1)
    989.4
    """
    return (_check.count("sm_count", sm_count, "SMs")
            * _check.positive("flop_per_clock_per_sm", flop_per_clock_per_sm, "FLOP per clock per SM")
            * _check.positive("clock_hz", clock_hz, "Hz"))


def implied_clock_hz(peak, sm_count, flop_per_clock_per_sm):
    """The clock a published peak assumes: peak / (SMs x FLOP per clock per SM).

    >>> round(implied_clock_hz(989.4e12, 132, 4096) / 1e6)
    1830
    """
    return (_check.positive("peak", peak, "FLOP/s")
            / (_check.count("sm_count", sm_count, "SMs")
               * _check.positive("flop_per_clock_per_sm", flop_per_clock_per_sm, "FLOP per clock per SM")))


def hbm_bandwidth_Bps(stacks, bits_per_stack, clock_hz, transfers_per_clock=2):
    """HBM bandwidth = stacks x bits per stack x clock x transfers per clock / 8.

    H100 SXM5: 5 stacks x 1,024 bits x 2,619 MHz x 2 (DDR) / 8 = 3,352 GB/s.

    >>> round(hbm_bandwidth_Bps(5, 1024, 2619e6) / 1e9, 1)
    3352.3
    """
    return (_check.count("stacks", stacks, "HBM stacks")
            * _check.count("bits_per_stack", bits_per_stack, "bits")
            * _check.positive("clock_hz", clock_hz, "Hz")
            * _check.count("transfers_per_clock", transfers_per_clock, "transfers")) / 8
