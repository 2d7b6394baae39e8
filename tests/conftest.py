"""Fixtures shared by test files: the strict build of the site, made once per session.

The build and the browser tests both need it, and tests run in random order
(pytest-randomly), so whichever asks first builds; the others reuse the result.
A test that uses it must carry the ``build`` marker (checked below), so that
``pytest -m "not build"`` (`make check`) never starts the build.
"""
import dataclasses
import fcntl
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class BuildResult:
    returncode: int
    log: str

    def summary(self, limit=6000):
        """build.py's own summary of what failed (it leads with the causes), else the log's end."""
        start = self.log.find("[build] FAILED")
        return self.log[start:start + limit] if start >= 0 else self.log[-limit:]


@pytest.fixture(scope="session")
def strict_build(tmp_path_factory):
    """`build.py --strict`: clean _build, -W -n --keep-going --all, both editions.

    COURSE_BUILD_DIR=/tmp/x builds there instead of _build (the site tests then test that site).
    COURSE_SITE_PREBUILT=1 skips the build and tests the site already built there (quick
    iterations on the browser tests; never what `make test` does)."""
    if os.environ.get("COURSE_SITE_PREBUILT"):
        return BuildResult(0, "COURSE_SITE_PREBUILT: testing the site already built")
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return _build()
    shared = tmp_path_factory.getbasetemp().parent          # one folder for all workers of this run
    with open(shared / "strict_build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)                    # released when the file closes
        done = shared / "strict_build.json"
        if not done.exists():
            done.write_text(json.dumps(dataclasses.asdict(_build())), encoding="utf-8")
        return BuildResult(**json.loads(done.read_text(encoding="utf-8")))


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium per session for every browser test (Playwright's sync API allows
    only one running instance per thread, so test files cannot each start their own)."""
    from playwright.sync_api import sync_playwright

    from site_server import launch_chromium
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()


BUILD_FIXTURES = ("strict_build", "broken_build")      # each runs a Sphinx build of its own
PAGE_TESTS = ("test_figures.py", "test_widgets*.py")   # the course pages' layer: figures drawn, widgets in fresh processes


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before any fixture: a test that needs a build but lacks the ``build`` marker fails
    (it would start a build under `make check`)."""
    used = [f for f in BUILD_FIXTURES if f in getattr(item, "fixturenames", ())]
    if used and item.get_closest_marker("build") is None:
        pytest.fail(f"{item.nodeid} uses a build (the {used[0]} fixture) but has no `build` "
                    "marker: add @pytest.mark.build (or pytestmark = pytest.mark.build for the whole file), "
                    "so that `pytest -m \"not build\"` (make check) does not start the build", pytrace=False)


def pytest_collection_modifyitems(items):
    """The figures' and widgets' tests carry the ``pages`` marker: `make check` leaves them to `make test`."""
    for item in items:
        if any(item.path.match(pattern) for pattern in PAGE_TESTS):
            item.add_marker(pytest.mark.pages)


def _build():
    run = subprocess.run([sys.executable, str(ROOT / "book/tools/build.py"), "--strict"], cwd=ROOT,
                         capture_output=True, text=True)
    return BuildResult(run.returncode, run.stdout + run.stderr)


# ---- running in parallel: `make test` is `pytest -n auto --dist loadfile` (pytest-xdist) -----------
# Each worker runs whole files (a notebook's cells stay in one kernel, in order; the fuzz test's
# figures add up in one worker) and is a session of its own: the strict build is made once, by
# the first worker that asks, under a lock; the others wait for it and read its result.

def _fuzz_lines():
    fuzz = sys.modules.get("test_fuzz") or sys.modules.get("tests.test_fuzz")
    return fuzz.summary_lines() if fuzz else []


WORKER_LINES: list[str] = []


def pytest_sessionfinish(session):
    """In an xdist worker: hand the fuzz figures to the controller, which prints them."""
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["fuzz_lines"] = _fuzz_lines()


def pytest_testnodedown(node, error):
    WORKER_LINES.extend(getattr(node, "workeroutput", {}).get("fuzz_lines", []))


def pytest_terminal_summary(terminalreporter):
    """The figures of tests/test_fuzz.py (functions, calls, clear errors, crashes...), even with -q."""
    for line in WORKER_LINES or _fuzz_lines():
        terminalreporter.write_line(line)
    fuzz = sys.modules.get("test_fuzz") or sys.modules.get("tests.test_fuzz")
    if fuzz and os.environ.get("FUZZ_REPORT"):
        fuzz.pytest_sessionfinish_report(os.environ["FUZZ_REPORT"])
