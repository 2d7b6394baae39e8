"""The roofline: arithmetic intensity, ridge point, attainable FLOP/s.

Williams, Waterman and Patterson, "Roofline: An Insightful Visual Performance Model for
Multicore Architectures", CACM 52(4), 2009: attainable = min(peak, intensity x bandwidth).
"""
from . import _check


def arithmetic_intensity(flops, n_bytes):
    """FLOPs per byte moved to or from memory.

    >>> arithmetic_intensity(3.2e13, 16e9)
    2000.0
    """
    return _check.non_negative("flops", flops, "FLOPs") / _check.positive("n_bytes", n_bytes, "bytes")


def ridge_point(peak_flop_s, mem_bw_Bps):
    """The intensity where the two roofs meet: peak / bandwidth, in FLOP per byte.

    Teaching GPU: 1e15 / 3e12 = 333; H100 SXM5: 989.4e12 / 3352e9 = 295.

    >>> round(ridge_point(989.4e12, 3352e9), 1)
    295.2
    """
    return _check.positive("peak_flop_s", peak_flop_s, "FLOP/s") / _check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s")


def attainable_flop_s(intensity, peak_flop_s, mem_bw_Bps):
    """min(peak, intensity x bandwidth).

    >>> attainable_flop_s(1.0, 1e15, 3e12)
    3000000000000.0
    """
    i = _check.non_negative("intensity", intensity, "FLOP per byte")
    return min(_check.positive("peak_flop_s", peak_flop_s, "FLOP/s"),
               i * _check.positive("mem_bw_Bps", mem_bw_Bps, "bytes/s"))


def bound(intensity, peak_flop_s, mem_bw_Bps):
    """'memory' below the ridge point, 'compute' at or above it.

    >>> bound(1.0, 1e15, 3e12), bound(2000, 1e15, 3e12)
    ('memory', 'compute')
    """
    i = _check.non_negative("intensity", intensity, "FLOP per byte")
    return "compute" if i >= ridge_point(peak_flop_s, mem_bw_Bps) else "memory"
