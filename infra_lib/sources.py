"""A page's Sources section, generated from what the page read: registry documents and measurements.

A chapter calls :func:`reset` in its first code cell and :func:`show` in its last: every spec it
read through :mod:`infra_lib.hardware` since then is listed under the document it comes from,
with the table, section or page of each value, documents behind vendor and standards values
first, then third-party reports, then measurements (with the measurement runs the page loaded
from ``data/measurements/``), then the course's own teaching assumptions. Literature cited in
the prose is not here: it is in ``book/references.bib``, cited with ``{cite}`` and listed by
the page's ``{bibliography}`` directive.

>>> from infra_lib import hardware
>>> reset(); _ = hardware.value("h100_sxm5", "mem_bw_Bps"); _ = hardware.value("h100_sxm5", "sm_count")
>>> [(u.source.key, len(u.wheres), u.group) for u in documents()]
[('h100_wp_v104', 2, 'sources_documents')]
>>> print(markdown("en").splitlines()[1][:80])
- [NVIDIA H100 Tensor Core GPU Architecture whitepaper, V1.04](https://resources
"""
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import _check, hardware, measurements
from .i18n import t

# The order of the groups: the kinds of the specs a document backs.
GROUPS = (("sources_documents", ("datasheet", "derived")), ("sources_reported", ("reported",)),
          ("sources_measured", ("measured",)), ("sources_teaching", ("teaching",)))


@dataclass(frozen=True)
class SourceUse:
    """One registry document and what the page took from it."""
    source: hardware.Source
    wheres: tuple[str, ...]         # table, section or page of each value read, first use first
    kinds: tuple[str, ...]          # the kinds of those values
    specs: tuple[str, ...]          # "device.spec" of each value read
    wheres_zh: tuple[str, ...] = ()  # ``wheres`` for the Chinese edition (a spec's where_zh, else its where)

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def group(self) -> str:
        """The label key of the group it is listed in (the first of :data:`GROUPS` its kinds meet)."""
        for label, kinds in GROUPS:
            if any(k in kinds for k in self.kinds):
                return label
        raise ValueError(f"source {self.source.key}: no group for kinds {self.kinds}")


def reset() -> None:
    """Start a page: forget the specs and measurement files read before (call it in the first cell)."""
    hardware.reset_usage()
    measurements.reset_usage()


@_check.finite
def documents(specs: Sequence[hardware.Spec] | None = None) -> list[SourceUse]:
    """The registry documents behind ``specs`` (default: :func:`hardware.used_specs`), grouped
    by document in the order of :data:`GROUPS`, then of first use."""
    specs = hardware.used_specs() if specs is None else list(specs)
    by_source: dict[str, list[hardware.Spec]] = {}
    for s in specs:
        by_source.setdefault(s.source.key, []).append(s)
    uses = []
    for group in by_source.values():
        pairs = dict.fromkeys((s.where, s.where_zh or s.where) for s in group)
        uses.append(SourceUse(source=group[0].source,
                              wheres=tuple(dict.fromkeys(en for en, _ in pairs)),
                              kinds=tuple(dict.fromkeys(s.kind for s in group)),
                              specs=tuple(f"{s.device}.{s.name}" for s in group),
                              wheres_zh=tuple(dict.fromkeys(zh for _, zh in pairs))))
    order = [label for label, _ in GROUPS]
    return sorted(uses, key=lambda u: order.index(u.group))      # stable: first use within a group


def measurement_runs() -> list[str]:
    """The measurement runs (folders of ``data/measurements/``) this page loaded since :func:`reset`.

    :func:`measurements.load` records each run it reads; every chapter reads the course's one
    run, :data:`measurements.RUN`.
    """
    return measurements.used_runs()


def _md(text: str) -> str:
    """Escape what Markdown (MyST) would read as markup in a title or a location."""
    return re.sub(r"([\\`*_\[\]<>{}|])", r"\\\1", text)


OWN_PUBLISHER = "this course"      # the publisher of the course's own documents (assumptions, measurements)


def _date(date: str, lang: str) -> str:
    """A source's date as the page's language writes it: "accessed 2026" is "2026 年查阅" in Chinese,
    "2025-08-22, updated 2025-09-24" is "2025-08-22，2025-09-24 更新"."""
    when = date.removeprefix("accessed ")
    if lang != "en" and when != date and re.fullmatch(r"\d{4}", when):
        return t("sources_accessed", lang, when=when)
    updated = re.fullmatch(r"(.+), updated (.+)", date)
    if lang != "en" and updated:        # "2025-08-22, updated 2025-09-24"
        return t("sources_updated", lang, date=updated.group(1), updated=updated.group(2))
    return date


def _line(use: SourceUse, lang: str = "en") -> str:
    s = use.source
    own = s.publisher == OWN_PUBLISHER
    name = s.title_zh if lang == "zh" and s.title_zh else s.title
    title = f"[{_md(name)}]({s.url})" if s.url else _md(name)
    if own:
        who = ""       # the title says whose it is ("This course, chapter 1 ...")
    else:
        who = f"{_md(s.publisher)}, " if s.publisher and s.publisher.lower() not in s.title.lower() else ""
    wheres = [_md(w) for w in ((use.wheres_zh or use.wheres) if lang == "zh" else use.wheres)]
    if lang == "zh":       # Chinese punctuation around what may be English quotations
        return f"- {who}{title}（{_md(_date(s.date, lang))}）：{'；'.join(wheres)}。"
    return f"- {who}{title} ({_md(_date(s.date, lang))}): {'; '.join(wheres)}."


def _run_line(run: str, lang: str) -> str:
    folder = measurements.DATA_DIR / run
    readme = folder / "README.md"
    title = run
    if lang != "en":
        title = t("sources_run_title", lang, run=run)          # the README's title is in English
    elif readme.exists():
        first = readme.read_text(encoding="utf-8").splitlines()[0]
        title = first.lstrip("# ").strip() or run
    path = Path("infra_lib") / "data" / "measurements" / run
    return "- " + t("sources_run", lang, title=_md(title), path=path.as_posix())


@_check.finite
def markdown(lang: str, specs: Sequence[hardware.Spec] | None = None,
             runs: Sequence[str] | None = None) -> str:
    """The generated part of a Sources section, as Markdown in the page's language: one bold
    heading per group (:data:`GROUPS`) and one line per document, then the measurement runs."""
    uses = documents(specs)
    runs = measurement_runs() if runs is None else list(runs)
    out: list[str] = []
    for label, _ in GROUPS:
        lines = [_line(u, lang) for u in uses if u.group == label]
        if label == "sources_measured":
            lines += [_run_line(r, lang) for r in runs]
        if lines:
            out += [f"**{t(label, lang)}**", *lines, ""]
    return "\n".join(out).strip() + "\n" if out else t("sources_none", lang) + "\n"


def show(lang: str) -> Any:
    """:func:`markdown` as an IPython Markdown object: the last line of a chapter's Sources cell."""
    from IPython.display import Markdown
    return Markdown(markdown(lang))
