"""Chapter 4's questions: ridge points, generations, GPUs needed, KV bytes, spec sheets (04_generations).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
import math

from .. import generations, models, roofline, units
from ..exercises import Answer, Param
from .core import Question, _clear_of_integer, _mc, _num, common

FILE = "04_generations"   # the chapter these questions test: its file in _toc.yml
KEY = "ch4"   # in the ids of its questions (rv_ch4_q1) and the review's label for them (rv-ch4)


def questions() -> list[Question]:
    """The questions that test 04_generations (reads the registry)."""
    c = common()
    return [
        _num("rv_ch4_q1", KEY, "ch4-implied", "self-check",
             {"peak": Param(c.h100_peak, "TFLOP/s", 1e14, 5e15, scale=1e12), "bw": Param(c.h100_bw, "TB/s", 1e12, 8e12, scale=1e12)},
             lambda peak, bw: {"ridge": Answer(roofline.ridge_point(peak, bw), "FLOP/B")},
             "ridge",
             ("A GPU has {peak:,.0f} TFLOP/s and {bw:.2f} TB/s. What is its ridge point, in FLOP per byte?",
              "一块 GPU 算力 {peak:,.0f} TFLOP/s、带宽 {bw:.2f} TB/s。屋脊点是每字节多少次浮点运算？"),
             ("Peak over bandwidth.", "峰值除以带宽。"),
             ("{peak:,.0f} / {bw:.2f} = **{ridge:,.0f} FLOP/B**: a kernel below it is memory-bound.",
              "{peak:,.0f} / {bw:.2f} = **每字节 {ridge:,.0f} 次**：低于它的 kernel 受访存限制。")),

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
              "以为算力更快，kernel 就更容易受算力限制：恰恰相反，更多 kernel 会卡在访存上。"),
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
              "twice the dense one.", "以为四选二只留下四分之一的值：每四个留两个，是一半，所以标称算力是稠密的两倍。")), 1,
            ("Structured two-of-four sparsity doubles the quoted rate; dense matrices get half.",
             "四选二结构化稀疏让标称算力翻倍；稠密矩阵只有一半。"),
            ("What does two-of-four sparsity skip?", "四选二稀疏跳过了什么？")),
    ]
