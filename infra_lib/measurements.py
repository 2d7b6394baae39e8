"""Real measurements, and the model checked against them: the course's H200 run, or yours.

A run is a folder of three JSON files. ``run.json`` says what took it (the machine, the versions,
the backend, the element size, the registry entry of the device's datasheet); ``reality_check.json``
holds the copy, the read-only stream, the matmul sweep, the decoder's shape, its prefill and its
decode steps; ``ladder.json`` the microbenchmarks (host-device copies, bandwidth by working set,
launch overhead, the large matmuls, strided loads). The course ships one run,
``data/measurements/h200-2026-11-29/`` (taken by the scripts its README describes, its two data
files copied unchanged); ``python -m infra_lib.gpu_bench --out <folder>`` writes a run of your own
machine in the same format. Every function that reads a run takes ``run``: a shipped run's name or
the path of such a folder. A folder is checked when first read: a missing file or field, or a
value of the wrong kind, is an error that names the file and the field.
"""
import io
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import _check, hardware

RUN = "h200-2026-11-29"
DATA_DIR = Path(__file__).parent / "data" / "measurements"
FILES = ("run", "reality_check", "ladder")
FORMAT = 1
BACKENDS = ("torch", "numpy")
_USED: dict[str, None] = {}      # the runs read since reset_usage(), in order: a page's Sources list them


class RunError(ValueError):
    """A run folder that is damaged or incomplete: the message names the file and the field."""


def reset_usage() -> None:
    """Forget which runs were read (a page starts; :func:`infra_lib.sources.reset` calls it)."""
    _USED.clear()


def used_runs() -> list[str]:
    """The measurement runs :func:`load` read since :func:`reset_usage`, in the order first read."""
    return list(_USED)


def runs() -> list[str]:
    """The measurement runs shipped with the course (folders of ``data/measurements/``)."""
    return sorted(p.name for p in DATA_DIR.iterdir() if p.is_dir())


def unpack(archive: str | Path) -> Path:
    """Unpack the zip of a run folder (``python -m zipfile -c my-gpu.zip my-gpu``) and return the
    folder it unpacks to: how a run reaches the live pages, whose file upload takes files, not
    folders. The folder is in the system's temporary folder, named for the zip's name and contents
    (``infra_lib_runs/my-gpu-<hash>``), so the zip is unpacked once and a changed zip anew, and
    nothing is written beside it (in the live pages, beside it is the browser's storage). The zip
    holds the run's three files at its top or in one folder; anything else (a missing file, a path
    that leaves the folder, not a zip) is a :class:`RunError` that names the archive and what is
    wrong."""
    import hashlib
    import tempfile
    import zipfile

    if not isinstance(archive, (str, Path)):
        raise TypeError(f"archive: need the path of a run folder's zip (a str or a Path), got {_check._show(archive)}")
    archive = Path(archive).expanduser()
    if not archive.is_file():
        raise RunError(f"archive: no zip file at {str(archive)!r} (zip a run folder with "
                       "python -m zipfile -c my-gpu.zip my-gpu)")
    data = archive.read_bytes()
    stem = archive.name[:-4] if archive.name.lower().endswith(".zip") else archive.name
    target = Path(tempfile.gettempdir()) / "infra_lib_runs" / f"{stem}-{hashlib.sha256(data).hexdigest()[:12]}"
    if (target / "run.json").is_file():
        return target.resolve()                  # unpacked before, from these very bytes
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = [n for n in z.namelist() if not n.endswith("/")]
            wanted: dict[str, list[str]] = {}
            for n in names:
                parts = Path(n).parts
                if n.startswith(("/", "\\")) or ".." in parts:
                    raise RunError(f"{archive.name}: the entry {n!r} would be written outside the run folder")
                if parts[-1] in {f"{f}.json" for f in FILES} and len(parts) <= 2:
                    wanted.setdefault(parts[-1], []).append(n)
            missing = [f"{f}.json" for f in FILES if f"{f}.json" not in wanted]
            if missing:
                raise RunError(f"{archive.name}: the zip has no {', '.join(missing)} at its top or in one folder: "
                               "is it the zip of a run folder written by python -m infra_lib.gpu_bench?")
            twice = [f for f, found in wanted.items() if len(found) > 1]
            if twice:
                raise RunError(f"{archive.name}: the zip holds {', '.join(twice)} more than once: zip one run folder")
            target.mkdir(parents=True, exist_ok=True)
            for name, (entry,) in sorted(wanted.items(), key=lambda kv: kv[0] == "run.json"):   # run.json last
                (target / name).write_bytes(z.read(entry))
    except zipfile.BadZipFile as err:
        raise RunError(f"{archive.name}: not a zip file ({err})") from None
    return target.resolve()


def folder(run: str | Path = RUN) -> Path:
    """The folder of ``run``: a shipped run's name, the path of a run folder (one that holds a
    ``run.json``), or the path of a run folder's zip (:func:`unpack`). Anything else is an error
    that names the nearest shipped runs."""
    if isinstance(run, str) and run in runs():
        return DATA_DIR / run
    if isinstance(run, (str, Path)) and str(run).lower().endswith(".zip"):
        return unpack(run)
    if isinstance(run, Path) or (isinstance(run, str) and ("/" in run or "\\" in run or run.startswith(".")
                                                           or (Path(run).expanduser() / "run.json").is_file())):
        path = Path(run).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"run: no run folder at {str(path)!r} (write one with "
                                    f"python -m infra_lib.gpu_bench --out {str(path)!r})")
        if not (path / "run.json").is_file():
            raise RunError(f"run: {str(path)!r} is not a measurement run: it has no run.json")
        return path.resolve()
    run = _check.text("run", run)
    have = runs()
    if run not in have:
        raise _check.UnknownName(f"run: unknown measurement run {run!r}{_check.nearest(run, have)}; "
                                 f"runs available: {', '.join(have)} (or pass the path of a run folder)")
    return DATA_DIR / run


def load(run: str | Path = RUN, name: str = "reality_check") -> Any:
    """The parsed JSON file ``name`` ('reality_check', 'ladder' or 'run') of measurement run ``run``
    (a shipped run's name or a run folder's path), checked by :func:`validate` when first read.

    An unknown run or file is a KeyError that names the nearest known ones.
    """
    path = folder(run)
    name = _check.text("name", name)
    if name not in FILES:
        raise _check.UnknownName(f"name: a run has no measurement file {name!r}"
                                 f"{_check.nearest(name, FILES)}; it has: {', '.join(FILES)}")
    data = _validated(str(path))
    _USED.setdefault(run if isinstance(run, str) and path.parent == DATA_DIR else str(path), None)
    return data[name]


@lru_cache(maxsize=None)
def _validated(path: str) -> dict[str, Any]:
    return validate(Path(path))


def info(run: str | Path = RUN) -> dict[str, Any]:
    """The run's ``run.json``: the machine, versions, backend, element size and datasheet entry."""
    return load(run, "run")


def dtype_B(run: str | Path = RUN) -> int:
    """Bytes per element of the run's weights, activations and KV cache (2: BF16 on the H200 run)."""
    return int(info(run)["dtype_B"])


def spec(run: str | Path = RUN) -> str:
    """The registry entry of the measured device's datasheet (``h200_sxm`` for the course's run).

    A run without one (the CPU backend, or a GPU the registry does not list) is an error that says so:
    a comparison with a datasheet needs the datasheet.
    """
    key = info(run).get("spec")
    if not key:
        raise RunError(f"run: {info(run)['device']!r} ({run}) has no datasheet entry in the registry "
                       f"(run.json's 'spec' is empty); use the measured efficiencies, not 'datasheet'")
    return str(key)


def large_matmul_flop_s(run: str | Path = RUN) -> float:
    """The run's large square matmul (8192^3 in BF16 on the H200 run), FLOP/s: ``matmul_TFLOPs``
    where the run has it (the course's benchmark, any dtype), else ``bf16_TFLOPs``."""
    lad = load(run, "ladder")
    v = lad.get("matmul_TFLOPs", lad.get("bf16_TFLOPs"))
    if v is None:
        raise RunError(f"ladder.json: run {run!r} has neither 'matmul_TFLOPs' nor 'bf16_TFLOPs'")
    return float(v) * 1e12


def run_name(run: str | Path) -> str:
    """How a caption names a run: a shipped run's name, or a run folder's last component.

    >>> run_name(RUN), run_name("runs/my-gpu"), run_name("my-gpu.zip")
    ('h200-2026-11-29', 'my-gpu', 'my-gpu')
    """
    if not isinstance(run, (str, Path)):
        raise TypeError(f"run: need a run's name or a run folder's path, got {_check._show(run)}")
    name = run if isinstance(run, str) and "/" not in run and "\\" not in run else Path(run).name
    return name[:-4] if name.lower().endswith(".zip") else name


def step_s(row: dict[str, Any]) -> float:
    """A measured decode step's time: the CUDA-graph replay where the run has one, else eager
    (the CPU backend has no graphs)."""
    if not isinstance(row, dict) or "s_eager" not in row:
        raise TypeError(f"row: need a decode row of a run (with 's_eager' and 's_graph'), got {_check._show(row)}")
    return float(row["s_graph"] if row.get("s_graph") is not None else row["s_eager"])


# ---- validation ---------------------------------------------------------------------------------

_POS, _NN, _INT, _STR, _OPT = "a positive number", "a number >= 0", "a positive whole number", "a text", "optional"
_RUN_FIELDS = {"format": _INT, "backend": _STR, "device": _STR, "dtype": _STR, "dtype_B": _INT}
DTYPES = {"bfloat16": 2, "float16": 2, "float32": 4}
"""The element types a run may compute in, and their sizes in bytes."""
_RC_FIELDS: dict[str, dict[str, Any]] = {
    "copy": {"bytes_moved": _POS, "s_median": _POS, "GBps": _POS},
    "read": {"bytes_read": _POS, "s_median": _POS, "GBps": _POS},
    "model": {"layers": _INT, "d": _INT, "heads": _INT, "kv_heads": _INT, "head_dim": _INT, "ffn": _INT,
              "vocab": _INT, "params": _INT, "kv_bytes_per_token": _INT},
    "prefill": {"P": _INT, "batch": _INT, "s_median": _POS},
}
_RC_ROWS: dict[str, dict[str, Any]] = {
    "matmul_roofline": {"M": _INT, "flops": _POS, "bytes": _POS, "s_median": _POS, "TFLOPs": _POS, "GBps": _POS},
    "decode": {"batch": _INT, "ctx": _INT, "s_eager": _POS, "s_graph": (_POS, _OPT), "bytes_min": _POS},
}
_LADDER_FIELDS = {"h2d_pinned_GBps": (_POS, _OPT), "d2h_pinned_GBps": (_POS, _OPT), "h2d_pageable_GBps": (_POS, _OPT),
                  "tiny_op_eager_us": _POS, "tiny_op_graph_us": (_POS, _OPT), "bf16_TFLOPs": (_POS, _OPT),
                  "fp8_TFLOPs": (_POS, _OPT)}
_LADDER_ROWS: dict[str, dict[str, Any]] = {"copy_by_working_set": {"working_set_MB": _POS, "GBps": _POS},
                "strided_loads": {"stride": _INT, "useful_GBps": _POS}}


def _bad(file: str, field: str, want: str, got: object) -> RunError:
    return RunError(f"{file}: field {field!r} must be {want}, got {got!r}")


def _check_value(file: str, field: str, value: object, rule: str | tuple[str, str]) -> None:
    want, optional = (rule[0], True) if isinstance(rule, tuple) else (rule, False)
    if value is None and optional:
        return
    if want == _STR:
        if not isinstance(value, str) or not value:
            raise _bad(file, field, "a non-empty text", value)
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _bad(file, field, want + (" (or null)" if optional else ""), value)
    if want == _INT and (not isinstance(value, int) or value < 1):
        raise _bad(file, field, want, value)
    if want == _POS and value <= 0:
        raise _bad(file, field, want, value)
    if want == _NN and value < 0:
        raise _bad(file, field, want, value)


def _check_record(file: str, where: str, record: object, fields: dict[str, Any]) -> None:
    if not isinstance(record, dict):
        raise RunError(f"{file}: field {where!r} must be an object, got {type(record).__name__}")
    for key, rule in fields.items():
        if key not in record:
            raise RunError(f"{file}: field {where + '.' if where else ''}{key} is missing")
        _check_value(file, f"{where + '.' if where else ''}{key}", record[key], rule)


def _check_rows(file: str, data: dict[str, Any], key: str, fields: dict[str, Any]) -> None:
    rows = data.get(key)
    if not isinstance(rows, list) or not rows:
        raise RunError(f"{file}: field {key!r} must be a non-empty list of measurements, got {rows!r:.60}")
    for i, row in enumerate(rows):
        _check_record(file, f"{key}[{i}]", row, fields)


def validate(path: str | Path) -> dict[str, Any]:
    """Read and check a run folder; return its three files parsed (keys 'run', 'reality_check', 'ladder').

    A missing or unreadable file, a missing field, or a value of the wrong kind (a negative time, a
    fractional batch, a text where a number belongs) is a :class:`RunError` that names the file and
    the field. The course's H200 run passes:

    >>> sorted(validate(DATA_DIR / RUN))
    ['ladder', 'reality_check', 'run']
    """
    if not isinstance(path, (str, Path)):
        raise TypeError(f"path: need the path of a run folder (a str or a Path), got {_check._show(path)}")
    path = Path(path)
    if not path.is_dir():
        raise RunError(f"path: no run folder at {str(path)!r}")
    data: dict[str, Any] = {}
    for name in FILES:
        f = path / f"{name}.json"
        if not f.is_file():
            raise RunError(f"{f.name}: missing from the run folder (path {str(path)!r}): a partial run?")
        try:
            data[name] = json.loads(f.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise RunError(f"{f.name}: not valid JSON ({err}); the run folder {str(path)!r} is damaged") from None
        if not isinstance(data[name], dict):
            raise RunError(f"{f.name}: must hold a JSON object, got {type(data[name]).__name__}")
    meta = data["run"]
    _check_record("run.json", "", meta, _RUN_FIELDS)
    if meta["format"] != FORMAT:
        raise RunError(f"run.json: field 'format' is {meta['format']}; this library reads format {FORMAT}")
    if meta["backend"] not in BACKENDS:
        raise _bad("run.json", "backend", f"one of {', '.join(BACKENDS)}", meta["backend"])
    if meta.get("spec") is not None:
        try:
            hardware.value(meta["spec"], "mem_bw_Bps")
        except (KeyError, ValueError) as err:
            raise RunError(f"run.json: field 'spec' names no device of the registry: {err}") from None
    rc = data["reality_check"]
    for key, fields in _RC_FIELDS.items():
        _check_record("reality_check.json", key, rc.get(key), fields)
    for key, fields in _RC_ROWS.items():
        _check_rows("reality_check.json", rc, key, fields)
    if not any(r["M"] == 1 for r in rc["matmul_roofline"]):
        raise RunError("reality_check.json: field 'matmul_roofline' has no row with M = 1 (the skinny matmul)")
    m = rc["model"]
    if m["heads"] % m["kv_heads"]:
        raise RunError(f"reality_check.json: field model.kv_heads ({m['kv_heads']}) does not divide "
                       f"model.heads ({m['heads']})")
    lad = data["ladder"]
    _check_record("ladder.json", "", lad, _LADDER_FIELDS)
    for key, fields in _LADDER_ROWS.items():
        _check_rows("ladder.json", lad, key, fields)
    _check_consistent(meta, rc)
    return data


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b))


def _check_consistent(meta: dict[str, Any], rc: dict[str, Any]) -> None:
    """Cross-checks: a run whose numbers disagree with each other would load and compute wrong."""
    from . import models
    if DTYPES.get(meta["dtype"]) != meta["dtype_B"]:
        raise RunError(f"run.json: field 'dtype_B' is {meta['dtype_B']} but 'dtype' {meta['dtype']!r} has "
                       f"{DTYPES.get(meta['dtype'], 'an unknown number of')} bytes (known: {', '.join(DTYPES)})")
    if meta["backend"] == "numpy" and meta.get("spec"):
        raise RunError("run.json: field 'spec' names a datasheet, but the numpy backend measured a CPU")
    m = rc["model"]
    shape = {"params": models.decoder_params(m["layers"], m["d"], m["heads"], m["kv_heads"], m["head_dim"],
                                             m["ffn"], m["vocab"]),
             "kv_bytes_per_token": int(models.kv_B_per_token(m["layers"], m["kv_heads"], m["head_dim"],
                                                             meta["dtype_B"]))}
    for key in ("params", "kv_bytes_per_token"):
        if m[key] != shape[key]:
            raise RunError(f"reality_check.json: field model.{key} is {m[key]:,}, but the decoder's shape gives "
                           f"{shape[key]:,} (infra_lib.models at {meta['dtype_B']} bytes per element)")
    seen = set()
    for i, row in enumerate(rc["decode"]):
        point = (row["batch"], row["ctx"])
        if point in seen:
            raise RunError(f"reality_check.json: field decode[{i}] repeats (batch, ctx) = {point}")
        seen.add(point)
        want = models.decode_step_read_B(m["params"], m["vocab"], m["d"], m["kv_bytes_per_token"], row["batch"],
                                         row["ctx"], meta["dtype_B"])
        if not _close(row["bytes_min"], want):
            raise RunError(f"reality_check.json: field decode[{i}].bytes_min is {row['bytes_min']:,}, but the weights "
                           f"and KV cache of that step are {want:,.0f} bytes (models.decode_step_read_B)")
    for key, moved in (("copy", "bytes_moved"), ("read", "bytes_read")):
        r = rc[key]
        if not _close(r["GBps"], r[moved] / r["s_median"] / 1e9):
            raise RunError(f"reality_check.json: field {key}.GBps is {r['GBps']}, but {key}.{moved} / "
                           f"{key}.s_median is {r[moved] / r['s_median'] / 1e9}")
    n_sq = None
    for i, row in enumerate(rc["matmul_roofline"]):
        k, n = row.get("K"), row.get("N")
        if k is None or n is None:                       # the H200 run's rows: a square N x N weight
            n_sq = n_sq or round((next(r for r in rc["matmul_roofline"] if r["M"] == 1)["flops"] / 2) ** 0.5)
            k = n = n_sq
        if not _close(row["flops"], 2.0 * row["M"] * k * n):
            raise RunError(f"reality_check.json: field matmul_roofline[{i}].flops is {row['flops']:,}, but "
                           f"2 M K N is {2 * row['M'] * k * n:,}")
        if not _close(row["TFLOPs"], row["flops"] / row["s_median"] / 1e12):
            raise RunError(f"reality_check.json: field matmul_roofline[{i}].TFLOPs disagrees with flops / s_median")


@_check.finite
def copy_Bps(run: str | Path = RUN) -> float:
    """The run's measured device-to-device copy bandwidth (bytes read + written per second)."""
    return float(load(run)["copy"]["GBps"] * 1e9)


@_check.finite
def copy_efficiency(run: str | Path = RUN) -> float:
    """Measured device-to-device copy bandwidth over the device's datasheet bandwidth (4.8 TB/s
    for the H200); a run without a datasheet entry (:func:`spec`) is an error.

    Used as eta_B in the decode prediction. It is taken from the copy benchmark, not fitted
    to the decode timings it is then compared with.
    """
    return copy_Bps(run) / hardware.value(spec(run), "mem_bw_Bps")


@dataclass(frozen=True)
class DecodeCheck:
    """One measured decode step of the H200 run against the bandwidth model's prediction.

    ``read_B`` is the least the step must read: the weights once plus the KV cache of every
    sequence (the run's ``bytes_min``).
    """
    batch: int
    context: int
    read_B: float
    predicted_s: float
    measured_graph_s: float | None
    measured_eager_s: float

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("read_B", "predicted_s", "measured_eager_s"):
            _check.positive(name, getattr(self, name), "(bytes or seconds)")
        if self.measured_graph_s is not None:
            _check.positive("measured_graph_s", self.measured_graph_s, "seconds")

    @property
    def measured_s(self) -> float:
        """The CUDA-graph timing where the run has one, else the eager one (the CPU backend)."""
        return self.measured_graph_s if self.measured_graph_s is not None else self.measured_eager_s

    @property
    def error(self) -> float:
        """(predicted - measured) / measured, against the CUDA-graph timing where there is one."""
        return (self.predicted_s - self.measured_s) / self.measured_s

    @property
    def achieved_Bps(self) -> float:
        return self.read_B / self.measured_s


@_check.finite
def decode_check(batch: int, context: int = 1000, run: str | Path = RUN) -> DecodeCheck:
    """Predicted vs measured decode step of the run's Llama-shaped decoder (Llama-3-8B on the H200).

    prediction = bytes read (weights + KV of every sequence) / the copy bandwidth, i.e.
    eta_B x 4.8 TB/s with eta_B from :func:`copy_efficiency` on the H200.
    """
    batch = _check.count("batch", batch, "requests")
    context = _check.count("context", context, "tokens")
    rows = load(run)["decode"]
    for row in rows:
        if row["batch"] == batch and row["ctx"] == context:
            bw = copy_Bps(run)
            return DecodeCheck(batch, context, row["bytes_min"], row["bytes_min"] / bw,
                               row["s_graph"], row["s_eager"])
    have = ", ".join(f"(batch={r['batch']}, context={r['ctx']})" for r in rows)
    raise ValueError(f"no decode measurement for batch={batch}, context={context}; measured: {have}")


@_check.finite
def decode_checks(run: str | Path = RUN) -> list[DecodeCheck]:
    """Every configuration of the run's decode sweep, predicted against measured, in the run's order.

    The same prediction as :func:`decode_check` (bytes read / (eta_B x datasheet bandwidth), eta_B
    from the copy benchmark, taken once and not fitted to these timings), for each measured
    (batch, context); the H200 run has batch 1 to 128 at contexts 1,000 to 4,000.

    >>> cs = decode_checks()
    >>> len(cs), min(c.batch for c in cs), max(c.batch for c in cs)
    (7, 1, 128)
    >>> [round(100 * c.error) for c in cs]
    [-31, -30, -32, -27, -23, -24, -30]
    """
    return [decode_check(row["batch"], row["ctx"], run) for row in load(run)["decode"]]


@_check.finite
def worst_error(checks: list[DecodeCheck]) -> DecodeCheck:
    """The check whose prediction is furthest from its measurement (largest |error|)."""
    if not checks:
        raise ValueError("checks: need at least one DecodeCheck")
    return max(checks, key=lambda c: abs(c.error))


@_check.finite
def skinny_matmul_Bps(run: str | Path = RUN) -> float:
    """Effective bandwidth of the 8192x8192 bf16 matmul with one input row (M = 1)."""
    return float(_skinny_row(run)["GBps"] * 1e9)


@_check.finite
def skinny_matmul_n(run: str | Path = RUN) -> int:
    """N of the N x N weight matrix in the matmul benchmark: FLOPs = 2 * M * N * N at M = 1."""
    return round((_skinny_row(run)["flops"] / 2) ** 0.5)


def _skinny_row(run: str | Path) -> Any:
    """The M = 1 row of the run's matmul benchmark; a run without one is an error that says so."""
    for row in load(run)["matmul_roofline"]:
        if row["M"] == 1:
            return row
    raise ValueError(f"measurement run {run!r} has no matmul_roofline row with M = 1")
