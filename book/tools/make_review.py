"""Write the review chapter (notebooks/{en,zh}/NN_review.md) and the glossary pages
(book/{en,zh}/glossary.md) from the question bank (infra_lib/review/, one module per chapter) and
the term list (infra_lib/data/glossary.toml). Run it after changing either:

    .venv/bin/python book/tools/make_review.py          # writes the four pages
    .venv/bin/python book/tools/make_review.py --check  # exit 1 if a page is out of date

Each question becomes an {exercise} with its text (parameters as glue roles), a {ref} link to the
section it tests, a quiz widget cell (remove-input, remove-output, skip-execution) and a folded
{solution} with the hint, the worked steps and the answer; in Jupyter the widget shows the question
and the two blocks are collapsed (``jupyter.source_hidden``), so each question appears once. A
scoreboard cell (remove-cell) and a box of class local-only (book/ext/course_ext.py adds the link
to the live page, book/tools/lite.py builds it) come after the introduction. The chapters come from _toc.yml, in its order: each
one's number is its position there (the overview is 0, as book/ext/course_ext.py numbers it from
the NN of the file name, which must agree), its title the first "# " heading of each edition's
page. The review chapter is the one whose file is named NN_review.
"""
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import yaml

from course import EDITIONS, ROOT, TOC     # book/tools/course.py (a private COURSE_TOC is honoured)
from infra_lib import review

REVIEW_SLUG = "review"      # notebooks/<lang>/NN_review.md is the page this script writes
NUMBERED = re.compile(r"(\d+)_(\w+)")     # a chapter's file: its number, then its slug
WORDS = {
    "en": {"interview": "Interview question", "self-check": "Self-check", "flip": "When does the conclusion flip?",
           "tests": "Tests", "hint": "Hint", "answer": "Answer", "options": "Options", "why": "The misconception each other option tests",
           "heading": "Chapter {n}: {title}"},
    "zh": {"interview": "面试题", "self-check": "自测题", "flip": "结论什么时候会翻转？",
           "tests": "考查", "hint": "提示", "answer": "答案", "options": "选项", "why": "其他选项各自对应的误解",
           "heading": "第 {n} 章：{title}"},
}
COLON = {"en": ": ", "zh": "："}     # a title's own colon: the short title is what comes before it


@dataclass(frozen=True)
class Chapter:
    """One chapter of the series as _toc.yml lists it."""
    stem: str                   # its file's name without .md: "04_generations"
    number: int                 # its position among the chapters (the overview is 0)
    titles: dict[str, str]      # the first "# " heading of each edition's page

    def heading(self, lang: str) -> str:
        """Its heading in the review: "Chapter 4: <short title>"; the overview (0) by its full title."""
        if self.number == 0:
            return self.titles[lang]
        return WORDS[lang]["heading"].format(n=self.number, title=self.titles[lang].split(COLON[lang])[0])


def page_title(path: Path) -> str:
    """The first "# " heading of a page, outside its front matter and its fenced blocks."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if lines and lines[0] == "---":
        lines = lines[lines.index("---", 1) + 1:]
    fence = ""
    for line in lines:
        run = re.match(r"`{3,}|~{3,}", line)
        if fence:
            if run and line.strip() == run.group(0) and len(run.group(0)) >= len(fence) and run.group(0)[0] == fence[0]:
                fence = ""
        elif run:
            fence = run.group(0)
        elif line.startswith("# "):
            return line[2:].strip()
    raise ValueError(f"{path.relative_to(ROOT)} has no '# ' heading")


def toc_chapters(toc: Path = TOC) -> list[Chapter]:
    """The chapters of the series (the English edition's notebooks in _toc.yml), in its order."""
    data = yaml.safe_load(toc.read_text(encoding="utf-8"))
    files = [c["file"] for part in data["parts"] for c in part["chapters"] if c["file"].startswith("notebooks/en/")]
    chapters = []
    for number, file in enumerate(files):
        stem = file.split("/")[-1]
        m = NUMBERED.fullmatch(stem)
        if not m or int(m.group(1)) != number:
            raise ValueError(f"{toc.name} lists {file} as chapter {number}: its file name must start with "
                             f"{number:02d}_, the number book/ext/course_ext.py gives its figures and exercises")
        chapters.append(Chapter(stem, number, {lang: page_title(ROOT / f"notebooks/{lang}/{stem}.md")
                                              for lang in EDITIONS}))
    return chapters


def review_chapter(chapters: list[Chapter]) -> Chapter:
    """The review chapter itself: the one whose file is NN_review."""
    found = [c for c in chapters if NUMBERED.fullmatch(c.stem).group(2) == REVIEW_SLUG]
    if len(found) != 1:
        raise ValueError(f"_toc.yml must list one notebooks/en/NN_{REVIEW_SLUG}, found {[c.stem for c in found]}")
    return found[0]


def tested_chapters(chapters: list[Chapter]) -> list[tuple[str, Chapter]]:
    """(key, chapter) of every chapter the bank has questions for, in the order of _toc.yml."""
    files = review.chapter_files()
    by_stem = {c.stem: c for c in chapters}
    missing = sorted(f for f in files.values() if f not in by_stem)
    if missing:
        raise ValueError(f"the bank (infra_lib/review/) has questions for {missing}, which _toc.yml does not list")
    key_of = {stem: key for key, stem in files.items()}
    return [(key_of[c.stem], c) for c in chapters if c.stem in key_of]


FRONT = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
kernelspec:
  display_name: Python 3
  language: python
  name: python3
course:
  # {comment}
  # Generated by book/tools/make_review.py from infra_lib/review/ (a module per chapter): edit those, then rerun it.
  # Numbers typed on purpose: the constant of Young's formula in chapter 8's question, and 2:4, the name of
  # structured sparsity in the Chinese edition (chapter 4 writes it so).
  allowed_numbers: ['\\sqrt{{2\\delta M}}', '2:4']
---
"""

INTRO = {
    "en": """(rv-start)=
# Review questions: interview questions and self-checks

Questions over the whole series, the kind an interviewer for an AI-infrastructure role asks and the kind you should be able to answer after each chapter. Most are numeric: every number in a question is a parameter bound once in `infra_lib/review/`, and every answer is computed by `infra_lib` from those parameters, so the question and its answer cannot drift apart. The others are conceptual, with three options. Questions marked **When does the conclusion flip?** ask where a rule of thumb stops being true.

Each question links to the section it tests. On this website the worked solution is folded under the question; open it after you have tried. In Jupyter and on the live page (the box below), each question is an answer checker that shows the question once (the question and solution blocks of this page are collapsed there): press **Try it** under a question, type your answer (`64`, `64 ms`, `0.064 s`, `6.4e-2 s`, `64毫秒`, `2.6k tok/s`, `~300`, `1/8` and `$572` are all read; code is never run), press **Check**, and it says whether you are right, tells a wrong unit from a wrong number, and after a wrong try shows the hint and the worked solution for those numbers, folded. **New variant** draws new numbers inside sensible ranges, on the precision the question shows them at, and recomputes the answer; for a question with options it shuffles them. The seed it shows brings the same variant back. After two wrong tries on a variant it gives the answer, and **Show answer** gives it at any time (a question answered that way is not counted as right). Each wrong option tests a misconception, and the solution says which. The score per chapter and overall, and which questions you answered, are kept between visits in a small file, `review-progress.json`, beside the notebook (on the live page, in your browser's storage).

**What counts as right.** A number is right when it agrees with the answer to two significant figures, the rounding an interviewer expects: `300` for a ridge point of `295.3`, `17%` for `16.67%`, `3.3 TB/s` for `3,347 GB/s`. A count (GPUs, warps, replicas, blocks) must be exact.

```{admonition} The answer checker: live in your browser, or in your own Jupyter
:class: local-only

The answer checkers need Python running: in Jupyter, or on the live page, run all cells, and each question gets its checker below it.
```
""",
    "zh": """(rv-start)=
# 复习题：面试题与自测

这里的题目覆盖整个系列：有的是 AI 基础设施岗位面试官会问的，有的是每读完一章就该答得出的。大多数是计算题：题目里的每个数都是 `infra_lib/review/` 中只绑定一次的参数，每个答案都由 `infra_lib` 根据这些参数算出，题目和答案不会对不上。其余是三选一的概念题。标有“结论什么时候会翻转？”的题问的是：一条经验法则到哪里就不再成立。

每道题都链接到它考查的那一节。在网页上，详细解答折叠在题目下面，先自己做，再展开看。在 Jupyter 里和在线页面上（见下面的方框），每道题是一个答案检查器，题目只显示一次（本页的题目块和解答块在那里是折叠的）：点题目下面的“作答”，输入答案（`64`、`64 ms`、`0.064 s`、`6.4e-2 s`、`64毫秒`、`2.6k tok/s`、`2.6万`、`~300`、`1/8`、`$572` 都能识别，输入的内容绝不会被当作代码执行），点“检查答案”，它会告诉你对不对，分清是单位错了还是数错了；答错之后会给出提示和按这组数重算的详细解答，都先折叠起来。“换一组数”会在合理范围内、按题目显示的精度重新抽取参数并重算答案；选择题则会打乱选项顺序。它显示的种子可以把同一组数找回来。同一组数答错两次后，它会给出答案；“显示答案”随时都能看答案（这样得到的答案不计为答对）。每个错误选项都对应一种常见误解，解答里会说明是哪一种。每章和全部章节的得分、答过哪些题，都保存在 notebook 旁边的一个小文件 `review-progress.json` 里，下次打开还在（在线页面上保存在你的浏览器里）。

**怎样算答对。** 一个数只要和答案的前两位有效数字一致就算对，这正是面试官期待的估算精度：屋脊点 `295.3` 答 `300`，`16.67%` 答 `17%`，`3,347 GB/s` 答 `3.3 TB/s`，都算对。问的是个数（GPU、warp、副本、线程块的数量）时必须完全一致。

```{admonition} 检查答案：在浏览器里直接运行，或在你自己的 Jupyter 里运行
:class: local-only

答案检查器要有 Python 在运行才能用：在 Jupyter 里或在线页面上运行全部单元格，每道题下面就会出现各自的检查器。
```
""",
}

CODE_EDITION = """```{{code-cell}} ipython3
:tags: [remove-input, edition]

LANG = "{lang}"  # this edition's language: the only line that differs from the {other} twin
```
"""
CODE_IMPORTS = """```{code-cell} ipython3
:tags: [remove-input]

from infra_lib.glue import glue
from infra_lib import review, sources
from infra_lib.exercises import glue_all
from infra_lib.widgets.quiz import quiz, scoreboard  # builds nothing until called

sources.reset()   # the Sources section lists every spec and measurement read from here on
questions = review.questions()   # the bank is built here, so its registry reads are this page's
glue_all(review.exercises())   # every parameter and answer of every question, as rv_<chapter>_qN_<name>
glue("rv_questions", len(questions), display=False)
glue("rv_numeric", sum(q.numeric for q in questions), display=False)
glue("rv_flip", sum(q.flip for q in questions), display=False)
```
"""
SOURCES = {
    "en": """(rv-sources)=
## Sources

Generated from what this page computed with: the registry's document behind every value the questions read, with the table or section of each.

```{code-cell} ipython3
:tags: [remove-input]

sources.show(LANG)
```
""",
    "zh": """(rv-sources)=
## 资料来源

以下清单由本页的计算自动生成：题目读到的每个登记表数值所依据的文献，注明出自哪张表、哪一节。

```{code-cell} ipython3
:tags: [remove-input]

sources.show(LANG)
```
""",
}
SCOREBOARD = """```{code-cell} ipython3
:tags: [remove-cell, skip-execution]

scoreboard(LANG)
```
"""
# In Jupyter the quiz widget shows the question (and folds its hint): the page's question and
# solution blocks, raw MyST there, are collapsed (nbformat's jupyter.source_hidden, which the site ignores).
HIDDEN = '+++ {"jupyter": {"source_hidden": true}}\n\n'
SHOWN = "+++\n\n"

COUNTS = {
    "en": "The bank holds {glue:text}`rv_questions:.0f` questions, {glue:text}`rv_numeric:.0f` of them numeric and {glue:text}`rv_flip:.0f` of the “when does it flip” kind.\n",
    "zh": "题库共有 {glue:text}`rv_questions:.0f` 道题，其中计算题 {glue:text}`rv_numeric:.0f` 道，“结论什么时候会翻转？”类 {glue:text}`rv_flip:.0f` 道。\n",
}


def label(qid: str) -> str:
    return qid.replace("_", "-")


def section_link(q: review.Question, lang: str) -> str:
    colon = ": " if lang == "en" else "："
    return f"{WORDS[lang]['tests']}{colon}{{ref}}`{q.section}`"


def render_question(q: review.Question, lang: str) -> str:
    w = WORDS[lang]
    colon = ": " if lang == "en" else "："
    title = w["flip"] if q.flip else w[q.kind]
    text = review.glue_roles(q.text[lang], q.id)
    parts = [f"{HIDDEN}```{{exercise}} {title}\n:label: {label(q.id)}\n\n{text}\n"]
    if q.options is not None:
        parts.append("\n" + "\n".join(f"- **{chr(ord('a') + i)}**. {o}" for i, o in enumerate(q.options[lang])) + "\n")
    parts.append(f"\n{section_link(q, lang)}\n```\n\n")
    parts.append(f'```{{code-cell}} ipython3\n:tags: [remove-input, remove-output, skip-execution]\n\nquiz("{q.id}", LANG)\n```\n\n')
    if q.options is not None:
        answer = f"**{w['answer']}{colon}{chr(ord('a') + q.correct)}**. {q.options[lang][q.correct]}"
        why = "\n".join(f"- **{chr(ord('a') + i)}**. {q.misconceptions[lang][i]}" for i in range(len(q.options[lang]))
                        if i != q.correct)
        steps = f"{q.solution[lang]}\n\n{w['why']}{colon.rstrip()}\n\n{why}"
    else:
        answer = ""
        steps = review.glue_roles(q.solution[lang], q.id)
    hint = q.hint[lang] if q.options is not None else review.glue_roles(q.hint[lang], q.id)
    sol = f"{HIDDEN}```{{solution}} {label(q.id)}\n:class: dropdown\n\n**{w['hint']}**{colon}{hint}\n\n"
    sol += (f"{answer}\n\n{steps}\n" if answer else f"{steps}\n") + "```\n"
    parts.append(sol)
    return "".join(parts)


def render_chapter(lang: str) -> str:
    other = "Chinese" if lang == "en" else "English"
    comment = ("Numbers typed in this page's prose on purpose: none; every number comes from glue."
               if lang == "en" else "本页正文没有手写的数字：每个数都来自 glue。")
    out = [FRONT.format(comment=comment), "\n", INTRO[lang], "\n", CODE_EDITION.format(lang=lang, other=other), "\n",
           CODE_IMPORTS, "\n", COUNTS[lang], "\n", SCOREBOARD, "\n"]
    for key, chapter in tested_chapters(toc_chapters()):
        out.append(f"{SHOWN}(rv-{key})=\n## {chapter.heading(lang)}\n\n")
        for q in review.chapter_questions(key):
            out.append(render_question(q, lang) + "\n")
    out.append(SHOWN + SOURCES[lang])
    return "".join(out)


# ---- the glossary ------------------------------------------------------------------------------

GLOSSARY_FILE = ROOT / "infra_lib" / "data" / "glossary.toml"
GLOSSARY_HEAD = {
    "en": "(glossary)=\n# Glossary\n\nThe terms of the series in English and Chinese, each with a one-line definition. "
          "Each chapter links the first use of a term to its entry here, and the Chinese edition uses the Chinese "
          "term given here throughout, so a term means one thing in every chapter.\n\n",
    "zh": "(glossary)=\n# 术语表\n\n本系列用到的术语，中英对照，各附一句话定义。每章第一次出现某个术语时都链接到这里的词条；"
          "中文版全书统一使用这里给出的中文译名，同一个术语在每一章里指的都是同一件事。\n\n",
}


def load_glossary() -> dict[str, dict[str, str]]:
    return tomllib.loads(GLOSSARY_FILE.read_text(encoding="utf-8"))


def render_glossary(lang: str) -> str:
    terms = load_glossary()
    out = [GLOSSARY_HEAD[lang], "```{glossary}\n:sorted:\n\n"]
    for key, t in terms.items():
        name = t["en"] if lang == "en" else t["zh"]
        gloss = t["zh"] if lang == "en" else t["en"]
        definition = t["def_en"] if lang == "en" else t["def_zh"]
        out.append(f"{name}\n  {definition} ({gloss})\n\n" if lang == "en" else f"{name}\n  {definition}（{gloss}）\n\n")
    out.append("```\n")
    return "".join(out)


def pages() -> dict[Path, str]:
    """Each page this script writes, with its text."""
    stem = review_chapter(toc_chapters()).stem
    return {**{ROOT / f"notebooks/{lang}/{stem}.md": render_chapter(lang) for lang in EDITIONS},
            **{ROOT / f"book/{lang}/glossary.md": render_glossary(lang) for lang in EDITIONS}}


def main(argv: list[str]) -> int:
    stale = []
    for path, text in pages().items():
        if "--check" in argv:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path.relative_to(ROOT)))
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("out of date (run book/tools/make_review.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
