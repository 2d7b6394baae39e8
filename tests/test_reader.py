"""What a reader does with the site's downloads: unzip the course, install it with only its own
requirements in a fresh virtual environment, and run a chapter's notebook with its widget.

Slow (a pip install, about a minute with a warm cache): it is the only check that the course runs
outside this repository's environment, without myst-nb, Sphinx, Chromium or npm.
"""
import subprocess
import venv
import zipfile

import pytest

from site_server import EDITIONS, SITE

pytestmark = pytest.mark.build                    # every test needs the bundle of the strict build
BUNDLE = SITE / "downloads" / "ai-infra-course.zip"
CHAPTERS = ["notebooks/en/00_overview.ipynb", "notebooks/zh/01_chips.ipynb",
            "notebooks/en/08_clusters.ipynb"]   # 08 reads data files beside the registry (package data)

RUN_CHAPTER = r"""
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=120, kernel_name="python3", skip_cells_with_tag="run-nothing-skip").execute()   # a reader runs every cell, widgets too
widgets = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
           if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
assert not errors, errors
assert widgets, "the explore cell built no widget"
print("ran", len(nb.cells), "cells;", len(widgets), "widget(s)")
"""


@pytest.fixture(scope="module")
def reader_env(strict_build, tmp_path_factory):
    assert strict_build.returncode == 0, "the strict build failed:\n" + strict_build.log[-3000:]
    assert BUNDLE.is_file(), f"the build wrote no bundle at {BUNDLE}"
    home = tmp_path_factory.mktemp("reader")
    with zipfile.ZipFile(BUNDLE) as z:
        z.extractall(home)
    course = home / "ai-infra-course"
    venv.create(home / "venv", with_pip=True)
    py = home / "venv" / "bin" / "python"
    install = subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                              "-r", "requirements.txt", ".", "nbclient"],
                             cwd=course, capture_output=True, text=True)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    return course, py


def test_bundle_holds_both_editions_and_the_library(strict_build):
    names = zipfile.ZipFile(BUNDLE).namelist() if BUNDLE.is_file() else []
    assert BUNDLE.is_file(), f"no bundle at {BUNDLE}: build the site first"
    for lang in EDITIONS:
        assert any(n.startswith(f"ai-infra-course/notebooks/{lang}/") and n.endswith(".ipynb") for n in names)
    for needed in ("infra_lib/__init__.py", "infra_lib/data/labels.toml", "pyproject.toml", "requirements.txt"):
        assert f"ai-infra-course/{needed}" in names, needed
    assert not any(n.endswith(".md") and "/notebooks/" in n for n in names)


def test_no_book_toolchain_in_the_reader_env(reader_env):
    _, py = reader_env
    for module in ("myst_nb", "sphinx", "jupytext", "playwright"):
        found = subprocess.run([str(py), "-c", f"import {module}"], capture_output=True)
        assert found.returncode != 0, f"{module} is installed in the reader's environment"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_downloaded_chapter_runs_with_its_widget(reader_env, chapter, tmp_path):
    course, py = reader_env
    run = subprocess.run([str(py), "-c", RUN_CHAPTER, str(course / chapter)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "widget" in run.stdout
