"""The review chapter's question bank: interview questions and self-checks over the whole course.

Each :class:`Question` has an id (the same in both editions), the chapter and section label it
tests, its text, hint and worked solution in English and Chinese, and either an
:class:`infra_lib.exercises.Exercise` (a numeric question: parameters with the ranges new variants
are drawn from, and a solve function that calls the library) or multiple-choice options with the
index of the right one. Texts are templates: ``{name:fmt}`` is a parameter (as the question shows
it) or an answer of the exercise; the chapter turns each into a glue role, the quiz widget fills
it in with a drawn variant's values.

>>> q = by_id("ch10_ov_q1")
>>> q.exercise.grade(q.answer, q.exercise.answers()[q.answer].value).correct
True
>>> len({q.id for q in QUESTIONS}) == len(QUESTIONS) >= 60
True
"""
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from . import (_check, autoscale, collectives, cpu, cuda, engines, fab, framework, generations, gpu, hardware as hw,
               inference, memory, models, ops, quantization, roofline, scheduling, sharding, training_memory, units,
               utilization)
from .exercises import Answer, Exercise, Param

CHAPTERS = ("ov", "ch1", "ch2", "ch3", "ch4", "ch5", "ch6", "ch7", "ch8", "ch9")
# the chapter each key names, its file, and its number as the prose says it
CHAPTER_FILES = {"ov": "00_overview", "ch1": "01_chips", "ch2": "02_cpu", "ch3": "03_gpu", "ch4": "04_generations",
                 "ch5": "05_cuda", "ch6": "06_performance", "ch7": "07_frameworks", "ch8": "08_clusters",
                 "ch9": "09_quantization"}


@dataclass(frozen=True)
class Question:
    """One review question. ``kind`` is "interview" or "self-check"; ``flip`` marks a "when does
    the conclusion flip?" question. A numeric question has ``exercise`` and ``answer`` (the name of
    the graded answer); a conceptual one has ``options`` (per language) and ``correct`` (an index)."""
    id: str
    chapter: str
    section: str
    kind: str
    text: Mapping[str, str]
    hint: Mapping[str, str]
    solution: Mapping[str, str]
    exercise: Exercise | None = field(default=None, compare=False)
    answer: str = ""
    options: Mapping[str, tuple[str, ...]] | None = None
    correct: int = 0
    flip: bool = False

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.choice("chapter", self.chapter, CHAPTERS)
        _check.choice("kind", self.kind, ("interview", "self-check"))
        for name in ("text", "hint", "solution"):
            texts = getattr(self, name)
            if set(texts) != {"en", "zh"} or not all(isinstance(t, str) and t.strip() for t in texts.values()):
                raise ValueError(f"question {self.id}: {name} needs non-empty 'en' and 'zh' texts")
        if (self.exercise is None) == (self.options is None):
            raise ValueError(f"question {self.id}: give an exercise (numeric) or options (multiple choice), not both")
        if self.exercise is not None and self.exercise.key != self.id:
            raise ValueError(f"question {self.id}: its exercise's key is {self.exercise.key!r}")
        if self.options is not None:
            if set(self.options) != {"en", "zh"} or len(self.options["en"]) != len(self.options["zh"]):
                raise ValueError(f"question {self.id}: options need the same number of 'en' and 'zh' entries")
            if not 0 <= self.correct < len(self.options["en"]):
                raise ValueError(f"question {self.id}: correct={self.correct} is not an option's index")

    @property
    def numeric(self) -> bool:
        """True for a question answered with a number (and a unit)."""
        return self.exercise is not None

    def expected(self, exercise: Exercise | None = None) -> Answer:
        """The graded answer of this question (of ``exercise``, a drawn variant, when given)."""
        ex = exercise or self.exercise
        if ex is None:
            assert self.options is not None
            return Answer(self.options["en"][self.correct])
        return ex.answers()[self.answer]


FIELD = re.compile(r"\{\{|\}\}|\{(\w+)(?::([^{}]*))?\}")     # {{ and }} are literal braces


def fill(template: str, values: Mapping[str, object]) -> str:
    """A template with each ``{name:fmt}`` replaced by ``format(values[name], fmt)``.

    >>> fill("{a:.1f} ms and {b}", {"a": 2.345, "b": "memory"})
    '2.3 ms and memory'
    """
    _check.text("template", template)
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be a mapping of field names to values, got {values!r}")

    def one(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return m.group(0)[0]
        if m.group(1) not in values:
            raise KeyError(f"template field {m.group(1)!r} is not a parameter or an answer: {sorted(values)}")
        return format(values[m.group(1)], m.group(2) or "")
    return FIELD.sub(one, template)


def values_of(exercise: Exercise) -> dict[str, object]:
    """What a template may name: each parameter as shown, then each answer's value."""
    exercise = _check.instance("exercise", exercise, Exercise)
    return {n: p.shown for n, p in exercise.parameters().items()} | {n: a.value for n, a in exercise.answers().items()}


def glue_roles(template: str, prefix: str) -> str:
    """A template with each ``{name:fmt}`` turned into a MyST glue role ``{glue:text}`prefix_name:fmt```.

    >>> glue_roles("{a:.1f} ms", "ch10_x")
    '{glue:text}`ch10_x_a:.1f` ms'
    """
    prefix = _check.text("prefix", prefix)

    def one(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return m.group(0)[0]
        return "{glue:text}`" + f"{prefix}_{m.group(1)}" + (f":{m.group(2)}" if m.group(2) else "") + "`"
    return FIELD.sub(one, _check.text("template", template))


# ---- building blocks ---------------------------------------------------------------------------

def _v(device: str, spec: str) -> float:
    return hw.value(device, spec)


H100_BW = _v("h100_sxm5", "mem_bw_Bps")
H100_PEAK = _v("h100_sxm5", "peak_flop_s")
H100_MEM = _v("h100_sxm5", "mem_capacity_B")
H100_SMS = int(_v("h100_sxm5", "sm_count"))
H200_BW = _v("h200_sxm", "mem_bw_Bps")
LATENCY_S = gpu.TEACHING_HBM_LATENCY_S
_REQ = inference.teaching_request()
_GPU = inference.teaching_gpu()


def _t(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


QUESTIONS_BY_CHAPTER: dict[str, list[Question]] = {c: [] for c in CHAPTERS}


def _num(qid: str, chapter: str, section: str, kind: str, params: Mapping[str, Param | float],
         solve: Callable[..., Mapping[str, object]], answer: str, text: tuple[str, str], hint: tuple[str, str],
         solution: tuple[str, str], flip: bool = False) -> None:
    ex = Exercise(qid, dict(params), solve=solve)
    QUESTIONS_BY_CHAPTER[chapter].append(Question(qid, chapter, section, kind, _t(*text), _t(*hint), _t(*solution),
                                                  exercise=ex, answer=answer, flip=flip))


def _mc(qid: str, chapter: str, section: str, kind: str, text: tuple[str, str], options: tuple[tuple[str, str], ...],
        correct: int, solution: tuple[str, str], hint: tuple[str, str], flip: bool = False) -> None:
    QUESTIONS_BY_CHAPTER[chapter].append(Question(
        qid, chapter, section, kind, _t(*text), _t(*hint), _t(*solution),
        options={"en": tuple(o[0] for o in options), "zh": tuple(o[1] for o in options)}, correct=correct, flip=flip))


# ---- overview ----------------------------------------------------------------------------------

def _ov1(params_b: float, bw: float) -> dict[str, Answer]:
    w = params_b * 1e9 * 2
    t = inference.min_token_time_s(w, bw)
    return {"weight_gb": Answer(w / units.GB, "GB"), "floor_ms": Answer(t / units.MS, "ms"),
            "tok_s": Answer(generations.decode_ceiling_tok_s(bw, w), "tokens/s")}


_num("ch10_ov_q1", "ov", "ov-request", "interview",
     {"params_b": Param(8, "billion parameters", 1, 70, integer=True), "bw": Param(H100_BW, "TB/s", 1e12, 8e12, scale=1e12)},
     _ov1, "floor_ms",
     ("A {params_b:.0f}B-parameter model in BF16 runs at batch one on a GPU with {bw:.2f} TB/s of memory bandwidth. "
      "What is the floor on the time per generated token, in ms?",
      "一个 {params_b:.0f}B 参数的模型以 BF16 存储，在显存带宽 {bw:.2f} TB/s 的 GPU 上只 decode 一个请求。每生成一个 token 至少要多少毫秒？"),
     ("Every weight byte is read once per token.", "每生成一个 token，全部权重都要读一遍。"),
     ("Weights: {params_b:.0f} × two bytes = {weight_gb:.0f} GB. Floor: {weight_gb:.0f} GB / {bw:.2f} TB/s = "
      "**{floor_ms:.2f} ms**, a ceiling of {tok_s:,.0f} tokens/s.",
      "权重：{params_b:.0f}B × 每个两字节 = {weight_gb:.0f} GB。下限：{weight_gb:.0f} GB / {bw:.2f} TB/s = **{floor_ms:.2f} ms**，"
      "即每秒最多 {tok_s:,.0f} 个 token。"))


_num("ch10_ov_q2", "ov", "ov-batching", "interview",
     {"kv_gb": Param(0.0, "GB")},
     lambda kv_gb: {"flip": Answer(inference.compute_bound_batch(
         inference.Request(_REQ.n_params, _REQ.prompt_tokens, kv_gb * units.GB), _GPU), "requests", rel_tol=0.02)},
     "flip",
     ("The teaching model (8B, BF16) on the teaching GPU, with contexts so short that "
      "KV reads ({kv_gb:.0f} GB) are negligible: from what batch size on is a decode step compute-bound?",
      "教学模型（8B，BF16）跑在教学 GPU 上，上下文短到 KV 读取（{kv_gb:.0f} GB）可以忽略：批大小从多少开始，一步 decode 会变成受算力限制？"),
     ("Memory time is fixed (one read of the weights); arithmetic grows with the batch. Set them equal.",
      "访存时间是固定的（权重读一遍），计算时间随批大小增长。令两者相等。"),
     ("$B \\cdot 2N/(\\eta_F F) = B_W/(\\eta_B\\,BW)$ gives **{flip:.0f}** requests. With a KV cache per request the "
      "memory time grows with the batch too, and the step may never flip.",
      "$B \\cdot 2N/(\\eta_F F) = B_W/(\\eta_B\\,BW)$，解得 **{flip:.0f}** 个请求。如果每个请求还带着自己的 KV cache，访存时间也会随批大小增长，这一步就可能永远不翻转。"),
     flip=True)


def _ov3(kv_gb: float, mem_gb: float) -> dict[str, Answer]:
    return {"weight_gb": Answer(_REQ.weight_B / units.GB, "GB"),
            "batch": Answer(inference.max_batch_that_fits(_REQ.weight_B, kv_gb * units.GB, mem_gb * units.GB),
                            "requests", rel_tol=0)}


_num("ch10_ov_q3", "ov", "ov-batching", "self-check",
     {"kv_gb": Param(0.3, "GB", 0.1, 2.0), "mem_gb": Param(H100_MEM / units.GB, "GB", 24, 192, integer=True)},
     _ov3, "batch",
     ("The teaching model's weights and one KV cache of {kv_gb:.2f} GB per request must fit in {mem_gb:.0f} GB. "
      "What is the largest batch?",
      "教学模型的权重，加上每个请求 {kv_gb:.2f} GB 的 KV cache，都要放进 {mem_gb:.0f} GB 显存。批大小最大能到多少？"),
     ("Subtract the weights, divide by the KV per request, round down.", "先减去权重，再除以每个请求的 KV，向下取整。"),
     ("({mem_gb:.0f} − {weight_gb:.0f}) GB / {kv_gb:.2f} GB, rounded down: **{batch:.0f}** requests.",
      "({mem_gb:.0f} − {weight_gb:.0f}) GB / {kv_gb:.2f} GB，向下取整：**{batch:.0f}** 个请求。"))


_num("ch10_ov_q4", "ov", "ov-server", "interview",
     {"gbit": Param(400, "Gb/s", 100, 800, integer=True), "size_gb": Param(10, "GB", 1, 100, integer=True)},
     lambda gbit, size_gb: {"s": Answer(size_gb * units.GB / units.bits_to_bytes(gbit * 1e9), "s"),
                            "bytes_gb": Answer(units.bits_to_bytes(gbit * 1e9) / units.GB, "GB/s"),
                            "bpb": Answer(units.BITS_PER_BYTE, "bits", rel_tol=0)},
     "s",
     ("A network card is sold as {gbit:.0f} Gb/s per direction. How many seconds does it take to send {size_gb:.0f} GB?",
      "一块网卡标称单向 {gbit:.0f} Gb/s。发送 {size_gb:.0f} GB 要多少秒？"),
     ("Gb is gigabits: divide by {bpb:.0f} for bytes.", "Gb 是比特而不是字节：除以 {bpb:.0f} 才是字节数。"),
     ("{gbit:.0f} Gb/s = {bytes_gb:.0f} GB/s, so {size_gb:.0f} GB take **{s:.2f} s**.",
      "{gbit:.0f} Gb/s = {bytes_gb:.0f} GB/s，所以 {size_gb:.0f} GB 需要 **{s:.2f} s**。"))

_mc("ch10_ov_q5", "ov", "ov-request", "interview",
    ("At batch one, which change shortens a decode step of a large model the most?",
     "只 decode 一个请求时，下面哪项改动最能缩短大模型一步 decode 的时间？"),
    (("Twice the peak FLOP/s", "峰值算力翻倍"), ("Twice the memory bandwidth", "显存带宽翻倍"),
     ("A faster CPU", "更快的 CPU")), 1,
    ("The step reads every weight once and does two FLOP per weight: far below the ridge point, so it is "
     "bandwidth-bound and only more bytes per second shorten it.",
     "每一步都把全部权重读一遍，每个权重只做两次浮点运算，远低于屋脊点，所以受带宽限制：只有每秒读更多字节，它才会变快。"),
    ("Compare FLOP per byte of the step with the GPU's ridge point.", "比较这一步每字节的运算量和 GPU 的屋脊点。"))

_mc("ch10_ov_q6", "ov", "ov-batching", "self-check",
    ("Why does batching make decode cheaper per token?", "为什么组 batch 能降低每个 token 的 decode 成本？"),
    (("The weights are read once for the whole batch", "整个 batch 共用一次权重读取"),
     ("Each request's KV cache gets smaller", "每个请求的 KV cache 变小了"),
     ("The GPU clock rises", "GPU 频率升高了")), 0,
    ("The weight bytes are shared by every request of the step; the KV bytes are not, which is why batching stops "
     "helping once KV dominates.",
     "权重字节由这一步里的所有请求分摊，KV 字节则各付各的；所以一旦 KV 占了大头，批大小再往上加也帮不上忙了。"),
    ("What does each step read, and what of it is shared?", "每一步读了什么？其中哪些是共享的？"))

# ---- chapter 1: chips ---------------------------------------------------------------------------

_num("ch10_ch1_q1", "ch1", "ch1-wafer", "self-check",
     {"area": Param(814, "mm²", 100, 850, integer=True), "wafer": Param(fab.wafer_diameter_mm(), "mm")},
     lambda area, wafer: {"dies": Answer(fab.gross_dies_per_wafer(area, wafer), "dies", rel_tol=0.02),
                          "ideal": Answer(fab.dies_per_wafer_area_only(area, wafer), "dies")},
     "dies",
     ("How many dies of {area:.0f} mm² fit on a {wafer:.0f} mm wafer, counting the loss at the edge?",
      "一片 {wafer:.0f} mm 晶圆上能放多少个 {area:.0f} mm² 的 die（计入边缘损失）？"),
     ("Wafer area over die area, minus the partial dies along the circumference.",
      "晶圆面积除以 die 面积，再减去沿圆周那些不完整的 die。"),
     ("Area alone gives {ideal:.1f}; the edge term $\\pi d/\\sqrt{{2A}}$ removes the partial dies: **{dies:.0f}** dies.",
      "只按面积算是 {ideal:.1f} 个；边缘项 $\\pi d/\\sqrt{{2A}}$ 扣掉边缘上不完整的 die：**{dies:.0f}** 个。"))

_num("ch10_ch1_q2", "ch1", "ch1-yield", "interview",
     {"area": Param(814, "mm²", 100, 850, integer=True), "d0": Param(0.1, "defects/cm²", 0.03, 0.3)},
     lambda area, d0: {"murphy": Answer(fab.murphy_yield(area, d0), "fraction"),
                       "poisson": Answer(fab.poisson_yield(area, d0), "fraction")},
     "murphy",
     ("A die of {area:.0f} mm² at a defect density of {d0:.2f} per cm²: what share of dies work, by Murphy's model?",
      "die 面积 {area:.0f} mm²，缺陷密度为每平方厘米 {d0:.2f} 个：按 Murphy 模型，能正常工作的 die 占多大比例？"),
     ("Convert the area to cm² first: $A D_0$ is the mean number of defects per die.",
      "先把面积换算成平方厘米：$A D_0$ 是每个 die 上的平均缺陷数。"),
     ("Murphy's model, which lets the defect density vary across the wafer, gives **{murphy:.1%}**; Poisson, which "
      "assumes uniform defects, gives {poisson:.1%}.",
      "Murphy 模型允许缺陷密度在晶圆上变化，给出 **{murphy:.1%}**；假设缺陷均匀分布的泊松模型给出 {poisson:.1%}。"))

_num("ch10_ch1_q3", "ch1", "ch1-cost", "self-check",
     {"price": Param(17000, "USD", 5000, 30000, integer=True), "area": Param(814, "mm²", 100, 850, integer=True),
      "d0": Param(0.1, "defects/cm²", 0.03, 0.3)},
     lambda price, area, d0: {"cost": Answer(fab.cost_per_good_die_usd(price, area, d0), "USD", rel_tol=0.02),
                              "good": Answer(fab.good_dies_per_wafer(area, d0), "dies")},
     "cost",
     ("A wafer costs {price:,.0f} USD. What does one good {area:.0f} mm² die cost at {d0:.2f} defects per cm² (Murphy)?",
      "一片晶圆 {price:,.0f} 美元。缺陷密度为每平方厘米 {d0:.2f} 个（Murphy 模型）时，一个 {area:.0f} mm² 的好 die 成本是多少？"),
     ("Divide the wafer price by the good dies per wafer.", "晶圆价格除以每片晶圆上的好 die 数。"),
     ("Good dies per wafer: {good:.1f}. {price:,.0f} / {good:.1f} = **{cost:,.0f} USD**.",
      "每片晶圆上的好 die：{good:.1f} 个。{price:,.0f} / {good:.1f} = **{cost:,.0f} 美元**。"))

_num("ch10_ch1_q4", "ch1", "ch1-kgd", "interview",
     {"y": Param(0.6, "fraction", 0.3, 0.95), "n": Param(2, "dies", 2, 8, integer=True)},
     lambda y, n: {"pkg": Answer(fab.untested_package_yield(y, n), "fraction")},
     "pkg",
     ("Dies yield {y:.0%} and are packaged {n:.0f} at a time without testing. What share of packages work?",
      "die 的良率是 {y:.0%}，不经测试就每 {n:.0f} 个封装在一起。能正常工作的封装占多大比例？"),
     ("Every die in the package must work.", "封装里的每个 die 都必须是好的。"),
     ("$Y^n$ = **{pkg:.1%}**: testing the dies first (known good die) avoids throwing good dies away.",
      "$Y^n$ = **{pkg:.1%}**：封装前先把 die 测一遍（已知良品裸片），坏的就不会连累好的一起报废。"))

_num("ch10_ch1_q5", "ch1", "ch1-hbm", "self-check",
     {"stacks": Param(5, "stacks", 1, 8, integer=True), "pin": Param(5.23e9, "Gb/s per pin", 2e9, 10e9, scale=1e9),
      "width": Param(1024, "bits per stack")},
     lambda stacks, pin, width: {"bw": Answer(memory.hbm_bandwidth_from_pins_Bps(stacks, int(width), pin) / units.GB, "GB/s"),
                                 "bus": Answer(memory.bus_bits(stacks, int(width)), "bits", rel_tol=0),
                                 "bpb": Answer(units.BITS_PER_BYTE, "bits", rel_tol=0)},
     "bw",
     ("A GPU has {stacks:.0f} HBM stacks, each with a {width:.0f}-bit interface, at {pin:.2f} Gb/s per pin. What is its memory "
      "bandwidth in GB/s?",
      "一块 GPU 有 {stacks:.0f} 个 HBM 堆栈，每个堆栈的接口 {width:.0f} 位宽，每个引脚 {pin:.2f} Gb/s。显存带宽是多少 GB/s？"),
     ("Bus width × pin rate, divided by {bpb:.0f}.", "总线位宽 × 引脚速率，再除以 {bpb:.0f}。"),
     ("{bus:,.0f} bits × {pin:.2f} Gb/s / {bpb:.0f} = **{bw:,.0f} GB/s**.", "{bus:,.0f} 位 × {pin:.2f} Gb/s / {bpb:.0f} = **{bw:,.0f} GB/s**。"))

_mc("ch10_ch1_q6", "ch1", "ch1-reticle", "interview",
    ("Splitting one large die into two half-size dies pays off when…",
     "把一个大 die 拆成两个一半大小的 die，什么时候划算？"),
    (("defect density is high and the die is near the reticle limit", "缺陷密度高、die 接近单次曝光上限时"),
     ("defect density is close to zero", "缺陷密度接近零时"), ("the wafer is cheap", "晶圆便宜时")), 0,
    ("Yield falls faster than linearly with area, so halves lose less to defects; at near-zero defect density both "
     "yield nearly fully and the split only adds packaging cost.",
     "良率随面积下降得比线性还快，所以半大小的 die 因缺陷损失得更少；缺陷密度接近零时，两种做法的良率都接近百分之百，拆开只会平添封装成本。"),
    ("Compare the yield of one area with the square of the yield of half of it.", "比较整块面积的良率与半块面积良率的平方。"),
    flip=True)

# ---- chapter 2: CPU -----------------------------------------------------------------------------

_num("ch10_ch2_q1", "ch2", "ch2-caches", "self-check",
     {"hit": Param(4, "cycles", 1, 10, integer=True), "miss": Param(0.1, "fraction", 0.01, 0.5),
      "penalty": Param(200, "cycles", 50, 400, integer=True)},
     lambda hit, miss, penalty: {"amat": Answer(cpu.amat(hit, miss, penalty), "cycles")},
     "amat",
     ("A cache hits in {hit:.0f} cycles, misses {miss:.0%} of the time, and a miss costs {penalty:.0f} cycles more. "
      "What is the average memory access time, in cycles?",
      "缓存命中需要 {hit:.0f} 个周期，缺失率 {miss:.0%}，每次缺失多花 {penalty:.0f} 个周期。平均访存时间是多少个周期？"),
     ("Hit time plus miss rate times miss penalty.", "命中时间加上缺失率乘以缺失代价。"),
     ("{hit:.0f} + {miss:.2f} × {penalty:.0f} = **{amat:.1f} cycles**.", "{hit:.0f} + {miss:.2f} × {penalty:.0f} = **{amat:.1f} 个周期**。"))

_num("ch10_ch2_q2", "ch2", "ch2-pipelines", "interview",
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
     flip=True)

_num("ch10_ch2_q3", "ch2", "ch2-simd", "self-check",
     {"bits": Param(4, "bits", 1, 4, integer=True, scale=1 / 128),   # drawn in 128-bit steps; shown in bits
      "units": Param(2, "FMA units", 1, 4, integer=True),
      "cores": Param(56, "cores", 8, 128, integer=True), "ghz": Param(2.0e9, "GHz", 1e9, 4e9, scale=1e9),
      "el": Param(32, "bits")},
     lambda bits, units, cores, ghz, el: {
         "per_cycle": Answer(cpu.simd_flop_per_cycle(int(bits) * 128, int(el), units), "FLOP", rel_tol=0),
         "tflops": Answer(cpu.peak_flop_s(cpu.simd_flop_per_cycle(int(bits) * 128, int(el), units), cores, ghz) / 1e12,
                          "TFLOP/s")},
     "tflops",
     ("A CPU has {cores:.0f} cores at {ghz:.1f} GHz, each with {units:.0f} FMA units of {bits:.0f} bits. What is its FP32 "
      "peak in TFLOP/s?",
      "一颗 CPU 有 {cores:.0f} 个核心，频率 {ghz:.1f} GHz，每个核心 {units:.0f} 个 {bits:.0f} 位的 FMA 单元。FP32 峰值是多少 TFLOP/s？"),
     ("Lanes = vector bits / {el:.0f} bits per FP32 value; an FMA counts two FLOP.", "通道数 = 向量位宽 / 每个 FP32 值的 {el:.0f} 位；一次 FMA 算两次浮点运算。"),
     ("{per_cycle:.0f} FLOP per cycle per core × {cores:.0f} × {ghz:.1f} GHz = **{tflops:.2f} TFLOP/s**.",
      "每核每周期 {per_cycle:.0f} 次 × {cores:.0f} 核 × {ghz:.1f} GHz = **{tflops:.2f} TFLOP/s**。"))

_num("ch10_ch2_q4", "ch2", "ch2-numa", "self-check",
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
      "{local:.0f} × {local_share:.2f} + {local:.0f} × {ratio:.1f} × {remote:.2f} = **{ns:.1f} ns**。"))

_num("ch10_ch2_q5", "ch2", "ch2-launch", "interview",
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
     flip=True)

_mc("ch10_ch2_q6", "ch2", "ch2-launch", "interview",
    ("What does a CUDA graph save?", "CUDA graph 省掉的是什么？"),
    (("GPU arithmetic", "GPU 的计算量"), ("Per-kernel CPU launch cost", "每个 kernel 的 CPU 发射开销"),
     ("HBM traffic", "HBM 访存量")), 1,
    ("A graph replays a recorded sequence of kernels with one launch; the kernels do the same work and move the same "
     "bytes.", "graph 用一次发射重放录好的一串 kernel；kernel 本身做的计算和搬的字节都不变。"),
    ("What is recorded once and replayed?", "录一次、重放多次的是什么？"))

# ---- chapter 3: GPU -----------------------------------------------------------------------------

_num("ch10_ch3_q1", "ch3", "ch3-divergence", "self-check",
     {"k": Param(8, "lanes", 1, 31, integer=True), "a": Param(40, "cycles", 10, 100, integer=True),
      "b": Param(10, "cycles", 10, 100, integer=True)},
     lambda k, a, b: {"eff": Answer(gpu.branch_efficiency(k, a, b), "fraction")},
     "eff",
     ("In one warp, {k:.0f} lanes take a {a:.0f}-cycle path and the others a {b:.0f}-cycle path. What fraction of the "
      "issued lane-cycles does useful work?",
      "一个 warp 里 {k:.0f} 个通道走 {a:.0f} 个周期的分支，其余通道走 {b:.0f} 个周期的分支。发出的通道周期中有多大比例在做有用功？"),
     ("The warp issues both paths for all its lanes.", "warp 会对所有通道把两条路径都执行一遍。"),
     ("Useful: $k a + (W-k) b$; issued: $W (a + b)$. $\\eta$ = **{eff:.1%}**.",
      "有用：$k a + (W-k) b$；发出：$W (a + b)$。$\\eta$ = **{eff:.1%}**。"))

_num("ch10_ch3_q2", "ch3", "ch3-littles-law", "interview",
     {"bw": Param(H100_BW, "TB/s", 1e12, 8e12, scale=1e12), "ns": Param(LATENCY_S, "ns", 300e-9, 1200e-9, scale=1e-9)},
     lambda bw, ns: {"mb": Answer(gpu.bytes_in_flight_B(bw, ns) / units.MB, "MB")},
     "mb",
     ("A GPU has {bw:.2f} TB/s of memory bandwidth and a memory latency of {ns:.0f} ns. How many MB must be in flight "
      "to use all of it?",
      "一块 GPU 显存带宽 {bw:.2f} TB/s，访存延迟 {ns:.0f} ns。要用满带宽，同时在途的数据要有多少 MB？"),
     ("Little's law.", "利特尔定律。"),
     ("Bandwidth × latency = **{mb:.2f} MB**.", "带宽 × 延迟 = **{mb:.2f} MB**。"))

_num("ch10_ch3_q3", "ch3", "ch3-littles-law", "self-check",
     {"regs": Param(128, "registers per thread", 32, 255, integer=True)},
     lambda regs: {"warps": Answer(gpu.warps_per_sm(regs), "warps", rel_tol=0),
                   "need": Answer(gpu.bytes_per_warp_needed_B(H100_BW, LATENCY_S, H100_SMS, gpu.warps_per_sm(regs)), "B")},
     "warps",
     ("A kernel needs {regs:.0f} registers per thread. How many warps fit on one H100 SM?",
      "一个 kernel 每个线程要 {regs:.0f} 个寄存器。一个 H100 SM 上能驻留多少个 warp？"),
     ("Registers per SM over registers per warp, rounded down (and at most the SM's warp limit).",
      "每个 SM 的寄存器数除以每个 warp 的寄存器数，向下取整（且不超过 SM 的 warp 上限）。"),
     ("**{warps:.0f} warps**; each must then keep {need:,.0f} bytes in flight to use the HBM bandwidth.",
      "**{warps:.0f} 个 warp**；每个 warp 要有 {need:,.0f} 字节在途才能用满 HBM 带宽。"))

_num("ch10_ch3_q4", "ch3", "ch3-tensor-peaks", "interview",
     {"peak": Param(H100_PEAK, "TFLOP/s", 1e14, 2e15, scale=1e12), "sms": Param(H100_SMS, "SMs", 50, 200, integer=True),
      "per_clock": Param(_v("h100_sxm5", "tensor_flop_per_clock_per_sm"), "FLOP per clock per SM")},
     lambda peak, sms, per_clock: {"mhz": Answer(generations.implied_clock_hz(peak, sms, per_clock) / 1e6, "MHz")},
     "mhz",
     ("A datasheet gives {peak:,.0f} TFLOP/s dense BF16 for {sms:.0f} SMs of {per_clock:,.0f} FLOP per clock each. What "
      "clock does that peak assume, in MHz?",
      "数据手册给出稠密 BF16 {peak:,.0f} TFLOP/s，共 {sms:.0f} 个 SM，每个 SM 每时钟 {per_clock:,.0f} 次浮点运算。这个峰值假设的频率是多少 MHz？"),
     ("Peak = SMs × FLOP per clock × clock.", "峰值 = SM 数 × 每时钟运算数 × 频率。"),
     ("{peak:,.0f} × 10¹² / ({sms:.0f} × {per_clock:,.0f}) = **{mhz:,.0f} MHz**.",
      "{peak:,.0f} × 10¹² / ({sms:.0f} × {per_clock:,.0f}) = **{mhz:,.0f} MHz**。"))

_num("ch10_ch3_q5", "ch3", "ch3-block-scaling", "self-check",
     {"el": Param(4, "bits", 4, 8, integer=True), "sc": Param(8, "bits", 8, 8, integer=True),
      "block": Param(32, "values", 8, 64, integer=True)},
     lambda el, sc, block: {"bits": Answer(formats_bits(el, sc, block), "bits")},
     "bits",
     ("A block format stores {el:.0f}-bit elements with one {sc:.0f}-bit scale per block of {block:.0f}. How many bits "
      "does it use per value?",
      "一种块缩放格式用 {el:.0f} 位存元素，每 {block:.0f} 个值共享一个 {sc:.0f} 位的缩放因子。平均每个值占多少位？"),
     ("Spread the scale over the block.", "把缩放因子的位数摊到整块上。"),
     ("{el:.0f} + {sc:.0f} / {block:.0f} = **{bits:.3f} bits**.", "{el:.0f} + {sc:.0f} / {block:.0f} = **{bits:.3f} 位**。"))


def formats_bits(element_bits: int, scale_bits: int, block_size: int) -> float:
    """Bits per value of a block format (calls :func:`infra_lib.formats.bits_per_value`)."""
    from . import formats
    return formats.bits_per_value(element_bits, scale_bits, block_size)


_num("ch10_ch3_q6", "ch3", "ch3-nvlink", "interview",
     {"links": Param(18, "links", 4, 18, integer=True), "per": Param(25e9, "GB/s", 25e9, 50e9, scale=1e9)},
     lambda links, per: {"total": Answer(gpu.nvlink_total_Bps(links, per) / units.GB, "GB/s"),
                         "dir": Answer(links * per / units.GB, "GB/s")},
     "dir",
     ("A GPU has {links:.0f} NVLink links of {per:.0f} GB/s per direction each. The datasheet quotes {total:,.0f} GB/s. "
      "How much can it send in one direction, in GB/s?",
      "一块 GPU 有 {links:.0f} 条 NVLink，每条单向 {per:.0f} GB/s。数据手册写的是 {total:,.0f} GB/s。它单向能发多少 GB/s？"),
     ("The quoted figure counts both directions.", "手册上的数字是双向之和。"),
     ("{links:.0f} × {per:.0f} = **{dir:,.0f} GB/s** per direction; the quoted {total:,.0f} GB/s is the two-way total.",
      "{links:.0f} × {per:.0f} = 单向 **{dir:,.0f} GB/s**；手册上的 {total:,.0f} GB/s 是双向合计。"))

_mc("ch10_ch3_q7", "ch3", "ch3-littles-law", "interview",
    ("Why does an SM keep many warps resident instead of running one warp fast?",
     "为什么一个 SM 要同时驻留很多 warp，而不是把一个 warp 跑得飞快？"),
    (("To hide memory latency: while one warp waits, another issues", "为了隐藏访存延迟：一个 warp 在等，另一个就发射指令"),
     ("To raise the clock", "为了提高频率"), ("Because each warp can only run one instruction in its life", "因为每个 warp 从头到尾只能执行一条指令")), 0,
    ("Switching warps is free (their registers stay on the SM), so the scheduler fills the wait of one with the work of "
     "others; Little's law says how many bytes must be in flight for that to reach the bandwidth.",
     "切换 warp 没有开销（寄存器一直留在 SM 上），调度器拿别的 warp 的工作填补一个 warp 的等待；利特尔定律告诉你，要有多少字节在途才能跑满带宽。"),
    ("What does a warp do while its load is on the way?", "一个 warp 的加载在路上时，它在做什么？"))

# ---- chapter 4: generations ----------------------------------------------------------------------

_num("ch10_ch4_q1", "ch4", "ch4-implied", "self-check",
     {"peak": Param(H100_PEAK, "TFLOP/s", 1e14, 5e15, scale=1e12), "bw": Param(H100_BW, "TB/s", 1e12, 8e12, scale=1e12)},
     lambda peak, bw: {"ridge": Answer(roofline.ridge_point(peak, bw), "FLOP/B")},
     "ridge",
     ("A GPU has {peak:,.0f} TFLOP/s and {bw:.2f} TB/s. What is its ridge point, in FLOP per byte?",
      "一块 GPU 算力 {peak:,.0f} TFLOP/s、带宽 {bw:.2f} TB/s。屋脊点是每字节多少次浮点运算？"),
     ("Peak over bandwidth.", "峰值除以带宽。"),
     ("{peak:,.0f} / {bw:.2f} = **{ridge:,.0f} FLOP/B**: a kernel below it is memory-bound.",
      "{peak:,.0f} / {bw:.2f} = **每字节 {ridge:,.0f} 次**：低于它的 kernel 受访存限制。"))

_num("ch10_ch4_q2", "ch4", "ch4-generations", "interview",
     {"bw_old": Param(H100_BW, "TB/s", 1e12, 8e12, scale=1e12), "bw_new": Param(H200_BW, "TB/s", 1e12, 8e12, scale=1e12),
      "params_b": Param(70, "billion parameters", 7, 400, integer=True)},
     lambda bw_old, bw_new, params_b: {
         "old": Answer(generations.decode_ceiling_tok_s(bw_old, params_b * 2e9), "tokens/s"),
         "new": Answer(generations.decode_ceiling_tok_s(bw_new, params_b * 2e9), "tokens/s"),
         "gain": Answer(bw_new / bw_old, "×")},
     "gain",
     ("A {params_b:.0f}B model in BF16 decodes at batch one. Going from {bw_old:.2f} TB/s to {bw_new:.2f} TB/s of memory "
      "bandwidth (same FLOP/s), how many times faster is the decode ceiling?",
      "一个 {params_b:.0f}B 的 BF16 模型，只 decode 一个请求。显存带宽从 {bw_old:.2f} TB/s 提高到 {bw_new:.2f} TB/s（算力不变），decode 上限变成原来的多少倍？"),
     ("The batch-one ceiling is bandwidth over weight bytes.", "单请求时，上限就是带宽除以权重字节数。"),
     ("{old:,.1f} → {new:,.1f} tokens/s: **{gain:.2f}×**, exactly the bandwidth ratio.",
      "每秒 {old:,.1f} → {new:,.1f} 个 token：**{gain:.2f}×**，正好是带宽之比。"))

_num("ch10_ch4_q3", "ch4", "ch4-gpus-needed", "self-check",
     {"params_b": Param(70, "billion parameters", 7, 700, integer=True), "bpp": Param(2, "B per parameter", 0.5, 2),
      "mem_gb": Param(80, "GB", 24, 288, integer=True)},
     lambda params_b, bpp, mem_gb: {"gpus": Answer(math.ceil(params_b * 1e9 * bpp / (mem_gb * units.GB)), "GPUs", rel_tol=0),
                                    "weight_gb": Answer(params_b * bpp, "GB")},
     "gpus",
     ("How many GPUs of {mem_gb:.0f} GB does it take just to hold the weights of a {params_b:.0f}B model at {bpp:.1f} "
      "bytes per parameter?",
      "一个 {params_b:.0f}B 的模型，每个参数 {bpp:.1f} 字节，光放权重就要多少块 {mem_gb:.0f} GB 的 GPU？"),
     ("Weight bytes over memory per GPU, rounded up.", "权重字节数除以每块 GPU 的显存，向上取整。"),
     ("{weight_gb:,.0f} GB / {mem_gb:.0f} GB, rounded up: **{gpus:.0f} GPUs**, before any KV cache.",
      "{weight_gb:,.0f} GB / {mem_gb:.0f} GB，向上取整：**{gpus:.0f} 块**，这还没算 KV cache。"))

_num("ch10_ch4_q4", "ch4", "ch4-gpus-needed", "interview",
     {"layers": Param(80, "layers", 16, 128, integer=True), "kv_heads": Param(8, "KV heads", 1, 64, integer=True),
      "head_dim": Param(128, "", 64, 256, integer=True)},
     lambda layers, kv_heads, head_dim: {"kb": Answer(models.kv_B_per_token(layers, kv_heads, head_dim) / units.KB, "KB")},
     "kb",
     ("A model has {layers:.0f} layers, {kv_heads:.0f} KV heads of dimension {head_dim:.0f}, and stores K and V in BF16. "
      "How many KB of KV cache does each token take?",
      "一个模型有 {layers:.0f} 层、{kv_heads:.0f} 个 KV 头，每个头维度 {head_dim:.0f}，K 和 V 以 BF16 存储。每个 token 占多少 KB 的 KV cache？"),
     ("Two tensors (K and V) × layers × KV heads × head dimension × two bytes.", "两个张量（K 和 V）× 层数 × KV 头数 × 头维度 × 两个字节。"),
     ("**{kb:,.1f} KB** per token.", "每个 token **{kb:,.1f} KB**。"))

_mc("ch10_ch4_q5", "ch4", "ch4-generations", "interview",
    ("From one GPU generation to the next, peak FLOP/s has grown faster than memory bandwidth. What happens to the "
     "ridge point?", "从一代 GPU 到下一代，峰值算力增长得比显存带宽快。屋脊点会怎样变化？"),
    (("It moves right: more kernels become memory-bound", "右移：更多 kernel 变成访存受限"),
     ("It moves left: more kernels become compute-bound", "左移：更多 kernel 变成算力受限"),
     ("It stays where it is", "保持不变")), 0,
    ("The ridge point is peak over bandwidth: if the numerator grows faster, a kernel needs more FLOP per byte to "
     "reach the peak.", "屋脊点是峰值除以带宽：分子增长更快，kernel 就需要更高的每字节运算量才能达到峰值。"),
    ("Ridge = peak / bandwidth.", "屋脊点 = 峰值 / 带宽。"))

_mc("ch10_ch4_q6", "ch4", "ch4-spec-sheet", "self-check",
    ("A datasheet prints a Tensor Core peak with an asterisk “with sparsity”. What is the dense peak?",
     "数据手册上的 Tensor Core 峰值带星号，注明“含稀疏”。稠密峰值是多少？"),
    (("Half of it", "它的一半"), ("The same", "一样"), ("Twice as much", "两倍")), 0,
    ("Structured two-of-four sparsity doubles the quoted rate; dense matrices get half.",
     "四选二结构化稀疏让标称算力翻倍；稠密矩阵只有一半。"),
    ("What does two-of-four sparsity skip?", "四选二稀疏跳过了什么？"))

# ---- chapter 5: CUDA ----------------------------------------------------------------------------

_num("ch10_ch5_q1", "ch5", "ch5-vector-add", "self-check",
     {"n": Param(5000, "elements", 1000, 9999, integer=True),   # below 10,000: the Chinese edition writes larger counts in 万
      "tpb": Param(256, "threads per block", 32, 1024, integer=True)},
     lambda n, tpb: {"blocks": Answer(cuda.grid_blocks(n, tpb), "blocks", rel_tol=0),
                     "idle": Answer(cuda.idle_threads(n, tpb), "threads", rel_tol=0)},
     "blocks",
     ("A vector add over {n:,.0f} elements launches {tpb:.0f} threads per block. How many blocks does the grid need?",
      "对 {n:,.0f} 个元素做向量加法，每个线程块 {tpb:.0f} 个线程。grid 需要多少个线程块？"),
     ("Round up: every element needs a thread.", "向上取整：每个元素都要有一个线程。"),
     ("⌈{n:,.0f} / {tpb:.0f}⌉ = **{blocks:,.0f} blocks**; {idle:.0f} threads of the last one find no element.",
      "⌈{n:,.0f} / {tpb:.0f}⌉ = **{blocks:,.0f} 个线程块**；最后一个线程块里有 {idle:.0f} 个线程分不到元素。"))

_num("ch10_ch5_q2", "ch5", "ch5-coalescing", "interview",
     {"stride": Param(2, "elements", 1, 32, integer=True), "el_b": Param(4, "B"), "sector": Param(cuda.SECTOR_B, "B")},
     lambda stride, el_b, sector: {"useful": Answer(cuda.useful_fraction(stride, int(el_b), 32, int(sector)), "fraction")},
     "useful",
     ("A warp reads {el_b:.0f}-byte floats with a stride of {stride:.0f} elements. What fraction of the bytes moved in "
      "{sector:.0f}-byte sectors did the warp ask for?",
      "一个 warp 以 {stride:.0f} 个元素的步长读取 {el_b:.0f} 字节的 float。按 {sector:.0f} 字节扇区搬运的数据里，有多大比例是 warp 真正要的？"),
     ("Count the sectors the warp's addresses touch.", "数一数 warp 的地址落在多少个扇区里。"),
     ("**{useful:.1%}** of the moved bytes are used: the rest came along in the same sectors.",
      "搬运的字节里只有 **{useful:.1%}** 有用：其余是同一扇区里顺带搬来的。"))

_num("ch10_ch5_q3", "ch5", "ch5-tiling", "self-check",
     {"tile": Param(128, "elements", 16, 256, integer=True)},
     lambda tile: {"ai": Answer(cuda.tile_intensity(tile, tile, 2), "FLOP/B")},
     "ai",
     ("A matmul kernel computes a square output tile of {tile:.0f} × {tile:.0f} in BF16. How many FLOP does it do per byte "
      "it loads?",
      "一个矩阵乘 kernel 每次计算 {tile:.0f} × {tile:.0f} 的方形输出块，数据为 BF16。它每加载一个字节做多少次浮点运算？"),
     ("Per step along k: two FLOP per output, and one column of the A tile and one row of the B tile loaded.",
      "k 每走一步：每个输出两次运算，加载 A 块的一列和 B 块的一行。"),
     ("Two FLOP per output for each step along k, over the bytes of one column of the A tile and one row of the B "
      "tile: **{ai:.0f} FLOP/B**. A bigger tile reuses each loaded value more.",
      "沿 k 每走一步，每个输出做两次运算，除以 A 块一列和 B 块一行的字节数：**每字节 {ai:.0f} 次**。块越大，每个加载的值复用得越多。"))

_num("ch10_ch5_q4", "ch5", "ch5-streams", "interview",
     {"chunks": Param(4, "chunks", 1, 16, integer=True), "h2d": Param(2e-3, "ms", 0.5e-3, 5e-3, scale=1e-3),
      "k": Param(3e-3, "ms", 0.5e-3, 5e-3, scale=1e-3), "d2h": Param(1e-3, "ms", 0.5e-3, 5e-3, scale=1e-3)},
     lambda chunks, h2d, k, d2h: {"ms": Answer(cuda.overlapped_time_s(chunks, h2d, k, d2h) / units.MS, "ms"),
                                  "serial": Answer(chunks * (h2d + k + d2h) / units.MS, "ms")},
     "ms",
     ("Work is cut into {chunks:.0f} chunks on streams; each chunk copies in for {h2d:.1f} ms, computes {k:.1f} ms, "
      "copies out {d2h:.1f} ms. How long does the pipelined whole take, in ms?",
      "工作切成 {chunks:.0f} 块放到多个 stream 上；每块拷入 {h2d:.1f} ms、计算 {k:.1f} ms、拷出 {d2h:.1f} ms。流水线化后总共要多少毫秒？"),
     ("The first chunk goes through every stage; each further chunk adds the slowest stage.",
      "第一块走完所有阶段；之后每多一块，加上最慢那个阶段的时间。"),
     ("**{ms:.1f} ms**, against {serial:.1f} ms one after another.", "**{ms:.1f} ms**，逐块串行则要 {serial:.1f} ms。"))

_mc("ch10_ch5_q5", "ch5", "ch5-occupancy", "interview",
    ("Higher occupancy helps a kernel until…", "提高占用率对 kernel 有帮助，直到……"),
    (("enough bytes are in flight to cover the memory latency", "在途字节已经足以覆盖访存延迟"),
     ("every register is used", "所有寄存器都用上"), ("the grid has more blocks than SMs", "grid 的线程块数超过 SM 数")), 0,
    ("Occupancy is a means to keep loads in flight (Little's law); once they cover bandwidth × latency, more warps "
     "only compete for registers and cache.", "占用率只是让足够多的加载同时在途的手段（利特尔定律）；在途字节一旦覆盖了带宽 × 延迟，再多的 warp 只会争抢寄存器和缓存。"),
    ("What is occupancy for?", "占用率是用来做什么的？"), flip=True)

_mc("ch10_ch5_q6", "ch5", "ch5-tiling", "self-check",
    ("Why do matmul kernels stage tiles in shared memory?", "矩阵乘 kernel 为什么要把数据块放进共享内存？"),
    (("To reuse each loaded value many times", "让每个加载进来的值复用多次"), ("Because HBM cannot be read directly", "因为 HBM 不能直接读"),
     ("To save registers", "为了省寄存器")), 0,
    ("A tile loaded once feeds a whole row or column of outputs, raising FLOP per byte of HBM traffic.",
     "一个数据块加载一次，就能供整行或整列输出使用，每字节 HBM 访存对应的运算量就上去了。"),
    ("Think of arithmetic intensity.", "想想算术强度。"))

# ---- chapter 6: performance ---------------------------------------------------------------------

_num("ch10_ch6_q1", "ch6", "ch6-ridge-side", "interview",
     {"m": Param(1, "rows", 1, 4096, integer=True), "k": Param(8192, "", 1024, 16384, integer=True),
      "n": Param(8192, "", 1024, 16384, integer=True)},
     lambda m, k, n: {"ai": Answer(ops.matmul(m, k, n).intensity, "FLOP/B"),
                      "bound": Answer(ops.bound(ops.matmul(m, k, n), H100_PEAK, H100_BW)),
                      "ridge": Answer(roofline.ridge_point(H100_PEAK, H100_BW), "FLOP/B")},
     "ai",
     ("A BF16 matmul multiplies a {m:d} × {k:d} activation by a {k:d} × {n:d} "
      "weight. What is its arithmetic intensity in FLOP per byte, and is it memory- or compute-bound on an H100?",
      "一个 BF16 矩阵乘用 {m:d} × {k:d} 的激活乘以 {k:d} × {n:d} 的权重。它的算术强度是每字节多少次浮点运算？在 H100 上是访存受限还是算力受限？"),
     ("FLOP = 2mkn; bytes = two per element of A, B and C.", "运算量 = 2mkn；字节数 = A、B、C 每个元素两个字节。"),
     ("**{ai:,.1f} FLOP/B** against the H100's ridge of {ridge:,.0f}: below the ridge it is memory-bound, above it "
      "compute-bound. It flips when the rows (the batch of tokens) "
      "grow towards the ridge.", "**每字节 {ai:,.1f} 次**，H100 的屋脊点是 {ridge:,.0f}：低于屋脊点就是访存受限，高于则是算力受限。行数（batch 里的 token 数）增长到接近屋脊点时，结论就会翻转。"),
     flip=True)


_num("ch10_ch6_q2", "ch6", "ch6-mfu", "self-check",
     {"tok_s": Param(3000, "tokens/s", 500, 9000, integer=True), "params_b": Param(70, "billion parameters", 7, 400, integer=True),
      "gpus": Param(8, "GPUs", 1, 64, integer=True), "per": Param(6, "FLOP per parameter per token")},
     lambda tok_s, params_b, gpus, per: {"mfu": Answer(utilization.mfu(tok_s, per * params_b * 1e9, gpus, H100_PEAK), "fraction")},
     "mfu",
     ("Training a {params_b:.0f}B model on {gpus:.0f} H100s processes {tok_s:,.0f} tokens/s. Counting {per:.0f} FLOP per "
      "parameter per token, what is the MFU?",
      "在 {gpus:.0f} 块 H100 上训练一个 {params_b:.0f}B 模型，每秒处理 {tok_s:,.0f} 个 token。按每个参数每个 token {per:.0f} 次浮点运算计，MFU 是多少？"),
     ("Achieved model FLOP/s over the GPUs' peak.", "实际模型算力除以所有 GPU 的峰值。"),
     ("{tok_s:,.0f} × {per:.0f} × {params_b:.0f}B / ({gpus:.0f} × H100 peak) = **{mfu:.1%}**.",
      "{tok_s:,.0f} × {per:.0f} × {params_b:.0f}B / ({gpus:.0f} × H100 峰值) = **{mfu:.1%}**。"))

_num("ch10_ch6_q3", "ch6", "ch6-collectives", "interview",
     {"size_gb": Param(1.0, "GB", 0.1, 10), "ranks": Param(8, "GPUs", 2, 64, integer=True),
      "bw": Param(450e9, "GB/s", 25e9, 900e9, scale=1e9)},
     lambda size_gb, ranks, bw: {"ms": Answer(collectives.ring_all_reduce_s(size_gb * units.GB, ranks, bw) / units.MS, "ms"),
                                 "factor": Answer(collectives.bus_factor("all_reduce", ranks), "×")},
     "ms",
     ("A ring all-reduce of {size_gb:.2f} GB over {ranks:.0f} GPUs, each link {bw:.0f} GB/s per direction. How long "
      "does it take (no latency term), in ms?",
      "在 {ranks:.0f} 块 GPU 上做 {size_gb:.2f} GB 的环形 all-reduce，每条链路单向 {bw:.0f} GB/s。不计延迟项要多少毫秒？"),
     ("Each rank sends and receives the data times the ring's bus factor: almost twice the data.", "每个 rank 收发的数据量是数据大小乘以环形算法的总线系数，接近两倍。"),
     ("{factor:.3f} × {size_gb:.2f} GB / {bw:.0f} GB/s = **{ms:.2f} ms**.", "{factor:.3f} × {size_gb:.2f} GB / {bw:.0f} GB/s = **{ms:.2f} ms**。"))

_num("ch10_ch6_q4", "ch6", "ch6-mfu", "self-check",
     {"read_gb": Param(16, "GB", 1, 200), "step_ms": Param(7e-3, "ms", 1e-3, 100e-3, scale=1e-3)},
     lambda read_gb, step_ms: {"mbu": Answer(utilization.mbu(read_gb * units.GB, step_ms, H100_BW), "fraction")},
     "mbu",
     ("A decode step must read {read_gb:.1f} GB and takes {step_ms:.1f} ms on an H100. What is its memory bandwidth "
      "utilization?",
      "一步 decode 要读 {read_gb:.1f} GB，在 H100 上耗时 {step_ms:.1f} ms。显存带宽利用率（MBU）是多少？"),
     ("Bytes over time, over peak bandwidth.", "字节数除以时间，再除以峰值带宽。"),
     ("{read_gb:.1f} GB / {step_ms:.1f} ms / H100 bandwidth = **{mbu:.1%}**.", "{read_gb:.1f} GB / {step_ms:.1f} ms / H100 带宽 = **{mbu:.1%}**。"))

_mc("ch10_ch6_q5", "ch6", "ch6-ridge-side", "interview",
    ("Roofline says max(compute time, memory time); a measured kernel takes close to their sum. What does that mean?",
     "屋顶线模型给出 max(计算时间, 访存时间)；实测 kernel 的耗时接近两者之和。这说明什么？"),
    (("Compute and memory traffic do not overlap", "计算和访存没有重叠"), ("The GPU is throttling", "GPU 在降频"),
     ("The roofline is wrong about peaks", "屋顶线的峰值算错了")), 0,
    ("max assumes perfect overlap, the sum none: a kernel near the sum serialises its loads and its arithmetic.",
     "max 假设两者完全重叠，求和假设完全不重叠：耗时接近两者之和的 kernel，是把加载和计算串行执行了。"),
    ("Which assumption separates max from sum?", "max 和求和的区别在于哪个假设？"))

_mc("ch10_ch6_q6", "ch6", "ch6-collectives", "self-check",
    ("Why is tensor parallelism usually kept inside one NVLink domain?", "为什么张量并行通常限制在一个 NVLink 域内？"),
    (("It communicates every layer, so it needs the fastest links", "它每一层都要通信，需要最快的链路"),
     ("NCCL cannot cross nodes", "NCCL 不能跨节点"), ("It uses no communication", "它不需要通信")), 0,
    ("Tensor parallelism all-reduces activations in every layer; across slower network links that traffic would no "
     "longer hide behind the matmuls.", "张量并行每一层都要对激活做 all-reduce；放到更慢的网络链路上，通信就藏不到矩阵乘后面了。"),
    ("How often does each kind of parallelism talk?", "每种并行方式多久通信一次？"))

# ---- chapter 7: frameworks ----------------------------------------------------------------------

_num("ch10_ch7_q1", "ch7", "ch7-training", "interview",
     {"params_b": Param(7, "billion parameters", 1, 70, integer=True), "shards": Param(1, "GPUs", 1, 64, integer=True)},
     lambda params_b, shards: {"gb": Answer(training_memory.model_state_B(params_b * 1e9, 0, shards) / units.GB, "GB"),
                               "bpp": Answer(training_memory.bytes_per_param(0, shards), "B")},
     "gb",
     ("Mixed-precision training with Adam keeps weights, gradients and optimizer state. How many GB does a {params_b:.0f}B "
      "model need for that state without sharding (on each of {shards:.0f} data-parallel GPUs)?",
      "用 Adam 做混合精度训练要保存权重、梯度和优化器状态。一个 {params_b:.0f}B 的模型在不分片时（{shards:.0f} 块数据并行 GPU 的每一块上）这些状态要多少 GB？"),
     ("Count bytes per parameter: BF16 weights and gradients, then FP32 master weights and two Adam moments.",
      "按每个参数的字节数算：BF16 的权重和梯度，再加 FP32 主权重和 Adam 的两个矩。"),
     ("{bpp:.0f} bytes per parameter × {params_b:.0f}B = **{gb:,.0f} GB**.", "每个参数 {bpp:.0f} 字节 × {params_b:.0f}B = **{gb:,.0f} GB**。"))

_num("ch10_ch7_q2", "ch7", "ch7-training", "self-check",
     {"params_b": Param(70, "billion parameters", 7, 400, integer=True), "mem_gb": Param(80, "GB", 40, 192, integer=True)},
     lambda params_b, mem_gb: {"f": Answer(training_memory.min_shard_degree(params_b * 1e9, mem_gb * units.GB), "GPUs", rel_tol=0),
                               "bpp": Answer(training_memory.bytes_per_param(0, 1), "B")},
     "f",
     ("With fully sharded data parallelism (weights, gradients and optimizer state all sharded), what is the smallest "
      "power-of-two number of {mem_gb:.0f} GB GPUs whose memory holds the state of a {params_b:.0f}B model?",
      "用全分片数据并行（权重、梯度、优化器状态都分片），最少要多少块 {mem_gb:.0f} GB 的 GPU（块数取二的整数次幂）才能放下一个 {params_b:.0f}B 模型的训练状态？"),
     ("{bpp:.0f} bytes per parameter, divided by the degree, must fit.", "每个参数 {bpp:.0f} 字节，除以分片数后要放得下。"),
     ("**{f:.0f} GPUs**.", "**{f:.0f} 块**。"))

_num("ch10_ch7_q3", "ch7", "ch7-compilers", "interview",
     {"ops_n": Param(4, "operators", 2, 10, integer=True)},
     lambda ops_n: {"saving": Answer(framework.fusion_saving([1] * ops_n, 1), "fraction")},
     "saving",
     ("A chain of {ops_n:.0f} elementwise operators, each reading one tensor and writing one, is fused into one kernel "
      "that reads the input once and writes the result once. What share of the memory traffic disappears?",
      "一串 {ops_n:.0f} 个逐元素算子，每个读一个张量、写一个张量；把它们融合成一个 kernel 后，只读一次输入、写一次结果。访存流量减少了多大比例？"),
     ("Unfused: each operator reads and writes. Fused: one read, one write.", "不融合时每个算子各一读一写；融合后总共一读一写。"),
     ("**{saving:.0%}** of the bytes are saved.", "省掉了 **{saving:.0%}** 的字节。"))

_num("ch10_ch7_q4", "ch7", "ch7-eager", "self-check",
     {"gpu_ms": Param(1e-3, "ms", 0.1e-3, 10e-3, scale=1e-3), "us": Param(10e-6, "µs", 2e-6, 30e-6, scale=1e-6)},
     lambda gpu_ms, us: {"n": Answer(framework.ops_hidden(gpu_ms, us), "operators")},
     "n",
     ("The GPU works {gpu_ms:.2f} ms per step and eager PyTorch costs {us:.0f} µs of CPU "
      "per operator. Up to how many operators per step does the CPU keep up?",
      "GPU 每步工作 {gpu_ms:.2f} ms，eager 模式的 PyTorch 每个算子花 {us:.0f} µs 的 CPU 时间。每步最多多少个算子时 CPU 还跟得上？"),
     ("GPU time over CPU time per operator.", "GPU 时间除以每个算子的 CPU 时间。"),
     ("**{n:,.0f} operators**; beyond that the step is launch-bound and a CUDA graph or compilation pays off.",
      "**{n:,.0f} 个算子**；超过这个数，这一步就受发射限制，CUDA graph 或编译才划算。"),
     flip=True)

_num("ch10_ch7_q5", "ch7", "ch7-engines", "interview",
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
      "预留 {reserved:.0f} 个 token 槽位；**{waste:.1%}** 没用上，都在每条序列的最后一页里。"))

_mc("ch10_ch7_q6", "ch7", "ch7-engines", "self-check",
    ("What does continuous batching change compared with static batching?", "与静态批处理相比，连续批处理改变了什么？"),
    (("A finished request's slot is refilled at the next step", "请求一结束，下一步就把它的槽位填上新请求"),
     ("Requests are padded to the same length", "把请求补齐到相同长度"), ("Weights are read once per request", "每个请求各读一次权重")), 0,
    ("Static batching waits for the longest request of a batch; continuous batching schedules per iteration, so slots "
     "never idle while requests wait.", "静态批处理要等 batch 里最长的请求结束；连续批处理按迭代调度，只要还有请求在排队，槽位就不会空着。"),
    ("Who waits for whom in a static batch?", "静态批处理里谁在等谁？"))

# ---- chapter 8: clusters ------------------------------------------------------------------------

_num("ch10_ch8_q1", "ch8", "ch8-serving", "interview",
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
      "{rate:.0f} × {lat:.1f} = {inflight:.0f} 个在途；除以 {slots:.0f}，向上取整：**{replicas:.0f} 个副本**。"))

_num("ch10_ch8_q2", "ch8", "ch8-topology", "self-check",
     {"radix": Param(32, "ports", 4, 64, integer=True, scale=0.5),   # drawn in pairs of ports (radix is even)
      "tiers": Param(2, "tiers", 1, 2, integer=True)},
     lambda radix, tiers: {"n": Answer(scheduling.fat_tree_endpoints(2 * radix, tiers), "endpoints", rel_tol=0)},
     "n",
     ("How many endpoints does a non-blocking fat tree of {tiers:.0f} tiers of {radix:.0f}-port switches reach?",
      "由 {radix:.0f} 口交换机组成的 {tiers:.0f} 层无阻塞胖树能连接多少个端点？"),
     ("Each tier below the top splits its ports half down, half up.", "除顶层外，每层交换机一半端口向下、一半向上。"),
     ("**{n:,.0f} endpoints**.", "**{n:,.0f} 个端点**。"))

_num("ch10_ch8_q3", "ch8", "ch8-serving", "interview",
     {"weights_gb": Param(140, "GB", 10, 800), "load": Param(2e9, "GB/s", 0.5e9, 25e9, scale=1e9)},
     lambda weights_gb, load: {"s": Answer(autoscale.load_time_s(weights_gb * units.GB, load), "s")},
     "s",
     ("A new replica must load {weights_gb:.0f} GB of weights at {load:.1f} GB/s. How many seconds before it can serve?",
      "一个新副本要以 {load:.1f} GB/s 的速度加载 {weights_gb:.0f} GB 的权重。多少秒后才能开始服务？"),
     ("Size over bandwidth.", "大小除以带宽。"),
     ("**{s:,.0f} s**: autoscaling must react that far ahead of a burst.", "**{s:,.0f} s**：自动扩缩容必须提前这么久应对突发流量。"))

_num("ch10_ch8_q4", "ch8", "ch8-topology", "self-check",
     {"ports": Param(8, "NICs", 1, 16, integer=True), "gbit": Param(400, "Gb/s", 100, 800, integer=True)},
     lambda ports, gbit: {"gbs": Answer(scheduling.aggregate_Bps(ports, units.bits_to_bytes(gbit * 1e9)) / units.GB, "GB/s"),
                          "bpb": Answer(units.BITS_PER_BYTE, "bits", rel_tol=0)},
     "gbs",
     ("A node has {ports:.0f} NICs of {gbit:.0f} Gb/s. What is its aggregate network bandwidth per direction, in GB/s?",
      "一个节点有 {ports:.0f} 块 {gbit:.0f} Gb/s 的网卡。单向总网络带宽是多少 GB/s？"),
     ("Ports × rate, then bits to bytes.", "端口数 × 速率，再把比特换成字节。"),
     ("{ports:.0f} × {gbit:.0f} Gb/s / {bpb:.0f} = **{gbs:,.0f} GB/s**.", "{ports:.0f} × {gbit:.0f} Gb/s / {bpb:.0f} = **{gbs:,.0f} GB/s**。"))

_mc("ch10_ch8_q5", "ch8", "ch8-gang", "interview",
    ("Two jobs each need eight GPUs; a scheduler gives each four as they become free. What can happen?",
     "两个作业各需要八块 GPU；调度器在 GPU 空出来时各分给它们四块。会发生什么？"),
    (("Both wait forever: a deadlock", "两个都永远等下去：死锁"), ("Both run at half speed", "两个都以一半速度运行"),
     ("Nothing: they time-share", "没事：它们会分时共享")), 0,
    ("Each holds half of what it needs and waits for the rest; gang scheduling (all or nothing) prevents it.",
     "每个作业都占着一半资源等另一半；成组调度（要么全给，要么不给）可以避免。"),
    ("Does a distributed job start with part of its GPUs?", "分布式作业能只拿到一部分 GPU 就开始吗？"))

_mc("ch10_ch8_q6", "ch8", "ch8-sharing", "self-check",
    ("Splitting an H100 with MIG beats giving each small job a whole GPU when…",
     "什么情况下用 MIG 切分 H100 比给每个小作业一整块 GPU 更好？"),
    (("each job uses a small share of the GPU's compute and memory", "每个作业只用得了 GPU 的一小部分算力和显存"),
     ("each job needs all the memory bandwidth", "每个作业都需要全部显存带宽"), ("jobs need NVLink to other GPUs", "作业需要通过 NVLink 连接其他 GPU")), 0,
    ("MIG gives isolated slices of SMs and memory: worth it when jobs are small; a job that needs the whole GPU loses "
     "from the split.", "MIG 切出相互隔离的 SM 和显存切片：作业小时划算；需要整块 GPU 的作业切分后反而吃亏。"),
    ("What does a slice take away?", "切片拿走了什么？"), flip=True)

# ---- chapter 10: quantization --------------------------------------------------------------------

_num("ch10_ch9_q1", "ch9", "ch9-bits", "interview",
     {"params_b": Param(70, "billion parameters", 7, 400, integer=True), "bits": Param(4.25, "bits per value", 3, 16)},
     lambda params_b, bits: {"gb": Answer(quantization.weight_B(params_b * 1e9, bits) / units.GB, "GB"),
                             "bpb": Answer(units.BITS_PER_BYTE, "bits", rel_tol=0),
                             "bf16": Answer(params_b * 2, "GB")},
     "gb",
     ("A {params_b:.0f}B model is stored at {bits:.2f} bits per weight (scales included). How many GB do its weights take?",
      "一个 {params_b:.0f}B 的模型以每个权重 {bits:.2f} 位（含缩放因子）存储。权重占多少 GB？"),
     ("Parameters × bits / {bpb:.0f}.", "参数量 × 位数 / {bpb:.0f}。"),
     ("**{gb:,.1f} GB**, against {bf16:,.0f} GB in BF16.", "**{gb:,.1f} GB**，BF16 则是 {bf16:,.0f} GB。"))

_num("ch10_ch9_q2", "ch9", "ch9-savings", "self-check",
     {"bits": Param(4.5, "bits per value", 3, 16), "bw": Param(H100_BW, "TB/s", 1e12, 8e12, scale=1e12),
      "params_b": Param(70, "billion parameters", 7, 400, integer=True), "bf16": Param(16, "bits")},
     lambda bits, bw, params_b, bf16: {"gain": Answer(bf16 / bits, "×"),
                                 "tok": Answer(generations.decode_ceiling_tok_s(bw, params_b * 1e9 * bits / 8), "tokens/s")},
     "gain",
     ("Weights go from BF16 to {bits:.2f} bits each. By how much does the batch-one decode ceiling of a {params_b:.0f}B "
      "model rise, if the KV cache is negligible?",
      "权重从 BF16 改为每个 {bits:.2f} 位。KV cache 忽略不计时，一个 {params_b:.0f}B 模型单请求 decode 的上限变成原来的多少倍？"),
     ("The ceiling is bandwidth over weight bytes.", "上限是带宽除以权重字节数。"),
     ("{bf16:.0f} bits / {bits:.2f} = **{gain:.2f}×**, {tok:,.0f} tokens/s at {bw:.2f} TB/s.",
      "{bf16:.0f} 位 / {bits:.2f} = **{gain:.2f}×**，在 {bw:.2f} TB/s 下每秒 {tok:,.0f} 个 token。"))

_num("ch10_ch9_q3", "ch9", "ch9-bits", "interview",
     {"block": Param(16, "values", 8, 128, integer=True), "sc": Param(8, "bits", 8, 16, integer=True), "el": Param(4, "bits")},
     lambda block, sc, el: {"overhead": Answer(sc / block / el, "fraction"), "bits": Answer(quantization.bits_per_param(int(el), sc, block), "bits")},
     "overhead",
     ("A {el:.0f}-bit format shares one {sc:.0f}-bit scale per block of {block:.0f} values. "
      "What is the scale's overhead relative to the {el:.0f}-bit elements?",
      "一种 {el:.0f} 位格式每 {block:.0f} 个值共享一个 {sc:.0f} 位缩放因子。缩放因子相对 {el:.0f} 位元素的额外开销是多少？"),
     ("Scale bits per value over element bits.", "每个值分摊到的缩放位数除以元素位数。"),
     ("{sc:.0f} / {block:.0f} / {el:.0f} = **{overhead:.1%}** ({bits:.3f} bits per value). Smaller blocks fit outliers "
      "better but cost more bits: the trade-off flips with the block size.",
      "{sc:.0f} / {block:.0f} / {el:.0f} = **{overhead:.1%}**（每个值 {bits:.3f} 位）。块越小越能贴合离群值，但位数开销越大：取舍随块大小翻转。"),
     flip=True)

_num("ch10_ch9_q4", "ch9", "ch9-savings", "self-check",
     {"kv_gb": Param(40, "GB", 1, 200), "w_gb": Param(35, "GB", 5, 200)},
     lambda kv_gb, w_gb: {"share": Answer(kv_gb / (kv_gb + w_gb), "fraction"), "half": Answer(kv_gb / 2, "GB"),
                          "gain": Answer((kv_gb + w_gb) / (kv_gb / 2 + w_gb), "×")},
     "gain",
     ("A batched decode step reads {w_gb:.0f} GB of quantized weights and {kv_gb:.0f} GB of KV cache. Halving the KV "
      "bytes (FP8 KV), how much faster is the step if it stays bandwidth-bound?",
      "一个 batch 的一步 decode 要读 {w_gb:.0f} GB 的量化权重和 {kv_gb:.0f} GB 的 KV cache。把 KV 字节减半（FP8 KV），如果这一步仍受带宽限制，速度变成原来的多少倍？"),
     ("Time is proportional to bytes read.", "时间与读取的字节数成正比。"),
     ("KV is {share:.0%} of the bytes; ({w_gb:.0f} + {kv_gb:.0f}) / ({w_gb:.0f} + {half:.1f}) = **{gain:.2f}×**.",
      "KV 占字节数的 {share:.0%}；({w_gb:.0f} + {kv_gb:.0f}) / ({w_gb:.0f} + {half:.1f}) = **{gain:.2f}×**。"))

_mc("ch10_ch9_q5", "ch9", "ch9-compute", "interview",
    ("Why does weight-only quantization speed up decode more than prefill?", "为什么只量化权重时，decode 得到的加速比预填充大？"),
    (("Decode is bandwidth-bound; prefill is compute-bound", "decode 受带宽限制，预填充受算力限制"),
     ("Prefill does not use the weights", "预填充不用权重"), ("Decode uses FP4 Tensor Cores", "decode 用的是 FP4 Tensor Core")), 0,
    ("Fewer weight bytes shorten a memory-bound step; prefill's matmuls are above the ridge, and dequantizing weights "
     "to BF16 does not reduce their FLOP.", "权重字节少了，访存受限的步骤就快了；预填充的矩阵乘在屋脊点以上，把权重反量化回 BF16 并不减少运算量。"),
    ("Which phase is below the ridge point?", "哪个阶段在屋脊点以下？"))

_mc("ch10_ch9_q6", "ch9", "ch9-accuracy", "self-check",
    ("What do block scales (MXFP4, NVFP4) protect against?", "块缩放因子（MXFP4、NVFP4）防的是什么？"),
    (("One outlier forcing a coarse scale on the whole tensor", "一个离群值逼得整个张量的缩放因子变大、量化变粗"),
     ("Bit flips in memory", "内存中的位翻转"), ("Overflow of the accumulator", "累加器溢出")), 0,
    ("With a scale per small block, an outlier only coarsens its own block; the rest keep fine steps.",
     "每个小块各有一个缩放因子，离群值只会让它所在的那一块变粗，其余块仍保持精细的量化步长。"),
    ("What does a single per-tensor scale have to cover?", "整个张量只用一个缩放因子时，它要覆盖什么？"))

_num("ch10_ch9_q7", "ch9", "ch9-accuracy", "self-check",
     {"bits": Param(4, "bits", 2, 8, integer=True)},
     lambda bits: {"qmax": Answer(quantization.int_qmax(bits), "codes", rel_tol=0),
                   "levels": Answer(2 * quantization.int_qmax(bits) + 1, "codes", rel_tol=0)},
     "qmax",
     ("Symmetric signed INT{bits:.0f} quantization maps the largest magnitude of a group to the largest code. What is "
      "that code?",
      "对称有符号 INT{bits:.0f} 量化把一组数里绝对值最大的那个映射到最大的码值。这个码值是多少？"),
     ("Half the codes are negative; symmetric quantization leaves the most negative one unused.",
      "一半的码值是负数；对称量化不用最小的那个负码值。"),
     ("**{qmax:.0f}**: the codes run from minus {qmax:.0f} to {qmax:.0f}, {levels:.0f} levels in all.",
      "**{qmax:.0f}**：码值从负 {qmax:.0f} 到 {qmax:.0f}，共 {levels:.0f} 级。"))

QUESTIONS: tuple[Question, ...] = tuple(q for c in CHAPTERS for q in QUESTIONS_BY_CHAPTER[c])
_BY_ID = {q.id: q for q in QUESTIONS}


def by_id(qid: str) -> Question:
    """The question with id ``qid`` (a KeyError suggesting the nearest otherwise)."""
    return _check.lookup("qid", qid, _BY_ID, "review question")


def chapter_questions(chapter: str) -> tuple[Question, ...]:
    """The questions that test ``chapter`` ("ov", "ch1", ..., "ch9")."""
    chapter = _check.choice("chapter", chapter, CHAPTERS)
    return tuple(QUESTIONS_BY_CHAPTER[chapter])


def exercises() -> list[Exercise]:
    """Every numeric question's exercise, for the chapter's ``glue_all``."""
    return [q.exercise for q in QUESTIONS if q.exercise is not None]
