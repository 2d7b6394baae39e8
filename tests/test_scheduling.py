"""infra_lib/scheduling.py: the gang deadlock step by step, fat-tree sizes, placement vs all-reduce."""
import pytest

from infra_lib import collectives, scheduling as S


def test_without_gang_two_jobs_deadlock_at_48_each():
    s = S.simulate(96, 64, gpus_per_node=8)
    # 8 GPUs per job per step: 16 a step, 96 free -> 6 steps, then nothing moves
    assert [x.held for x in s[:6]] == [(8 * k, 8 * k) for k in range(1, 7)]
    assert s[-1].free == 0 and S.deadlocked(s) and len(s) == 7


def test_with_gang_both_finish_one_after_the_other():
    s = S.simulate(96, 64, run_steps=3, gang=True)
    assert s[0].held == (64, 0) and s[0].free == 32
    assert not S.deadlocked(s) and s[-1].done == (True, True)
    started_b = next(x.step for x in s if x.held[1] == 64)
    assert started_b == 4                                       # job 0 runs steps 1-3, frees at step 4


def test_enough_gpus_no_deadlock_either_way():
    for gang in (False, True):
        s = S.simulate(128, 64, gang=gang)
        assert s[-1].done == (True, True)


def test_fat_tree():
    assert S.fat_tree_endpoints(8, 3) == 128          # k^3/4
    assert S.fat_tree_endpoints(40, 2) == 800         # k^2/2
    with pytest.raises(ValueError, match="radix"):
        S.fat_tree_endpoints(63, 2)


def test_placement_two_level_models_reuse_the_hierarchical_model():
    t = S.placement_all_reduce_s(2e9, 4, 16, 450e9, 50e9, oversubscription=2, model="serial")
    assert t == collectives.hierarchical_all_reduce(2e9, 4, 16, 450e9, 25e9).time_s
    packed = S.placement_all_reduce_s(1e9, 8, 8, 450e9, 50e9, model="serial")
    assert packed == pytest.approx(2 * 7 / 8 * 1e9 / 450e9 + 2 * 7 / 8 * 1.25e8 / 50e9)
    # pipelined: the NVLink phases (2 x 7/8 x S / 450 GB/s) run under the network phase (2 x 7/8 x S/8 / 50 GB/s)
    piped = S.placement_all_reduce_s(1e9, 8, 8, 450e9, 50e9, model="two_level")
    assert piped == pytest.approx(max(2 * 7 / 8 * 1e9 / 450e9, 2 * 7 / 8 * 1.25e8 / 50e9))


def test_placement_ring_by_hand():
    """NCCL's ring on one channel per NIC: each NIC carries 2(n - 1)/n x S / g, NVLink (g - 1)/g of 2(n - 1)/n x S."""
    S_, n = 16e9, 64
    packed = S.placement_all_reduce_s(S_, 8, 8, 450e9, 50e9)
    assert packed == pytest.approx(max(2 * 63 / 64 * S_ / 8 / 50e9, 7 / 8 * 2 * 63 / 64 * S_ / 450e9))
    spread = S.placement_all_reduce_s(S_, 1, n, 450e9, 50e9)
    assert spread == pytest.approx(2 * 63 / 64 * S_ / 50e9)
    # the whole ring is NIC-bound when packed, so spreading costs exactly the GPUs per node: 8x, not 4.8x
    assert spread / packed == pytest.approx(8)
    over = S.placement_all_reduce_s(S_, 8, 8, 450e9, 50e9, oversubscription=2)
    assert over == pytest.approx(2 * packed)


@pytest.mark.parametrize("g", [1, 2, 4, 8])
def test_placement_models_are_ordered(g):
    """Pipelining never costs more than the phases in series; the series sum is at most the pipelined time twice over
    (RS + AG and the network phase are its two halves)."""
    args = (4e9, g, 64 // g, 450e9, 50e9)
    serial = S.placement_all_reduce_s(*args, model="serial")
    two = S.placement_all_reduce_s(*args, model="two_level")
    assert two <= serial + 1e-15 and serial <= 2 * two + 1e-15
    assert S.placement_all_reduce_s(*args) <= serial + 1e-15


def test_placement_in_network_by_hand():
    # one GPU on each of 64 nodes: no NVLink phase, each NIC sends the whole 4 GB once, 80 ms,
    # against the flat ring's 2 x 63/64 x 4 GB = 7.875 GB, 157.5 ms
    spread = S.placement_all_reduce_s(4e9, 1, 64, 450e9, 50e9, model="in_network")
    assert spread == pytest.approx(4e9 / 50e9)
    assert S.placement_all_reduce_s(4e9, 1, 64, 450e9, 50e9) == pytest.approx(spread * 2 * 63 / 64)
    # packed 8 x 8: NICs 0.5 GB once (10 ms), NVLink 2 x 7/8 x 4 GB / 450 GB/s = 15.6 ms sets the time
    packed = S.placement_all_reduce_s(4e9, 8, 8, 450e9, 50e9, model="in_network")
    assert packed == pytest.approx(2 * 7 / 8 * 4e9 / 450e9)
    # an oversubscribed tier halves what each NIC gets across it
    assert S.placement_all_reduce_s(4e9, 1, 64, 450e9, 50e9, 2, model="in_network") == pytest.approx(2 * spread)


@pytest.mark.parametrize("g", [1, 2, 4, 8])
def test_in_network_never_loads_the_nics_more_than_the_ring(g):
    """The switches' reduction can only lighten the NICs; where NVLink sets the time it may not help."""
    nics = S.placement_all_reduce_s(4e9, g, 64 // g, 1e15, 50e9, model="in_network")   # NVLink all but free
    assert nics <= S.placement_all_reduce_s(4e9, g, 64 // g, 1e15, 50e9) * (1 + 1e-12)


def test_placement_model_is_checked():
    with pytest.raises(KeyError, match="model"):
        S.placement_all_reduce_s(1e9, 8, 8, 450e9, 50e9, model="tree")


def test_hops_and_aggregate():
    assert S.switch_hops(False, True, False) == 3
    assert S.aggregate_Bps(64, 50e9) == 3.2e12
