"""Multi-Instance GPU (MIG) on an H100 80 GB: the profiles and a packing checker.

An H100 in MIG mode is cut into 8 memory slices and 7 compute slices. A GPU instance takes a
profile ``<c>g.<m>gb``: c compute slices and a fixed run of memory slices, and it may only start
at certain memory-slice positions. The profile table (fractions of memory and SMs, instances)
is the MIG User Guide's Table 7 "GPU Instance Profiles on H100" (r580, "Supported MIG
Profiles"); the start positions are what ``nvidia-smi mig -lgipp`` prints for an H100 in the
guide's "Getting Started" section:

    1g.10gb, 1g.10gb+me  {0,1,2,3,4,5,6}:1
    1g.20gb              {0,2,4,6}:2
    2g.20gb              {0,2,4}:2
    3g.40gb              {0,4}:4
    4g.40gb              {0}:4
    7g.80gb              {0}:8

A layout is valid when every instance starts at an allowed position, no two instances share a
memory slice, no profile exceeds its instance limit (only one ``+me`` instance) and the compute
slices add up to at most 7. :func:`check` names the first rule a layout breaks.

>>> check([("3g.40gb", 0), ("3g.40gb", 4)]).ok
True
>>> check([("4g.40gb", 0), ("3g.40gb", 0)]).reason
'overlap'
"""
from collections.abc import Sequence
from dataclasses import dataclass

from . import _check

MEMORY_SLICES = 8       # memory slices of an H100 (the placement axis of -lgipp)
COMPUTE_SLICES = 7      # compute slices (1/7 of the SMs each)
GPU_MEMORY_GB = 80      # the H100 80 GB this table describes


@dataclass(frozen=True)
class Profile:
    """One GPU instance profile: compute and memory slices, instance limit, allowed starts."""
    name: str
    compute_slices: int
    memory_slices: int
    max_instances: int
    starts: tuple[int, ...]

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("compute_slices", "memory_slices", "max_instances"):
            _check.count(name, getattr(self, name), "slices or instances")
        if self.compute_slices > COMPUTE_SLICES or self.memory_slices > MEMORY_SLICES:
            raise ValueError(f"compute_slices (at most {COMPUTE_SLICES}) or memory_slices (at most "
                             f"{MEMORY_SLICES}) too large: {self.compute_slices}, {self.memory_slices}")
        for s in self.starts:
            if _check.count("starts", s, "memory slices", minimum=0) + self.memory_slices > MEMORY_SLICES:
                raise ValueError(f"starts: {s} + {self.memory_slices} memory slices runs past slice {MEMORY_SLICES}")

    @property
    def memory_GB(self) -> float:
        """Nominal memory: its share of the 8 slices of 80 GB (the number in the profile's name)."""
        return GPU_MEMORY_GB * self.memory_slices / MEMORY_SLICES


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("1g.10gb", 1, 1, 7, (0, 1, 2, 3, 4, 5, 6)),
    Profile("1g.10gb+me", 1, 1, 1, (0, 1, 2, 3, 4, 5, 6)),
    Profile("1g.20gb", 1, 2, 4, (0, 2, 4, 6)),
    Profile("2g.20gb", 2, 2, 3, (0, 2, 4)),
    Profile("3g.40gb", 3, 4, 2, (0, 4)),
    Profile("4g.40gb", 4, 4, 1, (0,)),
    Profile("7g.80gb", 7, 8, 1, (0,)),
)}


def profile(name: str) -> Profile:
    """The H100 80 GB profile called ``name`` (a KeyError suggesting the nearest otherwise).

    >>> profile("2g.20gb").memory_GB
    20.0
    """
    return _check.lookup("name", name, PROFILES, "MIG profile")


@dataclass(frozen=True)
class Layout:
    """The verdict on a set of (profile, start) instances on one GPU.

    ``reason`` is "ok" or the first broken rule: "bad_start", "overlap", "too_many" or
    "compute"; ``culprit`` is the index of the instance that broke it (-1 when ok).
    ``slices`` maps each memory slice to the index of the instance holding it (-1: free).
    """
    _signed = ("culprit", "slices")            # -1: none
    ok: bool
    reason: str
    culprit: int
    slices: tuple[int, ...]
    compute_used: int
    memory_used: int

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def memory_free_GB(self) -> float:
        return GPU_MEMORY_GB * (MEMORY_SLICES - self.memory_used) / MEMORY_SLICES

    @property
    def compute_free(self) -> int:
        return COMPUTE_SLICES - self.compute_used


def _parse(instances: Sequence[tuple[str, int]]) -> list[tuple[Profile, int]]:
    if isinstance(instances, (str, bytes)) or not isinstance(instances, Sequence):
        raise TypeError(f"instances must be a list of (profile, start) pairs, got {type(instances).__name__}")
    out = []
    for i, item in enumerate(instances):
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError(f"instances[{i}] must be a (profile, start) pair, got {item!r}")
        out.append((profile(item[0]), _check.count(f"instances[{i}] start", item[1], "memory slices", minimum=0)))
    return out


def check(instances: Sequence[tuple[str, int]]) -> Layout:
    """Check a MIG layout on one H100 80 GB against the guide's placement rules.

    Rules, in the order they are checked for each instance: its start is one of the profile's
    positions; its memory slices [start, start + m) are free; its profile is below its instance
    limit; then the compute slices of all instances add up to at most 7.

    >>> check([("1g.10gb", i) for i in range(7)]).memory_free_GB     # 7 x 1g leaves slice 7 idle
    10.0
    >>> check([("2g.20gb", 1)]).reason                               # 2g starts at 0, 2 or 4
    'bad_start'
    >>> check([("1g.10gb+me", 0), ("1g.10gb+me", 1)]).reason
    'too_many'
    """
    parsed = _parse(instances)
    slices = [-1] * MEMORY_SLICES
    counts: dict[str, int] = {}
    compute = memory = 0
    for i, (p, start) in enumerate(parsed):
        reason = ""
        span = range(start, start + p.memory_slices)
        if start not in p.starts:
            reason = "bad_start"
        elif any(slices[s] != -1 for s in span):
            reason = "overlap"
        elif counts.get(p.name, 0) + 1 > p.max_instances:
            reason = "too_many"
        if reason:
            return Layout(False, reason, i, tuple(slices), compute, memory)
        for s in span:
            slices[s] = i
        counts[p.name] = counts.get(p.name, 0) + 1
        compute += p.compute_slices
        memory += p.memory_slices
        if compute > COMPUTE_SLICES:
            return Layout(False, "compute", i, tuple(slices), compute, memory)
    return Layout(True, "ok", -1, tuple(slices), compute, memory)


def pack(names: Sequence[str]) -> Layout:
    """Place the profiles ``names`` on one GPU if any placement of them is valid.

    A depth-first search over the allowed starts, largest profiles first (at most 8 instances of
    at most 7 starts each, so it is small). Returns the valid layout of :func:`check`, positions
    in the order of ``names``; when none exists, a layout that is not ok, whose ``reason`` and
    ``culprit`` (an index into ``names``) are those of the search's deepest dead end.

    >>> pack(["1g.10gb", "4g.40gb", "2g.20gb"]).slices
    (1, 1, 1, 1, 2, 2, 0, -1)
    >>> pack(["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"]).slices    # the 3g must take the upper half
    (1, 1, 2, 3, 0, 0, 0, 0)
    >>> pack(["3g.40gb", "3g.40gb", "1g.10gb"]).reason                # both halves are taken
    'overlap'
    """
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
        raise TypeError(f"names must be a list of profile names, got {type(names).__name__}")
    for i, n in enumerate(names):
        if not isinstance(n, str):
            raise TypeError(f"names[{i}] must be a profile name such as '1g.10gb', got {n!r}")
    profs = [profile(n) for n in names]
    if len(profs) > MEMORY_SLICES:
        raise ValueError(f"names: at most {MEMORY_SLICES} instances fit on one GPU, got {len(profs)}")
    order = sorted(range(len(profs)), key=lambda i: (-profs[i].memory_slices, -profs[i].compute_slices, i))
    deepest: list[tuple[int, Layout]] = []

    def search(depth: int, starts: dict[int, int]) -> dict[int, int] | None:
        if depth == len(order):
            return starts
        i = order[depth]
        placed = [(names[j], starts[j]) for j in order[:depth]]
        for s in profs[i].starts:
            v = check([*placed, (names[i], s)])
            if v.ok:
                found = search(depth + 1, {**starts, i: s})
                if found is not None:
                    return found
            elif not deepest or depth >= deepest[0][0]:
                deepest[:] = [(depth, Layout(False, v.reason, i, v.slices, v.compute_used, v.memory_used))]
        return None

    found = search(0, {})
    if found is None:
        return deepest[0][1]
    return check([(names[i], found[i]) for i in range(len(names))])
