"""Explore-the-assumptions widget of chapter 1: one wafer, for readers who run the notebook.

On the static website there is no Python kernel, so the chapter hides the widget's output
there and says how to run the notebook instead (see :mod:`infra_lib.widgets`).
"""
import html

from . import fab, hardware, i18n
from .i18n import t



def wafer_summary(lang, die_area_mm2, d0_per_cm2, alpha, wafer_price_usd):
    """Dies per wafer, yield under each model, good dies and cost per good die, as HTML.

    Bad input (an area of zero, a negative D0, ...) comes back as a message naming the
    parameter, never as a traceback.
    """
    try:
        gross = fab.gross_dies_per_wafer(die_area_mm2, fab.wafer_diameter_mm())
        edge = fab.edge_loss_share(die_area_mm2, fab.wafer_diameter_mm())
        wafers = [(m, fab.wafer(die_area_mm2, d0_per_cm2, wafer_price_usd, m, alpha, fab.wafer_diameter_mm()))
                  for m in fab.MODELS]
    except (TypeError, ValueError) as err:
        return f"<p><b>{t('w_error', lang)}:</b> {html.escape(str(err))}</p>"
    head = (f"<tr><th>{t('fab_w_model', lang)}</th><th>{t('fab_w_yield', lang)}</th>"
            f"<th>{t('fab_w_good', lang)}</th><th>{t('fab_w_cost', lang)}</th></tr>")
    rows = "".join(
        f"<tr><td>{html.escape(t('fab_' + m, lang, alpha=alpha))}</td>"
        f"<td style='text-align:right'>{w.die_yield:.1%}</td>"
        f"<td style='text-align:right'>{w.good_dies:,.1f}</td>"
        f"<td style='text-align:right'>${w.cost_per_good_die_usd:,.0f} "
        f"(${w.good_silicon_usd_per_mm2:,.2f} {t('fab_w_per_mm2', lang)})</td></tr>"
        for m, w in wafers)
    note = ""
    if die_area_mm2 > fab.reticle_area_mm2():
        note = f"<p><b>{t('fab_w_reticle', lang, area=fab.reticle_area_mm2())}</b></p>"
    return (f"<p>{t('fab_w_gross', lang)}: <b>{gross:,.1f}</b> ({edge:.0%} {t('fab_w_edge', lang)})</p>"
            f"<table>{head}{rows}</table>{note}")


def explore_wafer(lang="en"):
    """Sliders for die area, D0, alpha and wafer price, with the wafer recomputed live."""
    import ipywidgets as w
    style = {"description_width": "16em"}
    layout = w.Layout(width="34em")
    controls = {
        "die_area_mm2": w.FloatSlider(hardware.value("gh100_die", "area_mm2"), min=20, max=1700, step=1,
                                      description=t("fab_w_area", lang)),
        "d0_per_cm2": w.FloatSlider(hardware.value("tsmc_n5", "defect_density_per_cm2"), min=0, max=1, step=0.01,
                                    description=t("fab_w_d0", lang)),
        "alpha": w.FloatSlider(hardware.value("fab_teaching", "nb_alpha"), min=0.2, max=20, step=0.1,
                               description=t("fab_w_alpha", lang)),
        "wafer_price_usd": w.FloatSlider(hardware.value("tsmc_n5", "wafer_price_usd"), min=1000, max=40000, step=100,
                                         description=t("fab_w_price", lang)),
    }
    for c in controls.values():
        c.style, c.layout = style, layout
    out = w.HTML()

    def update(_=None):
        out.value = wafer_summary(lang, **{k: c.value for k, c in controls.items()})

    for c in controls.values():
        c.observe(update, names="value")
    update()
    return w.VBox(list(controls.values()) + [out])
