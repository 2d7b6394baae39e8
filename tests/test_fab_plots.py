"""Chapter 1 figures: draw in both languages without a missing glyph, labels exist in both."""
import warnings

import pytest

from infra_lib import fab, fab_plots, i18n

GENS = [("HBM2 (JEDEC)", 1024, 2.4e9), ("HBM4 (JEDEC)", 2048, 8e9)]
GPUS = [("H100", 5, 1024, 5.238e9), ("B200", 8, 1024, 7.52e9)]


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_fab_figure_draws_without_missing_glyphs(lang):
    results = [fab.gpu_supply(p, fab.teaching_supply()) for p in fab.teaching_products()]
    figs = [fab_plots.yield_figure(0.1, 3, [("GH100", 814), ("GA100", 826)], lang),
            fab_plots.dies_figure(0.1, 16988, [("GH100", 814)], lang),
            fab_plots.dies_figure(0.1, 16988, [("GH100", 814)], lang, model="negative_binomial", alpha=2),
            fab_plots.hbm_figure(GENS, GPUS, lang),
            fab_plots.supply_figure(results, lang)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fig in figs:
            fig.canvas.draw()
            assert fig.get_facecolor()[:3] == (1.0, 1.0, 1.0)


def test_fab_labels_exist_in_both_languages_and_are_prefixed():
    keys = [k for k in i18n.STRINGS if k.startswith("fab_")]
    assert len(keys) > 20
    for k in keys:
        assert set(i18n.STRINGS[k]) == {"en", "zh"} and all(i18n.STRINGS[k].values())


def test_bad_language_is_named():
    with pytest.raises(ValueError, match="lang"):
        fab_plots.yield_figure(0.1, 3, [], "fr")
