"""Helpers shared by the widget tests (tests/test_widgets*.py): is an error message in the
page's language, and does it name the control?"""
import html
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
        for v in (values or {}).values():
            text = text.replace(repr(v), "")
        assert not re.search(r"[A-Za-z]{3,}", text), markup
