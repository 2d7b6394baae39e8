"""infra_lib.occupancy: NVIDIA's worked examples exactly, each limit by hand arithmetic."""
import pytest

from infra_lib import hardware as hw, occupancy as occ


# ---- the limits: registry values, one entry per compute capability ---------------------------------

# The CUDA C++ Programming Guide, Technical Specifications per Compute Capability: resident warps and
# blocks per SM, shared memory per SM and per block (KB), reserved per block (KB); cuda_occupancy.h:
# the shared-memory allocation unit (bytes; cudaOccSMemAllocationGranularity: 256 for majors 3-7, 128 from 8)
# and the sub-partitions.
GUIDE = [("6.0", 64, 32, 64, 48, 0, 256, 2), ("7.0", 64, 32, 96, 96, 0, 256, 4), ("7.5", 32, 16, 64, 64, 0, 256, 4),
         ("8.0", 64, 32, 164, 163, 1, 128, 4), ("8.6", 48, 16, 100, 99, 1, 128, 4), ("8.9", 48, 24, 100, 99, 1, 128, 4),
         ("9.0", 64, 32, 228, 227, 1, 128, 4),
         # Blackwell: CCCL's cuda::arch::traits (the Guide's table states the same)
         ("10.0", 64, 32, 228, 227, 1, 128, 4), ("12.0", 48, 32, 100, 99, 1, 128, 4)]


@pytest.mark.parametrize("cc, warps, blocks, smem_kb, block_kb, reserved_kb, smem_unit, parts", GUIDE)
def test_limits_are_the_guides_table(cc, warps, blocks, smem_kb, block_kb, reserved_kb, smem_unit, parts):
    lim = occ.limits(cc)
    assert (lim.cc, lim.max_warps, lim.max_blocks, lim.max_threads) == (cc, warps, blocks, warps * 32)
    assert (lim.smem_per_sm_B, lim.max_smem_per_block_B, lim.reserved_smem_per_block_B) == (
        smem_kb * 1024, block_kb * 1024, reserved_kb * 1024)
    assert (lim.smem_unit_B, lim.warp_granularity) == (smem_unit, parts)
    # the same on every compute capability here: 64 K registers per SM and per block, 255 per thread,
    # allocated in units of 256; 1,024 threads per block; 32 threads per warp
    assert (lim.registers, lim.max_registers_per_block, lim.max_registers_per_thread, lim.register_unit,
            lim.max_threads_per_block, lim.warp_size) == (65536, 65536, 255, 256, 1024, 32)


def test_the_compute_capabilities_are_the_registrys():
    assert occ.compute_capabilities() == tuple(row[0] for row in GUIDE)


def test_every_limit_is_a_datasheet_value_of_the_guide_or_the_header():
    specs = [s for s in hw.all_specs() if s.device.startswith("cuda_cc_")]
    assert len(specs) == 13 * len(GUIDE)
    assert {s.kind for s in specs} == {"datasheet"}
    assert {s.source.key for s in specs} == {"cuda_programming_guide", "cuda_occupancy_h", "cccl_arch_traits"}


def test_reading_the_limits_records_their_sources():
    hw.reset_usage()
    occ.limits("9.0")
    assert {s.source.key for s in hw.used_specs()} == {"cuda_programming_guide", "cuda_occupancy_h"}
    hw.reset_usage()


# ---- occupancy: the guides' worked examples and each limit by hand --------------------------------

@pytest.mark.parametrize("what, threads, regs, smem, cc, warps", occ.WORKED_EXAMPLES)
def test_the_guides_worked_examples(what, threads, regs, smem, cc, warps):
    assert occ.occupancy(threads, regs, smem, cc).warps == warps, what


def test_best_practices_percentages():
    # "an occupancy of 75% with 12 active 128-thread blocks" and "63% because only four 320-thread blocks"
    a, b = occ.occupancy(128, 37, 0, "7.0"), occ.occupancy(320, 37, 0, "7.0")
    assert (a.blocks, a.occupancy) == (12, 0.75)
    assert (b.blocks, int(100 * b.occupancy + 0.5)) == (4, 63)      # 62.5% rounded half up
    assert a.limiter == b.limiter == "registers"


def test_programming_guide_one_register_more():
    # two blocks of 512 threads at 64 registers fill the SM's registers exactly: 2 x 512 x 64 = 65,536;
    # at 65 only one block
    assert occ.limits("6.0").registers == 2 * 512 * 64
    assert occ.occupancy(512, 64, 0, "6.0").blocks == 2
    assert occ.occupancy(512, 65, 0, "6.0").blocks == 1


@pytest.mark.parametrize("regs, per_warp", [(1, 256), (8, 256), (9, 512), (32, 1024), (37, 1280), (255, 8192)])
def test_registers_are_allocated_per_warp_in_units_of_256(regs, per_warp):
    assert occ.registers_per_warp(regs) == per_warp


@pytest.mark.parametrize("regs, warps", [(32, 64), (64, 32), (96, 20), (128, 16), (168, 12), (255, 8)])
def test_warps_by_registers_whole_warps_per_subpartition(regs, warps):
    # 16,384 registers per sub-partition / allocated per warp, rounded down, times 4
    assert occ.warps_by_registers(regs) == 4 * (16384 // (-(-regs * 32 // 256) * 256)) == min(warps, 64)


def test_naive_estimate_overcounts_96_registers():
    assert occ.naive_warps_by_registers(96) == 65536 // 3072 == 21
    assert occ.warps_by_registers(96) == 20


def test_shared_memory_limit_with_reservation_on_hopper():
    # 48 KiB + 1 KiB reserved = 50,176 B; 228 KiB = 233,472 B holds 4 of them
    o = occ.occupancy(128, 32, 48 * 1024, "9.0")
    assert o.smem_per_block_B == 50176
    assert o.blocks_by["shared_memory"] == 233472 // 50176 == 4
    assert o.limiter == "shared_memory" and o.warps == 16


def test_shared_memory_rounds_up_to_the_allocation_unit():
    assert occ.smem_per_block_B(1, "9.0") == 1152          # 1 + 1024 reserved -> 1152, a multiple of 128
    assert occ.smem_per_block_B(1, "7.0") == 256           # nothing reserved on 7.x; the unit is 256 bytes


def test_warps_and_blocks_limits():
    assert occ.occupancy(1024, 32).limiter == "warps"        # 32 warps per block, 2 blocks
    o = occ.occupancy(32, 16)                                # 1 warp per block: the 32-block cap
    assert o.limiters == ("blocks",) and o.warps == 32
    assert occ.occupancy(64, 32).limiters == ("warps", "registers", "blocks")   # ties are all named


def test_cc_86_has_48_warps():
    assert occ.occupancy(256, 32, 0, "8.6").warps == 48


@pytest.mark.parametrize("kwargs, name", [
    (dict(threads_per_block=1025, registers_per_thread=32), "threads_per_block"),
    (dict(threads_per_block=0, registers_per_thread=32), "threads_per_block"),
    (dict(threads_per_block=128, registers_per_thread=256), "registers_per_thread"),
    (dict(threads_per_block=128, registers_per_thread=32, smem_B=228 * 1024), "smem_B"),
    (dict(threads_per_block=1024, registers_per_thread=65), "registers_per_thread"),
])
def test_what_cannot_launch_is_an_error_naming_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        occ.occupancy(**kwargs)


def test_unknown_compute_capability():
    with pytest.raises(KeyError, match="cc"):
        occ.occupancy(128, 32, 0, "9.1")


# ---- the chapter's hand-written kernel (review 5.2): a single limiter, and cutting it helps -------

def test_a_tie_between_registers_and_shared_memory_at_64_registers():
    # 64 registers: 2,048 per warp, 8 warps per sub-partition, 32 warps = 4 blocks of 8; 48 KiB + 1 KiB: 4 blocks
    o = occ.occupancy(256, 64, 48 * 1024)
    assert o.limiters == ("registers", "shared_memory")


def test_the_chapters_smem_limited_kernel_rises_when_its_tiles_shrink():
    # 32 registers: 1,024 per warp, registers allow 64 warps = 8 blocks; shared memory 233,472 // 50,176 = 4
    start, cut = occ.occupancy(256, 32, 48 * 1024), occ.occupancy(256, 32, 40 * 1024)
    assert start.limiters == ("shared_memory",) and start.blocks == 233_472 // (49 * 1024)
    assert cut.blocks == 233_472 // (41 * 1024) and cut.limiter == "shared_memory"
    assert cut.occupancy != start.occupancy and cut.occupancy > start.occupancy


def test_mean_registers_of_a_warp_specialized_block():
    assert occ.mean_registers_per_thread([(128, 40), (256, 232)]) == (40 + 2 * 232) / 3
    assert occ.mean_registers_per_thread([(64, 100)]) == 100
    with pytest.raises(ValueError, match="groups"):
        occ.mean_registers_per_thread([])


# ---- the inverse question: most registers for a target occupancy -----------------------------------

@pytest.mark.parametrize("threads, target, smem", [(256, 0.5, 0), (128, 0.25, 0), (384, 0.1875, 0),
                                                   (256, 0.25, 40 * 1024), (1024, 0.5, 0), (64, 0.9, 0)])
def test_max_registers_reaches_the_target_and_one_more_does_not(threads, target, smem):
    r = occ.max_registers_for_occupancy(threads, target, smem)
    assert occ.occupancy(threads, r, smem).occupancy >= target
    if r < 255:
        try:
            assert occ.occupancy(threads, r + 1, smem).occupancy < target
        except ValueError as err:                      # one more register and the block would not launch
            assert "would not launch" in str(err)


def test_max_registers_by_hand():
    # 50% of 64 warps with 256-thread blocks: 4 blocks, 32 warps; 65,536 / 32 warps = 2,048 per warp = 64 x 32
    assert occ.max_registers_for_occupancy(256, 0.5) == 65536 // 32 // 32


def test_max_registers_refuses_an_unreachable_target():
    with pytest.raises(ValueError, match="target_occupancy"):
        occ.max_registers_for_occupancy(256, 1.0, 100 * 1024)      # two blocks of shared memory at most
    with pytest.raises(ValueError, match="target_occupancy"):
        occ.max_registers_for_occupancy(256, 0)
