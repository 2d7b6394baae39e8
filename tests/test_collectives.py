"""Tests for infra_lib.collectives: the alpha-beta cost of ring collectives, nccl-tests' algbw and
busbw, and the two-level all-reduce.

Expected values by hand: a ring of n ranks sends 2(n - 1)/n of the buffer per rank for an
all-reduce and (n - 1)/n for all-gather and reduce-scatter (Patarasuk and Yuan 2009; Thakur,
Rabenseifner and Gropp 2005); busbw = algbw x those factors (nccl-tests doc/PERFORMANCE.md).
"""

import pytest
from hypothesis import given, strategies as st

from infra_lib import collectives as col

from bad_values import BAD_NON_NEGATIVE, BAD_POSITIVE, BAD_COUNT, PROPS, names


sizes = st.floats(min_value=0, max_value=1e12)
ranks = st.integers(min_value=1, max_value=1024)
bws = st.floats(min_value=1e9, max_value=1e13)
lats = st.floats(min_value=0, max_value=1e-3)
RING = ("all_reduce", "all_gather", "reduce_scatter")


# ---- by hand ------------------------------------------------------------------------------------

def test_ring_all_reduce_8_gpus_1_gb_nvlink():
    # each GPU sends 2 x 7/8 x 1 GB = 1.75 GB at 450 GB/s per direction: 1.75 / 450 s = 3.888... ms
    assert col.bytes_sent_per_rank_B("all_reduce", 1e9, 8) == 1.75e9
    assert col.ring_all_reduce_s(1e9, 8, 450e9) == pytest.approx(1.75e9 / 450e9, rel=1e-12)
    assert col.ring_all_reduce_s(1e9, 8, 450e9) * 1e3 == pytest.approx(3.8889, abs=1e-4)
    # with 5 us per step: 2 x 7 = 14 steps, 70 us more
    assert col.ring_all_reduce_s(1e9, 8, 450e9, 5e-6) == pytest.approx(1.75e9 / 450e9 + 14 * 5e-6, rel=1e-12)


def test_ring_all_gather_and_reduce_scatter_by_hand():
    # 7/8 x 1 GB / 450 GB/s = 1.9444 ms, plus 7 steps of latency
    assert col.ring_all_gather_s(1e9, 8, 450e9) == pytest.approx(0.875e9 / 450e9, rel=1e-12)
    assert col.ring_reduce_scatter_s(1e9, 8, 450e9, 1e-5) == pytest.approx(0.875e9 / 450e9 + 7e-5, rel=1e-12)


def test_broadcast_by_hand():
    # pipelined chain: 1 GB / 450 GB/s = 2.222 ms, plus 7 hops of 5 us
    assert col.pipelined_broadcast_s(1e9, 8, 450e9) == pytest.approx(1e9 / 450e9, rel=1e-12)
    assert col.pipelined_broadcast_s(1e9, 8, 450e9, 5e-6) == pytest.approx(1e9 / 450e9 + 35e-6, rel=1e-12)


def test_bus_factors_from_nccl_tests():
    assert col.bus_factor("all_reduce", 8) == 2 * 7 / 8
    assert col.bus_factor("all_gather", 8) == 7 / 8
    assert col.bus_factor("reduce_scatter", 16) == 15 / 16
    assert col.bus_factor("broadcast", 8) == 1.0
    assert col.bus_factor("all_reduce", 2) == 1.0


def test_algbw_and_busbw_by_hand():
    # 1 GB all-reduce in 3.8889 ms: algbw = 257.14 GB/s, busbw = 257.14 x 1.75 = 450 GB/s, the link
    t = 1.75e9 / 450e9
    assert col.algbw_Bps(1e9, t) == pytest.approx(1e9 / t)
    assert col.algbw_Bps(1e9, t) / 1e9 == pytest.approx(257.142857, rel=1e-9)
    assert col.busbw_Bps("all_reduce", col.algbw_Bps(1e9, t), 8) == pytest.approx(450e9, rel=1e-12)


def test_hierarchical_by_hand():
    # 2 nodes x 8 GPUs, 1 GB; NVLink 450 GB/s, one 50 GB/s NIC per GPU
    h = col.hierarchical_all_reduce(1e9, 8, 2, 450e9, 50e9)
    assert h.reduce_scatter_s == pytest.approx(7 / 8 * 1e9 / 450e9, rel=1e-12)   # 1.944 ms
    assert h.all_gather_s == pytest.approx(7 / 8 * 1e9 / 450e9, rel=1e-12)
    assert h.inter_node_s == pytest.approx(2 * 1 / 2 * 125e6 / 50e9, rel=1e-12)   # 2.5 ms
    assert h.time_s == pytest.approx(2 * 7 / 8 * 1e9 / 450e9 + 2.5e-3, rel=1e-12)
    # the flat ring of 16 GPUs over the NICs: 2 x 15/16 x 1 GB / 50 GB/s = 37.5 ms
    assert col.ring_all_reduce_s(1e9, 16, 50e9) == pytest.approx(37.5e-3, rel=1e-12)
    assert h.time_s < col.ring_all_reduce_s(1e9, 16, 50e9)


def test_hierarchical_latency_terms_by_hand():
    # 1 byte: latency only. Inside: 7 + 7 steps of 2 us; across 4 nodes: 2 x 3 steps of 10 us
    h = col.hierarchical_all_reduce(1, 8, 4, 450e9, 50e9, intra_latency_s=2e-6, inter_latency_s=1e-5)
    assert h.time_s == pytest.approx(14 * 2e-6 + 6 * 1e-5, rel=1e-3)


# ---- identities -------------------------------------------------------------------------------

@PROPS
@given(sizes, ranks, bws, lats)
def test_all_reduce_is_reduce_scatter_plus_all_gather(s, n, bw, lat):
    assert col.ring_all_reduce_s(s, n, bw, lat) == pytest.approx(
        col.ring_reduce_scatter_s(s, n, bw, lat) + col.ring_all_gather_s(s, n, bw, lat), rel=1e-12, abs=1e-18)


@PROPS
@given(st.sampled_from(col.COLLECTIVES), sizes, bws, lats)
def test_one_rank_costs_nothing(c, s, bw, lat):
    assert col.ring_time_s(c, s, 1, bw, lat) == 0.0
    assert col.bytes_sent_per_rank_B(c, s, 1) == (s if c == "broadcast" else 0.0)


@PROPS
@given(st.sampled_from(RING), st.floats(min_value=1, max_value=1e12), st.integers(min_value=2, max_value=1024), bws)
def test_ring_busbw_is_the_link_bandwidth(c, s, n, bw):
    t = col.ring_time_s(c, s, n, bw)
    assert col.busbw_Bps(c, col.algbw_Bps(s, t), n) == pytest.approx(bw, rel=1e-9)


@PROPS
@given(st.sampled_from(col.COLLECTIVES), st.floats(min_value=1e3, max_value=1e12), ranks)
def test_busbw_over_algbw_is_the_factor(c, algbw, n):
    assert col.busbw_Bps(c, algbw, n) / algbw == pytest.approx(col.bus_factor(c, n), rel=1e-12)


@PROPS
@given(st.sampled_from(col.COLLECTIVES), sizes, sizes, ranks, bws, lats)
def test_time_grows_with_size(c, a, b, n, bw, lat):
    small, big = sorted((a, b))
    assert col.ring_time_s(c, small, n, bw, lat) <= col.ring_time_s(c, big, n, bw, lat)


@PROPS
@given(st.sampled_from(RING), st.floats(min_value=1, max_value=1e12), st.integers(min_value=1, max_value=512), bws)
def test_more_ranks_never_send_less(c, s, n, bw):
    assert col.ring_time_s(c, s, n, bw) <= col.ring_time_s(c, s, n + 1, bw)
    assert col.bytes_sent_per_rank_B(c, s, n) < (2 if c == "all_reduce" else 1) * s


@PROPS
@given(sizes, st.integers(min_value=1, max_value=16), bws, lats)
def test_hierarchical_with_one_node_is_the_ring_inside(s, g, bw, lat):
    h = col.hierarchical_all_reduce(s, g, 1, bw, 1e9, intra_latency_s=lat)
    assert h.inter_node_s == 0.0
    assert h.time_s == pytest.approx(col.ring_all_reduce_s(s, g, bw, lat), rel=1e-12, abs=1e-18)


@PROPS
@given(sizes, st.integers(min_value=1, max_value=64), bws, lats)
def test_hierarchical_with_one_gpu_per_node_is_the_ring_across(s, n, bw, lat):
    h = col.hierarchical_all_reduce(s, 1, n, 1e12, bw, inter_latency_s=lat)
    assert h.reduce_scatter_s == h.all_gather_s == 0.0
    assert h.time_s == pytest.approx(col.ring_all_reduce_s(s, n, bw, lat), rel=1e-12, abs=1e-18)


# ---- bad input names the parameter ---------------------------------------------------------------

ALL_RING = [col.ring_all_reduce_s, col.ring_all_gather_s, col.ring_reduce_scatter_s, col.pipelined_broadcast_s]


@pytest.mark.parametrize("fn", ALL_RING)
@pytest.mark.parametrize("bad", BAD_NON_NEGATIVE)
def test_size_and_latency_reject_bad_input(fn, bad):
    with pytest.raises((TypeError, ValueError), match=names("size_B")):
        fn(bad, 8, 450e9)
    with pytest.raises((TypeError, ValueError), match=names("latency_s")):
        fn(1e9, 8, 450e9, bad)


@pytest.mark.parametrize("fn", ALL_RING)
@pytest.mark.parametrize("bad", BAD_POSITIVE)
def test_bandwidth_rejects_bad_input(fn, bad):
    with pytest.raises((TypeError, ValueError), match=names("bandwidth_Bps")):
        fn(1e9, 8, bad)


@pytest.mark.parametrize("fn", ALL_RING)
@pytest.mark.parametrize("bad", BAD_COUNT)
def test_ranks_reject_bad_input(fn, bad):
    with pytest.raises((TypeError, ValueError), match=names("ranks")):
        fn(1e9, bad, 450e9)


@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("param, call", [
    ("time_s", lambda x: col.algbw_Bps(1e9, x)),
    ("intra_Bps", lambda x: col.hierarchical_all_reduce(1e9, 8, 2, x, 50e9)),
    ("inter_Bps", lambda x: col.hierarchical_all_reduce(1e9, 8, 2, 450e9, x)),
])
def test_positives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_COUNT)
@pytest.mark.parametrize("param, call", [
    ("gpus_per_node", lambda x: col.hierarchical_all_reduce(1e9, x, 2, 450e9, 50e9)),
    ("nodes", lambda x: col.hierarchical_all_reduce(1e9, 8, x, 450e9, 50e9)),
    ("ranks", lambda x: col.bus_factor("all_reduce", x)),
])
def test_counts_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_NON_NEGATIVE)
@pytest.mark.parametrize("param, call", [
    ("algbw", lambda x: col.busbw_Bps("all_reduce", x, 8)),
    ("size_B", lambda x: col.algbw_Bps(x, 1.0)),
    ("size_B", lambda x: col.hierarchical_all_reduce(x, 8, 2, 450e9, 50e9)),
    ("intra_latency_s", lambda x: col.hierarchical_all_reduce(1e9, 8, 2, 450e9, 50e9, intra_latency_s=x)),
    ("inter_latency_s", lambda x: col.hierarchical_all_reduce(1e9, 8, 2, 450e9, 50e9, inter_latency_s=x)),
])
def test_non_negatives_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


def test_unknown_collective_is_named():
    with pytest.raises(ValueError, match=r"collective must be one of .*'all_reduce'.*got 'allreduce'"):
        col.ring_time_s("allreduce", 1e9, 8, 450e9)


@PROPS
@given(sizes, st.integers(min_value=2, max_value=1024), bws)
def test_in_network_all_reduce_never_beats_sending_once_and_halves_the_ring_at_scale(size, n, bw):
    """SHARP-style reduction: each GPU sends S once and receives S once: S / beta. The ring sends
    2(n - 1)/n x S, the same at n = 2 and twice as much as n grows."""
    switch, ring = col.in_network_all_reduce_s(size, bw), col.ring_all_reduce_s(size, n, bw)
    assert switch == pytest.approx(size / bw)
    assert switch <= ring * (1 + 1e-12)
    assert ring == pytest.approx(switch * 2 * (n - 1) / n)


@pytest.mark.parametrize("bad", BAD_NON_NEGATIVE)
@pytest.mark.parametrize("param, call", [
    ("size_B", lambda x: col.in_network_all_reduce_s(x, 450e9)),
    ("latency_s", lambda x: col.in_network_all_reduce_s(1e9, 450e9, x)),
])
def test_in_network_all_reduce_rejects_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)



# ---- pipelining, channels, levels, NCCL's latency, the switch's gain ----------------------------

def test_pipelined_hierarchy_by_hand():
    # 4 nodes of 8, 1 GB: NVLink 2 x 7/8 x 1 GB / 450 GB/s, network 2 x 3/4 x 125 MB / 50 GB/s
    h = col.hierarchical_all_reduce(1e9, 8, 4, 450e9, 50e9)
    nvlink, network = 1.75e9 / 450e9, 1.5 * 0.125e9 / 50e9
    assert h.time_s == pytest.approx(nvlink + network)
    assert h.pipelined_s == pytest.approx(max(nvlink, network))


@given(sizes, st.integers(1, 16), st.integers(1, 64), bws, bws)
def test_two_levels_are_the_multilevel_model(size, g, n, bi, be):
    h = col.hierarchical_all_reduce(size, g, n, bi, be)
    levels = [(g, bi), (n, be)]
    assert col.multilevel_all_reduce_s(size, levels) == pytest.approx(h.pipelined_s, rel=1e-9, abs=1e-300)
    assert col.multilevel_all_reduce_s(size, levels, pipelined=False) == pytest.approx(h.time_s, rel=1e-9, abs=1e-300)
    assert h.pipelined_s <= h.time_s * (1 + 1e-12)


@given(st.floats(1e3, 1e12), ranks, bws)
def test_one_level_is_the_ring_and_its_busbw_is_the_link(size, n, bw):
    assert col.multilevel_all_reduce_s(size, [(n, bw)]) == pytest.approx(col.ring_all_reduce_s(size, n, bw))
    if n > 1:
        assert col.multilevel_busbw_Bps(size, [(n, bw)]) == pytest.approx(bw)


def test_multilevel_busbw_by_hand():
    # 2 x 2 ranks, 8 bytes, 1 B/s at both levels: level 1 2 x 1/2 x 8 = 8 s, level 2 2 x 1/2 x 4 = 4 s;
    # pipelined 8 s, busbw = 2 x 3/4 x 8 / 8 = 1.5 B/s
    assert col.multilevel_all_reduce_s(8, [(2, 1), (2, 1)]) == 8
    assert col.multilevel_all_reduce_s(8, [(2, 1), (2, 1)], pipelined=False) == 12
    assert col.multilevel_busbw_Bps(8, [(2, 1), (2, 1)]) == pytest.approx(1.5)


@pytest.mark.parametrize("levels", [[], "8", [(8,)], [(0, 1e9)], [(8, 0.0)], [(8, -1.0)], 3])
def test_multilevel_rejects_bad_levels(levels):
    with pytest.raises((TypeError, ValueError), match="levels"):
        col.multilevel_all_reduce_s(1e9, levels)


def test_multi_channel_ring_by_hand():
    # 4 nodes of 8, eight NICs: each NIC 2 x 31/32 x S/8; each GPU's NVLink 7/8 x 2 x 31/32 x S
    r = col.multi_channel_ring_all_reduce(1e9, 8, 4, 450e9, 50e9)
    assert r.network_s == pytest.approx(2 * 31 / 32 * 1e9 / 8 / 50e9)
    assert r.nvlink_s == pytest.approx(7 / 8 * 2 * 31 / 32 * 1e9 / 450e9)
    assert r.time_s == max(r.network_s, r.nvlink_s)
    # one NIC per node: one channel carries everything through it, eight times the network time
    one = col.multi_channel_ring_all_reduce(1e9, 8, 4, 450e9, 50e9, nics_per_node=1)
    assert one.network_s == pytest.approx(8 * r.network_s)
    assert one.network_s == pytest.approx(col.ring_all_reduce_s(1e9, 32, 50e9))


@given(sizes, st.integers(1, 16), bws, bws, lats)
def test_multi_channel_ring_on_one_node_is_the_flat_ring(size, g, bi, be, lat):
    r = col.multi_channel_ring_all_reduce(size, g, 1, bi, be, latency_s=lat)
    assert r.network_s == 0
    assert r.time_s == pytest.approx(col.ring_all_reduce_s(size, g, bi, lat), rel=1e-9, abs=1e-300)


def test_nccl_latency_by_hand():
    # t0 + 2(n - 1) alpha for an all-reduce, n - 1 steps for an all-gather; nothing on one rank
    assert col.nccl_ring_latency_s("all_reduce", 8, 6.6e-6, 0.6e-6) == pytest.approx(6.6e-6 + 14 * 0.6e-6)
    assert col.nccl_ring_latency_s("all_gather", 8, 6.6e-6, 0.6e-6) == pytest.approx(6.6e-6 + 7 * 0.6e-6)
    assert col.nccl_ring_latency_s("all_reduce", 1, 6.6e-6, 0.6e-6) == 0


def test_the_registry_holds_ncclS_constants_and_gpt_fast_bounds_them():
    from infra_lib import hardware as hw, sharding
    v = lambda k: hw.value("perf_teaching", k)
    new = col.nccl_ring_latency_s("all_reduce", 8, v("nccl_base_latency_s"), v("nccl_hop_latency_s"))
    old = col.nccl_ring_latency_s("all_reduce", 8, v("nccl_2_12_base_latency_s"), v("nccl_2_12_hop_latency_s"))
    budget = sharding.tp_all_reduce_budget_s(hw.value("gpt_fast", "llama2_7b_tp1_tokens_per_s"), hw.value("gpt_fast", "llama2_7b_tp8_tokens_per_s"), 8, 32)
    assert old < new < budget


@given(st.integers(1, 1024))
def test_in_network_gain_is_the_ring_over_the_switch(n):
    assert col.in_network_gain(n) == pytest.approx(col.ring_all_reduce_s(1e9, n, 1e11) / col.in_network_all_reduce_s(1e9, 1e11))
    assert col.in_network_gain(n) < 2


# ---- all-gather on a multi-axis torus ------------------------------------------------------------

@given(st.lists(st.integers(1, 8), min_size=1, max_size=4), st.floats(1e3, 1e10))
def test_torus_all_gather_telescopes(dims, size):
    n = 1
    for d in dims:
        n *= d
    beta = 50e9
    t = col.torus_all_gather_s(size, tuple(dims), beta)
    # any order: (N - 1)/N x S over a bidirectional link, as one ring of all N ranks
    assert t == pytest.approx((n - 1) / n * size / (2 * beta), rel=1e-9, abs=1e-15)
    assert t == pytest.approx(col.torus_all_gather_s(size, tuple(reversed(dims)), beta), rel=1e-9, abs=1e-15)
    # the all-gather half of the torus all-reduce
    assert t == pytest.approx(col.torus_all_reduce_s(size, tuple(dims), beta) / 2, rel=1e-9, abs=1e-15)


def test_torus_all_gather_stages_by_hand():
    # 4 x 4 x 2, gathered in that order: stages end with S/8, S/2, S
    s, beta, alpha = 1e9, 50e9, 1e-6
    stages = [(3 / 4) * s / 8, (3 / 4) * s / 2, (1 / 2) * s]
    expect = sum(stages) / (2 * beta) + (3 + 3 + 1) * alpha
    assert col.torus_all_gather_s(s, (4, 4, 2), beta, alpha) == pytest.approx(expect)
    # all three axes at once: the bandwidth term over three (How to Scale Your Model)
    assert col.torus_all_gather_s(s, (4, 4, 2), beta, concurrent=True) == pytest.approx(sum(stages) / (2 * beta) / 3)
    # an axis of length one adds nothing and does not count as an axis
    assert col.torus_all_gather_s(s, (4, 1, 4), beta, concurrent=True) == pytest.approx(
        col.torus_all_gather_s(s, (4, 4), beta, concurrent=True))


@pytest.mark.parametrize("dims", [(), "44", (4, 0), (4, -2), 4])
def test_torus_all_gather_rejects(dims):
    with pytest.raises((ValueError, TypeError)):
        col.torus_all_gather_s(1e9, dims, 50e9)


# ---- the reduction done in the fabric's switches (SHARP across nodes) ---------------------------

def test_in_network_hierarchical_by_hand():
    # 4 nodes of 8 GPUs, 8 GB, NVLink 400 GB/s, NICs 50 GB/s: each GPU's share after the node's
    # reduce-scatter is 1 GB, sent once through its NIC: 20 ms; the node's reduce-scatter and
    # all-gather move 7/8 x 8 GB each way on every GPU's NVLink: 14 GB / 400 GB/s = 35 ms
    r = col.in_network_hierarchical_all_reduce(8e9, 8, 4, 400e9, 50e9)
    assert r.nic_B == pytest.approx(1e9)
    assert r.network_s == pytest.approx(1e9 / 50e9)
    assert r.nvlink_s == pytest.approx(2 * 7e9 / 400e9)
    assert r.time_s == pytest.approx(35e-3)


@PROPS
@given(sizes, st.integers(min_value=1, max_value=16), st.integers(min_value=2, max_value=256), bws, bws)
def test_in_network_sends_each_share_once_and_saves_the_ring_factor(size, g, nodes, bi, be):
    """Across nodes each NIC carries S/g once (the g NICs of a node together carry S once); a flat
    ring over the same n = gN GPUs carries 2(n - 1)/n of that; inside the node the NVLink phases
    are the two-level all-reduce's reduce-scatter and all-gather."""
    r = col.in_network_hierarchical_all_reduce(size, g, nodes, bi, be)
    ring = col.multi_channel_ring_all_reduce(size, g, nodes, bi, be)
    two = col.hierarchical_all_reduce(size, g, nodes, bi, be)
    n = g * nodes
    assert r.nic_B * g == pytest.approx(size)
    assert ring.network_s == pytest.approx(r.network_s * 2 * (n - 1) / n)
    assert ring.network_s == pytest.approx(r.network_s * col.in_network_gain(n))
    assert r.network_s <= ring.network_s * (1 + 1e-12)
    assert r.nvlink_s == pytest.approx(two.reduce_scatter_s + two.all_gather_s)
    assert r.time_s == max(r.nvlink_s, r.network_s)


def test_in_network_on_one_node_is_the_ring_inside_it():
    r = col.in_network_hierarchical_all_reduce(1e9, 8, 1, 450e9, 50e9)
    assert (r.nic_B, r.network_s) == (0.0, 0.0)
    assert r.time_s == pytest.approx(col.ring_all_reduce_s(1e9, 8, 450e9))


@pytest.mark.parametrize("param, call, bads", [
    ("size_B", lambda x: col.in_network_hierarchical_all_reduce(x, 8, 8, 450e9, 50e9), BAD_NON_NEGATIVE),
    ("gpus_per_node", lambda x: col.in_network_hierarchical_all_reduce(1e9, x, 8, 450e9, 50e9), BAD_COUNT),
    ("nodes", lambda x: col.in_network_hierarchical_all_reduce(1e9, 8, x, 450e9, 50e9), BAD_COUNT),
    ("intra_Bps", lambda x: col.in_network_hierarchical_all_reduce(1e9, 8, 8, x, 50e9), BAD_POSITIVE),
    ("inter_Bps", lambda x: col.in_network_hierarchical_all_reduce(1e9, 8, 8, 450e9, x), BAD_POSITIVE),
])
def test_in_network_hierarchical_rejects_bad_input(param, call, bads):
    for bad in bads:
        with pytest.raises((TypeError, ValueError), match=names(param)):
            call(bad)
