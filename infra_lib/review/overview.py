"""The overview's questions: one request from weights to tokens (00_overview).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
from .. import generations, inference, models, units
from ..exercises import Answer, Param
from .core import Question, _clear_of_integer, _mc, _num, common

FILE = "00_overview"   # the chapter these questions test: its file in _toc.yml
KEY = "ov"   # in the ids of its questions (rv_ov_q1) and the review's label for them (rv-ov)


def _ov1(params_b: float, bw: float) -> dict[str, Answer]:
    w = models.weight_B(params_b * 1e9)   # BF16: 2 bytes per parameter
    t = inference.min_token_time_s(w, bw)
    return {"weight_gb": Answer(w / units.GB, "GB"), "floor_ms": Answer(t / units.MS, "ms"),
            "tok_s": Answer(generations.decode_ceiling_tok_s(bw, w), "tokens/s")}


def _ov3(kv_gb: float, mem_gb: float) -> dict[str, Answer]:
    w = inference.teaching_request().weight_B
    return {"weight_gb": Answer(w / units.GB, "GB"),
            "batch": Answer(inference.max_batch_that_fits(w, kv_gb * units.GB, mem_gb * units.GB), "requests", rel_tol=0)}


def _ov7(layers: int, kv_heads: int, head_dim: int, ctx: int, room_gb: float) -> dict[str, Answer]:
    per_token = models.kv_B_per_token(layers, kv_heads, head_dim)        # BF16: two bytes per value
    per_request = per_token * ctx
    return {"kib": Answer(per_token / units.KiB, "KiB"), "req_gb": Answer(per_request / units.GB, "GB"),
            "batch": Answer(inference.max_batch_that_fits(0.0, per_request, room_gb * units.GB), "requests", rel_tol=0)}


def _ov9(params_b: float, peak: float, fe: float, bw: float, be: float, kv_gb: float, mem_gb: float,
         tpot: float) -> dict[str, Answer]:
    """The batch that meets a TPOT target and fits (parameters as solve receives them: counts, FLOP/s, B/s, s)."""
    c = common()
    r = inference.Request(params_b, c.request.prompt_tokens, kv_gb * units.GB)
    acc = inference.Accelerator(c.gpu.name, peak, bw, fe, be)
    lat = inference.max_batch_for_tpot(r, acc, tpot)
    cap = inference.max_batch_that_fits(r.weight_B, r.kv_B, mem_gb * units.GB)
    return {"weight_gb": Answer(r.weight_B / units.GB, "GB"), "eff_bw": Answer(acc.effective_Bps / 1e12, "TB/s"),
            "tw_ms": Answer(r.weight_B / acc.effective_Bps / units.MS, "ms"),
            "tkv_ms": Answer(r.kv_B / acc.effective_Bps / units.MS, "ms"),
            "flop_ms": Answer(r.flops_per_token / acc.effective_flop_s / units.MS, "ms"),
            "lat": Answer(lat, "requests", rel_tol=0), "cap": Answer(cap, "requests", rel_tol=0),
            "batch": Answer(min(lat, cap), "requests", rel_tol=0)}


def questions() -> list[Question]:
    """The questions that test 00_overview (reads the registry)."""
    c = common()
    return [
        _num("rv_ov_q1", KEY, "ov-request", "interview",
             {"params_b": Param(8, "billion parameters", 1, 70, integer=True), "bw": Param(c.h100_bw, "TB/s", 1e12, 8e12, scale=1e12)},
             _ov1, "floor_ms",
             ("A {params_b:.0f}B-parameter model in BF16 runs at batch one on a GPU with {bw:.2f} TB/s of memory bandwidth. "
              "What is the floor on the time per generated token, in ms?",
              "一个 {params_b:.0f}B 参数的模型以 BF16 存储，在显存带宽 {bw:.2f} TB/s 的 GPU 上只 decode 一个请求。每生成一个 token 至少要多少毫秒？"),
             ("Every weight byte is read once per token.", "每生成一个 token，全部权重都要读一遍。"),
             ("Weights: {params_b:.0f} × two bytes = {weight_gb:.0f} GB. Floor: {weight_gb:.0f} GB / {bw:.2f} TB/s = "
              "**{floor_ms:.2f} ms**, a ceiling of {tok_s:,.0f} tokens/s.",
              "权重：{params_b:.0f}B × 每个两字节 = {weight_gb:.0f} GB。下限：{weight_gb:.0f} GB / {bw:.2f} TB/s = **{floor_ms:.2f} ms**，"
              "即每秒最多 {tok_s:,.0f} 个 token。")),

        _num("rv_ov_q2", KEY, "ov-batching", "interview",
             {"params_b": Param(c.request.n_params, "billion parameters", scale=1e9),
              "peak": Param(c.gpu.peak_flop_s, "TFLOP/s", scale=1e12), "fe": Param(c.gpu.flop_efficiency, "fraction"),
              "bw": Param(c.gpu.mem_bw_Bps, "TB/s", scale=1e12), "be": Param(c.gpu.bw_efficiency, "fraction")},
             lambda params_b, peak, fe, bw, be: {"flip": Answer(inference.compute_bound_batch(
                 inference.Request(params_b, c.request.prompt_tokens, 0.0),
                 inference.Accelerator(c.gpu.name, peak, bw, fe, be)), "requests", rel_tol=0.02)},
             "flip",
             ("A {params_b:.0f}B-parameter model in BF16 decodes on a GPU that reaches {fe:.0%} of {peak:,.0f} TFLOP/s and "
              "{be:.0%} of {bw:.0f} TB/s, with contexts so short that KV reads are negligible: from what batch size on is "
              "a decode step compute-bound?",
              "一个 {params_b:.0f}B 参数的 BF16 模型在一块 GPU 上 decode，这块 GPU 能跑到 {peak:,.0f} TFLOP/s 的 {fe:.0%}、"
              "{bw:.0f} TB/s 的 {be:.0%}；上下文短到 KV 读取可以忽略。批大小从多少开始，一步 decode 会变成算力受限？"),
             ("Memory time is fixed (one read of the weights); arithmetic grows with the batch. Set them equal.",
              "访存时间是固定的（权重读一遍），计算时间随批大小增长。令两者相等。"),
             ("$B \\cdot 2N/(\\eta_F F) = B_W/(\\eta_B\\,BW)$ gives **{flip:.0f}** requests. With a KV cache per request the "
              "memory time grows with the batch too, and the step may never flip.",
              "$B \\cdot 2N/(\\eta_F F) = B_W/(\\eta_B\\,BW)$，解得 **{flip:.0f}** 个请求。如果每个请求还带着自己的 KV cache，访存时间也会随批大小增长，这一步就可能永远不翻转。"),
             flip=True),

        _num("rv_ov_q3", KEY, "ov-batching", "self-check",
             {"kv_gb": Param(0.3, "GB", 0.1, 2.0), "mem_gb": Param(c.h100_mem / units.GB, "GB", 24, 192, integer=True)},
             _ov3, "batch",
             ("The teaching model's weights ({weight_gb:.0f} GB) and one KV cache of {kv_gb:.2f} GB per request must fit in "
              "{mem_gb:.0f} GB. What is the largest batch?",
              "教学模型的权重（{weight_gb:.0f} GB），加上每个请求 {kv_gb:.2f} GB 的 KV cache，都要放进 {mem_gb:.0f} GB 显存。批大小最大能到多少？"),
             ("Subtract the weights, divide by the KV per request, round down.", "先减去权重，再除以每个请求的 KV，向下取整。"),
             ("({mem_gb:.0f} − {weight_gb:.0f}) GB / {kv_gb:.2f} GB, rounded down: **{batch:.0f}** requests.",
              "({mem_gb:.0f} − {weight_gb:.0f}) GB / {kv_gb:.2f} GB，向下取整：**{batch:.0f}** 个请求。"),
             valid=lambda v: _clear_of_integer((v["mem_gb"] - v["weight_gb"]) / v["kv_gb"])),

        _num("rv_ov_q4", KEY, "ov-server", "interview",
             {"gbit": Param(400, "Gb/s", 100, 800, integer=True), "size_gb": Param(10, "GB", 1, 100, integer=True)},
             lambda gbit, size_gb: {"s": Answer(size_gb * units.GB / units.bits_to_bytes(gbit * 1e9), "s"),
                                    "bytes_gb": Answer(units.bits_to_bytes(gbit * 1e9) / units.GB, "GB/s"),
                                    "bpb": Answer(units.BITS_PER_BYTE, "bits", rel_tol=0)},
             "s",
             ("A network card is sold as {gbit:.0f} Gb/s per direction. How many seconds does it take to send {size_gb:.0f} GB?",
              "一张网卡标称单向 {gbit:.0f} Gb/s。发送 {size_gb:.0f} GB 要多少秒？"),
             ("Gb is gigabits: divide by {bpb:.0f} for bytes.", "Gb 是比特而不是字节：除以 {bpb:.0f} 才是字节数。"),
             ("{gbit:.0f} Gb/s = {bytes_gb:.0f} GB/s, so {size_gb:.0f} GB take **{s:.2f} s**.",
              "{gbit:.0f} Gb/s = {bytes_gb:.0f} GB/s，所以 {size_gb:.0f} GB 需要 **{s:.2f} s**。")),

        _mc("rv_ov_q5", KEY, "ov-request", "interview",
            ("At batch one, which change shortens a decode step of a large model the most?",
             "只 decode 一个请求时，下面哪项改动最能缩短大模型一步 decode 的时间？"),
            (("Twice the peak FLOP/s", "峰值算力翻倍",
              "That decode at batch one is compute-bound: it does about two FLOP per weight, far below the ridge point.",
              "以为单请求 decode 是算力受限：它每个权重只做约两次运算，远低于屋脊点。"),
             ("Twice the memory bandwidth", "显存带宽翻倍"),
             ("Twice the HBM capacity", "显存容量翻倍",
              "That capacity is speed: more memory fits a bigger batch or model, but each step still reads the same bytes "
              "at the same rate.", "把容量当成速度：显存大了能放下更大的 batch 或模型，但每一步读的字节数和读取速率都没变。")), 1,
            ("The step reads every weight once and does two FLOP per weight: far below the ridge point, so it is "
             "bandwidth-bound and only more bytes per second shorten it.",
             "每一步都把全部权重读一遍，每个权重只做两次浮点运算，远低于屋脊点，所以访存受限：只有每秒读更多字节，它才会变快。"),
            ("Compare FLOP per byte of the step with the GPU's ridge point.", "比较这一步每字节的运算量和 GPU 的屋脊点。")),

        _mc("rv_ov_q6", KEY, "ov-batching", "self-check",
            ("Why does batching make decode cheaper per token?", "为什么组 batch 能降低每个 token 的 decode 成本？"),
            (("Each request's KV cache gets smaller", "每个请求的 KV cache 变小了",
              "That requests share their KV cache: each keeps its own, whatever the batch; only the weights are shared.",
              "以为请求之间共享 KV cache：不管批大小是多少，每个请求都有自己的 KV cache，共享的只有权重。"),
             ("The arithmetic per token falls", "每个 token 的计算量变少了",
              "That batching saves FLOP: every token still needs its two FLOP per parameter; what is shared is memory "
              "traffic, not arithmetic.", "以为组 batch 省的是运算：每个 token 仍要每个参数两次运算，分摊的是访存，不是计算。"),
             ("The weights are read once for the whole batch", "整个 batch 共用一次权重读取")), 2,
            ("The weight bytes are shared by every request of the step; the KV bytes are not, which is why batching stops "
             "helping once KV dominates.",
             "权重字节由这一步里的所有请求分摊，KV 字节则各付各的；所以一旦 KV 占了大头，批大小再往上加也帮不上忙了。"),
            ("What does each step read, and what of it is shared?", "每一步读了什么？其中哪些是共享的？")),

        _num("rv_ov_q7", KEY, "ov-batching", "interview",
             {"layers": Param(32, "layers", 16, 80, integer=True), "kv_heads": Param(8, "KV heads", 2, 16, integer=True),
              "head_dim": Param(128, "", 64, 128, integer=True), "ctx": Param(4096, "tokens", 1024, 9999, integer=True),
              "room_gb": Param(50, "GB", 10, 120, integer=True)},
             _ov7, "batch",
             ("A model has {layers:.0f} layers with {kv_heads:.0f} KV heads of dimension {head_dim:.0f}, its KV cache in BF16. "
              "After the weights, {room_gb:.0f} GB are left for the KV cache. How many requests of {ctx:,.0f} tokens fit at once?",
              "一个模型有 {layers:.0f} 层，每层 {kv_heads:.0f} 个维度为 {head_dim:.0f} 的 KV 头，KV cache 用 BF16 存储。放下权重后，"
              "还剩 {room_gb:.0f} GB 给 KV cache。长度为 {ctx:,.0f} 个 token 的请求最多能同时放下多少个？"),
             ("Per token: K and V, per layer, per KV head, head_dim values of two bytes. Then per request, then the budget.",
              "每个 token：K 和 V 两份，每层、每个 KV 头各 head_dim 个值，每个值两字节。再乘到每个请求，最后除预算。"),
             ("K and V × {layers:.0f} × {kv_heads:.0f} × {head_dim:.0f} × two bytes = {kib:.0f} KiB per token; × {ctx:,.0f} tokens = "
              "{req_gb:.3f} GB per request; {room_gb:.0f} GB / {req_gb:.3f} GB, rounded down: **{batch:.0f} requests**.",
              "K、V 两份 × {layers:.0f} × {kv_heads:.0f} × {head_dim:.0f} × 两字节 = 每个 token {kib:.0f} KiB；× {ctx:,.0f} 个 token = "
              "每个请求 {req_gb:.3f} GB；{room_gb:.0f} GB / {req_gb:.3f} GB，向下取整：**{batch:.0f} 个请求**。"),
             valid=lambda v: v["batch"] >= 2 and _clear_of_integer(v["room_gb"] / v["req_gb"])),

        _mc("rv_ov_q8", KEY, "ov-request", "self-check",
            ("A request's prompt grows a hundredfold while its output stays as long. What grows the most?",
             "一个请求的提示词变长到原来的一百倍，输出长度不变。哪一项增长最多？"),
            (("The time to the first token", "首 token 延迟"),
             ("The time per output token", "每输出 token 时延（TPOT）",
              "That the prompt is processed token by token like the output: prefill handles the whole prompt in one "
              "compute-bound pass; each later step only reads a little more KV cache.",
              "以为提示词也像输出那样逐个 token 处理：预填充一次算完整个提示词，是算力受限的；之后每步 decode 只是多读一点 KV cache。"),
             ("The weight bytes read per step", "每一步读取的权重字节数",
              "That a longer prompt makes the model bigger: every step reads the same weights whatever the prompt; "
              "what grows with it is the KV cache.",
              "以为提示词越长模型越大：不管提示词多长，每一步读的权重都一样；随之增长的是 KV cache。")), 0,
            ("Prefill does about two FLOP per parameter per prompt token in one pass, so its time, the wait for the first "
             "token, grows with the prompt; decode still reads the weights once per token and adds only the longer KV cache.",
             "预填充一次处理整个提示词，每个提示词 token 每个参数约两次运算，所以它的耗时，也就是首 token 延迟，"
             "随提示词增长；decode 每个 token 仍是把权重读一遍，只多读了更长的 KV cache。"),
            ("Which phase does work per prompt token?", "哪个阶段的工作量和提示词的 token 数成正比？")),

        _num("rv_ov_q9", KEY, "ov-batching", "interview",
             {"params_b": Param(c.request.n_params, "billion parameters", scale=1e9),
              "peak": Param(c.gpu.peak_flop_s, "TFLOP/s", scale=1e12), "fe": Param(c.gpu.flop_efficiency, "fraction"),
              "bw": Param(c.gpu.mem_bw_Bps, "TB/s", scale=1e12), "be": Param(c.gpu.bw_efficiency, "fraction"),
              "kv_gb": Param(0.45, "GB", 0.2, 1.0), "mem_gb": Param(80, "GB", 48, 141, integer=True),
              "tpot": Param(24e-3, "ms", 10e-3, 40e-3, scale=1e-3)},
             _ov9, "batch",
             ("A model of {params_b:.0f}B parameters in BF16 decodes on a GPU that reaches {fe:.0%} of {peak:,.0f} TFLOP/s and "
              "{be:.0%} of {bw:.0f} TB/s, with {mem_gb:.0f} GB of memory. Each request holds {kv_gb:.2f} GB of KV cache, read in "
              "full at every step. The service promises at most {tpot:.0f} ms per output token. What is the largest batch it "
              "can run?",
              "一个 {params_b:.0f}B 参数的 BF16 模型在一块 GPU 上 decode，这块 GPU 能跑到 {peak:,.0f} TFLOP/s 的 {fe:.0%}、"
              "{bw:.0f} TB/s 的 {be:.0%}，显存 {mem_gb:.0f} GB。每个请求持有 {kv_gb:.2f} GB 的 KV cache，每一步都要完整读一遍。"
              "服务承诺每输出 token 时延（TPOT）不超过 {tpot:.0f} ms。批大小最大能到多少？"),
             ("Two bounds: one step (the weights read once, every request's KV read) must fit in the target, and the weights "
              "and every KV cache must fit in memory. Take the smaller.",
              "有两个上限：一步 decode（权重读一遍，再读每个请求的 KV）要在目标时间之内，权重和所有 KV cache 要放得进显存。取较小的那个。"),
             ("The weights take {weight_gb:.0f} GB / {eff_bw:.1f} TB/s = {tw_ms:.2f} ms a step, and each request adds "
              "{tkv_ms:.3f} ms of KV reads: ({tpot:.0f} − {tw_ms:.2f}) / {tkv_ms:.3f}, rounded down, is {lat:,.0f} requests. "
              "Memory: ({mem_gb:.0f} − {weight_gb:.0f}) / {kv_gb:.2f}, rounded down, is {cap:,.0f}. The batch is "
              "**{batch:,.0f} requests**; the arithmetic, {flop_ms:.3f} ms a request, is not what limits it.",
              "权重每步要 {weight_gb:.0f} GB / {eff_bw:.1f} TB/s = {tw_ms:.2f} ms，每多一个请求再加 {tkv_ms:.3f} ms 的 KV 读取："
              "({tpot:.0f} − {tw_ms:.2f}) / {tkv_ms:.3f}，向下取整，是 {lat:,.0f} 个请求。显存：({mem_gb:.0f} − {weight_gb:.0f}) / "
              "{kv_gb:.2f}，向下取整，是 {cap:,.0f} 个。批大小是 **{batch:,.0f} 个请求**；计算每个请求只要 {flop_ms:.3f} ms，"
              "不是瓶颈。"),
             valid=lambda v: (v["lat"] >= 2 and v["cap"] >= 2 and v["lat"] != v["cap"]
                              and _clear_of_integer((v["tpot"] / units.MS - v["tw_ms"]) / v["tkv_ms"])
                              and _clear_of_integer((v["mem_gb"] - v["weight_gb"]) / v["kv_gb"])
                              and v["flop_ms"] * v["lat"] < v["tpot"] / units.MS)),
    ]
