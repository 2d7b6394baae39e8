"""infra_lib.training_memory against ZeRO's Figure 1 and Korthikanti et al.'s formula, by hand."""
import pytest

from infra_lib import collectives
from infra_lib import training_memory as T


def test_sixteen_bytes_per_parameter():
    assert T.WEIGHT_B + T.GRAD_B + T.ADAM_STATE_B == 16
    assert T.bytes_per_param(0, 8) == 16


@pytest.mark.parametrize("stage, gb", [(0, 120), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_figure_1(stage, gb):     # Psi = 7.5 B, N_d = 64, K = 12
    assert T.model_state_B(7.5e9, stage, 64) / 1e9 == pytest.approx(gb, abs=0.06)


def test_one_shard_is_ddp():
    assert all(T.bytes_per_param(s, 1) == 16 for s in T.STAGES)


def test_activations_formula():
    s, b, h, a = 2048, 2, 8192, 64
    assert T.activation_B_per_layer(s, b, h, a) == pytest.approx(s * b * h * (34 + 5 * a * s / h))
    assert T.activation_B_per_layer(s, b, h, a, "selective") == pytest.approx(34 * s * b * h)
    assert T.activation_B_per_layer(s, b, h, a, "full", 8, sequence_parallel=True) == pytest.approx(2 * s * b * h / 8)


def test_activations_without_sequence_parallelism():
    # Korthikanti et al., Table 2, by hand: s b h = 2048 x 2 x 8192 = 33,554,432; t = 8;
    # 5 a s / (h t) = 5 x 64 x 2048 / (8192 x 8) = 10; 10 + 24/8 = 13.
    s, b, h, a, t = 2048, 2, 8192, 64, 8
    sbh = 33_554_432
    assert T.activation_B_per_layer(s, b, h, a, "full", t) == 2 * sbh                 # Table 2: sbh x 2
    assert T.activation_B_per_layer(s, b, h, a, "selective", t) == 13 * sbh
    assert T.activation_B_per_layer(s, b, h, a, "none", t) == 23 * sbh
    # with sequence parallelism: 34/8 = 4.25 (+ 10 for the scores), full 2/8
    assert T.activation_B_per_layer(s, b, h, a, "selective", t, sequence_parallel=True) == 4.25 * sbh
    assert T.activation_B_per_layer(s, b, h, a, "none", t, sequence_parallel=True) == 14.25 * sbh
    assert T.activation_B_per_layer(s, b, h, a, "full", t, sequence_parallel=True) == 0.25 * sbh


@pytest.mark.parametrize("mode", ["none", "selective", "full"])
def test_sequence_parallel_is_moot_without_tensor_parallelism(mode):
    args = (4096, 1, 8192, 64, mode, 1)
    assert T.activation_B_per_layer(*args) == T.activation_B_per_layer(*args, sequence_parallel=True)


@pytest.mark.parametrize("mode", ["none", "selective", "full"])
def test_sequence_parallel_never_keeps_more(mode):
    for t in (2, 4, 8):
        args = (4096, 1, 8192, 64, mode, t)
        assert T.activation_B_per_layer(*args, sequence_parallel=True) < T.activation_B_per_layer(*args)


def test_sequence_parallel_is_a_flag():
    with pytest.raises(TypeError):
        T.activation_B_per_layer(2048, 1, 4096, 32, "full", 8, sequence_parallel=1)


def test_gpu_memory_parts_add_up():
    m = T.gpu_memory(1e9, 10, 1024, 1, 1024, 8, stage=2, shards=4, recompute="full")
    assert (m.weights_B, m.grads_B, m.optimizer_B) == (2e9, 0.5e9, 3e9)
    assert m.activations_B == pytest.approx(10 * 2 * 1024 * 1024)
    assert m.total_B == pytest.approx(5.5e9 + m.activations_B) and m.largest == "optimizer"


def test_min_shard_degree():
    # 10 B params: 160 GB; 80 GB GPU with 10 GB other -> need 160/F <= 70 -> F = 4 (F = 2 gives 80)
    assert T.min_shard_degree(10e9, 80e9, 10e9) == 4
    with pytest.raises(ValueError):
        T.min_shard_degree(1e12, 80e9, 79.9e9, max_degree=8)


def test_comm_volumes():
    size = 2e9                                  # 1 B params in BF16
    c0 = T.data_parallel_comm(1e9, 4, 100e9)
    assert c0.sent_B == pytest.approx(2 * 3 / 4 * size)
    assert c0.time_s == pytest.approx(collectives.ring_all_reduce_s(size, 4, 100e9))
    c3 = T.data_parallel_comm(1e9, 4, 100e9, stage=3)
    assert c3.sent_B == pytest.approx(3 * 3 / 4 * size)
    tp = T.tensor_parallel_comm(1000, 1000, 2, 2, 1e9)
    assert tp.sent_B == pytest.approx(8 * 2 * 0.5 * 2e6)


@pytest.mark.parametrize("stage", [4, -1, "1"])
def test_bad_stage(stage):
    with pytest.raises((ValueError, TypeError)):
        T.bytes_per_param(stage, 2)


def test_autocast_split_is_still_sixteen_bytes():
    assert T.AUTOCAST_WEIGHT_B + T.AUTOCAST_GRAD_B + T.AUTOCAST_ADAM_STATE_B == 16
    fp32 = T.data_parallel_comm(1e9, 8, 100e9, grad_bytes=T.AUTOCAST_GRAD_B)
    assert fp32.sent_B == pytest.approx(2 * T.data_parallel_comm(1e9, 8, 100e9).sent_B)


def test_flash_attention_drops_the_quadratic_term():
    s, b, h, a = 4096, 1, 8192, 64
    sbh = s * b * h
    flash = T.activation_B_per_layer(s, b, h, a, attention="flash")
    assert flash == pytest.approx(sbh * 34 + 4 * a * s * b)                      # output already counted; LSE
    assert T.activation_B_per_layer(s, b, h, a, attention="flash", dropout=False) == pytest.approx(sbh * 32 + 4 * a * s * b)
    assert T.activation_B_per_layer(s, b, h, a, dropout=False) == pytest.approx(sbh * 32 + 5 * a * s * s * b)
    # linear in s: doubling the sequence doubles it, where materialized attention more than doubles
    assert T.activation_B_per_layer(2 * s, b, h, a, attention="flash") == pytest.approx(2 * flash)
    assert T.activation_B_per_layer(2 * s, b, h, a) > 2 * T.activation_B_per_layer(s, b, h, a)
    # full checkpointing keeps the input whatever the kernel
    assert T.activation_B_per_layer(s, b, h, a, "full", attention="flash") == 2 * sbh
    # without sequence parallelism the masks sit in the replicated part: 8 + 24/t
    assert T.activation_B_per_layer(s, b, h, a, "selective", 8, dropout=False) == pytest.approx(sbh * 11)


def test_fsdp_peak_parts_by_hand():
    L, s, h, a, lp, V = 4, 512, 256, 4, 1e6, 100
    pk = T.fsdp_peak(L, s, 1, h, a, lp, V, attention="materialized", dropout=True)
    assert pk.checkpoints_B == L * 2 * s * h
    assert pk.recompute_B == pytest.approx(s * h * (34 + 5 * a * s / h))
    assert pk.gathered_B == pytest.approx(lp * (2 * 2 + 2))
    assert pk.logits_B == s * V * 4
    assert pk.total_B == pytest.approx(pk.checkpoints_B + pk.recompute_B + pk.gathered_B + pk.logits_B)
    # more unsharded memory never allows a smaller degree
    assert T.min_shard_degree(70e9, 141e9, pk.total_B + 20e9) >= T.min_shard_degree(70e9, 141e9, 20e9)


# ---- optimizer conventions (eq-optimizer-state), by hand -----------------------------------------

def test_optimizer_state_bytes_by_hand():
    assert T.optimizer_state_B("adam") == 4 + 4                        # m and v in FP32
    assert T.optimizer_state_B("sgd_momentum") == 4                    # one momentum buffer
    assert T.optimizer_state_B("adam_8bit") == pytest.approx(2 * (1 + 4 / 2048))   # 2 bytes + 2 absmax per 2,048
    assert T.optimizer_state_B("adam_8bit", block=256) == pytest.approx(2 + 8 / 256)
    # Adafactor on a 4096 x 14336 matrix: row sums 4096 + column sums 14336 FP32 values for 58.7 M parameters
    assert T.optimizer_state_B("adafactor", 4096, 14336) == pytest.approx(4 * (4096 + 14336) / (4096 * 14336))
    assert T.optimizer_state_B("adafactor", 1, 4096) == 4                # a vector keeps its full second moment


def test_training_bytes_per_param_conventions():
    assert T.training_bytes_per_param() == 2 + 2 + 4 + 8 == T.bytes_per_param(0)     # ZeRO's 16
    assert T.training_bytes_per_param(weight_B=4, grad_B=4, master_B=0) == 16          # autocast: 4 + 4 + 8
    assert T.training_bytes_per_param(grad_B=4) == 18                                  # FP32 gradients
    assert T.training_bytes_per_param("sgd_momentum") == 2 + 2 + 4 + 4
    assert T.training_bytes_per_param("adam_8bit") == pytest.approx(2 + 2 + 4 + 2 + 8 / 2048)
    assert T.training_bytes_per_param("adafactor", fan_in=8192, fan_out=8192) == pytest.approx(
        8 + 4 * 16384 / 8192 ** 2)


def test_sharded_bytes_take_the_convention():
    opt = 2 * (1 + 4 / 2048)                                 # 8-bit moments; the master copy is 4 more
    assert T.bytes_per_param(1, 8, opt_state_B=opt) == pytest.approx(2 + 2 + (4 + opt) / 8)
    assert T.bytes_per_param(2, 8, opt_state_B=opt) == pytest.approx(2 + (2 + 4 + opt) / 8)
    assert T.bytes_per_param(3, 8, weight_B=4, grad_B=4, master_B=0) == pytest.approx((4 + 4 + 8) / 8)
    assert T.bytes_per_param(1, 4, master_B=0, opt_state_B=0) == 4          # no optimizer state at all


@pytest.mark.parametrize("optimizer, opt", [("adam", 8), ("sgd_momentum", 4), ("adam_8bit", 2 + 8 / 2048)])
def test_unsharded_state_is_training_bytes_per_param(optimizer, opt):
    # stage 0 with one optimizer's state is eq-optimizer-state: 2 + 2 + 4 + opt
    assert T.bytes_per_param(0, 1, opt_state_B=T.optimizer_state_B(optimizer)) == pytest.approx(
        T.training_bytes_per_param(optimizer)) == pytest.approx(2 + 2 + 4 + opt)


def test_model_state_forwards_the_convention():
    # 1e9 parameters under torch.autocast (4 + 4, no master, 8 of moments), ZeRO-3 over 4 GPUs: 4 GB
    assert T.model_state_B(1e9, 3, 4, weight_B=4, grad_B=4, master_B=0) == pytest.approx(16e9 / 4)
    # with SGD's single buffer, unsharded: 2 + 2 + 4 + 4 = 12 bytes
    assert T.model_state_B(1e9, opt_state_B=4) == pytest.approx(12e9)


def test_bitsandbytes_block():
    assert T.BNB_8BIT_BLOCK == 256 and T.ADAM_8BIT_BLOCK == 2048
    assert T.optimizer_state_B("adam_8bit", block=T.BNB_8BIT_BLOCK) == pytest.approx(2 * (1 + 4 / 256))
    assert T.optimizer_state_B("adam_8bit", block=T.BNB_8BIT_BLOCK) == pytest.approx(2.03125)


@pytest.mark.parametrize("call, name", [
    (lambda: T.optimizer_state_B("lion"), "optimizer"),
    (lambda: T.optimizer_state_B("adafactor"), "fan_in"),
    (lambda: T.optimizer_state_B("adafactor", 0, 8), "fan_in"),
    (lambda: T.optimizer_state_B("adam_8bit", block=0), "block"),
    (lambda: T.training_bytes_per_param(weight_B=0), "weight_B"),
    (lambda: T.training_bytes_per_param(master_B=-1), "master_B"),
    (lambda: T.bytes_per_param(0, 1, opt_state_B=-2), "opt_state_B"),
    (lambda: T.bytes_per_param(0, 1, master_B=-1), "master_B"),
    (lambda: T.model_state_B(1e9, grad_B=0), "grad_B"),
])
def test_bad_conventions_are_named(call, name):
    with pytest.raises((ValueError, KeyError, TypeError), match=name):
        call()


# ---- the FSDP degree that minimises the step (eq-fsdp-step), by hand ----------------------------

NVL, NIC = 450e9, 50e9


def test_fsdp_options_by_hand():
    # 8e9 parameters on 16 GPUs (2 nodes of 8), 141 GB each, 1 s of compute, 5 GB unsharded with
    # recomputation, 20 GB without. S = 16 GB of BF16 weights.
    opts = {o.degree: o for o in T.fsdp_options(8e9, 16, 8, 141e9, 1.0, NVL, NIC, 5e9, 20e9)}
    assert sorted(opts) == [1, 2, 4, 8, 16]
    # F = 1 (DDP): 128 GB + 20 GB > 141 GB, so it recomputes: 133 GB, a step of 4/3 s
    o1 = opts[1]
    assert (o1.recompute, o1.memory_B, o1.fits) == (True, 128e9 + 5e9, True)
    assert o1.compute_s == pytest.approx(4 / 3) and o1.step_s == pytest.approx(4 / 3)
    # its all-reduce of 16 GB over 2 nodes of 8, one ring per NIC: the NICs carry 2 x 15/16 x 16 GB / 8
    assert o1.gather_s == 0 and o1.replica_s == pytest.approx(2 * 15 / 16 * 16e9 / 8 / NIC)
    # F = 2: 64 GB + 20 GB fits without recomputation; 1.5 all-reduces of 16 GB between 2 GPUs on
    # NVLink, then 8 replicas per group rank, 4 to a node on 2 nodes: 2 x 7/8 x 8 GB / 4 per NIC
    o2 = opts[2]
    assert (o2.recompute, o2.memory_B) == (False, 64e9 + 20e9)
    assert o2.gather_s == pytest.approx(1.5 * 2 * (1 / 2) * 16e9 / NVL)
    assert o2.replica_s == pytest.approx(max(3 / 4 * 2 * 7 / 8 * 8e9 / NVL, 2 * 7 / 8 * 8e9 / 4 / NIC))
    assert o2.step_s == 1.0                                   # communication hidden under compute
    # F = 16: the gathers cross both nodes: NICs carry 15/16 x 16 GB / 8 per all-gather
    o16 = opts[16]
    assert o16.replica_s == 0
    assert o16.gather_s == pytest.approx(1.5 * max(7 / 8 * 2 * 15 / 16 * 16e9 / NVL, 2 * 15 / 16 * 16e9 / 8 / NIC))


def test_fastest_is_not_the_smallest_that_fits():
    best = T.fastest_fsdp_degree(8e9, 16, 8, 141e9, 1.0, NVL, NIC, 5e9, 20e9)
    assert best.degree == 2 and best.step_s == 1.0            # F = 2..16 tie at 1 s: the smallest wins
    assert [o.degree for o in T.fsdp_ties(8e9, 16, 8, 141e9, 1.0, NVL, NIC, 5e9, 20e9)] == [2, 4, 8, 16]
    assert T.min_shard_degree(8e9, 141e9, 5e9) == 1           # DDP fits, with recomputation


def test_selective_recomputation_by_hand():
    # F = 1 needs 128 + 20 = 148 GB of 141: 7 GB back. Each of 32 layers saves (20 - 5) / 32 GB, so
    # ceil(7 / 0.46875) = ceil(14.93) = 15 layers recompute; 148 - 15 x 0.46875 = 140.96875 GB, and
    # the step grows by a third of 15/32: 1 + 15/96
    o1 = T.fsdp_options(8e9, 16, 8, 141e9, 1.0, NVL, NIC, 5e9, 20e9, layers=32)[0]
    assert o1.recompute and o1.recompute_share == 15 / 32
    assert o1.memory_B == pytest.approx(140.96875e9) and o1.fits
    assert o1.compute_s == pytest.approx(1 + 15 / 96) == pytest.approx(o1.step_s)
    # all or nothing (no layers given): every layer recomputes, a third more
    assert T.fsdp_options(8e9, 16, 8, 141e9, 1.0, NVL, NIC, 5e9, 20e9)[0].recompute_share == 1
    # the degrees that fit without recomputing are untouched
    assert all(o.recompute_share == 0 and o.step_s == 1.0
               for o in T.fsdp_options(8e9, 16, 8, 141e9, 1.0, NVL, NIC, 5e9, 20e9, layers=32)[1:])


def test_selective_recomputation_is_never_slower_than_full():
    for cap in (134e9, 138e9, 141e9, 147e9):
        part = T.fsdp_options(8e9, 16, 8, cap, 1.0, NVL, NIC, 5e9, 20e9, layers=32)[0]
        full = T.fsdp_options(8e9, 16, 8, cap, 1.0, NVL, NIC, 5e9, 20e9)[0]
        assert part.compute_s <= full.compute_s and part.memory_B <= cap


def test_without_overlap_the_step_is_the_sum():
    o = {o.degree: o for o in T.fsdp_options(8e9, 16, 8, 141e9, 1.0, NVL, NIC, 5e9, 20e9, overlap=False)}
    assert o[2].step_s == pytest.approx(1.0 + o[2].gather_s + o[2].replica_s)


def test_always_recompute_without_a_no_recompute_budget():
    assert all(o.recompute for o in T.fsdp_options(8e9, 16, 8, 141e9, 1.0, NVL, NIC, 5e9))


def test_a_model_that_fits_nowhere():
    with pytest.raises(ValueError, match="capacity_B"):
        T.fastest_fsdp_degree(1e12, 8, 8, 80e9, 1.0, NVL, NIC, 5e9)


@pytest.mark.parametrize("kwargs, name", [
    ({"world": 12}, "world"), ({"no_recompute_B": 1e9}, "no_recompute_B"), ({"compute_s": 0}, "compute_s"),
    ({"world": 2 ** 21}, "world"),
])
def test_bad_fsdp_inputs_are_named(kwargs, name):
    args = {"params": 8e9, "world": 16, "node_gpus": 8, "capacity_B": 141e9, "compute_s": 1.0,
            "nvlink_Bps": NVL, "nic_Bps": NIC, "checkpointed_B": 5e9} | kwargs
    with pytest.raises(ValueError, match=name):
        T.fsdp_options(**args)


def test_min_shard_degree_takes_the_convention():
    # 70e9 x 10.0039 B = 700.3 GB with 8-bit Adam; 121 GB free per GPU: 700.3 / 121 = 5.8 -> 8
    assert T.min_shard_degree(70e9, 141e9, 20e9, state_B_per_param=T.training_bytes_per_param("adam_8bit")) == 8
    assert T.min_shard_degree(70e9, 141e9, 20e9, state_B_per_param=16) == T.min_shard_degree(70e9, 141e9, 20e9) == 16
