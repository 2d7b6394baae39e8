"""Chapter 2's questions: caches, pipelines, SIMD, NUMA and kernel launches (02_cpu).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
from .. import cpu, framework, units
from ..exercises import Answer, Param
from .core import Question, _mc, _num

FILE = "02_cpu"   # the chapter these questions test: its file in _toc.yml
KEY = "ch2"   # in the ids of its questions (rv_ch2_q1) and the review's label for them (rv-ch2)


def questions() -> list[Question]:
    """The questions that test 02_cpu (reads the registry)."""
    return [
        _num("rv_ch2_q1", KEY, "ch2-caches", "self-check",
             {"hit": Param(4, "cycles", 2, 10, integer=True), "miss": Param(0.1, "fraction", 0.01, 0.5),
              "penalty": Param(200, "cycles", 50, 400, integer=True)},
             lambda hit, miss, penalty: {"amat": Answer(cpu.amat(hit, miss, penalty), "cycles")},
             "amat",
             ("A cache hits in {hit:.0f} cycles, misses {miss:.0%} of the time, and a miss costs {penalty:.0f} cycles more. "
              "What is the average memory access time, in cycles?",
              "缓存命中需要 {hit:.0f} 个周期，缺失率 {miss:.0%}，每次缺失多花 {penalty:.0f} 个周期。平均访存时间是多少个周期？"),
             ("Hit time plus miss rate times miss penalty.", "命中时间加上缺失率乘以缺失代价。"),
             ("{hit:.0f} + {miss:.2f} × {penalty:.0f} = **{amat:.1f} cycles**.", "{hit:.0f} + {miss:.2f} × {penalty:.0f} = **{amat:.1f} 个周期**。")),

        _num("rv_ch2_q2", KEY, "ch2-pipelines", "interview",
             {"cpi": Param(0.5, "cycles per instruction", 0.25, 2), "f": Param(0.2, "fraction of branches", 0.05, 0.3),
              "pen": Param(15, "cycles", 5, 30, integer=True)},
             lambda cpi, f, pen: {"rate": Answer(cpu.breakeven_mispredict_rate(cpi, f, pen), "fraction")},
             "rate",
             ("A core runs at {cpi:.2f} cycles per instruction without stalls; {f:.0%} of "
              "instructions are branches and a mispredict costs {pen:.0f} cycles. At what mispredict rate do branch stalls "
              "cost as much as all other work?",
              "一个核心不停顿时每条指令要 {cpi:.2f} 个周期；{f:.0%} 的指令是分支，每次预测失败多花 {pen:.0f} 个周期。预测失败率到多少时，分支停顿的开销与其余所有工作相当？"),
             ("Set f × rate × penalty equal to the base CPI.", "令分支比例 × 失败率 × 代价等于基础 CPI。"),
             ("{cpi:.2f} / ({f:.2f} × {pen:.0f}) = **{rate:.1%}**.", "{cpi:.2f} / ({f:.2f} × {pen:.0f}) = **{rate:.1%}**。"),
             flip=True, valid=lambda v: v["rate"] <= 0.5),   # worse than a coin is no predictor

        _num("rv_ch2_q3", KEY, "ch2-simd", "self-check",
             {"bits": Param(4, "bits", 1, 4, integer=True, scale=1 / 128),   # drawn in 128-bit steps; shown in bits
              "units": Param(2, "FMA units", 2, 4, integer=True),
              "cores": Param(56, "cores", 8, 128, integer=True), "ghz": Param(2.0e9, "GHz", 1e9, 4e9, scale=1e9),
              "el": Param(32, "bits")},
             lambda bits, units, cores, ghz, el: {
                 "per_cycle": Answer(cpu.simd_flop_per_cycle(int(bits) * 128, int(el), units), "FLOP", rel_tol=0),
                 "tflops": Answer(cpu.cores_peak_flop_s(cpu.simd_flop_per_cycle(int(bits) * 128, int(el), units), cores, ghz) / 1e12,
                                  "TFLOP/s")},
             "tflops",
             ("A CPU has {cores:.0f} cores at {ghz:.1f} GHz, each with {units:.0f} FMA units of {bits:.0f} bits. What is its FP32 "
              "peak in TFLOP/s?",
              "一颗 CPU 有 {cores:.0f} 个核心，频率 {ghz:.1f} GHz，每个核心 {units:.0f} 个 {bits:.0f} 位的 FMA 单元。FP32 峰值是多少 TFLOP/s？"),
             ("Lanes = vector bits / {el:.0f} bits per FP32 value; an FMA counts two FLOP.", "lane 数 = 向量位宽 / 每个 FP32 值的 {el:.0f} 位；一次 FMA 算两次浮点运算。"),
             ("{per_cycle:.0f} FLOP per cycle per core × {cores:.0f} × {ghz:.1f} GHz = **{tflops:.2f} TFLOP/s**.",
              "每核每周期 {per_cycle:.0f} 次 × {cores:.0f} 核 × {ghz:.1f} GHz = **{tflops:.2f} TFLOP/s**。")),

        _num("rv_ch2_q4", KEY, "ch2-numa", "self-check",
             {"local": Param(100e-9, "ns", 60e-9, 150e-9, scale=1e-9), "ratio": Param(1.7, "×", 1.2, 2.5),
              "remote": Param(0.3, "fraction of accesses", 0, 1)},
             lambda local, ratio, remote: {"ns": Answer(cpu.numa_latency_s(local, ratio, remote) * 1e9, "ns"),
                                           "local_share": Answer(1 - remote, "fraction")},
             "ns",
             ("Local DRAM takes {local:.0f} ns, the other socket's memory {ratio:.1f}× as long, and {remote:.0%} of accesses "
              "are remote. What is the average latency in ns?",
              "访问本地内存的延迟是 {local:.0f} ns，访问另一路 CPU 的内存要花本地的 {ratio:.1f} 倍，{remote:.0%} 的访问是远程访问。平均延迟是多少纳秒？"),
             ("Weight the two latencies by their shares.", "按两种访问的比例对延迟加权平均。"),
             ("{local:.0f} × {local_share:.2f} + {local:.0f} × {ratio:.1f} × {remote:.2f} = **{ns:.1f} ns**.",
              "{local:.0f} × {local_share:.2f} + {local:.0f} × {ratio:.1f} × {remote:.2f} = **{ns:.1f} ns**。")),

        _num("rv_ch2_q5", KEY, "ch2-launch", "interview",
             {"kernels": Param(300, "kernels", 50, 2000, integer=True), "us": Param(5e-6, "µs", 1e-6, 20e-6, scale=1e-6),
              "gpu_ms": Param(2e-3, "ms", 0.2e-3, 20e-3, scale=1e-3)},
             lambda kernels, us, gpu_ms: {"ratio": Answer(framework.launch_bound_ratio(kernels, us, gpu_ms), "×"),
                                          "cpu_ms": Answer(framework.eager_cpu_s(kernels, us) / units.MS, "ms")},
             "ratio",
             ("A decode step launches {kernels:.0f} kernels at {us:.1f} µs each and the GPU works "
              "{gpu_ms:.2f} ms. What is CPU issue time over GPU time (above one, the step is launch-bound)?",
              "一步 decode 发射 {kernels:.0f} 个 kernel，每次发射 {us:.1f} µs，GPU 工作 {gpu_ms:.2f} ms。CPU 发射时间与 GPU 时间之比是多少（大于一，这一步就受发射限制）？"),
             ("Kernels × launch cost, over GPU time.", "kernel 数 × 发射开销，再除以 GPU 时间。"),
             ("{kernels:.0f} × {us:.1f} µs = {cpu_ms:.2f} ms of CPU time; / {gpu_ms:.2f} ms = **{ratio:.2f}×**.",
              "{kernels:.0f} × {us:.1f} µs = {cpu_ms:.2f} ms 的 CPU 时间；除以 {gpu_ms:.2f} ms = **{ratio:.2f}×**。"),
             flip=True),

        _mc("rv_ch2_q6", KEY, "ch2-launch", "interview",
            ("What does a CUDA graph save?", "CUDA Graph 省掉的是什么？"),
            (("HBM traffic", "HBM 访存量",
              "That a graph fuses kernels: each kernel still reads and writes the same bytes; fusion, a compiler's work, "
              "is what saves traffic.", "以为 graph 会融合 kernel：每个 kernel 读写的字节一点没少；省访存靠的是编译器做的融合。"),
             ("Per-kernel CPU launch cost", "每个 kernel 的 CPU 发射开销"),
             ("The GPU's execution time of each kernel", "GPU 执行每个 kernel 的时间",
              "That the kernels run faster: they run the same code for the same time; what goes is the CPU's work to "
              "issue each one, and the gaps it leaves.", "以为 kernel 本身跑得更快：代码和耗时都不变；省掉的是 CPU 逐个发射的工作和由此留下的空档。")), 1,
            ("A graph replays a recorded sequence of kernels with one launch; the kernels do the same work and move the same "
             "bytes.", "graph 用一次发射重放录好的一串 kernel；kernel 本身做的计算和搬的字节都不变。"),
            ("What is recorded once and replayed?", "录一次、重放多次的是什么？")),

        _num("rv_ch2_q7", KEY, "ch2-pipelines", "self-check",
             {"cpi": Param(0.5, "cycles", 0.3, 1.5), "f": Param(0.2, "fraction", 0.1, 0.3), "m": Param(0.05, "fraction", 0.01, 0.2),
              "pen": Param(15, "cycles", 10, 25, integer=True), "ghz": Param(3.0e9, "GHz", 2e9, 4e9, scale=1e9)},
             lambda cpi, f, m, pen, ghz: {"cpi_b": Answer(cpu.cpi_with_branches(cpi, f, m, pen), "cycles"),
                                          "ns": Answer(cpu.time_per_instruction_s(cpu.cpi_with_branches(cpi, f, m, pen), ghz) * 1e9, "ns")},
             "ns",
             ("A core at {ghz:.1f} GHz has a base CPI of {cpi:.2f}; {f:.0%} of instructions are branches, {m:.0%} of them are "
              "mispredicted and each misprediction costs {pen:.0f} cycles. What is the average time per instruction, in ns?",
              "一个 {ghz:.1f} GHz 的核心，基础 CPI 为 {cpi:.2f}；{f:.0%} 的指令是分支，其中 {m:.0%} 预测错误，每次预测错误损失 {pen:.0f} 个周期。"
              "平均每条指令要多少纳秒？"),
             ("First the CPI with the branch stalls, then cycles over the clock.", "先算计入分支停顿后的 CPI，再用周期数除以时钟频率。"),
             ("CPI = {cpi:.2f} + {f:.0%} × {m:.0%} × {pen:.0f} = {cpi_b:.3f}; {cpi_b:.3f} / {ghz:.1f} GHz = **{ns:.3f} ns**.",
              "CPI = {cpi:.2f} + {f:.0%} × {m:.0%} × {pen:.0f} = {cpi_b:.3f}；{cpi_b:.3f} / {ghz:.1f} GHz = **{ns:.3f} ns**。")),

        _mc("rv_ch2_q8", KEY, "ch2-numa", "interview",
            ("A data loader on a two-socket server is slower than on one socket, though it uses twice the cores. What is the "
             "likely cause?",
             "在双路服务器上，数据加载程序用了两倍的核心，却比在单路上还慢。最可能的原因是什么？"),
            (("Its threads read memory attached to the other socket", "它的线程在读另一个插槽上挂的内存"),
             ("The second socket runs at a lower clock", "第二个插槽的时钟频率更低",
              "That sockets differ in speed: both run the same cores at the same clock; what differs is how far each "
              "thread is from the memory it reads.", "以为两个插槽速度不同：两边是同样的核心、同样的频率；不同的是线程离它读的内存有多远。"),
             ("Two sockets share one L1 cache", "两个插槽共用一个 L1 缓存",
              "That caches are shared across sockets: L1 and L2 are per core and L3 per socket; what crosses the sockets is "
              "the interconnect to remote memory.", "以为缓存跨插槽共享：L1、L2 属于每个核心，L3 属于每个插槽；跨插槽的是访问远端内存的互连。")), 0,
            ("A remote access crosses the socket interconnect and costs more than a local one; pinning threads and their "
             "memory to one NUMA node removes it.",
             "远端访问要经过插槽间互连，比本地访问贵；把线程和它的内存绑到同一个 NUMA 节点上就能消除。"),
            ("Where is each thread's memory?", "每个线程的内存在哪里？")),
    ]
