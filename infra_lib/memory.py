"""Memory bandwidth and capacity from the parts: HBM stacks, bus width, pin rate, DDR channels.

Every DRAM interface moves ``bus bits x transfers per second / 8`` bytes per second; the
formulas below are that one product written for the way each kind of memory is specified.

- HBM: a stack has a wide interface (1,024 bits for HBM2 to HBM3E, 2,048 for HBM4) and each
  data pin runs at clock x transfers per clock (DDR: 2). GPU bandwidth = stacks x bits per
  stack x pin rate / 8 (JEDEC JESD235B, JESD238, JESD270 for widths and rates; NVIDIA H100
  whitepaper V1.04, Table 3, for 5 stacks x 1,024 bits at 2,619 MHz DDR on H100 SXM5).
- Stack capacity = DRAM dies x bits per die / 8 (Micron HBM3E: 8 or 12 dies of 24 Gbit).
- DDR5: bandwidth = channels x bytes per transfer x transfers per second (JEDEC JESD79-5:
  a 64-bit channel, two independent 32-bit subchannels, carries 8 bytes per transfer).

Conventions: bytes ``_B``, bytes per second ``_Bps``, bits per second per pin ``_bps``.

>>> round(hbm_bandwidth_Bps(5, 1024, 2619e6) / 1e9, 1)      # H100 SXM5
3352.3
>>> round(dram_bandwidth_Bps(8, 8, 4.8e9) / 1e9, 1)         # 8 DDR5-4800 channels
307.2
"""
from . import _check, units


# ---- HBM bandwidth --------------------------------------------------------------------------

@_check.finite
def hbm_bandwidth_Bps(stacks: int, bits_per_stack: int, clock_hz: float, transfers_per_clock: int = 2) -> float:
    """HBM bandwidth = stacks x bits per stack x clock x transfers per clock / 8.

    Equation eq-hbm-bandwidth (per GPU) in chapter 1.

    H100 SXM5: 5 stacks x 1,024 bits x 2,619 MHz x 2 (DDR) / 8 = 3,352 GB/s (H100 whitepaper
    V1.04, Table 3).

    >>> round(hbm_bandwidth_Bps(5, 1024, 2619e6) / 1e9, 1)
    3352.3
    """
    return (_check.count("stacks", stacks, "HBM stacks")
            * _check.count("bits_per_stack", bits_per_stack, "bits")
            * _check.positive("clock_hz", clock_hz, "Hz")
            * _check.count("transfers_per_clock", transfers_per_clock, "transfers")) / 8


@_check.finite
def pin_rate_from_clock_bps(clock_hz: float, transfers_per_clock: int = 2) -> float:
    """Bits per second per data pin = clock x transfers per clock (DDR: 2).

    H100 SXM5: 2,619 MHz DDR = 5.238 Gb/s per pin (whitepaper V1.04, Table 3).

    >>> pin_rate_from_clock_bps(2619e6) / 1e9
    5.238
    """
    return (_check.positive("clock_hz", clock_hz, "Hz")
            * _check.count("transfers_per_clock", transfers_per_clock, "transfers"))


@_check.finite
def hbm_bandwidth_from_pins_Bps(stacks: int, bits_per_stack: int, pin_rate_bps: float) -> float:
    """GPU memory bandwidth = stacks x bits per stack x pin rate / 8.

    The pin rate is clock x transfers per clock, so this is :func:`hbm_bandwidth_Bps` with one
    transfer per "clock" of the pin rate.

    >>> round(hbm_bandwidth_from_pins_Bps(5, 1024, 5.238e9) / 1e9, 1)
    3352.3
    """
    _check.positive("pin_rate_bps", pin_rate_bps, "bits per second per pin")
    return hbm_bandwidth_Bps(stacks, bits_per_stack, pin_rate_bps, transfers_per_clock=1)


@_check.finite
def stack_bandwidth_Bps(bits_per_stack: int, pin_rate_bps: float) -> float:
    """One stack: interface bits x pin rate / 8. HBM3 at 6.4 Gb/s: 1,024 x 6.4 / 8 = 819.2 GB/s
    (JESD238: "819 GB/s per device").

    Equation eq-hbm-bandwidth (per stack) in chapter 1.

    >>> stack_bandwidth_Bps(1024, 6.4e9) / 1e9
    819.2
    """
    return hbm_bandwidth_from_pins_Bps(1, bits_per_stack, pin_rate_bps)


@_check.finite
def bus_bits(stacks: int, bits_per_stack: int) -> int:
    """Width of the whole memory bus = stacks x bits per stack: H200, 6 x 1,024 = 6,144 bits
    (AnandTech on the H200 at SC23: "Memory Bus Width 6144-bit").

    >>> bus_bits(6, 1024)
    6144
    """
    return _check.count("stacks", stacks, "HBM stacks") * _check.count("bits_per_stack", bits_per_stack, "bits")


@_check.finite
def pin_rate_bps(bandwidth_Bps: float, bus_bits: int) -> float:
    """The pin rate a stated bandwidth implies: bandwidth x 8 / bus width.

    H200: 4.8 TB/s over a 6,144-bit bus = 6.25 Gb/s per pin.

    >>> pin_rate_bps(4.8e12, 6144) / 1e9
    6.25
    """
    return (_check.positive("bandwidth_Bps", bandwidth_Bps, "bytes per second") * units.BITS_PER_BYTE
            / _check.count("bus_bits", bus_bits, "bits"))


# ---- HBM capacity ---------------------------------------------------------------------------

@_check.finite
def stack_capacity_B(dies_per_stack: int, die_bits: float) -> float:
    """Capacity of one stack = DRAM dies x bits per die / 8: 12-Hi of 24 Gb = 36 GB.

    >>> stack_capacity_B(12, 24e9) / 1e9
    36.0
    """
    return (_check.count("dies_per_stack", dies_per_stack, "DRAM dies")
            * _check.positive("die_bits", die_bits, "bits")) / units.BITS_PER_BYTE


@_check.finite
def hbm_capacity_B(stacks: int, dies_per_stack: int, die_bits: float) -> float:
    """Memory on the package = stacks x stack capacity: B300, 8 stacks of 12-Hi 24 Gb = 288 GB
    (NVIDIA's Blackwell Ultra blog: "Eight 12-Hi stacks", "288GB HBM3E").

    >>> hbm_capacity_B(8, 12, 24e9) / 1e9
    288.0
    """
    return _check.count("stacks", stacks, "HBM stacks") * stack_capacity_B(dies_per_stack, die_bits)


# ---- DDR channels ---------------------------------------------------------------------------

@_check.finite
def dram_bandwidth_Bps(channels: int, bytes_per_transfer: float, transfers_per_s: float) -> float:
    """Peak DRAM bandwidth = channels x bytes per transfer x transfers per second.

    Equation eq-ddr-bandwidth in chapter 2.

    Xeon 8480C, 8 DDR5 channels of 64 bits: 8 x 8 B x 4.8 GT/s = 307.2 GB/s (one DIMM per
    channel); at 4.4 GT/s (two DIMMs per channel) 281.6 GB/s.

    >>> round(dram_bandwidth_Bps(8, 8, 4.8e9) / 1e9, 1), round(dram_bandwidth_Bps(8, 8, 4.4e9) / 1e9, 1)
    (307.2, 281.6)
    """
    return (_check.count("channels", channels, "channels")
            * _check.positive("bytes_per_transfer", bytes_per_transfer, "bytes per transfer")
            * _check.positive("transfers_per_s", transfers_per_s, "transfers per second"))
