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
    rows = cuda.strided_against_sectors([(1, 2000e9), (8, 400e9)])
    assert rows[1].fraction == 0.125 and rows[1].sector_Bps == pytest.approx(3200e9)
    with pytest.raises(ValueError, match="stride 1"):
        cuda.strided_against_sectors([(2, 1e9)])


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
