"""Chapter 4's questions: ridge points, generations, GPUs needed, KV bytes, spec sheets (04_generations).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
import math

from .. import generations, hardware as hw, models, planner, roofline, units
from ..exercises import Answer, Param
from .core import Question, _clear_of_integer, _mc, _num, common

FILE = "04_generations"   # the chapter these questions test: its file in _toc.yml
KEY = "ch4"   # in the ids of its questions (rv_ch4_q1) and the review's label for them (rv-ch4)


def _ch4_8(mem_gb: float, runtime_gib: float, headroom: float, ctx: int) -> dict[str, Answer]:
    shape, mem, rt = models.LLAMA3_70B, mem_gb * units.GB, runtime_gib * units.GiB
    plan = planner.gpus_needed(shape, mem, context=ctx, runtime_B=rt, overhead_fraction=headroom)
    room = (1 - headroom) * mem - rt        # each GPU's share for weights and KV (the hint's formula)
    return {"w_gb": Answer(plan.weights_B / units.GB, "GB"), "kv_gb": Answer(plan.kv_B / units.GB, "GB"),
            "keep": Answer(1 - headroom, "fraction"), "runtime_gb": Answer(rt / units.GB, "GB"),
            "room_gb": Answer(room / units.GB, "GB"), "gpus": Answer(plan.gpus, "GPUs", rel_tol=0),
            "gpus0": Answer(planner.gpus_needed(shape, mem, context=ctx, runtime_B=0, overhead_fraction=headroom).gpus, "GPUs", rel_tol=0)}


def questions() -> list[Question]:
    """The questions that test 04_generations (reads the registry)."""
    c = common()
    h200_printed_gb = hw.value("h200_sxm", "mem_capacity_B") / units.GB     # as the datasheet prints it
    b200_peak, b200_sms = generations.dense_bf16_flop_s("b200_hgx"), hw.value("b200_hgx", "sm_count")
    h100_per_clock = hw.value("h100_sxm5", "tensor_flop_per_clock_per_sm")
    return [
        _num("rv_ch4_q1", KEY, "ch4-implied", "self-check",
             {"peak": Param(c.h100_peak, "TFLOP/s", 1e14, 5e15, scale=1e12), "bw": Param(c.h100_bw, "TB/s", 1e12, 8e12, scale=1e12)},
             lambda peak, bw: {"ridge": Answer(roofline.ridge_point(peak, bw), "FLOP/B")},
             "ridge",
             ("A GPU has {peak:,.0f} TFLOP/s and {bw:.2f} TB/s. What is its ridge point, in FLOP per byte?",
              "一块 GPU 算力 {peak:,.0f} TFLOP/s、带宽 {bw:.2f} TB/s。屋脊点是每字节多少次浮点运算？"),
             ("Peak over bandwidth.", "峰值除以带宽。"),
             ("{peak:,.0f} / {bw:.2f} = **{ridge:,.0f} FLOP/B**: a kernel below it is memory-bound.",
              "{peak:,.0f} / {bw:.2f} = **每字节 {ridge:,.0f} 次**：低于它的 kernel 访存受限。")),

        _num("rv_ch4_q2", KEY, "ch4-generations", "interview",
             {"bw_old": Param(c.h100_bw, "TB/s", 1e12, 8e12, scale=1e12), "bw_new": Param(c.h200_bw, "TB/s", 1e12, 8e12, scale=1e12),
              "params_b": Param(70, "billion parameters", 7, 400, integer=True)},
             lambda bw_old, bw_new, params_b: {
                 "old": Answer(generations.decode_ceiling_tok_s(bw_old, models.weight_B(params_b * 1e9)), "tokens/s"),
                 "new": Answer(generations.decode_ceiling_tok_s(bw_new, models.weight_B(params_b * 1e9)), "tokens/s"),
                 "gain": Answer(bw_new / bw_old, "×")},
             "gain",
             ("A {params_b:.0f}B model in BF16 decodes at batch one. Going from {bw_old:.2f} TB/s to {bw_new:.2f} TB/s of memory "
              "bandwidth (same FLOP/s), how many times faster is the decode ceiling?",
              "一个 {params_b:.0f}B 的 BF16 模型，只 decode 一个请求。显存带宽从 {bw_old:.2f} TB/s 提高到 {bw_new:.2f} TB/s（算力不变），decode 上限变成原来的多少倍？"),
             ("The batch-one ceiling is bandwidth over weight bytes.", "单请求时，上限就是带宽除以权重字节数。"),
             ("{old:,.1f} → {new:,.1f} tokens/s: **{gain:.2f}×**, exactly the bandwidth ratio.",
              "每秒 {old:,.1f} → {new:,.1f} 个 token：**{gain:.2f}×**，正好是带宽之比。")),

        _num("rv_ch4_q3", KEY, "ch4-gpus-needed", "self-check",
             {"params_b": Param(70, "billion parameters", 7, 700, integer=True), "bpp": Param(2, "B per parameter", 0.5, 2),
              "mem_gb": Param(80, "GB", 24, 288, integer=True)},
             lambda params_b, bpp, mem_gb: {
                 "gpus": Answer(math.ceil(models.weight_B(params_b * 1e9, bpp) / (mem_gb * units.GB)), "GPUs", rel_tol=0),
                 "weight_gb": Answer(models.weight_B(params_b * 1e9, bpp) / units.GB, "GB")},
             "gpus",
             ("How many GPUs of {mem_gb:.0f} GB does it take just to hold the weights of a {params_b:.0f}B model at {bpp:.1f} "
              "bytes per parameter?",
              "一个 {params_b:.0f}B 的模型，每个参数 {bpp:.1f} 字节，光放权重就要多少块 {mem_gb:.0f} GB 的 GPU？"),
             ("Weight bytes over memory per GPU, rounded up.", "权重字节数除以每块 GPU 的显存，向上取整。"),
             ("{weight_gb:,.0f} GB / {mem_gb:.0f} GB, rounded up: **{gpus:.0f} GPUs**, before any KV cache.",
              "{weight_gb:,.0f} GB / {mem_gb:.0f} GB，向上取整：**{gpus:.0f} 块**，这还没算 KV cache。"),
             valid=lambda v: _clear_of_integer(v["weight_gb"] / v["mem_gb"])),

        _num("rv_ch4_q4", KEY, "ch4-gpus-needed", "interview",
             {"layers": Param(80, "layers", 16, 128, integer=True), "kv_heads": Param(8, "KV heads", 2, 64, integer=True),
              "head_dim": Param(128, "", 64, 256, integer=True)},
             lambda layers, kv_heads, head_dim: {"kb": Answer(models.kv_B_per_token(layers, kv_heads, head_dim) / units.KB, "KB")},
             "kb",
             ("A model has {layers:.0f} layers, {kv_heads:.0f} KV heads of dimension {head_dim:.0f}, and stores K and V in BF16. "
              "How many KB of KV cache does each token take?",
              "一个模型有 {layers:.0f} 层、{kv_heads:.0f} 个 KV 头，每个头维度 {head_dim:.0f}，K 和 V 以 BF16 存储。每个 token 占多少 KB 的 KV cache？"),
             ("Two tensors (K and V) × layers × KV heads × head dimension × two bytes.", "两个张量（K 和 V）× 层数 × KV 头数 × 头维度 × 两个字节。"),
             ("**{kb:,.1f} KB** per token.", "每个 token **{kb:,.1f} KB**。")),

        _mc("rv_ch4_q5", KEY, "ch4-generations", "interview",
            ("From one GPU generation to the next, peak FLOP/s has grown faster than memory bandwidth. What happens to the "
             "ridge point?", "从一代 GPU 到下一代，峰值算力增长得比显存带宽快。屋脊点会怎样变化？"),
            (("It moves right: more kernels become memory-bound", "右移：更多 kernel 变成访存受限"),
             ("It moves left: more kernels become compute-bound", "左移：更多 kernel 变成算力受限",
              "That faster arithmetic makes kernels compute-bound: it makes memory the limit for more of them, not fewer.",
              "以为算力更快，kernel 就更容易算力受限：恰恰相反，更多 kernel 会卡在访存上。"),
             ("It stays where it is", "保持不变",
              "That the ridge point belongs to the kernel: it is the GPU's peak over its bandwidth; what a generation "
              "leaves unchanged is the kernel's own FLOP per byte.", "以为屋脊点是 kernel 的属性：它是 GPU 的峰值除以带宽；换代时不变的是 kernel 自己的每字节运算量。")), 0,
            ("The ridge point is peak over bandwidth: if the numerator grows faster, a kernel needs more FLOP per byte to "
             "reach the peak.", "屋脊点是峰值除以带宽：分子增长更快，kernel 就需要更高的每字节运算量才能达到峰值。"),
            ("Ridge = peak / bandwidth.", "屋脊点 = 峰值 / 带宽。")),

        _mc("rv_ch4_q6", KEY, "ch4-spec-sheet", "self-check",
            ("A datasheet prints a Tensor Core peak with an asterisk “with sparsity”. What is the dense peak?",
             "数据手册上的 Tensor Core 峰值带星号，注明“含稀疏”。稠密峰值是多少？"),
            (("The same", "一样",
              "That sparsity is a separate mode that leaves the dense figure alone: the starred figure counts the skipped "
              "zeros as done, so dense matrices get half.", "以为稀疏是另一种模式，不影响稠密数字：带星号的数字把跳过的零也算成做了，稠密矩阵只有一半。"),
             ("Half of it", "它的一半"),
             ("A quarter of it", "它的四分之一",
              "That two-of-four keeps a quarter of the values: it keeps two of every four, half, so the quoted rate is "
              "twice the dense one.", "以为 2:4 稀疏只留下四分之一的值：每四个留两个，是一半，所以标称算力是稠密的两倍。")), 1,
            ("Structured two-of-four sparsity doubles the quoted rate; dense matrices get half.",
             "2:4 结构化稀疏让标称算力翻倍；稠密矩阵只有一半。"),
            ("What does two-of-four sparsity skip?", "2:4 稀疏跳过了什么？")),

        _num("rv_ch4_q7", KEY, "ch4-gpus-needed", "self-check",
             {"printed": Param(h200_printed_gb, "GB", 24, 288, integer=True)},
             lambda printed: {"bytes_gb": Answer(printed * units.GiB / units.GB, "GB"),
                              "cuda_gib": Answer(hw.usable_memory_B("h200_sxm").value_B / units.GiB, "GiB"),
                              "h200_gb": Answer(h200_printed_gb, "GB")},
             "bytes_gb",
             ("A GPU's datasheet prints {printed:.0f} GB of HBM. Memory capacities count binary gigabytes (GiB). How many "
              "bytes is that, in decimal GB (10⁹ bytes)?",
              "一块 GPU 的规格表上写着 {printed:.0f} GB HBM。显存容量按二进制的 GB（GiB）计。换成十进制的 GB（10⁹ 字节）是多少？"),
             ("One GiB is 2³⁰ bytes.", "每 GiB 是 2³⁰ 字节。"),
             ("{printed:.0f} × 2³⁰ bytes = **{bytes_gb:.1f} GB**. CUDA reports a little less than the nominal figure: on the "
              "measured H200 ({h200_gb:.0f} GB printed), {cuda_gib:.1f} GiB; the driver and reserved memory keep the rest.",
              "{printed:.0f} × 2³⁰ 字节 = **{bytes_gb:.1f} GB**。CUDA 报告的总量比标称值略少：实测的 H200（标称 {h200_gb:.0f} GB）为 "
              "{cuda_gib:.1f} GiB，其余被驱动和保留内存占去。")),

        _num("rv_ch4_q8", KEY, "ch4-gpus-needed", "interview",
             {"mem_gb": Param(80, "GB", 40, 192, integer=True), "runtime_gib": Param(planner.RUNTIME_B / units.GiB, "GiB", 1, 10),
              "headroom": Param(planner.OVERHEAD_FRACTION, "fraction"), "ctx": Param(4096, "tokens")},
             _ch4_8, "gpus",
             ("Llama-3-70B in BF16 ({w_gb:.1f} GB of weights) serves one request of {ctx:,.0f} tokens ({kv_gb:.2f} GB of KV cache) on "
              "GPUs of {mem_gb:.0f} GB. The engine keeps {headroom:.0%} of each GPU back and the CUDA context and "
              "activations take {runtime_gib:.1f} GiB on every GPU. How many GPUs does one replica need?",
              "Llama-3-70B 以 BF16 存储（权重 {w_gb:.1f} GB），在每块 {mem_gb:.0f} GB 的 GPU 上服务一个 {ctx:,.0f} token 的请求（KV cache "
              "{kv_gb:.2f} GB）。引擎在每块 GPU 上预留 {headroom:.0%}，CUDA 上下文和激活在每块 GPU 上还要占 {runtime_gib:.1f} GiB。一个副本需要几块 GPU？"),
             ("Per GPU: the share of memory the engine does not keep back, less the runtime. Divide weights plus KV by that, "
              "round up.", "每块 GPU 可用：引擎没有预留的那部分显存，再减去运行时占用。权重加 KV 除以它，向上取整。"),
             ("Each GPU holds ({mem_gb:.0f} × {keep:.0%} − {runtime_gb:.2f}) GB = {room_gb:.2f} GB; ({w_gb:.1f} + {kv_gb:.2f}) GB / "
              "{room_gb:.2f} GB, rounded up: **{gpus:.0f} GPUs**. Without the runtime term it would be {gpus0:.0f}.",
              "每块 GPU 能放 ({mem_gb:.0f} × {keep:.0%} − {runtime_gb:.2f}) GB = {room_gb:.2f} GB；({w_gb:.1f} + {kv_gb:.2f}) GB / "
              "{room_gb:.2f} GB，向上取整：**{gpus:.0f} 块 GPU**。不计运行时占用则是 {gpus0:.0f} 块。"),
             valid=lambda v: v["gpus"] >= 2 and v["room_gb"] > 0
             and _clear_of_integer((v["w_gb"] + v["kv_gb"]) / v["room_gb"], 1e-3)),

        _num("rv_ch4_q9", KEY, "ch4-generations", "interview",
             {"new_pf": Param(b200_peak, "PFLOP/s", 1.5e15, 3.0e15, scale=1e15), "new_sms": Param(b200_sms, "SMs"),
              "old_tf": Param(c.h100_peak, "TFLOP/s", scale=1e12), "old_sms": Param(c.h100_sms, "SMs"),
              "per_clock": Param(h100_per_clock, "FLOP per clock per SM"), "factor": Param(2, "×")},
             lambda new_pf, new_sms, old_tf, old_sms, per_clock, factor: {
                 "ghz": Answer(generations.peak_gain(new_pf, int(new_sms), old_tf, int(old_sms), per_clock, factor).implied_clock_hz / 1e9, "GHz"),
                 "ghz1": Answer(generations.peak_gain(new_pf, int(new_sms), old_tf, int(old_sms), per_clock, 1).implied_clock_hz / 1e9, "GHz"),
                 "old_ghz": Answer(generations.implied_clock_hz(old_tf, int(old_sms), per_clock) / 1e9, "GHz"),
                 "total": Answer(new_pf / old_tf, "×")},
             "ghz",
             ("A new GPU peaks at {new_pf:.2f} PFLOP/s dense BF16 with {new_sms:.0f} SMs; the H100 at {old_tf:,.0f} TFLOP/s with "
              "{old_sms:.0f} SMs of {per_clock:,.0f} FLOP per clock. If each new SM does {factor:.0f} times the H100's FLOP per "
              "clock, what clock does the new peak imply, in GHz?",
              "一款新 GPU 的稠密 BF16 峰值为 {new_pf:.2f} PFLOP/s，有 {new_sms:.0f} 个 SM；H100 为 {old_tf:,.0f} TFLOP/s，{old_sms:.0f} 个 SM，"
              "每个 SM 每周期 {per_clock:,.0f} 次运算。如果新 SM 每周期的运算量是 H100 的 {factor:.0f} 倍，新峰值意味着多高的时钟频率（GHz）？"),
             ("Peak = SMs × FLOP per clock per SM × clock: solve for the clock.", "峰值 = SM 数 × 每 SM 每周期运算量 × 时钟频率，解出时钟频率。"),
             ("{new_pf:.2f} PFLOP/s / ({new_sms:.0f} × {factor:.0f} × {per_clock:,.0f}) = **{ghz:.2f} GHz**, against the H100's "
              "{old_ghz:.2f} GHz: a {total:.2f}× peak is mostly the doubled SM. With the per-SM rate unchanged it would need "
              "{ghz1:.2f} GHz.",
              "{new_pf:.2f} PFLOP/s / ({new_sms:.0f} × {factor:.0f} × {per_clock:,.0f}) = **{ghz:.2f} GHz**，H100 是 {old_ghz:.2f} GHz："
              "{total:.2f} 倍的峰值主要来自翻倍的 SM。若每个 SM 的速率不变，就需要 {ghz1:.2f} GHz。")),
    ]
