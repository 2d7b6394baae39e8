"""The live pages: each chapter, whole, in JupyterLite inside the site, its sliders and answer boxes live.

    python book/tools/lite.py vendor     # what `make setup` runs: Pyodide's core and wheels (downloads)
    python book/tools/lite.py build      # what build.py runs after both editions: BUILD/site/lite

Python runs in the reader's browser (Pyodide, through the JupyterLite Pyodide kernel) and every
file it loads is served by the site itself: nothing is fetched from a CDN or from PyPI, at build
time or in the browser. Two steps:

``vendor`` (setup, the only step that downloads; book/lite-vendor/, git-ignored): Pyodide's core
from the npm package book/package.json pins (the version the kernel expects,
``jupyterlite_pyodide_kernel.constants.PYODIDE_VERSION``), the pure-Python wheels the kernel loads
at start (the closure of KERNEL_PACKAGES in Pyodide's lock, at the lock's exact versions, from
pip; their sha256 is rewritten in the lock because Pyodide repacks its copies) and the widget
wheels at the versions requirements.txt pins. numpy and matplotlib have no Pyodide wheel on the
registries, so most of a chapter's code cannot run in the browser; the widgets, the answer
checker and everything they call are pure Python (tests/test_widgets_pure.py).

``build`` (every site build, after both editions): a wheel of infra_lib, made here from the
checkout (no setuptools, no network), is added to the lock under its canonical name ``infra-lib``
and preloaded by the kernel; one notebook per chapter and edition is generated, and ``jupyter lite
build`` writes BUILD/site/lite. A chapter's live notebook (``live_chapter``) is the whole chapter:
its readable notebook (book/ext/reader_notebook.py: the page's prose with its numbers, equations,
figures and folded solutions), in which the cells that run are the chapter's ``edition`` cell,
its widget cells (``widget_cells``: code tagged ``skip-execution`` that imports from
``infra_lib.widgets``), a cell that names the measured run and offers an upload of the reader's
own (chapters that read one: ``MEASURED_RUN``), and after each exercise a cell of answer boxes
(``infra_lib.widgets.exercise_check``) graded against the answers the page was built with (glued
as ``<key>_answer_key``). Every other code cell becomes Markdown: its outputs as the page built
them and its code folded. A chapter's page links to
``lite/notebooks/index.html?path=<lang>/<chapter>.ipynb`` from a "Live" button in its header and
from its "Explore the assumptions" box (book/ext/course_ext.py).

The review chapter (``NN_review``, written by book/tools/make_review.py) gets a live notebook too
(``live_notebook``): its section headings, its scoreboard cell and its quiz cells (code tagged
``skip-execution`` that calls ``quiz(...)``), after its ``edition`` cell and one import of the quiz.
The quiz and the question bank are pure Python (tests/test_widgets_pure.py); the reader's score is
kept in ``review-progress.json`` beside the notebook, in the browser's storage.
"""
import base64
import csv
import hashlib
import html
import io
import json
import re
import shutil
import subprocess
import sys
import time
import tomllib
import zipfile
from pathlib import Path

from course import BUILD, EDITIONS, ROOT, SITE, TOC  # book/tools

sys.path.insert(0, str(ROOT / "book" / "ext"))
from reader_notebook import _fence  # noqa: E402  (book/ext: a code block as Markdown, as the readable notebook writes it)

VENDOR = ROOT / "book" / "lite-vendor"          # written by `vendor` (setup), read by `build`
NPM_PYODIDE = ROOT / "book" / "node_modules" / "pyodide"
CORE_FILES = ("pyodide.asm.mjs", "pyodide.asm.wasm", "pyodide.mjs", "pyodide.js", "python_stdlib.zip",
              "pyodide-lock.json", "package.json")
KERNEL_PACKAGES = ("micropip", "ipython", "jedi")      # what the Pyodide kernel loads when it starts
WIDGET_WHEELS = ("ipywidgets", "comm", "jupyterlab_widgets")   # versions: requirements.txt
LOCK_DEPENDS = {"ipywidgets": ["comm", "ipython", "traitlets", "jupyterlab-widgets"],
                "comm": ["traitlets"], "jupyterlab-widgets": [], "infra-lib": ["ipywidgets"]}
CHAPTER = re.compile(r"notebooks/en/(\d+_[\w-]+)\.md$")
QUIZ_CALL = re.compile(r"^\s*(quiz|scoreboard)\(", re.M)   # the review's widget cells
QUIZ_IMPORT = "from infra_lib.widgets.quiz import quiz, scoreboard"
WIDGET_IMPORT = re.compile(r"^\s*from\s+infra_lib\.widgets(\.\w+)?\s+import\b|^\s*import\s+infra_lib\.widgets", re.M)

# The first cell of each live notebook, in the edition's language (no numbers: nothing to glue).
INTRO = {
    "en": ("> **Live**: the whole chapter, with Python running in this browser tab (Pyodide); every file it "
           "needs comes from this site. Choose **Run → Run All Cells** in the menu bar at the top; the first "
           "start of Python takes a while. Then the chapter's sliders run here, and so do the answer boxes "
           "under each exercise of \"Check yourself\": type an answer with its unit and press **Check**; it is "
           "graded as the review chapter grades (two significant figures are enough, a count must be exact). "
           "The text, tables and figures are as the page built them: the code behind them needs numpy and "
           "matplotlib, which the browser's Python here cannot load, so it is folded above each result and runs "
           "when you download the chapter (the .ipynb button on its page) and open it in Jupyter. A value "
           "typed into a slider's box outside its range is set to the nearest end of the range. Changes are "
           "kept in this browser only."),
    "zh": ("> **在线运行**：这是整章内容，Python 在这个浏览器标签页里运行（Pyodide），用到的每个文件都来自本站。"
           "在顶部菜单栏选 **Run → Run All Cells**；第一次启动 Python 要等一会儿。之后本章的滑块在这里运行，"
           "“自测”里每道练习下面的答案框也在这里运行：输入答案并带上单位，再点 **检查答案**，"
           "判分规则与复习题一章相同（两位有效数字即可，计数题必须完全一致）。"
           "正文、表格和图都是建站时生成好的，和网页上一样；生成它们的代码要用 numpy 和 matplotlib，"
           "浏览器里的 Python 装不了，所以代码折叠在各个结果上方；下载本章（网页上的 .ipynb 按钮），"
           "在 Jupyter 里打开，就能运行。在滑块的输入框里键入超出范围的值，会自动改成范围的上限或下限。"
           "改动只保存在这个浏览器里。"),
}


INTRO_REVIEW = {
    "en": ("# {title}\n\n"
           "**Live**: Python runs in this browser tab (Pyodide), and every file it needs comes from this "
           "site. Choose **Run → Run All Cells** in the menu bar at the top; the first start of Python takes "
           "a while. Press **Try it** under a question, type an answer and press **Check**. Your score and "
           "the questions you answered are kept in this browser (the file `review-progress.json` beside "
           "this notebook)."),
    "zh": ("# {title}\n\n"
           "**在线运行**：Python 在这个浏览器标签页里运行（Pyodide），用到的每个文件都来自本站。"
           "在顶部菜单栏选 **Run → Run All Cells**；第一次启动 Python 要等一会儿。"
           "点题目下面的 **作答**，输入答案，再点 **检查答案**。"
           "你的得分和答过哪些题保存在这个浏览器里（本 notebook 旁边的文件 `review-progress.json`）。"),
}


class Missing(SystemExit):
    """Something the live pages need is not installed: a message that says what, never a traceback."""

    def __init__(self, what):
        super().__init__(f"[lite] cannot build the live pages: {what}. Run `make setup` first.")


def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def pinned(name, requirements=ROOT / "requirements.txt"):
    """The version requirements.txt pins for ``name``."""
    for line in requirements.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s#]+)", line)
        if m and canonical(m.group(1)) == canonical(name):
            return m.group(2)
    raise Missing(f"{name} is not pinned in requirements.txt")


def kernel_version():
    try:
        from jupyterlite_pyodide_kernel.constants import PYODIDE_VERSION
    except ImportError as error:
        raise Missing(f"jupyterlite-pyodide-kernel is not installed in .venv ({error})") from None
    return PYODIDE_VERSION


def closure(lock, roots):
    """The packages of Pyodide's lock that ``roots`` need, by canonical name."""
    packages = {canonical(k): v for k, v in lock["packages"].items()}
    seen, todo = set(), [canonical(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += [canonical(d) for d in packages[name]["depends"]]
    return sorted(seen)


def pip_download(specs, dest, python_version):
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
           "--only-binary=:all:", "--python-version", python_version, "-d", str(dest), *specs]
    subprocess.run(cmd, check=True)


def wheel_for(dest, name, version):
    stem = re.sub(r"[-_.]+", "_", name).lower()
    found = [p for p in dest.glob("*.whl") if p.name.lower().startswith(f"{stem}-{version}-")]
    if len(found) != 1:
        raise SystemExit(f"[lite] expected one wheel of {name}=={version} in {dest}, found {found}")
    return found[0]


def lock_entry(name, version, wheel, imports, depends):
    return {"name": name, "version": version, "file_name": wheel.name, "install_dir": "site",
            "sha256": sha256(wheel), "package_type": "package", "imports": imports, "depends": depends,
            "unvendored_tests": False}


def vendor(target=VENDOR):
    """Pyodide's core, the kernel's wheels and the widget wheels into ``target``/pyodide (downloads)."""
    version = kernel_version()
    core_version = json.loads((NPM_PYODIDE / "package.json").read_text())["version"] \
        if (NPM_PYODIDE / "package.json").exists() else None
    if core_version != version:
        raise SystemExit(f"[lite] the Pyodide kernel expects pyodide {version}, book/node_modules has "
                         f"{core_version}: pin \"pyodide\": \"{version}\" in book/package.json and run npm ci")
    out = target / "pyodide"
    shutil.rmtree(target, ignore_errors=True)
    out.mkdir(parents=True)
    for name in CORE_FILES:
        shutil.copy(NPM_PYODIDE / name, out / name)
    lock = json.loads((out / "pyodide-lock.json").read_text())
    python = ".".join(lock["info"]["python"].split(".")[:2])
    keys = {canonical(k): k for k in lock["packages"]}
    needed = closure(lock, KERNEL_PACKAGES)
    pip_download([f"{lock['packages'][keys[n]]['name']}=={lock['packages'][keys[n]]['version']}" for n in needed],
                 out, python)
    for n in needed:                      # PyPI's wheel, not Pyodide's repack: its own name and hash
        entry = lock["packages"][keys[n]]
        wheel = wheel_for(out, entry["name"], entry["version"])
        entry["file_name"], entry["sha256"] = wheel.name, sha256(wheel)
    versions = {name: pinned(name) for name in WIDGET_WHEELS}
    pip_download([f"{n}=={v}" for n, v in versions.items()], out, python)
    for name, version_ in versions.items():
        key = canonical(name)
        wheel = wheel_for(out, name, version_)
        lock["packages"][key] = lock_entry(key, version_, wheel, [name.replace("-", "_")], LOCK_DEPENDS[key])
    # only what is listed may be loaded: drop the entries whose files are not here (numpy & co.)
    lock["packages"] = {k: v for k, v in lock["packages"].items() if (out / v["file_name"]).exists()}
    (out / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))
    size = sum(p.stat().st_size for p in out.iterdir())
    print(f"[lite] vendored Pyodide {version} and {len(lock['packages'])} wheels into {out} "
          f"({size / 1e6:.1f} MB)")
    return out


# --- build: the infra_lib wheel, the notebooks, jupyter lite build -------------------------------

def library_files(root=ROOT):
    """(path in the wheel, file) of what pyproject.toml ships: the packages' modules and package data."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    files = {}
    for package in project["tool"]["setuptools"]["packages"]:
        folder = root / package.replace(".", "/")
        for path in sorted(folder.glob("*.py")):
            files[path.relative_to(root).as_posix()] = path
    for package, patterns in project["tool"]["setuptools"]["package-data"].items():
        folder = root / package.replace(".", "/")
        for pattern in patterns:
            for path in sorted(folder.glob(pattern)):
                if path.is_file() and "__pycache__" not in path.parts:
                    files[path.relative_to(root).as_posix()] = path
    return project["project"], dict(sorted(files.items()))


def library_wheel(dest, root=ROOT):
    """A py3-none-any wheel of infra_lib written directly (reproducible: fixed file times)."""
    meta, files = library_files(root)
    name, version = meta["name"], meta["version"]
    dist = f"{name}-{version}.dist-info"
    metadata = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {meta['description']}\n"
                f"Requires-Python: {meta['requires-python']}\n"
                + "".join(f"Requires-Dist: {d}\n" for d in meta.get("dependencies", [])))
    extra = {f"{dist}/METADATA": metadata.encode(),
             f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: book/tools/lite.py\nRoot-Is-Purelib: true\n"
                              b"Tag: py3-none-any\n",
             f"{dist}/top_level.txt": b"infra_lib\n"}
    wheel = Path(dest) / f"{name}-{version}-py3-none-any.whl"
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        def add(arcname, data):
            info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            writer.writerow([arcname, f"sha256={digest}", len(data)])
        for arcname, path in files.items():
            add(arcname, path.read_bytes())
        for arcname, data in extra.items():
            add(arcname, data)
        writer.writerow([f"{dist}/RECORD", "", ""])
        info = zipfile.ZipInfo(f"{dist}/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        zf.writestr(info, record.getvalue(), compress_type=zipfile.ZIP_DEFLATED)
    return wheel, version


def _tags(cell):
    return set(cell.get("metadata", {}).get("tags", []))


def widget_cells(notebook):
    """The chapter's explore cells: code tagged ``skip-execution`` (not hidden) that imports a widget."""
    return [c for c in notebook.cells if c.cell_type == "code" and "skip-execution" in _tags(c)
            and "remove-input" not in _tags(c) and WIDGET_IMPORT.search(c.source)]


def has_widgets(md_path):
    """True when the chapter at ``md_path`` has an explore cell (read without jupytext: used by Sphinx)."""
    text = Path(md_path).read_text(encoding="utf-8")
    for m in re.finditer(r"^```\{code-cell\}[^\n]*\n((?::[^\n]*\n)*)(.*?)^```", text, re.M | re.S):
        tags = re.search(r"^:tags:\s*\[([^\]]*)\]", m.group(1), re.M)
        tags = {t.strip() for t in tags.group(1).split(",")} if tags else set()
        if "skip-execution" in tags and "remove-input" not in tags and WIDGET_IMPORT.search(m.group(2)):
            return True
    return False


def quiz_cells(notebook):
    """The review's widget cells: code tagged ``skip-execution`` that calls ``quiz`` or ``scoreboard``."""
    return [c for c in notebook.cells if c.cell_type == "code" and "skip-execution" in _tags(c)
            and QUIZ_CALL.search(c.source)]


def has_quiz(md_path):
    """True when the page at ``md_path`` has quiz cells (the review; read without jupytext: used by Sphinx)."""
    text = Path(md_path).read_text(encoding="utf-8")
    for m in re.finditer(r"^```\{code-cell\}[^\n]*\n((?::[^\n]*\n)*)(.*?)^```", text, re.M | re.S):
        tags = re.search(r"^:tags:\s*\[([^\]]*)\]", m.group(1), re.M)
        if tags and "skip-execution" in {t.strip() for t in tags.group(1).split(",")} and QUIZ_CALL.search(m.group(2)):
            return True
    return False


def has_live(md_path):
    """True when the page at ``md_path`` gets a live notebook: a chapter with widget cells or
    exercises (the whole chapter), or the review (its quizzes)."""
    return has_widgets(md_path) or has_quiz(md_path) or has_exercises(md_path)


def _review_cells(source):
    """The review's live cells: its section headings (markdown) and its quiz and scoreboard cells."""
    import nbformat

    out = []
    for c in source.cells:
        if c.cell_type == "markdown":
            heads = [line for line in c.source.splitlines() if line.startswith("## ")]
            out += [nbformat.v4.new_markdown_cell(h) for h in heads]
        elif "skip-execution" in _tags(c) and QUIZ_CALL.search(c.source):
            out.append(nbformat.v4.new_code_cell(c.source))
    while out and out[-1].cell_type == "markdown":       # a heading with no quiz after it (the Sources)
        out.pop()
    return out


EXERCISE = re.compile(r"^```\{exercise\}", re.M)
NOT_HERE = {   # the summary of a folded code cell that does not run in the live chapter
    "en": "The code of this cell (it ran when the page was built; it runs in Jupyter, not here)",
    "zh": "本单元格的代码（建站时已运行；只能在 Jupyter 里运行，这里不运行）",
}
RUN_CELL = {   # the live chapter's own cell for chapters whose widgets compare with a measured run
    "en": ("# The run the widgets below compare with: the course's H200 run, or a run of your own GPU.\n"
           "# To use yours: upload the zip of the folder `python -m infra_lib.gpu_bench --out my-gpu` wrote\n"
           "# with the button below, then set MEASURED_RUN to the name it gives and run the cells below again.\n"),
    "zh": ("# 下面的控件与哪次测量比较：课程的 H200 测量，或者你自己 GPU 的测量。\n"
           "# 要换成你自己的：先把 `python -m infra_lib.gpu_bench --out my-gpu` 生成的目录打成 zip，用下面的按钮上传；\n"
           "# 再把 MEASURED_RUN 设成上传后显示的名字，重新运行下面的单元格。\n"),
}


def has_exercises(md_path):
    """True when the page at ``md_path`` has a "Check yourself" exercise (read without jupytext)."""
    return bool(EXERCISE.search(Path(md_path).read_text(encoding="utf-8")))


def _outputs_markdown(cell):
    """A code cell's outputs as Markdown: images with their bytes (:func:`_data_image`), HTML as
    HTML, Markdown as Markdown, text in a fence; widgets and glue records left out."""
    parts = []
    for k, out in enumerate(cell.get("outputs", [])):
        if out.get("output_type") == "stream":
            if out.get("name") == "stdout" and out.get("text", "").strip():
                parts.append(_fence("".join(out["text"])))
            continue
        data = out.get("data", {})
        if "scrapbook" in out.get("metadata", {}) or "application/vnd.jupyter.widget-view+json" in data:
            continue
        image = next((m for m in ("image/png", "image/jpeg", "image/gif") if m in data), None)
        if image:
            alt = str(data.get("text/plain", "")).strip()
            alt = "" if alt.startswith("<") else alt
            parts.append(_data_image(alt, image, data[image], out.get("metadata", {}).get(image, {}).get("width")))
        elif "text/html" in data:
            parts.append("".join(data["text/html"]).strip())
        elif "text/markdown" in data:
            parts.append("".join(data["text/markdown"]).strip())
        elif "text/plain" in data and "".join(data["text/plain"]).strip():
            parts.append(_fence("".join(data["text/plain"])))
    return parts


def _data_image(alt, mime, b64, width=None):
    """An image as Markdown with its bytes in the link (a data: URL). Not a cell attachment: JupyterLab
    puts an attachment's ``attachment:`` URL in the page before it resolves it, and the browser's
    failed request for it is an error in the console of every reader. With a ``width`` (a figure
    drawn at 2x, infra_lib.figures.style.hidpi_png), an HTML image shown at that width."""
    data = "".join(b64) if isinstance(b64, list) else b64
    src = f"data:{mime};base64,{''.join(data.split())}"
    if width:
        return f'<img src="{src}" width="{int(width)}" alt="{html.escape(alt, quote=True)}" style="max-width: 100%">'
    return f"![{alt}]({src})"


def _inline_attachments(text, attachments):
    """Markdown whose ``attachment:NAME`` images carry their bytes instead (:func:`_data_image`)."""
    def repl(m):
        found = attachments.get(m.group(2))
        if not found:
            raise SystemExit(f"[lite] a Markdown cell shows attachment:{m.group(2)}, which it does not carry")
        mime, b64 = next(iter(found.items()))
        return _data_image(m.group(1), mime, b64)
    return re.sub(r"!\[([^\]]*)\]\(attachment:([^)\s]+)\)", repl, text)


def _shown_code(cell):
    """The code the page lets a reader open (hide-input, or shown): not the page's hidden set-up."""
    tags = _tags(cell)
    return not ({"remove-input", "remove-cell"} & tags) and not (
        cell.get("metadata", {}).get("jupyter", {}).get("source_hidden") and "hide-input" not in tags)


def live_chapter(reader, source, lang, answer_keys, stem):
    """The live notebook of a whole chapter: the readable notebook ``reader`` (book/ext/reader_notebook.py:
    the page's prose, numbers, equations, figures and folded solutions), in which

    * the cells that run here are the chapter's ``edition`` cell, its widget cells (``source``,
      the chapter's jupytext notebook, says which), and, after each exercise of ``answer_keys``
      (exercise label -> its answers as data, ``Exercise.answer_key``), a cell of answer boxes
      graded by the review's checker (``infra_lib.widgets.exercise_check``);
    * every other code cell becomes Markdown: its outputs (figures, tables, text) as the page built
      them, and its code folded under a line that says it runs in Jupyter, not here: most of the
      chapter's code needs numpy or matplotlib, which the browser's Python here cannot load;
    * a chapter whose widgets compare with a measured run (``MEASURED_RUN`` in its set-up cell)
      gets a cell that names the run, and an upload button for a run of the reader's own GPU.
    """
    import nbformat

    widgets = {c.source.strip() for c in widget_cells(source)}
    title = next((line[2:].strip() for c in source.cells if c.cell_type == "markdown"
                  for line in c.source.splitlines() if line.startswith("# ")), "")
    measured = any(c.cell_type == "code" and re.search(r"^MEASURED_RUN\s*=", c.source, re.M) for c in source.cells)
    nb = nbformat.v4.new_notebook()
    cells = [nbformat.v4.new_markdown_cell(INTRO[lang].format(title=title))]
    for cell in reader["cells"]:
        tags = _tags(cell)
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown":
            cells.append(nbformat.v4.new_markdown_cell(_inline_attachments(src, cell.get("attachments") or {}),
                                                       metadata=dict(cell.get("metadata", {}))))
            mark = cell.get("metadata", {}).get("course", {})
            key = answer_keys.get(mark.get("exercise", ""))
            if key:
                code = ("from infra_lib.widgets.exercise_check import exercise_check\n"
                        f"exercise_check({mark['title']!r}, {json.dumps(key, ensure_ascii=False)}, LANG)")
                check = nbformat.v4.new_code_cell(code)
                check.metadata["jupyter"] = {"source_hidden": True}
                check.metadata["tags"] = ["exercise-check"]
                cells.append(check)
            continue
        if "edition" in tags:
            cells.append(nbformat.v4.new_code_cell(src))
            if measured:
                cells.append(nbformat.v4.new_code_cell(
                    RUN_CELL[lang] + "from infra_lib import measurements\n"
                    "from infra_lib.widgets.run_upload import upload\n"
                    "MEASURED_RUN = measurements.RUN\nupload(LANG)"))
            continue
        if src.strip() in widgets:
            cells.append(nbformat.v4.new_code_cell(src))
            continue
        parts = _outputs_markdown(cell)
        if _shown_code(cell) and src.strip():
            parts.insert(0, f"<details>\n<summary>{NOT_HERE[lang]}</summary>\n\n{_fence(src)}\n\n</details>")
        if parts:
            cells.append(nbformat.v4.new_markdown_cell("\n\n".join(parts)))
    nb.cells = cells
    return _stable(nb, stem)


def _stable(nb, stem):
    """Stable cell ids (the same chapter gives the same file) and the Pyodide kernel."""
    for i, cell in enumerate(nb.cells):
        cell.id = f"{stem}-{i}"
    nb.metadata = {"kernelspec": {"name": "python", "display_name": "Python (Pyodide)", "language": "python"},
                   "language_info": {"name": "python"}}
    return nb


def chapter_notebook(md_path, lang, build_dir):
    """The live chapter of ``md_path`` from the edition's build in ``build_dir``: its readable
    notebook and its exercises' answer keys (glued when the page was built). Fails, naming the
    file, when the build has not written them: the live chapter never falls back to less."""
    import jupytext
    import nbformat

    stem = md_path.stem
    reader = build_dir / lang / "_build" / "reader" / f"{stem}.ipynb"
    glue_file = build_dir / lang / "_build" / "jupyter_execute" / f"{stem}.glue.json"
    for path in (reader, glue_file):
        if not path.is_file():
            raise SystemExit(f"[lite] the live chapter {lang}/{stem} needs {path}, which the build of the "
                             f"{lang!r} edition writes (book/tools/build.py): build both editions first")
    return live_chapter(nbformat.read(reader, as_version=4), jupytext.read(md_path), lang,
                        answer_keys(json.loads(glue_file.read_text(encoding="utf-8"))), stem)


def answer_keys(glue):
    """Exercise label ("ch6-ex1") -> its answers as data, from a page's glue data (myst-nb's
    ``<docname>.glue.json``: each exercise glued its ``Exercise.answer_key`` as JSON text under
    ``<key>_answer_key``)."""
    import ast

    from infra_lib.exercises import ANSWER_KEY_SUFFIX

    out = {}
    for key, output in glue.items():
        if not key.endswith(ANSWER_KEY_SUFFIX):
            continue
        text = output.get("data", {}).get("text/plain")
        try:
            value = json.loads(ast.literal_eval("".join(text) if isinstance(text, list) else text))
        except (ValueError, SyntaxError, TypeError) as error:
            raise SystemExit(f"[lite] the glued answer key {key} cannot be read ({error}): {str(text)[:120]}") from None
        out[key.removesuffix(ANSWER_KEY_SUFFIX).replace("_", "-")] = value
    return out


def live_notebook(md_path, lang):
    """The live notebook of one chapter: a title cell, the edition cell, the widget cells (for the
    review: the import of the quiz, then its headings, scoreboard and quiz cells)."""
    import jupytext
    import nbformat

    source = jupytext.read(md_path)
    review = bool(quiz_cells(source))
    cells = _review_cells(source) if review else widget_cells(source)
    if not cells:
        return None
    edition = [c for c in source.cells if c.cell_type == "code" and "edition" in _tags(c)]
    title = next((line[2:].strip() for c in source.cells if c.cell_type == "markdown"
                  for line in c.source.splitlines() if line.startswith("# ")), md_path.stem)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell((INTRO_REVIEW if review else INTRO)[lang].format(title=title))]
    nb.cells += [nbformat.v4.new_code_cell(c.source) for c in edition[:1]]
    if review:
        nb.cells += [nbformat.v4.new_code_cell(QUIZ_IMPORT)] + cells
    else:
        nb.cells += [nbformat.v4.new_code_cell(c.source) for c in cells]
    return _stable(nb, md_path.stem)


def chapters(toc_path):
    """The chapters (``NN_name``) of the table of contents, in order."""
    import yaml

    def files(node):
        if isinstance(node, dict):
            if isinstance(node.get("file"), str):
                yield node["file"]
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key) or []:
                    yield from files(child)
    toc = yaml.safe_load(Path(toc_path).read_text(encoding="utf-8")) or {}
    names = [toc.get("root", "")] + list(files(toc))
    out = []
    for name in names:
        m = CHAPTER.search(re.sub(r"(\.md)?$", ".md", str(name)))
        if m and m.group(1) not in out:
            out.append(m.group(1))
    return out


def lite_url(lang, chapter):
    """The live notebook's address, relative to the site's root."""
    return f"lite/notebooks/index.html?path={lang}/{chapter}.ipynb"


def ready(vendor_dir=VENDOR):
    """The pieces the build needs, or a Missing error that names the first one absent."""
    kernel_version()
    try:
        import jupyterlite_core  # noqa: F401
    except ImportError:
        raise Missing("jupyterlite-core is not installed in .venv") from None
    pyodide = vendor_dir / "pyodide"
    for name in ("pyodide.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        if not (pyodide / name).exists():
            raise Missing(f"Pyodide's core is not in {pyodide} ({name} is missing)")
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())
    absent = [v["file_name"] for v in lock["packages"].values() if not (pyodide / v["file_name"]).exists()]
    if absent or "ipywidgets" not in lock["packages"]:
        raise Missing(f"wheels are missing from {pyodide}: {', '.join(absent) or 'ipywidgets'}")
    return pyodide


CONFIG = {"jupyter-lite-schema-version": 0, "jupyter-config-data": {
    "appName": "AI infrastructure, live",
    "litePluginSettings": {"@jupyterlite/pyodide-kernel-extension:kernel": {
        "disablePyPIFallback": True,                       # nothing from PyPI: only the lock's wheels
        "loadPyodideOptions": {"packages": ["infra_lib"]}}}}}
# JupyterLab settings: start the notebook's kernel without asking (with a slow start the app
# would otherwise ask the reader to pick one, as the kernel list arrives after the notebook), and
# keep every cell of the chapter on the page (no windowing: the browser's find-in-page sees the
# whole chapter, and a widget below the fold is drawn when its cell runs, not when scrolled to)
OVERRIDES = {"@jupyterlab/notebook-extension:tracker": {"autoStartDefaultKernel": True, "windowingMode": "none"}}
# JupyterLab extensions installed in .venv that the live pages do not use: `jupyter lite build` ships
# every one it finds there, and the app fetches and starts each one before the notebook opens.
# jupytext's (the .venv has jupytext for the build) opens .md files as notebooks and adds menu
# entries and shortcuts that collide with JupyterLab's (the warnings in the console of every live page).
UNUSED_EXTENSIONS = ("jupyterlab-jupytext",)


def drop_extensions(out, names=UNUSED_EXTENSIONS):
    """Remove the federated extensions ``names`` from the JupyterLite site in ``out``: from the list in
    its ``jupyter-lite.json`` that the app loads, their settings schemas (``all_federated.json``, read
    by the settings editor) and their files. Returns the names removed."""
    config_path = Path(out) / "jupyter-lite.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    data = config["jupyter-config-data"]
    listed = data.get("federated_extensions", [])
    removed = [e["name"] for e in listed if e["name"] in names]
    data["federated_extensions"] = [e for e in listed if e["name"] not in names]
    config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    schemas_path = Path(out) / "build" / "schemas" / "all_federated.json"
    if schemas_path.exists():
        schemas = json.loads(schemas_path.read_text(encoding="utf-8"))
        kept = [s for s in schemas if str(s.get("id", "")).split(":")[0] not in names]
        schemas_path.write_text(json.dumps(kept), encoding="utf-8")
    for name in removed:
        shutil.rmtree(Path(out) / "extensions" / name, ignore_errors=True)
    return removed


def build(site, work, toc_path, root=ROOT):
    """Write ``site``/lite: the JupyterLite site with one live notebook per chapter and edition.

    Skipped (a no-change rebuild) when the notebooks, the library, the vendored lock, this file
    and JupyterLite's version are what the last build in ``work`` used and its output is there.
    """
    import jupyterlite_core
    import nbformat

    start = time.perf_counter()
    pyodide = ready()
    work, out = Path(work), Path(site) / "lite"
    notebooks = {}
    for chapter in chapters(toc_path):
        for lang in EDITIONS:
            md = root / "notebooks" / lang / f"{chapter}.md"
            if not md.exists() or not has_live(md):
                continue
            nb = live_notebook(md, lang) if has_quiz(md) else chapter_notebook(md, lang, Path(site).parent)
            notebooks[f"{lang}/{chapter}.ipynb"] = nbformat.writes(nb)
    if not notebooks:                     # no chapter with a widget in this table of contents
        shutil.rmtree(out, ignore_errors=True)
        return {"path": out, "notebooks": [], "bytes": 0, "seconds": time.perf_counter() - start}
    h = hashlib.sha256(f"{jupyterlite_core.__version__} {json.dumps(CONFIG)}".encode())
    for name, text in sorted(notebooks.items()):
        h.update(name.encode() + text.encode())
    for arcname, path in library_files(root)[1].items():
        h.update(arcname.encode() + path.read_bytes())
    h.update((pyodide / "pyodide-lock.json").read_bytes() + Path(__file__).read_bytes())
    stamp = work / "inputs.sha"
    names = [n.removesuffix(".ipynb") for n in notebooks]
    if stamp.exists() and stamp.read_text() == h.hexdigest() and (out / "jupyter-lite.json").exists():
        return {"path": out, "notebooks": names, "bytes": _size(out), "seconds": time.perf_counter() - start,
                "cached": True}
    shutil.rmtree(work, ignore_errors=True)
    static = work / "static" / "pyodide"
    shutil.copytree(pyodide, static)
    wheel, version = library_wheel(static, root)
    lock = json.loads((static / "pyodide-lock.json").read_text())
    lock["packages"]["infra-lib"] = lock_entry("infra-lib", version, wheel, ["infra_lib"], LOCK_DEPENDS["infra-lib"])
    (static / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))
    for name, text in notebooks.items():
        path = work / "files" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (work / "jupyter-lite.json").write_text(json.dumps(CONFIG, indent=1))
    (work / "overrides.json").write_text(json.dumps(OVERRIDES, indent=1))
    shutil.rmtree(out, ignore_errors=True)
    jupyter = Path(sys.executable).parent / "jupyter"
    cmd = [str(jupyter), "lite", "build", "--contents", "files", "--output-dir", str(out),
           "--apps", "notebooks", "--no-sourcemaps", "--no-unused-shared-packages"]
    proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    (work / "build.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    if proc.returncode != 0:
        tail = "\n".join("    " + t for t in (proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise SystemExit(f"[lite] jupyter lite build failed (log: {work / 'build.log'}):\n{tail}")
    drop_extensions(out)
    stamp.write_text(h.hexdigest())
    return {"path": out, "notebooks": names, "bytes": _size(out), "seconds": time.perf_counter() - start}


def _size(folder):
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["vendor"]:
        vendor()
    elif args[:1] == ["build"]:
        info = build(SITE, BUILD / "lite-src", TOC)
        print(f"[lite] {info['path']}: {len(info['notebooks'])} notebooks, {info['bytes'] / 1e6:.1f} MB, "
              f"{info['seconds']:.1f} s")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
