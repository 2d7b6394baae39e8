"""Every glued value of every chapter, as JSON: to prove a refactoring changed no number.

    python book/tools/glue_snapshot.py > before.json     # on the old code
    python book/tools/glue_snapshot.py --compare before.json   # on the new code: exit 1 on any change
    python book/tools/glue_snapshot.py --compare before.json --pages '*/04_*'   # only some pages
    python book/tools/glue_snapshot.py --compare before.json --rename ch10_=rv_   # keys renamed on purpose

Each notebook's code cells run in-process, in order, with glue's stand-in for readers without
myst-nb, which keeps every value in ``infra_lib.glue.GLUED`` (cells tagged ``skip-execution``, the widgets, are skipped as on the site). Numbers
and strings are recorded as they are; a figure is recorded by its type only.
"""
import argparse
import contextlib
import json
import math
import re
import os
import sys
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parents[2]
# Values measured on the machine that runs the notebook (chapter 2's benchmark of this very
# computer) differ from run to run; they are compared by key only.
MEASURED_HERE = re.compile(r"^ch2_m_")


def _record(value):
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, str)):
        return value
    try:
        return float(value)          # numpy scalars
    except (TypeError, ValueError):
        return f"<{type(value).__module__}.{type(value).__name__}>"


def snapshot(path):
    """{glue key: recorded value} of one notebook."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from infra_lib import glue as glue_module
    saved = glue_module.FOR_MYST_NB
    glue_module.FOR_MYST_NB = False
    glue_module.GLUED.clear()
    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        nb = jupytext.read(path)
        scope = {"__name__": "__main__"}
        for cell in nb.cells:
            if cell.cell_type != "code" or "skip-execution" in cell.metadata.get("tags", []):
                continue
            with contextlib.redirect_stdout(sys.stderr):     # what a cell prints or shows: not into the JSON
                exec(compile(cell.source, f"{path.name}", "exec"), scope)
        plt.close("all")
    finally:
        os.chdir(cwd)
        glue_module.FOR_MYST_NB = saved
    return {key: _record(value) for key, value in glue_module.GLUED.items()}


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", help="a snapshot to compare against; exit 1 on any difference")
    parser.add_argument("--pages", default="*/*.md",
                        help="a glob under notebooks/ (default every page); --compare then checks those pages only")
    parser.add_argument("--rename", action="append", default=[], metavar="OLD=NEW",
                        help="a key prefix renamed on purpose: old keys starting OLD are compared with NEW...")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    pattern = args.pages if args.pages.endswith(".md") else args.pages + ".md"
    notebooks = sorted((ROOT / "notebooks").glob(pattern))
    if not notebooks:
        parser.error(f"--pages {args.pages!r} matches no notebook under notebooks/")
    snap = {p.relative_to(ROOT).as_posix(): snapshot(p) for p in notebooks}
    if not args.compare:
        json.dump(snap, sys.stdout, indent=1, ensure_ascii=False, sort_keys=True)
        return 0
    renames = []
    for pair in args.rename:
        old_prefix, sep, new_prefix = pair.partition("=")
        if not sep or not old_prefix:
            parser.error(f"--rename wants OLD=NEW (a key prefix and its new form), got {pair!r}")
        renames.append((old_prefix, new_prefix))

    def renamed(key):
        for old_prefix, new_prefix in renames:
            if key.startswith(old_prefix):
                return new_prefix + key[len(old_prefix):]
        return key

    old = json.loads(Path(args.compare).read_text(encoding="utf-8"))
    # --pages compares the old snapshot's pages under the same glob, so a page that is gone is still reported
    old = {page: {renamed(k): v for k, v in values.items()} for page, values in old.items()
           if Path(page).relative_to("notebooks").match(pattern)}
    problems = []
    for page in sorted(set(old) | set(snap)):
        a, b = old.get(page), snap.get(page)
        if a is None or b is None:
            problems.append(f"{page}: {'new page' if a is None else 'page gone'}")
            continue
        for key in sorted(set(a) | set(b)):
            if key not in b:
                problems.append(f"{page}: {key} no longer glued")
            elif key not in a:
                problems.append(f"{page}: {key} newly glued = {b[key]!r}")
            elif not MEASURED_HERE.match(key) and not same(a[key], b[key]):
                problems.append(f"{page}: {key} {a[key]!r} -> {b[key]!r}")
    n = sum(len(v) for v in old.values())
    print(f"compared {n} glued values on {len(old)} pages: {len(problems)} differences")
    for line in problems:
        print("  " + line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
