"""Sharding: bytes per device, when a sharded matmul becomes communication-bound, tensor-parallel
traffic per decode step, and how many GPUs prefill and decode need when they are split apart.

A mesh names its axes and their sizes, ``{"data": 4, "model": 2}``; a sharding ``spec`` names,
for each array dimension, the mesh axis it is split over (or ``None``: replicated), as in JAX's
``PartitionSpec`` (the notation of *How to Scale Your Model*, "Sharded Matrices"). Used in
chapters 6 and 7.
"""
import math
from collections.abc import Mapping, Sequence

from . import _check, collectives


def _mesh(mesh: Mapping[str, int]) -> dict[str, int]:
    if not isinstance(mesh, Mapping) or not mesh:
        raise TypeError(f"mesh: expected a non-empty dict of axis name -> size, got {mesh!r}")
    return {_check.text("mesh", k): _check.count(f"mesh[{k!r}]", v, "devices") for k, v in mesh.items()}


@_check.finite
def bytes_per_device_B(shape: Sequence[int], bytes_per_element: float, mesh: dict[str, int],
                       spec: tuple[str | None, ...]) -> float:
    """Bytes one device holds of an array of ``shape`` sharded by ``spec`` over ``mesh``.

    bytes = prod(shape) x bytes_per_element / prod(size of each mesh axis named in spec).
    A dimension split over an axis must divide evenly (else a ValueError naming it); an axis may
    be used once; axes not named replicate the array. Equation eq-shard-bytes in chapter 6.

    Llama-3-70B's FFN up-projection (8192 x 28672, BF16) split over 8 GPUs on its output:

    >>> bytes_per_device_B((8192, 28672), 2, {"tp": 8}, (None, "tp")) / 1e6
    58.720256
    >>> bytes_per_device_B((1024, 1024), 4, {"data": 2, "model": 4}, ("data", "model"))
    524288.0
    """
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence) or not shape:
        raise TypeError(f"shape: expected a non-empty sequence of dimension sizes, got {shape!r}")
    dims = [_check.count(f"shape[{i}]", d, "elements") for i, d in enumerate(shape)]
    size = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    axes = _mesh(mesh)
    if not isinstance(spec, (tuple, list)) or len(spec) != len(dims):
        raise ValueError(f"spec: expected one entry (an axis name or None) per dimension of "
                         f"shape {tuple(dims)}, got {spec!r}")
    used: list[str] = []
    for i, (d, axis) in enumerate(zip(dims, spec)):
        if axis is None:
            continue
        n = _check.lookup("spec", axis, axes, "mesh axis")
        if axis in used:
            raise ValueError(f"spec: mesh axis {axis!r} is used twice")
        if d % n:
            raise ValueError(f"spec: dimension {i} ({d}) is not divisible by mesh axis {axis!r} ({n})")
        used.append(axis)
    shards = math.prod(axes[a] for a in used)
    return float(math.prod(dims)) * size / shards


@_check.finite
def tp_comm_bound_intensity(peak_flop_s: float, link_Bps: float) -> float:
    """FLOPs per byte communicated above which a tensor-parallel matmul hides its communication.

    A matmul [B, D] x [D, F] with F split over n devices followed by an all-gather (or D split and
    a reduce-scatter) computes 2BDF/n FLOPs and moves about B x F x bytes per element per device
    (How to Scale Your Model, "Sharded Matrices" and "Transformer inference"): compute hides the
    transfer when 2BDF/n / peak > B F b / link, i.e. when D / (n b) > peak / (2 link).
    This function returns that threshold, peak / link, in FLOPs per byte.

    H100: 989 TFLOP/s over 450 GB/s of NVLink per direction: about 2,198 FLOPs per byte.

    >>> round(tp_comm_bound_intensity(989e12, 450e9))
    2198
    """
    return (_check.positive("peak_flop_s", peak_flop_s, "FLOP/s")
            / _check.positive("link_Bps", link_Bps, "bytes/s"))


@_check.finite
def tp_max_degree(d_ff: int, peak_flop_s: float, link_Bps: float, bytes_per_element: float = 2.0) -> float:
    """The largest tensor-parallel degree n at which a sharded matmul still hides its communication.

    Y = X W with X [B, D] and W [D, F] split over F on n devices: each device computes 2 B D F / n
    FLOPs and receives about B D b bytes of X (an all-gather; b bytes per element). Compute
    hides the transfer when 2 B D F / n / peak > B D b / link, i.e. n < 2 F link / (b peak)
    (How to Scale Your Model, "Sharded Matrices"). Equation eq-tp-threshold in chapter 6.

    Llama-3-70B's FFN (F = 28,672), H100 (989 TFLOP/s dense BF16, 450 GB/s NVLink per direction):
    2 x 28672 x 450e9 / (2 x 989e12) = 13.05.

    >>> round(tp_max_degree(28672, 989e12, 450e9), 2)
    13.05
    """
    f = _check.count("d_ff", d_ff, "")
    b = _check.positive("bytes_per_element", bytes_per_element, "bytes")
    return 2 * f * _check.positive("link_Bps", link_Bps, "bytes/s") / (
        b * _check.positive("peak_flop_s", peak_flop_s, "FLOP/s"))


@_check.finite
def dp_min_batch_per_device(peak_flop_s: float, link_Bps: float) -> float:
    """Tokens per device per step above which data-parallel training hides its gradient all-reduce.

    Each parameter costs 6 FLOPs per token (forward and backward) on each device, and its BF16
    gradient is all-reduced once per step: a ring moves 2 x 2 bytes per parameter per device.
    Compute-bound when 6 B N / peak > 4 N / link, i.e. B > (2/3) x peak / link
    (How to Scale Your Model, "How to Parallelize a Transformer for Training": B/X > C / W).

    H100 over 400 Gb/s InfiniBand (50 GB/s): 989e12 / 50e9 x 2/3 = 13,187 tokens per device.

    >>> round(dp_min_batch_per_device(989e12, 50e9))
    13187
    """
    return 2 / 3 * tp_comm_bound_intensity(peak_flop_s, link_Bps)


@_check.finite
def tp_decode_comm_s(d_model: int, layers: int, batch: int, tp: int, link_Bps: float,
                     latency_s: float = 0.0, bytes_per_element: float = 2.0) -> float:
    """Time one decode step spends in tensor-parallel all-reduces (Megatron-LM layout).

    Each layer all-reduces its activations twice (after attention and after the MLP), B x D
    values each; a ring all-reduce of S bytes over n GPUs takes 2(n-1) alpha + 2(n-1)/n S / beta
    (:func:`infra_lib.collectives.ring_all_reduce_s`). Shoeybi et al. (2019), Megatron-LM, §3.
    Equation eq-tp-decode in chapter 6.

    Llama-3-8B (32 layers, D = 4096), batch 1, 8 GPUs on 450 GB/s: 64 all-reduces of 8 KB,
    bandwidth term only: 64 x 1.75 x 8192 / 450e9 = 2.04 microseconds.

    >>> round(tp_decode_comm_s(4096, 32, 1, 8, 450e9) * 1e6, 2)
    2.04
    >>> round(tp_decode_comm_s(4096, 32, 1, 8, 450e9, latency_s=3e-6) * 1e6, 1)
    2690.0
    """
    d = _check.count("d_model", d_model, "")
    nl = _check.count("layers", layers, "layers")
    b = _check.count("batch", batch, "requests")
    n = _check.count("tp", tp, "GPUs")
    size = b * d * _check.positive("bytes_per_element", bytes_per_element, "bytes")
    return 2 * nl * collectives.ring_all_reduce_s(size, n, link_Bps, latency_s)


@_check.finite
def disaggregated_gpus(requests_per_s: float, prefill_s_per_request: float, output_tokens: int,
                       decode_step_s: float, decode_batch: int) -> tuple[int, int]:
    """Prefill and decode GPUs for a request rate when the two phases run on separate GPUs.

    prefill GPUs = ceil(rate x prefill time per request) (each GPU does one prefill at a time);
    decode GPUs = ceil(rate x output tokens x step time / batch) (each GPU advances ``batch``
    requests by one token per step). Little's law on each pool, as in DistServe (Zhong et al.,
    2024) and Splitwise (Patel et al., 2024), without their latency targets.

    20 requests/s, 50 ms prefill, 500 output tokens at 10 ms per step in batches of 64:
    1 prefill GPU and ceil(20 x 500 x 0.01 / 64) = 2 decode GPUs.

    >>> disaggregated_gpus(20, 0.05, 500, 0.01, 64)
    (1, 2)
    """
    rate = _check.positive("requests_per_s", requests_per_s, "requests/s")
    pre = _check.positive("prefill_s_per_request", prefill_s_per_request, "s")
    out = _check.count("output_tokens", output_tokens, "tokens")
    step = _check.positive("decode_step_s", decode_step_s, "s")
    b = _check.count("decode_batch", decode_batch, "requests")
    prefill = rate * pre
    decode = rate * out * step / b
    if max(prefill, decode) > 1e12:
        raise ValueError("requests_per_s: this rate needs more than 10**12 GPUs")
    return math.ceil(prefill - 1e-9), math.ceil(decode - 1e-9)
