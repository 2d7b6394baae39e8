"""How chips are made, in numbers: dies per wafer, yield, cost per good die, the reticle, salvage,
chiplets and known-good-die testing. The three-way supply model (logic, packaging, HBM) that
stands on them is :mod:`infra_lib.supply`; HBM bandwidth and capacity from stacks and pin rates
live in :mod:`infra_lib.memory`.

Conventions: die areas in mm² (``_mm2``), defect densities per cm² (``_per_cm2``), prices in
US dollars (``_usd``).
Sources: J. Hennessy and D. Patterson, *Computer Architecture: A Quantitative Approach*, 6th
ed., §1.6 (dies per wafer, cost of a die); B. T. Murphy, Proc. IEEE 52(12), 1964 (Murphy's
yield model); the Poisson model; R. B. Seeds, IEEE Int. Conv. Rec. 1967 (Seeds' model,
Y = 1 / (1 + A D0), the negative binomial with alpha = 1); the negative-binomial model (Stapper).

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


@_check.finite
def reticles(area_mm2: float) -> float:
    """An area as a multiple of the reticle: a 2,831 mm² interposer is 3.3 reticles.

    >>> round(reticles(2831.4), 2)
    3.3
    """
    return _check.positive("area_mm2", area_mm2, "mm²") / reticle_area_mm2()


@_check.finite
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


@_check.finite
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


@_check.finite
def dies_per_wafer_area_only(die_area_mm2: float, wafer_diameter_mm: float = 300.0) -> float:
    """Wafer area over die area, pi (d/2)² / A: no edge loss, an upper bound no wafer reaches.

    >>> round(dies_per_wafer_area_only(814), 1)
    86.8
    """
    return _check.positive("wafer_diameter_mm", wafer_diameter_mm, "mm") ** 2 * math.pi / 4 / _check.positive(
        "die_area_mm2", die_area_mm2, "mm²")


@_check.finite
def dies_per_wafer_grid(die_width_mm: float, die_height_mm: float, wafer_diameter_mm: float = 300.0,
                        edge_exclusion_mm: float = 0.0, scribe_mm: float = 0.0, offsets: int = 8) -> int:
    """Whole dies on a rectangular grid inside the usable circle: what die-per-wafer calculators count.

    Dies of ``die_width_mm`` x ``die_height_mm`` are placed on a grid of pitch die + ``scribe_mm``
    (the saw lane); a die counts when all four corners lie within the wafer radius less the
    ``edge_exclusion_mm`` ring where nothing is printed. The grid's offset is tried at
    ``offsets`` x ``offsets`` positions within one pitch and the best count kept (a fab shifts the
    grid the same way). Unlike :func:`gross_dies_per_wafer`, it needs the die's shape, not only
    its area, and it returns a whole number.

    >>> side = 814 ** 0.5                     # GH100's area as a square (its shape is not published)
    >>> dies_per_wafer_grid(side, side), dies_per_wafer_grid(side, side, edge_exclusion_mm=3, scribe_mm=0.1)
    (70, 68)
    """
    w = _check.positive("die_width_mm", die_width_mm, "mm")
    h = _check.positive("die_height_mm", die_height_mm, "mm")
    d = _check.positive("wafer_diameter_mm", wafer_diameter_mm, "mm")
    e = _check.non_negative("edge_exclusion_mm", edge_exclusion_mm, "mm")
    lane = _check.non_negative("scribe_mm", scribe_mm, "mm")
    n = _check.count("offsets", offsets, "grid positions")
    r = d / 2 - e
    if r <= 0:
        raise ValueError(f"edge_exclusion_mm must be below the wafer radius {d / 2:g} mm, got {e:g}")
    px, py = w + lane, h + lane
    cells = float(n) ** 2 * (2 * r / px + 3) * (2 * r / py + 3)
    if cells > 1e7:     # the count goes die by die: refuse what would take minutes
        raise ValueError(f"die_width_mm x die_height_mm = {w:g} x {h:g} mm on a {d:g} mm wafer with offsets = "
                         f"{n} means {cells:.2g} grid positions to test, more than 1e7: use larger dies, "
                         f"fewer offsets, or gross_dies_per_wafer")
    r2 = r * r
    best = 0
    for i in range(n):
        for j in range(n):
            x0, y0 = -r + px * i / n, -r + py * j / n
            count = 0
            nx, ny = int(2 * r / px) + 2, int(2 * r / py) + 2
            for a in range(-1, nx):
                x1 = x0 + a * px
                x2 = x1 + w
                xx = max(x1 * x1, x2 * x2)
                if xx > r2:
                    continue
                for b in range(-1, ny):
                    y1 = y0 + b * py
                    y2 = y1 + h
                    if xx + max(y1 * y1, y2 * y2) <= r2:
                        count += 1
            best = max(best, count)
    return best


@_check.finite
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


@_check.finite
def poisson_yield(die_area_mm2: float, d0_per_cm2: float) -> float:
    """Poisson model: Y = exp(-A D0), A in cm², defects independent and uniform.

    Not Seeds' model, which some texts attach to this name: Seeds (1967) gives 1 / (1 + A D0)
    (:func:`seeds_yield`).

    Equation eq-yield-poisson in chapter 1.

    >>> round(poisson_yield(814, 0.10), 3)
    0.443
    """
    return math.exp(-_defects_per_die(die_area_mm2, d0_per_cm2))


@_check.finite
def murphy_yield(die_area_mm2: float, d0_per_cm2: float) -> float:
    """Murphy (1964): Y = ((1 - exp(-A D0)) / (A D0))², D0 varying across the wafer.

    Equation eq-yield-murphy in chapter 1.

    >>> round(murphy_yield(814, 0.10), 3)
    0.468
    """
    x = _defects_per_die(die_area_mm2, d0_per_cm2)
    return 1.0 if x == 0 else (-math.expm1(-x) / x) ** 2


@_check.finite
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


@_check.finite
def seeds_yield(die_area_mm2: float, d0_per_cm2: float) -> float:
    """Seeds' model: Y = 1 / (1 + A D0), the negative binomial with alpha = 1.

    R. B. Seeds, "Yield, economic, and logistic models for complex digital arrays", IEEE
    International Convention Record, 1967: an exponential spread of defect densities.

    >>> round(seeds_yield(814, 0.10), 3)
    0.551
    >>> seeds_yield(814, 0.10) == negative_binomial_yield(814, 0.10, 1)
    True
    """
    return negative_binomial_yield(die_area_mm2, d0_per_cm2, 1.0)


@_check.finite
def die_yield(die_area_mm2: float, d0_per_cm2: float, model: str = "murphy",
              alpha: float | None = None) -> float:
    """Yield of one die under ``model`` ('poisson', 'murphy' or 'negative_binomial').

    >>> round(die_yield(814, 0.10, "negative_binomial", alpha=3), 3)
    0.487
    """
    model = _check.choice("model", model, MODELS)
    if alpha is not None:
        _check.positive("alpha", alpha, "(clustering parameter, no unit)")
    if model == "poisson":
        return poisson_yield(die_area_mm2, d0_per_cm2)
    if model == "murphy":
        return murphy_yield(die_area_mm2, d0_per_cm2)
    if alpha is None:
        raise ValueError("alpha (the clustering parameter) is required for the negative_binomial model")
    return negative_binomial_yield(die_area_mm2, d0_per_cm2, alpha)


@_check.finite
def good_dies_per_wafer(die_area_mm2: float, d0_per_cm2: float, model: str = "murphy",
                        alpha: float | None = None, wafer_diameter_mm: float = 300.0) -> float:
    """Gross dies per wafer x die yield (an average over wafers).

    >>> round(good_dies_per_wafer(814, 0.10), 1)
    29.7
    """
    return (gross_dies_per_wafer(die_area_mm2, wafer_diameter_mm)
            * die_yield(die_area_mm2, d0_per_cm2, model, alpha))


@_check.finite
def cost_per_good_die_usd(wafer_price_usd: float, die_area_mm2: float, d0_per_cm2: float,
                          model: str = "murphy", alpha: float | None = None,
                          wafer_diameter_mm: float = 300.0) -> float:
    """Wafer price / (dies per wafer x die yield) (Hennessy and Patterson, §1.6).

    At CSET's 2020 estimate for an N5 wafer, $16,988, and D0 = 0.10 per cm²:

    >>> round(cost_per_good_die_usd(16988, 814, 0.10))
    572
    """
    price = _check.positive("wafer_price_usd", wafer_price_usd, "US dollars")
    good = _some_good_dies(good_dies_per_wafer(die_area_mm2, d0_per_cm2, model, alpha, wafer_diameter_mm),
                           die_area_mm2, d0_per_cm2)
    return _check.finite_result("cost_per_good_die_usd (wafer_price_usd / good dies)", price / good)


def _some_good_dies(good: float, die_area_mm2: float, d0_per_cm2: float) -> float:
    """``good`` (dies per wafer), or a clear error when the yield underflows to no good die at all."""
    if good <= 0:
        raise ValueError(f"no good die: at d0_per_cm2 = {float(d0_per_cm2):g} defects per cm² a "
                         f"{float(die_area_mm2):g} mm² die (die_area_mm2) has a yield of 0 to double "
                         f"precision, so a good die has no finite cost; lower d0_per_cm2 or die_area_mm2")
    return good


@dataclass(frozen=True)
class Wafer:
    """One wafer of one die size: how many dies fit, how many work, what each good one costs."""
    _positive = ("die_area_mm2",)              # good_silicon_usd_per_mm2 divides by it
    die_area_mm2: float
    d0_per_cm2: float
    model: str
    gross_dies: float
    die_yield: float
    good_dies: float
    cost_per_good_die_usd: float

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def good_silicon_usd_per_mm2(self) -> float:
        """Cost per mm² of working silicon."""
        return self.cost_per_good_die_usd / self.die_area_mm2


@_check.finite
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
    good = _some_good_dies(gross * y, die_area_mm2, d0_per_cm2)
    return Wafer(float(die_area_mm2), float(d0_per_cm2), model, gross, y, gross * y,
                 _check.finite_result("cost_per_good_die_usd (wafer_price_usd / good dies)", price / good))


# ---- salvage: selling dies with a few bad units -----------------------------------------------

@_check.finite
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
    if n > 10**6:
        raise ValueError(f"units_total must be at most 1,000,000 repeated units (SMs, cores) per die, got {n:,}")
    k = _check.count("units_needed", units_needed, "units")
    if k > n:
        raise ValueError(f"units_needed must be at most units_total = {n}, got {k}")
    s = _check.fraction("unit_area_share", unit_area_share)
    p = math.exp(-x * s / n)
    return math.exp(-x * (1 - s)) * min(1.0, _binomial_tail(n, k, p))


def _binomial_tail(n: int, k: int, p: float) -> float:
    """P(at least k of n successes), each with probability p, summed in log space: the terms
    C(n, j) p^j (1-p)^(n-j) overflow and underflow separately for large n, never together."""
    if k == 0 or p >= 1:
        return 1.0
    if p <= 0:
        return 0.0
    if n <= 1000:       # C(n, j) stays below 1e300: the direct sum, term by term
        return sum(math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1))
    log_p, log_q = math.log(p), math.log1p(-p)

    def total(js: range) -> float:
        logs = [math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * log_p + (n - j) * log_q
                for j in js]
        top = max(logs)
        return math.exp(top) * math.fsum(math.exp(t - top) for t in logs)
    if n - k < k:                     # sum the shorter side: the tail itself, or 1 - the head
        return total(range(k, n + 1))
    return max(0.0, 1.0 - total(range(0, k)))


@_check.finite
def sellable_dies_per_wafer(die_area_mm2: float, d0_per_cm2: float, units_total: int, units_needed: int,
                            unit_area_share: float, wafer_diameter_mm: float = 300.0) -> float:
    """Gross dies per wafer x the salvage yield: dies that can be sold, flawless or not.

    Equation eq-salvage-yield in chapter 1, applied per wafer. GH100 (814 mm², 132 of 144 SMs
    needed, SMs half the die, a teaching assumption) at D0 = 0.10 per cm²:

    >>> round(sellable_dies_per_wafer(814, 0.10, 144, 132, 0.5), 1)
    42.3
    """
    return gross_dies_per_wafer(die_area_mm2, wafer_diameter_mm) * salvage_yield(
        die_area_mm2, d0_per_cm2, units_total, units_needed, unit_area_share)


# ---- chiplets and known-good-die testing --------------------------------------------------------

@_check.finite
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


@_check.finite
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

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.positive("kgd_usd", self.kgd_usd, "US dollars")
        _check.positive("untested_usd", self.untested_usd, "US dollars")

    @property
    def kgd_saving(self) -> float:
        """How many times cheaper a working package is with known-good-die testing."""
        return self.untested_usd / self.kgd_usd


@_check.finite
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
    if y ** n == 0:
        _some_good_dies(0.0, die_area_mm2, d0_per_cm2)
    return PackageCost(c, y, n, other, t, n * (c + t) / y + other, (n * c + other) / y ** n)


@_check.finite
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

@_check.finite
def stack_yield(layers: int, bond_yield_per_layer: float, dram_die_yield: float = 1.0) -> float:
    """Share of HBM stacks that work: (DRAM die yield x bonding yield per layer) ** layers.

    Equation eq-stack-yield in chapter 1. With known-good DRAM dies (tested before stacking,
    ``dram_die_yield`` = 1) only the bonding of each layer can fail, and a taller stack
    multiplies more of those chances; untested dies multiply their own yield in as well.

    >>> round(stack_yield(8, 0.99), 3), round(stack_yield(12, 0.99), 3)
    (0.923, 0.886)
    """
    n = _check.count("layers", layers, "DRAM dies")
    b = _check.fraction("bond_yield_per_layer", bond_yield_per_layer)
    y = _check.fraction("dram_die_yield", dram_die_yield)
    return (y * b) ** n


@_check.finite
def transistors_per_mm2(transistors: float, die_area_mm2: float) -> float:
    """Average transistor density of a whole die: transistors / area.

    GH100: 80 billion on 814 mm² = 98.3 million per mm².

    >>> round(transistors_per_mm2(80e9, 814) / 1e6, 1)
    98.3
    """
    return (_check.positive("transistors", transistors, "transistors")
            / _check.positive("die_area_mm2", die_area_mm2, "mm²"))


@_check.finite
def density_gain(area_reduction: float) -> float:
    """Density gain of a shrink that cuts a design's area by ``area_reduction``: 1 / (1 - cut).

    TSMC's "35-40% smaller" mobile chip from N7 to N5 is a 1.54x to 1.67x density gain.

    >>> round(density_gain(0.35), 2), round(density_gain(0.40), 2)
    (1.54, 1.67)
    """
    cut = _check.share("area_reduction", area_reduction, "a fraction of the area removed", below_one=True)
    return 1 / (1 - cut)


@_check.finite
def die_density_per_mm2(die: str) -> float:
    """Density of a registry die (``'gh100_die'``...) from its stated transistors and area."""
    _check.text("die", die)
    return transistors_per_mm2(hardware.value(die, "transistors"), hardware.value(die, "area_mm2"))
