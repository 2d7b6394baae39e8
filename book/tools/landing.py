"""The site's landing page: both editions' one-screen map of the course.

    python book/tools/landing.py [SITE_DIR]

Called by build.py after the editions are built. ``book/landing.html`` holds the page's frame; this
fills in, in both languages, the chapters in the order of ``_toc.yml`` (each title read from its
page's first heading, each linked to its page in its edition) and the headline of the hand-worked
request, whose numbers are the overview's own glued values (``jupyter_execute/00_overview.glue.json``
of the English build), so the landing page cannot print a number the overview does not.
"""
import html
import io
import json
import sys
from pathlib import Path

import yaml

from course import BUILD, EDITIONS, ROOT, SITE, TOC, page_name  # book/tools

TEMPLATE = ROOT / "book" / "landing.html"
HEADLINE_KEYS = ("ov_decode_share", "ov_weight_gb", "ov_floor_ms")
HEADLINE = {
    "en": ("In the overview's hand-worked request, {ov_decode_share:.0%} of the time goes to decode, and one decode step "
           "of an 8B model takes at least the time to read its {ov_weight_gb:.0f} GB of weights: {ov_floor_ms:.1f} ms on "
           "an H100, whatever its FLOP/s. The chapters follow that number down to the fab and back up to the product."),
    "zh": ("在概览手算的那次请求里，{ov_decode_share:.0%} 的时间花在 decode 上；一个 8B 模型每走一步 decode，至少要花把 "
           "{ov_weight_gb:.0f} GB 权重读一遍的时间，在 H100 上是 {ov_floor_ms:.1f} ms，FLOP/s 再高也省不掉。"
           "各章顺着这个数字一路追到晶圆厂，再走回产品。"),
}
HEADINGS = {"en": ("The chapters", "Using the course"), "zh": ("各章", "怎么用这门课")}


def chapter_files(toc_path: Path = TOC) -> list[tuple[str, list[str]]]:
    """The toc's parts as (caption, English files), in order."""
    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))
    return [(part.get("caption", ""), [c["file"] for c in part["chapters"]]) for part in toc["parts"]]


def title_of(file: str, lang: str, root: Path = ROOT) -> str:
    """The first ``# `` heading of a page (its title), in the edition ``lang``."""
    path = root / (file.replace("/en/", f"/{lang}/") + ".md")
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    raise SystemExit(f"landing: {path} has no '# ' title")


def headline_values(build_dir: Path = BUILD) -> dict[str, float]:
    """The overview's glued headline numbers, from the English build's glue data."""
    path = build_dir / "en" / "_build" / "jupyter_execute" / "00_overview.glue.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SystemExit(f"landing: cannot read the overview's glued values ({path}): {error}") from error
    missing = [k for k in HEADLINE_KEYS if k not in data]
    if missing:
        raise SystemExit(f"landing: the overview no longer glues {missing} ({path}); update HEADLINE in {__file__}")
    return {k: float(data[k]["data"]["text/plain"]) for k in HEADLINE_KEYS}


def edition_map(lang: str, values: dict[str, float], toc_path: Path = TOC, headline: bool = True) -> str:
    """One edition's column: its headline and its chapters, linked."""
    attr = ' lang="zh-CN"' if lang == "zh" else ' lang="en"'
    parts = chapter_files(toc_path)
    out = [f'<section class="edition"{attr}>']
    if headline:
        out.append(f'<p class="headline">{html.escape(HEADLINE[lang].format(**values))}</p>')
    for (caption, files), heading in zip(parts, HEADINGS[lang]):
        out.append(f"<h2>{html.escape(heading)}</h2>")
        out.append("<ol start=\"0\">" if files and files[0].endswith("00_overview") else "<ul>")
        for f in files:
            href = f"{lang}/{page_name(f)}.html"
            out.append(f'<li><a href="{html.escape(href)}">{html.escape(title_of(f, lang))}</a></li>')
        out.append("</ol>" if files and files[0].endswith("00_overview") else "</ul>")
    out.append("</section>")
    return "\n".join(out)


def render(values: dict[str, float], toc_path: Path = TOC, headline: bool = True) -> str:
    """The landing page's HTML."""
    frame = TEMPLATE.read_text(encoding="utf-8")
    if "<!-- MAP -->" not in frame:
        raise SystemExit(f"landing: {TEMPLATE} has no <!-- MAP --> marker")
    return frame.replace("<!-- MAP -->", "\n".join(edition_map(lang, values, toc_path, headline) for lang in EDITIONS))


FAVICON_SVG = ROOT / "book" / "_static" / "favicon.svg"


def favicon_ico(size: int = 32) -> bytes:
    """book/_static/favicon.svg (a chip: a body, a die and three pins a side) drawn as an ICO, for
    ``site/favicon.ico``: a browser asks the site's root for it whenever a page shows no icon of its
    own, as JupyterLite's notebook page does while it swaps its busy and idle icons (a 404 in the
    console of a reader's second live chapter). The SVG is read, not copied: a change of its
    colour shows here, and a change of its shapes fails the check below."""
    from PIL import Image, ImageDraw
    svg = FAVICON_SVG.read_text(encoding="utf-8")
    shapes = ('<rect x="6" y="6" width="20" height="20" rx="3"', '<rect x="11" y="11" width="10" height="10" rx="1"',
              'M10 2v4M16 2v4M22 2v4M10 26v4M16 26v4M22 26v4M2 10h4M2 16h4M2 22h4M26 10h4M26 16h4M26 22h4')
    colour = svg.split('fill="', 1)[1].split('"', 1)[0] if 'fill="' in svg else ""
    if not all(shape in svg for shape in shapes) or not colour.startswith("#"):
        raise SystemExit(f"landing: {FAVICON_SVG} is not the chip favicon_ico draws: update favicon_ico with it")
    k = size / 32
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    for at in (10, 16, 22):                                   # the pins, 2 px wide
        draw.rectangle((at * k - k, 2 * k, at * k + k - 1, 30 * k - 1), fill=colour)
        draw.rectangle((2 * k, at * k - k, 30 * k - 1, at * k + k - 1), fill=colour)
    draw.rounded_rectangle((6 * k, 6 * k, 26 * k - 1, 26 * k - 1), radius=3 * k, fill=colour)
    draw.rounded_rectangle((11 * k, 11 * k, 21 * k - 1, 21 * k - 1), radius=k, fill="#ffffff")
    out = io.BytesIO()
    image.save(out, format="ICO", sizes=[(size, size), (16, 16)])
    return out.getvalue()


def write(site: Path = SITE, build_dir: Path = BUILD, toc_path: Path = TOC) -> Path:
    """Write ``site/index.html``. A private build whose table of contents leaves the overview out
    (``COURSE_TOC``) gets the map without the headline, and says so."""
    site.mkdir(parents=True, exist_ok=True)
    target = site / "index.html"
    has_overview = any(f.endswith("/00_overview") for _, files in chapter_files(toc_path) for f in files)
    if has_overview:
        values = headline_values(build_dir)
        page = render(values, toc_path)
    else:
        print(f"[landing] {toc_path} has no overview: the landing page shows the map without its headline")
        page = render({}, toc_path, headline=False)
    target.write_text(page, encoding="utf-8")
    (site / "favicon.ico").write_bytes(favicon_ico())
    return target


if __name__ == "__main__":
    print(write(Path(sys.argv[1]) if len(sys.argv) > 1 else SITE))
