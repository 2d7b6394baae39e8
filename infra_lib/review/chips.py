"""Chapter 1's questions: wafers, yield, cost per die, packaging and HBM (01_chips).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
from .. import fab, hardware as hw, memory, units
from ..exercises import Answer, Param
from .core import Question, _mc, _num

FILE = "01_chips"   # the chapter these questions test: its file in _toc.yml
KEY = "ch1"   # in the ids of its questions (rv_ch1_q1) and the review's label for them (rv-ch1)


def questions() -> list[Question]:
    """The questions that test 01_chips (reads the registry)."""
    area_mm2 = int(hw.value("gh100_die", "area_mm2"))   # the GH100 die (H100, H200)
    return [
        _num("rv_ch1_q1", KEY, "ch1-wafer", "self-check",
             {"area": Param(area_mm2, "mm²", 100, 850, integer=True), "wafer": Param(fab.wafer_diameter_mm(), "mm")},
             lambda area, wafer: {"dies": Answer(fab.gross_dies_per_wafer(area, wafer), "dies", rel_tol=0.02),
                                  "ideal": Answer(fab.dies_per_wafer_area_only(area, wafer), "dies")},
             "dies",
             ("How many dies of {area:.0f} mm² fit on a {wafer:.0f} mm wafer, counting the loss at the edge?",
              "一片 {wafer:.0f} mm 晶圆上能放多少个 {area:.0f} mm² 的 die（计入边缘损失）？"),
             ("Wafer area over die area, minus the partial dies along the circumference.",
              "晶圆面积除以 die 面积，再减去沿圆周那些不完整的 die。"),
             ("Area alone gives {ideal:.1f}; the edge term $\\pi d/\\sqrt{{2A}}$ removes the partial dies: **{dies:.0f}** dies.",
              "只按面积算是 {ideal:.1f} 个；边缘项 $\\pi d/\\sqrt{{2A}}$ 扣掉边缘上不完整的 die：**{dies:.0f}** 个。")),

        _num("rv_ch1_q2", KEY, "ch1-yield", "interview",
             {"area": Param(area_mm2, "mm²", 100, 850, integer=True), "d0": Param(0.1, "defects/cm²", 0.03, 0.3)},
             lambda area, d0: {"murphy": Answer(fab.murphy_yield(area, d0), "fraction"),
                               "poisson": Answer(fab.poisson_yield(area, d0), "fraction")},
             "murphy",
             ("A die of {area:.0f} mm² at a defect density of {d0:.2f} per cm²: what share of dies work, by Murphy's model?",
              "die 面积 {area:.0f} mm²，缺陷密度为每平方厘米 {d0:.2f} 个：按 Murphy 模型，能正常工作的 die 占多大比例？"),
             ("Convert the area to cm² first: $A D_0$ is the mean number of defects per die.",
              "先把面积换算成平方厘米：$A D_0$ 是每个 die 上的平均缺陷数。"),
             ("Murphy's model, which lets the defect density vary across the wafer, gives **{murphy:.1%}**; Poisson, which "
              "assumes uniform defects, gives {poisson:.1%}.",
              "Murphy 模型允许缺陷密度在晶圆上变化，给出 **{murphy:.1%}**；假设缺陷均匀分布的泊松模型给出 {poisson:.1%}。")),

        _num("rv_ch1_q3", KEY, "ch1-cost", "self-check",
             {"price": Param(17000, "USD", 5000, 30000, integer=True), "area": Param(area_mm2, "mm²", 100, 850, integer=True),
              "d0": Param(0.1, "defects/cm²", 0.03, 0.3)},
             lambda price, area, d0: {"cost": Answer(fab.cost_per_good_die_usd(price, area, d0), "USD", rel_tol=0.02),
                                      "good": Answer(fab.good_dies_per_wafer(area, d0), "dies")},
             "cost",
             ("A wafer costs {price:,.0f} USD. What does one good {area:.0f} mm² die cost at {d0:.2f} defects per cm² (Murphy)?",
              "一片晶圆 {price:,.0f} 美元。缺陷密度为每平方厘米 {d0:.2f} 个（Murphy 模型）时，一个 {area:.0f} mm² 的好 die 成本是多少？"),
             ("Divide the wafer price by the good dies per wafer.", "晶圆价格除以每片晶圆上的好 die 数。"),
             ("Good dies per wafer: {good:.1f}. {price:,.0f} / {good:.1f} = **{cost:,.0f} USD**.",
              "每片晶圆上的好 die：{good:.1f} 个。{price:,.0f} / {good:.1f} = **{cost:,.0f} 美元**。")),

        _num("rv_ch1_q4", KEY, "ch1-kgd", "interview",
             {"y": Param(0.6, "fraction", 0.3, 0.95), "n": Param(2, "dies", 2, 8, integer=True)},
             lambda y, n: {"pkg": Answer(fab.untested_package_yield(y, n), "fraction")},
             "pkg",
             ("Dies yield {y:.0%} and are packaged {n:.0f} at a time without testing. What share of packages work?",
              "die 的良率是 {y:.0%}，不经测试就每 {n:.0f} 个封装在一起。能正常工作的封装占多大比例？"),
             ("Every die in the package must work.", "封装里的每个 die 都必须是好的。"),
             ("$Y^n$ = **{pkg:.1%}**: testing the dies first (known good die) avoids throwing good dies away.",
              "$Y^n$ = **{pkg:.1%}**：封装前先把 die 测一遍（已知良品裸片），坏的就不会连累好的一起报废。")),

        _num("rv_ch1_q5", KEY, "ch1-hbm", "self-check",
             {"stacks": Param(5, "stacks", 2, 8, integer=True), "pin": Param(5.23e9, "Gb/s per pin", 2e9, 10e9, scale=1e9),
              "width": Param(1024, "bits per stack")},
             lambda stacks, pin, width: {"bw": Answer(memory.hbm_bandwidth_from_pins_Bps(stacks, int(width), pin) / units.GB, "GB/s"),
                                         "bus": Answer(memory.bus_bits(stacks, int(width)), "bits", rel_tol=0),
                                         "bpb": Answer(units.BITS_PER_BYTE, "bits", rel_tol=0)},
             "bw",
             ("A GPU has {stacks:.0f} HBM stacks, each with a {width:.0f}-bit interface, at {pin:.2f} Gb/s per pin. What is its memory "
              "bandwidth in GB/s?",
              "一块 GPU 有 {stacks:.0f} 个 HBM 堆栈，每个堆栈的接口 {width:.0f} 位宽，每个引脚 {pin:.2f} Gb/s。显存带宽是多少 GB/s？"),
             ("Bus width × pin rate, divided by {bpb:.0f}.", "总线位宽 × 引脚速率，再除以 {bpb:.0f}。"),
             ("{bus:,.0f} bits × {pin:.2f} Gb/s / {bpb:.0f} = **{bw:,.0f} GB/s**.", "{bus:,.0f} 位 × {pin:.2f} Gb/s / {bpb:.0f} = **{bw:,.0f} GB/s**。")),

        _mc("rv_ch1_q6", KEY, "ch1-reticle", "interview",
            ("Splitting one large die into two half-size dies pays off when…",
             "把一个大 die 拆成两个一半大小的 die，什么时候划算？"),
            (("defect density is high and the die is near the reticle limit", "缺陷密度高、die 接近单次曝光上限时"),
             ("defect density is close to zero", "缺陷密度接近零时",
              "That splitting always raises yield: with almost no defects both options yield nearly fully, and the split "
              "only adds packaging and a die-to-die link.",
              "以为拆分总能提高良率：几乎没有缺陷时两种做法的良率都接近百分之百，拆开只会多出封装和 die 间互连的成本。"),
             ("the die is small, far below the reticle limit", "die 很小、远低于单次曝光上限时",
              "That the gain is the same at any size: a small die already yields well, so halving it saves little while "
              "the packaging costs the same.", "以为拆分的收益与面积无关：小 die 的良率本来就高，拆开省不了多少，封装成本却一分不少。")), 0,
            ("Yield falls faster than linearly with area, so halves lose less to defects; at near-zero defect density both "
             "yield nearly fully and the split only adds packaging cost.",
             "良率随面积下降得比线性还快，所以半大小的 die 因缺陷损失得更少；缺陷密度接近零时，两种做法的良率都接近百分之百，拆开只会平添封装成本。"),
            ("Compare the yield of one area with the square of the yield of half of it.", "比较整块面积的良率与半块面积良率的平方。"),
            flip=True),

        _num("rv_ch1_q7", KEY, "ch1-yield", "interview",
             {"area": Param(600, "mm²", 100, 850, integer=True), "d0": Param(0.1, "defects/cm²", 0.05, 0.3),
              "wafer": Param(fab.wafer_diameter_mm(), "mm")},
             lambda area, d0, wafer: {"gross": Answer(fab.gross_dies_per_wafer(area, wafer), "dies"),
                               "y": Answer(fab.murphy_yield(area, d0), "fraction"),
                               "good": Answer(fab.good_dies_per_wafer(area, d0, wafer_diameter_mm=wafer), "dies")},
             "good",
             ("A {area:.0f} mm² die is made on {wafer:.0f} mm wafers with {d0:.2f} defects per cm². Using Murphy's yield model, how "
              "many good dies does a wafer give on average?",
              "一个 {area:.0f} mm² 的 die 在 {wafer:.0f} mm 晶圆上制造，缺陷密度为每平方厘米 {d0:.2f} 个。按 Murphy 良率模型，一片晶圆平均能出多少颗好 die？"),
             ("Two steps: gross dies per wafer (with the edge loss), then times the die yield.",
              "两步：先算每片晶圆能切出的 die 数（计入边缘损失），再乘以 die 的良率。"),
             ("{gross:.1f} gross dies × a yield of {y:.1%} = **{good:.1f} dies** that work.",
              "{gross:.1f} 颗 die × {y:.1%} 的良率 = 好 die **{good:.1f}** 颗。")),

        _mc("rv_ch1_q8", KEY, "ch1-kgd", "self-check",
            ("A package holds several dies bonded before any is tested. Why does its yield fall faster than any die's?",
             "一个封装里有好几颗 die，键合前都没有测试。为什么封装的良率比任何一颗 die 的良率掉得都快？"),
            (("Bonding damages the dies", "键合会损坏 die",
              "That the loss comes from assembly: even with perfect bonding one bad die spoils the package; the loss "
              "multiplies over the dies.", "以为损失来自组装：即使键合完美，一颗坏 die 也会毁掉整个封装；损失按 die 的数目相乘。"),
             ("Every die must be good, so the yields multiply", "每颗 die 都得是好的，所以良率相乘"),
             ("Bigger packages have more defects per mm²", "封装越大，每平方毫米的缺陷越多",
              "That defect density grows with the package: the density is the wafer's; what grows is the number of dies "
              "that must all be good.", "以为缺陷密度随封装变大：缺陷密度是晶圆的属性；增加的是必须全部合格的 die 数。")), 1,
            ("One bad die scraps the package with all its good dies, so its yield is the die yield to the power of the dies; "
             "testing dies first (known good die) stops the compounding.",
             "一颗坏 die 会让整个封装连同其他好 die 一起报废，所以封装良率是 die 良率的 die 数次方；先把 die 测试一遍（已知良品裸片）就不会层层相乘。"),
            ("What happens to the good dies in a package with one bad one?", "一个封装里有一颗坏 die，其他好 die 会怎样？")),
    ]
