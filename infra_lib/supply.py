"""GPU supply: how many GPUs a month the logic dies, the packaging and the HBM each allow.

Three supplies of one product, each turned into GPUs per month (equation eq-gpu-supply in
chapter 1); the smallest is what ships:

- logic: W x G / d, with W logic wafers per month, G usable dies per wafer (sellable dies with
  salvage, :func:`infra_lib.fab.sellable_dies_per_wafer`, or perfect ones) and d dies per GPU;
- packaging: W_CoWoS x I x y_pkg, with I interposers per wafer (the dies-per-wafer formula of
  :func:`infra_lib.fab.gross_dies_per_wafer`, rough for areas this large) and y_pkg the packaging
  yield, one interposer per GPU;
- HBM: D_HBM / (s x h), with D_HBM DRAM dies per month, s stacks per GPU and h dies per stack.

Sources: the wafer and yield arithmetic of :mod:`infra_lib.fab` (Hennessy and Patterson, 6th ed.,
§1.6); the products' die and stack counts from the registry (``nvidia_hopper.toml``,
``nvidia_blackwell.toml``); every capacity, the Blackwell die area and the interposer areas are
teaching assumptions (``teaching.toml``, ``fab_teaching``).
"""
from dataclasses import dataclass

from . import _check, fab, hardware


@dataclass(frozen=True)
class Product:
    """What one GPU needs from each supply chain.

    ``units_total``, ``units_needed`` and ``unit_area_share`` describe the die's repeated units
    (SMs) for salvage (:func:`infra_lib.fab.salvage_yield`): a die is sellable with
    ``units_needed`` of ``units_total`` working. Left at 0, only perfect dies count.
    """
    name: str
    die_area_mm2: float
    dies_per_gpu: int
    interposer_area_mm2: float
    stacks_per_gpu: int
    dram_dies_per_stack: int
    units_total: int = 0
    units_needed: int = 0
    unit_area_share: float = 0.0

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.positive("die_area_mm2", self.die_area_mm2, "mm²")
        _check.count("dies_per_gpu", self.dies_per_gpu, "dies")
        _check.positive("interposer_area_mm2", self.interposer_area_mm2, "mm²")
        _check.count("stacks_per_gpu", self.stacks_per_gpu, "HBM stacks")
        _check.count("dram_dies_per_stack", self.dram_dies_per_stack, "DRAM dies")
        _check.count("units_total", self.units_total, "units", minimum=0)
        _check.count("units_needed", self.units_needed, "units", minimum=0)
        if self.units_needed > self.units_total:
            raise ValueError(f"units_needed must be at most units_total = {self.units_total}, got {self.units_needed}")
        if self.units_total:
            if not self.units_needed:
                raise ValueError("units_needed: give how many of the units_total units a sellable die needs (at least 1)")
            _check.fraction("unit_area_share", self.unit_area_share)
        else:
            _check.non_negative("unit_area_share", self.unit_area_share, "fraction of die area")

    @property
    def salvageable(self) -> bool:
        """True when the die has spare units, so that dies with a defect in one can still be sold."""
        return self.units_total > 0


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
        _check.fields(self)
        _check.non_negative("logic_wafers", self.logic_wafers, "wafers per month")
        _check.non_negative("cowos_wafers", self.cowos_wafers, "wafers per month")
        _check.fraction("packaging_yield", self.packaging_yield)
        _check.non_negative("hbm_dram_dies", self.hbm_dram_dies, "DRAM dies per month")
        _check.non_negative("d0_per_cm2", self.d0_per_cm2, "defects per cm²")
        _check.choice("model", self.model, fab.MODELS)


SUPPLIES = ("logic", "packaging", "hbm")


@dataclass(frozen=True)
class SupplyResult:
    """GPUs per month each supply could support; the smallest one is what ships."""
    _non_negative = ("logic", "packaging", "hbm")
    product: str
    logic: float
    packaging: float
    hbm: float

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def shipped(self) -> float:
        return min(self.logic, self.packaging, self.hbm)

    @property
    def binding(self) -> str:
        """'logic', 'packaging' or 'hbm': the supply that sets the shipments."""
        return min(SUPPLIES, key=lambda s: getattr(self, s))


@_check.finite
def gpus_from_logic(product: Product, supply: Supply, wafer_diameter_mm: float = 300.0,
                    salvage: bool = True) -> float:
    """Logic wafers x usable dies per wafer / dies per GPU.

    Usable dies are the sellable ones (:func:`infra_lib.fab.sellable_dies_per_wafer`) when the
    product has spare units and ``salvage`` is true; otherwise only perfect dies count
    (:func:`infra_lib.fab.good_dies_per_wafer` with the supply's yield model).
    """
    product, supply = _check.instance("product", product, Product), _check.instance("supply", supply, Supply)
    if salvage and product.salvageable:
        usable = fab.sellable_dies_per_wafer(product.die_area_mm2, supply.d0_per_cm2, product.units_total,
                                             product.units_needed, product.unit_area_share, wafer_diameter_mm)
    else:
        usable = fab.good_dies_per_wafer(product.die_area_mm2, supply.d0_per_cm2, supply.model, supply.alpha,
                                         wafer_diameter_mm)
    return supply.logic_wafers * usable / product.dies_per_gpu


@_check.finite
def gpus_from_packaging(product: Product, supply: Supply, wafer_diameter_mm: float = 300.0) -> float:
    """Interposer wafers x interposers per wafer x packaging yield (one interposer per GPU).

    Interposers per wafer use the same edge-loss formula as dies: rough for areas this large.
    """
    product, supply = _check.instance("product", product, Product), _check.instance("supply", supply, Supply)
    return (supply.cowos_wafers * fab.gross_dies_per_wafer(product.interposer_area_mm2, wafer_diameter_mm)
            * supply.packaging_yield)


@_check.finite
def gpus_from_hbm(product: Product, supply: Supply) -> float:
    """DRAM dies per month / (stacks per GPU x dies per stack): taller stacks use more dies."""
    product, supply = _check.instance("product", product, Product), _check.instance("supply", supply, Supply)
    return supply.hbm_dram_dies / (product.stacks_per_gpu * product.dram_dies_per_stack)


@_check.finite
def gpu_supply(product: Product, supply: Supply, wafer_diameter_mm: float = 300.0,
               salvage: bool = True) -> SupplyResult:
    """The three supplies of one product, as a :class:`SupplyResult` (shipped = the smallest).

    Equation eq-gpu-supply in chapter 1. ``salvage``: count sellable dies (the default) or only
    perfect ones (see :func:`gpus_from_logic`).
    """
    product, supply = _check.instance("product", product, Product), _check.instance("supply", supply, Supply)
    return SupplyResult(product.name, gpus_from_logic(product, supply, wafer_diameter_mm, salvage),
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

    Every logic die gets GH100's redundancy for salvage: 132 of 144 SMs needed (datasheet) with
    the SMs taking the teaching share of the die; for the Blackwell-like dies this is a teaching
    assumption (NVIDIA publishes no per-die SM counts).

    >>> [p.stacks_per_gpu * p.dram_dies_per_stack for p in teaching_products()]
    [40, 64, 96]
    """
    t = lambda name: hardware.value("fab_teaching", name)
    reticle = fab.reticle_area_mm2()
    big_die = t("reticle_sized_die_mm2")
    dies = int(hardware.value("b200_hgx", "logic_dies"))
    spare = (int(hardware.value("gh100_die", "sm_count")), int(hardware.value("h100_sxm5", "sm_count")),
             t("sm_area_share"))
    return [
        Product("H100", hardware.value("gh100_die", "area_mm2"), 1, t("h100_interposer_reticles") * reticle,
                int(hardware.value("h100_sxm5", "hbm_stacks")), int(t("h100_stack_height")), *spare),
        Product("B200", big_die, dies, t("b200_interposer_reticles") * reticle,
                int(hardware.value("b200_hgx", "hbm_stacks")), int(hardware.value("b200_hgx", "hbm_stack_height")),
                *spare),
        Product("B300", big_die, dies, t("b200_interposer_reticles") * reticle,
                int(hardware.value("b300_gpu", "hbm_stacks")), int(hardware.value("b300_gpu", "hbm_stack_height")),
                *spare),
    ]
