"""The one slider panel behind every "Explore the assumptions" widget.

A widget is a :class:`Panel`: a declarative tuple of :class:`Control` (name, label key, int or
float, default, min, max, step) and a pure summary function,
``summary(lang, **values) -> Result``, that computes the results for the current values and
returns them as rows. The panel does the rest, the same way for every widget:

- builds one ipywidgets slider per control, with one style and layout, labelled by
  :func:`infra_lib.i18n.t`, and observes them;
- keeps dependent limits (a control declared ``below`` another stays one step below it);
- renders the rows as an HTML table (:meth:`Panel.render`);
- checks that each value is a (whole) number, and turns a :class:`ValueError` or
  :class:`TypeError` from the library into a message in the page's language that names the
  control by its label, never a traceback.

ipywidgets is imported only when a panel is built (:meth:`Panel.build`), so summaries and
:meth:`Panel.render` run, and are tested, without a kernel. The widget modules import no numpy
and no matplotlib.

>>> p = Panel((Control("n", "w_batch", int, 4, 1, 8),),
...           lambda lang, n: Result(((t("w_batch", lang), f"{2 * n}"),)))
>>> p.render("en", {"n": 3})
"<table><tr><td>batch</td><td style='text-align:right'>6</td></tr></table>"
>>> p.render("zh", {"n": 0.5})
'<p><b>无法计算</b>：“批大小” = 0.5：必须是整数</p>'
"""
from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Real
from typing import Any

from .. import _check
from ..i18n import LANGUAGES, t

Number = int | float

#: One look for every panel: width of the slider labels and of the whole slider.
DESCRIPTION_WIDTH = "16em"
SLIDER_WIDTH = "34em"


@_check.finite
def snap(value: float, minimum: float, step: float) -> float:
    """The point of the grid ``minimum + k x step`` nearest to ``value``: puts a default taken
    from the registry or a measurement on its slider's grid.

    >>> snap(7.0747, 0.5, 0.01), snap(3.352, 0.5, 0.1)
    (7.07, 3.4)
    """
    value = _check.number("value", value, "(the slider's unit)")
    minimum = _check.number("minimum", minimum, "(the slider's unit)")
    step = _check.positive("step", step, "(the slider's unit)")
    return _check.finite_result("snap (minimum + k x step)",
                                round(minimum + round((value - minimum) / step) * step, 10))


def _is_number(value: object) -> bool:
    if not isinstance(value, Real) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:               # 10**400: an integer beyond any float
        return False


def _on_grid(value: float, minimum: float, step: float) -> bool:
    k = (value - minimum) / step
    return math.isfinite(k) and abs(k - round(k)) < 1e-6     # a step of 5e-324: no grid


@dataclass(frozen=True)
class Control:
    """One slider: ``name`` is the summary's keyword argument, ``label`` a key of
    ``data/labels.toml``, ``kind`` int or float, and ``default``, ``min``, ``max``, ``step``
    in the units the label shows. The default and the maximum lie on the grid
    ``min + k x step``.

    ``options``: the control takes only these values (a selection slider); use
    :meth:`Control.choice`. ``names``: a label key for each option, for a control whose values
    are categories (which model, which measurement): it is a drop-down of those names, not a
    slider of numbers whose meaning only a label could give; use :meth:`Control.named`. ``below``: the name of another control this one must stay below;
    its maximum follows that control's value, one step under it. ``aliases``: the library's
    names for the same quantity (``mem_bw_Bps`` for a ``bw_TBps`` slider), so that an error the
    library raises about it names this control.
    """
    name: str
    label: str
    kind: type
    default: Number
    min: Number
    max: Number
    step: Number = 1
    options: tuple[Number, ...] = ()
    below: str | None = None
    aliases: tuple[str, ...] = ()
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check.fields(self)
        if self.names:
            if len(self.names) != len(self.options):
                raise ValueError(f"control {self.name}: {len(self.names)} names for {len(self.options)} options; "
                                 f"give one label key per option")
            for key in self.names:
                t(key, "en")       # an unknown label key is an error here, naming the key
        if self.kind not in (int, float):
            raise TypeError(f"control {self.name}: kind must be int or float, got {self.kind!r}")
        bounds = (self.default, self.min, self.max, self.step)
        if not all(_is_number(v) for v in bounds):
            raise TypeError(f"control {self.name}: default, min, max and step must be finite numbers")
        if self.kind is int and not all(float(v).is_integer() for v in bounds):
            raise ValueError(f"control {self.name}: an int control needs whole default, min, max and step")
        if self.options:
            if tuple(sorted(self.options)) != self.options or self.default not in self.options:
                raise ValueError(f"control {self.name}: options must be sorted and include the default")
            return
        if not self.step > 0 or not self.min <= self.default <= self.max:
            raise ValueError(f"control {self.name}: needs step > 0 and min <= default <= max, got "
                             f"{self.min} <= {self.default} <= {self.max}, step {self.step}")
        for what, v in (("default", self.default), ("max", self.max)):
            if not _on_grid(v, self.min, self.step):
                raise ValueError(f"control {self.name}: {what} {v} is not on the grid {self.min} + k x {self.step}")

    @classmethod
    def choice(cls, name: str, label: str, options: tuple[Number, ...], default: Number,
               aliases: tuple[str, ...] = ()) -> Control:
        """A control that takes one of a few values (bytes per load: 2, 4, 8 or 16)."""
        kind = int if all(isinstance(o, int) for o in options) else float
        return cls(name, label, kind, default, min(options), max(options), 1, tuple(options), aliases=aliases)

    @classmethod
    def named(cls, name: str, label: str, names: tuple[str, ...], default: int,
              aliases: tuple[str, ...] = ()) -> Control:
        """A control over categories 0, 1, ... shown by their names (label keys): the summary
        receives the position, the reader picks a name from a drop-down."""
        options = tuple(range(len(names)))
        return cls(name, label, int, default, 0, max(len(names) - 1, 0), 1, options, aliases=aliases, names=tuple(names))

    def option_text(self, value: Number, lang: str) -> str:
        """What the reader sees for ``value``: its name for a named control, else the number."""
        _check.choice("lang", lang, LANGUAGES)
        _check.number("value", value, "(the control's unit)")
        if self.names and value in self.options:
            return t(self.names[self.options.index(value)], lang)
        return _format_value(value)

    def values(self) -> tuple[Number, ...]:
        """Minimum, a middle value on the grid, maximum: what the tests drive each control to."""
        if self.options:
            return (self.options[0], self.options[len(self.options) // 2], self.options[-1])
        middle = snap((self.min + self.max) / 2, self.min, self.step)
        return tuple(self.kind(v) for v in (self.min, middle, self.max))

    def readout_format(self) -> str:
        """As many decimals as the step has: '.2f' for 0.05, 'd' for an int control."""
        if self.kind is int:
            return "d"
        text = f"{self.step:.10f}".rstrip("0")
        return f".{len(text.split('.')[1])}f"


@dataclass(frozen=True)
class Result:
    """What a summary returns: rows of text (the panel escapes them), an optional header row,
    one letter per column for the alignment (``l`` or ``r``; missing letters are ``l``), an
    optional line above the table and notes (warnings) below it."""
    rows: tuple[tuple[str, ...], ...]
    header: tuple[str, ...] = ()
    align: str = "lrl"
    intro: str = ""
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check.fields(self)

    def html(self) -> str:
        def cells(row: tuple[str, ...], tag: str) -> str:
            out = []
            for i, text in enumerate(row):
                style = " style='text-align:right'" if self.align[i:i + 1] == "r" else ""
                out.append(f"<{tag}{style}>{html.escape(text)}</{tag}>")
            return "<tr>" + "".join(out) + "</tr>"
        head = cells(self.header, "th") if self.header else ""
        body = "".join(cells(row, "td") for row in self.rows)
        intro = f"<p>{html.escape(self.intro)}</p>" if self.intro else ""
        notes = "".join(f"<p><b>{html.escape(n)}</b></p>" for n in self.notes)
        return f"{intro}<table>{head}{body}</table>{notes}"


class InputError(ValueError):
    """Bad input a summary finds itself (a rule between two controls, say). ``name`` is the
    control, ``reason`` a label key, ``other`` the name of a control the reason refers to."""

    def __init__(self, name: str, reason: str, other: str | None = None, **fields: str) -> None:
        super().__init__(f"{name}: {reason}" + (f" ({other})" if other else ""))
        self.name, self.reason, self.other, self.fields = name, reason, other, fields


# How the library (infra_lib._check) words what is wrong, and the label that says it.
_LIBRARY_REASONS = (
    ("must be a number", "w_err_number"),
    ("must be a finite number", "w_err_number"),
    ("must be greater than 0", "w_err_positive"),
    ("must be 0 or more", "w_err_non_negative"),
    ("must be a fraction", "w_err_fraction"),
    ("must be a whole number", "w_err_whole"),
    ("must be at least", "w_err_at_least"),
)


def _format_value(value: object) -> str:
    if _is_number(value):
        return f"{value:,g}" if isinstance(value, float) else f"{value:,}"
    return _check._show(value)


@dataclass(frozen=True)
class Panel:
    """The controls of one widget and the summary that computes its rows."""
    controls: tuple[Control, ...]
    summary: Callable[..., Result]

    def __post_init__(self) -> None:
        names = [c.name for c in self.controls]
        if len(set(names)) != len(names):
            raise ValueError(f"control names must be unique, got {names}")
        for c in self.controls:
            if c.below is None:
                continue
            other = self.control(c.below)
            if other.min - c.step < c.min:
                raise ValueError(f"control {c.name} must stay below {other.name}, but {other.name} "
                                 f"can go down to {other.min}, not above {c.name}'s minimum {c.min}")
            if c.default >= other.default:
                raise ValueError(f"control {c.name}: default must be below {other.name}'s default")

    def control(self, name: str) -> Control:
        """The control called ``name``."""
        for c in self.controls:
            if c.name == name:
                return c
        raise KeyError(f"no control {name!r}; the controls are {[c.name for c in self.controls]}")

    def _values(self, values: object) -> dict[str, Any]:
        """``values`` as a dict, or a TypeError unless it maps exactly the controls' names."""
        expected = {c.name for c in self.controls}
        if not isinstance(values, Mapping) or set(values) != expected:
            got = sorted(map(str, values)) if isinstance(values, Mapping) else _check._show(values)
            raise TypeError(f"values must map exactly the controls {sorted(expected)}, got {got}")
        return dict(values)

    def defaults(self) -> dict[str, Number]:
        """Every control at its default."""
        return {c.name: c.default for c in self.controls}

    def limits(self, values: Mapping[str, Number]) -> dict[str, tuple[Number, Number]]:
        """Each control's (min, max) for the given values: a control declared ``below`` another
        may go up to one step under that control's value."""
        values = self._values(values)
        for c in self.controls:
            if c.below is not None and not _is_number(values[c.below]):
                raise TypeError(f"values[{c.below!r}] must be a finite number, got {_check._show(values[c.below])}")
        out: dict[str, tuple[Number, Number]] = {}
        for c in self.controls:
            hi = c.max
            if c.below is not None:
                hi = min(hi, snap(values[c.below] - c.step, c.min, c.step) if c.kind is float
                         else values[c.below] - c.step)
            out[c.name] = (c.min, hi)
        return out

    def clamp(self, values: Mapping[str, Number]) -> dict[str, Number]:
        """The values the sliders show when set to ``values``: each one within its limits."""
        out = self._values(values)
        for name, v in out.items():
            if not _is_number(v):
                raise TypeError(f"values[{name!r}] must be a finite number, got {_check._show(v)}")
        for name, (lo, hi) in self.limits(out).items():
            out[name] = min(max(out[name], lo), hi)
        return out

    # ---- rendering ------------------------------------------------------------------------

    def render(self, lang: str, values: Mapping[str, object] | None = None) -> str:
        """The summary for ``values`` (default: the defaults) as HTML, or the message that says
        which control's value cannot be used, in language ``lang``.

        A value no control can take (not a finite number, not whole for a whole-number control,
        outside the control's range or not one of its options) is a message naming the control,
        as is an error the library raises about a value (a ValueError, TypeError, OverflowError,
        or an unknown name); any other exception is a programming error and propagates."""
        if lang not in LANGUAGES:
            raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
        values = self._values(self.defaults() if values is None else values)
        try:
            for c in self.controls:
                v = values[c.name]
                if not _is_number(v):
                    raise InputError(c.name, "w_err_number")
                if c.kind is int and not float(v).is_integer():  # type: ignore[arg-type,unused-ignore]
                    raise InputError(c.name, "w_err_whole")
                if c.options and v not in c.options:
                    raise InputError(c.name, "w_err_option", options=t("w_option_sep", lang).join(
                        t("w_paren", lang, text=_format_value(o), inner=c.option_text(o, lang)) if c.names
                        else _format_value(o)
                        for o in c.options))
                if not c.min <= v <= c.max:                     # type: ignore[operator,unused-ignore]
                    raise InputError(c.name, "w_err_range", low=_format_value(c.min), high=_format_value(c.max))
            result = self.summary(lang, **values)
        except (TypeError, ValueError, OverflowError, _check.UnknownName) as err:
            return self.error_html(err, lang, values)
        return result.html()

    def _name_of(self, err: Exception) -> tuple[Control | None, str, dict[str, Any]]:
        """The control an error is about, the label key of the reason, and its fields."""
        if isinstance(err, InputError):
            fields: dict[str, Any] = dict(err.fields)
            if err.other is not None:
                fields["other"] = err.other
            return self.control(err.name), err.reason, fields
        text = str(err)
        m = re.match(r"\s*([A-Za-z_]\w*)", text)
        token = m.group(1) if m else ""
        control = next((c for c in self.controls if token == c.name or token in c.aliases), None)
        for phrase, reason in _LIBRARY_REASONS:
            if phrase in text:
                fields = {}
                if reason == "w_err_at_least":
                    at = re.search(r"must be at least (\S+?),", text)
                    fields["minimum"] = at.group(1) if at else "?"
                return control, reason, fields
        return control, "w_err_invalid", {}

    def error_html(self, err: Exception, lang: str, values: Mapping[str, object]) -> str:
        """A message in language ``lang`` naming the control whose value the library rejected."""
        _check.instance("err", err, Exception)
        _check.choice("lang", lang, LANGUAGES)
        values = self._values(values)
        control, reason, fields = self._name_of(err)
        head = f"<b>{html.escape(t('w_error', lang))}</b>"
        if control is None:   # about no one control: the values in the reader's words, then the library's
            shown = t("w_err_list_sep", lang).join(
                f"“{t(c.label, lang)}” = {_format_value(values[c.name])}" for c in self.controls)
            return (f"<p>{head}{t('w_err_sep', lang)}{html.escape(t('w_err_unknown', lang, values=shown))}</p>"
                    f"<details><summary>{html.escape(t('w_err_detail', lang))}</summary>"
                    f"<code>{html.escape(str(err))}</code></details>")
        if "other" in fields:
            other = self.control(fields["other"])
            fields = {"other": t(other.label, lang), "other_value": _format_value(values[other.name])}
        message = t("w_err_value", lang, label=t(control.label, lang), value=_format_value(values[control.name]),
                    reason=t(reason, lang, **fields))
        return f"<p>{head}{t('w_err_sep', lang)}{html.escape(message)}</p>"

    # ---- the live widget ------------------------------------------------------------------

    def build(self, lang: str = "en") -> Any:
        """The sliders and the table under them, recomputed whenever a slider moves (an
        ``ipywidgets.VBox``: the sliders, then the output as its last child)."""
        if lang not in LANGUAGES:
            raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
        import ipywidgets as w

        style = {"description_width": DESCRIPTION_WIDTH}
        sliders: dict[str, Any] = {}
        for c in self.controls:
            # the full label as a tooltip too: a label longer than its column is cut on screen
            common = dict(description=t(c.label, lang), tooltip=t(c.label, lang), style=style,
                          layout=w.Layout(width="100%", max_width=SLIDER_WIDTH))
            if c.names:
                sliders[c.name] = w.Dropdown(options=[(c.option_text(o, lang), o) for o in c.options],
                                             value=c.default, **common)
            elif c.options:
                sliders[c.name] = w.SelectionSlider(options=list(c.options), value=c.default, **common)
            elif c.kind is int:
                sliders[c.name] = w.IntSlider(value=int(c.default), min=int(c.min), max=int(c.max),
                                              step=int(c.step), **common)
            else:
                sliders[c.name] = w.FloatSlider(value=c.default, min=c.min, max=c.max, step=c.step,
                                                readout_format=c.readout_format(), **common)
        out = w.HTML()
        busy = False

        def update(_: object = None) -> None:
            nonlocal busy
            if busy:          # a limit that moved a slider below: the outer call renders
                return
            busy = True
            try:
                values = {name: s.value for name, s in sliders.items()}
                for name, (_lo, hi) in self.limits(values).items():
                    if not self.control(name).options and sliders[name].max != hi:
                        sliders[name].max = hi     # ipywidgets moves the value under the new max
                out.value = self.render(lang, {name: s.value for name, s in sliders.items()})
            finally:
                busy = False

        for s in sliders.values():
            s.observe(update, names="value")
        update()
        return w.VBox([*sliders.values(), out])
