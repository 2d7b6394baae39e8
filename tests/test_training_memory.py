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
