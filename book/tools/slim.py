"""A lighter edition: the theme's style sheets without the rules no page uses, its icon fonts with
only the icons they draw. Called by build.py on each edition it publishes (SITE/<lang>).

    python book/tools/slim.py _build/site/en      # an edition already built (prints what it saved)

The theme (pydata-sphinx-theme with sphinx-book-theme) ships Bootstrap and Font Awesome whole: a
397 kB style sheet, most of it rules for classes no page of the course has and 1,900 icons' rules,
and icon fonts of 156 kB (solid) and 118 kB (brands) for the ten icons the pages show. Two steps:

1. **PurgeCSS** (the npm package book/package.json pins, run by Node) keeps a rule only when its
   selectors can match something in the edition's pages or in the scripts that build the pages'
   interactive parts (the theme's, Bootstrap's, ours: a class a script adds at run time, ``show``
   or ``pst-…``, is found in the script's text). The style sheets in PURGED are rewritten in place;
   ours, book/_static/course.css, is left whole. Font Awesome's own script is not read: the pages
   never load it, and it names every icon.
2. **Icon fonts** (fontTools): each Font Awesome font keeps the glyphs of the code points that the
   purged style sheets still name (``content: "\\f0c9"``, or the character itself, as the theme's
   ``--pst-icon-…`` variables write it), in WOFF2 and
   TrueType both; nothing else in the fonts is used.

tests/test_site.py measures each page's weight in Chromium and every page is checked at 1280 and
390 px; bench.py --weights-only prints the weights.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

from course import ROOT  # book/tools

PURGECSS = ROOT / "book" / "node_modules" / ".bin" / "purgecss"
PURGED = ("styles/pydata-sphinx-theme.css", "styles/sphinx-book-theme.css", "sphinx-design.min.css",
          "mystnb.*.css", "basic.css", "pygments.css", "togglebutton.css", "copybutton.css", "sphinx-thebe.css")
SCRIPTS_NOT_READ = ("fontawesome.js",)      # Font Awesome's icon kit: never loaded, names every icon
# Attributes a script sets on the page at run time, in forms no text of the script shows whole:
# the theme's light/dark switch (``dataset.theme``) and Bootstrap's pop-ups. Rules on them are kept.
KEEP_ATTRIBUTES = ("data-theme", "data-mode", "data-bs-", "data-popper-")
FONTS = "vendor/fontawesome/webfonts"
CODE_POINT = re.compile(r'"\\([ef][0-9a-f]{3})"', re.I)   # Font Awesome's private-use code points, escaped
PRIVATE_USE = re.compile("[\ue000-\uf8ff]")                 # ... and as the characters themselves


def _size(paths):
    return sum(p.stat().st_size for p in paths if p.is_file())


def purge(edition: Path) -> tuple[int, int]:
    """Rewrite the edition's style sheets in PURGED with only the rules its pages and scripts can
    use; return (bytes before, bytes after)."""
    static = edition / "_static"
    sheets = sorted({p for pattern in PURGED for p in static.glob(pattern)})
    if not sheets:
        raise SystemExit(f"[slim] no theme style sheet in {static}: is {edition} a built edition?")
    if not PURGECSS.exists():
        raise SystemExit(f"[slim] {PURGECSS} is missing: run `make setup` (npm ci in book/)")
    scripts = [p for p in static.rglob("*.js") if p.name not in SCRIPTS_NOT_READ and "/vendor/" not in p.as_posix()]
    pages = sorted(edition.rglob("*.html"))
    before = _size(sheets)
    out = edition.parent / f".slim-{edition.name}"
    out.mkdir(exist_ok=True)
    config = out / "purgecss.config.cjs"
    config.write_text("module.exports = " + json.dumps({
        "css": [str(s) for s in sheets], "output": str(out),
        "content": [str(p) for p in pages + scripts]})[:-1]
        + ", safelist: {greedy: [" + ", ".join(f"/{p}/" for p in KEEP_ATTRIBUTES) + "]}};\n", encoding="utf-8")
    cmd = [str(PURGECSS), "--config", str(config)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    missing = [s.name for s in sheets if not (out / s.name).is_file()]
    if run.returncode != 0 or missing:
        raise SystemExit(f"[slim] purgecss failed on {', '.join(missing) or edition}:\n"
                         f"{run.stdout[-2000:]}{run.stderr[-2000:]}")
    for sheet in sheets:
        (out / sheet.name).replace(sheet)
    config.unlink()
    out.rmdir()
    return before, _size(sheets)


def code_points(static: Path) -> set[int]:
    """The Font Awesome code points the edition's style sheets name (after the purge)."""
    found = set()
    for sheet in static.rglob("*.css"):
        text = sheet.read_text(encoding="utf-8", errors="replace")
        found |= {int(m, 16) for m in CODE_POINT.findall(text)} | {ord(c) for c in PRIVATE_USE.findall(text)}
    return found


def subset_fonts(edition: Path) -> tuple[int, int, int]:
    """Keep in each icon font only the glyphs of :func:`code_points`; return (bytes before, after,
    number of code points kept)."""
    from fontTools import subset

    static = edition / "_static"
    keep = code_points(static)
    if not keep:
        raise SystemExit(f"[slim] the style sheets of {static} name no icon: the theme changed? (nothing subset)")
    fonts = sorted((static / FONTS).glob("fa-*.*"))
    fonts = [f for f in fonts if f.suffix in (".woff2", ".ttf")]
    if not fonts:
        raise SystemExit(f"[slim] no Font Awesome font in {static / FONTS}")
    before = _size(fonts)
    for path in fonts:
        options = subset.Options()
        options.flavor = "woff2" if path.suffix == ".woff2" else None
        options.layout_features = ["*"]
        options.name_IDs = ["*"]
        options.notdef_outline = True
        options.ignore_missing_unicodes = True
        font = subset.load_font(str(path), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=sorted(keep))
        subsetter.subset(font)
        subset.save_font(font, str(path), options)
    return before, _size(fonts), len(keep)


def slim(edition: Path) -> str:
    """Both steps on one published edition; returns a line that says what they saved."""
    edition = Path(edition)
    css_before, css_after = purge(edition)
    font_before, font_after, icons = subset_fonts(edition)
    return (f"style sheets {css_before / 1e3:.0f} -> {css_after / 1e3:.0f} kB, icon fonts "
            f"{font_before / 1e3:.0f} -> {font_after / 1e3:.0f} kB ({icons} icons)")


if __name__ == "__main__":
    for folder in sys.argv[1:] or [str(ROOT / "_build" / "site" / "en"), str(ROOT / "_build" / "site" / "zh")]:
        print(f"[slim] {folder}: {slim(Path(folder))}")
