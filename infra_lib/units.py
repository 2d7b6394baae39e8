"""Units: bits and bytes, SI and binary prefixes, per-direction and bidirectional totals.

Conventions used throughout infra_lib: quantities are plain floats in base units, and the
unit is in the name: ``_B`` bytes, ``_bits`` bits, ``_Bps`` bytes per second, ``_bps`` bits per
second, ``_flop_s`` FLOP per second, ``_s`` seconds, ``_hz`` hertz.

Vendors quote links in three ways that are easy to mix up (see the overview chapter):
network links in bits per second, NVLink and PCIe as the sum of both directions, HBM as one
shared bus. Read a two-way total as one direction and a link looks 2x faster; read bits as
bytes and it looks 8x faster; make both mistakes on the same link and it looks 16x faster.
(Dividing NVLink's 900 GB/s total by a NIC's 400 Gb/s gives 2.25; per direction in bytes it is
450 / 50 = 9: the two mistakes partly cancel, and the comparison is still off by 4x.)
"""
from . import _check

BITS_PER_BYTE = 8

# SI (decimal) prefixes: what datasheets use for bandwidth and (mostly) capacity.
KB, MB, GB, TB, PB = 1e3, 1e6, 1e9, 1e12, 1e15
# Binary prefixes: what operating systems and CUDA report for memory sizes.
KiB, MiB, GiB, TiB = 2.0**10, 2.0**20, 2.0**30, 2.0**40
# The same SI prefixes for what is not bytes: parameters, bits, transfers, hertz, GPUs
# (a clock / GIGA is in GHz, a count / KILO in thousands), and FLOPs (a peak / TFLOP in TFLOP/s).
KILO, MEGA, GIGA, TERA, PETA = 1e3, 1e6, 1e9, 1e12, 1e15
GFLOP, TFLOP, PFLOP = GIGA, TERA, PETA

MS = 1e-3  # seconds in a millisecond
US = 1e-6  # seconds in a microsecond
NS = 1e-9  # seconds in a nanosecond
# The other way round, to multiply by: t_s * US_PER_S is in microseconds. t_s / US is the same
# number, but not always the same float (1e-6 has no exact binary form), so a page that has always
# multiplied keeps multiplying. A fraction * PERCENT_PER_WHOLE is a percentage.
MS_PER_S, US_PER_S, NS_PER_S = 1e3, 1e6, 1e9
PERCENT_PER_WHOLE = 100


@_check.finite
def bits_to_bytes(bits: float) -> float:
    """Bits (or bits per second) to bytes (or bytes per second): divide by 8.

    >>> bits_to_bytes(400e9) / GB   # a 400 Gb/s NIC moves 50 GB/s
    50.0
    """
    return _check.non_negative("bits", bits, "bits") / BITS_PER_BYTE


@_check.finite
def bytes_to_bits(n_B: float) -> float:
    """Bytes (or bytes per second) to bits (or bits per second): multiply by 8.

    >>> bytes_to_bits(1.0)
    8.0
    """
    return _check.non_negative("n_B", n_B, "bytes") * BITS_PER_BYTE


@_check.finite
def per_direction(total_bidirectional: float) -> float:
    """Per-direction bandwidth of a symmetric full-duplex link quoted as a two-way total.

    NVIDIA quotes NVLink 4 as 900 GB/s "total bandwidth": 450 GB/s each way
    (H100 whitepaper V1.04, section 4.7).

    >>> per_direction(900e9) / GB
    450.0
    """
    return _check.non_negative("total_bidirectional", total_bidirectional, "bytes per second") / 2


@_check.finite
def bidirectional(per_direction_rate: float) -> float:
    """Two-way total of a symmetric full-duplex link (the inverse of :func:`per_direction`).

    >>> bidirectional(64e9) / GB
    128.0
    """
    return 2 * _check.non_negative("per_direction_rate", per_direction_rate, "bytes per second")


@_check.finite
def binary_over_si(prefix: str) -> float:
    """How much bigger a binary prefix is than its SI namesake: GiB / GB = 1.074.

    >>> round(binary_over_si("G"), 3)
    1.074
    """
    prefix = _check.choice("prefix", prefix, ("K", "M", "G", "T"))
    power = "KMGT".index(prefix) + 1
    return 2.0 ** (10 * power) / 10.0 ** (3 * power)


@_check.finite
def serial_link_Bps(transfer_rate_per_s: float, lanes: int, encoding_efficiency: float = 1.0) -> float:
    """Payload bandwidth of a serial link, one direction: rate x lanes x encoding / 8.

    PCIe Gen5 runs 32 GT/s per lane with 128b/130b encoding (PCI-SIG PCIe 5.0 release):
    an x16 link carries 32e9 x 16 x 128/130 / 8 = 63.0 GB/s each way, which NVIDIA rounds
    to 64 GB/s (H100 whitepaper section 2.1).

    >>> round(serial_link_Bps(32e9, 16, 128 / 130) / GB, 1)
    63.0
    """
    rate = _check.positive("transfer_rate_per_s", transfer_rate_per_s, "transfers per second per lane")
    lanes = _check.count("lanes", lanes, "lanes")
    eff = _check.fraction("encoding_efficiency", encoding_efficiency)
    return rate * lanes * eff / BITS_PER_BYTE
