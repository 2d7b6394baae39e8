"""Occupancy: how many warps of a kernel fit on one SM, and which resource stops more.

The same arithmetic as NVIDIA's CUDA Occupancy Calculator (the spreadsheet, now part of Nsight
Compute) and its header ``cuda_occupancy.h``, which ``cudaOccupancyMaxActiveBlocksPerMultiprocessor``
follows. Four limits, each a number of resident blocks per SM; the smallest wins:

- warps: floor(max warps per SM / warps per block), warps per block = ceil(threads / 32);
- registers: registers are allocated per warp, in units of 256 ("register allocations are rounded
  up to the nearest 256 registers per warp", CUDA C++ Best Practices Guide, section 11.1.1
  "Calculating Occupancy"), and each of the SM's sub-partitions holds whole warps
  (``cuda_occupancy.h``; the spreadsheet's "warp allocation granularity"):
  warps = granularity x floor(registers per SM / granularity / registers per warp), then blocks =
  floor(warps / warps per block);
- shared memory: (shared memory per block + the per-block reservation) rounded up to the
  allocation unit, then floor(shared memory per SM / that);
- blocks: the SM's limit on resident blocks.

The limits per compute capability are registry data (``data/registry/software.toml``, one entry
``cuda_cc_<major>_<minor>`` each, read by :func:`limits`): the CUDA C++ Programming Guide's
"Compute Capabilities" table (Technical Specifications per Compute Capability), the allocation
units and granularities from ``cuda_occupancy.h``. Chapters 3 and 5 use them.

The Guide's own worked examples come out exactly (see :data:`WORKED_EXAMPLES`).
"""
from collections.abc import Sequence
from dataclasses import dataclass

from . import _check, hardware

REGISTER_B = 4          # a CUDA register holds 32 bits
STATIC_SMEM_PER_BLOCK_B = 48 * 1024
"""The most shared memory a block may declare statically (``__shared__``); above it a kernel uses dynamic
shared memory and opts in with ``cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...)``,
up to the compute capability's ``max_smem_per_block_B`` (NVIDIA Hopper Tuning Guide, "Unified Shared
Memory/L1/Texture Cache": "Kernels relying on shared memory allocations over 48 KB per block ... must use
dynamic shared memory ... and require an explicit opt-in")."""
_ENTRY = "cuda_cc_"     # registry entries cuda_cc_9_0, ...: one per compute capability


@dataclass(frozen=True)
class SMLimits:
    """What one SM of a compute capability can hold, and how it allocates it (:func:`limits`)."""
    cc: str
    max_warps: int                   # resident warps per SM
    max_blocks: int                  # resident blocks per SM
    registers: int                   # 32-bit registers per SM
    max_registers_per_block: int
    max_registers_per_thread: int
    register_unit: int               # registers per warp are rounded up to a multiple of this
    warp_granularity: int            # sub-partitions: each holds whole warps, and a block's warps round up to them
    smem_per_sm_B: int               # shared memory per SM, at the largest carveout
    max_smem_per_block_B: int        # largest a block can ask for (opt-in)
    smem_unit_B: int                 # shared memory per block is rounded up to a multiple of this
    reserved_smem_per_block_B: int   # system use, per resident block
    max_threads_per_block: int
    warp_size: int                   # threads per warp

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def max_threads(self) -> int:
        """Resident threads per SM: warps x warp size."""
        return self.max_warps * self.warp_size

    @property
    def register_file_B(self) -> int:
        """Bytes of the SM's register file: 32-bit registers x 4 bytes.

        >>> limits("9.0").register_file_B // 1024
        256
        """
        return self.registers * REGISTER_B


def compute_capabilities() -> tuple[str, ...]:
    """The compute capabilities the registry holds limits for, in its order.

    6.0 is there for the Programming Guide's own example "for devices of compute capability 6.x".

    >>> ccs = compute_capabilities()
    >>> ccs[0], {"7.0", "8.0", "9.0"} <= set(ccs), list(ccs) == sorted(ccs, key=float)
    ('6.0', True, True)
    """
    return tuple(d.key[len(_ENTRY):].replace("_", ".") for d in hardware.devices(category="software")
                 if d.key.startswith(_ENTRY))


def limits(cc: str = "9.0") -> SMLimits:
    """The limits of compute capability ``cc`` ('7.0', '8.0', '9.0', ...), read from the registry.

    >>> limits("9.0").smem_per_sm_B // 1024, limits("8.6").max_warps, limits().max_threads
    (228, 48, 2048)
    """
    key = _check.lookup("cc", cc, {c: _ENTRY + c.replace(".", "_") for c in compute_capabilities()},
                        "compute capability")
    v = lambda name: int(hardware.value(key, name))
    return SMLimits(cc=cc, max_warps=v("max_warps_per_sm"), max_blocks=v("max_blocks_per_sm"),
                    registers=v("registers_per_sm"), max_registers_per_block=v("max_registers_per_block"),
                    max_registers_per_thread=v("max_registers_per_thread"),
                    register_unit=v("register_allocation_unit"), warp_granularity=v("sm_subpartitions"),
                    smem_per_sm_B=v("shared_memory_per_sm_B"), max_smem_per_block_B=v("max_shared_memory_per_block_B"),
                    smem_unit_B=v("shared_memory_allocation_unit_B"),
                    reserved_smem_per_block_B=v("reserved_shared_memory_per_block_B"),
                    max_threads_per_block=v("max_threads_per_block"), warp_size=v("threads_per_warp"))


RESOURCES = ("warps", "registers", "shared_memory", "blocks")


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


@_check.finite
def registers_per_warp(registers_per_thread: int, cc: str = "9.0") -> int:
    """Registers allocated to one warp: registers per thread x 32, rounded up to a multiple of 256.

    Equation eq-occ-registers in chapter 5. 37 registers: 1,184, allocated 1,280.

    >>> registers_per_warp(37), registers_per_warp(64), registers_per_warp(65)
    (1280, 2048, 2304)
    """
    lim = limits(cc)
    r = _check.count("registers_per_thread", registers_per_thread, "registers")
    if r > lim.max_registers_per_thread:
        raise ValueError(f"registers_per_thread must be at most {lim.max_registers_per_thread} on compute "
                         f"capability {lim.cc}, got {r}")
    return _round_up(r * lim.warp_size, lim.register_unit)


@_check.finite
def warps_by_registers(registers_per_thread: int, cc: str = "9.0") -> int:
    """Warps whose registers fit on one SM: granularity x floor(registers / granularity / per warp).

    Each of the 4 sub-partitions has a quarter of the register file and holds whole warps.
    37 registers on 7.0: 16,384 / 1,280 = 12.8, so 12 per sub-partition, 48 per SM.

    >>> warps_by_registers(37, "7.0"), warps_by_registers(96), warps_by_registers(255)
    (48, 20, 8)
    """
    lim = limits(cc)
    per_part = lim.registers // lim.warp_granularity
    return lim.warp_granularity * (per_part // registers_per_warp(registers_per_thread, cc))


@_check.finite
def smem_per_block_B(smem_B: float, cc: str = "9.0") -> int:
    """Shared memory a block occupies: (what it asks for + reserved) rounded up to the allocation unit.

    On 9.0, 48 KiB asked: 49,152 + 1,024 reserved = 50,176 bytes (a multiple of 128 already).

    >>> smem_per_block_B(48 * 1024), smem_per_block_B(0), smem_per_block_B(100, "7.0")
    (50176, 1024, 256)
    """
    lim = limits(cc)
    s = _check.count("smem_B", smem_B, "bytes of shared memory per block", minimum=0)
    if s > lim.max_smem_per_block_B:
        raise ValueError(f"smem_B must be at most {lim.max_smem_per_block_B:,} bytes per block on compute "
                         f"capability {lim.cc}, got {s:,}")
    return _round_up(s + lim.reserved_smem_per_block_B, lim.smem_unit_B)


@dataclass(frozen=True)
class Occupancy:
    """One kernel's launch on one SM: blocks allowed by each resource, what fits, and why."""
    cc: str
    threads_per_block: int
    registers_per_thread: int
    smem_B: int
    warps_per_block: int
    registers_per_warp: int
    smem_per_block_B: int
    blocks_by: dict[str, int]        # resource -> resident blocks it allows
    max_warps: int

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def blocks(self) -> int:
        """Resident blocks per SM: the smallest of the four limits."""
        return min(self.blocks_by.values())

    @property
    def warps(self) -> int:
        return self.blocks * self.warps_per_block

    @property
    def occupancy(self) -> float:
        """Resident warps / the SM's maximum."""
        return self.warps / self.max_warps

    @property
    def limiters(self) -> tuple[str, ...]:
        """Every resource that allows no more blocks than the one that fits (ties: all of them)."""
        return tuple(r for r in RESOURCES if self.blocks_by[r] == self.blocks)

    @property
    def limiter(self) -> str:
        return self.limiters[0]


@_check.finite
def occupancy(threads_per_block: int, registers_per_thread: int, smem_B: float = 0,
              cc: str = "9.0") -> Occupancy:
    """Resident blocks and warps per SM of a kernel, and the limiting resource.

    Equation eq-occupancy in chapter 5. The worked examples of NVIDIA's guides, exactly:

    >>> o = occupancy(128, 37, 0, "7.0"); o.blocks, o.warps, o.occupancy, o.limiter   # Best Practices 11.1.1
    (12, 48, 0.75, 'registers')
    >>> o = occupancy(320, 37, 0, "7.0"); o.blocks, round(o.occupancy, 2)              # "occupancy of 63%"
    (4, 0.62)
    >>> occupancy(512, 64, 0, "6.0").warps, occupancy(512, 65, 0, "6.0").warps        # Programming Guide
    (32, 16)
    """
    lim = limits(cc)
    t = _check.count("threads_per_block", threads_per_block, "threads")
    if t > lim.max_threads_per_block:
        raise ValueError(f"threads_per_block must be at most {lim.max_threads_per_block}, got {t}")
    rpw = registers_per_warp(registers_per_thread, cc)
    smem = smem_per_block_B(smem_B, cc)
    wpb = -(-t // lim.warp_size)
    # The launch check of cuda_occupancy.h: a block's registers, its warps rounded up to the
    # sub-partitions, must fit in the per-block register limit.
    if rpw * _round_up(wpb, lim.warp_granularity) > lim.max_registers_per_block:
        raise ValueError(f"registers_per_thread = {registers_per_thread} with threads_per_block = {t}: the block "
                         f"needs {rpw * _round_up(wpb, lim.warp_granularity):,} registers, more than the "
                         f"{lim.max_registers_per_block:,} a block may use; the kernel would not launch")
    blocks_by = {"warps": lim.max_warps // wpb,
                 "registers": warps_by_registers(registers_per_thread, cc) // wpb,
                 "shared_memory": lim.smem_per_sm_B // smem if smem else lim.max_blocks,
                 "blocks": lim.max_blocks}
    return Occupancy(lim.cc, t, int(registers_per_thread), int(smem_B), wpb, rpw, smem, blocks_by, lim.max_warps)


@_check.finite
def naive_warps_by_registers(registers_per_thread: int, cc: str = "9.0") -> int:
    """The estimate without allocation units: min(max warps, registers / (r x 32)), rounded down.

    Chapter 3's first approximation; 96 registers gives 21 warps where the hardware fits 20.

    >>> naive_warps_by_registers(96), warps_by_registers(96)
    (21, 20)
    """
    lim = limits(cc)
    r = _check.count("registers_per_thread", registers_per_thread, "registers")
    return min(lim.max_warps, lim.registers // (r * lim.warp_size))


@_check.finite
def mean_registers_per_thread(groups: Sequence[tuple[int, int]]) -> float:
    """Registers per thread averaged over a block's warp groups, each (threads, registers per thread).

    A warp-specialized kernel launches with one register count for every thread, then its warp groups
    trade registers (``setmaxnreg`` on compute capability 9.0): a producer gives its registers up to the
    consumers. The launch count is the threads-weighted mean. CUTLASS's Hopper GEMM: one producer
    warpgroup of 128 threads at 40 registers, two consumer warpgroups at 232.

    >>> mean_registers_per_thread([(128, 40), (256, 232)])
    168.0
    """
    if not groups:
        raise ValueError("groups must hold at least one (threads, registers per thread) pair")
    ts = [_check.count("threads in a group", t, "threads") for t, _ in groups]
    rs = [_check.count("registers per thread in a group", r, "registers") for _, r in groups]
    return sum(t * r for t, r in zip(ts, rs)) / sum(ts)


# (description, threads per block, registers per thread, shared memory B, cc, expected resident warps)
WORKED_EXAMPLES = (
    ("Best Practices Guide 11.1.1: 128-thread blocks, 37 registers, 75%", 128, 37, 0, "7.0", 48),
    ("Best Practices Guide 11.1.1: 320-thread blocks, 37 registers, 63%", 320, 37, 0, "7.0", 40),
    ("Programming Guide, Multiprocessor Level: 512 threads, 64 registers, two blocks", 512, 64, 0, "6.0", 32),
    ("Programming Guide, Multiprocessor Level: one register more, one block", 512, 65, 0, "6.0", 16),
)


@_check.finite
def max_registers_for_occupancy(threads_per_block: int, target_occupancy: float, smem_B: float = 0,
                                cc: str = "9.0") -> int:
    """The most registers per thread a kernel may use and still reach ``target_occupancy``.

    The inverse of :func:`occupancy`: occupancy falls in steps as registers grow, so this is the
    largest r with occupancy(threads, r, smem) >= target, what ``__launch_bounds__`` or
    ``-maxrregcount`` must hold the compiler to. An error if no register count reaches the target
    (the warps, shared memory or block limits stop it first). Used in chapter 5.

    256-thread blocks at 50% occupancy on CC 9.0 (32 of 64 warps, 4 blocks): 64 registers; 100%: 32.

    >>> max_registers_for_occupancy(256, 0.5), max_registers_for_occupancy(256, 1.0)
    (64, 32)
    """
    lim = limits(cc)
    target = _check.fraction("target_occupancy", target_occupancy)
    if target <= 0:
        raise ValueError(f"target_occupancy must be above 0, got {target:g}")
    best = 0
    for r in range(1, lim.max_registers_per_thread + 1):
        try:
            o = occupancy(threads_per_block, r, smem_B, cc)
        except ValueError as err:
            if "would not launch" in str(err):
                break
            raise
        if o.occupancy + 1e-12 < target:
            break
        best = r
    if best == 0:
        reached = occupancy(threads_per_block, 1, smem_B, cc)
        raise ValueError(f"target_occupancy = {target:g} is out of reach for threads_per_block = {threads_per_block} "
                         f"and smem_B = {smem_B:g} on compute capability {cc}: even 1 register per thread gives "
                         f"{reached.occupancy:.3g}, limited by {reached.limiter}")
    return best
