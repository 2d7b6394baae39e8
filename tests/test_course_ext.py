"""book/ext/course_ext.py: the Sphinx hooks that need no build to check."""
from types import SimpleNamespace

from docutils import nodes

import course_ext


def figure(caption, alt=None):
    image = nodes.image(uri="_images/x.png", **({"alt": alt} if alt else {}))
    doc = nodes.document(None, None)
    doc += nodes.figure("", image, nodes.caption(text=caption))
    return doc, image


def test_figure_alt_is_its_caption_first_sentence():
    doc, image = figure("上：每片 300 mm 晶圆的 die，D_0 = 每 cm² 0.10。下：成本。")
    course_ext.alt_from_caption(None, doc, "x")
    assert image["alt"] == "上：每片 300 mm 晶圆的 die，D_0 = 每 cm² 0.10。"
    doc, image = figure("Left: one warp at 0.5 efficiency. Right: many warps.")
    course_ext.alt_from_caption(None, doc, "x")
    assert image["alt"] == "Left: one warp at 0.5 efficiency."


def test_figure_alt_given_by_the_author_is_kept():
    doc, image = figure("A caption.", alt="Written by hand")
    course_ext.alt_from_caption(None, doc, "x")
    assert image["alt"] == "Written by hand"


def test_print_button_says_mainland_chinese():
    context = {"header_buttons": [{"tooltip": "下载此页面", "buttons": [{"tooltip": "列印成 PDF"}]}],
               "body": '<summary aria-label="Toggle hidden content">'}
    course_ext.mainland_wording(SimpleNamespace(config=SimpleNamespace(language="zh_CN")), "p", "page.html", context, None)
    assert context["header_buttons"][0]["buttons"][0]["tooltip"] == "打印为 PDF"
    assert context["header_buttons"][0]["tooltip"] == "下载此页面"
    assert context["body"] == '<summary aria-label="显示或隐藏内容">'
    english = {"header_buttons": [{"tooltip": "Print to PDF"}]}
    course_ext.mainland_wording(SimpleNamespace(config=SimpleNamespace(language="en")), "p", "page.html", english, None)
    assert english["header_buttons"][0]["tooltip"] == "Print to PDF"


def test_chinese_exercise_titles_take_full_width_brackets():
    body = ('<span class="caption-number">练习 10.1 </span> (面试题)</p> … '
            '<a href="#x">练习 3.6 (结论什么时候会翻转？)</a> <p>see (a) and (b)</p> … '
            '<p class="admonition-title">解答<a class="reference internal" href="#rv-ov-q1"> 练习 10.1 (面试题)</a></p>')
    context = {"body": body}
    course_ext.mainland_wording(SimpleNamespace(config=SimpleNamespace(language="zh_CN")), "p", "page.html", context, None)
    assert context["body"] == ('<span class="caption-number">练习 10.1</span>（面试题）</p> … '
                               '<a href="#x">练习 3.6（结论什么时候会翻转？）</a> <p>see (a) and (b)</p> … '
                               '<p class="admonition-title">解答：<a class="reference internal" href="#rv-ov-q1">'
                               '练习 10.1（面试题）</a></p>')
    english = {"body": body}
    course_ext.mainland_wording(SimpleNamespace(config=SimpleNamespace(language="en")), "p", "page.html", english, None)
    assert english["body"] == body
