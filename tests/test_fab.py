"""Tests for infra_lib.fab: dies per wafer, yield models, cost, salvage, chiplets (supply: tests/test_supply.py).

Expected values are worked out in the test from the formulas and the cited documents, never
copied from the library's output.
"""
import math
from pathlib import Path

import pytest
from hypothesis import assume, given, strategies as st

from infra_lib import fab, hardware as hw

from bad_values import NOT_A_FINITE_NUMBER, BAD_NON_NEGATIVE, BAD_POSITIVE, BAD_COUNT, PROPS, names

ROOT = Path(__file__).resolve().parents[1]
# Chapter 1's registry entries: dies, processes, the fab, packaging, HBM standards, its assumptions.
FAB_CATEGORIES = ("die", "process", "fab", "packaging", "memory_standard")

BAD_FRACTION = [0, -0.1, 1.01] + NOT_A_FINITE_NUMBER

areas = st.floats(min_value=1.0, max_value=5000.0, allow_nan=False, allow_infinity=False)
d0s = st.floats(min_value=0.0, max_value=2.0, allow_nan=False, allow_infinity=False)
alphas = st.floats(min_value=0.05, max_value=1e3, allow_nan=False, allow_infinity=False)


# ---- the registry file: provenance of every value -------------------------------------------

def fab_rows():
    return [(s.device, s.name, s) for s in hw.all_specs()
            if hw.entry(s.device).category in FAB_CATEGORIES or s.device == "fab_teaching"]


@pytest.mark.parametrize("dev, name, s", fab_rows(), ids=lambda x: x if isinstance(x, str) else None)
def test_every_fab_spec_is_loaded_with_provenance(dev, name, s):
    assert hw.spec(dev, name) == s
    assert s.kind in hw.KINDS and s.where.strip() and s.unit.strip()
    assert s.source.title.strip() and s.source.date.strip()


def test_teaching_values_cite_the_course_and_only_the_teaching_device_holds_them():
    for dev, name, s in fab_rows():
        assert (s.kind == "teaching") == (dev == "fab_teaching"), (dev, name)
        if s.kind == "teaching":
            assert s.source.key == "course_ch1_assumptions"


def test_reported_values_cite_no_vendor_document():
    for dev, name, s in fab_rows():
        if s.kind == "reported":
            assert s.source.publisher != "NVIDIA", name


@pytest.mark.parametrize("dev, name, expected", [
    # NVIDIA A100 whitepaper, Table 1 and section 3.3; Hopper blog (GH100)
    ("gv100_die", "area_mm2", 815), ("gv100_die", "transistors", 21.1e9),
    ("ga100_die", "area_mm2", 826), ("ga100_die", "transistors", 54.2e9),
    ("gh100_die", "area_mm2", 814), ("gh100_die", "transistors", 80e9), ("gh100_die", "sm_count", 144),
    ("gh100_die", "hbm_sites", 6),
    # AnandTech 2020-08-25 (TSMC D0), CSET 2020 Table 9 (wafer prices)
    ("tsmc_n7", "defect_density_per_cm2", 0.09), ("tsmc_n5", "defect_density_per_cm2", 0.10),
    ("tsmc_n7", "wafer_price_usd", 9346), ("tsmc_n5", "wafer_price_usd", 16988),
    ("tsmc_n5", "packaging_test_cost_usd", 80),
    # Tom's Hardware on TSMC's 2024 symposium: CoWoS interposers in reticles
    ("tsmc_cowos", "interposer_reticles_2024", 3.3), ("tsmc_cowos", "interposer_reticles_2026", 5.5),
    ("tsmc_cowos", "interposer_reticles_2027", 8),
    # Blackwell datasheet, Blackwell Ultra blog, newsroom, TechInsights teardown
    ("b200_hgx", "mem_bw_Bps", 7.7e12), ("b200_hgx", "gb200_mem_bw_Bps", 8e12), ("b200_hgx", "logic_dies", 2),
    ("b200_hgx", "transistors", 208e9), ("b200_hgx", "hbm_stacks", 8), ("b200_hgx", "hbm_stack_height", 8),
    ("b300_gpu", "hbm_stacks", 8), ("b300_gpu", "hbm_stack_height", 12), ("b300_gpu", "hbm_bus_bits", 8192),
    ("b300_gpu", "mem_bw_Bps", 8e12), ("b300_gpu", "mem_capacity_B", 288e9),
    ("h200_sxm", "hbm_stacks", 6), ("h200_sxm", "hbm_bus_bits", 6144),
    # JEDEC releases and Micron's announcement
    ("hbm2_jesd235b", "pin_rate_bps", 2.4e9), ("hbm3_jesd238", "pin_rate_bps", 6.4e9),
    ("hbm3e_micron", "pin_rate_bps", 9.2e9), ("hbm4_jesd270", "pin_rate_bps", 8e9),
    ("hbm4_jesd270", "bits_per_stack", 2048), ("hbm3_jesd238", "bits_per_stack", 1024),
])
def test_value_matches_source(dev, name, expected):
    assert hw.value(dev, name) == expected


# ---- wafer, reticle, dies per wafer ---------------------------------------------------------

def test_reticle_is_26_by_33():
    assert fab.reticle_area_mm2() == 26 * 33 == 858
    assert fab.reticles(26 * 33 * 3.3) == pytest.approx(3.3)


def test_wafer_diameter_and_area():
    assert fab.wafer_diameter_mm() == 300
    assert fab.wafer_area_mm2(300) == pytest.approx(math.pi * 150 ** 2)


@pytest.mark.parametrize("area, expected, rounded_to", [
    # facts.md section 3.1 [D]: 814 -> 63.5, 826 -> 62.4, 858 -> 59.6, 400 -> 143.4, 100 -> 640
    (814, 63.5, 0.1), (826, 62.4, 0.1), (858, 59.6, 0.1), (400, 143.4, 0.1), (100, 640, 1),
])
def test_gross_dies_match_the_fact_sheet(area, expected, rounded_to):
    assert fab.gross_dies_per_wafer(area) == pytest.approx(expected, abs=rounded_to / 2)


def test_gross_dies_by_hand_for_gh100():
    whole = math.pi * 150 ** 2 / 814          # 86.84
    edge = math.pi * 300 / math.sqrt(2 * 814)  # 23.36
    assert fab.gross_dies_per_wafer(814, 300) == pytest.approx(whole - edge, rel=1e-12)
    assert fab.edge_loss_share(814) == pytest.approx(edge / whole, rel=1e-12)


def test_a_die_too_large_for_the_formula_is_refused():
    with pytest.raises(ValueError, match=names("die_area_mm2")):
        fab.gross_dies_per_wafer(300 * 300 / 8)


@PROPS
@given(areas, areas)
def test_bigger_dies_fit_fewer_and_lose_more_at_the_edge(a, b):
    # areas one rounding step apart (4999.999999999999 and 5000.0) give the same result
    assume(a * (1 + 1e-9) < b)
    assert fab.gross_dies_per_wafer(a) > fab.gross_dies_per_wafer(b)
    assert fab.edge_loss_share(a) < fab.edge_loss_share(b)


@PROPS
@given(areas)
def test_gross_dies_never_exceed_area_ratio(a):
    assert fab.gross_dies_per_wafer(a) < fab.wafer_area_mm2(300) / a


# ---- yield models -----------------------------------------------------------------------------

@pytest.mark.parametrize("d0, poisson, murphy", [
    # facts.md section 3.2 worked example for the 814 mm² GH100
    (0.05, 0.666, 0.675), (0.07, 0.566, 0.581), (0.10, 0.443, 0.468), (0.20, 0.196, 0.244),
])
def test_yields_match_the_fact_sheet(d0, poisson, murphy):
    assert fab.poisson_yield(814, d0) == pytest.approx(poisson, abs=6e-4)
    assert fab.murphy_yield(814, d0) == pytest.approx(murphy, abs=6e-4)


def test_yield_formulas_by_hand():
    x = 8.14 * 0.10
    assert fab.poisson_yield(814, 0.10) == pytest.approx(math.exp(-x), rel=1e-12)
    assert fab.murphy_yield(814, 0.10) == pytest.approx(((1 - math.exp(-x)) / x) ** 2, rel=1e-12)
    assert fab.negative_binomial_yield(814, 0.10, 3) == pytest.approx((1 + x / 3) ** -3, rel=1e-12)
    assert fab.negative_binomial_yield(814, 0.10, 1) == pytest.approx(1 / (1 + x), rel=1e-12)


def test_zero_defects_is_full_yield():
    for model in ("poisson", "murphy"):
        assert fab.die_yield(814, 0, model) == 1.0
    assert fab.die_yield(814, 0, "negative_binomial", alpha=2) == 1.0


def test_negative_binomial_needs_alpha():
    with pytest.raises(ValueError, match=r"^alpha\b"):
        fab.die_yield(814, 0.1, "negative_binomial")
    with pytest.raises(ValueError, match=names("model")):
        fab.die_yield(814, 0.1, "bose")


@PROPS
@given(areas, d0s)
def test_poisson_is_the_most_pessimistic(a, d0):
    p = fab.poisson_yield(a, d0)
    assert fab.murphy_yield(a, d0) >= p * (1 - 1e-12)
    assert fab.negative_binomial_yield(a, d0, 3) >= p * (1 - 1e-12)


@PROPS
@given(areas, areas, d0s)
def test_poisson_multiplies_over_area(a, b, d0):
    assert fab.poisson_yield(a + b, d0) == pytest.approx(fab.poisson_yield(a, d0) * fab.poisson_yield(b, d0),
                                                         rel=1e-9)


@PROPS
@given(st.floats(min_value=1, max_value=2000), st.floats(min_value=0.01, max_value=1.0))
def test_negative_binomial_tends_to_poisson(a, d0):
    assert fab.negative_binomial_yield(a, d0, 1e9) == pytest.approx(fab.poisson_yield(a, d0), rel=1e-6)


@PROPS
@given(areas, st.floats(min_value=0.001, max_value=2.0), alphas, alphas)
def test_more_clustering_gives_more_yield(a, d0, al1, al2):
    assume(al1 < al2 * (1 - 1e-9))
    assert fab.negative_binomial_yield(a, d0, al1) >= fab.negative_binomial_yield(a, d0, al2) * (1 - 1e-12)


@PROPS
@given(areas, d0s, st.sampled_from(fab.MODELS), alphas)
def test_yield_is_a_probability(a, d0, model, alpha):
    y = fab.die_yield(a, d0, model, alpha)
    assert 0 <= y <= 1


# ---- cost ---------------------------------------------------------------------------------------

def test_cost_per_good_die_by_hand():
    # H&P: cost of die = cost of wafer / (dies per wafer x die yield)
    gross = math.pi * 150 ** 2 / 814 - math.pi * 300 / math.sqrt(2 * 814)
    y = ((1 - math.exp(-0.814)) / 0.814) ** 2
    assert fab.cost_per_good_die_usd(16988, 814, 0.10) == pytest.approx(16988 / (gross * y), rel=1e-12)
    w = fab.wafer(814, 0.10, 16988)
    assert w.good_dies == pytest.approx(gross * y, rel=1e-12)
    assert w.good_silicon_usd_per_mm2 == pytest.approx(16988 / (gross * y) / 814, rel=1e-12)


@PROPS
@given(areas, areas, st.floats(min_value=0.01, max_value=1.0))
def test_bigger_dies_cost_more_per_mm2_of_good_silicon(a, b, d0):
    assume(a * 1.001 < b < 5000)
    wa, wb = fab.wafer(a, d0, 10000), fab.wafer(b, d0, 10000)
    assert wa.good_silicon_usd_per_mm2 < wb.good_silicon_usd_per_mm2


# ---- salvage ------------------------------------------------------------------------------------

def test_salvage_by_hand():
    # uncore half of 8.14 cm² defect-free; 144 SMs each 0.5 x 8.14 / 144 cm², at least 132 good
    x = 0.814
    p = math.exp(-x * 0.5 / 144)
    at_least = sum(math.comb(144, j) * p ** j * (1 - p) ** (144 - j) for j in range(132, 145))
    assert fab.salvage_yield(814, 0.10, 144, 132, 0.5) == pytest.approx(math.exp(-x * 0.5) * at_least, rel=1e-12)


@PROPS
@given(st.floats(min_value=10, max_value=1500), st.floats(min_value=0, max_value=1.0),
       st.integers(min_value=1, max_value=200), st.floats(min_value=0.01, max_value=1.0))
def test_salvage_needing_every_unit_is_poisson(a, d0, n, s):
    assert fab.salvage_yield(a, d0, n, n, s) == pytest.approx(fab.poisson_yield(a, d0), rel=1e-9)


@PROPS
@given(st.floats(min_value=10, max_value=1500), st.floats(min_value=0.001, max_value=1.0),
       st.integers(min_value=2, max_value=200), st.floats(min_value=0.01, max_value=1.0))
def test_salvage_never_hurts(a, d0, n, s):
    assert fab.salvage_yield(a, d0, n, n - 1, s) >= fab.poisson_yield(a, d0) * (1 - 1e-12)


def test_salvage_needs_no_more_than_it_has():
    with pytest.raises(ValueError, match=names("units_needed")):
        fab.salvage_yield(814, 0.1, 144, 145, 0.5)


# ---- chiplets and known good die -------------------------------------------------------------

def test_two_half_dies_untested_are_no_better_under_poisson():
    y_half = math.exp(-4.0 * 0.1)
    assert fab.untested_package_yield(y_half, 2) == pytest.approx(math.exp(-8.0 * 0.1), rel=1e-12)


def test_known_good_die_splits_pay_by_hand():
    gross_800 = math.pi * 150 ** 2 / 800 - math.pi * 300 / math.sqrt(1600)
    gross_400 = math.pi * 150 ** 2 / 400 - math.pi * 300 / math.sqrt(800)
    assert fab.good_units_per_wafer(800, 1, 0.1, "poisson") == pytest.approx(gross_800 * math.exp(-0.8), rel=1e-12)
    assert fab.good_units_per_wafer(800, 2, 0.1, "poisson") == pytest.approx(gross_400 * math.exp(-0.4) / 2,
                                                                             rel=1e-12)


def test_package_cost_by_hand():
    gross = math.pi * 150 ** 2 / 800 - math.pi * 300 / math.sqrt(1600)
    c = 16988 / gross
    y = ((1 - math.exp(-0.8)) / 0.8) ** 2
    pc = fab.package_cost(16988, 800, 2, 0.10, 2000, test_cost_per_die_usd=50)
    assert pc.kgd_usd == pytest.approx(2 * (c + 50) / y + 2000, rel=1e-12)
    assert pc.untested_usd == pytest.approx((2 * c + 2000) / y ** 2, rel=1e-12)


@PROPS
@given(st.floats(min_value=50, max_value=850), st.integers(min_value=1, max_value=4),
       st.floats(min_value=0.001, max_value=0.5), st.floats(min_value=0, max_value=20000))
def test_break_even_test_cost_equalises_the_two_routes(a, n, d0, other):
    t = fab.kgd_break_even_test_cost_usd(17000, a, n, d0, other)
    assume(t >= 0)
    pc = fab.package_cost(17000, a, n, d0, other, test_cost_per_die_usd=t)
    assert pc.kgd_usd == pytest.approx(pc.untested_usd, rel=1e-9)


@PROPS
@given(st.floats(min_value=50, max_value=850), st.integers(min_value=1, max_value=4),
       st.floats(min_value=0.001, max_value=0.5), st.floats(min_value=0, max_value=20000))
def test_free_testing_never_costs_more(a, n, d0, other):
    pc = fab.package_cost(17000, a, n, d0, other)
    assert pc.kgd_usd <= pc.untested_usd * (1 + 1e-12)


# ---- density and HBM ------------------------------------------------------------------------------

def test_densities_from_the_whitepapers():
    assert fab.die_density_per_mm2("gv100_die") == pytest.approx(21.1e9 / 815)
    assert fab.die_density_per_mm2("ga100_die") == pytest.approx(54.2e9 / 826)
    assert fab.die_density_per_mm2("gh100_die") == pytest.approx(80e9 / 814)


# ---- validation: errors name the parameter ---------------------------------------------------------

@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("param, call", [
    ("die_area_mm2", lambda x: fab.gross_dies_per_wafer(x)),
    ("wafer_diameter_mm", lambda x: fab.gross_dies_per_wafer(814, x)),
    ("wafer_diameter_mm", lambda x: fab.wafer_area_mm2(x)),
    ("die_area_mm2", lambda x: fab.edge_loss_share(x)),
    ("area_mm2", lambda x: fab.reticles(x)),
    ("die_area_mm2", lambda x: fab.poisson_yield(x, 0.1)),
    ("die_area_mm2", lambda x: fab.murphy_yield(x, 0.1)),
    ("alpha", lambda x: fab.negative_binomial_yield(814, 0.1, x)),
    ("wafer_price_usd", lambda x: fab.cost_per_good_die_usd(x, 814, 0.1)),
    ("wafer_price_usd", lambda x: fab.wafer(814, 0.1, x)),
    ("wafer_price_usd", lambda x: fab.package_cost(x, 800, 2, 0.1, 2000)),
    ("total_area_mm2", lambda x: fab.good_units_per_wafer(x, 2, 0.1)),
    ("transistors", lambda x: fab.transistors_per_mm2(x, 814)),
    ("die_area_mm2", lambda x: fab.transistors_per_mm2(80e9, x)),
])
def test_positives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_NON_NEGATIVE)
@pytest.mark.parametrize("param, call", [
    ("d0_per_cm2", lambda x: fab.poisson_yield(814, x)),
    ("d0_per_cm2", lambda x: fab.murphy_yield(814, x)),
    ("d0_per_cm2", lambda x: fab.negative_binomial_yield(814, x, 3)),
    ("d0_per_cm2", lambda x: fab.salvage_yield(814, x, 144, 132, 0.5)),
    ("other_cost_usd", lambda x: fab.package_cost(17000, 800, 2, 0.1, x)),
    ("test_cost_per_die_usd", lambda x: fab.package_cost(17000, 800, 2, 0.1, 2000, test_cost_per_die_usd=x)),
])
def test_non_negatives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_COUNT)
@pytest.mark.parametrize("param, call", [
    ("units_total", lambda x: fab.salvage_yield(814, 0.1, x, 1, 0.5)),
    ("units_needed", lambda x: fab.salvage_yield(814, 0.1, 144, x, 0.5)),
    ("dies_per_unit", lambda x: fab.good_units_per_wafer(800, x, 0.1)),
    ("dies_per_package", lambda x: fab.package_cost(17000, 800, x, 0.1, 2000)),
    ("dies_per_package", lambda x: fab.untested_package_yield(0.5, x)),
])
def test_counts_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_FRACTION)
@pytest.mark.parametrize("param, call", [
    ("unit_area_share", lambda x: fab.salvage_yield(814, 0.1, 144, 132, x)),
    ("die_yield_fraction", lambda x: fab.untested_package_yield(x, 2)),
])
def test_fractions_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


# ---- dies per wafer, several ways; Seeds' yield model ------------------------------------------

def test_dies_per_wafer_methods_side_by_side():
    side = 814 ** 0.5
    assert fab.dies_per_wafer_area_only(814) == pytest.approx(math.pi * 150 ** 2 / 814)
    assert fab.dies_per_wafer_area_only(814) > fab.dies_per_wafer_grid(side, side) > fab.gross_dies_per_wafer(814)
    # exclusion ring and saw lanes only remove dies
    assert fab.dies_per_wafer_grid(side, side, edge_exclusion_mm=3, scribe_mm=0.1) <= fab.dies_per_wafer_grid(side, side)
    # a die as wide as the wafer fits nowhere; one 1 mm square die fits on any wafer of 2 mm
    assert fab.dies_per_wafer_grid(300, 300) == 0
    assert fab.dies_per_wafer_grid(1, 1, wafer_diameter_mm=2) >= 1
    with pytest.raises(ValueError, match="edge_exclusion_mm"):
        fab.dies_per_wafer_grid(10, 10, edge_exclusion_mm=150)


@PROPS
@given(st.floats(min_value=2, max_value=40), st.floats(min_value=2, max_value=40))
def test_grid_count_never_exceeds_the_area_bound(w, h):
    assert fab.dies_per_wafer_grid(w, h, offsets=3) <= fab.dies_per_wafer_area_only(w * h)


def test_seeds_model_is_the_negative_binomial_at_alpha_one():
    # by hand: GH100 at 0.1/cm2 has A D0 = 0.814, so Seeds gives 1 / 1.814 = 0.5513
    assert fab.seeds_yield(814, 0.1) == pytest.approx(1 / 1.814)
    assert fab.seeds_yield(814, 0.1) == pytest.approx(fab.negative_binomial_yield(814, 0.1, 1))
    assert fab.poisson_yield(814, 0.1) < fab.murphy_yield(814, 0.1) < fab.seeds_yield(814, 0.1)


def test_stack_yield_by_hand():
    # known-good dies: only bonding fails; 0.99 per layer over 8 and 12 layers
    assert fab.stack_yield(8, 0.99) == pytest.approx(0.99 ** 8)
    assert fab.stack_yield(12, 0.99) < fab.stack_yield(8, 0.99)
    assert fab.stack_yield(4, 0.99, dram_die_yield=0.9) == pytest.approx((0.9 * 0.99) ** 4)
    with pytest.raises(ValueError, match="bond_yield_per_layer"):
        fab.stack_yield(8, 1.5)
