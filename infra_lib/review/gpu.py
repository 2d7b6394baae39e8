"""Chapter 3's questions: warps, Little's law, Tensor Core peaks, block formats, NVLink (03_gpu).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
from .. import generations, gpu, hardware as hw, minifloat as formats, occupancy, units  # pure: runs in the browser
from ..exercises import Answer, Param
from .core import Question, _clear_of_integer, _mc, _num, common

FILE = "03_gpu"   # the chapter these questions test: its file in _toc.yml
KEY = "ch3"   # in the ids of its questions (rv_ch3_q1) and the review's label for them (rv-ch3)


def questions() -> list[Question]:
    """The questions that test 03_gpu (reads the registry)."""
    c = common()
    sm = occupancy.limits("9.0")   # the H100's SM (compute capability 9.0), as gpu.warps_per_sm counts it
    return [
        _num("rv_ch3_q1", KEY, "ch3-divergence", "self-check",
             {"k": Param(8, "lanes", 2, 30, integer=True), "a": Param(40, "cycles", 10, 100, integer=True),
              "b": Param(10, "cycles", 10, 100, integer=True)},
             lambda k, a, b: {"eff": Answer(gpu.branch_efficiency(k, a, b), "fraction")},
             "eff",
             ("In one warp, {k:.0f} lanes take a {a:.0f}-cycle path and the others a {b:.0f}-cycle path. What fraction of the "
              "issued lane-cycles does useful work?",
              "一个 warp 里有 {k:.0f} 个 lane 走 {a:.0f} 个周期的分支，其余 lane 走 {b:.0f} 个周期的分支。按“lane × 周期”计，发出的执行槽里有多大比例在做有用功？"),
             ("The warp issues both paths for all its lanes.", "warp 会对所有 lane 把两条路径都执行一遍。"),
             ("Useful: $k a + (W-k) b$; issued: $W (a + b)$. $\\eta$ = **{eff:.1%}**.",
              "有用：$k a + (W-k) b$；发出：$W (a + b)$。$\\eta$ = **{eff:.1%}**。")),

        _num("rv_ch3_q2", KEY, "ch3-littles-law", "interview",
             {"bw": Param(c.h100_bw, "TB/s", 1e12, 8e12, scale=1e12), "ns": Param(gpu.TEACHING_HBM_LATENCY_S, "ns", 300e-9, 1200e-9, scale=1e-9)},
             lambda bw, ns: {"mb": Answer(gpu.bytes_in_flight_B(bw, ns) / units.MB, "MB")},
             "mb",
             ("A GPU has {bw:.2f} TB/s of memory bandwidth and a memory latency of {ns:.0f} ns. How many MB must be in flight "
              "to use all of it?",
              "一块 GPU 显存带宽 {bw:.2f} TB/s，访存延迟 {ns:.0f} ns。要用满带宽，同时在途的数据要有多少 MB？"),
             ("Little's law.", "利特尔定律。"),
             ("Bandwidth × latency = **{mb:.2f} MB**.", "带宽 × 延迟 = **{mb:.2f} MB**。")),

        _num("rv_ch3_q3", KEY, "ch3-littles-law", "self-check",
             {"regs": Param(128, "registers per thread", 32, 255, integer=True),
              "rf": Param(sm.registers, "registers per SM"), "unit": Param(sm.register_unit, "registers"),
              "parts": Param(sm.warp_granularity, "sub-partitions"), "maxw": Param(sm.max_warps, "warps"),
              "ws": Param(sm.warp_size, "threads")},
             lambda regs, rf, unit, parts, maxw, ws: {"warps": Answer(gpu.warps_per_sm(regs), "warps", rel_tol=0),
                           "need": Answer(gpu.bytes_per_warp_needed_B(c.h100_bw, gpu.TEACHING_HBM_LATENCY_S, c.h100_sms, gpu.warps_per_sm(regs)), "B")},
             "warps",
             ("A kernel needs {regs:.0f} registers per thread. An H100 SM has {rf:,.0f} registers in {parts:.0f} "
              "sub-partitions, each holding whole warps of {ws:.0f} threads; a warp's registers are allocated in units of "
              "{unit:.0f}, and at most {maxw:.0f} warps are resident. How many warps fit on one SM?",
              "一个 kernel 每个线程要 {regs:.0f} 个寄存器。一个 H100 SM 有 {rf:,.0f} 个寄存器，分成 {parts:.0f} 个子分区，"
              "每个子分区只放整数个 warp（每个 warp {ws:.0f} 个线程）；一个 warp 的寄存器按 {unit:.0f} 个为单位分配，"
              "一个 SM 最多驻留 {maxw:.0f} 个 warp。一个 SM 上能驻留多少个 warp？"),
             ("Registers per warp: {ws:.0f} × registers per thread, rounded up to the unit; then whole warps per "
              "sub-partition, times the sub-partitions, and at most the warp limit.",
              "每个 warp 的寄存器数：{ws:.0f} × 每线程寄存器数，向上取整到分配单位；再算每个子分区放得下几个整 warp，"
              "乘以子分区数，且不超过 warp 上限。"),
             ("**{warps:.0f} warps**; each must then keep {need:,.0f} bytes in flight to use the HBM bandwidth.",
              "**{warps:.0f} 个 warp**；每个 warp 要有 {need:,.0f} 字节在途才能用满 HBM 带宽。")),

        _num("rv_ch3_q4", KEY, "ch3-tensor-peaks", "interview",
             {"peak": Param(c.h100_peak, "TFLOP/s", 1e14, 2e15, scale=1e12), "sms": Param(c.h100_sms, "SMs", 50, 200, integer=True),
              "per_clock": Param(hw.value("h100_sxm5", "tensor_flop_per_clock_per_sm"), "FLOP per clock per SM")},
             lambda peak, sms, per_clock: {"mhz": Answer(generations.implied_clock_hz(peak, sms, per_clock) / 1e6, "MHz")},
             "mhz",
             ("A datasheet gives {peak:,.0f} TFLOP/s dense BF16 for {sms:.0f} SMs of {per_clock:,.0f} FLOP per clock each. What "
              "clock does that peak assume, in MHz?",
              "数据手册给出稠密 BF16 {peak:,.0f} TFLOP/s，共 {sms:.0f} 个 SM，每个 SM 每时钟 {per_clock:,.0f} 次浮点运算。这个峰值假设的频率是多少 MHz？"),
             ("Peak = SMs × FLOP per clock × clock.", "峰值 = SM 数 × 每时钟运算数 × 频率。"),
             ("{peak:,.0f} × 10¹² / ({sms:.0f} × {per_clock:,.0f}) = **{mhz:,.0f} MHz**.",
              "{peak:,.0f} × 10¹² / ({sms:.0f} × {per_clock:,.0f}) = **{mhz:,.0f} MHz**。")),

        _num("rv_ch3_q5", KEY, "ch3-block-scaling", "self-check",
             {"el": Param(4, "bits", 4, 8, integer=True), "sc": Param(8, "bits", 8, 8, integer=True),
              "block": Param(32, "values", 8, 64, integer=True)},
             lambda el, sc, block: {"bits": Answer(formats.bits_per_value(el, sc, block), "bits")},
             "bits",
             ("A block format stores {el:.0f}-bit elements with one {sc:.0f}-bit scale per block of {block:.0f}. How many bits "
              "does it use per value?",
              "一种块缩放格式用 {el:.0f} 位存元素，每 {block:.0f} 个值共享一个 {sc:.0f} 位的缩放因子。平均每个值占多少位？"),
             ("Spread the scale over the block.", "把缩放因子的位数摊到整块上。"),
             ("{el:.0f} + {sc:.0f} / {block:.0f} = **{bits:.3f} bits**.", "{el:.0f} + {sc:.0f} / {block:.0f} = **{bits:.3f} 位**。")),

        _num("rv_ch3_q6", KEY, "ch3-nvlink", "interview",
             {"links": Param(18, "links", 4, 18, integer=True), "per": Param(25e9, "GB/s", 25e9, 50e9, scale=1e9)},
             lambda links, per: {"total": Answer(gpu.nvlink_total_Bps(links, per) / units.GB, "GB/s"),
                                 "dir": Answer(links * per / units.GB, "GB/s")},
             "dir",
             ("A GPU has {links:.0f} NVLink links of {per:.0f} GB/s per direction each. The datasheet quotes {total:,.0f} GB/s. "
              "How much can it send in one direction, in GB/s?",
              "一块 GPU 有 {links:.0f} 条 NVLink，每条单向 {per:.0f} GB/s。数据手册写的是 {total:,.0f} GB/s。它单向能发多少 GB/s？"),
             ("The quoted figure counts both directions.", "手册上的数字是双向之和。"),
             ("{links:.0f} × {per:.0f} = **{dir:,.0f} GB/s** per direction; the quoted {total:,.0f} GB/s is the two-way total.",
              "{links:.0f} × {per:.0f} = 单向 **{dir:,.0f} GB/s**；手册上的 {total:,.0f} GB/s 是双向合计。")),

        _mc("rv_ch3_q7", KEY, "ch3-littles-law", "interview",
            ("Why does an SM keep many warps resident instead of running one warp fast?",
             "为什么一个 SM 要同时驻留很多 warp，而不是把一个 warp 跑得飞快？"),
            (("To give each thread more registers", "为了让每个线程分到更多寄存器",
              "That more warps bring more registers: an SM's register file is fixed, so more resident warps leave fewer "
              "registers for each thread.", "以为 warp 多了寄存器也多：SM 的寄存器总数是固定的，驻留的 warp 越多，每个线程分到的越少。"),
             ("Because the SM executes all its warps' instructions in the same cycle", "因为 SM 在同一个周期里执行所有 warp 的指令",
              "That resident means running: each scheduler issues from one warp per cycle while the others wait, and "
              "filling those waits is the point.", "以为驻留就是在执行：每个调度器每个周期只从一个 warp 发射指令，其余的在等，而用它们填补等待正是目的所在。"),
             ("To hide memory latency: while one warp waits, another issues", "为了隐藏访存延迟：一个 warp 在等，另一个就发射指令")), 2,
            ("Switching warps is free (their registers stay on the SM), so the scheduler fills the wait of one with the work of "
             "others; Little's law says how many bytes must be in flight for that to reach the bandwidth.",
             "切换 warp 没有开销（寄存器一直留在 SM 上），调度器拿别的 warp 的工作填补一个 warp 的等待；利特尔定律告诉你，要有多少字节在途才能跑满带宽。"),
            ("What does a warp do while its load is on the way?", "一个 warp 的加载在路上时，它在做什么？")),

        _num("rv_ch3_q8", KEY, "ch3-littles-law", "interview",
             {"bw": Param(c.h100_bw, "TB/s", 1e12, 8e12, scale=1e12), "ns": Param(600e-9, "ns", 300e-9, 900e-9, scale=1e-9),
              "sms": Param(c.h100_sms, "SMs", 100, 160, integer=True), "per_warp": Param(512, "B", 128, 512, integer=True)},
             lambda bw, ns, sms, per_warp: {"mb": Answer(gpu.bytes_in_flight_B(bw, ns) / units.MB, "MB"),
                                            "per_sm": Answer(gpu.bytes_in_flight_B(bw, ns) / sms / units.KB, "KB"),
                                            "warps": Answer(gpu.warps_needed(bw, ns, sms, per_warp), "warps", rel_tol=0)},
             "warps",
             ("A GPU has {bw:.2f} TB/s of memory bandwidth, {ns:.0f} ns of memory latency and {sms:.0f} SMs; each warp keeps "
              "{per_warp:.0f} bytes of loads in flight. How many warps per SM does it take to reach the bandwidth?",
              "一块 GPU 的显存带宽为 {bw:.2f} TB/s，访存延迟 {ns:.0f} ns，有 {sms:.0f} 个 SM；每个 warp 保持 {per_warp:.0f} 字节的加载在途。"
              "每个 SM 需要多少个 warp 才能跑满带宽？"),
             ("Little's law: bytes in flight = bandwidth × latency; share them over the SMs, then over the warps.",
              "利特尔定律：在途字节 = 带宽 × 延迟；先分到每个 SM，再分到每个 warp。"),
             ("{bw:.2f} TB/s × {ns:.0f} ns = {mb:.2f} MB in flight, {per_sm:.1f} KB per SM; / {per_warp:.0f} B, rounded up: "
              "**{warps:.0f} warps**.",
              "{bw:.2f} TB/s × {ns:.0f} ns = {mb:.2f} MB 在途，每个 SM {per_sm:.1f} KB；除以 {per_warp:.0f} B，向上取整：**{warps:.0f} 个 warp**。"),
             valid=lambda v: _clear_of_integer(v["per_sm"] * units.KB / v["per_warp"])),
    ]
