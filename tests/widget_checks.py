"""Helpers shared by the widget tests (tests/test_widgets*.py): is an error message in the
page's language, and does it name the control?"""
import html
import math
import re

from infra_lib.i18n import t


def text_of(markup):
    """The visible text of an HTML fragment."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def assert_names_control(markup, panel, lang, name, values=None):
    """``markup`` is the panel's message in ``lang`` naming control ``name`` by its label; on
    the Chinese page it has no English word besides the labels (which may hold "eager", "SM")."""
    label = t(panel.control(name).label, lang)
    text = text_of(markup)
    assert text.startswith(t("w_error", lang)), markup
    assert f"“{label}”" in text, (label, markup)
    if lang == "zh":
        for c in panel.controls:
            text = text.replace(t(c.label, lang), "")
            for key in c.names:                   # the names of a drop-down's options (models keep their names)
                text = text.replace(t(key, lang), "")
        for v in (values or {}).values():
            text = text.replace(repr(v), "")
        assert not re.search(r"[A-Za-z]{3,}", text), markup


def expected_reason(panel, lang, name, value, library_reason):
    """What the message should say about control ``name`` at ``value``: a value outside the
    control's own range or choices is refused by the panel with them ("must be between 0.5 and
    25", "must be one of 2, 4, 8, 16"), before the library sees it; inside, the library's own reason."""
    from infra_lib.widgets.panel import _format_value
    c = panel.control(name)
    if c.options and value not in c.options and isinstance(value, (int, float)) and math.isfinite(value):
        return t("w_err_option", lang, options=t("w_option_sep", lang).join(
            t("w_paren", lang, text=_format_value(o), inner=c.option_text(o, lang)) if c.names else _format_value(o)
            for o in c.options))
    if not c.options and isinstance(value, (int, float)) and math.isfinite(value) and not c.min <= value <= c.max:
        return t("w_err_range", lang, low=_format_value(c.min), high=_format_value(c.max))
    return library_reason
