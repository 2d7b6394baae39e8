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
              "gpus": Param(8, "GPUs", 2, 64, integer=True), "per": Param(6, "FLOP per parameter per token"),
              "peak": Param(c.h100_peak, "TFLOP/s", scale=1e12)},
             lambda tok_s, params_b, gpus, per, peak: {"mfu": Answer(utilization.mfu(tok_s, per * params_b * 1e9, gpus, peak), "fraction")},
             "mfu",
             ("Training a {params_b:.0f}B model on {gpus:.0f} H100s ({peak:,.0f} TFLOP/s dense BF16 each) processes "
              "{tok_s:,.0f} tokens/s. Counting {per:.0f} FLOP per parameter per token, what is the MFU?",
              "在 {gpus:.0f} 块 H100（每块稠密 BF16 {peak:,.0f} TFLOP/s）上训练一个 {params_b:.0f}B 模型，每秒处理 {tok_s:,.0f} 个 token。按每个参数每个 token {per:.0f} 次浮点运算计，MFU 是多少？"),
             ("Achieved model FLOP/s over the GPUs' peak.", "实际模型算力除以所有 GPU 的峰值。"),
             ("{tok_s:,.0f} × {per:.0f} × {params_b:.0f}B / ({gpus:.0f} × {peak:,.0f} TFLOP/s) = **{mfu:.1%}**.",
              "{tok_s:,.0f} × {per:.0f} × {params_b:.0f}B / ({gpus:.0f} × {peak:,.0f} TFLOP/s) = **{mfu:.1%}**。"),
             valid=lambda v: v["mfu"] <= 0.8),   # no training run reports more

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
             {"read_gb": Param(16, "GB", 1, 200), "step_ms": Param(7e-3, "ms", 1e-3, 100e-3, scale=1e-3),
              "bw": Param(c.h100_bw, "TB/s", scale=1e12)},
             lambda read_gb, step_ms, bw: {"mbu": Answer(utilization.mbu(read_gb * units.GB, step_ms, bw), "fraction")},
             "mbu",
             ("A decode step must read {read_gb:.1f} GB and takes {step_ms:.1f} ms on an H100 ({bw:.2f} TB/s). What is its "
              "memory bandwidth utilization?",
              "一步 decode 要读 {read_gb:.1f} GB，在 H100（{bw:.2f} TB/s）上耗时 {step_ms:.1f} ms。显存带宽利用率（MBU）是多少？"),
             ("Bytes over time, over peak bandwidth.", "字节数除以时间，再除以峰值带宽。"),
             ("{read_gb:.1f} GB / {step_ms:.1f} ms / {bw:.2f} TB/s = **{mbu:.1%}**.", "{read_gb:.1f} GB / {step_ms:.1f} ms / {bw:.2f} TB/s = **{mbu:.1%}**。"),
             valid=lambda v: v["mbu"] <= 0.9),   # a decode step never streams at the peak

        _mc("rv_ch6_q5", KEY, "ch6-ridge-side", "interview",
            ("Roofline says max(compute time, memory time); a measured kernel takes close to their sum. What does that mean?",
             "屋顶线模型给出 max(计算时间, 访存时间)；实测 kernel 的耗时接近两者之和。这说明什么？"),
            (("The GPU is throttling", "GPU 在降频",
              "That a slower clock explains it: throttling stretches the compute time, but the time would still be the "
              "larger of the two, not their sum.", "以为是降频：降频会拉长计算时间，但耗时仍是两者中较大的那个，而不是两者之和。"),
             ("Compute and memory traffic do not overlap", "计算和访存没有重叠"),
             ("The kernel is compute-bound", "这个 kernel 受算力限制",
              "That near the sum means compute-bound: a compute-bound kernel takes about its compute time, the max; the sum "
              "says loads and arithmetic wait for each other.", "以为接近两者之和就是受算力限制：受算力限制的 kernel 耗时约等于计算时间，也就是 max；接近求和说明加载和计算在互相等待。")), 1,
            ("max assumes perfect overlap, the sum none: a kernel near the sum serialises its loads and its arithmetic.",
             "max 假设两者完全重叠，求和假设完全不重叠：耗时接近两者之和的 kernel，是把加载和计算串行执行了。"),
            ("Which assumption separates max from sum?", "max 和求和的区别在于哪个假设？")),

        _mc("rv_ch6_q6", KEY, "ch6-collectives", "self-check",
            ("Why is tensor parallelism usually kept inside one NVLink domain?", "为什么张量并行通常限制在一个 NVLink 域内？"),
            (("NCCL cannot cross nodes", "NCCL 不能跨节点",
              "That the library is the limit: NCCL runs over InfiniBand and Ethernet too; the limit is the bandwidth of "
              "those links.", "以为是通信库的限制：NCCL 也能跑在 InfiniBand 和以太网上；限制在于这些链路的带宽。"),
             ("It needs the most memory", "它需要的显存最多",
              "That tensor parallelism costs memory: it splits the weights and saves memory per GPU; what ties it to "
              "NVLink is its communication.", "以为张量并行费显存：它把权重切开，反而省了每块 GPU 的显存；把它绑在 NVLink 上的是通信。"),
             ("It communicates every layer, so it needs the fastest links", "它每一层都要通信，需要最快的链路")), 2,
            ("Tensor parallelism all-reduces activations in every layer, on the critical path: the next matmul waits for "
             "them. On NVLink they are short enough to afford; over slower network links the same bytes take several times "
             "longer, and every layer pays.",
             "张量并行每一层都要对激活做 all-reduce，而且在关键路径上：下一个矩阵乘要等它做完。在 NVLink 上这些通信足够短，付得起；"
             "换成更慢的网络链路，同样的字节要多花好几倍时间，而且每一层都要付。"),
            ("How often does each kind of parallelism talk?", "每种并行方式多久通信一次？")),
    ]
