"""The hardware registry: every spec the course prints, with its source, loaded from ``data/registry/``.

>>> spec("h100_sxm5", "mem_bw_Bps").value / 1e9
3352.0
>>> spec("h100_sxm5", "mem_bw_Bps").kind
'datasheet'
>>> [d.key for d in devices(family="hopper")]
['h100_sxm5', 'h100_pcie', 'h200_sxm']

The registry is a folder of TOML files (``data/registry/``, format in its README.md):
``sources.toml`` holds every cited document once; every other file holds entries, one product
family (``nvidia_hopper.toml``) or one kind of non-device (``manufacturing.toml``,
``teaching.toml``) per file, each entry with all its specs. :func:`load` checks every field and
names the file, the entry and the spec of each error.

Every :class:`Spec` read through :func:`spec`, :func:`value` or a :class:`Entry` is recorded
(:func:`used_specs`, :func:`reset_usage`), so a chapter can list the sources of what it printed.

:func:`registry` loads ``data/registry/``, or the folder that the environment variable
``INFRA_LIB_REGISTRY`` names (:data:`REGISTRY_ENV`, read once, at the first call): a test, or
an author trying a new GPU on every chapter, points it at a copy of the registry with more
entries in it.

Derived quantities are functions of registry values, never stored: they live in the concept
modules (``generations.peak_flop_s``, ``memory.hbm_bandwidth_Bps``, ...).
"""
import math
import os
import re
import tomllib
from collections.abc import ItemsView, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from . import _check, units

REGISTRY_DIR = Path(__file__).parent / "data" / "registry"
REGISTRY_ENV = "INFRA_LIB_REGISTRY"   # names another registry folder to load instead (read once)
SOURCES_FILE = "sources.toml"     # [sources.<key>] live here and only here

KINDS = ("datasheet", "derived", "reported", "measured", "teaching")

# What an entry is. Devices, dies and systems belong to a product family and need family,
# vendor and year; the others are not devices and say so.
CATEGORIES = ("device", "die", "system", "memory_standard", "process", "fab", "packaging",
              "software", "assumption")
HARDWARE_CATEGORIES = ("device", "die", "system")

# Every unit a spec may carry. A new unit is added here on purpose, never by a typo in a file.
UNITS = frozenset({
    # base units of units.py
    "B", "B/s", "bit/s", "bits", "FLOP/s", "Hz", "s", "USD", "mm", "mm2", "W",
    # rates per clock, per cycle, per lane
    "FLOP/clock/SM", "FLOP/cycle/core", "FMA/clock", "cycles", "cycles per instruction",
    "transfers/s", "transfers/s per lane", "B per transfer per channel", "bits per block",
    # counts of parts
    "SMs", "cores", "sockets", "GPUs", "NICs", "DIMMs", "channels", "lanes", "links", "banks",
    "stacks", "dies", "DRAM dies per stack", "transistors", "Tensor Cores", "FP32 lanes",
    "threads", "warps", "SM sub-partitions", "thread blocks", "32-bit registers", "512-bit FMA units per core",
    "128-bit SVE2 pipes per core", "reticles",
    # manufacturing
    "defects/cm2", "wafers/month", "DRAM dies/month",
    # workloads
    "parameters", "tokens", "tokens/s", "requests", "exponentials/s", "bytes of text per token", "s per GB of text",
    # ratios and fractions
    "fraction", "fraction of peak", "fraction of die area", "fraction of accesses",
    "fraction of L2 accesses", "fraction of L3 accesses", "fraction of branches",
    "fraction of instructions", "remote / local DRAM latency", "(clustering parameter)",
    "x (ratio to the predecessor process)",
})

_SOURCE_FIELDS = {"title": True, "date": True, "publisher": True, "url": False, "note": False, "title_zh": False}
_ENTRY_FIELDS = {"name": True, "short_name": False, "product_name": False, "category": True, "family": False,
                 "vendor": False, "year": False, "compared": False, "note": False, "specs": True}
_SPEC_FIELDS = {"value": True, "unit": True, "kind": True, "source": True, "where": True,
                "where_zh": False, "caveats": False}


class RegistryError(ValueError):
    """The registry files break the schema; ``errors`` lists each problem, file first."""

    def __init__(self, errors: list[str], directory: Path | None = None) -> None:
        self.errors = list(errors)
        where = f" in {directory}" if directory is not None else ""
        head = f"{len(self.errors)} error{'s' if len(self.errors) != 1 else ''} in the hardware registry{where}:"
        super().__init__("\n  ".join([head, *self.errors]))


class UnknownNameError(_check.UnknownName):
    """An entry, spec, source or family that the registry does not have; the message suggests the nearest."""


_nearest = _check.nearest   # ' (did you mean a, b?)' or ''


@dataclass(frozen=True)
class Source:
    """One cited document: what a bibliography line needs."""
    key: str
    title: str
    date: str
    publisher: str = ""
    url: str = ""
    note: str = ""
    title_zh: str = ""          # the course's own documents, titled for the Chinese edition

    def __post_init__(self) -> None:
        _check.fields(self)


@dataclass(frozen=True)
class Spec:
    """One value with its provenance."""
    device: str                 # the key of the entry it belongs to (a device or not)
    name: str
    value: float
    unit: str
    kind: str
    source: Source
    where: str
    caveats: tuple[str, ...] = field(default_factory=tuple)
    file: str = ""              # the registry file that defines it
    where_zh: str = ""          # ``where`` for the Chinese edition's Sources (quotations stay as printed)

    def __post_init__(self) -> None:
        _check.fields(self)

    def cite(self) -> str:
        """'title, where' — for a Sources list or a footnote."""
        return f"{self.source.title}, {self.where}"


# ---- usage recording --------------------------------------------------------------------

_USED: dict[tuple[str, str], Spec] = {}


def _record(s: Spec) -> Spec:
    _USED.setdefault((s.device, s.name), s)
    return s


def reset_usage() -> None:
    """Forget which specs were read (a chapter calls this before its first cell that reads one)."""
    _USED.clear()


def used_specs() -> list[Spec]:
    """Each Spec read through :func:`spec`, :func:`value` or a :class:`Entry` since the last
    :func:`reset_usage`, once, in the order first read.

    >>> reset_usage(); _ = value("h100_sxm5", "sm_count"); _ = spec("h100_sxm5", "mem_bw_Bps")
    >>> _ = value("h100_sxm5", "sm_count")
    >>> [(s.device, s.name) for s in used_specs()]
    [('h100_sxm5', 'sm_count'), ('h100_sxm5', 'mem_bw_Bps')]
    """
    return list(_USED.values())


class _SpecView(Mapping[str, Spec]):
    """A device's specs, read-only; reading one records its use."""

    def __init__(self, device: str, specs: dict[str, Spec]) -> None:
        self._device = device
        self._specs = specs

    def __getitem__(self, name: str) -> Spec:
        _check.text("name", name)
        if name not in self._specs:
            raise UnknownNameError(f"{self._device!r} has no spec {name!r}{_nearest(name, self._specs)}; "
                                   f"it has: {', '.join(sorted(self._specs))}")
        return _record(self._specs[name])

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def _quiet_items(self) -> ItemsView[str, Spec]:
        """The specs without recording their use: what checking the entry's fields reads
        (:func:`infra_lib._check.fields`), which is not the page using them."""
        return self._specs.items()

    def __repr__(self) -> str:
        return f"<specs of {self._device}: {', '.join(self._specs)}>"


def _quietly(specs: Mapping[str, Spec]) -> list[Spec]:
    """Every Spec of a mapping without recording their use."""
    return list(specs._specs.values()) if isinstance(specs, _SpecView) else list(specs.values())


@dataclass(frozen=True)
class Entry:
    """One registry entry and its specs: a device (an H100 SXM5), or what ``category`` says it
    is instead (a die, a system, a memory standard, a process, a fab, packaging, software, a
    teaching assumption). ``family``, ``vendor`` and ``year`` are None where they do not apply.

    ``short_name`` is the name a table or a figure comparing chips prints ("H100"; every device
    has one); ``product_name`` the product with its form factor, without the vendor ("H100
    SXM5"), where a label must tell form factors apart; ``compared`` marks the GPUs that are
    compared across generations (:func:`infra_lib.generations.comparison_devices`)."""
    key: str
    name: str
    category: str
    family: str | None
    vendor: str | None
    year: int | None
    specs: Mapping[str, Spec] = field(compare=False, repr=False)
    note: str = ""
    file: str = ""
    short_name: str | None = None
    product_name: str | None = None
    compared: bool = False

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def slug(self) -> str:
        """The short name as a part of a name (a glue key): lower case, each run of other
        characters one "_". 'H100' -> 'h100', 'H100 PCIe' -> 'h100_pcie'.

        >>> entry("h100_sxm5").slug, entry("h100_pcie").slug
        ('h100', 'h100_pcie')
        """
        if not self.short_name:
            raise UnknownNameError(f"registry entry {self.key!r} ({self.file}) has no short_name")
        return _slug(self.short_name)

    def spec(self, name: str) -> Spec:
        """The :class:`Spec` ``name`` of this entry (recorded as used)."""
        return self.specs[name]

    def value(self, name: str) -> float:
        """Just the number of :meth:`spec`."""
        return self.spec(name).value


@dataclass(frozen=True)
class Registry:
    """The loaded, checked registry of one folder."""
    directory: Path
    sources: Mapping[str, Source]
    entries: Mapping[str, Entry]

    def __post_init__(self) -> None:
        _check.fields(self)

    def entry(self, key: str) -> Entry:
        _check.text("key", key)
        if key not in self.entries:
            raise UnknownNameError(f"unknown registry entry {key!r}{_nearest(key, self.entries)}; "
                                   f"the registry has: {', '.join(sorted(self.entries))}")
        return self.entries[key]

    def source(self, key: str) -> Source:
        _check.text("key", key)
        if key not in self.sources:
            raise UnknownNameError(f"unknown source {key!r}{_nearest(key, self.sources)}; "
                                   f"the registry has: {', '.join(sorted(self.sources))}")
        return self.sources[key]

    def spec(self, key: str, name: str) -> Spec:
        return self.entry(key).spec(name)

    def devices(self, family: str | None = None, category: str | None = "device") -> list[Entry]:
        if family is not None:
            _check.text("family", family)
        if category is not None:
            _check.text("category", category)
        if category is not None and category not in CATEGORIES:
            raise UnknownNameError(f"unknown category {category!r}{_nearest(category, CATEGORIES)}; "
                                   f"categories: {', '.join(CATEGORIES)}")
        found = [d for d in self.entries.values() if category is None or d.category == category]
        if family is not None:
            families = {d.family for d in self.entries.values() if d.family}
            if family not in families:
                raise UnknownNameError(f"unknown family {family!r}{_nearest(family, families)}; "
                                       f"families: {', '.join(sorted(families))}")
            found = [d for d in found if d.family == family]
        order = {key: i for i, key in enumerate(self.entries)}      # file order breaks ties
        return sorted(found, key=lambda d: (d.year if d.year is not None else 10_000, order[d.key]))

    def all_specs(self) -> list[Spec]:
        return [s for d in self.entries.values() for s in _quietly(d.specs)]


# ---- meaning: what a spec's name, unit and value must agree on -----------------------------

FAMILY_FILES = {"volta": "nvidia_volta.toml", "ampere": "nvidia_ampere.toml", "hopper": "nvidia_hopper.toml",
                "blackwell": "nvidia_blackwell.toml", "rubin": "nvidia_rubin.toml", "grace": "nvidia_grace.toml",
                "sapphire_rapids": "intel_xeon.toml", "tpu": "google_tpu.toml", "hbm": "hbm.toml"}
"""Every product family an entry may name, and the file that holds it: a family is added here on
purpose, never by a typo (``hoper``); a family file that is missing or holds none of its family is
an error (a file renamed ``.toml.bak`` or emptied would otherwise drop its entries silently)."""
FAMILIES = tuple(FAMILY_FILES)

# A spec's name ends in (or contains) the unit it is in; derived from the names of the registry.
# Each rule: a pattern of the name, the units it allows. The first rule that matches decides.
NAME_UNITS: tuple[tuple[str, frozenset[str]], ...] = tuple((p, frozenset(u)) for p, u in (
    (r"(^|_)flop_s(_|$)", {"FLOP/s"}),             # peak_flop_s, peak_flop_s_fp8_sparse
    (r"(^|_)Bps(_|$)", {"B/s"}),                   # mem_bw_Bps, nvlink_link_Bps_per_direction
    (r"(^|_)bps$", {"bit/s"}),                     # pin_rate_bps, nic_bps
    (r"_hz$", {"Hz"}),
    (r"(^|_)B$", {"B"}),                           # mem_capacity_B, l2_B
    (r"_W$", {"W"}),
    (r"_mm2$", {"mm2"}),
    (r"_mm$", {"mm"}),
    (r"_usd$", {"USD"}),
    (r"_tokens_per_s$", {"tokens/s"}),
    (r"_exp_per_s$", {"exponentials/s"}),           # special-function rates (SFU)
    (r"_per_s$", {"requests"}),                    # arrival rates of teaching requests
    (r"_s$", {"s"}),                               # latencies and times (after the _per_s and _flop_s rules)
    (r"_cycles$", {"cycles"}),
    (r"_bits$", {"bits", "bits per block"}),
    (r"_per_cm2$", {"defects/cm2"}),
))
# The converse: a spec in one of these units has a name that says so.
UNIT_NAMES = {"B/s": "_Bps", "bit/s": "_bps", "Hz": "_hz", "FLOP/s": "_flop_s", "s": "_s", "W": "_W",
              "mm2": "_mm2"}

COUNT_UNITS = frozenset({
    "SMs", "cores", "sockets", "GPUs", "NICs", "DIMMs", "channels", "lanes", "links", "banks", "stacks",
    "dies", "DRAM dies per stack", "transistors", "Tensor Cores", "FP32 lanes", "threads", "warps",
    "SM sub-partitions", "thread blocks", "32-bit registers", "512-bit FMA units per core",
    "128-bit SVE2 pipes per core", "bits", "parameters", "tokens"})
"""Units of things counted whole: 132.5 SMs is a typo."""

ZERO_OK = frozenset({"reserved_shared_memory_per_block_B"})
"""Specs whose value may be 0 (no shared memory reserved per block before compute capability 8.0);
every other value is greater than 0."""

_FRACTION = (0.0, 1.0)
UNIT_RANGES: dict[str, tuple[float, float]] = {
    # base units of units.py
    "B": (1, 1e15), "B/s": (1e8, 1e14), "bit/s": (1e8, 1e13), "bits": (1, 1e12), "FLOP/s": (1e9, 1e18),
    "Hz": (1e7, 1e10), "s": (1e-10, 1e6), "USD": (0.01, 1e9), "mm": (0.01, 1e3), "mm2": (1, 1e5),
    "W": (1, 1e6),
    # rates per clock, per cycle, per lane
    "FLOP/clock/SM": (1, 1e5), "FLOP/cycle/core": (1, 1e4), "FMA/clock": (1, 1e4), "cycles": (0.1, 1e4),
    "cycles per instruction": (0.01, 100), "transfers/s": (1e6, 1e11), "transfers/s per lane": (1e6, 1e12),
    "B per transfer per channel": (1, 1024), "bits per block": (1, 1e4),
    # counts of parts
    "SMs": (1, 1000), "cores": (1, 1e4), "sockets": (1, 16), "GPUs": (1, 1e6), "NICs": (1, 64),
    "DIMMs": (1, 128), "channels": (1, 64), "lanes": (1, 1024), "links": (1, 1024), "banks": (1, 128),
    "stacks": (1, 32), "dies": (1, 64), "DRAM dies per stack": (1, 32), "transistors": (1e6, 1e13),
    "Tensor Cores": (1, 1e4), "FP32 lanes": (1, 1024), "threads": (1, 1e5), "warps": (1, 1024),
    "SM sub-partitions": (1, 16), "thread blocks": (1, 1024), "32-bit registers": (1, 1e6),
    "512-bit FMA units per core": (1, 8), "128-bit SVE2 pipes per core": (1, 8), "reticles": (0.5, 20),
    # manufacturing
    "defects/cm2": (1e-4, 10), "wafers/month": (1, 1e7), "DRAM dies/month": (1, 1e10),
    # workloads
    "parameters": (1e3, 1e14), "tokens": (1, 1e15), "tokens/s": (1e-3, 1e9), "requests": (1e-3, 1e9), "exponentials/s": (1e9, 1e15),
    "bytes of text per token": (0.5, 100), "s per GB of text": (1e-3, 1e5),
    # ratios and fractions
    "fraction": _FRACTION, "fraction of peak": _FRACTION, "fraction of die area": _FRACTION,
    "fraction of accesses": _FRACTION, "fraction of L2 accesses": _FRACTION,
    "fraction of L3 accesses": _FRACTION, "fraction of branches": _FRACTION,
    "fraction of instructions": _FRACTION, "remote / local DRAM latency": (1, 10),
    "(clustering parameter)": (0.01, 100), "x (ratio to the predecessor process)": (0.1, 10),
}
"""The plausible values of each unit, in base units, bounds included: a value outside is a unit
slip (3352 B/s for 3,352 GB/s) or a typo. A real value outside widens its range here on purpose."""

SPEC_RANGES: tuple[tuple[str, float, float, str], ...] = (
    (r"^(hgx_|gb200_|preliminary_)?mem_bw_Bps$", 1e10, 1e14, "a device's memory bandwidth"),
    (r"^(hgx_)?mem_capacity_B$", 1e9, 1e13, "a device's memory capacity"),
    (r"^(preliminary_)?peak_flop_s", 1e12, 1e17, "a device's peak"),
    (r"^sm_count$", 8, 1000, "a GPU's SM count"),
    (r"^(boost_clock|max_sm_clock)_hz$", 3e8, 5e9, "a GPU's clock"),
    (r"^(power|power_limit)_W$", 10, 1e5, "a device's power"),
)
"""Narrower ranges for the specs chapters lean on most (a pattern of the name, low, high, what):
a 1000x slip in a bandwidth stays inside the range of B/s but not inside a device's."""

DIE_ONLY_NOT = (r"^(hgx_)?mem_bw_Bps$", r"^(hgx_)?mem_capacity_B$", r"^power_W$", r"^peak_flop_s")
"""Specs of a packaged device that a bare die cannot have: an entry of category "die" with one of
them (or whose key does not end in ``_die``) is a device given the wrong category."""

_DATE = r"\d{4}(-\d{2}(-\d{2})?)?"
_SOURCE_DATE = re.compile(rf"(accessed )?({_DATE})(, updated ({_DATE}))?")
MEASUREMENTS_DIR = "data/measurements/"
"""A measurement source names its run folder under ``data/measurements/`` in its title or note;
a spec of kind "measured" cites one, and a spec citing one is of kind "measured"."""


def _is_measurement(s: Source) -> bool:
    return MEASUREMENTS_DIR in s.title or MEASUREMENTS_DIR in s.note


def _date_problem(text: str) -> str | None:
    """Why a source's date does not read as a date, or None: YYYY, YYYY-MM or YYYY-MM-DD, optionally
    "accessed ..." (a living page) and ", updated <date>"."""
    m = _SOURCE_DATE.fullmatch(text.strip())
    if not m:
        return "expected YYYY, YYYY-MM or YYYY-MM-DD (or 'accessed YYYY', '<date>, updated <date>')"
    for part in (m.group(2), m.group(6)):
        if part:
            y, mo, d = (int(p) for p in (part.split("-") + ["1", "1"])[:3])
            if not 1900 <= y <= 2100:
                return f"year {y} outside 1900-2100"
            try:
                import datetime
                datetime.date(y, mo, d)
            except ValueError as e:
                return str(e)
    return None


def _units_for(name: str) -> frozenset[str] | None:
    for pattern, allowed in NAME_UNITS:
        if re.search(pattern, name):
            return allowed
    return None


def _check_meaning(where: str, name: str, x: float, unit: str, errors: list[str]) -> None:
    """A spec's name against its unit, its value against its unit's range (both already typed)."""
    allowed = _units_for(name)
    if allowed is not None and unit not in allowed:
        errors.append(f"{where}: unit {unit!r} does not match the name: a spec named *{name[-8:]} is in "
                      f"{' or '.join(sorted(allowed))}")
    elif allowed is None and unit in UNIT_NAMES:
        errors.append(f"{where}: a spec in {unit} has a name ending {UNIT_NAMES[unit]} (or containing it); "
                      f"{name!r} does not say its unit")
    if unit in COUNT_UNITS and x != int(x):
        errors.append(f"{where}: {unit} are counted whole, got {x!r}")
    if x < 0 or (x == 0 and name not in ZERO_OK):
        errors.append(f"{where}: value must be greater than 0, got {x!r}"
                      + ("" if x < 0 else " (add the spec to hardware.ZERO_OK if 0 is real)"))
        return
    if x == 0:
        return
    lo, hi = UNIT_RANGES.get(unit, (-math.inf, math.inf))
    what = f"a value in {unit}"
    for pattern, lo_n, hi_n, what_n in SPEC_RANGES:
        if re.search(pattern, name) and unit in (_units_for(name) or ()):
            lo, hi, what = lo_n, hi_n, what_n
            break
    if not lo <= x <= hi:
        errors.append(f"{where}: value {x:g} {unit} lies outside the plausible range {lo:g} to {hi:g} {unit} "
                      f"for {what} (a unit slip? a real value widens hardware.UNIT_RANGES or SPEC_RANGES)")


# ---- loading and checking ---------------------------------------------------------------

def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _check_fields(table: Any, allowed: dict[str, bool], where: str, errors: list[str]) -> bool:
    """Unknown and missing fields of one table; False when it is not a table at all."""
    if not isinstance(table, dict):
        errors.append(f"{where}: expected a table, got {type(table).__name__} {table!r}")
        return False
    for name in table:
        if name not in allowed:
            errors.append(f"{where}: unknown field {name!r}{_nearest(name, allowed)}; "
                          f"allowed: {', '.join(allowed)}")
    for name, required in allowed.items():
        if required and name not in table:
            errors.append(f"{where}: missing field {name!r}")
    return True


def _string(table: dict[str, Any], name: str, where: str, errors: list[str], empty_ok: bool = False) -> str:
    x = table.get(name, "")
    if not isinstance(x, str):
        errors.append(f"{where}: {name} must be a string, got {type(x).__name__} {x!r}")
        return ""
    if not empty_ok and name in table and not x.strip():
        errors.append(f"{where}: {name} is empty")
    return x


def _load_source(key: str, table: Any, where: str, errors: list[str]) -> Source | None:
    if not _check_fields(table, _SOURCE_FIELDS, where, errors):
        return None
    fields = {n: _string(table, n, where, errors, empty_ok=not req) for n, req in _SOURCE_FIELDS.items()}
    url = fields["url"]
    if fields["date"].strip() and (problem := _date_problem(fields["date"])):
        errors.append(f"{where}: date {fields['date']!r} does not read as a date: {problem}")
    if url and not url.startswith(("https://", "http://")):
        errors.append(f"{where}: url must start with https:// or http://, got {url!r}")
    return Source(key=key, **fields)


def _load_spec(entry: str, category: str, name: str, row: Any, file: str,
               sources: Mapping[str, Source], errors: list[str]) -> Spec | None:
    where = f"{file}: {entry}.{name}"
    n = len(errors)
    if not _check_fields(row, _SPEC_FIELDS, where, errors):
        return None
    x = row.get("value")
    if "value" in row and not _is_number(x):
        errors.append(f"{where}: value must be a number, got {type(x).__name__} {x!r}")
    elif isinstance(x, int) and abs(x) >= 2 ** 1023:
        errors.append(f"{where}: value must be finite, got an integer of {len(str(abs(x)))} digits, "
                      f"too large for a float")
    elif "value" in row and not math.isfinite(x):
        errors.append(f"{where}: value must be finite, got {x!r}")
    unit = _string(row, "unit", where, errors)
    if unit and unit not in UNITS:
        errors.append(f"{where}: unknown unit {unit!r}{_nearest(unit, UNITS)}; add it to hardware.UNITS "
                      f"if it is new")
    kind = _string(row, "kind", where, errors)
    if kind and kind not in KINDS:
        errors.append(f"{where}: unknown kind {kind!r}{_nearest(kind, KINDS)}; kinds: {', '.join(KINDS)}")
    if kind and (kind == "teaching") != (category == "assumption"):
        errors.append(f"{where}: kind {kind!r} in an entry of category {category!r}: teaching values "
                      f"live in entries of category 'assumption', and only they do")
    source = _string(row, "source", where, errors)
    if source and source not in sources:
        errors.append(f"{where}: unknown source {source!r}{_nearest(source, sources)}; "
                      f"sources are defined in {SOURCES_FILE}")
    text = _string(row, "where", where, errors)
    text_zh = _string(row, "where_zh", where, errors)
    caveats = row.get("caveats", [])
    if not isinstance(caveats, list):
        errors.append(f"{where}: caveats must be a list of strings, got {type(caveats).__name__} {caveats!r}")
    else:
        for c in caveats:
            if not isinstance(c, str) or not c.strip():
                errors.append(f"{where}: caveats must be non-empty strings, got {c!r}")
    if len(errors) > n:
        return None
    _check_meaning(where, name, float(x), unit, errors)
    if (kind == "measured") != _is_measurement(sources[source]):
        errors.append(f"{where}: kind {kind!r} with source {source!r}: a measured value cites a measurement "
                      f"run of this course (a source naming {MEASUREMENTS_DIR}<run>), and a value citing one "
                      f"is measured")
    if len(errors) > n:
        return None
    return Spec(device=entry, name=name, value=float(x), unit=unit, kind=kind, source=sources[source],
                where=text, caveats=tuple(caveats), file=file, where_zh=text_zh)


def _load_entry(key: str, table: Any, file: str, sources: Mapping[str, Source],
                errors: list[str]) -> Entry | None:
    where = f"{file}: {key}"
    n = len(errors)
    if not _check_fields(table, _ENTRY_FIELDS, where, errors):
        return None
    _string(table, "name", where, errors)
    category = _string(table, "category", where, errors)
    if "category" in table and category not in CATEGORIES:
        errors.append(f"{where}: unknown category {category!r}{_nearest(category, CATEGORIES)}; "
                      f"categories: {', '.join(CATEGORIES)}")
    for name in ("short_name", "product_name"):
        text = _string(table, name, where, errors)
        if text and not _slug(text):
            errors.append(f"{where}: {name} must contain a letter or a digit, got {text!r}")
    if category == "device" and "short_name" not in table:
        errors.append(f"{where}: a device needs a short_name (what tables and figures print, e.g. \"H100\")")
    compared = table.get("compared", False)
    if not isinstance(compared, bool):
        errors.append(f"{where}: compared must be true or false, got {type(compared).__name__} {compared!r}")
    elif compared and category != "device":
        errors.append(f"{where}: compared = true in an entry of category {category!r}: only devices are "
                      f"compared across generations")
    for name in ("family", "vendor"):
        _string(table, name, where, errors)
        if category in HARDWARE_CATEGORIES and name not in table:
            errors.append(f"{where}: a {category} needs a {name}")
    family = table.get("family")
    if isinstance(family, str) and family.strip() and family not in FAMILY_FILES:
        errors.append(f"{where}: unknown family {family!r}{_nearest(family, FAMILIES)}; families: "
                      f"{', '.join(FAMILIES)} (a new one is added to hardware.FAMILY_FILES)")
    rows_ = table.get("specs", {})
    if category == "die" or key.endswith("_die"):
        device_specs = [n for n in (rows_ if isinstance(rows_, dict) else {})
                        if any(re.search(p, n) for p in DIE_ONLY_NOT)]
        if category != "die":
            errors.append(f"{where}: key {key!r} names a die but the category is {category!r}")
        elif not key.endswith("_die"):
            errors.append(f"{where}: category 'die' for an entry whose key does not end in _die: a die's key "
                          f"does (gh100_die); is it a device?")
        if category == "die" and device_specs:
            errors.append(f"{where}: category 'die' with specs of a packaged device ({', '.join(device_specs)}); "
                          f"is it a device?")
    year = table.get("year")
    if year is not None and (not isinstance(year, int) or isinstance(year, bool) or not 1950 <= year <= 2100):
        errors.append(f"{where}: year must be a year like 2022, got {year!r}")
    if category in HARDWARE_CATEGORIES and year is None:
        errors.append(f"{where}: a {category} needs a year (it orders the generations)")
    _string(table, "note", where, errors, empty_ok=True)
    rows = table.get("specs", {})
    specs: dict[str, Spec] = {}
    if not isinstance(rows, dict) or ("specs" in table and not rows):
        errors.append(f"{where}: specs must be a non-empty table of [entries.{key}.specs.<name>]")
        rows = {}
    for name, row in rows.items():
        s = _load_spec(key, category, name, row, file, sources, errors)
        if s is not None:
            specs[name] = s
    if len(errors) > n:
        return None
    return Entry(key=key, name=table["name"], category=category, family=table.get("family"),
                  vendor=table.get("vendor"), year=year, specs=_SpecView(key, specs),
                  note=table.get("note", ""), file=file, short_name=table.get("short_name"),
                  product_name=table.get("product_name"), compared=compared)


def load(directory: str | Path = REGISTRY_DIR) -> Registry:
    """Read and check every ``*.toml`` of ``directory``: ``sources.toml`` and the entry files.

    Raises :class:`RegistryError` listing every problem, each naming the file, the entry and the
    spec: an unknown or missing field, a value that is not a finite number (a bool is not one), an
    unknown unit, kind, source or category, an empty ``where``, a ``where_zh`` that is not a
    non-empty string, caveats that are not a list of strings, an entry or a spec defined in two
    files (both named), a device without a ``short_name``, two entries whose short names read the
    same as a name part (both named), ``compared`` that is not a bool or is set outside a device;
    and the meaning of each value: a unit that disagrees with the spec's name (:data:`NAME_UNITS`),
    a count that is not whole, a value not above 0 (:data:`ZERO_OK` excepted) or outside its
    plausible range (:data:`UNIT_RANGES`, :data:`SPEC_RANGES`), an unknown family
    (:data:`FAMILY_FILES`), a family file missing or emptied, a die that is a device, a source date
    that does not parse, kind "measured" without a measurement source, a file that is not UTF-8, and
    a whole that disagrees with its parts without a caveat naming the check (:func:`cross_checks`).
    """
    directory = Path(directory)
    errors: list[str] = []
    paths = sorted(directory.glob("*.toml")) if directory.is_dir() else []
    if not paths:
        raise RegistryError([f"{directory}: no registry files (*.toml) here"])
    data: dict[str, dict[str, Any]] = {}
    for path in paths:
        d = _read_toml(path, errors)
        if d is None:
            continue
        data[path.name] = d
        table = "sources" if path.name == SOURCES_FILE else "entries"
        if not d.get(table):
            errors.append(f"{path.name}: holds no [{table}.<key>] tables (an emptied file?)")
    names = {p.name for p in paths}
    if SOURCES_FILE not in names:
        errors.append(f"{SOURCES_FILE}: missing; every source is defined there")
    for family, file in FAMILY_FILES.items():
        if file not in names:
            errors.append(f"{file}: missing; it holds the family {family!r} (hardware.FAMILY_FILES)")
        elif file in data and not any(isinstance(e, dict) and e.get("family") == family
                                      for e in data[file].get("entries", {}).values()):
            errors.append(f"{file}: holds no entry of the family {family!r} (hardware.FAMILY_FILES)")

    sources: dict[str, Source] = {}
    for file, d in data.items():
        expected = "sources" if file == SOURCES_FILE else "entries"
        for table in d:
            if table != expected:
                errors.append(f"{file}: unknown table [{table}]; this file holds [{expected}.<key>] tables"
                              + (f" ([sources] belong in {SOURCES_FILE})" if table == "sources" else ""))
    for key, table in data.get(SOURCES_FILE, {}).get("sources", {}).items():
        s = _load_source(key, table, f"{SOURCES_FILE}: source {key}", errors)
        if s is not None:
            sources[key] = s

    # Where each entry is defined; an entry lives in one file, its home (the one that names it).
    found: dict[str, list[tuple[str, Any]]] = {}
    for file, d in data.items():
        if file != SOURCES_FILE:
            for key, table in d.get("entries", {}).items():
                found.setdefault(key, []).append((file, table))
    entries: dict[str, Entry] = {}
    for key, places in found.items():
        home, table = next((p for p in places if isinstance(p[1], dict) and ("name" in p[1] or "category" in p[1])),
                           places[0])
        home_specs = table.get("specs", {}) if isinstance(table, dict) else {}
        for file, other in places:
            if file == home:
                continue
            other_specs = other.get("specs", {}) if isinstance(other, dict) else {}
            both = [n for n in other_specs if n in home_specs]
            for n in both:
                errors.append(f"{file}: {key}.{n}: spec defined twice, here and in {home}")
            if not both:
                errors.append(f"{file}: {key}: entry already defined in {home}; keep one entry's specs "
                              f"in one file")
        dev = _load_entry(key, table, home, sources, errors)
        if dev is not None:
            entries[key] = dev
    named: dict[str, Entry] = {}
    for dev in entries.values():          # a short name picks one entry: "B300" cannot mean two
        if dev.short_name:
            first = named.setdefault(_slug(dev.short_name), dev)
            if first is not dev:
                errors.append(f"{dev.file}: {dev.key}: short_name {dev.short_name!r} reads the same as "
                              f"{first.key}'s {first.short_name!r} ({first.file}); give each entry its own")
    if not errors:
        for dev in entries.values():      # a whole against its parts; a caveat naming the check explains one
            errors += [f.message() for f in _cross_check_entry({s.name: s for s in _quietly(dev.specs)})
                       if not f.explained]
    if errors:
        raise RegistryError(errors, directory)
    return Registry(directory=directory, sources=MappingProxyType(sources),
                    entries=MappingProxyType(entries))


def _key_at(text: str) -> str:
    """' in [table], key name' for the end of ``text`` (the start of a file up to a fault), or ''."""
    headers = re.findall(r"^\s*\[+([^\]]+)\]+", text, flags=re.M)
    line = text.rsplit("\n", 1)[-1]
    key = re.match(r"\s*([A-Za-z0-9_.-]+)\s*=", line)
    parts = ([f"[{headers[-1].strip()}]"] if headers else []) + ([f"key {key.group(1)}"] if key else [])
    return f" (in {', '.join(parts)})" if parts else ""


def _read_toml(path: Path, errors: list[str]) -> dict[str, Any] | None:
    """One registry file parsed, or None with the reason in ``errors``: the file, the line, the
    table and the key. A UTF-8 byte-order mark (some Windows editors add one) is accepted."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        head = raw[:e.start].decode("utf-8", errors="replace")
        line = head.count("\n") + 1
        hint = ("a UTF-16 file? save it as UTF-8" if raw[:2] in (b"\xff\xfe", b"\xfe\xff")
                else "Latin-1 or another encoding? save it as UTF-8")
        errors.append(f"{path.name}: line {line}{_key_at(head)}: not UTF-8: byte 0x{raw[e.start]:02x} "
                      f"at offset {e.start} ({hint})")
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        at = re.search(r"line (\d+)", str(e))
        where = _key_at("\n".join(text.split("\n")[:int(at.group(1))])) if at else ""
        errors.append(f"{path.name}: not valid TOML{where}: {e}")
        return None


@lru_cache(maxsize=1)
def registry() -> Registry:
    """The course's registry, loaded once: ``data/registry/``, or the folder that the environment
    variable ``INFRA_LIB_REGISTRY`` names when it is set at the first call (a copy of the
    registry with a scratch GPU in it, say). After changing the variable, ``registry.cache_clear()``
    makes the next call read it again."""
    return load(os.environ.get(REGISTRY_ENV) or REGISTRY_DIR)


# ---- cross-checks: a whole against its parts ------------------------------------------------

CROSS_CHECK_TOLERANCE = 0.005
"""How far a datasheet's whole may sit from the product of its parts: half a percent, what rounding
a figure to three significant digits can do (the V100's 125 TFLOPS against 80 x 8 x 64 x 2 x 1.53 GHz
= 125.3; the H100's 3,352 GB/s against 5 x 1,024 bits x 2,619 MHz x 2 / 8 = 3,352.3; chapter 4
aligns sparse to dense "within rounding"). Counts of parts must agree exactly."""

HBM_STACK_BITS = 1024
"""Interface width of one HBM2, HBM3 or HBM3E stack (JEDEC JESD235, JESD238; the same constant as
``specsheet.HBM_STACK_BITS``), the width a bus is checked against when an entry gives no
``hbm_bits_per_stack``."""

# (name, the whole, its parts, the arithmetic on the parts, how they must relate, the formula shown)
_CROSS_CHECKS: tuple[tuple[str, str, tuple[str, ...], Any, str, str], ...] = (
    ("peak_from_tensor_cores", "peak_flop_s",
     ("sm_count", "tensor_cores_per_sm", "tensor_fma_per_clock_per_core", "boost_clock_hz"),
     lambda n, k, f, c: n * k * f * 2 * c, "equal",
     "SMs x Tensor Cores per SM x FMA per clock x 2 FLOP x boost clock (A100 whitepaper, section 4.1)"),
    ("peak_from_sm_rate", "peak_flop_s", ("sm_count", "tensor_flop_per_clock_per_sm", "boost_clock_hz"),
     lambda n, f, c: n * f * c, "equal", "SMs x FLOP per clock per SM x boost clock (generations.peak_flop_s)"),
    ("peak_within_max_clock", "peak_flop_s", ("sm_count", "tensor_flop_per_clock_per_sm", "max_sm_clock_hz"),
     lambda n, f, c: n * f * c, "at_most",
     "SMs x FLOP per clock per SM x maximum clock, a ceiling (the peak assumes a lower clock)"),
    ("hbm_bandwidth", "mem_bw_Bps", ("hbm_stacks", "hbm_bits_per_stack", "hbm_clock_hz"),
     lambda s, b, c: s * b * c * 2 / 8, "equal",
     "stacks x bits per stack x HBM clock x 2 (DDR) / 8 (memory.hbm_bandwidth_Bps)"),
    ("hbm_bandwidth_from_pins", "mem_bw_Bps", ("hbm_bus_bits", "pin_rate_bps"),
     lambda b, r: b * r / 8, "equal", "bus bits x pin rate / 8 (memory.pin_rate_bps)"),
    ("hbm_bus_width", "hbm_bus_bits", ("hbm_stacks", "hbm_bits_per_stack"),
     lambda s, b: s * b, "exact", "stacks x bits per stack"),
    ("tensor_cores", "tensor_cores", ("sm_count", "tensor_cores_per_sm"),
     lambda n, k: n * k, "exact", "SMs x Tensor Cores per SM"),
    ("nvlink_total", "nvlink_total_Bps", ("nvlink_links", "nvlink_link_Bps_per_direction"),
     lambda n, b: n * b * 2, "equal", "links x bandwidth per direction x 2 directions"),
    *((f"sparse_twice_dense{'_' + fmt if fmt else ''}", f"peak_flop_s{'_' + fmt if fmt else ''}_sparse",
       (f"peak_flop_s{'_' + fmt if fmt else ''}",), lambda d: 2 * d, "equal",
       "2 x the dense peak (2:4 structured sparsity)") for fmt in ("", "fp8", "fp4")),
)
CROSS_CHECKS = tuple(c[0] for c in _CROSS_CHECKS) + ("hbm_bus_width_1024",)
"""The names of the cross-checks :func:`cross_checks` runs; a caveat naming one explains a known
disagreement (``"cross-check peak_from_sm_rate: ..."``)."""


@dataclass(frozen=True)
class Finding:
    """A registry whole that disagrees with the product of its parts (:func:`cross_checks`)."""
    check: str                   # the cross-check's name, one of CROSS_CHECKS
    stated: Spec                 # the registry's whole
    derived: float               # the whole rebuilt from the parts
    parts: tuple[Spec, ...]
    formula: str
    gap: float                   # (stated - derived) / derived
    tolerance: float
    explained: bool              # a caveat of the stated spec names the check

    def __post_init__(self) -> None:
        _check.fields(self)

    def message(self) -> str:
        s = self.stated
        parts = ", ".join(f"{p.name} = {p.value:g} ({p.source.key})" for p in self.parts)
        return (f"{s.file}: {s.device}.{s.name}: cross-check {self.check}: the registry says {s.value:g} {s.unit} "
                f"({s.source.key}, {s.where}), its parts give {self.derived:g} {s.unit} = {self.formula} "
                f"({parts}): {self.gap:+.2%} apart, beyond {self.tolerance:.1%}"
                + ("; explained by a caveat" if self.explained else
                   f"; fix a value, or add a caveat \"cross-check {self.check}: <why>\" to {s.name}"))


def _disagreement(check: str, whole: Spec, parts: list[Spec], derived: float, how: str,
                  formula: str) -> Finding | None:
    tol = 0.0 if how == "exact" else CROSS_CHECK_TOLERANCE
    gap = whole.value / derived - 1
    if (how == "at_most" and gap <= tol) or (how != "at_most" and abs(gap) <= tol + 1e-12):
        return None
    explained = any(check in c for c in whole.caveats)
    return Finding(check=check, stated=whole, derived=derived, parts=tuple(parts), formula=formula,
                   gap=gap, tolerance=tol, explained=explained)


def _cross_check_entry(specs: Mapping[str, Spec]) -> list[Finding]:
    found = []
    for check, whole, names, arithmetic, how, formula in _CROSS_CHECKS:
        if whole in specs and all(n in specs for n in names):
            parts = [specs[n] for n in names]
            f = _disagreement(check, specs[whole], parts, arithmetic(*(p.value for p in parts)), how, formula)
            if f is not None:
                found.append(f)
    if "hbm_bus_bits" in specs and "hbm_stacks" in specs and "hbm_bits_per_stack" not in specs:
        stacks = specs["hbm_stacks"]
        f = _disagreement("hbm_bus_width_1024", specs["hbm_bus_bits"], [stacks], stacks.value * HBM_STACK_BITS,
                          "exact", f"stacks x {HBM_STACK_BITS} bits (HBM2 to HBM3E; an HBM4 entry gives "
                          f"hbm_bits_per_stack)")
        if f is not None:
            found.append(f)
    return found


def cross_checks(reg: Registry | None = None) -> list[Finding]:
    """Every disagreement between a whole the registry holds and the product of its parts, in the
    same entry: a peak against SMs x per-SM rate x clock, a bandwidth against stacks x bus width x
    clock, a bus against stacks x bits per stack, Tensor Cores against SMs x per SM, NVLink's total
    against links x per direction x 2, a sparse peak against twice the dense one. Each
    :class:`Finding` gives both values and their sources; one is ``explained`` when a caveat of the
    whole names its check. :func:`load` refuses a registry with an unexplained one.

    >>> cross_checks()
    []
    >>> [c for c in CROSS_CHECKS if c.startswith("peak")]
    ['peak_from_tensor_cores', 'peak_from_sm_rate', 'peak_within_max_clock']
    """
    reg = registry() if reg is None else _check.instance("reg", reg, Registry)
    return [f for e in reg.entries.values() for f in _cross_check_entry(
        {s.name: s for s in _quietly(e.specs)})]


# ---- the API the chapters use -----------------------------------------------------------

def entry(key: str) -> Entry:
    """Any registry entry (a device, a die, a fab, a teaching assumption...) as a :class:`Entry`.

    >>> entry("tsmc_n5").category
    'process'
    """
    return registry().entry(key)


def devices(family: str | None = None, category: str | None = "device") -> list[Entry]:
    """The entries of ``category`` (all categories if None), of ``family`` if given, oldest first
    (by ``year``; the order of the registry files breaks ties).

    >>> [d.key for d in devices()][:4]
    ['v100_sxm2', 'a100_sxm4_40gb', 'grace', 'h100_sxm5']
    >>> [(d.key, d.category) for d in devices("ampere", category=None)]
    [('ga100_die', 'die'), ('a100_sxm4_40gb', 'device')]
    """
    return registry().devices(family, category)


def device_name(device: str) -> str:
    """The entry's display name, e.g. 'NVIDIA H100 SXM5'."""
    return entry(_check.text("device", device)).name


def short_name(device: str) -> str:
    """The entry's short name, what a table or figure comparing chips prints.

    >>> short_name("h100_sxm5"), short_name("b300_gpu")
    ('H100', 'B300')
    """
    d = entry(_check.text("device", device))
    if not d.short_name:
        raise UnknownNameError(f"registry entry {device!r} ({d.file}) has no short_name; add one to its entry")
    return d.short_name


def product_name(device: str) -> str:
    """The product with its form factor, without the vendor, for a label that must tell form
    factors apart.

    >>> product_name("h100_sxm5")
    'H100 SXM5'
    """
    d = entry(_check.text("device", device))
    if not d.product_name:
        raise UnknownNameError(f"registry entry {device!r} ({d.file}) has no product_name; add one to its entry")
    return d.product_name


def spec(device: str, name: str) -> Spec:
    """The :class:`Spec` ``name`` of entry ``device`` (value, unit, kind, source, caveats)."""
    return entry(_check.text("device", device)).spec(_check.text("name", name))


def value(device: str, name: str) -> float:
    """Just the number of :func:`spec`."""
    return spec(device, name).value


# ---- memory capacity: the bytes a program can use ------------------------------------------

MEMORY_BASES = ("measured", "reported", "nominal")
"""How :func:`usable_memory_B` knows a GPU's memory, best first: CUDA's total measured by this
course, the same reported by a third party, or the datasheet's nominal capacity."""

BOARD_PREFIX = "hgx_"
"""A spec named ``hgx_<name>`` is ``<name>`` per GPU of an HGX board. An entry whose peaks and power
are per HGX GPU but whose ``<name>`` is the full chip's (the B300) holds both; chapter 4 reads the
board's (:func:`board_spec_name`), so every column of a row has one basis."""

CAPACITY_SPECS = (BOARD_PREFIX + "mem_capacity_B", "mem_capacity_B")
"""The datasheet capacity a GPU's nominal memory is read from, first found wins: a GPU whose
registry peaks are per GPU of an HGX board (the B300) gives that board's capacity there."""


def board_spec_name(device: str, name: str) -> str:
    """``hgx_<name>`` where the entry holds it (the HGX board's figure, the basis of its peaks),
    else ``name``.

    >>> board_spec_name("b300_gpu", "mem_bw_Bps"), board_spec_name("h100_sxm5", "mem_bw_Bps")
    ('hgx_mem_bw_Bps', 'mem_bw_Bps')
    """
    d = entry(_check.text("device", device))
    board = BOARD_PREFIX + _check.text("name", name)
    return board if board in d.specs else name


@dataclass(frozen=True)
class UsableMemory:
    """The bytes a program can use on one GPU, and how the course knows them.

    ``basis`` is one of :data:`MEMORY_BASES`; ``spec`` is the registry value it comes from
    (``cuda_visible_B``, or the datasheet capacity for a nominal figure).
    """
    device: str
    value_B: float
    basis: str
    spec: Spec

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.choice("basis", self.basis, MEMORY_BASES)


def nominal_memory_B(device: str) -> float:
    """The datasheet's memory capacity as the bytes it names. HBM and DRAM are built from
    binary-sized dies, so for a memory capacity a vendor's "GB" counts GiB: the H200's printed
    141 GB is 141 x 2^30 bytes. The registry stores the figure as printed (``141e9``); this
    reads it as binary. Bandwidths (GB/s) stay decimal.

    >>> nominal_memory_B("h200_sxm") == 141 * 2**30, round(nominal_memory_B("b300_gpu") / 2**30)
    (True, 270)
    """
    d = entry(_check.text("device", device))
    name = next((n for n in CAPACITY_SPECS if n in d.specs), None)
    if name is None:
        raise UnknownNameError(f"registry entry {device!r} ({d.file}) has no memory capacity "
                               f"({' or '.join(CAPACITY_SPECS)})")
    return d.value(name) / units.GB * units.GiB


def usable_memory_B(device: str) -> UsableMemory:
    """The bytes a program can use on one GPU: the one home for "what fits in one GPU's memory".

    The total CUDA reports (``cudaMemGetInfo``, ``totalGlobalMem``) where the registry holds it
    as ``cuda_visible_B`` (basis "measured" or "reported", its kind); otherwise the datasheet's
    nominal binary capacity (:func:`nominal_memory_B`, basis "nominal"), an upper bound: CUDA
    reports a little less (the driver and the memory it reserves keep some back; 0.9% on the
    measured H200). Engines then use only a share of it (``infra_lib.planner``).

    >>> m = usable_memory_B("h200_sxm"); m.value_B, m.basis
    (150109880320.0, 'measured')
    >>> usable_memory_B("b200_hgx").basis, usable_memory_B("h200_sxm").value_B < nominal_memory_B("h200_sxm")
    ('nominal', True)
    """
    d = entry(_check.text("device", device))
    if "cuda_visible_B" in d.specs:
        s = d.spec("cuda_visible_B")
        if s.kind not in ("measured", "reported"):
            raise RegistryError([f"{d.file}: {device}.cuda_visible_B has kind {s.kind!r}; "
                                 f"what CUDA reports is measured or reported"])
        return UsableMemory(device, s.value, s.kind, s)
    value_B = nominal_memory_B(device)
    name = next(n for n in CAPACITY_SPECS if n in d.specs)
    return UsableMemory(device, value_B, "nominal", d.spec(name))


def source(key: str) -> Source:
    """The :class:`Source` ``key`` of ``sources.toml``."""
    return registry().source(key)


def sources() -> list[Source]:
    """Every source, in the order of ``sources.toml``."""
    return list(registry().sources.values())


def all_specs() -> list[Spec]:
    """Every Spec of every entry, in file order (for tests; reading them records nothing)."""
    return registry().all_specs()
