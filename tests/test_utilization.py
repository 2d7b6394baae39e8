"""infra_lib.utilization: counting conventions and the time identities."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra_lib import utilization as u


def test_palm_formula_by_hand():
    # 6 x 1e9 + 12 x 2 x 100 x 64 = 6e9 + 153600
    assert u.train_flops_per_token(1e9, 2, 100, 64) == 6e9 + 153600


def test_megatron_recompute_ratio_without_vocab_and_short_sequences():
    # with s << h and V << l h the ratio of the two counts tends to 96 / 72 = 4/3
    r = u.megatron_flops_per_iteration(1, 1, 1000, 100000, 1) / u.megatron_flops_per_iteration(1, 1, 1000, 100000, 1, False)
    assert r == pytest.approx(4 / 3, rel=1e-5)


def test_megatron_without_recompute_matches_6n_for_the_layers():
    # 72 B s l h^2 = 6 x (12 l h^2) x B s: the 6N rule with N = 12 l h^2
    b, s, nl, h = 2, 1, 10, 1000
    f = u.megatron_flops_per_iteration(b, s, nl, h, 1, False)
    assert f == pytest.approx(6 * 12 * nl * h * h * b * s, rel=1e-3)


@given(st.floats(1e9, 1e14), st.floats(1e9, 1e13), st.integers(1, 100000), st.floats(0.05, 1.0))
def test_training_time_and_mfu_are_inverse(tokens, fpt, gpus, m):
    t = u.training_time_s(tokens, fpt, gpus, 1e15, m)
    assert u.mfu_from_training_time(tokens, fpt, gpus, 1e15, t) == pytest.approx(m)


def test_mfu_by_hand():
    assert u.mfu(100, 1e12, 1, 1e15) == pytest.approx(0.1)


def test_mbu_by_hand():
    assert u.mbu(2e9, 1e-3, 4e12) == pytest.approx(0.5)


def test_generation_time_by_hand():
    assert u.generation_time_s(0.1, 10, 0.01) == pytest.approx(0.2)


def test_hfu_over_mfu():
    assert u.hfu_over_mfu() == pytest.approx(8 / 6)


def test_train_flops_is_tokens_times_per_token():
    per = u.train_flops_per_token(8e9, 32, 4096, 4096)
    assert u.train_flops(8e9, 1e12, 32, 4096, 4096) == pytest.approx(1e12 * per)


def test_causal_counts_half_the_attention():
    full = u.train_flops_per_token(8e9, 32, 4096, 4096) - 6 * 8e9
    half = u.train_flops_per_token(8e9, 32, 4096, 4096, causal=True) - 6 * 8e9
    assert half == pytest.approx(full / 2)


def test_attention_equals_6n_at_the_parity_context():
    n, layers, d = 7e9, 32, 4096
    t = u.attention_parity_context(n, layers, d)
    assert 12 * layers * t * d == pytest.approx(6 * n)


def test_mfu_is_achieved_over_peak():
    tok = u.tokens_per_s(64, 2048, 2.5)
    assert tok == 64 * 2048 / 2.5
    assert u.mfu(tok, 6e10, 8, 1e15) == pytest.approx(u.achieved_flop_s(tok, 6e10, 8) / 1e15)


def test_mbu_is_achieved_bandwidth_over_peak():
    assert u.mbu(1e10, 4e-3, 5e12) == pytest.approx(u.achieved_Bps(1e10, 4e-3) / 5e12)


def test_new_counts_name_bad_inputs():
    with pytest.raises(ValueError, match="iteration_s"):
        u.tokens_per_s(1, 1, 0)
    with pytest.raises(ValueError, match="layers"):
        u.attention_parity_context(1e9, 0, 10)
