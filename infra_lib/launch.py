"""Kernel launches: eager against CUDA graphs, what the CPU's launch cost does to a decode step.

Chapter 2 builds the model and chapter 7 asks the framework's questions of it
(:mod:`infra_lib.framework`). Formulas, each with n kernels per step, c the CPU cost of one launch
(eager or from a graph) and t_gpu the GPU's work per step:

- serial limit, the GPU waits for every launch (equation eq-launch-serial in chapter 2):
  t = t_gpu + n x c; solved for n from an eager and a graph step,
  n = (t_eager - t_graph) / (c_eager - c_graph);
- overlapped limit, the CPU issues while earlier kernels run (equation eq-launch-overlap):
  t = max(n x c, t_gpu + tail).

Sources: the course's H200 measurements (``data/measurements/``, run 2026-11-29: the tiny-op
launch costs of ``ladder.json``, the eager and CUDA-graph decode steps of ``reality_check.json``);
the kernel count per layer from the structure of a Llama-style decoder layer (:data:`LAYER_OPS`).
"""
from dataclasses import dataclass

from . import _check, measurements, units


@_check.finite
def implied_launches(eager_step_s: float, graph_step_s: float, eager_launch_s: float,
                     graph_launch_s: float) -> float:
    """How many kernel launches the gap between an eager and a CUDA-graph step corresponds to.

    n = (t_eager - t_graph) / (c_eager - c_graph): equation eq-launch-serial in chapter 2, solved for n.

    It assumes that (1) the whole gap is launch cost, (2) every kernel of the step costs the CPU
    what a tiny op costs, and (3) no launch overlaps GPU work: the GPU waits for each one. If some
    launches hide behind running kernels, more of them are needed to make the same gap, so under
    (1) and (2) the estimate is a lower bound on the kernel count.

    The H200 measurement, rounded: (6.462 - 5.137) ms / (7.07 - 1.17) us = 225 launches (224 from
    the unrounded timings, see :func:`h200_launch_readings`).

    >>> round(implied_launches(6.462e-3, 5.137e-3, 7.07e-6, 1.17e-6))
    225
    """
    te = _check.positive("eager_step_s", eager_step_s, "s")
    tg = _check.positive("graph_step_s", graph_step_s, "s")
    ce = _check.positive("eager_launch_s", eager_launch_s, "s")
    cg = _check.non_negative("graph_launch_s", graph_launch_s, "s")
    if te < tg:
        raise ValueError(f"eager_step_s ({te:g} s) must be at least graph_step_s ({tg:g} s)")
    if ce <= cg:
        raise ValueError(f"eager_launch_s ({ce:g} s) must be greater than graph_launch_s ({cg:g} s)")
    return (te - tg) / (ce - cg)


@dataclass(frozen=True)
class LaunchModel:
    """A step of ``kernels`` kernels doing ``gpu_s`` of GPU work, launched eagerly or from a graph.

    Two limits bracket the truth: *serial* (the GPU waits for every launch: t = gpu + n x c,
    equation eq-launch-serial in chapter 2) and *overlapped* (the CPU runs ahead while kernels
    execute: t = max(n x c, gpu + tail), equation eq-launch-overlap). ``tail_s`` is what an eager
    step costs beyond its GPU work even when the CPU keeps ahead (0 by default).
    """
    kernels: float
    eager_launch_s: float
    graph_launch_s: float
    gpu_s: float
    tail_s: float = 0.0

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.non_negative("kernels", self.kernels, "kernels")
        _check.positive("eager_launch_s", self.eager_launch_s, "s")
        _check.non_negative("graph_launch_s", self.graph_launch_s, "s")
        _check.positive("gpu_s", self.gpu_s, "s")
        _check.non_negative("tail_s", self.tail_s, "s")

    @property
    def eager_cpu_s(self) -> float:
        return self.kernels * self.eager_launch_s

    @property
    def graph_cpu_s(self) -> float:
        return self.kernels * self.graph_launch_s

    @property
    def eager_serial_s(self) -> float:
        return self.gpu_s + self.eager_cpu_s

    @property
    def graph_serial_s(self) -> float:
        return self.gpu_s + self.graph_cpu_s

    @property
    def eager_overlapped_s(self) -> float:
        return overlapped_step_s(self.eager_cpu_s, self.gpu_s, self.tail_s)

    @property
    def graph_overlapped_s(self) -> float:
        return overlapped_step_s(self.graph_cpu_s, self.gpu_s)

    @property
    def lost_share_serial(self) -> float:
        """Share of the eager step the GPU spends waiting for launches (serial limit)."""
        return self.eager_cpu_s / self.eager_serial_s

    @property
    def cpu_bound_below_s(self) -> float:
        """GPU step time below which the CPU is the bottleneck even with perfect overlap."""
        return self.eager_cpu_s


@_check.finite
def serial_step_s(graph_step_s: float, kernels: float, eager_launch_s: float, graph_launch_s: float) -> float:
    """The serial reading of an eager step: the graph step plus each kernel's extra launch cost.

    t_eager = t_graph + n x (c_eager - c_graph): equation eq-launch-serial in chapter 2 (the GPU
    waits for every launch, so the gap between eager and graph grows with the kernel count and
    does not depend on how long the kernels run).

    >>> round(serial_step_s(5.137e-3, 224, 7.07e-6, 1.17e-6) * 1e3, 3)
    6.459
    """
    g = _check.positive("graph_step_s", graph_step_s, "s")
    n = _check.non_negative("kernels", kernels, "kernels")
    ce = _check.positive("eager_launch_s", eager_launch_s, "s")
    cg = _check.non_negative("graph_launch_s", graph_launch_s, "s")
    return g + n * (ce - cg)


@_check.finite
def overlapped_step_s(cpu_issue_s: float, gpu_s: float, tail_s: float = 0.0) -> float:
    """The overlapped reading of a step: the CPU issues kernels while earlier ones run.

    t = max(t_issue, t_gpu + tail): equation eq-launch-overlap in chapter 2. The step lasts as long
    as the slower of the CPU issuing the kernels and the GPU running them; ``tail_s`` is what the
    eager step costs beyond the GPU's work even when the CPU keeps ahead.

    >>> overlapped_step_s(6.5e-3, 5.1e-3), overlapped_step_s(6.5e-3, 10.7e-3, 0.7e-3)
    (0.0065, 0.0114)
    """
    cpu_s = _check.non_negative("cpu_issue_s", cpu_issue_s, "s")
    gpu = _check.positive("gpu_s", gpu_s, "s")
    tail = _check.non_negative("tail_s", tail_s, "s")
    return round(max(cpu_s, gpu + tail), 15)


# One kernel per operation of a Llama-style decoder layer run eagerly, as the H200 run's model is
# shaped (separate q, k, v, gate and up projections; no RoPE). RMSNorm is one kernel when fused
# (torch.nn.functional.rms_norm) and eight in the textbook form of Hugging Face's LlamaRMSNorm
# (cast to float32, pow, mean, add eps, rsqrt, multiply, cast back, multiply by the weight).
LAYER_OPS = ("rms_norm", "q_proj", "k_proj", "v_proj", "k_cache_write", "v_cache_write", "attention",
             "o_proj", "residual_add", "rms_norm", "gate_proj", "up_proj", "silu", "mul", "down_proj",
             "residual_add")
RMS_NORM_UNFUSED_KERNELS = 8
STEP_OPS = ("embedding", "rms_norm", "lm_head", "argmax")   # around the layers


@_check.finite
def eager_step_kernels(layers: int, fused_norm: bool = True) -> int:
    """Kernels one eager decode step launches, one per operation of :data:`LAYER_OPS` and :data:`STEP_OPS`.

    A count from the layer's structure, not a measurement: a framework may fuse more (fewer
    kernels) or add copies and casts (more). A profiler's trace of one step settles it.

    >>> eager_step_kernels(32), eager_step_kernels(32, fused_norm=False)
    (516, 971)
    """
    n = _check.count("layers", layers, "layers")
    norm = 1 if _check.flag("fused_norm", fused_norm) else RMS_NORM_UNFUSED_KERNELS
    per_layer = len(LAYER_OPS) + (norm - 1) * LAYER_OPS.count("rms_norm")
    return n * per_layer + len(STEP_OPS) + (norm - 1) * STEP_OPS.count("rms_norm")


@dataclass(frozen=True)
class LaunchReading:
    """One measured decode step against what the serial and the overlapped readings predict."""
    _positive = ("eager_s",)                   # the errors are relative to it
    batch: int
    context: int
    graph_s: float
    eager_s: float
    serial_s: float
    overlapped_s: float

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def gap_s(self) -> float:
        return self.eager_s - self.graph_s

    @property
    def serial_error(self) -> float:
        return (self.serial_s - self.eager_s) / self.eager_s

    @property
    def overlapped_error(self) -> float:
        return (self.overlapped_s - self.eager_s) / self.eager_s


@dataclass(frozen=True)
class LaunchFit:
    """The two readings of the H200 decode sweep, each fitted to two end points of the sweep.

    Serial: ``kernels_serial`` from the batch-1 gap (:func:`implied_launches`). Overlapped:
    ``cpu_issue_s`` = the batch-1 eager step (the smallest GPU time: CPU-bound under this reading),
    ``tail_s`` = the gap at the largest batch (the longest GPU time: surely GPU-bound).
    """
    _positive = ("eager_launch_s",)            # kernels_at_issue divides by it
    eager_launch_s: float
    graph_launch_s: float
    kernels_serial: float
    cpu_issue_s: float
    tail_s: float
    points: tuple[LaunchReading, ...]

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def kernels_at_issue(self) -> float:
        """Kernels the CPU issue time amounts to if each costs what a tiny op costs eagerly."""
        return self.cpu_issue_s / self.eager_launch_s


@_check.finite
def h200_launch_readings(run: str = measurements.RUN) -> LaunchFit:
    """Both readings of the eager step fitted to the H200 run and evaluated at every measured point.

    >>> f = h200_launch_readings()
    >>> round(f.kernels_serial), round(f.cpu_issue_s * 1e3, 2), round(f.tail_s * 1e3, 2)
    (224, 6.46, 0.66)
    >>> [(p.batch, round(p.serial_s * 1e3, 2), round(p.overlapped_s * 1e3, 2)) for p in f.points][-1]
    (128, 12.04, 11.37)
    """
    ladder = measurements.load(run, name="ladder")
    ce, cg = ladder["tiny_op_eager_us"] * units.US, ladder["tiny_op_graph_us"] * units.US
    rows = sorted(measurements.load(run)["decode"], key=lambda r: (r["s_graph"], r["batch"], r["ctx"]))
    first, last = rows[0], rows[-1]
    n = implied_launches(first["s_eager"], first["s_graph"], ce, cg)
    issue, tail = first["s_eager"], last["s_eager"] - last["s_graph"]
    points = tuple(LaunchReading(int(r["batch"]), int(r["ctx"]), r["s_graph"], r["s_eager"],
                                 serial_step_s(r["s_graph"], n, ce, cg),
                                 overlapped_step_s(issue, r["s_graph"], tail)) for r in rows)
    return LaunchFit(ce, cg, n, issue, tail, points)


@_check.finite
def h200_launch_model(batch: int = 1, context: int = 1000) -> LaunchModel:
    """The H200 decode step at (``batch``, ``context``) as a :class:`LaunchModel`, overlapped reading.

    Kernels: the batch-1 eager step (the CPU's issue time) over the eager cost of a tiny op;
    GPU time: the measured CUDA-graph step; tail: the eager-graph gap at the largest batch
    (:func:`h200_launch_readings`). Its overlapped limit reproduces the measured eager step at
    batch 1 and 128; its serial limit shows what the same kernels would cost if none overlapped.

    >>> m = h200_launch_model()
    >>> round(m.kernels), round(m.gpu_s * 1e3, 2), round(m.eager_overlapped_s * 1e3, 2), round(m.eager_serial_s * 1e3, 2)
    (913, 5.14, 6.46, 11.6)
    """
    fit = h200_launch_readings()
    step = measurements.decode_check(batch, context)
    return LaunchModel(kernels=fit.kernels_at_issue, eager_launch_s=fit.eager_launch_s,
                       graph_launch_s=fit.graph_launch_s, gpu_s=step.measured_s, tail_s=fit.tail_s)
