"""The roofline: arithmetic intensity, ridge point, attainable FLOP/s.

Williams, Waterman and Patterson, "Roofline: An Insightful Visual Performance Model for
Multicore Architectures", CACM 52(4), 2009: attainable = min(peak, intensity x bandwidth).
"""
from . import _check


@_check.finite
def arithmetic_intensity(flops: float, moved_B: float) -> float:
    """FLOPs per byte moved to or from memory.

    >>> arithmetic_intensity(3.2e13, 16e9)
    2000.0
    """
    return _check.non_negative("flops", flops, "FLOPs") / _check.positive("moved_B", moved_B, "bytes")


@_check.finite
def ridge_point(peak_flop_s: float, mem_bw_Bps: float) -> float:
    """The intensity where the two roofs meet: peak / bandwidth, in FLOP per byte.

    Teaching GPU: 1e15 / 3e12 = 333; H100 SXM5: 989.4e12 / 3352e9 = 295.

    >>> round(ridge_point(989.4e12, 3352e9), 1)
    295.2
    """
    return _check.positive("peak_flop_s", peak_flop_s, "FLOP/s") / _check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s")


@_check.finite
def attainable_flop_s(intensity: float, peak_flop_s: float, mem_bw_Bps: float) -> float:
    """min(peak, intensity x bandwidth).

    >>> attainable_flop_s(1.0, 1e15, 3e12)
    3000000000000.0
    """
    i = _check.non_negative("intensity", intensity, "FLOP per byte")
    return min(_check.positive("peak_flop_s", peak_flop_s, "FLOP/s"),
               i * _check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s"))


def bound(intensity: float, peak_flop_s: float, mem_bw_Bps: float) -> str:
    """'memory' below the ridge point, 'compute' at or above it.

    >>> bound(1.0, 1e15, 3e12), bound(2000, 1e15, 3e12)
    ('memory', 'compute')
    """
    i = _check.non_negative("intensity", intensity, "FLOP per byte")
    return "compute" if i >= ridge_point(peak_flop_s, mem_bw_Bps) else "memory"


@_check.finite
def sequential_step_s(compute_s: float, weight_read_s: float, streamed_s: float = 0.0) -> float:
    """A step whose weight matmuls overlap their own reads, followed by memory-bound kernels:
    max(compute, weight reads) + streamed. The one home of chapter 6's adopted model of a decode
    step (equation eq-decode-seq): attention's KV reads and the elementwise kernels are separate
    kernels that run after the projections feeding them, so they add to the matmuls' time instead
    of hiding under it. :class:`infra_lib.decode_model.DecodeTerms` and
    :func:`infra_lib.inference.decode_step` (with ``kv_after=True``) call it.

    Below the ridge (compute <= weight reads) it equals the single roofline over all the bytes,
    max(compute, weight reads + streamed); above it, it is larger by min(compute - weight reads, streamed).

    >>> sequential_step_s(1.0, 7.6, 4.6), max(1.0, 7.6 + 4.6)
    (12.2, 12.2)
    >>> sequential_step_s(9.0, 7.6, 4.6)
    13.6
    """
    return (max(_check.non_negative("compute_s", compute_s, "s"),
                _check.non_negative("weight_read_s", weight_read_s, "s"))
            + _check.non_negative("streamed_s", streamed_s, "s"))
