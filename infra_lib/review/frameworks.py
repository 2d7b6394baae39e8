"""Chapter 7's questions: training memory, compilers, eager mode and engines (07_frameworks).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
from .. import engines, framework, parallelism, training_memory, units
from ..exercises import Answer, Param
from .core import Question, _mc, _num

FILE = "07_frameworks"   # the chapter these questions test: its file in _toc.yml
KEY = "ch7"   # in the ids of its questions (rv_ch7_q1) and the review's label for them (rv-ch7)


def questions() -> list[Question]:
    """The questions that test 07_frameworks (reads the registry)."""
    return [
        _num("rv_ch7_q1", KEY, "ch7-training", "interview",
             {"params_b": Param(7, "billion parameters", 1, 70, integer=True)},
             lambda params_b: {"gb": Answer(training_memory.model_state_B(params_b * 1e9, 0, 1) / units.GB, "GB"),
                               "bpp": Answer(training_memory.bytes_per_param(0, 1), "B")},
             "gb",
             ("Mixed-precision training with Adam keeps weights, gradients and optimizer state. How many GB does a {params_b:.0f}B "
              "model need for that state on each GPU, without sharding?",
              "用 Adam 做混合精度训练要保存权重、梯度和优化器状态。一个 {params_b:.0f}B 的模型在不分片时，每块 GPU 上这些状态要多少 GB？"),
             ("Count bytes per parameter: BF16 weights and gradients, then FP32 master weights and two Adam moments.",
              "按每个参数的字节数算：BF16 的权重和梯度，再加 FP32 主权重和 Adam 的两个矩。"),
             ("{bpp:.0f} bytes per parameter × {params_b:.0f}B = **{gb:,.0f} GB**.", "每个参数 {bpp:.0f} 字节 × {params_b:.0f}B = **{gb:,.0f} GB**。")),

        _num("rv_ch7_q2", KEY, "ch7-training", "self-check",
             {"params_b": Param(70, "billion parameters", 7, 400, integer=True), "mem_gb": Param(80, "GB", 40, 192, integer=True)},
             lambda params_b, mem_gb: {"f": Answer(training_memory.min_shard_degree(params_b * 1e9, mem_gb * units.GB), "GPUs", rel_tol=0),
                                       "bpp": Answer(training_memory.bytes_per_param(0, 1), "B")},
             "f",
             ("With fully sharded data parallelism (weights, gradients and optimizer state all sharded), what is the smallest "
              "power-of-two number of {mem_gb:.0f} GB GPUs whose memory holds the state of a {params_b:.0f}B model?",
              "用全分片数据并行（权重、梯度、优化器状态都分片），最少要多少块 {mem_gb:.0f} GB 的 GPU（块数取二的整数次幂）才能放下一个 {params_b:.0f}B 模型的训练状态？"),
             ("{bpp:.0f} bytes per parameter, divided by the degree, must fit.", "每个参数 {bpp:.0f} 字节，除以分片数后要放得下。"),
             ("**{f:.0f} GPUs**.", "**{f:.0f} 块**。")),

        _num("rv_ch7_q3", KEY, "ch7-compilers", "interview",
             {"ops_n": Param(4, "operators", 2, 10, integer=True)},
             lambda ops_n: {"saving": Answer(framework.fusion_saving([1] * ops_n, 1), "fraction")},
             "saving",
             ("A chain of {ops_n:.0f} elementwise operators, each reading one tensor and writing one, is fused into one kernel "
              "that reads the input once and writes the result once. What share of the memory traffic disappears?",
              "一串 {ops_n:.0f} 个逐元素算子，每个读一个张量、写一个张量；把它们融合成一个 kernel 后，只读一次输入、写一次结果。访存流量减少了多大比例？"),
             ("Unfused: each operator reads and writes. Fused: one read, one write.", "不融合时每个算子各一读一写；融合后总共一读一写。"),
             ("**{saving:.0%}** of the bytes are saved.", "省掉了 **{saving:.0%}** 的字节。")),

        _num("rv_ch7_q4", KEY, "ch7-eager", "self-check",
             {"gpu_ms": Param(1e-3, "ms", 0.1e-3, 10e-3, scale=1e-3), "us": Param(10e-6, "µs", 2e-6, 30e-6, scale=1e-6)},
             lambda gpu_ms, us: {"n": Answer(framework.ops_hidden(gpu_ms, us), "operators")},
             "n",
             ("The GPU works {gpu_ms:.2f} ms per step and eager PyTorch costs {us:.0f} µs of CPU "
              "per operator. Up to how many operators per step does the CPU keep up?",
              "GPU 每步工作 {gpu_ms:.2f} ms，eager 模式的 PyTorch 每个算子花 {us:.0f} µs 的 CPU 时间。每步最多能有多少个算子，CPU 才跟得上？"),
             ("GPU time over CPU time per operator.", "GPU 时间除以每个算子的 CPU 时间。"),
             ("**{n:,.0f} operators**; beyond that the step is launch-bound and a CUDA graph or compilation pays off.",
              "**{n:,.0f} 个算子**；超过这个数，这一步就受发射限制，CUDA Graph 或编译才划算。"),
             flip=True),

        _num("rv_ch7_q5", KEY, "ch7-engines", "interview",
             {"a": Param(100, "tokens", 10, 500, integer=True), "b": Param(20, "tokens", 10, 500, integer=True),
              "block": Param(16, "tokens", 8, 64, integer=True)},
             lambda a, b, block: {"waste": Answer(1 - engines.kv_paged([a, b], block).used_tokens / engines.kv_paged([a, b], block).reserved_tokens, "fraction"),
                                  "reserved": Answer(engines.kv_paged([a, b], block).reserved_tokens, "tokens")},
             "waste",
             ("Two sequences of {a:.0f} and {b:.0f} tokens keep their KV cache in pages of {block:.0f} tokens. What share of the "
              "reserved KV slots is unused?",
              "两条序列分别有 {a:.0f} 和 {b:.0f} 个 token，KV cache 按每页 {block:.0f} 个 token 分配。预留的 KV 槽位中有多大比例没用上？"),
             ("Each sequence rounds up to whole pages.", "每条序列向上取整到整页。"),
             ("Reserved {reserved:.0f} token slots; **{waste:.1%}** unused, only in each sequence's last page.",
              "预留 {reserved:.0f} 个 token 槽位；**{waste:.1%}** 没用上，都在每条序列的最后一页里。")),

        _mc("rv_ch7_q6", KEY, "ch7-engines", "self-check",
            ("What does continuous batching change compared with static batching?", "与静态批处理相比，连续批处理改变了什么？"),
            (("A finished request's slot is refilled at the next step", "请求一结束，下一步就把它的槽位填上新请求"),
             ("Requests are padded to the same length", "把请求补齐到相同长度",
              "That it is padding: padding a batch to its longest request is the static habit that continuous batching "
              "avoids.", "以为连续批处理就是补齐：把一批请求补到最长的那条，正是连续批处理要避免的静态做法。"),
             ("Each request gets its own decode step", "每个请求有自己的 decode 步",
              "That it stops batching: every step still serves all running requests with one read of the weights; only "
              "who is in the batch changes, step by step.", "以为它不再组 batch：每一步仍用一次权重读取服务所有在跑的请求；变的只是 batch 的成员，每步都可以换。")), 0,
            ("Static batching waits for the longest request of a batch; continuous batching schedules per iteration, so slots "
             "never idle while requests wait.", "静态批处理要等 batch 里最长的请求结束；连续批处理按迭代调度，只要还有请求在排队，槽位就不会空着。"),
            ("Who waits for whom in a static batch?", "静态批处理里谁在等谁？")),

        _num("rv_ch7_q7", KEY, "ch7-training", "interview",
             {"params_b": Param(7.5, "billion parameters", 1, 70), "stage": Param(2, "", 1, 3, integer=True),
              "gpus": Param(64, "GPUs", 8, 512, integer=True)},
             lambda params_b, stage, gpus: {
                 "bpp": Answer(training_memory.bytes_per_param(stage, gpus), "bytes"),
                 "ddp_gb": Answer(training_memory.model_state_B(params_b * 1e9) / units.GB, "GB"),
                 "gb": Answer(training_memory.model_state_B(params_b * 1e9, stage, gpus) / units.GB, "GB")},
             "gb",
             ("A {params_b:.1f}B-parameter model trains in mixed precision with Adam (two bytes of weights, two of gradients, twelve of optimizer state per parameter) under ZeRO "
              "stage {stage:.0f} over {gpus:.0f} GPUs. How many GB of weights, gradients and optimizer state does each GPU hold?",
              "一个 {params_b:.1f}B 参数的模型用 Adam 做混合精度训练（每个参数权重两字节、梯度两字节、优化器状态十二字节），在 {gpus:.0f} 块 GPU 上使用 ZeRO 第 "
              "{stage:.0f} 阶段。每块 GPU 上的权重、梯度和优化器状态共多少 GB？"),
             ("Stage one shards the optimizer state, stage two also the gradients, stage three the weights too.",
              "第一阶段切分优化器状态，第二阶段再切梯度，第三阶段连权重也切。"),
             ("{bpp:.3f} bytes per parameter × {params_b:.1f}B = **{gb:.1f} GB**, against {ddp_gb:.0f} GB per GPU without ZeRO.",
              "每个参数 {bpp:.3f} 字节 × {params_b:.1f}B = **{gb:.1f} GB**，不用 ZeRO 时每块 GPU 要 {ddp_gb:.0f} GB。")),

        _num("rv_ch7_q8", KEY, "ch7-training", "self-check",
             {"tokens": Param(4096, "tokens", 1024, 9999, integer=True), "hidden": Param(8192, "", 2048, 8192, integer=True),
              "layers": Param(80, "layers", 8, 128, integer=True), "ranks": Param(8, "GPUs", 2, 8, integer=True),
              "bw": Param(450e9, "GB/s", 100e9, 900e9, scale=1e9)},
             lambda tokens, hidden, layers, ranks, bw: {
                 "act_mb": Answer(tokens * hidden * 2 / units.MB, "MB"),
                 "sent_gb": Answer(training_memory.tensor_parallel_comm(tokens, hidden, layers, ranks, bw).sent_B / units.GB, "GB"),
                 "ms": Answer(training_memory.tensor_parallel_comm(tokens, hidden, layers, ranks, bw).time_s / units.MS, "ms")},
             "ms",
             ("Megatron tensor parallelism over {ranks:.0f} GPUs trains {tokens:,.0f} tokens per step through {layers:.0f} layers of "
              "width {hidden:,.0f}, activations in BF16, on links of {bw:.0f} GB/s per direction. How long do its all-reduces take "
              "per step, in ms?",
              "在 {ranks:.0f} 块 GPU 上做 Megatron 张量并行，每步训练 {tokens:,.0f} 个 token，模型 {layers:.0f} 层、宽度 {hidden:,.0f}，"
              "激活为 BF16，链路单向 {bw:.0f} GB/s。每步的 all-reduce 共要多少毫秒？"),
             ("Four all-reduces per layer (two forward, two backward), each of tokens × width values; a ring all-reduce sends "
              "nearly twice the buffer.",
              "每层四次 all-reduce（前向两次、反向两次），每次是 token 数 × 宽度个值；环形 all-reduce 发送的字节接近缓冲区的两倍。"),
             ("Each all-reduce is {act_mb:.0f} MB; four per layer over {layers:.0f} layers send {sent_gb:.1f} GB per GPU: **{ms:,.0f} ms** per step "
              "at {bw:.0f} GB/s.",
              "每次 all-reduce {act_mb:.0f} MB；每层四次、共 {layers:.0f} 层，每块 GPU 发送 {sent_gb:.1f} GB：每步 **{ms:,.0f} ms**（{bw:.0f} GB/s）。")),

        _mc("rv_ch7_q9", KEY, "ch7-compilers", "interview",
            ("A model under torch.compile is no faster than in eager mode. What do you check first?",
             "一个模型用了 torch.compile，却不比 eager 模式快。首先该查什么？"),
            (("Whether the GPU's clock is lower under compilation", "编译后 GPU 的时钟是否更低",
              "That compilation changes the hardware's speed: the GPU runs the same clock; what changes is which kernels it "
              "is given.", "以为编译会改变硬件速度：GPU 的时钟不变；变的是交给它的 kernel。"),
             ("Whether the matmuls were rewritten in Triton", "矩阵乘是否被改写成 Triton",
              "That the compiler's gain is faster matmuls: Inductor leaves large matmuls to cuBLAS or templates; its gain is "
              "fusing the operations around them.", "以为编译器的收益来自更快的矩阵乘：Inductor 把大矩阵乘留给 cuBLAS 或模板；它的收益在于融合周围的算子。"),
             ("Its graph breaks and recompilations", "它的断图和重新编译")), 2,
            ("Each graph break runs the unsupported code in Python and starts a new graph, so fusion stops at it; a guard that "
             "fails (a new shape, a changed Python value) recompiles. Few graphs and stable guards are the precondition of a "
             "speed-up.",
             "每次断图都让不支持的代码回到 Python 里执行，再开一张新图，融合到此为止；守卫一旦失效（新的形状、变了的 Python 值）"
             "就会重新编译。图少、守卫稳定，才谈得上加速。"),
            ("What stops fusion, and what throws a compiled graph away?", "什么会让融合中断？什么会让编译好的图作废？")),

        _num("rv_ch7_q10", KEY, "ch7-pipeline", "interview",
             {"p": Param(8, "stages", 2, 32, integer=True), "m": Param(32, "microbatches", 1, 256, integer=True),
              "v": Param(2, "chunks per device", 2, 8, integer=True)},
             lambda p, m, v: {"bubble": Answer(parallelism.pipeline_bubble_fraction(p, m), "fraction"),
                              "bubble_v": Answer(parallelism.pipeline_bubble_fraction(p, m, v), "fraction")},
             "bubble",
             ("A pipeline of {p:.0f} stages runs {m:.0f} microbatches per step with the 1F1B schedule. What share of the "
              "step do the devices sit idle in the pipeline's fill and drain? (And with {v:.0f} model chunks per device interleaved?)",
              "一条 {p:.0f} 个阶段的流水线用 1F1B 调度，每步跑 {m:.0f} 个 micro-batch。灌满和排空让设备空闲的时间占一步的多大比例？（每块设备交错持有 {v:.0f} 个模型块时呢？）"),
             ("The fill and the drain cost $p - 1$ microbatch-times against $m$ of work.",
              "灌满和排空要 $p - 1$ 个 micro-batch 的时间，真正的活是 $m$ 个。"),
             ("$(p - 1)/(m + p - 1)$ = **{bubble:.1%}**; interleaving {v:.0f} chunks per device cuts it to {bubble_v:.1%}.",
              "$(p - 1)/(m + p - 1)$ = **{bubble:.1%}**；每块设备交错持有 {v:.0f} 个模型块时降到 {bubble_v:.1%}。")),

        _num("rv_ch7_q11", KEY, "ch7-engines", "interview",
             {"alpha": Param(0.7, "", 0.3, 0.95), "k": Param(4, "tokens", 2, 8, integer=True),
              "c": Param(0.05, "", 0.01, 0.3)},
             lambda alpha, k, c: {"speedup": Answer(engines.speculative_speedup(alpha, k, c), "×"),
                                  "tokens": Answer(engines.speculative_tokens_per_step(alpha, k), "tokens")},
             "speedup",
             ("Speculative decoding: a draft model proposes {k:.0f} tokens per step, the target accepts each with "
              "probability {alpha:.2f} independently, and a draft step costs {c:.2f} of a target step. What is the "
              "speed-up over plain decoding?",
              "投机解码：草稿模型每步提出 {k:.0f} 个 token，目标模型以 {alpha:.2f} 的概率独立接受每一个，草稿模型一步的代价是目标模型一步的 "
              "{c:.2f}。相对普通 decode 的加速比是多少？"),
             ("Expected tokens per step are $1 + \\alpha + \\dots + \\alpha^k$; a step costs $k$ draft steps and one target step.",
              "每步产出的 token 期望是 $1 + \\alpha + \\dots + \\alpha^k$；一步的代价是 $k$ 步草稿加一步目标模型。"),
             ("{tokens:.2f} tokens per step for a cost of $1 + kc$: a speed-up of **{speedup:.2f}×**.",
              "每步 {tokens:.2f} 个 token，代价 $1 + kc$：加速比 **{speedup:.2f}×**。")),

        _mc("rv_ch7_q12", KEY, "ch7-eager", "self-check",
            ("A chain of tiny kernels replayed from a CUDA graph costs about a microsecond per kernel, measured with CUDA "
             "events around the replay. Whose time is that?",
             "一串极小的 kernel 从 CUDA Graph 重放，用包住重放的 CUDA 事件测得每个 kernel 约一微秒。这是谁的时间？"),
            (("The GPU's own floor per kernel node: scheduling it and running it", "GPU 自己每个 kernel 节点的下限：调度它、再把它跑完"),
             ("The CPU's issue time per kernel, as in eager mode", "CPU 发射每个 kernel 的时间，和 eager 一样",
              "That a replay still issues each kernel from the CPU: the CPU makes one launch for the whole graph, so the "
              "events time the GPU.", "以为重放时 CPU 仍要逐个发射 kernel：整张图 CPU 只发射一次，所以事件量到的是 GPU。"),
             ("The PCIe transfer of each kernel's arguments", "每个 kernel 参数经 PCIe 传输的时间",
              "That arguments cross PCIe per replay: a captured graph keeps its kernels' arguments on the device.",
              "以为每次重放都要经 PCIe 传参数：录好的图把 kernel 的参数留在设备上。")), 0,
            ("With graphs the limit moves from the CPU to the GPU: a step with more tiny kernels than its GPU time "
             "divided by that floor is bound by the GPU's per-node cost.",
             "用了 Graph，上限就从 CPU 移到了 GPU：一步里的极小 kernel 多于 GPU 时间除以这个下限时，受的是 GPU 每个节点的开销。"),
            ("How many CPU launches does one replay take?", "一次重放 CPU 要发射几次？")),

        _mc("rv_ch7_q13", KEY, "ch7-compilers", "interview",
            ("A model under torch.compile (default settings) serves requests whose batch size changes every step, and passes "
             "each request's sampling temperature, a Python float, to the compiled function. It is fast at first and then "
             "slow, with no error. What is the likeliest cause?",
             "一个用默认设置做了 torch.compile 的模型在服务请求，批大小每一步都变，还把每个请求的采样温度（一个 Python float）传给编译过的函数。一开始很快，后来变慢了，却没有报错。最可能的原因是什么？"),
            (("Each new batch size recompiles from scratch", "每个新的批大小都从头重新编译",
              "That shapes alone exhaust the limit: under the default, the second size marks the dimension dynamic and "
              "one graph serves every size from two up.",
              "以为光是形状就会耗尽上限：默认设置下，第二种尺寸就把这一维标成动态，一张图服务从二往上的所有尺寸。"),
             ("A guarded Python value keeps changing: recompiles, then eager mode",
              "设了守卫的 Python 值一直在变，反复重新编译，到上限后退回 eager"),
             ("The compiled kernels' caches on disk fill up", "磁盘上编译好的 kernel 缓存满了",
              "That the disk cache limits speed: it only saves compile time at the next start; it does not decide which "
              "calls run compiled.", "以为磁盘缓存决定速度：它只省下次启动的编译时间，不决定哪些调用走编译好的图。")), 1,
            ("Guards on exact Python values recompile on every change; after torch._dynamo.config.recompile_limit graphs "
             "Dynamo stops compiling the function. `TORCH_LOGS=recompiles` names the guard that failed.",
             "按确切 Python 值设的守卫每变一次就重新编译；编译满 torch._dynamo.config.recompile_limit 张图后 Dynamo 就不再编译这个函数。"
             "`TORCH_LOGS=recompiles` 会指出失效的是哪个守卫。"),
            ("What does a guard check, and what happens after the recompile limit?", "守卫检查什么？编译次数到了上限以后会怎样？")),

        _mc("rv_ch7_q14", KEY, "ch7-engines", "interview",
            ("A serving engine with continuous batching admits a request with a long prompt while many others are "
             "decoding on the same GPU. Without chunked prefill, what happens to the running requests?",
             "一个做连续批处理的推理引擎，在同一块 GPU 上还有很多请求正在 decode 时，接纳了一个提示词很长的新请求。没有分块预填充时，正在跑的请求会怎样？"),
            (("Nothing: the prefill runs beside the decode steps on other SMs", "不受影响：预填充在别的 SM 上和 decode 同时跑",
              "That one engine runs prefill and decode apart: in a colocated engine both are in the same step, on the "
              "same GPU; only a disaggregated deployment (chapter 6) separates them.",
              "以为同一个引擎里预填充和 decode 是分开跑的：合在一起部署时，两者在同一步、同一块 GPU 上；只有 PD 分离（第 6 章）才让两者各用各的 GPU。"),
             ("Their next token waits for the whole prefill", "它们的下一个 token 都要等整段预填充算完"),
             ("They are evicted and their KV cache is recomputed afterwards", "它们被换出，之后再重算 KV cache",
              "That admission preempts: an engine preempts only when the KV cache runs out of blocks, not because a "
              "prompt is long.", "以为接纳新请求就会抢占：引擎只在 KV cache 的块用完时才抢占，和提示词长不长无关。")), 1,
            ("The step that runs the prefill is as long as the prompt's prefill, and every decoding request gets its next "
             "token only after it: a spike in their time per output token. Chunked prefill cuts the prompt into pieces "
             "that fit a token budget per step and mixes them with the decode tokens, so each step stays short, at the "
             "price of a slightly later first token for the new request.",
             "跑预填充的那一步有整段提示词的预填充那么长，每个在 decode 的请求都要等它结束才拿到下一个 token：它们的每输出 token 时延出现尖峰。"
             "分块预填充把提示词切成能放进每步 token 预算的几段，和 decode 的 token 混在一起跑，每一步都不长，代价是新请求的首 token 延迟稍长一点。"),
            ("What runs in the step that admits it, and who waits for that step?", "接纳它的那一步里跑的是什么？谁在等这一步？")),
    ]
