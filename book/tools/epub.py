"""Build an EPUB of one edition: `site/downloads/ai-infra-course-<lang>.epub`.

    python book/tools/epub.py --lang zh      # after book/tools/build.py (it reuses the executed notebooks)

Sphinx's epub builder, run through Jupyter Book on the same config and table of contents as the
website (``edition_config`` of book/tools/course.py), with the code cells left out (a reading format).
Its raw output does not pass EPUBCheck, so :func:`repair` then
  1. resolves the table of contents' links from the root page's folder to the top of the book,
  2. rebuilds the spine in table-of-contents order (Sphinx marks the chapters non-linear),
  3. drops scripts and the stylesheet it links but does not package, and the vendored MathJax,
  4. turns every formula into MathML (MathJax's TeX input in Node, from book/node_modules),
     because e-readers do not run MathJax,
  5. writes the language as a BCP 47 tag (zh-CN) and the same identifier in the NCX and the OPF,
  6. zips it again with ``mimetype`` first and uncompressed.
"""
import argparse
import html
import posixpath
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import yaml

from course import (BUILD, EDITIONS, NAME, ROOT, SITE, edition_config, edition_source, site_toc,  # book/tools
                    sphinx_env, toc_docs)
from mathml import MATH, tex_to_mathml  # book/tools/mathml.py: the same converter as the site

LANG_TAG = {"en": "en", "zh": "zh-CN"}


DESCRIPTION = {
    "en": ("A reader types a question into a chat box; this course follows where those seconds go, from the "
           "fab and the HBM stacks through the CPU, the GPU, CUDA and the roofline, the framework layer and the "
           "cluster scheduler, back up to the product, and then shows what quantization buys. Every number is "
           "computed by the course's library from sourced data."),
    "zh": ("用户在聊天框里问了一句话：这门课追踪那几秒钟花在了哪里，从晶圆厂和 HBM 出发，经过 CPU、GPU、CUDA 与屋顶线、"
           "框架层和集群调度，再回到产品，最后讲量化能换来什么。书中每个数字都由课程的库从标注了来源的数据算出。"),
}
RIGHTS = {"en": "© {year} {author}. Text under CC BY 4.0, code under the MIT licence.",
          "zh": "© {year} {author}。正文采用 CC BY 4.0 许可，代码采用 MIT 许可。"}
AUTHOR = {"en": None, "zh": "本课程作者"}      # None: the config's author


def metadata(config, lang):
    """The EPUB's Dublin Core fields from the edition's config: title, authors, description, rights,
    and a stable identifier (a UUID named for the course and the edition, the same on every build)."""
    import uuid
    title = config.get("title") or sys.exit("[epub] the edition's config has no title")
    author = AUTHOR[lang] or config.get("author") or sys.exit("[epub] the config has no author")
    rights = RIGHTS[lang].format(year=config.get("copyright", ""), author=author)
    return {"project": title, "epub_title": title, "epub_author": author, "epub_publisher": author,
            "epub_contributor": author, "epub_copyright": rights, "epub_description": DESCRIPTION[lang],
            "epub_scheme": "uuid", "epub_identifier": f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{NAME}/{lang}')}"}


def epub_path(lang):
    return SITE / "downloads" / f"{NAME}-{lang}.epub"


def sphinx_epub(lang):
    """Run Sphinx's epub builder for one edition; returns the raw .epub file."""
    config, toc = edition_config(lang)
    sphinx = config.setdefault("sphinx", {}).setdefault("config", {})
    sphinx.update({"epub_basename": f"{NAME}-{lang}", "version": "1.0",
                   "nb_remove_code_source": True, "epub_show_urls": "no", **metadata(config, lang)})
    out = BUILD / f"epub-{lang}"
    shutil.rmtree(out, ignore_errors=True)      # Sphinx would keep the pages of chapters since removed
    cfg, toc_path = BUILD / f"epub-{lang}.config.yml", BUILD / f"epub-{lang}.toc.yml"
    cfg.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    source, toc = edition_source(lang, toc), site_toc(toc)     # the pages named as on the site (course.py)
    toc_path.write_text(yaml.safe_dump(toc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    cmd = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(source), "--path-output", str(out),
           "--config", str(cfg), "--toc", str(toc_path), "--builder", "custom", "--custom-builder", "epub"]
    env = sphinx_env(lang)
    log = BUILD / f"epub-{lang}.log"
    with open(log, "w", encoding="utf-8") as f:
        code = subprocess.call(cmd, cwd=ROOT, env=env, stdout=f, stderr=subprocess.STDOUT)
    found = list((out / "_build" / "epub").glob("*.epub"))
    if code != 0 or not found:
        sys.exit(f"[epub] {lang}: Sphinx's epub build failed (status {code}); see {log}")
    return found[0], toc


def math_to_mathml(text):
    """Replace MathJax's TeX spans (\\(...\\), \\[...\\], $$...$$) with MathML; returns (text, count)."""
    found = []
    numbers = []
    for m in MATH.finditer(text):
        inner = m.group(2)
        # a numbered formula: Sphinx writes <span class="eqno">(3.1)<a class="headerlink">...</a></span>
        # before the TeX; the number is kept beside the MathML, not fed to TeX (it drew "\[" in red)
        eqno = re.search(r'<span class="eqno">(.*?)</span>', inner, re.S)
        numbers.append(html.unescape(re.sub(r"<[^>]+>", "", re.sub(r'<a class="headerlink".*?</a>', "", eqno.group(1),
                                                                    flags=re.S))).strip() if eqno else "")
        if eqno:
            inner = inner[:eqno.start()] + inner[eqno.end():]
        tex = html.unescape(re.sub(r"<[^>]+>", "", inner)).strip()
        display = m.group(1) == "div" or tex.startswith(("\\[", "$$"))
        for a, b in (("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$")):
            if tex.startswith(a) and tex.endswith(b):
                tex = tex[len(a):-len(b)]
                break
        found.append((m, tex.strip(), display))
    mml = tex_to_mathml([(tex, display) for _, tex, display in found])
    for (m, _, _), xml, number in reversed(list(zip(found, mml, numbers))):
        anchor = re.search(r' id="([^"]+)"', m.group(0)[:m.group(0).index(">")])   # (eq-...) links land here
        if anchor:
            xml = xml.replace("<math ", f'<math id="{anchor.group(1)}" ', 1)
        if number:
            xml = f'<p class="eqno" style="text-align: right; margin: 0">{html.escape(number)}</p>' + xml
        text = text[:m.start()] + xml + text[m.end():]
    return text, len(found)


def _resolve(href, here, files):
    """``href`` as written in file ``here``, resolved to a name in ``files`` (or None)."""
    path = href.split("#", 1)[0]
    if not path or re.match(r"^[a-z]+:", path):
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(here), path))


def repair(raw, target, lang, toc):
    """Rewrite Sphinx's raw EPUB into one that EPUBCheck accepts (the steps in the module docstring)."""
    with zipfile.ZipFile(raw) as z:
        # MathJax is replaced by MathML; myst-nb's stylesheet uses CSS nesting, which EPUB readers reject
        files = {n: z.read(n) for n in z.namelist() if not n.startswith(("_static/vendor/", "_static/mystnb."))}
    root_dir = posixpath.dirname(toc["root"])                 # where the toc's links start (the top)
    order = [d + ".xhtml" for d in toc_docs(toc)]
    pages = [n for n in files if n.endswith(".xhtml")]
    formulas, with_math = 0, set()
    for name in pages:
        text = files[name].decode("utf-8")
        text = re.sub(r"<script\b[^>]*>.*?</script>", "", text, flags=re.S)
        text = re.sub(r"<link\b[^>]*href=\"([^\"]+)\"[^>]*/?>",
                      lambda m: m.group(0) if _resolve(m.group(1), name, files) in files else "", text)
        text = re.sub(r"(<a\b[^>]*?) download(?=[ >])", r"\1", text)
        seen: dict = {}
        def unique(m):
            i = m.group(1)
            seen[i] = seen.get(i, 0) + 1
            return m.group(0) if seen[i] == 1 else f' id="{i}-{seen[i]}"'
        text = re.sub(r' id="([^"]+)"', unique, text)
        text, n = math_to_mathml(text)
        formulas += n
        if n:
            with_math.add(name)
        files[name] = text.encode("utf-8")
    ids = {name: set(re.findall(r' id="([^"]+)"', files[name].decode("utf-8"))) for name in pages}
    for name in pages + [n for n in files if n.endswith(".ncx")]:
        text = files[name].decode("utf-8")
        def fix(m):
            attr, href = m.group(1), m.group(2)
            if re.match(r"^[a-z]+:", href) or href.startswith("#") and name in ids and href[1:] in ids[name]:
                return m.group(0)
            path, _, frag = href.partition("#")
            target_name = _resolve(path, name, files) if path else name
            if path and target_name not in files:                 # the toc's links start at the root page
                alt = posixpath.normpath(posixpath.join(root_dir, path))
                if alt in files:
                    target_name, path = alt, posixpath.relpath(alt, posixpath.dirname(name) or ".")
                elif attr == "href":
                    return ""                                      # a download of the website: text only
            if frag and frag not in ids.get(target_name, set()):
                frag = ""
            return f'{attr}="{path}{"#" + frag if frag else ""}"' if (path or frag) else ""   # a dead link: text only
        text = re.sub(r'\b(href|src)="([^"]+)"', fix, text)
        files[name] = text.encode("utf-8")
    opf_name = next(n for n in files if n.endswith(".opf"))
    opf = files[opf_name].decode("utf-8")
    opf = re.sub(r'\s*<item id="[^"]+" href="(_static/vendor/[^"]*|[^"]+\.css)"[^>]*/>',
                 lambda m: m.group(0) if m.group(1) in files else "", opf)
    by_href = {href: item_id for item_id, href in re.findall(r'<item id="([^"]+)" href="([^"]+)"', opf)}
    for href in with_math:
        if href in by_href:
            opf = re.sub(rf'(<item id="{re.escape(by_href[href])}" href="[^"]+" media-type="[^"]+")(?! properties)',
                         r'\1 properties="mathml"', opf)
    spine = [f'<itemref idref="{by_href[h]}" />' for h in order if h in by_href]
    others = [f'<itemref idref="{i}" linear="no" />' for h, i in by_href.items()
              if h.endswith(".xhtml") and h not in order and h != "nav.xhtml"]
    opf = re.sub(r"(<spine[^>]*>).*?(</spine>)", lambda m: m.group(1) + "\n    " + "\n    ".join(spine + others)
                 + "\n  " + m.group(2), opf, flags=re.S)
    opf = re.sub(r"<dc:language>[^<]*</dc:language>", f"<dc:language>{LANG_TAG[lang]}</dc:language>", opf)
    opf = opf.replace('xml:lang="zh_CN"', 'xml:lang="zh-CN"')
    files[opf_name] = opf.encode("utf-8")
    ident = re.search(r"<dc:identifier[^>]*>([^<]*)</dc:identifier>", opf).group(1)
    for name in [n for n in files if n.endswith(".ncx")]:
        files[name] = re.sub(rb'(<meta name="dtb:uid" content=")[^"]*', lambda m: m.group(1) + ident.encode(), files[name])
    for name in pages:
        files[name] = files[name].replace(b'lang="zh_CN"', b'lang="zh-CN"')
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), b"application/epub+zip", compress_type=zipfile.ZIP_STORED)
        for name, data in files.items():
            if name != "mimetype":
                z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
    return formulas


def make_epub(lang):
    raw, toc = sphinx_epub(lang)
    formulas = repair(raw, epub_path(lang), lang, toc)
    return epub_path(lang), formulas


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=EDITIONS, action="append")
    args = parser.parse_args(argv)
    for lang in args.lang or EDITIONS:
        path, formulas = make_epub(lang)
        print(f"[epub] {lang}: {path} ({path.stat().st_size / 1e3:,.0f} KB, {formulas} formulas as MathML)")


if __name__ == "__main__":
    main()
