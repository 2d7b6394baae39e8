"""The configuration every book tool shares: where the book and its build are, which editions,
and each edition's Jupyter Book config. Imported by build.py, epub.py, pdf.py, lite.py, bundle.py,
bench.py and the tests (tests/site_server.py, tests/prose.py); it imports none of them.

    COURSE_BUILD_DIR=/tmp/mybuild   # BUILD: build somewhere else than _build (a private build)
    COURSE_TOC=/tmp/my_toc.yml      # TOC: a private table of contents (some pages only)

The editions are the library's languages (``infra_lib.i18n.LANGUAGES``), so the tools, the tests
and the labels of figures and widgets cannot disagree on them.
"""
import copy
import fcntl
import hashlib
import os
import re
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


# A page's address on the site is its file's name, with the edition once: en/06_performance.html,
# zh/glossary.html (not en/notebooks/en/06_performance.html). Sphinx names a page by its path
# under the source folder, so each edition is built from a folder of its own, SOURCE/<lang>, that
# holds one link per page of the table of contents, named ``page_name`` of its file
# (``edition_source``); the files stay where they are, notebooks/<lang>/ and book/<lang>/.
SOURCE = BUILD / "src"
CHAPTER_PAGE = re.compile(r"^(?P<number>\d+)_[\w-]+$")     # 06_performance: a chapter (a notebook)


def page_name(doc):
    """'notebooks/en/06_performance' -> '06_performance', 'book/zh/glossary' -> 'glossary': a page's
    name on the site (its Sphinx docname), from its file's path in the table of contents."""
    return doc.rsplit("/", 1)[-1]


def is_chapter(pagename):
    """True for a chapter's page name ('06_performance'), not the home page, glossary or a how-to."""
    return bool(CHAPTER_PAGE.match(pagename))


def chapter_pages(lang, site=None):
    """The built chapter pages of one edition, in order: SITE/<lang>/NN_name.html. None is an error
    (a test that loops over them must not pass on an empty or misplaced site)."""
    folder = Path(site or SITE, lang)
    pages = sorted(p for p in folder.glob("*.html") if is_chapter(p.stem))
    if not pages:
        raise FileNotFoundError(f"no chapter page (NN_name.html) under {folder}: build the site first")
    return pages


def edition_source(lang, toc):
    """The source folder of one edition's build: SOURCE/<lang>/<page_name>.md, a link to each file
    of ``toc`` (the edition's table of contents, with repository paths). Returns the folder; fails,
    naming them, if two files of the table would get the same name on the site."""
    docs = toc_docs(toc)
    names: dict = {}
    for doc in docs:
        names.setdefault(page_name(doc), []).append(doc)
    clash = {name: files for name, files in names.items() if len(files) > 1}
    if clash:
        raise SystemExit(f"two pages of the table of contents would have the same address: {clash}")
    folder = SOURCE / lang
    folder.mkdir(parents=True, exist_ok=True)
    links = {f"{page_name(doc)}.md": ROOT / f"{doc}.md" for doc in docs}
    missing = [f"{doc}.md" for doc in docs if not (ROOT / f"{doc}.md").is_file()]
    if missing:
        raise SystemExit(f"the table of contents lists {', '.join(missing)}, which does not exist")
    if (ROOT / "infra_lib").is_dir():    # the files a page includes ({literalinclude} /infra_lib/data/...)
        links["infra_lib"] = ROOT / "infra_lib"
    with open(SOURCE / f"{lang}.lock", "w") as lock:   # one process at a time (build.py, epub.py run alone)
        fcntl.flock(lock, fcntl.LOCK_EX)
        for old in folder.iterdir():             # a page the table no longer lists
            if old.name not in links and not old.name.startswith(".") and (old.is_symlink() or old.is_file()):
                old.unlink()
        for name, target in links.items():       # in place: a build reading the folder never sees a gap
            link = folder / name
            if link.is_symlink() and Path(os.readlink(link)) == target:
                continue
            fresh = folder / f".{name}.{os.getpid()}.new"
            fresh.unlink(missing_ok=True)
            fresh.symlink_to(target)
            os.replace(fresh, link)
    return folder


def moved_folders(toc):
    """The folders under an edition's site where its pages were before ``edition_source`` (the
    top folders of the table's files: notebooks, book); only pages that send the reader on are
    written there now (book/tools/build.py write_redirects)."""
    return sorted({doc.split("/", 1)[0] for doc in toc_docs(toc) if "/" in doc})


def site_toc(toc):
    """``toc`` with each file named as its page on the site (``page_name``)."""
    out = copy.deepcopy(toc)
    out["root"] = page_name(out["root"])
    for part in out.get("parts", []):
        for chapter in part["chapters"]:
            chapter["file"] = page_name(chapter["file"])
    return out


def edition_config(lang):
    """The Jupyter Book config and toc of one edition, as dicts. The toc names files by their
    repository paths (notebooks/zh/06_performance); ``site_toc`` gives the names of the build."""
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
    # the build's source folder is SOURCE/<lang>: every path of the configs, written from the top
    # of the repository, becomes absolute (a relative one would point into that folder, at nothing)
    for keys in REPO_PATHS:
        *parents, key = keys
        holder = config
        for parent in parents:
            holder = holder.get(parent) or {}
        if key in holder:
            value = holder[key]
            holder[key] = [str(ROOT / v) for v in value] if isinstance(value, list) else str(ROOT / value)
    return config, toc


# Where _config.yml and book/zh/config-overrides.yml hold repository paths (``edition_config``):
# a new path setting goes here, or the build looks for it in the source folder.
REPO_PATHS = (("bibtex_bibfiles",), ("sphinx", "config", "html_static_path"), ("sphinx", "config", "templates_path"),
              ("sphinx", "config", "html_favicon"), ("sphinx", "config", "locale_dirs"),
              ("sphinx", "config", "html_search_options", "dict"))


def toc_docs(toc):
    """Document names of a table of contents, in reading order (the root page, then each chapter)."""
    return [toc["root"]] + [c["file"] for part in toc.get("parts", []) for c in part["chapters"]]


def sphinx_env(lang):
    """The environment of one edition's Jupyter Book run (the site's or the EPUB's)."""
    return {**os.environ, "COURSE_EDITION": lang, "PYTHONPATH": str(ROOT)}
