"""Formulas become MathML at build time (book/tools/mathml.py), with MathJax's TeX input in Node."""
import mathml

PAGE = """<html><head>
<script defer="defer" src="../../_static/course-math.js?v=1"></script>
</head><body>
<p>Intensity <span class="math notranslate nohighlight">\\(I = F / M\\)</span>, and <span class="math notranslate nohighlight">\\(a &lt; b\\)</span>.</p>
<div class="math notranslate nohighlight" id="equation-eq-x">
<span class="eqno">(1)<a class="headerlink" href="#equation-eq-x">#</a></span>\\[\\begin{split}t = \\frac{F}{P}\\end{split}\\]</div>
<pre>\\(left alone in code\\)</pre>
BAD_HERE
</body></html>"""


def page(tmp_path, bad=""):
    path = tmp_path / "notebooks" / "en" / "06_x.html"
    path.parent.mkdir(parents=True)
    path.write_text(PAGE.replace("BAD_HERE", bad), encoding="utf-8")
    return path


def test_each_formula_becomes_mathml_in_place_and_the_loader_goes(tmp_path):
    path = page(tmp_path)
    count, errors = mathml.convert_site(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert (count, errors) == (3, [])
    assert text.count("<math") == 3 and 'display="block"' in text       # two inline, one display
    assert "<mo>&lt;</mo>" in text                                        # the escaped < read as TeX's <
    assert '<span class="eqno">(1)' in text and 'id="equation-eq-x"' in text   # number and anchor kept
    assert "<mfrac>" in text and "\\frac" not in text and "\\(I" not in text
    assert "course-math.js" not in text
    assert "<pre>\\(left alone in code\\)</pre>" in text
    assert mathml.convert_site(tmp_path) == (0, [])                        # a converted page stays as it is


def test_tex_that_mathjax_cannot_read_is_named_with_its_page(tmp_path):
    page(tmp_path, bad='<span class="math notranslate nohighlight">\\(\\frac{1}\\)</span>')
    count, errors = mathml.convert_site(tmp_path)
    assert count == 4 and len(errors) == 1
    where, tex, message = errors[0]
    assert where.name == "06_x.html" and tex == "\\frac{1}" and message
