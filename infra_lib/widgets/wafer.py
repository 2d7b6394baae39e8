"""Chapter 1 widget: one wafer (dies per wafer, yield under each model, cost per good die).

Calls :func:`infra_lib.fab.gross_dies_per_wafer`, :func:`infra_lib.fab.edge_loss_share`,
:func:`infra_lib.fab.wafer` and the registry (pure Python, no numpy).
"""
from typing import Any

from .. import _check, fab, hardware
from ..i18n import t
from .panel import Control, Panel, Result

CONTROLS = (
    Control("die_area_mm2", "fab_w_area", float, hardware.value("gh100_die", "area_mm2"), 20, 1700, 1),
    Control("d0_per_cm2", "fab_w_d0", float, hardware.value("tsmc_n5", "defect_density_per_cm2"), 0, 1, 0.01),
    Control("alpha", "fab_w_alpha", float, hardware.value("fab_teaching", "nb_alpha"), 0.2, 20, 0.1),
    Control("wafer_price_usd", "fab_w_price", float, hardware.value("tsmc_n5", "wafer_price_usd"), 1000, 40000, 1),
)


def summary(lang: str, die_area_mm2: float, d0_per_cm2: float, alpha: float, wafer_price_usd: float) -> Result:
    """Candidate dies, then yield, good dies and cost per good die under each yield model.

    >>> r = summary("en", 814, 0.10, 3, 16988)
    >>> r.rows[1][1:3]
    ('46.8%', '29.7')
    """
    die_area_mm2 = _check.positive("die_area_mm2", die_area_mm2, "mm²")
    d0_per_cm2 = _check.non_negative("d0_per_cm2", d0_per_cm2, "defects per cm²")
    alpha = _check.positive("alpha", alpha, "(clustering parameter, no unit)")
    wafer_price_usd = _check.positive("wafer_price_usd", wafer_price_usd, "US dollars")
    diameter = fab.wafer_diameter_mm()
    gross = fab.gross_dies_per_wafer(die_area_mm2, diameter)
    edge = fab.edge_loss_share(die_area_mm2, diameter)
    wafers = [(m, fab.wafer(die_area_mm2, d0_per_cm2, wafer_price_usd, m, alpha, diameter)) for m in fab.MODELS]
    rows = tuple(
        (t("fab_" + m, lang, alpha=alpha), f"{w.die_yield:.1%}", f"{w.good_dies:,.1f}",
         t("w_paren", lang, text=f"${w.cost_per_good_die_usd:,.0f}",
           inner=f"${w.good_silicon_usd_per_mm2:,.2f} {t('fab_w_per_mm2', lang)}"))
        for m, w in wafers)
    notes: tuple[str, ...] = ()
    if die_area_mm2 > fab.reticle_area_mm2():
        notes = (t("fab_w_reticle", lang, area=fab.reticle_area_mm2()),)
    return Result(rows,
                  header=(t("fab_w_model", lang), t("fab_w_yield", lang), t("fab_w_good", lang), t("fab_w_cost", lang)),
                  align="lrrr", intro=t("w_labelled", lang, label=t("fab_w_gross", lang),
                          value=t("w_paren", lang, text=f"{gross:,.1f}", inner=f"{edge:.0%} {t('fab_w_edge', lang)}")),
                  notes=notes)


PANEL = Panel(CONTROLS, summary)


def explore(lang: str = "en") -> Any:
    """Sliders for die area, D0, alpha and wafer price, the wafer recomputed live (an ipywidgets.VBox)."""
    return PANEL.build(lang)
