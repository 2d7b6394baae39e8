"""How chips are made, in numbers: dies per wafer, yield, cost per good die, the reticle,
chiplets and known-good-die testing, and a three-way supply model (logic, packaging, HBM).
HBM bandwidth and capacity from stacks and pin rates live in :mod:`infra_lib.memory`.

Conventions: die areas in mm² (``_mm2``), defect densities per cm² (``_per_cm2``), prices in
US dollars (``_usd``).
Sources: J. Hennessy and D. Patterson, *Computer Architecture: A Quantitative Approach*, 6th
ed., §1.6 (dies per wafer, cost of a die); B. T. Murphy, Proc. IEEE 52(12), 1964 (Murphy's
yield model); Poisson (Seeds) and negative-binomial (Stapper) models as standard.

>>> round(gross_dies_per_wafer(814), 1)          # GH100-sized dies on a 300 mm wafer
63.5
>>> round(die_yield(814, 0.10, "poisson"), 3)     # at TSMC's reported N5 defect density
0.443
"""
import math
from dataclasses import dataclass

from . import _check, hardware

MM2_PER_CM2 = 100.0
MODELS = ("poisson", "murphy", "negative_binomial")

# Process names as the vendors print them: labels of a process generation, not lengths.
NODE_NAMES = {"gv100_die": "12 nm FFN", "ga100_die": "N7", "gh100_die": "4N", "b200_hgx": "4NP"}


# ---- wafer and exposure field --------------------------------------------------------------

def wafer_diameter_mm() -> float:
    """The standard leading-edge wafer diameter from the registry (300 mm)."""
    return hardware.value("leading_edge_fab", "wafer_diameter_mm")


def reticle_area_mm2() -> float:
    """Largest area one exposure can print: field width x height = 26 x 33 = 858 mm².

    >>> reticle_area_mm2()
    858.0
    """
    return (hardware.value("leading_edge_fab", "reticle_width_mm")
            * hardware.value("leading_edge_fab", "reticle_height_mm"))


def reticles(area_mm2: float) -> float:
    """An area as a multiple of the reticle: a 2,831 mm² interposer is 3.3 reticles.

    >>> round(reticles(2831.4), 2)
    3.3
    """
    return _check.positive("area_mm2", area_mm2, "mm²") / reticle_area_mm2()


def wafer_area_mm2(wafer_diameter_mm: float = 300.0) -> float:
    """pi (d/2)²: a 300 mm wafer has 70,686 mm².

    >>> round(wafer_area_mm2(300))
    70686
    """
    d = _check.positive("wafer_diameter_mm", wafer_diameter_mm, "mm")
    return math.pi * (d / 2) ** 2


def _edge_terms(die_area_mm2: float, wafer_diameter_mm: float) -> tuple[float, float]:
    a = _check.positive("die_area_mm2", die_area_mm2, "mm²")
    d = _check.positive("wafer_diameter_mm", wafer_diameter_mm, "mm")
    if a >= d * d / 8:
        raise ValueError(f"die_area_mm2 must be below d²/8 = {d * d / 8:,.0f} mm² for a {d:g} mm wafer "
                         f"(beyond it the edge-loss formula gives no dies), got {a:g}")
    return math.pi * (d / 2) ** 2 / a, math.pi * d / math.sqrt(2 * a)


def gross_dies_per_wafer(die_area_mm2: float, wafer_diameter_mm: float = 300.0) -> float:
    """Dies per wafer with edge loss: pi (d/2)² / A - pi d / sqrt(2 A).

    Equation eq-dies-per-wafer in chapter 1.

    The first term is wafer area over die area; the second subtracts the partial dies along
    the edge (Hennessy and Patterson, 6th ed., §1.6). Scribe lines and the edge exclusion zone
    are ignored, and the result is an average, not a whole number. For a 300 mm wafer:
    814 mm² (GH100) gives 63.5, 100 mm² gives 640.

    >>> round(gross_dies_per_wafer(814), 1), round(gross_dies_per_wafer(100))
    (63.5, 640)
    """
    whole, edge = _edge_terms(die_area_mm2, wafer_diameter_mm)
    return whole - edge


def edge_loss_share(die_area_mm2: float, wafer_diameter_mm: float = 300.0) -> float:
    """Share of the wafer-area term lost at the edge: (pi d / sqrt(2A)) / (pi (d/2)² / A).

    Grows with die size: 9% of the wafer for 100 mm² dies, 27% for 814 mm² dies.

    >>> round(edge_loss_share(100), 3), round(edge_loss_share(814), 3)
    (0.094, 0.269)
    """
    whole, edge = _edge_terms(die_area_mm2, wafer_diameter_mm)
    return edge / whole


# ---- yield ----------------------------------------------------------------------------------

def _defects_per_die(die_area_mm2: float, d0_per_cm2: float) -> float:
    a = _check.positive("die_area_mm2", die_area_mm2, "mm²")
    d0 = _check.non_negative("d0_per_cm2", d0_per_cm2, "defects per cm²")
    return a / MM2_PER_CM2 * d0


def poisson_yield(die_area_mm2: float, d0_per_cm2: float) -> float:
    """Poisson (Seeds) model: Y = exp(-A D0), A in cm², defects independent and uniform.

    Equation eq-yield-poisson in chapter 1.

    >>> round(poisson_yield(814, 0.10), 3)
    0.443
    """
    return math.exp(-_defects_per_die(die_area_mm2, d0_per_cm2))


def murphy_yield(die_area_mm2: float, d0_per_cm2: float) -> float:
    """Murphy (1964): Y = ((1 - exp(-A D0)) / (A D0))², D0 varying across the wafer.

    Equation eq-yield-murphy in chapter 1.

    >>> round(murphy_yield(814, 0.10), 3)
    0.468
    """
    x = _defects_per_die(die_area_mm2, d0_per_cm2)
    return 1.0 if x == 0 else (-math.expm1(-x) / x) ** 2


def negative_binomial_yield(die_area_mm2: float, d0_per_cm2: float, alpha: float) -> float:
    """Negative binomial (Stapper): Y = (1 + A D0 / alpha)^(-alpha).

    Equation eq-yield-negative-binomial in chapter 1.

    ``alpha`` is the clustering parameter: small alpha means defects bunch together, so more
    dies escape them; as alpha grows the model tends to Poisson.

    >>> round(negative_binomial_yield(814, 0.10, 3), 3)
    0.487
    """
    x = _defects_per_die(die_area_mm2, d0_per_cm2)
    a = _check.positive("alpha", alpha, "(clustering parameter, no unit)")
    return math.exp(-a * math.log1p(x / a))


def die_yield(die_area_mm2: float, d0_per_cm2: float, model: str = "murphy",
              alpha: float | None = None) -> float:
    """Yield of one die under ``model`` ('poisson', 'murphy' or 'negative_binomial').

    >>> round(die_yield(814, 0.10, "negative_binomial", alpha=3), 3)
    0.487
    """
    model = _check.choice("model", model, MODELS)
    if model == "poisson":
        return poisson_yield(die_area_mm2, d0_per_cm2)
    if model == "murphy":
        return murphy_yield(die_area_mm2, d0_per_cm2)
    if alpha is None:
        raise ValueError("alpha (the clustering parameter) is required for the negative_binomial model")
    return negative_binomial_yield(die_area_mm2, d0_per_cm2, alpha)


def good_dies_per_wafer(die_area_mm2: float, d0_per_cm2: float, model: str = "murphy",
                        alpha: float | None = None, wafer_diameter_mm: float = 300.0) -> float:
    """Gross dies per wafer x die yield (an average over wafers).

    >>> round(good_dies_per_wafer(814, 0.10), 1)
    29.7
    """
    return (gross_dies_per_wafer(die_area_mm2, wafer_diameter_mm)
            * die_yield(die_area_mm2, d0_per_cm2, model, alpha))


def cost_per_good_die_usd(wafer_price_usd: float, die_area_mm2: float, d0_per_cm2: float,
                          model: str = "murphy", alpha: float | None = None,
                          wafer_diameter_mm: float = 300.0) -> float:
    """Wafer price / (dies per wafer x die yield) (Hennessy and Patterson, §1.6).

    At CSET's 2020 estimate for an N5 wafer, $16,988, and D0 = 0.10 per cm²:

    >>> round(cost_per_good_die_usd(16988, 814, 0.10))
    572
    """
    price = _check.positive("wafer_price_usd", wafer_price_usd, "US dollars")
    return price / good_dies_per_wafer(die_area_mm2, d0_per_cm2, model, alpha, wafer_diameter_mm)


@dataclass(frozen=True)
class Wafer:
    """One wafer of one die size: how many dies fit, how many work, what each good one costs."""
    die_area_mm2: float
    d0_per_cm2: float
    model: str
    gross_dies: float
    die_yield: float
    good_dies: float
    cost_per_good_die_usd: float

    @property
    def good_silicon_usd_per_mm2(self) -> float:
        """Cost per mm² of working silicon."""
        return self.cost_per_good_die_usd / self.die_area_mm2


def wafer(die_area_mm2: float, d0_per_cm2: float, wafer_price_usd: float, model: str = "murphy",
          alpha: float | None = None, wafer_diameter_mm: float = 300.0) -> Wafer:
    """Every number of one wafer at once, as a :class:`Wafer`.

    >>> w = wafer(814, 0.10, 16988)
    >>> round(w.gross_dies, 1), round(w.die_yield, 3), round(w.good_dies, 1), round(w.cost_per_good_die_usd)
    (63.5, 0.468, 29.7, 572)
    """
    gross = gross_dies_per_wafer(die_area_mm2, wafer_diameter_mm)
    y = die_yield(die_area_mm2, d0_per_cm2, model, alpha)
    price = _check.positive("wafer_price_usd", wafer_price_usd, "US dollars")
    return Wafer(float(die_area_mm2), float(d0_per_cm2), model, gross, y, gross * y, price / (gross * y))


# ---- salvage: selling dies with a few bad units -----------------------------------------------

def salvage_yield(die_area_mm2: float, d0_per_cm2: float, units_total: int, units_needed: int,
                  unit_area_share: float) -> float:
    """Share of dies sellable when ``units_needed`` of ``units_total`` repeated units must work.

    Equation eq-salvage-yield in chapter 1.

    A simple Poisson model, a teaching assumption: the units (SMs) take ``unit_area_share`` of
    the die and split it equally; the rest (the "uncore": memory controllers, L2, I/O) must be
    free of defects. Then

        Y = exp(-D0 A (1 - s)) x P(at least k of n units defect-free),
        each unit defect-free with p = exp(-D0 A s / n).

    With k = n this is the Poisson yield of the whole die. GH100 has 144 SMs and H100 SXM5
    enables 132; if the SMs are half the die, the uncore alone sets the yield:

    >>> round(salvage_yield(814, 0.10, 144, 132, 0.5), 3)
    0.666
    >>> round(salvage_yield(814, 0.10, 144, 144, 0.5), 3) == round(poisson_yield(814, 0.10), 3)
    True
    """
    x = _defects_per_die(die_area_mm2, d0_per_cm2)
    n = _check.count("units_total", units_total, "units")
    k = _check.count("units_needed", units_needed, "units")
    if k > n:
        raise ValueError(f"units_needed must be at most units_total = {n}, got {k}")
    s = _check.fraction("unit_area_share", unit_area_share)
    p = math.exp(-x * s / n)
    at_least_k = sum(math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1))
    return math.exp(-x * (1 - s)) * min(1.0, at_least_k)


# ---- chiplets and known-good-die testing --------------------------------------------------------

def good_units_per_wafer(total_area_mm2: float, dies_per_unit: int, d0_per_cm2: float,
                         model: str = "murphy", alpha: float | None = None,
                         wafer_diameter_mm: float = 300.0) -> float:
    """Working units per wafer when a unit of ``total_area_mm2`` is split into equal dies,
    each tested before assembly (known good die): gross(A/n) x Y(A/n) / n.

    One 800 mm² die against two 400 mm² dies, D0 = 0.10, Poisson:

    >>> round(good_units_per_wafer(800, 1, 0.10, "poisson"), 1), round(good_units_per_wafer(800, 2, 0.10, "poisson"), 1)
    (29.1, 48.1)
    """
    n = _check.count("dies_per_unit", dies_per_unit, "dies")
    a = _check.positive("total_area_mm2", total_area_mm2, "mm²") / n
    return good_dies_per_wafer(a, d0_per_cm2, model, alpha, wafer_diameter_mm) / n


def untested_package_yield(die_yield_fraction: float, dies_per_package: int) -> float:
    """Share of packages that work when dies are assembled untested: Y^n.

    Under Poisson, two half-size dies give exactly the yield of one whole die, Y(A/2)² = Y(A):
    splitting gains nothing unless the dies are tested first.

    >>> round(untested_package_yield(poisson_yield(400, 0.1), 2), 4) == round(poisson_yield(800, 0.1), 4)
    True
    """
    y = _check.fraction("die_yield_fraction", die_yield_fraction)
    return y ** _check.count("dies_per_package", dies_per_package, "dies")


@dataclass(frozen=True)
class PackageCost:
    """Cost per working package, with and without testing the dies before assembly."""
    die_cost_usd: float       # wafer price / gross dies: one die, working or not
    die_yield: float
    dies_per_package: int
    other_cost_usd: float     # interposer, HBM, substrate, assembly
    test_cost_per_die_usd: float
    kgd_usd: float            # dies tested first: (n (c + t) / Y + P)
    untested_usd: float       # dies assembled untested: (n c + P) / Y^n

    @property
    def kgd_saving(self) -> float:
        """How many times cheaper a working package is with known-good-die testing."""
        return self.untested_usd / self.kgd_usd


def package_cost(wafer_price_usd: float, die_area_mm2: float, dies_per_package: int, d0_per_cm2: float,
                 other_cost_usd: float, model: str = "murphy", alpha: float | None = None,
                 test_cost_per_die_usd: float = 0.0, wafer_diameter_mm: float = 300.0) -> PackageCost:
    """Cost of one working package of ``dies_per_package`` logic dies plus ``other_cost_usd``.

    Equation eq-kgd-package-cost in chapter 1.

    Known good die (KGD): every die is tested (cost t each) and only good ones are packaged,
    so each good die costs (c + t) / Y and the package n (c + t) / Y + P.
    Untested: n dies and the rest of the package are assembled blind, and a package works
    only if all n dies do: (n c + P) / Y^n. A bad die then scraps its good partner, the HBM
    and the interposer. Assembly yield is left out (it hits both ways equally).

    >>> pc = package_cost(16988, 800, 2, 0.10, 2000)
    >>> round(pc.kgd_usd), round(pc.untested_usd), round(pc.kgd_saving, 1)
    (3107, 11245, 3.6)
    """
    price = _check.positive("wafer_price_usd", wafer_price_usd, "US dollars")
    n = _check.count("dies_per_package", dies_per_package, "dies")
    other = _check.non_negative("other_cost_usd", other_cost_usd, "US dollars")
    t = _check.non_negative("test_cost_per_die_usd", test_cost_per_die_usd, "US dollars")
    c = price / gross_dies_per_wafer(die_area_mm2, wafer_diameter_mm)
    y = die_yield(die_area_mm2, d0_per_cm2, model, alpha)
    return PackageCost(c, y, n, other, t, n * (c + t) / y + other, (n * c + other) / y ** n)


def kgd_break_even_test_cost_usd(wafer_price_usd: float, die_area_mm2: float, dies_per_package: int,
                                 d0_per_cm2: float, other_cost_usd: float, model: str = "murphy",
                                 alpha: float | None = None, wafer_diameter_mm: float = 300.0) -> float:
    """The test cost per die at which testing first stops paying: solves KGD cost = untested cost.

        n (c + t) / Y + P = (n c + P) / Y^n   =>   t = Y ((n c + P) / Y^n - P) / n - c

    >>> round(kgd_break_even_test_cost_usd(16988, 800, 2, 0.10, 2000))
    1928
    """
    pc = package_cost(wafer_price_usd, die_area_mm2, dies_per_package, d0_per_cm2, other_cost_usd,
                      model, alpha, 0.0, wafer_diameter_mm)
    n, c, y, p = pc.dies_per_package, pc.die_cost_usd, pc.die_yield, pc.other_cost_usd
    return y * (pc.untested_usd - p) / n - c


# ---- density ------------------------------------------------------------------------------------

def transistors_per_mm2(transistors: float, die_area_mm2: float) -> float:
    """Average transistor density of a whole die: transistors / area.

    GH100: 80 billion on 814 mm² = 98.3 million per mm².

    >>> round(transistors_per_mm2(80e9, 814) / 1e6, 1)
    98.3
    """
    return (_check.positive("transistors", transistors, "transistors")
            / _check.positive("die_area_mm2", die_area_mm2, "mm²"))


def die_density_per_mm2(die: str) -> float:
    """Density of a registry die (``'gh100_die'``...) from its stated transistors and area."""
    return transistors_per_mm2(hardware.value(die, "transistors"), hardware.value(die, "area_mm2"))


# ---- supply: logic dies, packaging and HBM together --------------------------------------------

@dataclass(frozen=True)
class Product:
    """What one GPU needs from each supply chain."""
    name: str
    die_area_mm2: float
    dies_per_gpu: int
    interposer_area_mm2: float
    stacks_per_gpu: int
    dram_dies_per_stack: int

    def __post_init__(self) -> None:
        _check.positive("die_area_mm2", self.die_area_mm2, "mm²")
        _check.count("dies_per_gpu", self.dies_per_gpu, "dies")
        _check.positive("interposer_area_mm2", self.interposer_area_mm2, "mm²")
        _check.count("stacks_per_gpu", self.stacks_per_gpu, "HBM stacks")
        _check.count("dram_dies_per_stack", self.dram_dies_per_stack, "DRAM dies")


@dataclass(frozen=True)
class Supply:
    """Monthly capacity allotted to one product, and the defect density of its logic process."""
    logic_wafers: float
    cowos_wafers: float
    packaging_yield: float
    hbm_dram_dies: float
    d0_per_cm2: float
    model: str = "murphy"
    alpha: float | None = None

    def __post_init__(self) -> None:
        _check.non_negative("logic_wafers", self.logic_wafers, "wafers per month")
        _check.non_negative("cowos_wafers", self.cowos_wafers, "wafers per month")
        _check.fraction("packaging_yield", self.packaging_yield)
        _check.non_negative("hbm_dram_dies", self.hbm_dram_dies, "DRAM dies per month")
        _check.non_negative("d0_per_cm2", self.d0_per_cm2, "defects per cm²")
        _check.choice("model", self.model, MODELS)


SUPPLIES = ("logic", "packaging", "hbm")


@dataclass(frozen=True)
class SupplyResult:
    """GPUs per month each supply could support; the smallest one is what ships."""
    product: str
    logic: float
    packaging: float
    hbm: float

    @property
    def shipped(self) -> float:
        return min(self.logic, self.packaging, self.hbm)

    @property
    def binding(self) -> str:
        """'logic', 'packaging' or 'hbm': the supply that sets the shipments."""
        return min(SUPPLIES, key=lambda s: getattr(self, s))


def gpus_from_logic(product: Product, supply: Supply, wafer_diameter_mm: float = 300.0) -> float:
    """Logic wafers x good dies per wafer / dies per GPU."""
    good = good_dies_per_wafer(product.die_area_mm2, supply.d0_per_cm2, supply.model, supply.alpha,
                               wafer_diameter_mm)
    return supply.logic_wafers * good / product.dies_per_gpu


def gpus_from_packaging(product: Product, supply: Supply, wafer_diameter_mm: float = 300.0) -> float:
    """Interposer wafers x interposers per wafer x packaging yield (one interposer per GPU).

    Interposers per wafer use the same edge-loss formula as dies: rough for areas this large.
    """
    return (supply.cowos_wafers * gross_dies_per_wafer(product.interposer_area_mm2, wafer_diameter_mm)
            * supply.packaging_yield)


def gpus_from_hbm(product: Product, supply: Supply) -> float:
    """DRAM dies per month / (stacks per GPU x dies per stack): taller stacks use more dies."""
    return supply.hbm_dram_dies / (product.stacks_per_gpu * product.dram_dies_per_stack)


def gpu_supply(product: Product, supply: Supply, wafer_diameter_mm: float = 300.0) -> SupplyResult:
    """The three supplies of one product, as a :class:`SupplyResult` (shipped = the smallest).

    Equation eq-gpu-supply in chapter 1.
    """
    return SupplyResult(product.name, gpus_from_logic(product, supply, wafer_diameter_mm),
                        gpus_from_packaging(product, supply, wafer_diameter_mm), gpus_from_hbm(product, supply))


def teaching_supply() -> Supply:
    """The chapter's monthly capacities: teaching assumptions, at TSMC's reported N5 D0."""
    v = lambda name: hardware.value("fab_teaching", name)
    return Supply(logic_wafers=v("logic_wafers_per_month"), cowos_wafers=v("cowos_wafers_per_month"),
                  packaging_yield=v("packaging_yield"), hbm_dram_dies=v("hbm_dram_dies_per_month"),
                  d0_per_cm2=hardware.value("tsmc_n5", "defect_density_per_cm2"))


def teaching_products() -> list[Product]:
    """Three products shaped like H100, B200 and B300: die counts and stacks from the registry,
    the Blackwell die area and the interposer areas teaching assumptions.

    >>> [p.stacks_per_gpu * p.dram_dies_per_stack for p in teaching_products()]
    [40, 64, 96]
    """
    t = lambda name: hardware.value("fab_teaching", name)
    reticle = reticle_area_mm2()
    big_die = t("reticle_sized_die_mm2")
    dies = int(hardware.value("b200_hgx", "logic_dies"))
    return [
        Product("H100", hardware.value("gh100_die", "area_mm2"), 1, t("h100_interposer_reticles") * reticle,
                int(hardware.value("h100_sxm5", "hbm_stacks")), int(t("h100_stack_height"))),
        Product("B200", big_die, dies, t("b200_interposer_reticles") * reticle,
                int(hardware.value("b200_hgx", "hbm_stacks")), int(hardware.value("b200_hgx", "hbm_stack_height"))),
        Product("B300", big_die, dies, t("b200_interposer_reticles") * reticle,
                int(hardware.value("b300_gpu", "hbm_stacks")), int(hardware.value("b300_gpu", "hbm_stack_height"))),
    ]
