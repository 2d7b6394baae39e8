"""Chapter 6's questions: the ridge side, MFU, MBU and collectives (06_performance).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
import math

from .. import collectives, models, ops, planner, roofline, sharding, units, utilization
from ..exercises import Answer, Param
from .core import Question, _mc, _num, common

FILE = "06_performance"   # the chapter these questions test: its file in _toc.yml
KEY = "ch6"   # in the ids of its questions (rv_ch6_q1) and the review's label for them (rv-ch6)
SECONDS_PER_DAY = 24 * 60 * 60   # a training time in days


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
             ("The kernel is compute-bound", "这个 kernel 是算力受限的",
              "That near the sum means compute-bound: a compute-bound kernel takes about its compute time, the max; the sum "
              "says loads and arithmetic wait for each other.", "以为接近两者之和就是算力受限：算力受限的 kernel 耗时约等于计算时间，也就是 max；接近求和说明加载和计算在互相等待。")), 1,
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

        _num("rv_ch6_q7", KEY, "ch6-mfu", "interview",
             {"params_b": Param(8, "billion parameters", 1, 400, integer=True), "tokens_t": Param(15, "T tokens", 1, 30, integer=True),
              "gpus": Param(1024, "GPUs", 64, 9999, integer=True), "peak": Param(c.h100_peak, "TFLOP/s", scale=1e12),
              "mfu": Param(0.4, "fraction", 0.2, 0.6)},
             lambda params_b, tokens_t, gpus, peak, mfu: {
                 "per_token": Answer(utilization.train_flops_per_token(params_b * 1e9, attention=False) / 1e9, "GFLOP"),
                 "days": Answer(utilization.training_time_s(tokens_t * 1e12, utilization.train_flops_per_token(
                     params_b * 1e9, attention=False), gpus, peak, mfu) / SECONDS_PER_DAY, "days")},
             "days",
             ("How many days does it take to train a {params_b:.0f}B-parameter model on {tokens_t:.0f}T tokens with {gpus:,.0f} "
              "GPUs of {peak:,.0f} TFLOP/s dense BF16 each, at {mfu:.0%} MFU? Count 6N FLOP per token (6ND in all).",
              "用 {gpus:,.0f} 块 GPU（每块稠密 BF16 {peak:,.0f} TFLOP/s）、以 {mfu:.0%} 的 MFU，在 {tokens_t:.0f}T 个 token 上训练一个 "
              "{params_b:.0f}B 参数的模型要多少天？每个 token 按 6N 次浮点运算计（总共 6ND）。"),
             ("Total FLOP over the FLOP/s the GPUs achieve: GPUs × peak × MFU.", "总运算量除以实际算力：GPU 数 × 峰值 × MFU。"),
             ("Six FLOP × {params_b:.0f}B parameters = {per_token:.0f} GFLOP per token; × {tokens_t:.0f}T tokens / ({gpus:,.0f} × {peak:,.0f} TFLOP/s "
              "× {mfu:.0%}) = **{days:.1f} days**.",
              "六次运算 × {params_b:.0f}B 个参数 = 每个 token {per_token:.0f} GFLOP；× {tokens_t:.0f}T 个 token / ({gpus:,.0f} × {peak:,.0f} TFLOP/s "
              "× {mfu:.0%}) = **{days:.1f} 天**。"),
             valid=lambda v: 0.1 <= v["days"] <= 1000),

        _num("rv_ch6_q8", KEY, "ch6-collectives", "interview",
             {"d_ff": Param(models.LLAMA3_70B.d_ff, ""), "peak": Param(c.h100_peak, "TFLOP/s", scale=1e12),
              "link": Param(450e9, "GB/s", 100e9, 900e9, scale=1e9), "mem_gb": Param(80, "GB", 40, 192, integer=True),
              "ctx": Param(4096, "tokens")},
             lambda d_ff, peak, link, mem_gb, ctx: {
                 "nmax": Answer(sharding.tp_max_degree(int(d_ff), peak, link), "GPUs"),
                 "nmin": Answer(planner.gpus_needed(models.LLAMA3_70B, mem_gb * units.GB, context=ctx).gpus, "GPUs", rel_tol=0)},
             "nmax",
             ("Llama-3-70B in BF16 (FFN width {d_ff:,.0f}) serves requests of {ctx:,.0f} tokens on GPUs of {mem_gb:.0f} GB, each "
              "{peak:,.0f} TFLOP/s dense BF16, linked by NVLink at {link:.0f} GB/s per direction. Up to what tensor-parallel "
              "degree does a sharded FFN matmul still hide its all-gather?",
              "Llama-3-70B 以 BF16 部署（FFN 宽度 {d_ff:,.0f}），服务 {ctx:,.0f} token 的请求，GPU 每块 {mem_gb:.0f} GB、稠密 BF16 "
              "{peak:,.0f} TFLOP/s，NVLink 单向 {link:.0f} GB/s。张量并行度最高到多少，切分后的 FFN 矩阵乘仍能掩盖它的 all-gather？"),
             ("Per device: $2BDF/n$ FLOP against $2BD$ bytes received; compute hides the transfer while $n < F W / C$ (link $W$, "
              "peak $C$).", "每块 GPU：计算 $2BDF/n$ 次，接收 $2BD$ 字节；只要 $n < F W / C$（链路带宽 $W$，峰值 $C$），计算就能掩盖传输。"),
             ("{d_ff:,.0f} × {link:.0f} GB/s / {peak:,.0f} TFLOP/s = **{nmax:.1f}**. Memory sets the floor: weights and one "
              "request's KV cache need {nmin:.0f} GPUs (chapter 4's planner); a degree between the two fits and still hides its "
              "communication.",
              "{d_ff:,.0f} × {link:.0f} GB/s / {peak:,.0f} TFLOP/s = **{nmax:.1f}**。显存给出下限：权重加一个请求的 KV cache "
              "需要 {nmin:.0f} 块 GPU（第 4 章的规划器）；介于两者之间的并行度既放得下，又能掩盖通信。"),
             valid=lambda v: v["nmax"] >= 2),

        _num("rv_ch6_q9", KEY, "ch6-collectives", "self-check",
             {"peak": Param(c.h100_peak, "TFLOP/s", scale=1e12), "nics": Param(8, "NICs", 4, 8, integer=True),
              "gbit": Param(400, "Gb/s", 200, 800, integer=True)},
             lambda peak, nics, gbit: {
                 "egress": Answer(nics * units.bits_to_bytes(gbit * 1e9) / units.GB, "GB/s"),
                 "batch": Answer(sharding.dp_min_batch_per_device(peak, units.bits_to_bytes(gbit * 1e9), links=nics), "tokens")},
             "batch",
             ("Data-parallel training across nodes: each GPU does {peak:,.0f} TFLOP/s dense BF16 and each node sends its "
              "gradients over {nics:.0f} NICs of {gbit:.0f} Gb/s. Above how many tokens per GPU per step does the backward pass "
              "(four FLOP per parameter per token) hide the BF16 gradient all-reduce?",
              "跨节点做数据并行训练：每块 GPU 稠密 BF16 {peak:,.0f} TFLOP/s，每个节点通过 {nics:.0f} 块 {gbit:.0f} Gb/s 的网卡发送梯度。"
              "每块 GPU 每步多少个 token 以上，反向传播（每个参数每个 token 四次运算）才能掩盖 BF16 梯度的 all-reduce？"),
             ("The all-reduce goes out through all of the node's NICs at once; with four FLOP against about four bytes per parameter, "
              "the threshold is peak over egress.",
              "all-reduce 同时从节点的所有网卡发出；每个参数四次运算对约四个字节，阈值就是峰值除以出口带宽。"),
             ("Egress {nics:.0f} × {gbit:.0f} Gb/s = {egress:.0f} GB/s; {peak:,.0f} TFLOP/s / {egress:.0f} GB/s = "
              "**{batch:,.0f} tokens**.",
              "出口带宽 {nics:.0f} × {gbit:.0f} Gb/s = {egress:.0f} GB/s；{peak:,.0f} TFLOP/s / {egress:.0f} GB/s = **{batch:,.0f}** 个 token。")),

        _num("rv_ch6_q10", KEY, "ch6-collectives", "self-check",
             {"ranks": Param(8, "GPUs", 2, 72, integer=True), "base_us": Param(6.6e-6, "µs", 2e-6, 10e-6, scale=1e-6),
              "hop_us": Param(0.6e-6, "µs", 0.2e-6, 1.0e-6, scale=1e-6)},
             lambda ranks, base_us, hop_us: {
                 "steps": Answer(collectives.latency_steps("all_reduce", ranks), "steps", rel_tol=0),
                 "us": Answer(collectives.nccl_ring_latency_s("all_reduce", ranks, base_us, hop_us) / units.US, "µs")},
             "us",
             ("NCCL prices a ring all-reduce's fixed cost as a base latency of {base_us:.1f} µs plus {hop_us:.2f} µs per step. "
              "What is the fixed cost over {ranks:.0f} GPUs, in µs?",
              "NCCL 把环形 all-reduce 的固定开销估为 {base_us:.1f} µs 的基础延迟，加上每步 {hop_us:.2f} µs。{ranks:.0f} 块 GPU 上的固定开销是多少微秒？"),
             ("A ring all-reduce makes two passes of $n - 1$ steps each: a reduce-scatter, then an all-gather.",
              "环形 all-reduce 走两轮、每轮 $n - 1$ 步：先 reduce-scatter，再 all-gather。"),
             ("{base_us:.1f} + {steps:.0f} × {hop_us:.2f} = **{us:.1f} µs**: at small messages this, not the bandwidth, sets the time.",
              "{base_us:.1f} + {steps:.0f} × {hop_us:.2f} = **{us:.1f} µs**：消息小的时候，决定耗时的是它，而不是带宽。")),

        _num("rv_ch6_q11", KEY, "ch6-collectives", "interview",
             {"rate": Param(20, "requests/s", 2, 60, integer=True), "service_ms": Param(48.7e-3, "ms", 10e-3, 100e-3, scale=1e-3),
              "gpus": Param(2, "GPUs", 2, 4, integer=True)},
             lambda rate, service_ms, gpus: {
                 "rho": Answer(rate * service_ms / gpus, "fraction"),
                 "wait": Answer(sharding.md1_wait_s(rate, service_ms, gpus) / units.MS if rate * service_ms < gpus
                               else math.inf, "ms")},      # an overloaded draw: impossible, drawn again
             "wait",
             ("Prompts arrive at random (Poisson) at {rate:.0f} per second and are spread at random over {gpus:.0f} prefill GPUs; "
              "each prefill takes {service_ms:.1f} ms. How long does a prompt wait in queue on average, in ms?",
              "提示词随机（泊松）到达，每秒 {rate:.0f} 个，随机分到 {gpus:.0f} 块预填充 GPU 上；每次预填充耗时 {service_ms:.1f} ms。"
              "一个提示词平均要排队多少毫秒？"),
             ("Each GPU is an $M/D/1$ queue: load $\\rho = \\lambda s / n$, wait half of $\\rho s / (1 - \\rho)$.",
              "每块 GPU 是一个 $M/D/1$ 队列：负载 $\\rho = \\lambda s / n$，等待为 $\\rho s / (1 - \\rho)$ 的一半。"),
             ("ρ = {rho:.1%}; half of $\\rho / (1 - \\rho)$ times {service_ms:.1f} ms = **{wait:.1f} ms**. As ρ nears one the wait "
              "grows without bound, though the GPUs keep up.",
              "ρ = {rho:.1%}；代入提示里的排队公式，服务时间 {service_ms:.1f} ms，等待 **{wait:.1f} ms**。ρ 趋近于一时，即使 GPU 跟得上，"
              "等待也会无限增长。"),
             flip=True, valid=lambda v: 0.1 <= v["rho"] <= 0.95),
    ]
