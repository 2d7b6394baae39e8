"""Tests for infra_lib.supply: GPUs per month from logic wafers, packaging and HBM, and the binding supply.

Expected values are worked out in the test from the formulas, never copied from the library's output.
"""
import math

import pytest
from hypothesis import given, strategies as st

from infra_lib import fab, supply

from bad_values import NOT_A_FINITE_NUMBER, BAD_NON_NEGATIVE, BAD_POSITIVE, BAD_COUNT, PROPS, names

BAD_FRACTION = [0, -0.1, 1.01] + NOT_A_FINITE_NUMBER


# ---- supply --------------------------------------------------------------------------------------

def test_supply_by_hand():
    p = supply.Product("x", 814, 1, 2145, 5, 8)
    s = supply.Supply(logic_wafers=5000, cowos_wafers=8000, packaging_yield=0.95, hbm_dram_dies=6.4e6, d0_per_cm2=0.1)
    r = supply.gpu_supply(p, s)
    gross = math.pi * 150 ** 2 / 814 - math.pi * 300 / math.sqrt(1628)
    y = ((1 - math.exp(-0.814)) / 0.814) ** 2
    assert r.logic == pytest.approx(5000 * gross * y, rel=1e-12)
    interposers = math.pi * 150 ** 2 / 2145 - math.pi * 300 / math.sqrt(4290)
    assert r.packaging == pytest.approx(8000 * interposers * 0.95, rel=1e-12)
    assert r.hbm == pytest.approx(6.4e6 / 40)
    assert r.shipped == min(r.logic, r.packaging, r.hbm)
    assert getattr(r, r.binding) == r.shipped


def test_teaching_products_binding_supply_under_both_yield_readings():
    # sellable dies (salvage, the chapter's reading): logic never binds; perfect dies only: it binds the B200-like
    got = {p.name: supply.gpu_supply(p, supply.teaching_supply()).binding for p in supply.teaching_products()}
    assert got == {"H100": "packaging", "B200": "packaging", "B300": "hbm"}
    perfect = {p.name: supply.gpu_supply(p, supply.teaching_supply(), salvage=False).binding for p in supply.teaching_products()}
    assert perfect == {"H100": "packaging", "B200": "logic", "B300": "hbm"}


def test_logic_supply_counts_sellable_dies_by_hand():
    # 800 mm2 at D0 = 0.1/cm2: uncore (half the die) clean with exp(-0.4); at most 12 of 144 SMs bad
    p = supply.Product("x", 800, 2, 2800, 8, 8, 144, 132, 0.5)
    s = supply.Supply(logic_wafers=5000, cowos_wafers=8000, packaging_yield=0.95, hbm_dram_dies=6.4e6, d0_per_cm2=0.1)
    gross = math.pi * 150 ** 2 / 800 - math.pi * 300 / math.sqrt(1600)
    q = math.exp(-0.4 / 144)
    tail = sum(math.comb(144, j) * q ** j * (1 - q) ** (144 - j) for j in range(132, 145))
    assert fab.sellable_dies_per_wafer(800, 0.1, 144, 132, 0.5) == pytest.approx(gross * math.exp(-0.4) * tail)
    assert supply.gpus_from_logic(p, s) == pytest.approx(5000 * gross * math.exp(-0.4) * tail / 2)
    assert supply.gpus_from_logic(p, s, salvage=False) == pytest.approx(5000 * fab.good_dies_per_wafer(800, 0.1) / 2)
    # no spare units: the same as perfect dies
    plain = supply.Product("x", 800, 2, 2800, 8, 8)
    assert not plain.salvageable and supply.gpus_from_logic(plain, s) == supply.gpus_from_logic(p, s, salvage=False)


@pytest.mark.parametrize("kwargs, match", [
    ({"units_total": 10, "units_needed": 11}, "units_needed"),
    ({"units_total": 10, "units_needed": 0}, "units_needed"),
    ({"units_total": 10, "units_needed": 5, "unit_area_share": 1.5}, "unit_area_share"),
    ({"units_total": -1}, "units_total"),
])
def test_product_salvage_fields_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        supply.Product("x", 800, 1, 2000, 5, 8, **kwargs)


@PROPS
@given(st.floats(min_value=0, max_value=1e5), st.floats(min_value=0, max_value=1e5),
       st.floats(min_value=0, max_value=1e8))
def test_shipped_is_the_smallest_supply(lw, cw, dram):
    p = supply.Product("x", 800, 2, 2800, 8, 12)
    r = supply.gpu_supply(p, supply.Supply(lw, cw, 0.9, dram, 0.1))
    assert r.shipped == min(r.logic, r.packaging, r.hbm) <= r.logic


# ---- validation: errors name the parameter ---------------------------------------------------------

@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("param, call", [
    ("die_area_mm2", lambda x: supply.Product("x", x, 1, 2000, 5, 8)),
    ("interposer_area_mm2", lambda x: supply.Product("x", 800, 1, x, 5, 8)),
])
def test_positives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_NON_NEGATIVE)
@pytest.mark.parametrize("param, call", [
    ("logic_wafers", lambda x: supply.Supply(x, 1, 0.9, 1, 0.1)),
    ("cowos_wafers", lambda x: supply.Supply(1, x, 0.9, 1, 0.1)),
    ("hbm_dram_dies", lambda x: supply.Supply(1, 1, 0.9, x, 0.1)),
    ("d0_per_cm2", lambda x: supply.Supply(1, 1, 0.9, 1, x)),
])
def test_non_negatives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_COUNT)
@pytest.mark.parametrize("param, call", [
    ("dies_per_gpu", lambda x: supply.Product("x", 800, x, 2000, 5, 8)),
    ("stacks_per_gpu", lambda x: supply.Product("x", 800, 1, 2000, x, 8)),
    ("dram_dies_per_stack", lambda x: supply.Product("x", 800, 1, 2000, 5, x)),
])
def test_counts_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_FRACTION)
@pytest.mark.parametrize("param, call", [
    ("packaging_yield", lambda x: supply.Supply(1, 1, x, 1, 0.1)),
])
def test_fractions_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)
