"""Fixtures shared by test files: the strict build of the site, made once per session.

The build and the browser tests both need it, and tests run in random order
(pytest-randomly), so whichever asks first builds; the others reuse the result.
"""
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
def strict_build():
    """`build.py --strict`: clean _build, -W -n --keep-going --all, both editions.

    COURSE_BUILD_DIR=/tmp/x builds there instead of _build (the site tests then test that site).
    COURSE_SITE_PREBUILT=1 skips the build and tests the site already built there (quick
    iterations on the browser tests; never what `make test` does)."""
    if os.environ.get("COURSE_SITE_PREBUILT"):
        return BuildResult(0, "COURSE_SITE_PREBUILT: testing the site already built")
    run = subprocess.run([sys.executable, str(ROOT / "book/tools/build.py"), "--strict"], cwd=ROOT,
                         capture_output=True, text=True)
    return BuildResult(run.returncode, run.stdout + run.stderr)


def pytest_terminal_summary(terminalreporter):
    """The figures of tests/test_fuzz.py (functions, calls, clear errors, crashes...), even with -q."""
    fuzz = sys.modules.get("test_fuzz") or sys.modules.get("tests.test_fuzz")
    for line in (fuzz.summary_lines() if fuzz else []):
        terminalreporter.write_line(line)
    if fuzz and os.environ.get("FUZZ_REPORT"):
        fuzz.pytest_sessionfinish_report(os.environ["FUZZ_REPORT"])
