"""The configuration every book tool shares: where the book and its build are, which editions,
and each edition's Jupyter Book config. Imported by build.py, epub.py, pdf.py, lite.py, bundle.py,
bench.py and the tests (tests/site_server.py, tests/prose.py); it imports none of them.

    COURSE_BUILD_DIR=/tmp/mybuild   # BUILD: build somewhere else than _build (a private build)
    COURSE_TOC=/tmp/my_toc.yml      # TOC: a private table of contents (some pages only)

The editions are the library's languages (``infra_lib.i18n.LANGUAGES``), so the tools, the tests
and the labels of figures and widgets cannot disagree on them.
"""
import copy
import hashlib
import os
from pathlib import Path

import yaml

from infra_lib.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("COURSE_BUILD_DIR", ROOT / "_build")).resolve()   # override: a private build
SITE = BUILD / "site"
TOC = Path(os.environ.get("COURSE_TOC", ROOT / "_toc.yml")).resolve()       # override: a private table
EDITIONS = LANGUAGES                                                         # ("en", "zh")
NAME = "ai-infra-course"          # the downloads: NAME.zip, NAME-<lang>.epub, NAME-<lang>.pdf


def library_fingerprint(lib=ROOT / "infra_lib"):
    """A short hash of every file in infra_lib (code and data); changes when any of them does,
    and when INFRA_LIB_REGISTRY points the library at another registry folder (hashed too)."""
    h = hashlib.sha256()
    other = os.environ.get("INFRA_LIB_REGISTRY")
    if other:
        for path in sorted(p for p in Path(other).rglob("*") if p.is_file()):
            h.update(b"registry:" + path.name.encode())
            h.update(path.read_bytes())
    for path in sorted(p for p in lib.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        h.update(path.relative_to(lib).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def merge(base, extra):
    """Recursive dict merge: values of ``extra`` win."""
    out = copy.deepcopy(base)
    for key, value in extra.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def edition_config(lang):
    """The Jupyter Book config and toc of one edition, as dicts."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    if lang == "zh":
        overrides = yaml.safe_load((ROOT / "book/zh/config-overrides.yml").read_text(encoding="utf-8"))
        captions = overrides.pop("toc_captions", {})
        config = merge(config, overrides)
        toc = yaml.safe_load(yaml.safe_dump(toc, allow_unicode=True).replace("/en/", "/zh/"))
        for part in toc.get("parts", []):
            part["caption"] = captions.get(part["caption"], part["caption"])
    config["execute"]["cache"] = str(BUILD / "cache" / lang / library_fingerprint())   # one per edition: they build at once
    config["sphinx"]["local_extensions"] = {
        name: str(ROOT / path) for name, path in config["sphinx"]["local_extensions"].items()}
    return config, toc


def toc_docs(toc):
    """Document names of a table of contents, in reading order (the root page, then each chapter)."""
    return [toc["root"]] + [c["file"] for part in toc.get("parts", []) for c in part["chapters"]]


def sphinx_env(lang):
    """The environment of one edition's Jupyter Book run (the site's or the EPUB's)."""
    return {**os.environ, "COURSE_EDITION": lang, "PYTHONPATH": str(ROOT)}
