"""The framework layer's costs (chapter 7): eager-mode CPU time against GPU time, what CUDA graphs
saved across the H200 decode sweep, and the bytes a compiler saves by fusing an elementwise chain.

The launch model itself (the serial and the overlapped readings of an eager step) is chapter 2's,
in :mod:`infra_lib.launch`; this module asks the framework's questions of it. Sources: E. Z. Yang,
"PyTorch internals" (2019) for the path of one operator; the PyTorch 2 paper (Ansel et al., ASPLOS
2024) for TorchDynamo and TorchInductor; the course's H200 measurements for every timing.
"""
from collections.abc import Sequence
from dataclasses import dataclass

from . import _check, launch, measurements

# The GPT-2 "new GELU" written out as eager PyTorch evaluates it, one kernel per operator:
# 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3))). Each entry: (operator, full-size
# tensors it reads); every operator writes one full-size tensor.
GELU_TANH_CHAIN = (("pow", 1), ("mul_const", 1), ("add_x", 2), ("mul_const", 1), ("tanh", 1),
                   ("add_one", 1), ("half_x", 1), ("mul", 2))
GELU_TANH_EXTERNAL_INPUTS = 1      # the whole chain reads only x from memory once fused
# SwiGLU's activation, silu(gate) * up: two kernels eagerly, reading gate and up.
SWIGLU_CHAIN = (("silu", 1), ("mul", 2))
SWIGLU_EXTERNAL_INPUTS = 2


@_check.finite
def eager_cpu_s(ops: float, cpu_per_op_s: float) -> float:
    """CPU time to issue ``ops`` operators eagerly at ``cpu_per_op_s`` each: t_CPU = n x c.

    Equation eq-eager-bound in chapter 7 (its left side). 913 operators at the measured 7.07 us:

    >>> round(eager_cpu_s(913, 7.07e-6) * 1e3, 2)
    6.45
    """
    n = _check.non_negative("ops", ops, "operators")
    c = _check.positive("cpu_per_op_s", cpu_per_op_s, "s")
    return n * c


@_check.finite
def launch_bound_ratio(ops: float, cpu_per_op_s: float, gpu_s: float) -> float:
    """CPU issue time over GPU work per step, n x c / t_GPU: above 1 the step is launch-bound.

    Equation eq-eager-bound in chapter 7: in the overlapped reading of chapter 2 the step lasts
    max(n x c, t_GPU), so the GPU waits whenever this ratio exceeds 1.

    >>> round(launch_bound_ratio(913, 7.07e-6, 5.137e-3), 2)
    1.26
    """
    g = _check.positive("gpu_s", gpu_s, "s")
    return eager_cpu_s(ops, cpu_per_op_s) / g


@_check.finite
def ops_hidden(gpu_s: float, cpu_per_op_s: float) -> float:
    """The most operators the CPU can issue eagerly while the GPU works for ``gpu_s``: t_GPU / c.

    ``cpu_per_op_s`` is CPU time per eager operator (the measured 7.07 us). It is not the cost of a
    node replayed from a CUDA graph: a replay is one CPU launch for the whole graph, and the limit
    there is the GPU's own time per kernel node (:func:`graph_nodes_max`).

    >>> round(ops_hidden(5.137e-3, 7.07e-6))
    727
    """
    g = _check.positive("gpu_s", gpu_s, "s")
    return g / _check.positive("cpu_per_op_s", cpu_per_op_s, "s")


@_check.finite
def graph_nodes_max(step_s: float, gpu_per_node_s: float) -> float:
    """The most kernel nodes a CUDA-graph replay can run in ``step_s``: t_step / f_node.

    During a replay the CPU makes one ``cudaGraphLaunch`` for the whole graph; what remains per
    kernel is the GPU's own floor, scheduling the node and running it. The course's 1.17 us is that
    floor: 100 tiny adds replayed from one graph, timed with CUDA events around ``g.replay()``
    (the H200 run of 29 November 2026, ``method/ladder.py``). A step with more tiny kernels than
    this is bound by the GPU's per-node cost, not by the CPU.

    >>> round(graph_nodes_max(5.137e-3, 1.17e-6))
    4391
    """
    t = _check.positive("step_s", step_s, "s")
    return t / _check.positive("gpu_per_node_s", gpu_per_node_s, "s")


@_check.finite
def launch_bound_matvec_n(cpu_per_op_s: float, bandwidth_Bps: float, bytes_per_element: float = 2) -> float:
    """Side n of the square weight matrix whose read takes as long as one eager launch.

    A matrix-vector product y = x @ W reads n^2 x b bytes, so it is launch-bound below
    n = sqrt(c x B / b). At 7.07 us and 2.87 TB/s (the H200's measured M = 1 matmul), BF16:

    >>> round(launch_bound_matvec_n(7.07e-6, 2.87e12))
    3185
    """
    c = _check.positive("cpu_per_op_s", cpu_per_op_s, "s")
    bw = _check.positive("bandwidth_Bps", bandwidth_Bps, "B/s")
    b = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    return float((c * bw / b) ** 0.5)


@dataclass(frozen=True)
class GraphSaving:
    """One decode step of the H200 sweep: eager against CUDA graph, and chapter 2's overlapped reading."""
    batch: int
    context: int
    graph_s: float
    eager_s: float
    cpu_issue_s: float

    def __post_init__(self) -> None:
        _check.fields(self)
        for name in ("graph_s", "eager_s", "cpu_issue_s"):
            _check.positive(name, getattr(self, name), "s")

    @property
    def saved_s(self) -> float:
        """What replaying the step from a CUDA graph saved: t_eager - t_graph."""
        return self.eager_s - self.graph_s

    @property
    def saved_share(self) -> float:
        """The saving as a share of the eager step."""
        return self.saved_s / self.eager_s

    @property
    def gpu_over_issue(self) -> float:
        """GPU work (the graph step) over the CPU's eager issue time: below 1, CPU-bound eagerly."""
        return self.graph_s / self.cpu_issue_s

    @property
    def cpu_bound(self) -> bool:
        """True when, in the overlapped reading, the eager step waits for the CPU."""
        return self.graph_s < self.cpu_issue_s


@_check.finite
def h200_graph_savings(run: str = measurements.RUN) -> list[GraphSaving]:
    """Every decode step of the H200 sweep with what CUDA graphs saved, sorted by GPU work.

    The CPU issue time is chapter 2's overlapped fit (:func:`infra_lib.launch.h200_launch_readings`):
    the batch-1 eager step, 6.46 ms.

    >>> s = h200_graph_savings()
    >>> [(p.batch, round(p.saved_s * 1e3, 2), p.cpu_bound) for p in s][:2]
    [(1, 1.32, True), (1, 1.46, True)]
    """
    fit = launch.h200_launch_readings(run)
    return [GraphSaving(p.batch, p.context, p.graph_s, p.eager_s, fit.cpu_issue_s) for p in fit.points]


def _chain(inputs_per_op: Sequence[int]) -> list[int]:
    if isinstance(inputs_per_op, (str, bytes)) or not isinstance(inputs_per_op, Sequence):
        raise TypeError("inputs_per_op: expected a sequence of counts of full-size inputs, "
                        f"got {type(inputs_per_op).__name__}")
    if not inputs_per_op:
        raise ValueError("inputs_per_op: need at least one operator")
    return [_check.count(f"inputs_per_op[{i}]", k, "inputs") for i, k in enumerate(inputs_per_op)]


@_check.finite
def unfused_traffic_B(numel: float, inputs_per_op: Sequence[int], bytes_per_element: float = 2) -> float:
    """HBM bytes an eager chain of elementwise kernels moves: N x b x sum_i (k_i + 1).

    Equation eq-fusion-bytes in chapter 7: kernel i reads its k_i full-size inputs and writes one
    full-size output, every intermediate going out to memory and back. The GELU chain (8 kernels,
    10 reads + 8 writes) on 1,000 BF16 elements:

    >>> unfused_traffic_B(1000, [k for _, k in GELU_TANH_CHAIN])
    36000.0
    """
    n = _check.positive("numel", numel, "elements")
    b = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    return n * b * sum(k + 1 for k in _chain(inputs_per_op))


@_check.finite
def fused_traffic_B(numel: float, external_inputs: int, bytes_per_element: float = 2, outputs: int = 1) -> float:
    """HBM bytes the same chain moves fused into one kernel: N x b x (inputs + outputs).

    Equation eq-fusion-bytes in chapter 7: intermediates stay in registers; only the tensors the
    chain reads from outside and the ones it leaves behind touch memory.

    >>> fused_traffic_B(1000, 1)
    4000.0
    """
    n = _check.positive("numel", numel, "elements")
    i = _check.count("external_inputs", external_inputs, "tensors")
    o = _check.count("outputs", outputs, "tensors")
    return n * _check.positive("bytes_per_element", bytes_per_element, "bytes") * (i + o)


@_check.finite
def fusion_saving(inputs_per_op: Sequence[int], external_inputs: int, outputs: int = 1) -> float:
    """Share of the eager chain's traffic that fusion removes: 1 - (inputs + outputs) / sum(k_i + 1).

    >>> fusion_saving([k for _, k in GELU_TANH_CHAIN], GELU_TANH_EXTERNAL_INPUTS)
    0.8888888888888888
    """
    unf = unfused_traffic_B(1.0, inputs_per_op, 1.0)
    return 1.0 - fused_traffic_B(1.0, external_inputs, 1.0, outputs) / unf


@dataclass(frozen=True)
class CompileCount:
    """What torch.compile did for a sequence of calls: graphs compiled, and calls left to eager mode."""
    compiles: int
    eager_calls: int

    def __post_init__(self) -> None:
        _check.fields(self)
        _check.count("compiles", self.compiles, "graphs", minimum=0)
        _check.count("eager_calls", self.eager_calls, "calls", minimum=0)


COMPILE_MODES = ("static", "auto", "dynamic")
RECOMPILE_LIMIT = 8      # torch._dynamo.config.recompile_limit (formerly cache_size_limit), its default


@_check.finite
def compiles_needed(sizes: Sequence[int], dynamic: str = "auto", recompile_limit: int = RECOMPILE_LIMIT) -> CompileCount:
    """Graphs torch.compile builds for calls whose one varying dimension takes these ``sizes``.

    A model of TorchDynamo's guards (PyTorch "Dealing with Recompilations" and
    ``torch._dynamo.config``): every compiled graph is guarded on the sizes it saw, and a call no
    guard accepts recompiles. ``"static"`` (``dynamic=False``) compiles once per distinct size;
    ``"auto"`` (the default ``dynamic=None``) compiles the first size statically and, at the first
    different size, marks the dimension dynamic and compiles one graph for every size from 2 up;
    ``"dynamic"`` (``dynamic=True``) starts dynamic. Sizes 0 and 1 are always specialized, so each
    gets a graph of its own. After ``recompile_limit`` graphs (``torch._dynamo.config.recompile_limit``,
    8 by default) Dynamo stops compiling the function and the calls no graph covers run eagerly.

    >>> compiles_needed([1, 8, 16, 24, 8, 32]), compiles_needed([1, 8, 16, 24, 8, 32], "static")
    (CompileCount(compiles=2, eager_calls=0), CompileCount(compiles=5, eager_calls=0))
    >>> compiles_needed(list(range(2, 12)), "static")
    CompileCount(compiles=8, eager_calls=2)
    """
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence):
        raise TypeError(f"sizes: expected a sequence of sizes, got {type(sizes).__name__}")
    if not sizes:
        raise ValueError("sizes: need at least one call")
    seen = [_check.count(f"sizes[{i}]", n, "elements", minimum=0) for i, n in enumerate(sizes)]
    mode = _check.choice("dynamic", dynamic, COMPILE_MODES)
    limit = _check.count("recompile_limit", recompile_limit, "graphs")
    static: set[int] = set()
    has_dynamic, compiles, eager = False, 0, 0
    for i, n in enumerate(seen):
        covered = n in static or (has_dynamic and n >= 2)
        if covered:
            continue
        if compiles >= limit:
            eager += 1
            continue
        compiles += 1
        if n < 2 or mode == "static" or (mode == "auto" and i == 0):
            static.add(n)
        else:
            has_dynamic = True
    return CompileCount(compiles, eager)
