"""Fixtures shared by test files: the strict build of the site, made once per session.

The build and the browser tests both need it, and tests run in random order
(pytest-randomly), so whichever asks first builds; the others reuse the result.
"""
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


@pytest.fixture(scope="session")
def strict_build():
    """`build.py --strict`: clean _build, -W -n --keep-going --all, both editions."""
    run = subprocess.run([sys.executable, str(ROOT / "book/tools/build.py"), "--strict"], cwd=ROOT,
                         capture_output=True, text=True)
    return BuildResult(run.returncode, run.stdout + run.stderr)
