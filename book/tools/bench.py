"""Print timings (targets on a 2-core machine in brackets). Prints; asserts nothing.

    make bench            # all of it
    python book/tools/bench.py --skip-tests
"""
import argparse
import subprocess
import sys
import time
from pathlib import Path

import jupytext
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable


def timed(label, cmd, target):
    start = time.perf_counter()
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - start
    status = "ok" if run.returncode == 0 else f"FAILED (exit {run.returncode})"
    print(f"{label:<34} {took:7.1f} s   [target {target}]  {status}", flush=True)
    return took


def notebook_times():
    for path in sorted((ROOT / "notebooks").glob("*/*.md")):
        nb = jupytext.read(path)
        start = time.perf_counter()
        NotebookClient(nb, timeout=300, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        print(f"notebook {str(path.relative_to(ROOT)):<25} {time.perf_counter() - start:7.1f} s   [target 5 s]", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-tests", action="store_true")
    args = parser.parse_args()
    if not args.skip_tests:
        timed("full test command (pytest)", [PY, "-m", "pytest", "-q"], "240 s")
    timed("clean build, both editions", [PY, "book/tools/build.py", "--strict"], "120 s")
    timed("no-change rebuild", [PY, "book/tools/build.py"], "15 s")
    notebook_times()


if __name__ == "__main__":
    main()
