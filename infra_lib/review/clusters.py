"""Chapter 8's questions: serving, topologies, gang scheduling and sharing (08_clusters).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
import functools
from collections.abc import Callable

from .. import autoscale, mig, reliability, scheduling, units
from ..exercises import Answer, Param
from .core import Question, _clear_of_integer, _mc, _num

FILE = "08_clusters"   # the chapter these questions test: its file in _toc.yml
KEY = "ch8"   # in the ids of its questions (rv_ch8_q1) and the review's label for them (rv-ch8)


def _memo(fn: Callable[..., dict[str, Answer]]) -> Callable[..., dict[str, Answer]]:
    """Remember a question's answers by its arguments (the property tests grade each variant several
    ways; packing and the simulations are the slow part). Answers are frozen; each caller gets its own dict."""
    @functools.lru_cache(maxsize=4096)
    def cached(args: tuple[object, ...], kwargs: tuple[tuple[str, object], ...]) -> tuple[tuple[str, Answer], ...]:
        return tuple(fn(*args, **dict(kwargs)).items())

    @functools.wraps(fn)
    def call(*args: object, **kwargs: object) -> dict[str, Answer]:
        return dict(cached(args, tuple(sorted(kwargs.items()))))
    return call


@_memo
def _ch8_mig(n3: int, n2: int) -> dict[str, Answer]:
    """How many 1g.10gb instances still fit beside n3 3g.40gb and n2 2g.20gb on one H100 80 GB (0: none,
    or the two alone do not fit)."""
    base = ["3g.40gb"] * n3 + ["2g.20gb"] * n2
    k = 0
    while base and mig.pack(base).ok and k < mig.MEMORY_SLICES and mig.pack(base + ["1g.10gb"] * (k + 1)).ok:
        k += 1
    return {"ones": Answer(k, "instances", rel_tol=0)}


@_memo
def _ch8_gang(need: int, per: int) -> dict[str, Answer]:
    """The fewest free GPUs at which two jobs of ``need`` nodes' worth, given a node at a time, both finish."""
    gpus = need * per
    free = next(f for f in range(gpus, 2 * gpus + 1) if not scheduling.deadlocked(scheduling.simulate(f, gpus, gpus_per_node=per)))
    return {"need_gpus": Answer(gpus, "GPUs", rel_tol=0), "free": Answer(free, "GPUs", rel_tol=0)}


@_memo
def _ch8_burst(image_gb: float, weights_gb: float, init: float, burst: float, pull: float, load: float, base: float,
               lat: float, slots: int, util: float) -> dict[str, Answer]:
    cold = autoscale.cold_start(image_gb * units.GB, pull * units.GB, weights_gb * units.GB, load * units.GB, init)
    trace = autoscale.simulate_burst(base, burst, lat, slots, cold.total_s, utilization=util)
    ready = autoscale.replicas_needed(base, lat, slots, util)
    serve = ready * slots / lat
    return {"cold": Answer(cold.total_s, "s"), "ready": Answer(ready, "replicas", rel_tol=0),
            "serve": Answer(serve, "requests/s"), "excess": Answer(burst - serve, "requests/s"),
            "queued": Answer(trace.peak_queued, "requests")}


def _ch8_young(years: float, gpus: float, ckpt: float) -> dict[str, Answer]:
    m = reliability.job_mtbf_s(years * reliability.YEAR_S, int(gpus))
    return {"mtbf_h": Answer(m / reliability.HOUR_S, "h"),
            "tau_min": Answer(reliability.young_interval_s(ckpt, m) / reliability.MINUTE_S, "min")}


def questions() -> list[Question]:
    """The questions that test 08_clusters (reads the registry)."""
    return [
        _num("rv_ch8_q1", KEY, "ch8-serving", "interview",
             {"rate": Param(20, "requests/s", 1, 200, integer=True), "lat": Param(5, "s", 1, 30),
              "slots": Param(16, "requests", 4, 256, integer=True)},
             lambda rate, lat, slots: {"inflight": Answer(autoscale.in_flight(rate, lat), "requests"),
                                       "replicas": Answer(autoscale.replicas_needed(rate, lat, slots), "replicas", rel_tol=0)},
             "replicas",
             ("Requests arrive at {rate:.0f} per second and each takes {lat:.1f} s. One replica serves {slots:.0f} at once. How "
              "many replicas are needed?",
              "请求以每秒 {rate:.0f} 个的速度到达，每个耗时 {lat:.1f} s。一个副本同时能服务 {slots:.0f} 个。需要多少个副本？"),
             ("Little's law gives the requests in flight.", "用利特尔定律求在途请求数。"),
             ("{rate:.0f} × {lat:.1f} = {inflight:.0f} in flight; / {slots:.0f}, rounded up: **{replicas:.0f} replicas**.",
              "{rate:.0f} × {lat:.1f} = {inflight:.0f} 个在途；除以 {slots:.0f}，向上取整：**{replicas:.0f} 个副本**。"),
             valid=lambda v: _clear_of_integer(v["inflight"] / v["slots"])),

        _num("rv_ch8_q2", KEY, "ch8-topology", "self-check",
             {"radix": Param(32, "ports", 4, 64, integer=True, scale=0.5),   # drawn in pairs of ports (radix is even)
              "tiers": Param(2, "tiers", 2, 3, integer=True)},
             lambda radix, tiers: {"n": Answer(scheduling.fat_tree_endpoints(2 * radix, tiers), "endpoints", rel_tol=0)},
             "n",
             ("How many endpoints does a non-blocking fat tree of {tiers:.0f} tiers of {radix:.0f}-port switches reach?",
              "由 {radix:.0f} 口交换机组成的 {tiers:.0f} 层无阻塞胖树能连接多少个端点？"),
             ("Each tier below the top splits its ports half down, half up.", "除顶层外，每层交换机一半端口向下、一半向上。"),
             ("**{n:,.0f} endpoints**.", "**{n:,.0f} 个端点**。")),

        _num("rv_ch8_q3", KEY, "ch8-serving", "interview",
             {"weights_gb": Param(140, "GB", 10, 800), "load": Param(2e9, "GB/s", 0.5e9, 25e9, scale=1e9)},
             lambda weights_gb, load: {"s": Answer(autoscale.load_time_s(weights_gb * units.GB, load), "s")},
             "s",
             ("A new replica must load {weights_gb:.0f} GB of weights at {load:.1f} GB/s. How many seconds before it can serve?",
              "一个新副本要以 {load:.1f} GB/s 的速度加载 {weights_gb:.0f} GB 的权重。多少秒后才能开始服务？"),
             ("Size over bandwidth.", "大小除以带宽。"),
             ("**{s:,.0f} s**: autoscaling must react that far ahead of a burst.", "**{s:,.0f} s**：自动扩缩必须提前这么久应对突发流量。")),

        _num("rv_ch8_q4", KEY, "ch8-topology", "self-check",
             {"ports": Param(8, "NICs", 2, 16, integer=True), "gbit": Param(400, "Gb/s", 100, 800, integer=True)},
             lambda ports, gbit: {"gbs": Answer(scheduling.aggregate_Bps(ports, units.bits_to_bytes(gbit * 1e9)) / units.GB, "GB/s"),
                                  "bpb": Answer(units.BITS_PER_BYTE, "bits", rel_tol=0)},
             "gbs",
             ("A node has {ports:.0f} NICs of {gbit:.0f} Gb/s. What is its aggregate network bandwidth per direction, in GB/s?",
              "一个节点有 {ports:.0f} 块 {gbit:.0f} Gb/s 的网卡。单向总网络带宽是多少 GB/s？"),
             ("Ports × rate, then bits to bytes.", "端口数 × 速率，再把比特换成字节。"),
             ("{ports:.0f} × {gbit:.0f} Gb/s / {bpb:.0f} = **{gbs:,.0f} GB/s**.", "{ports:.0f} × {gbit:.0f} Gb/s / {bpb:.0f} = **{gbs:,.0f} GB/s**。")),

        _mc("rv_ch8_q5", KEY, "ch8-gang", "interview",
            ("Two jobs each need eight GPUs; a scheduler gives each four as they become free. What can happen?",
             "两个作业各需要八块 GPU；调度器在 GPU 空出来时各分给它们四块。会发生什么？"),
            (("Both run at half speed", "两个都以一半速度运行",
              "That a distributed job starts with part of its GPUs: it cannot; every rank waits for all the others at its "
              "first collective.", "以为分布式作业拿到一部分 GPU 就能开跑：不能；每个 rank 在第一次集合通信时都要等齐所有其他 rank。"),
             ("Both wait forever: a deadlock", "两个都永远等下去：死锁"),
             ("Nothing: they time-share", "没事：它们会分时共享",
              "That the scheduler time-shares GPUs it has allocated: it does not take them back; neither job releases its "
              "four, so neither starts.", "以为调度器会让已分配的 GPU 分时共享：它不会收回；两个作业都不放手自己的四块，谁也启动不了。")), 1,
            ("Each holds half of what it needs and waits for the rest; gang scheduling (all or nothing) prevents it.",
             "每个作业都占着一半资源等另一半；成组调度（要么全给，要么不给）可以避免。"),
            ("Does a distributed job start with part of its GPUs?", "分布式作业能只拿到一部分 GPU 就开始吗？")),

        _mc("rv_ch8_q6", KEY, "ch8-sharing", "self-check",
            ("Splitting an H100 with MIG beats giving each small job a whole GPU when…",
             "什么情况下用 MIG 切分 H100 比给每个小作业一整块 GPU 更好？"),
            (("each job needs all the memory bandwidth", "每个作业都需要全部显存带宽",
              "That a slice keeps the whole GPU's bandwidth: each slice gets only its share of the memory bandwidth, so a "
              "job that needs all of it loses.", "以为切片还能用满整块 GPU 的带宽：每个切片只分到自己那份显存带宽，需要全部带宽的作业会吃亏。"),
             ("jobs need NVLink to other GPUs", "作业需要通过 NVLink 连接其他 GPU",
              "That slicing helps jobs that span GPUs: a job that talks to other GPUs wants the whole GPU and its links; "
              "slices serve jobs that fit in one.", "以为切分对跨 GPU 的作业有利：要和其他 GPU 通信的作业需要整块 GPU 和它的链路；切片适合装得进一块 GPU 的作业。"),
             ("each job uses a small share of the GPU's compute and memory", "每个作业只用得了 GPU 的一小部分算力和显存")), 2,
            ("MIG gives isolated slices of SMs and memory: worth it when jobs are small; a job that needs the whole GPU loses "
             "from the split.", "MIG 切出相互隔离的 SM 和显存切片：作业小时划算；需要整块 GPU 的作业切分后反而吃亏。"),
            ("What does a slice take away?", "切片拿走了什么？"), flip=True),

        _num("rv_ch8_q7", KEY, "ch8-sharing", "self-check",
             {"n3": Param(1, "", 0, 1, integer=True), "n2": Param(1, "", 0, 3, integer=True)},
             _ch8_mig, "ones",
             ("An H100 already holds {n3:.0f} MIG instance(s) of 3g.40gb and {n2:.0f} of 2g.20gb. How many 1g.10gb "
              "instances can still be added?",
              "一块 H100 上已经有 {n3:.0f} 个 3g.40gb 和 {n2:.0f} 个 2g.20gb 的 MIG 实例。还能再加几个 1g.10gb 实例？"),
             ("Count both budgets: seven compute slices and eight memory slices, and each profile's allowed start positions.",
              "两份预算都要算：七个计算切片、八个内存切片，还有每种配置允许的起始位置。"),
             ("Placing them by the placement rules, **{ones:.0f}** more of 1g.10gb still fit.",
              "按放置规则摆放，还能放下 **{ones:.0f}** 个 1g.10gb 实例。")),

        _num("rv_ch8_q8", KEY, "ch8-gang", "interview",
             {"need": Param(8, "GPUs", 2, 16, integer=True, scale=0.125), "per": Param(8, "GPUs per node")},
             lambda need, per: _ch8_gang(int(need), int(per)),
             "free",
             ("Two jobs each need {need:.0f} GPUs. Without gang scheduling, a scheduler gives each waiting job in turn one node "
              "({per:.0f} GPUs) at a time, and a job starts only when it holds all it needs. What is the fewest free GPUs for "
              "which both jobs finish?",
              "两个作业各需要 {need:.0f} 块 GPU。没有成组调度时，调度器轮流给每个等待中的作业一次分一个节点（{per:.0f} 块 GPU），"
              "作业要拿齐所需的全部 GPU 才会启动。空闲 GPU 至少要有多少块，两个作业才都能跑完？"),
             ("The jobs take nodes alternately; the first must complete its set before the GPUs run out.",
              "两个作业轮流拿节点；第一个作业要在 GPU 被分光之前凑齐。"),
             ("When the first job completes its {need_gpus:.0f} the second holds one node fewer: **{free:.0f} GPUs**. With one "
              "node less, both hold part of what they need and wait forever.",
              "第一个作业凑齐 {need_gpus:.0f} 块时，第二个作业少一个节点：**{free:.0f} 块 GPU**。再少一个节点，两个作业都只拿到一部分，"
              "就会永远等下去。"),
             flip=True),

        _num("rv_ch8_q9", KEY, "ch8-serving", "interview",
             {"image_gb": Param(10, "GB", 2, 20, integer=True), "pull": Param(0.5, "GB/s"),
              "weights_gb": Param(16, "GB", 4, 140, integer=True), "load": Param(1.0, "GB/s"),
              "init": Param(30, "s", 10, 60, integer=True), "burst": Param(30, "requests/s", 20, 40, integer=True),
              "base": Param(10, "requests/s"), "lat": Param(2, "s"), "slots": Param(16, "requests"),
              "util": Param(0.8, "fraction")},
             lambda image_gb, weights_gb, init, burst, pull, load, base, lat, slots, util: _ch8_burst(
                 image_gb, weights_gb, init, burst, pull, load, base, lat, int(slots), util),
             "queued",
             ("A service runs at {base:.0f} requests/s on replicas sized for {util:.0%} load; each request takes {lat:.0f} s and a "
              "replica serves {slots:.0f} at once. Load jumps to {burst:.0f} requests/s. A new replica pulls a {image_gb:.0f} GB "
              "image at {pull:.1f} GB/s, loads {weights_gb:.0f} GB of weights at {load:.1f} GB/s and starts its engine in "
              "{init:.0f} s. How many requests queue up before the new replicas are ready?",
              "一个服务以每秒 {base:.0f} 个请求运行，副本数按 {util:.0%} 负载配置；每个请求耗时 {lat:.0f} s，一个副本同时服务 {slots:.0f} 个。"
              "负载突然跳到每秒 {burst:.0f} 个。新副本要以 {pull:.1f} GB/s 拉取 {image_gb:.0f} GB 的镜像，以 {load:.1f} GB/s 加载 "
              "{weights_gb:.0f} GB 权重，再用 {init:.0f} s 启动引擎。新副本就绪前会积压多少个请求？"),
             ("First the cold start (in series), then what the running replicas serve; the excess queues for the whole cold "
              "start.", "先算冷启动时间（各步串行），再算现有副本能服务多少；超出的部分在整个冷启动期间排队。"),
             ("Cold start {cold:.0f} s; {ready:.0f} replicas serve {serve:.0f} requests/s, so {excess:.0f} requests/s queue: "
              "{excess:.0f} × {cold:.0f} = **{queued:,.0f} requests**.",
              "冷启动 {cold:.0f} s；{ready:.0f} 个副本每秒服务 {serve:.0f} 个请求，每秒积压 {excess:.0f} 个："
              "{excess:.0f} × {cold:.0f} = **{queued:,.0f} 个请求**。")),

        _mc("rv_ch8_q10", KEY, "ch8-sharing", "interview",
            ("Two tenants share one GPU, and one of them must not be able to crash or slow the other. Which sharing mode gives "
             "that?",
             "两个租户共用一块 GPU，其中一个不能把另一个搞崩或拖慢。哪种共享方式做得到？"),
            (("Time-slicing", "时间片轮转",
              "That taking turns isolates: time-sliced processes have their own address spaces, but nothing limits their "
              "memory: one can allocate it all and the others fail with out-of-memory, and a fault of the GPU itself takes "
              "every replica down.", "以为轮流使用就算隔离：时间片下各进程虽有各自的地址空间，显存却没有限额：一个进程可以把它占满，其他进程就会因显存不足而失败；GPU 本身出故障时，所有副本一起倒下。"),
             ("MPS", "MPS",
              "That separate address spaces are isolation: MPS keeps clients' memory apart, but a fatal error in one takes "
              "down every client, and nothing partitions bandwidth or cache.", "以为地址空间隔开就是隔离：MPS 确实隔开了各客户端的内存，但一个客户端的致命错误会拖垮所有客户端，带宽和缓存也没有划分。"),
             ("MIG", "MIG")), 2,
            ("MIG partitions SMs, memory, cache and bandwidth in hardware, so each instance has its own faults and its own "
             "share; MPS overlaps kernels without fault isolation, time-slicing keeps address spaces apart but limits neither "
             "memory nor time.",
             "MIG 在硬件上划分 SM、显存、缓存和带宽，每个实例的故障和资源都是自己的；MPS 让 kernel 并发但没有故障隔离，时间片轮转隔开了地址空间，却既不限制显存，也不限制时间。"),
            ("What does each mode partition?", "每种方式划分了什么？")),

        _mc("rv_ch8_q11", KEY, "ch8-sharing", "self-check",
            ("A pod needs two GPUs in the same NVLink domain. What lets Kubernetes ask for that?",
             "一个 pod 需要同一个 NVLink 域里的两块 GPU。Kubernetes 靠什么才能提出这样的请求？"),
            (("A DRA ResourceClaim that selects devices by attribute", "按属性选择设备的 DRA ResourceClaim"),
             ("A limit of two nvidia.com/gpu through the device plugin", "通过 device plugin 在 limits 里写两个 nvidia.com/gpu",
              "That the device plugin can describe devices: its resource is a bare count; the scheduler knows how many GPUs a "
              "node has, not how they are linked.", "以为 device plugin 能描述设备：它的资源只是一个计数；调度器只知道节点有几块 GPU，不知道它们怎么互连。"),
             ("A node selector on the GPU model", "按 GPU 型号的节点选择器",
              "That the right model is the right placement: a selector picks nodes, not which GPUs of a node share an NVLink "
              "domain.", "以为选对型号就选对了位置：节点选择器选的是节点，而不是节点里哪几块 GPU 在同一个 NVLink 域。")), 0,
            ("A device plugin advertises a count; DRA publishes each device with attributes (model, memory, NVLink domain) "
             "and a claim matches them, which a bare counter cannot express.",
             "device plugin 只公布数量；DRA 把每个设备连同属性（型号、显存、所在 NVLink 域）一起公布，由 claim 去匹配，这是单纯的计数表达不了的。"),
            ("What does the scheduler know about a GPU under each?", "两种方式下，调度器各知道 GPU 的哪些信息？")),

        _num("rv_ch8_q12", KEY, "ch8-failures", "interview",
             {"years": Param(5, "years", 1, 20), "gpus": Param(16384, "GPUs", 1024, 131072, integer=True),
              "ckpt": Param(60, "s", 10, 600)},
             _ch8_young, "tau_min",
             ("Each GPU of a {gpus:,.0f}-GPU training job, with its share of the system, fails on average once in {years:.1f} "
              "years. A checkpoint stops the job for {ckpt:.0f} s. By Young's rule, how many minutes of work should go between "
              "checkpoints?",
              "一个 {gpus:,.0f} 卡训练作业的每块 GPU（连同它分摊的系统部件）平均 {years:.1f} 年出一次故障。写一次检查点要让作业停 "
              "{ckpt:.0f} s。按 Young 的公式，两次检查点之间应该隔多少分钟的工作？"),
             ("The job fails when any GPU does: divide the MTBF by the GPUs, then take $\\sqrt{{2\\delta M}}$.",
              "任何一块 GPU 出故障，作业就失败：先把 MTBF 除以 GPU 数，再求 $\\sqrt{{2\\delta M}}$。"),
             ("M = {years:.1f} years / {gpus:,.0f} = {mtbf_h:.2f} h; $\\tau = \\sqrt{{2\\delta M}}$ with δ = {ckpt:.0f} s: **{tau_min:.1f} min**.",
              "M = {years:.1f} 年 / {gpus:,.0f} = {mtbf_h:.2f} h；δ = {ckpt:.0f} s 时 $\\tau = \\sqrt{{2\\delta M}}$ = **{tau_min:.1f} min**。"),
             # Young's first-order rule needs the checkpoint well inside the MTBF (delta < M / 2; Daly 2006)
             valid=lambda v: 2 * v["ckpt"] < v["mtbf_h"] * reliability.HOUR_S),

        _mc("rv_ch8_q13", KEY, "ch8-failures", "interview",
            ("A large training job stops making progress, yet none of its processes has exited. What ends the wait?",
             "一个大型训练作业不再前进，可它的进程一个也没有退出。什么能结束这种等待？"),
            (("The scheduler sees the idle GPUs and requeues the job", "调度器看到 GPU 空闲，把作业重新排队",
              "That a scheduler sees a hang: the job still holds its allocation and its processes are alive, so there is "
              "nothing for the scheduler to react to.", "以为调度器看得见挂起：作业仍占着分配到的资源，进程也都活着，调度器没有任何可以响应的事件。"),
             ("The NCCL watchdog's collective timeout", "NCCL watchdog 的集合通信超时"),
             ("NCCL retries the collective on another route until it completes", "NCCL 换一条路由重试集合通信，直到完成",
              "That NCCL repairs a hang: a collective waits for every rank, and if one never arrives no route helps; only a "
              "timeout ends it.", "以为 NCCL 能修好挂起：集合通信要等齐每个 rank，有一个永远不到，换什么路由都没用；只有超时才能结束它。")), 1,
            ("A hang is not a crash: every rank waits in a collective for one that stopped. The process group's timeout makes "
             "the watchdog abort, which turns the hang into an ordinary failure that the restart path handles; too long a "
             "timeout idles every GPU for its whole length.",
             "挂起不是崩溃：每个 rank 都在集合通信里等一个已经停住的 rank。进程组的超时让 watchdog 中止通信，把挂起变成普通故障，"
             "交给重启流程处理；超时设得太长，每块 GPU 都要白白空等这么久。"),
            ("Who notices a job that is alive but not moving?", "一个活着却不动的作业，谁会注意到？")),

        _mc("rv_ch8_q14", KEY, "ch8-autoscale-practice", "interview",
            ("A vLLM replica's GPU shows near-full utilisation with half its slots empty. Which signal should the "
             "autoscaler scale on?",
             "一个 vLLM 副本的槽位还空着一半，它的 GPU 利用率却已接近满格。自动扩缩器应该按哪个信号扩缩？"),
            (("Requests waiting for a slot, vllm:num_requests_waiting", "等待槽位的请求数 vllm:num_requests_waiting"),
             ("GPU utilisation from DCGM, with a target below its maximum", "DCGM 报告的 GPU 利用率，目标值定得低于上限",
              "That a busy GPU is a full server: utilisation counts the time any kernel runs, and a decoding engine runs "
              "kernels back to back at any batch, so it saturates long before the slots do.",
              "以为 GPU 忙就是服务器满了：利用率统计的是有 kernel 在跑的时间，而decode 引擎不管批大小是多少，kernel 都一个接一个地跑，"
              "所以它远在槽位占满之前就已饱和。"),
             ("The pod's CPU utilisation, the HPA's classic resource metric", "Pod 的 CPU 利用率，HPA 经典的资源指标",
              "That the HPA's classic metric fits every server: a model server's CPU only feeds the GPU, and its load "
              "tracks neither the queue nor the KV cache.",
              "以为 HPA 的经典指标适用于所有服务器：模型服务器的 CPU 只是给 GPU 喂数据，它的负载既不反映队列，也不反映 KV cache。")), 0,
            ("The queue rises exactly when the replicas are too few, and the KV cache's use says how close a replica is to "
             "preempting requests; GPU utilisation reads near its maximum at almost any load and cannot show the headroom.",
             "队列恰好在副本不够时上升，KV cache 的占用说明一个副本离抢占请求还有多远；GPU 利用率在几乎任何负载下都接近上限，"
             "看不出还剩多少余量。"),
            ("What does GPU utilisation count, and what does a decoding engine do between requests?",
             "GPU 利用率统计的是什么？decode 引擎在两个请求之间又在做什么？")),
    ]
