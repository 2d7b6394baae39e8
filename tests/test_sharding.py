"""infra_lib.sharding: bytes per device, thresholds, TP traffic and disaggregation."""
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra_lib import collectives, sharding


def test_replicated_array_is_whole_on_every_device():
    assert sharding.bytes_per_device_B((10, 20), 2, {"x": 4}, (None, None)) == 400


def test_two_axes():
    assert sharding.bytes_per_device_B((8, 8), 1, {"a": 2, "b": 4}, ("b", "a")) == 8


@given(st.integers(1, 64), st.integers(1, 64), st.sampled_from([1, 2, 4, 8]))
def test_shards_sum_to_the_array(a, b, n):
    shape = (a * n, b)
    assert sharding.bytes_per_device_B(shape, 2, {"m": n}, ("m", None)) * n == math.prod(shape) * 2


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="divisible"):
        sharding.bytes_per_device_B((10,), 2, {"m": 3}, ("m",))
    with pytest.raises(ValueError, match="twice"):
        sharding.bytes_per_device_B((4, 4), 2, {"m": 2}, ("m", "m"))
    with pytest.raises(KeyError):
        sharding.bytes_per_device_B((4,), 2, {"m": 2}, ("model",))
    with pytest.raises(ValueError, match="spec"):
        sharding.bytes_per_device_B((4, 4), 2, {"m": 2}, ("m",))


def test_tp_threshold_by_hand():
    # n < 2 F link / (b peak): 2 x 1000 x 1 / (2 x 10) = 100
    assert sharding.tp_max_degree(1000, 10, 1) == pytest.approx(100)


def test_dp_threshold_by_hand():
    assert sharding.dp_min_batch_per_device(300, 1) == pytest.approx(200)


def test_tp_decode_is_two_all_reduces_per_layer():
    one = collectives.ring_all_reduce_s(4 * 1024 * 2, 4, 1e11, 1e-6)
    assert sharding.tp_decode_comm_s(1024, 3, 4, 4, 1e11, 1e-6) == pytest.approx(6 * one)


def test_disaggregation_by_hand():
    # 10/s x 0.3 s = 3 prefill GPUs; 10 x 100 x 0.02 / 8 = 2.5 -> 3 decode GPUs
    assert sharding.disaggregated_gpus(10, 0.3, 100, 0.02, 8) == (3, 3)


def test_torus_one_axis_is_a_bidirectional_ring():
    # one axis of n: the flat ring with both directions of every link, i.e. twice the bandwidth
    assert collectives.torus_all_reduce_s(1e9, (4,), 1e11, 1e-6) == pytest.approx(
        collectives.ring_all_reduce_s(1e9, 4, 2e11, 1e-6))


def test_torus_by_hand():
    # 2 x 2, S = 8, beta = 1: axis 1: 2 x 1/2 x 8 / 2 = 4; axis 2: 2 x 1/2 x 4 / 2 = 2
    assert collectives.torus_all_reduce_s(8, (2, 2), 1) == pytest.approx(6)
