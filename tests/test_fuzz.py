"""Nothing breaks quietly: every public function and class of the library, fed bad values.

The functions are found automatically: every public (no leading underscore) function and class
defined in a module of ``infra_lib`` (and the ``summary`` of every widget), so a new chapter's
functions are fuzzed without being listed here. For each one, hypothesis draws calls in which
one parameter (or none) gets a bad value (negative, zero, NaN, infinity, 10**400, a bool, a
string, None, a list, an object of the wrong class) and the others plausible good ones, chosen
from the parameter's default, its NAME (``EXAMPLES``), its type hint, or a library object of
its class. Every call must either return finite numbers (everywhere in a returned dataclass,
list or dict) or raise ValueError/TypeError/KeyError whose message names one of the function's
parameters (a KeyError: the unknown name). A value that can never be right (NaN, infinity, a
bool for a number, None, a list for a scalar, an object of the wrong class) must be refused.

Left out (``SKIP``): the figures (all of ``infra_lib.figures``: slow, matplotlib; tested in
test_figures.py), the widgets' ``explore`` (builds ipywidgets) and ``panel.Panel``, the machine
benchmarks that time this machine, functions that display, glue into a notebook or read a file
given by path (``glue.glue``, ``exercises.glue_all``, ``sources.show``, ``hardware.load``,
``i18n.load_labels``), exception classes. ``MAY_BE_INFINITE`` lists the functions whose
documented answer can be +infinity. The figures of the run (functions, calls, calls with a bad
value, clear errors, obscure crashes, silent NaN/inf, silent accepts, vague errors) are printed
at the end of the session (``pytest_terminal_summary`` in conftest.py), even with -q.
"""
import dataclasses
import importlib
import inspect
import math
import pkgutil
import random
import re
import signal
import types
import typing
from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import infra_lib

SKIP_MODULES = ("infra_lib.figures", "infra_lib._check")
SKIP = {
    # timing this machine: slow and nondeterministic by design
    "infra_lib.machine_bench.time_repeats", "infra_lib.machine_bench.copy_bandwidth",
    "infra_lib.machine_bench.read_bandwidth", "infra_lib.machine_bench.matmul_flop_s",
    "infra_lib.machine_bench.measure",
    # the GPU benchmark: it times this machine (or refuses without CUDA), writes folders, parses argv;
    # tested in tests/test_gpu_bench.py (its pure parts, plan/estimate_s/describe, are fuzzed here)
    "infra_lib.gpu_bench.main", "infra_lib.gpu_bench.measure", "infra_lib.gpu_bench.write",
    "infra_lib.gpu_bench.backend", "infra_lib.gpu_bench.Backend", "infra_lib.gpu_bench.NumpyBackend",
    "infra_lib.gpu_bench.TorchBackend", "infra_lib.gpu_bench.Decoder",
    # notebook side effects (display, glue) and reading arbitrary files
    "infra_lib.glue.glue", "infra_lib.sources.show", "infra_lib.hardware.load",
    "infra_lib.i18n.load_labels",
    # classes that hold a callable or build ipywidgets; tested in their own files
    "infra_lib.exercises.glue_all",
    "infra_lib.widgets.panel.Panel",
}
MAX_EXAMPLES = 20
# Functions whose documented answer may be +infinity (never), with why; NaN is still an error.
MAY_BE_INFINITE = {
    "infra_lib.inference.compute_bound_batch",   # inf: the step never becomes compute-bound
}

# Good example values by parameter NAME (not by function): a new function with the usual
# names gets plausible inputs without an entry here.
EXAMPLES: dict[str, list[object]] = {
    "device": ["h100_sxm5", "h200_sxm"], "die": ["gh100_die"], "key": ["h100_sxm5"],
    "lang": ["en", "zh"], "run": ["h200-2026-11-29"], "model": ["murphy", "poisson"],
    "collective": ["all_reduce", "all_gather", "reduce_scatter"], "prefix": ["Ki", "Mi"],
    "scale": ["e8m0", "e4m3"], "special": ["ieee", "nan_only", "none"], "family": ["hopper"],
    "category": ["device"], "name": ["h100_sxm5"], "kind": ["datasheet"], "unit": ["B"],
    "die_area_mm2": [814.0, 100.0], "die_width_mm": [26.0, 10.0], "die_height_mm": [33.0, 10.0],
    "edge_exclusion_mm": [3.0], "scribe_mm": [0.1], "total_area_mm2": [800.0], "area_mm2": [814.0],
    "d0_per_cm2": [0.1, 0.05], "alpha": [3.0], "wafer_diameter_mm": [300.0],
    "wafer_price_usd": [16988.0], "units_total": [144], "units_needed": [132],
    "unit_area_share": [0.5], "taken_lanes": [8], "warp_size": [32], "p_taken": [0.1, 0.5],
    "exp_bits": [4, 5], "man_bits": [3, 2], "element_bits": [4, 8], "block_size": [16, 32],
    "block_sizes": [[16, 32]], "batch": [1, 8], "context": [1000], "ranks": [8],
    "n_values": [256], "vector_bits": [512], "clock_hz": [1.98e9], "x": [[0.5, -1.25, 3.0]],
    "y": [[0.5, -1.0, 3.0]], "n_params": [8e9], "prompt_tokens": [1000], "kv_B": [1.3e8],
    "hit_times": [[1.0, 10.0]], "miss_rates": [[0.1, 0.2]],
    "remote_fraction": [0.3], "miss_rate": [0.1], "branch_fraction": [0.2],
    "mispredict_rate": [0.05], "packaging_yield": [0.9], "die_yield_fraction": [0.5],
    "encoding_efficiency": [128 / 130], "flop_efficiency": [0.7], "bw_efficiency": [0.8],
    "flop_eff": [0.7], "bw_eff": [0.8], "value": [1.0], "minimum": [0.0], "step": [0.5],
    "seed": [0], "df": [3.0], "n": [256], "max_n": [512], "tied_embeddings": [False],
    "signed": [True, False], "display": [False], "errors": [["bad"]],
    "label": ["gpu_w_bw"], "kind": [float], "default": [1.0], "min": [0.0], "max": [2.0],
    "params": [{"k": 2}], "solve": [lambda k: {"twice": 2 * k}],
    "rows": [(("a", "b"),)], "header": [("h", "i")], "align": ["lr"],
    "rng": [random.Random(0)], "given": [4.77, "4.77 ms"],
}

# Values that can never be right for a number: each must raise.
ALWAYS_BAD_NUMBERS = [math.nan, math.inf, -math.inf, 10**400, True, False, None, "3", [1.0], object()]
# Values a function may accept if its formula allows them, but then its result must be finite.
RANGE_BAD_NUMBERS = [-1, -1.0, 0, 0.0, -0.0, 1e308, -1e308, 5e-324, 1e-300, 10**18, 2**63, 0.5, 1e6]
ALWAYS_BAD_OTHER = [math.nan, 10**400, None, 3, True, [1, 2], object(), 1.5]


class Wrong:
    """An object of a class no library function expects."""


def _discover() -> list[tuple[str, Callable[..., object]]]:
    found = []
    for info in pkgutil.walk_packages(infra_lib.__path__, "infra_lib."):
        if info.name.startswith(SKIP_MODULES):
            continue
        module = importlib.import_module(info.name)
        widget = info.name.startswith("infra_lib.widgets.") and info.name != "infra_lib.widgets.panel"
        for attr, obj in sorted(vars(module).items()):
            if attr.startswith("_") or not callable(obj) or getattr(obj, "__module__", None) != info.name:
                continue
            if widget and attr != "summary":
                continue
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                continue
            qual = f"{info.name}.{attr}"
            if qual not in SKIP:
                found.append((qual, obj))
    return found


FUNCTIONS = _discover()


def _hints(fn: Callable[..., object]) -> dict[str, object]:
    target = fn.__init__ if inspect.isclass(fn) and not dataclasses.is_dataclass(fn) else fn  # type: ignore[misc]
    try:
        return typing.get_type_hints(target)
    except Exception:
        return {}


def _classes(hint: object) -> list[type]:
    """The library classes a type hint names (``Product``, ``SMLimits | None``...)."""
    if isinstance(hint, type) and hint.__module__.startswith("infra_lib"):
        return [hint]
    return [c for a in typing.get_args(hint) for c in _classes(a)]


def _kinds(hint: object) -> set[str]:
    """'float', 'int', 'str', 'bool', 'none', 'seq', 'array', 'obj', 'any' of a type hint."""
    if hint is None or hint is type(None):
        return {"none"}
    if hint in (float, int):
        return {"number"}
    if hint is str:
        return {"str"}
    if hint is bool:
        return {"bool"}
    if hint is typing.Any or hint is object:
        return {"any"}
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_kinds(a) for a in typing.get_args(hint)))
    if origin in (list, tuple, typing.Sequence, typing.Iterable) or origin is not None and getattr(
            origin, "__name__", "") in ("Sequence", "Iterable", "Mapping"):
        return {"seq"}
    if "ArrayLike" in str(hint) or "_Buffer" in str(hint):
        return {"array"}
    if _classes(hint):
        return {"obj"}
    return {"any"}


def _library_instances() -> dict[type, list[object]]:
    """One or more objects of each library class, from the library's own zero-argument
    functions (``supply.teaching_products()``, ``interconnect.dgx_h100_ladder()``...)."""
    out: dict[type, list[object]] = {}

    def add(obj: object) -> None:
        if isinstance(obj, (list, tuple)):
            for o in obj[:2]:
                add(o)
        elif type(obj).__module__.startswith("infra_lib"):
            out.setdefault(type(obj), []).append(obj)

    for qual, fn in FUNCTIONS:
        if inspect.isclass(fn):
            continue
        try:
            params = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            continue
        if all(p.default is not p.empty or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in params):
            try:
                add(fn())
            except Exception:
                pass
    from infra_lib import formats
    for info in pkgutil.walk_packages(infra_lib.__path__, "infra_lib."):   # module constants:
        if not info.name.startswith(SKIP_MODULES):                       # LLAMA3_8B, PANEL...
            for attr, obj in vars(importlib.import_module(info.name)).items():
                if not attr.startswith("_"):
                    add(obj)
    for obj in SEEDS:
        add(obj)
    for objs in list(out.values()):            # the records inside records: a Spec's Source...
        for obj in objs[:1]:
            if dataclasses.is_dataclass(obj):
                for f in dataclasses.fields(obj):
                    add(getattr(obj, f.name))
    return out


def _seeds() -> list[object]:
    """Objects of classes no zero-argument function or module constant gives."""
    from infra_lib import autoscale, exercises, hardware, ops
    from infra_lib.widgets import panel
    param = exercises.Param(3, "GPUs", low=1, high=9, integer=True)
    sms = hardware.spec("h100_sxm5", "sm_count")
    return [exercises.Answer(4.77, "ms"), exercises.Answer("memory"), param,
            exercises.Exercise("fuzz_ex", {"k": param}, lambda k: {"twice": exercises.Answer(2 * k)}),
            exercises.Scenario(context=1000, batch=64), ops.Op(2.0e9, 8.0e9),
            panel.Result(rows=(("batch", "8"),)),
            hardware.Finding("fuzz", sms, 132.0, (sms,), "sm_count", 0.0, 0.05, False),
            autoscale.hpa_stabilize([2, 5, 2, 2], 15.0, 30.0)]


SEEDS = _seeds()
INSTANCES = _library_instances()

# Methods left out: they display, glue into a notebook or build ipywidgets.
SKIP_METHODS = {"Exercise.glue", "Panel.explore", "Panel.widget"}


def _discover_methods() -> list[tuple[str, Callable[..., object]]]:
    """Every public method defined by a library class, bound to an object of the class: a new
    method is fuzzed without being listed (a class with no object in INSTANCES is reported by
    test_every_method_class_has_an_object)."""
    found = []
    for cls, objs in sorted(INSTANCES.items(), key=lambda kv: f"{kv[0].__module__}.{kv[0].__qualname__}"):
        for attr, member in sorted(vars(cls).items()):
            if attr.startswith("_") or not inspect.isfunction(member):
                continue
            if f"{cls.__name__}.{attr}" in SKIP_METHODS:
                continue
            found.append((f"{cls.__module__}.{cls.__qualname__}.{attr}", getattr(objs[0], attr)))
    return found


METHODS = _discover_methods()


def _good(name: str, param: inspect.Parameter, hint: object) -> st.SearchStrategy[object]:
    options: list[object] = []
    if param.default is not param.empty and param.default is not None:
        options.append(param.default)
    options.extend(EXAMPLES.get(name, []))
    kinds = _kinds(hint)
    for cls in _classes(hint):
        if "seq" in kinds:                       # a sequence of library objects: a list of them
            options.append(list(INSTANCES.get(cls, [])))
        else:
            options.extend(INSTANCES.get(cls, []))
    if options:
        return st.sampled_from(options)
    if "number" in kinds:
        if hint is int or name.endswith(("_bits", "count", "s_per")):
            return st.integers(1, 64)
        return st.one_of(st.integers(1, 64), st.floats(0.01, 1e4))
    if "str" in kinds:
        return st.sampled_from(["en", "h100_sxm5"])
    if "bool" in kinds:
        return st.booleans()
    if "array" in kinds or "seq" in kinds:
        return st.just([1.0, 2.0])
    return st.just(1.0)


def _bad(hint: object, param: inspect.Parameter) -> st.SearchStrategy[tuple[object, bool]]:
    """(value, always_bad): always_bad values must be refused."""
    kinds = _kinds(hint)
    if "any" in kinds or not kinds:
        return st.sampled_from([(v, False) for v in RANGE_BAD_NUMBERS + ["", "x", math.nan, 10**400]])
    accepts_none = "none" in kinds or param.default is None
    bad: list[tuple[object, bool]] = []
    if "number" in kinds:
        bad += [(v, not (v is None and accepts_none)) for v in ALWAYS_BAD_NUMBERS]
        bad += [(v, False) for v in RANGE_BAD_NUMBERS]
        bad += [(Wrong(), True)]
    elif "array" in kinds:
        bad += [([1.0, math.nan], True), ([math.inf], True), (None, True), ("abc", True),
                ([[1.0], [2.0, 3.0]], True), (True, True), (Wrong(), True), ([], False),
                (-1.0, False), (1e308, False), ([1e308, -1e308], False), (0.0, False)]
    else:
        for v in ALWAYS_BAD_OTHER + [Wrong()]:
            ok = (v is None and accepts_none) or ("bool" in kinds and isinstance(v, bool)) or (
                "seq" in kinds and isinstance(v, list)) or ("number" in kinds and isinstance(v, (int, float))
                                                           and not isinstance(v, bool))
            bad.append((v, not ok))
        if "str" in kinds:
            bad += [("", False), ("no_such_name", False), ("H100", False)]
        if "seq" in kinds:
            bad += [([], False), ([math.nan], True), ([-1.0, 2.0], False), ([None], True), ("ab", False)]
        for cls in _classes(hint):
            for other_cls, objs in INSTANCES.items():
                if other_cls is not cls and not issubclass(other_cls, cls):
                    bad.append((objs[0], True))
                    break
    return st.sampled_from(bad)


def _numbers(value: object, path: str = "result") -> list[tuple[str, float]]:
    """Every number inside a result, with where it is."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return []
    if isinstance(value, (int, float, np.floating, np.integer)):
        try:
            return [(path, float(value))]
        except OverflowError:               # an integer beyond any float
            return [(path, math.inf)]
    if isinstance(value, np.ndarray):
        return [(path, float(v)) for v in np.asarray(value, dtype=float).ravel()]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = [(f"{path}.{f.name}", v) for f in dataclasses.fields(value)
               for (_, v) in [(0, getattr(value, f.name))]]
        nums = [n for (p, v) in out for n in _numbers(v, p)]
        for attr, prop in inspect.getmembers(type(value), lambda m: isinstance(m, property)):
            try:
                nums += _numbers(getattr(value, attr), f"{path}.{attr}")
            except (ValueError, TypeError):      # a clear error, raised when the value is asked for
                pass
            except Exception as err:       # a property of an object that should have been refused
                nums.append((f"{path}.{attr} raised {type(err).__name__}", math.nan))
        return nums
    if isinstance(value, dict):
        return [n for k, v in value.items() for n in _numbers(v, f"{path}[{k!r}]")]
    if isinstance(value, (list, tuple)):
        return [n for i, v in enumerate(value) for n in _numbers(v, f"{path}[{i}]")]
    return []


FIGURES: Counter[str] = Counter()
PROBLEMS: dict[str, list[str]] = {}


def _names_a_parameter(message: str, names: list[str]) -> bool:
    return any(re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])", message) for n in names)


class TooSlow(Exception):
    """A call that ran past CALL_LIMIT_S: a loop sized by an input nobody bounded."""


CALL_LIMIT_S = 15


def _alarm(signum: int, frame: object) -> None:
    raise TooSlow(f"took more than {CALL_LIMIT_S} s")


def _classify(fn: Callable[..., object], kwargs: dict[str, object], bad: str | None,
              always_bad: bool, names: list[str]) -> tuple[str, str]:
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CALL_LIMIT_S)
    try:
        result = fn(**kwargs)
    except TooSlow as err:
        return "obscure", f"TooSlow: {err}"
    except KeyError as err:
        return ("clear", "") if str(err).strip("'\" ") else ("vague", f"empty KeyError")
    except (ValueError, TypeError) as err:
        if _names_a_parameter(str(err), names):
            return "clear", ""
        return "vague", f"{type(err).__name__}: {err}"
    except Exception as err:            # OverflowError, ZeroDivisionError, AttributeError...
        return "obscure", f"{type(err).__name__}: {err}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    for where, v in _numbers(result):
        if v == math.inf and f"{fn.__module__}.{fn.__name__}" in MAY_BE_INFINITE:
            continue
        if not math.isfinite(v):
            return "nan_inf", f"{where} = {v}"
    if always_bad:
        return "accepted", f"{bad}={kwargs[bad]!r} accepted" if bad else "accepted"
    return "ok", ""


@pytest.mark.parametrize("qual, fn", FUNCTIONS + METHODS,
                         ids=[q.removeprefix("infra_lib.") for q, _ in FUNCTIONS + METHODS])
def test_bad_values_give_clear_errors(qual, fn):
    sig = inspect.signature(fn)
    hints = _hints(fn)
    params = [p for p in sig.parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and not p.name.startswith("_")]
    names = [p.name for p in params]
    # a widget's summary may name a control by an alias (the library's name for it)
    for control in getattr(inspect.getmodule(fn), "CONTROLS", ()):
        names += list(getattr(control, "aliases", ()))
    problems: list[str] = []

    @settings(max_examples=MAX_EXAMPLES, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        kwargs = {p.name: data.draw(_good(p.name, p, hints.get(p.name)), label=p.name) for p in params}
        which = data.draw(st.sampled_from([None] + [p.name for p in params])) if params else None
        always_bad = False
        if which is not None:
            p = sig.parameters[which]
            kwargs[which], always_bad = data.draw(_bad(hints.get(which), p), label=f"bad {which}")
        outcome, detail = _classify(fn, kwargs, which, always_bad, names)
        FIGURES["calls"] += 1
        if which is not None:
            FIGURES["bad inputs"] += 1
        FIGURES[outcome] += 1
        if outcome in ("obscure", "nan_inf", "accepted", "vague") and len(problems) < 5:
            shown = ", ".join(f"{k}={v!r}"[:60] for k, v in kwargs.items())
            problems.append(f"{outcome}: {qual.removeprefix('infra_lib.')}({shown}) -> {detail}"[:400])

    run()
    FIGURES["methods" if inspect.ismethod(fn) else "functions"] += 1
    if problems:
        PROBLEMS[qual] = problems
    assert not problems, "\n".join(problems)


def _number_leaves(hint: object) -> list[object]:
    if hint in (int, float):
        return [hint]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return [h for a in typing.get_args(hint) for h in _number_leaves(a)]
    return []


RECORDS = sorted(((f"{c.__module__}.{c.__qualname__}", c) for c in INSTANCES
                  if dataclasses.is_dataclass(c) and c.__module__.startswith("infra_lib")), key=lambda qc: qc[0])
# every field that is a number gets these; the first group must be refused
RECORD_ALWAYS_BAD = [math.nan, math.inf, 10**400, True]
RECORD_RANGE_BAD = [-1, 0, 2.5, 1e308, 5e-324]


def _properties(obj: object) -> list[str]:
    return [a for a, m in inspect.getmembers(type(obj), lambda m: isinstance(m, property)) if not a.startswith("_")]


@pytest.mark.parametrize("qual, cls", RECORDS, ids=[q.removeprefix("infra_lib.") for q, _ in RECORDS])
def test_records_refuse_impossible_fields_and_their_properties_stay_finite(qual, cls):
    """A record built from a real one with one number field replaced: a NaN, an infinity, 10**400
    or a bool is refused, and so is a fraction for an ``int`` field; any other value either is
    refused by name or gives properties that are finite or raise a clear error."""
    base = INSTANCES[cls][0]
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    problems: list[str] = []

    def record(outcome: str, detail: str) -> None:
        FIGURES["record calls"] += 1
        FIGURES[outcome] += 1
        if outcome in ("obscure", "nan_inf", "accepted", "vague") and len(problems) < 5:
            problems.append(f"{outcome}: {qual.removeprefix('infra_lib.')}: {detail}"[:400])

    def read(obj: object, what: str) -> None:
        for attr in _properties(obj):
            try:
                value = getattr(obj, attr)
            except (ValueError, TypeError) as err:
                record("clear" if _names_a_parameter(str(err), names + [attr]) else "vague",
                       f"{what}.{attr}: {type(err).__name__}: {err}")
                continue
            except Exception as err:
                record("obscure", f"{what}.{attr} raised {type(err).__name__}: {err}")
                continue
            bad = [(p, v) for p, v in _numbers(value, f"{what}.{attr}") if not math.isfinite(v)]
            record("nan_inf", f"{bad[0][0]} = {bad[0][1]}") if bad else record("ok", "")

    read(base, "good")
    for f in dataclasses.fields(cls):
        leaves = _number_leaves(hints.get(f.name))
        if not f.init or not leaves or isinstance(getattr(base, f.name), bool):
            continue
        for v in RECORD_ALWAYS_BAD + RECORD_RANGE_BAD:
            always = v is True or (isinstance(v, float) and not math.isfinite(v)) or (
                isinstance(v, int) and v > 2**1024) or (v == 2.5 and leaves == [int])
            try:
                obj = dataclasses.replace(base, **{f.name: v})
            except (ValueError, TypeError, KeyError) as err:
                record("clear" if _names_a_parameter(str(err), names) else "vague",
                       f"{f.name}={v!r}: {type(err).__name__}: {err}")
                continue
            except Exception as err:
                record("obscure", f"{f.name}={v!r} raised {type(err).__name__}: {err}")
                continue
            if always:
                record("accepted", f"{f.name}={v!r} accepted")
                continue
            read(obj, f"{f.name}={v!r}")
    FIGURES["records"] += 1
    if problems:
        PROBLEMS[qual] = problems
    assert not problems, "\n".join(problems)


def test_every_method_class_has_an_object():
    """Each library class with public methods has an object the fuzz can bind them to (else
    its methods would go unfuzzed without a word): add a SEEDS entry or a module constant."""
    missing = []
    for qual, obj in FUNCTIONS:
        if inspect.isclass(obj) and obj not in INSTANCES and any(
                not a.startswith("_") and inspect.isfunction(m) for a, m in vars(obj).items()):
            missing.append(qual)
    assert not missing, f"no object to bind the methods of: {missing}"


def summary_lines() -> list[str]:
    """The figures of this session, for the terminal summary (conftest.py)."""
    if not (FIGURES["functions"] or FIGURES["methods"] or FIGURES["records"]):
        return []
    f = FIGURES
    return [f"fuzz: {f['functions']} functions, {f['methods']} methods, {f['records']} records; "
            f"{f['calls']} calls ({f['bad inputs']} with a bad value), {f['record calls']} record fields "
            f"and properties: "
            f"{f['clear']} clear errors, {f['obscure']} obscure crashes, {f['nan_inf']} silent NaN/inf, "
            f"{f['accepted']} silent accepts, {f['vague']} vague errors, {f['ok']} fine results"]


def pytest_sessionfinish_report(path: str) -> None:  # pragma: no cover - a debugging aid
    with open(path, "w", encoding="utf-8") as out:
        for qual, problems in sorted(PROBLEMS.items()):
            out.write(qual + "\n" + "".join(f"    {p}\n" for p in problems))


# ---- the cases the issue named, kept as regressions ------------------------------------------

from infra_lib import _check, fab, fmt, formats, gpu, measurements, supply  # noqa: E402


def test_salvage_yield_survives_thousands_of_units():
    # binomial terms C(2000, j) p^j (1-p)^(2000-j) overflow a float; the sum in log space does not
    y = fab.salvage_yield(814, 0.1, 2000, 1000, 0.5)
    assert y == pytest.approx(fab.salvage_yield(814, 0.1, 144, 132, 0.5), rel=1e-6)
    assert 0 < fab.salvage_yield(814, 0.1, 100_000, 99_000, 0.5) <= 1


def test_no_good_die_is_a_clear_error():
    with pytest.raises(ValueError, match="no good die.*d0_per_cm2"):
        fab.cost_per_good_die_usd(17000, 814, 95, "poisson")
    with pytest.raises(ValueError, match="no good die"):
        fab.wafer(814, 95, 17000, "poisson")


def test_sci_refuses_zero_digits_and_handles_subnormals():
    with pytest.raises(ValueError, match="digits"):
        fmt.sci(123.0, 0)
    assert fmt.sci(5e-324) == "4.9 × 10⁻³²⁴"
    assert fmt.sci(3.2e13) == "3.2 × 10¹³"


def test_minifloat_beyond_float64_is_refused():
    with pytest.raises(ValueError, match="exp_bits ?= ?12"):      # its own check, or the record's max_normal
        formats.MiniFloat("E12M3", 12, 3, "ieee")
    with pytest.raises(ValueError, match="exp_bits ?= ?11"):
        formats.MiniFloat("E11M2", 11, 2, "none")
    assert math.isfinite(formats.MiniFloat("E11M4", 11, 4, "ieee").max_normal)   # FP64's exponent


@pytest.mark.parametrize("p", [1e-17, 1e-12, 1e-9, 1e-300])
def test_branch_efficiency_for_tiny_probabilities(p):
    eff = gpu.expected_branch_efficiency(p, 100)
    assert eff == pytest.approx(1 / 32, rel=1e-6)
    assert 0 < gpu.expected_branch_efficiency(p, 100, 0, 1) <= 1


def test_measurement_runs_are_checked():
    with pytest.raises(TypeError, match="run must be a string"):
        measurements.copy_efficiency(run=None)   # type: ignore[arg-type]
    with pytest.raises(KeyError, match="did you mean"):
        measurements.decode_check(1, run="h200-2026-11-28")


def test_check_helpers_name_the_parameter():
    with pytest.raises(ValueError, match="area_mm2 .*too large for a float"):
        _check.positive("area_mm2", 10**400, "mm²")
    with pytest.raises(TypeError, match="flag must be True or False"):
        _check.flag("flag", 1)
    with pytest.raises(TypeError, match="supply must be a Supply"):
        _check.instance("supply", supply.teaching_products()[0], supply.Supply)
    with pytest.raises(KeyError, match="did you mean murphy"):
        _check.lookup("model", "murphi", {"murphy": 1, "poisson": 2}, "yield model")
    with pytest.raises(ValueError, match="did you mean poisson"):
        _check.choice("model", "poison", fab.MODELS)
    with pytest.raises(ValueError, match="ratio is not a finite number"):
        _check.finite_result("ratio", [1.0, math.inf])
    with pytest.raises(ValueError, match=r"gross_dies_per_wafer\(die_area_mm2=5e-324"):
        fab.gross_dies_per_wafer(5e-324)      # 70,686 mm² / 5e-324 mm² overflows to infinity


def test_booleans_are_not_numbers():
    with pytest.raises(TypeError, match="die_area_mm2"):
        fab.gross_dies_per_wafer(True)
    with pytest.raises(TypeError, match="signed must be True or False"):
        formats.MiniFloat("x", 4, 3, "nan_only", signed=1)   # type: ignore[arg-type]


def test_fuzz_figures():
    """Print the figures of the fuzz run so far (the terminal summary prints them too)."""
    for line in summary_lines():
        print(line)
