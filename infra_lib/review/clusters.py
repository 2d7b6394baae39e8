"""Chapter 8's questions: serving, topologies, gang scheduling and sharing (08_clusters).

Built by :func:`questions` when the review is first used, never on import (see :mod:`infra_lib.review`)."""
from .. import autoscale, scheduling, units
from ..exercises import Answer, Param
from .core import Question, _clear_of_integer, _mc, _num

FILE = "08_clusters"   # the chapter these questions test: its file in _toc.yml
KEY = "ch8"   # in the ids of its questions (rv_ch8_q1) and the review's label for them (rv-ch8)


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
             ("**{s:,.0f} s**: autoscaling must react that far ahead of a burst.", "**{s:,.0f} s**：自动扩缩容必须提前这么久应对突发流量。")),

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
    ]
