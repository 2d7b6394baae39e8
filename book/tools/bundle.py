"""The course for a reader's machine: the notebooks (with the build's outputs) and infra_lib, as one zip.

    python book/tools/bundle.py OUT_DIR [BUILD_DIR]

Called by build.py after both editions are built. The zip holds ``notebooks/{en,zh}/*.ipynb``
(each chapter as a notebook that reads like its page, with the build's outputs and figures, written
by book/ext/reader_notebook.py from the page's resolved doctree: plain Jupyter Markdown, no MyST
left, so they read well before they run and run top to bottom), ``infra_lib/`` with
its data, ``pyproject.toml`` (``pip install .`` installs the library), and the reader's
``requirements.txt`` and ``README.md`` from ``book/reader/``. Nothing in it needs the book's
toolchain (myst-nb, Sphinx, Chromium, npm): ``infra_lib.glue`` stands in for myst-nb's glue.
"""
import sys
import zipfile
from pathlib import Path

from course import EDITIONS, NAME, ROOT, is_chapter  # book/tools


def executed_notebooks(build_dir: Path, lang: str) -> list[Path]:
    """The executed .ipynb of one edition's build (Jupyter Book writes them to jupyter_execute/)."""
    return sorted(p for p in (build_dir / lang / "_build" / "jupyter_execute").glob("*.ipynb")
                  if is_chapter(p.stem))


def reader_notebooks(build_dir: Path, lang: str) -> list[Path]:
    """The readable notebook of every chapter of one edition's build (book/ext/reader_notebook.py
    writes them beside jupyter_execute/). Fails, naming the chapters, if one is missing: the
    downloads never fall back to the MyST of the executed notebook."""
    executed = executed_notebooks(build_dir, lang)
    folder = build_dir / lang / "_build" / "reader"
    missing = [nb.name for nb in executed if not (folder / nb.name).is_file()]
    if missing:
        raise SystemExit(f"bundle: no readable notebook of {', '.join(missing)} ({lang!r} edition) under {folder}: "
                         "book/ext/reader_notebook.py writes one when Sphinx writes the page (build.py --strict writes all)")
    return [folder / nb.name for nb in executed]


def library_files() -> list[Path]:
    lib = ROOT / "infra_lib"
    return sorted(p for p in lib.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and p.suffix not in (".pyc",))


def make_bundle(out_dir: Path, build_dir: Path) -> Path:
    """Write ``out_dir/ai-infra-course.zip`` and return its path; fails if an edition has no notebooks."""
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{NAME}.zip"
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for lang in EDITIONS:
            notebooks = reader_notebooks(build_dir, lang)
            if not notebooks:
                raise SystemExit(f"bundle: no executed notebooks of the {lang!r} edition under {build_dir}")
            for nb in notebooks:
                z.write(nb, f"{NAME}/notebooks/{lang}/{nb.name}")
        for path in library_files():
            z.write(path, f"{NAME}/{path.relative_to(ROOT).as_posix()}")
        z.write(ROOT / "pyproject.toml", f"{NAME}/pyproject.toml")
        for name in ("requirements.txt", "README.md"):
            z.write(ROOT / "book" / "reader" / name, f"{NAME}/{name}")
    return target


if __name__ == "__main__":
    out = Path(sys.argv[1])
    build = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "_build"
    print(make_bundle(out, build))
