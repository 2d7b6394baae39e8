"""Build both editions of the site into _build/site/{en,zh}, plus a language-choice page.

    python book/tools/build.py            # incremental (what `make site` runs)
    python book/tools/build.py --strict   # clean, all pages, warnings are errors (tests)
    COURSE_BUILD_DIR=/tmp/mybuild python book/tools/build.py   # build somewhere else

Each edition is one Jupyter Book (Sphinx) build. The English edition uses _config.yml and
_toc.yml; the Chinese one merges book/zh/config-overrides.yml on top and swaps /en/ for /zh/
in the table of contents, so the two editions cannot differ in structure. Notebook outputs
are cached in a folder named for a hash of infra_lib (code and data): changing the library
re-executes every notebook, which Jupyter Book's own cache would not notice.
"""
import argparse
import copy
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("COURSE_BUILD_DIR", ROOT / "_build")).resolve()   # override: a private build
SITE = BUILD / "site"
EDITIONS = ("en", "zh")


def library_fingerprint(lib=ROOT / "infra_lib"):
    """A short hash of every file in infra_lib (code and data); changes when any of them does."""
    h = hashlib.sha256()
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
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    if lang == "zh":
        overrides = yaml.safe_load((ROOT / "book/zh/config-overrides.yml").read_text(encoding="utf-8"))
        captions = overrides.pop("toc_captions", {})
        config = merge(config, overrides)
        toc = yaml.safe_load(yaml.safe_dump(toc, allow_unicode=True).replace("/en/", "/zh/"))
        for part in toc.get("parts", []):
            part["caption"] = captions.get(part["caption"], part["caption"])
    config["execute"]["cache"] = str(BUILD / "cache" / library_fingerprint())
    config["sphinx"]["local_extensions"] = {
        name: str(ROOT / path) for name, path in config["sphinx"]["local_extensions"].items()}
    return config, toc


def vendor_ready():
    needed = ["book/_static/vendor/mathjax/tex-mml-chtml.js", "book/_static/vendor/require.min.js",
              "book/_static/vendor/embed-amd.js"]
    missing = [p for p in needed if not (ROOT / p).exists()]
    if missing:
        sys.exit("Missing offline scripts: " + ", ".join(missing) + ". Run `make setup` first.")


def build_edition(lang, strict):
    config, toc = edition_config(lang)
    out = BUILD / lang
    BUILD.mkdir(exist_ok=True)
    cfg_path, toc_path = BUILD / f"{lang}.config.yml", BUILD / f"{lang}.toc.yml"
    cfg_path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    toc_path.write_text(yaml.safe_dump(toc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    cmd = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(ROOT), "--path-output", str(out),
           "--config", str(cfg_path), "--toc", str(toc_path)]
    if strict:
        cmd += ["-W", "-n", "--keep-going", "--all"]
    env = {**os.environ, "COURSE_EDITION": lang, "PYTHONPATH": str(ROOT)}
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)
    target = SITE / lang
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(out / "_build" / "html", target)
    drop_repeated_inline_scripts(target)
    # Sphinx 7.4 does not overwrite static files it copied before: refresh ours (not vendor/).
    for path in (ROOT / "book" / "_static").glob("*.*"):
        shutil.copy(path, target / "_static" / path.name)


def drop_repeated_inline_scripts(html_dir):
    """Jupyter Book registers some extensions' inline <script> twice (sphinx-thebe's config,
    togglebutton's selector); the second `const THEBE_JS_URL` throws in the browser console.
    Keep the first copy of each identical inline script line."""
    for page in html_dir.rglob("*.html"):
        lines, seen, kept = page.read_text(encoding="utf-8").split("\n"), set(), []
        for line in lines:
            key = line.strip()
            if key.startswith("<script>") and key.endswith("</script>"):
                if key in seen:
                    continue
                seen.add(key)
            kept.append(line)
        if len(kept) != len(lines):
            page.write_text("\n".join(kept), encoding="utf-8")


def write_landing_page():
    SITE.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "book" / "landing.html", SITE / "index.html")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="clean build, all pages, warnings are errors")
    parser.add_argument("--lang", choices=EDITIONS, action="append", help="build only this edition")
    args = parser.parse_args(argv)
    vendor_ready()
    if args.strict:
        for lang in EDITIONS:
            shutil.rmtree(BUILD / lang, ignore_errors=True)
        shutil.rmtree(BUILD / "cache", ignore_errors=True)
    for lang in args.lang or EDITIONS:
        start = time.perf_counter()
        build_edition(lang, args.strict)
        print(f"[build] {lang}: {time.perf_counter() - start:.1f} s", flush=True)
    write_landing_page()
    print(f"[build] site: {SITE / 'index.html'}")


if __name__ == "__main__":
    main()
