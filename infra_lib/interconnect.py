"""Links inside one server, converted to bytes per second per direction before comparing.

Vendors quote links three ways: NVLink and PCIe as the sum of both directions, networks in
bits per second, HBM as one shared bus (reads and writes take turns). The ladder below turns
each quote into the one number you can compare: bytes per second in one direction.
"""
from collections.abc import Sequence
from dataclasses import dataclass

from . import _check, hardware, units


@dataclass(frozen=True)
class Link:
    """One link as the vendor quotes it, and the same link in bytes per second per direction."""
    _positive = ("quoted",)
    key: str
    quoted: float        # the number as the vendor prints it
    quoted_unit: str     # 'GB/s' or 'Gb/s'
    quoted_as: str       # 'shared bus', 'total (both directions)', 'per direction'
    per_direction_Bps: float
    source: str

    def __post_init__(self) -> None:
        _check.fields(self)


def dgx_h100_ladder() -> list[Link]:
    """HBM -> NVLink -> PCIe Gen5 x16 -> one 400 Gb/s NIC, each per direction, for one H100 in a DGX H100.

    >>> [round(l.per_direction_Bps / 1e9) for l in dgx_h100_ladder()]
    [3352, 450, 64, 50]
    """
    hbm = hardware.spec("h100_sxm5", "mem_bw_Bps")
    nvl = hardware.spec("h100_sxm5", "nvlink_total_Bps")
    pcie = hardware.spec("h100_sxm5", "pcie_total_Bps")
    nic = hardware.spec("dgx_h100", "nic_bps")
    return [
        Link("hbm", hbm.value / units.GB, "GB/s", "shared bus", hbm.value, hbm.cite()),
        Link("nvlink", nvl.value / units.GB, "GB/s", "total (both directions)",
             units.per_direction(nvl.value), nvl.cite()),
        Link("pcie", pcie.value / units.GB, "GB/s", "total (both directions)",
             units.per_direction(pcie.value), pcie.cite()),
        Link("nic", nic.value / units.GB, "Gb/s", "per direction",
             units.bits_to_bytes(nic.value), nic.cite()),
    ]


@_check.finite
def step_ratios(ladder: Sequence[Link]) -> list[float]:
    """How many times faster each link is than the next one out.

    >>> [round(r, 2) for r in step_ratios(dgx_h100_ladder())]
    [7.45, 7.03, 1.28]
    """
    return [a.per_direction_Bps / b.per_direction_Bps for a, b in zip(ladder, ladder[1:])]


def h100_nvlink_per_direction_Bps() -> float:
    """18 links x 25 GB/s each way = 450 GB/s (H100 whitepaper section 4.7).

    >>> h100_nvlink_per_direction_Bps() / 1e9
    450.0
    """
    return (hardware.value("h100_sxm5", "nvlink_links")
            * hardware.value("h100_sxm5", "nvlink_link_Bps_per_direction"))


def pcie_gen5_x16_payload_Bps() -> float:
    """32 GT/s x 16 lanes x 128/130 / 8 = 63.0 GB/s per direction, before protocol overhead.

    >>> round(pcie_gen5_x16_payload_Bps() / 1e9, 1)
    63.0
    """
    v = lambda name: hardware.value("dgx_h100", name)
    return units.serial_link_Bps(v("pcie_transfer_rate"), int(v("pcie_lanes")),
                                 v("pcie_payload_bits") / v("pcie_line_bits"))


@_check.finite
def naive_ratio(a: Link, b: Link) -> float:
    """The ratio you get by dividing the printed numbers, ignoring units and directions."""
    return a.quoted / b.quoted


@_check.finite
def true_ratio(a: Link, b: Link) -> float:
    """The ratio of bytes per second per direction."""
    return a.per_direction_Bps / b.per_direction_Bps


MISREAD_TOTAL_AS_PER_DIRECTION = 2   # a two-way total read as one direction
MISREAD_BITS_AS_BYTES = units.BITS_PER_BYTE  # Gb/s read as GB/s
MISREAD_BOTH = MISREAD_TOTAL_AS_PER_DIRECTION * MISREAD_BITS_AS_BYTES
