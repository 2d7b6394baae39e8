"""Chapter 6's questions: the ridge side, MFU, MBU and collectives (06_performance).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
from .. import collectives, ops, roofline, units, utilization
from ..exercises import Answer, Param
from .core import Question, _mc, _num, common

FILE = "06_performance"   # the chapter these questions test: its file in _toc.yml
KEY = "ch6"   # in the ids of its questions (rv_ch6_q1) and the review's label for them (rv-ch6)


def questions() -> list[Question]:
    """The questions that test 06_performance (reads the registry)."""
    c = common()
    return [
        _num("rv_ch6_q1", KEY, "ch6-ridge-side", "interview",
             {"m": Param(1, "rows", 1, 4096, integer=True), "k": Param(8192, "", 1024, 16384, integer=True),
              "n": Param(8192, "", 1024, 16384, integer=True)},
             lambda m, k, n: {"ai": Answer(ops.matmul(m, k, n).intensity, "FLOP/B"),
                              "bound": Answer(ops.matmul(m, k, n).bound(c.h100_peak, c.h100_bw)),
                              "ridge": Answer(roofline.ridge_point(c.h100_peak, c.h100_bw), "FLOP/B")},
             "ai",
             ("A BF16 matmul multiplies a {m:d} × {k:d} activation by a {k:d} × {n:d} "
              "weight. What is its arithmetic intensity in FLOP per byte, and is it memory- or compute-bound on an H100?",
              "一个 BF16 矩阵乘用 {m:d} × {k:d} 的激活乘以 {k:d} × {n:d} 的权重。它的算术强度是每字节多少次浮点运算？在 H100 上是访存受限还是算力受限？"),
             ("FLOP = 2mkn; bytes = two per element of A, B and C.", "运算量 = 2mkn；字节数 = A、B、C 每个元素两个字节。"),
             ("**{ai:,.1f} FLOP/B** against the H100's ridge of {ridge:,.0f}: below the ridge it is memory-bound, above it "
              "compute-bound. It flips when the rows (the batch of tokens) "
              "grow towards the ridge.", "**每字节 {ai:,.1f} 次**，H100 的屋脊点是 {ridge:,.0f}：低于屋脊点就是访存受限，高于则是算力受限。行数（batch 里的 token 数）增长到接近屋脊点时，结论就会翻转。"),
             flip=True),

        _num("rv_ch6_q2", KEY, "ch6-mfu", "self-check",
             {"tok_s": Param(3000, "tokens/s", 500, 9000, integer=True), "params_b": Param(70, "billion parameters", 7, 400, integer=True),
              "gpus": Param(8, "GPUs", 1, 64, integer=True), "per": Param(6, "FLOP per parameter per token")},
             lambda tok_s, params_b, gpus, per: {"mfu": Answer(utilization.mfu(tok_s, per * params_b * 1e9, gpus, c.h100_peak), "fraction")},
             "mfu",
             ("Training a {params_b:.0f}B model on {gpus:.0f} H100s processes {tok_s:,.0f} tokens/s. Counting {per:.0f} FLOP per "
              "parameter per token, what is the MFU?",
              "在 {gpus:.0f} 块 H100 上训练一个 {params_b:.0f}B 模型，每秒处理 {tok_s:,.0f} 个 token。按每个参数每个 token {per:.0f} 次浮点运算计，MFU 是多少？"),
             ("Achieved model FLOP/s over the GPUs' peak.", "实际模型算力除以所有 GPU 的峰值。"),
             ("{tok_s:,.0f} × {per:.0f} × {params_b:.0f}B / ({gpus:.0f} × H100 peak) = **{mfu:.1%}**.",
              "{tok_s:,.0f} × {per:.0f} × {params_b:.0f}B / ({gpus:.0f} × H100 峰值) = **{mfu:.1%}**。")),

        _num("rv_ch6_q3", KEY, "ch6-collectives", "interview",
             {"size_gb": Param(1.0, "GB", 0.1, 10), "ranks": Param(8, "GPUs", 2, 64, integer=True),
              "bw": Param(450e9, "GB/s", 25e9, 900e9, scale=1e9)},
             lambda size_gb, ranks, bw: {"ms": Answer(collectives.ring_all_reduce_s(size_gb * units.GB, ranks, bw) / units.MS, "ms"),
                                         "factor": Answer(collectives.bus_factor("all_reduce", ranks), "×")},
             "ms",
             ("A ring all-reduce of {size_gb:.2f} GB over {ranks:.0f} GPUs, each link {bw:.0f} GB/s per direction. How long "
              "does it take (no latency term), in ms?",
              "在 {ranks:.0f} 块 GPU 上做 {size_gb:.2f} GB 的环形 all-reduce，每条链路单向 {bw:.0f} GB/s。不计延迟项要多少毫秒？"),
             ("Each rank sends and receives the data times the ring's bus factor: almost twice the data.", "每个 rank 收发的数据量是数据大小乘以环形算法的总线系数，接近两倍。"),
             ("{factor:.3f} × {size_gb:.2f} GB / {bw:.0f} GB/s = **{ms:.2f} ms**.", "{factor:.3f} × {size_gb:.2f} GB / {bw:.0f} GB/s = **{ms:.2f} ms**。")),

        _num("rv_ch6_q4", KEY, "ch6-mfu", "self-check",
             {"read_gb": Param(16, "GB", 1, 200), "step_ms": Param(7e-3, "ms", 1e-3, 100e-3, scale=1e-3)},
             lambda read_gb, step_ms: {"mbu": Answer(utilization.mbu(read_gb * units.GB, step_ms, c.h100_bw), "fraction")},
             "mbu",
             ("A decode step must read {read_gb:.1f} GB and takes {step_ms:.1f} ms on an H100. What is its memory bandwidth "
              "utilization?",
              "一步 decode 要读 {read_gb:.1f} GB，在 H100 上耗时 {step_ms:.1f} ms。显存带宽利用率（MBU）是多少？"),
             ("Bytes over time, over peak bandwidth.", "字节数除以时间，再除以峰值带宽。"),
             ("{read_gb:.1f} GB / {step_ms:.1f} ms / H100 bandwidth = **{mbu:.1%}**.", "{read_gb:.1f} GB / {step_ms:.1f} ms / H100 带宽 = **{mbu:.1%}**。")),

        _mc("rv_ch6_q5", KEY, "ch6-ridge-side", "interview",
            ("Roofline says max(compute time, memory time); a measured kernel takes close to their sum. What does that mean?",
             "屋顶线模型给出 max(计算时间, 访存时间)；实测 kernel 的耗时接近两者之和。这说明什么？"),
            (("Compute and memory traffic do not overlap", "计算和访存没有重叠"), ("The GPU is throttling", "GPU 在降频"),
             ("The roofline is wrong about peaks", "屋顶线的峰值算错了")), 0,
            ("max assumes perfect overlap, the sum none: a kernel near the sum serialises its loads and its arithmetic.",
             "max 假设两者完全重叠，求和假设完全不重叠：耗时接近两者之和的 kernel，是把加载和计算串行执行了。"),
            ("Which assumption separates max from sum?", "max 和求和的区别在于哪个假设？")),

        _mc("rv_ch6_q6", KEY, "ch6-collectives", "self-check",
            ("Why is tensor parallelism usually kept inside one NVLink domain?", "为什么张量并行通常限制在一个 NVLink 域内？"),
            (("It communicates every layer, so it needs the fastest links", "它每一层都要通信，需要最快的链路"),
             ("NCCL cannot cross nodes", "NCCL 不能跨节点"), ("It uses no communication", "它不需要通信")), 0,
            ("Tensor parallelism all-reduces activations in every layer; across slower network links that traffic would no "
             "longer hide behind the matmuls.", "张量并行每一层都要对激活做 all-reduce；放到更慢的网络链路上，通信就藏不到矩阵乘后面了。"),
            ("How often does each kind of parallelism talk?", "每种并行方式多久通信一次？")),
    ]
