"""Labels for figures and widgets in the page's language ('en' or 'zh').

Prose lives in the chapters; only strings that code draws (axis labels, legends, widget
captions, widget messages) live here, in one data file, ``data/labels.toml``, so the English
and Chinese notebooks can share identical code cells. The file is read and checked once, when
this module is imported: every label must have exactly the languages in :data:`LANGUAGES`.
No module adds labels at import time.

>>> t("ridge", "zh")
'屋脊点'
>>> t("decode_batch", "en", batch=8)
'decode (batch 8)'
"""
import tomllib
from pathlib import Path
from typing import Any

from . import _check

LANGUAGES = ("en", "zh")
LABELS_FILE = Path(__file__).parent / "data" / "labels.toml"


def load_labels(path: Path = LABELS_FILE) -> dict[str, dict[str, str]]:
    """Read a labels file and check it: each label a table with one non-empty string per language."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{path.name}: not valid TOML: {err}") from None
    for key, texts in data.items():
        if not isinstance(texts, dict):
            raise ValueError(f"{path.name}: label {key!r} must be a table with keys {LANGUAGES}")
        if set(texts) != set(LANGUAGES):
            raise ValueError(f"{path.name}: label {key!r} needs exactly the languages {LANGUAGES}, "
                             f"got {sorted(texts)}")
        for lang, text in texts.items():
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"{path.name}: label {key!r} has an empty or non-text {lang!r} entry")
    return data


STRINGS: dict[str, dict[str, str]] = load_labels()


def t(key: str, lang: str, **fields: Any) -> str:
    """The label ``key`` in language ``lang``, with ``{fields}`` filled in."""
    lang = _check.choice("lang", lang, LANGUAGES)
    _check.text("key", key)
    if key not in STRINGS:
        raise _check.UnknownName(f"no label {key!r} in {LABELS_FILE.name}{_check.nearest(key, STRINGS)}")
    return STRINGS[key][lang].format(**fields)
