"""infra_lib.quantization: expected values worked out by hand or from identities."""
import math

import numpy as np
import pytest

from infra_lib import formats, quantization as q


def test_bits_per_param_by_hand():
    assert q.bits_per_param(4, 16, 128) == 4 + 16 / 128                    # 4.125
    assert q.bits_per_param(4, 16, 128, zero_point_bits=16) == 4.25
    assert q.bits_per_param(8, 16, 4096) == 8 + 1 / 256
    assert formats.MXFP4.bits_per_value == 4.25 and formats.NVFP4.bits_per_value == 4.5


def test_weight_bytes_70b():
    assert q.weight_B(70e9, 16) == 140e9
    assert q.weight_B(70e9, 4.5) == pytest.approx(39.375e9)


def test_int_qmax():
    assert [q.int_qmax(b) for b in (2, 4, 8)] == [1, 7, 127]
    with pytest.raises(ValueError, match="bits"):
        q.int_qmax(1)


def test_quantize_is_exact_on_the_grid_and_within_half_a_step():
    w = np.array([[7.0, -3.0], [1.0, 2.0]])          # per-tensor INT4: s = 7/7 = 1, all on the grid
    assert np.array_equal(q.quantize_int(w, 4, "tensor"), w)
    rng = np.random.default_rng(0)
    w = rng.standard_normal((256, 8))
    for g in ("tensor", "channel", "group"):
        wq = q.quantize_int(w, 8, g, 128)
        step = np.abs(w).max() / 127
        assert np.abs(w - wq).max() <= step / 2 + 1e-12


def test_finer_scales_never_lose_on_outliers():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((512, 64)) * rng.lognormal(0, 1, 64)
    w[3, 5] = 50 * np.abs(w).max()
    err = {g: formats.relative_rms_error(w, q.quantize_int(w, 4, g, 128)) for g in q.GRANULARITIES}
    assert err["group"] < err["channel"] < err["tensor"]


def test_sqnr_identity():
    # relative error 0.1 -> 20 dB; uniform error of half a step on INT8: about 6 dB per bit
    assert q.sqnr_db([3.0, 4.0], [3.0, 4.5]) == pytest.approx(20.0)
    with pytest.raises(ValueError, match="infinite"):
        q.sqnr_db([1.0], [1.0])
    assert 20 * math.log10(2) == pytest.approx(6.0206, abs=1e-4)


def test_kv_tokens_by_hand():
    assert q.kv_tokens_that_fit(80e9, 16e9, 131072) == int(64e9 / 131072)
    assert q.kv_tokens_that_fit(10e9, 16e9, 131072) == 0
