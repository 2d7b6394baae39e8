"""Figures: Chinese labels render with a CJK font, and a missing glyph is an error."""
import warnings

import matplotlib.pyplot as plt
import pytest

from infra_lib import i18n, inference, interconnect, measurements, plotting


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_figure_draws_without_missing_glyphs(lang):
    gpu, req = inference.teaching_gpu(), inference.teaching_request()
    figs = [plotting.roofline_figure(gpu, [("prefill", 2000), ("decode", 1)], lang),
            plotting.batch_figure(req, gpu, lang, mark=32),
            plotting.ladder_figure(interconnect.dgx_h100_ladder(), lang),
            plotting.reality_figure([measurements.decode_check(1)], lang)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fig in figs:
            fig.canvas.draw()


def test_a_missing_glyph_fails():
    plotting.setup("en")   # DejaVu Sans only: no CJK glyphs
    fig, ax = plt.subplots()
    ax.set_title("显存带宽")
    with pytest.raises(UserWarning, match="missing from"):
        fig.canvas.draw()
    plt.close(fig)


def test_chinese_setup_uses_a_cjk_font():
    plotting.setup("zh")
    assert "CJK" in plt.rcParams["font.sans-serif"][0] or "Micro Hei" in plt.rcParams["font.sans-serif"][0]


def test_every_label_exists_in_both_languages():
    for key, texts in i18n.STRINGS.items():
        assert set(texts) == set(i18n.LANGUAGES), key
        assert all(texts.values()), key


def test_bad_language_is_named():
    with pytest.raises(ValueError, match="lang"):
        plotting.setup("fr")
    with pytest.raises(KeyError, match="no label"):
        i18n.t("nonexistent", "en")
