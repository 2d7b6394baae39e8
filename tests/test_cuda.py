"""infra_lib.cuda: indexing, bytes, sectors, tiles and the stream pipeline, by hand."""
import pytest

from infra_lib import cuda


def test_vector_add_indexing_and_bytes():
    assert cuda.grid_blocks(1000, 256) == 4 and cuda.idle_threads(1000, 256) == 24
    assert cuda.global_index(3, 128, 127) == 511
    assert cuda.vector_add_bytes_B(1000, 4) == 12000
    assert cuda.time_floor_s(12000, 1e9) == pytest.approx(12e-6)
    with pytest.raises(ValueError, match="thread_idx"):
        cuda.global_index(0, 128, 128)


@pytest.mark.parametrize("stride, sectors", [(1, 4), (2, 8), (3, 12), (4, 16), (8, 32), (33, 32)])
def test_sectors_per_warp_floats(stride, sectors):
    # lane i at byte 4 i s; sector = floor(4 i s / 32)
    assert cuda.sectors_per_warp(stride) == sectors
    assert cuda.useful_fraction(stride) == 128 / (32 * sectors)


def test_doubles_and_bytes():
    assert cuda.sectors_per_warp(1, 8) == 8          # 256 bytes
    assert cuda.sectors_per_warp(1, 1) == 1          # 32 bytes in one sector


def test_measured_strides_against_sectors():
    # useful = read + write, half each; traffic = read / f + write
    rows = cuda.strided_against_sectors([(1, 2000e9), (8, 400e9), (32, 400e9)], 4000e9)
    assert rows[1].fraction == 0.125 and rows[1].sector_Bps == pytest.approx(200e9 * 8 + 200e9)
    assert rows[0].sector_Bps == pytest.approx(2000e9) and rows[0].of_copy == pytest.approx(0.5)
    assert rows[2].fraction_64 == 4 / 64 and rows[2].fetch64_Bps == pytest.approx(200e9 * 16 + 200e9)
    assert rows[1].fetch64_Bps == pytest.approx(rows[1].sector_Bps)      # 32 B per lane: 64 B fetches waste nothing more
    with pytest.raises(ValueError, match="copy_Bps"):
        cuda.strided_against_sectors([(2, 1e9)], 0)


@pytest.mark.parametrize("stride", [1, 2, 3, 4, 8, 16, 32, 33])
def test_share_of_roof_is_traffic_at_the_roof(stride):
    # a useful rate u at the model's share of the roof R moves exactly R of traffic
    for sec in (32, 64):
        u = cuda.strided_share_of_roof(stride, sector_B=sec) * 4e12
        assert cuda.sector_traffic_Bps(u / 2, stride, u / 2, sector_B=sec) == pytest.approx(4e12)
    assert cuda.strided_share_of_roof(stride, sector_B=64) <= cuda.strided_share_of_roof(stride)


def test_real_strided_traffic_never_exceeds_hbm():
    from infra_lib import gpu, hardware, measurements
    copy = measurements.load()["copy"]["GBps"] * 1e9
    hbm = hardware.value("h200_sxm", "mem_bw_Bps")
    rows = cuda.strided_against_sectors(gpu.h200_strided_loads(), copy)
    assert all(r.sector_Bps < hbm and r.fetch64_Bps < hbm for r in rows)


def test_waves():
    assert cuda.wave_quantization(264, 132) == (2, 1.0)
    w = cuda.wave_quantization(133, 132)
    assert w.waves == 2 and w.efficiency == pytest.approx(133 / 264)
    assert cuda.wave_quantization(1, 132, 2) == (1, 1 / 264)
    for n in range(1, 600, 7):                     # waves is the least whole number that holds the tiles
        w = cuda.wave_quantization(n, 132, 2)
        assert (w.waves - 1) * 264 < n <= w.waves * 264 and 0 < w.efficiency <= 1
    with pytest.raises(ValueError, match="sm_count"):
        cuda.wave_quantization(10, 0)
    with pytest.raises(ValueError, match="blocks_per_sm"):
        cuda.wave_quantization(10, 132, 1.5)


def test_output_tiles():
    assert cuda.output_tiles(128, 14336, 128, 256) == 56
    assert cuda.output_tiles(129, 256, 128, 128) == 2 * 2
    with pytest.raises(ValueError, match="tile_n"):
        cuda.output_tiles(128, 128, 128, 0)


def test_accumulators_and_level_bandwidth():
    assert cuda.accumulator_B(64, 64, 4) == 64 * 64 * 4
    assert cuda.accumulator_B(2 * 64, 64) == 2 * cuda.accumulator_B(64, 64)    # linear in each side, square in T
    assert cuda.bandwidth_for_flop_s_Bps(100.0, 4.0) == 25.0
    with pytest.raises(ValueError, match="intensity"):
        cuda.bandwidth_for_flop_s_Bps(1.0, 0)


def test_tiling():
    assert cuda.tile_intensity(16, 16, 4) == 4.0 == 16 / 4
    assert cuda.tile_intensity(64, 128, 2) == pytest.approx(2 * 64 * 128 / (192 * 2))
    assert cuda.tile_smem_B(64, 64, 32, 2, 3) == 3 * 128 * 32 * 2
    assert cuda.naive_matmul_intensity(2) == 0.5
    assert cuda.square_tile_for_intensity(64, 2) == 128


@pytest.mark.parametrize("n, a, b, c", [(1, 1, 2, 3), (5, 1, 1, 1), (8, 3, 1, 2), (3, 0, 2, 0)])
def test_timeline_ends_at_the_pipeline_formula(n, a, b, c):
    spans = cuda.stream_timeline(n, a, b, c)
    assert len(spans) == 3 * n
    assert max(s.end_s for s in spans) == pytest.approx(cuda.overlapped_time_s(n, a, b, c))
    assert cuda.overlapped_time_s(n, a, b, c) == pytest.approx(a + b + c + (n - 1) * max(a, b, c))
    for stage in cuda.STAGES:                                   # one chunk at a time per engine
        ss = [s for s in spans if s.stage == stage]
        assert all(x.end_s <= y.start_s + 1e-12 for x, y in zip(ss, ss[1:]))


def test_measurements():
    assert cuda.h2d_pinned_Bps() == pytest.approx(55.29e9, rel=1e-3)
    pk = cuda.measured_matmul_peaks_flop_s()
    assert pk["bf16"] == pytest.approx(775.3e12, rel=1e-3) and pk["fp8"] == pytest.approx(1391.8e12, rel=1e-3)
    pts = cuda.measured_matmul_roofline()
    assert pts[0].m == 1 and pts[-1].m == 8192


# ---- online softmax, register tiles, banks, reductions, lanes -----------------------------------

import math as _math

from hypothesis import given as _given, strategies as _st


@_given(_st.lists(_st.lists(_st.floats(-50, 50), min_size=1, max_size=8), min_size=1, max_size=8))
def test_online_softmax_equals_the_direct_max_and_normalizer(blocks):
    flat = [x for b in blocks for x in b]
    m, l = cuda.online_softmax(blocks)
    assert m == max(flat)
    assert l == pytest.approx(sum(_math.exp(x - m) for x in flat), rel=1e-12)


def test_register_tiling_loads_and_the_shared_memory_roof():
    assert cuda.smem_loads_per_fma(4, 4) == 8 / 16
    assert cuda.smem_bound_fraction(1, 1, 128) == 32 / (128 * 2)         # 32 words a clock, 256 wanted
    assert cuda.smem_bound_fraction(8, 8, 128) == 1.0


def test_bank_conflicts_of_a_transposed_tile():
    for t in (8, 16, 24, 32, 33, 34):            # row i of [32][t] starts i t words in: gcd(t, 32) lanes per bank
        assert cuda.bank_conflict_degree(cuda.column_addresses_B(32, t)) == _math.gcd(t, 32)
    assert cuda.bank_conflict_degree(cuda.column_addresses_B(32, 33, 5)) == 1
    assert cuda.bank_conflict_degree([0] * 32) == 1                        # one word: a broadcast
    assert {cuda.smem_bank(a) for a in cuda.column_addresses_B(32, 33)} == set(range(32))


def test_reduction_counts():
    r = cuda.reduction(1000, 128)
    assert (r.shuffle_steps, r.block_steps, r.blocks, r.atomics) == (5, 7, 8, 8)
    assert 2 ** cuda.reduction(1 << 24, 1024).block_steps == 1024
    with pytest.raises(ValueError, match="threads_per_block"):
        cuda.reduction(100, 96)


def test_lanes_and_bytes_in_flight():
    assert cuda.fp32_lanes(2, 3) == 6
    assert cuda.bytes_in_flight_per_thread_B(4, 2, 4, 3) == 4 * 2 * 4 * 3
