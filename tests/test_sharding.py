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
    # backward-only overlap, BF16: 4 B / P > 2 x 2 / W  ->  B > P / W = 300
    assert sharding.dp_min_batch_per_device(300, 1) == pytest.approx(300)
    # the whole step (6 FLOPs per parameter per token): 2/3 of that
    assert sharding.dp_min_batch_per_device(300, 1, overlap="step") == pytest.approx(200)
    # eight NICs carry the node's gradient: an eighth; a ring of 4 keeps 3/4
    assert sharding.dp_min_batch_per_device(800, 1, links=8) == pytest.approx(100)
    assert sharding.dp_min_batch_per_device(800, 1, links=8, ranks=4) == pytest.approx(75)
    # FP32 gradients: twice the bytes, twice the tokens
    assert sharding.dp_min_batch_per_device(300, 1, bytes_per_element=4) == pytest.approx(600)


def test_dp_threshold_matches_the_hierarchical_all_reduce():
    """At the threshold, backward compute equals the pipelined two-level all-reduce's network phase."""
    peak, nic, g, nodes, n_params = 1e15, 50e9, 8, 4, 1e9
    b = sharding.dp_min_batch_per_device(peak, nic, links=g, ranks=nodes)
    compute = 4 * n_params * b / peak
    network = collectives.hierarchical_all_reduce(2 * n_params, g, nodes, 1e30, nic).inter_node_s
    assert compute == pytest.approx(network)


@pytest.mark.parametrize("param, call", [
    ("overlap", lambda: sharding.dp_min_batch_per_device(1e15, 5e10, overlap="forward")),
    ("links", lambda: sharding.dp_min_batch_per_device(1e15, 5e10, links=0)),
    ("ranks", lambda: sharding.dp_min_batch_per_device(1e15, 5e10, ranks=0)),
])
def test_dp_threshold_rejects_bad_input(param, call):
    with pytest.raises((TypeError, ValueError), match=param):
        call()


def test_contracting_threshold_by_hand():
    # D > n x (n-1)/n x b P / (2 beta) = 3 x 2 x 100 / 2 = 300 for a reduce-scatter over 4; twice for an all-reduce
    assert sharding.contracting_min_dim(4, 100, 1) == pytest.approx(300)
    assert sharding.contracting_min_dim(4, 100, 1, collective="all_reduce") == pytest.approx(600)
    assert sharding.contracting_min_dim(1, 100, 1) == 0


@given(st.integers(2, 64), st.integers(64, 65536), st.integers(1, 4096))
def test_contracting_threshold_is_where_compute_equals_the_reduce_scatter(n, f, batch):
    peak, bw, b = 1e15, 4e11, 2.0
    d = sharding.contracting_min_dim(n, peak, bw, b)
    compute = 2 * batch * d * f / n / peak
    comm = collectives.ring_reduce_scatter_s(batch * f * b, n, bw)
    assert compute == pytest.approx(comm, rel=1e-9)


def test_tp_decode_is_two_all_reduces_per_layer():
    one = collectives.ring_all_reduce_s(4 * 1024 * 2, 4, 1e11, 1e-6)
    assert sharding.tp_decode_comm_s(1024, 3, 4, 4, 1e11, 1e-6) == pytest.approx(6 * one)


def test_tp_decode_adds_nccls_fixed_cost_per_all_reduce():
    # 3 layers x 2 all-reduces, each t0 more; one GPU communicates nothing
    base = sharding.tp_decode_comm_s(1024, 3, 4, 4, 1e11, 1e-6)
    assert sharding.tp_decode_comm_s(1024, 3, 4, 4, 1e11, 1e-6, base_latency_s=5e-6) == pytest.approx(base + 6 * 5e-6)
    assert sharding.tp_decode_comm_s(1024, 3, 4, 1, 1e11, 1e-6, base_latency_s=5e-6) == 0
    lat = collectives.nccl_ring_latency_s("all_reduce", 4, 5e-6, 1e-6)
    assert sharding.tp_decode_comm_s(1024, 3, 4, 4, 1e30, 1e-6, base_latency_s=5e-6) == pytest.approx(6 * lat)


def test_all_reduce_budget_by_hand():
    # one GPU 100 tokens/s (10 ms), four GPUs 200 tokens/s (5 ms): 5 - 10/4 = 2.5 ms over 2 x 5 all-reduces
    assert sharding.tp_all_reduce_budget_s(100, 200, 4, 5) == pytest.approx(0.25e-3)
    assert sharding.tp_all_reduce_budget_s(100, 400, 4, 5) == pytest.approx(0, abs=1e-15)
    with pytest.raises(ValueError, match="tokens_per_s_tp"):
        sharding.tp_all_reduce_budget_s(100, 401, 4, 5)


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


def test_md1_wait_by_hand():
    # rho = 0.5: 0.5 / (2 x 0.5) = half a service time; two servers halve the load on each
    assert sharding.md1_wait_s(5, 0.1) == pytest.approx(0.05)
    assert sharding.md1_wait_s(10, 0.1, servers=2) == pytest.approx(0.05)
    # rho = 0.9: 0.9 / 0.2 = 4.5 service times
    assert sharding.md1_wait_s(9, 0.1) == pytest.approx(0.45)


@given(st.floats(0.01, 0.99), st.floats(1e-3, 10.0))
def test_md1_wait_is_half_the_mm1_wait(rho, service):
    # M/M/1: W_q = rho / (1 - rho) x service; a fixed service time halves it (Pollaczek-Khinchine)
    assert sharding.md1_wait_s(rho / service, service) == pytest.approx(rho / (1 - rho) * service / 2, rel=1e-9)


@given(st.floats(0.01, 0.98), st.floats(1e-3, 1.0))
def test_md1_wait_grows_with_load(rho, service):
    assert sharding.md1_wait_s(rho / service, service) < sharding.md1_wait_s((rho + 0.01) / service, service)


def test_md1_refuses_a_saturated_server():
    with pytest.raises(ValueError, match="rho"):
        sharding.md1_wait_s(20, 0.05)
    with pytest.raises(ValueError, match="servers"):
        sharding.md1_wait_s(1, 0.05, servers=0)


def test_prefill_decode_ratio_by_hand():
    # 50 ms of prefill; 500 tokens x 10 ms / 64 = 78.125 ms of a decode GPU per request
    assert sharding.prefill_decode_ratio(0.05, 500, 0.01, 64) == pytest.approx(0.05 / (500 * 0.01 / 64))
    # the rate cancels: at any rate the unrounded pools of disaggregated_gpus stand in this ratio
    for rate in (3.0, 20.0, 1000.0):
        pre, dec = rate * 0.05, rate * 500 * 0.01 / 64
        assert pre / dec == pytest.approx(sharding.prefill_decode_ratio(0.05, 500, 0.01, 64))


@pytest.mark.parametrize("args, name", [((0, 500, 0.01, 64), "prefill_s_per_request"),
                                        ((0.05, 0, 0.01, 64), "output_tokens"),
                                        ((0.05, 500, -1, 64), "decode_step_s"),
                                        ((0.05, 500, 0.01, 0), "decode_batch")])
def test_prefill_decode_ratio_names_bad_input(args, name):
    with pytest.raises(ValueError, match=name):
        sharding.prefill_decode_ratio(*args)


def test_disaggregated_load_is_the_unrounded_pools():
    # by hand: 10 requests/s x 0.3 s = 3 busy prefill GPUs; 10 x 100 tokens x 0.02 s / 8 = 2.5 decode GPUs
    assert sharding.disaggregated_load(10, 0.3, 100, 0.02, 8) == pytest.approx((3.0, 2.5))
    assert sharding.disaggregated_gpus(10, 0.3, 100, 0.02, 8) == (3, 3)
    with pytest.raises(ValueError, match="decode_batch"):
        sharding.disaggregated_load(10, 0.3, 100, 0.02, 0)
