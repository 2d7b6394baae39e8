"""Build both editions of the site into _build/site/{en,zh}, plus a language-choice page.

    python book/tools/build.py            # incremental (what `make site` runs)
    python book/tools/build.py --strict   # clean, all pages, nitpicky (tests)
    python book/tools/build.py --lang en  # one edition only; -v echoes Sphinx's output
    COURSE_BUILD_DIR=/tmp/mybuild python book/tools/build.py   # build somewhere else
    COURSE_TOC=/tmp/my_toc.yml COURSE_BUILD_DIR=/tmp/mybuild python book/tools/build.py
                                          # a private build of some pages (a chapter in progress)

Nothing breaks quietly: warnings are errors in every build, a cell that raises, a glue key no
cell glued or a page that fails to execute stops the build (exit status 1) and nothing of that
edition is published. Both editions are always built, then one summary names each problem by
edition, page, line of the .md source and exception; Sphinx's full output is in BUILD/<lang>.log.

Each edition is one Jupyter Book (Sphinx) build. The English edition uses _config.yml and
_toc.yml; the Chinese one merges book/zh/config-overrides.yml on top and swaps /en/ for /zh/
in the table of contents, so the two editions cannot differ in structure (``edition_config``, in
book/tools/course.py with the folders and editions every tool shares). The two build side by
side. Notebook outputs are cached per edition in a folder named for a hash of infra_lib (code and
data): changing the library re-executes every notebook, which Jupyter Book's own cache would not
notice.

After both editions, BUILD/site/lite gets the live pages (book/tools/lite.py): each chapter's
widget cell as a JupyterLite notebook that runs in the browser (Pyodide), from files `make setup`
vendored; the build stops with a message naming what is missing if they are not there.
"""
import argparse
import posixpath
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

# book/tools (this script's folder, on sys.path when it runs; pythonpath in pyproject.toml for the tests)
import bundle  # the reader's zip
import epub  # the EPUB of each edition
import lite  # the live pages, JupyterLite
import mathml  # formulas as MathML at build time
import pdf  # the PDF of each edition
import slim  # the theme's style sheets and icon fonts, trimmed to what the pages use
from course import (BUILD, EDITIONS, ROOT, SITE, TOC, edition_config, edition_source,  # the shared configuration
                    moved_folders, page_name, site_toc, sphinx_env, toc_docs)


VENDOR_FILES = ("book/_static/vendor/require.min.js", "book/_static/vendor/embed-amd.js",
                "book/node_modules/mathjax/es5/node-main.js")   # MathJax: TeX to MathML, in Node, at build time


def vendor_ready():
    missing = [p for p in VENDOR_FILES if not (ROOT / p).exists()]
    if missing:
        sys.exit("Missing offline scripts: " + ", ".join(missing) + ". Run `make setup` first.")


def build_edition(lang, strict, verbose=False):
    """One edition's Jupyter Book build, always with warnings as errors (``-W --keep-going``).

    Sphinx's output goes to BUILD/<lang>.log (echoed when ``verbose``). Returns the problems
    found (a list of Problem); the edition is copied into SITE/<lang> only when there are none,
    so a page with a traceback or a hole where a number should be is never published.
    """
    config, toc = edition_config(lang)
    out = BUILD / lang
    BUILD.mkdir(exist_ok=True)
    cfg_path, toc_path = BUILD / f"{lang}.config.yml", BUILD / f"{lang}.toc.yml"
    cfg_path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    toc_path.write_text(yaml.safe_dump(site_toc(toc), allow_unicode=True, sort_keys=False), encoding="utf-8")
    source = edition_source(lang, toc)          # one link per page: the site's addresses (course.py)
    cmd = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(source), "--path-output", str(out),
           "--config", str(cfg_path), "--toc", str(toc_path), "-W", "--keep-going"]
    failed_marker = BUILD / f"{lang}.failed"
    if strict:
        cmd += ["-n", "--all"]
    elif failed_marker.exists():
        # Sphinx re-reads only changed pages, so the warnings of a page left as it was would not
        # be repeated: after a failed build, read every page again (executions stay cached).
        cmd += ["--all"]
    shutil.rmtree(out / "_build" / "html" / "reports", ignore_errors=True)   # tracebacks of old runs
    env = sphinx_env(lang)
    log_path = BUILD / f"{lang}.log"
    with open(log_path, "w", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, encoding="utf-8", errors="replace")
        for line in proc.stdout:
            log.write(line)
            if verbose:
                print(line, end="", flush=True)
        returncode = proc.wait()
    problems = log_problems(lang, log_path.read_text(encoding="utf-8"), out / "_build" / "html")
    if returncode != 0:
        problems += crash_problems(lang, log_path.read_text(encoding="utf-8"))
    if returncode != 0 and not problems:
        tail = strip_ansi(log_path.read_text(encoding="utf-8")).strip().splitlines()[-15:]
        problems.append(Problem(lang, "", None, f"jupyter-book exited with status {returncode}:\n"
                                + "\n".join("    " + t for t in tail)))
    if not problems:                            # every formula as MathML: no MathJax in the browser
        html_dir = out / "_build" / "html"
        formulas, math_errors = mathml.convert_site(html_dir)
        problems += [Problem(lang, str(page.relative_to(html_dir).with_suffix(".md")), None,
                             f"TeX that MathJax cannot read: {tex!r}: {error}") for page, tex, error in math_errors]
    if problems:
        failed_marker.write_text("\n".join(p.line() for p in problems) + "\n", encoding="utf-8")
        return problems
    failed_marker.unlink(missing_ok=True)
    html_dir = out / "_build" / "html"
    for folder in moved_folders(toc):            # pages of the old layout, kept by an incremental build
        shutil.rmtree(html_dir / folder, ignore_errors=True)
        shutil.rmtree(html_dir / "_sources" / folder, ignore_errors=True)
    target = SITE / lang
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(out / "_build" / "html", target)
    drop_repeated_inline_scripts(target)
    # Sphinx 7.4 does not overwrite static files it copied before: refresh ours (not vendor/).
    for path in (ROOT / "book" / "_static").glob("*.*"):
        shutil.copy(path, target / "_static" / path.name)
    print(f"[build] {lang}: {slim.slim(target)}", flush=True)   # the theme's unused rules and icons out
    write_redirects(target, lang, toc)
    return []


REDIRECT = """<!DOCTYPE html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>
<meta name="robots" content="noindex"><link rel="canonical" href="{url}">
<meta http-equiv="refresh" content="0; url={url}">
<script>location.replace("{url}" + location.hash)</script>
</head><body><p><a href="{url}">{title}</a></p></body></html>
"""
MOVED = {"en": "This page has moved", "zh": "本页已移到新地址"}


def write_redirects(site_dir, lang, toc):
    """The addresses the site had before each edition was built from its own source folder
    (course.edition_source): en/notebooks/en/06_performance.html, en/book/en/glossary.html. Each
    becomes a page that sends the reader to the page's address now (en/06_performance.html), with
    the #section of the link kept, so links and bookmarks given out before still work."""
    for doc in toc_docs(toc):
        if "/" not in doc:
            continue
        old = site_dir / f"{doc}.html"
        url = posixpath.relpath(f"{page_name(doc)}.html", posixpath.dirname(doc))
        old.parent.mkdir(parents=True, exist_ok=True)
        old.write_text(REDIRECT.format(lang="zh-CN" if lang == "zh" else "en", url=url, title=MOVED[lang]),
                       encoding="utf-8")


# --- what went wrong, named by page, line of the .md source, and exception ------------------------

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Sphinx: "/abs/path.md:21: WARNING: message [type.subtype]" (location and line optional)
WARNING_LINE = re.compile(r"^(?:(?P<path>[^\s:][^:]*?)(?::(?P<line>\d+))?: )?(?P<level>WARNING|ERROR|CRITICAL|SEVERE): "
                          r"(?P<msg>.*?)(?: \[(?P<type>[\w.-]+)\])?\s*$")
GLUE_KEY = re.compile(r"(?:No key|Glue reference) '(?P<key>[^']+)'")
CELL_SOURCE = re.compile(r"An error occurred while executing the following cell:\n-{6,}\n(?P<src>.*?)\n-{6,}\n", re.S)
CELL_LINE = re.compile(r"Cell In\[\d*\], line (\d+)")
TIMEOUT_SOURCE = re.compile(r"Here is a preview of the cell contents:\n-{6,}\n(?P<src>.*?)\n-{6,}", re.S)


def strip_ansi(text):
    return ANSI.sub("", text)


class Problem:
    """One thing that stops an edition from being published."""

    def __init__(self, lang, page, line, what, follow_on=False):
        self.lang, self.page, self.line_no, self.what, self.follow_on = lang, page, line, what, follow_on

    def where(self):
        return f"{self.page}:{self.line_no}" if self.line_no else (self.page or "(no page)")

    def line(self):
        return f"{self.lang}  {self.where()}  {self.what}"


def _relative(path):
    try:
        return Path(path).resolve().relative_to(ROOT).as_posix()
    except (ValueError, OSError):
        return str(path)


def _md_lines(page):
    try:
        return (ROOT / page).read_text(encoding="utf-8").split("\n")
    except OSError:
        return []


def glue_key_lines(page, key):
    """Lines of the .md source whose prose uses glue ``key`` ({glue:...}`key` or a {glue:...} directive)."""
    use = re.compile(r"\{glue(?::\w+)?\}`" + re.escape(key) + r"(?=[:`])|\{glue(?::\w+)?\}\s+" + re.escape(key) + r"\s*$")
    return [i for i, text in enumerate(_md_lines(page), 1) if use.search(text)]


def cell_source_line(page, source, line_in_cell=1):
    """The line of the .md source where line ``line_in_cell`` of the code cell ``source`` is."""
    lines = _md_lines(page)
    src = source.strip("\n").split("\n")
    if not src or not lines:
        return None
    for i in range(len(lines)):
        if lines[i : i + len(src)] == src:
            return i + line_in_cell
    for i, text in enumerate(lines):           # a shortened preview: match the first line only
        if text == src[0]:
            return i + line_in_cell
    return None


def execution_problem(lang, page, report):
    """The exception of a failed execution (the .err.log myst-nb writes) as a Problem at its source line."""
    text = strip_ansi(report)
    if "CellTimeoutError" in text or "A cell timed out" in text:
        m = TIMEOUT_SOURCE.search(text)
        timeout = re.search(r"after (\d+) seconds", text)
        what = f"the cell that starts here timed out (after {timeout.group(1) if timeout else '?'} s)"
        line = cell_source_line(page, m.group("src")) if m else None
        return Problem(lang, page, line, what)
    m = CELL_SOURCE.search(text)
    if not m:                                  # the kernel died, or the notebook could not start
        last = [t for t in text.strip().splitlines() if t.strip()]
        return Problem(lang, page, None, "the notebook failed to execute: " + (last[-1].strip() if last else "?"))
    after = text[m.end():]
    cell_line = CELL_LINE.search(after)
    tail = [t for t in after.strip().splitlines() if t.strip()]
    exception = tail[-1].strip() if tail else "unknown error"
    line_in_cell = int(cell_line.group(1)) if cell_line else 1
    line = cell_source_line(page, m.group("src"), line_in_cell)
    src = m.group("src").split("\n")
    code = src[line_in_cell - 1].strip() if 0 < line_in_cell <= len(src) else ""
    return Problem(lang, page, line, f"cell raised {exception}" + (f"\n        {code}" if code else ""))


PROGRESS = re.compile(r"^(?:reading sources|writing output)\.\.\. \[\s*\d+%\] (\S+)")


def crash_problems(lang, log):
    """Sphinx stopped ("Exception occurred:", e.g. the kernel died): the exception and the page
    it was reading or writing then."""
    lines = strip_ansi(log).splitlines()
    for i, text in enumerate(lines):
        if text.strip() != "Exception occurred:":
            continue
        page = ""
        for before in reversed(lines[:i]):
            m = PROGRESS.match(before.strip())
            if m:
                docname = m.group(1)             # the page's name in the build: its file, from the table
                files = {page_name(doc): doc for doc in toc_docs(edition_config(lang)[1])}
                page = f"{files[docname]}.md" if docname in files else docname
                break
        exception = next((t.strip() for t in lines[i + 1:] if t and not t.startswith(" ")), "unknown error")
        what = re.sub(r"^[\w.]+\.(?=\w+(Error|Exception)\b)", "", exception)   # nbclient.exceptions.X -> X
        return [Problem(lang, page, None, f"the build stopped: {what}")]
    return []


def log_problems(lang, log, html_dir):
    """The problems of one edition's build: failed executions (from their tracebacks), then every
    warning Sphinx printed. Warnings that follow from a failed execution (its glue keys, which the
    cell never glued) are kept but marked follow-on, so the summary leads with the cause."""
    problems, failed_pages, seen = [], set(), set()
    for raw in strip_ansi(log).splitlines():
        m = WARNING_LINE.match(raw.strip())
        if not m:
            continue
        page = _relative(m.group("path")) if m.group("path") else ""
        msg, kind = m.group("msg"), m.group("type") or ""
        if kind == "mystnb.exec":
            if msg.startswith("Executing notebook failed") and page not in failed_pages:
                failed_pages.add(page)
                docname = page_name(re.sub(r"\.(md|ipynb)$", "", page))   # the page's name in the build
                report = Path(html_dir) / "reports" / (docname + ".err.log")
                text = report.read_text(encoding="utf-8") if report.exists() else msg
                problems.append(execution_problem(lang, page, text))
            continue                            # "traceback saved in ...": the report read above
        key = GLUE_KEY.search(msg)
        if kind == "mystnb.glue" and key:
            lines = glue_key_lines(page, key.group("key")) or [int(m.group("line") or 0) or None]
            what = f"glue key {key.group('key')!r} is not glued by any cell of the page (a hole in the text)"
            for line in lines:
                problem = Problem(lang, page, line, what)
                if problem.line() not in seen:
                    seen.add(problem.line())
                    problems.append(problem)
            continue
        problem = Problem(lang, page, int(m.group("line")) if m.group("line") else None,
                          msg + (f" [{kind}]" if kind else ""))
        if problem.line() not in seen:
            seen.add(problem.line())
            problems.append(problem)
    for p in problems:                          # a failed page's missing glue keys are follow-ons
        if p.page in failed_pages and p.what.startswith("glue key"):
            p.follow_on = True
    return problems


def summary(problems, shown=25):
    """A short report that leads with the causes: page, .md line, exception or missing key."""
    causes = [p for p in problems if not p.follow_on]
    follow = len(problems) - len(causes)
    pages = sorted({(p.lang, p.page) for p in problems})
    out = [f"[build] FAILED: {len(causes)} problem(s) in {len(pages)} page(s); nothing was published "
           f"for the edition(s) concerned."]
    out += ["  " + p.line() for p in causes[:shown]]
    if len(causes) > shown:
        out.append(f"  ... and {len(causes) - shown} more")
    if follow:
        out.append(f"  ({follow} follow-on warning(s) not shown: glue keys of pages whose execution failed)")
    langs = sorted({p.lang for p in problems})
    out.append("  full logs: " + ", ".join(str(BUILD / f"{lang}.log") for lang in langs))
    return "\n".join(out)


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


def copy_notebook_downloads():
    """Each chapter's readable notebook (book/ext/reader_notebook.py: the page's prose as plain
    Markdown, its figures as outputs, its code runnable) beside its page, for the page's .ipynb
    download; the same files as the zip's (bundle.reader_notebooks)."""
    for lang in EDITIONS:
        for nb in bundle.reader_notebooks(BUILD, lang):
            target = SITE / lang / nb.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(nb, target)


def write_landing_page():
    import landing  # book/tools
    landing.write()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="clean build, all pages, nitpicky")
    parser.add_argument("--lang", choices=EDITIONS, action="append", help="build only this edition")
    parser.add_argument("-v", "--verbose", action="store_true", help="echo Sphinx's output (always in BUILD/<lang>.log)")
    args = parser.parse_args(argv)
    vendor_ready()
    lite.ready()                            # the live pages' Pyodide and wheels: else "run `make setup`"
    if args.strict:
        for lang in EDITIONS:
            shutil.rmtree(BUILD / lang, ignore_errors=True)
        shutil.rmtree(BUILD / "cache", ignore_errors=True)
    def one_edition(lang):
        start = time.perf_counter()
        print(f"[build] {lang}: building (Sphinx log: {BUILD / f'{lang}.log'})", flush=True)
        found = build_edition(lang, args.strict, args.verbose)
        state = f"FAILED, {sum(not p.follow_on for p in found)} problem(s)" if found else "ok"
        print(f"[build] {lang}: {time.perf_counter() - start:.1f} s, {state}", flush=True)
        return found

    # Every edition, even after one failed, so that one summary reports both. They build side by
    # side (two Sphinx processes, each with its own execution cache); -v echoes one at a time.
    langs = args.lang or EDITIONS
    with ThreadPoolExecutor(max_workers=1 if args.verbose else len(langs)) as pool:
        problems = [p for found in pool.map(one_edition, langs) for p in found]
    if problems:
        print(summary(problems), flush=True)
        sys.exit(1)
    write_landing_page()
    if set(args.lang or EDITIONS) == set(EDITIONS):
        print(f"[build] reader's bundle: {bundle.make_bundle(SITE / 'downloads', BUILD)}")
        copy_notebook_downloads()
        # Independent of each other (each writes its own files): side by side, the two Sphinx
        # epub builds, the two PDFs (a Chromium each) and the live pages.
        with ThreadPoolExecutor(max_workers=5) as pool:
            epubs = [pool.submit(epub.make_epub, lang) for lang in EDITIONS]
            pdfs = [pool.submit(pdf.make_pdfs, (lang,)) for lang in EDITIONS]
            live_job = pool.submit(lite.build, SITE, BUILD / "lite-src", TOC)
            for done in epubs:
                path, formulas = done.result()
                print(f"[build] EPUB: {path} ({formulas} formulas as MathML)", flush=True)
            for path, count in (made for done in pdfs for made in done.result()):
                print(f"[build] PDF: {path} ({count} pages of the course)", flush=True)
            live = live_job.result()
        print(f"[build] live pages: {live['path']} ({len(live['notebooks'])} notebooks, "
              f"{live['bytes'] / 1e6:.1f} MB, {live['seconds']:.1f} s{', unchanged' if live.get('cached') else ''})",
              flush=True)
    print(f"[build] site: {SITE / 'index.html'}")


if __name__ == "__main__":
    main()
