"""Tests for infra_lib.models: parameter counts, forward FLOPs per token, KV-cache bytes."""
import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from infra_lib import models as m

from bad_values import NOT_A_FINITE_NUMBER, BAD_NON_NEGATIVE, BAD_POSITIVE, BAD_COUNT, PROPS, names

ROOT = Path(__file__).resolve().parents[1]
# Measured on an H200 with a model built from the Llama-3-8B shape (independent script).
MEASURED = json.loads((ROOT / "infra_lib" / "data" / "measurements" / "h200-2026-11-29"
                       / "reality_check.json").read_text(encoding="utf-8"))


# ---- Llama-3 shapes -----------------------------------------------------------------------

def test_llama3_8b_parameter_count_matches_measurement():
    assert m.LLAMA3_8B.n_params == 8_030_261_248 == MEASURED["model"]["params"]


def test_llama3_8b_weight_B_match_measurement():
    assert m.LLAMA3_8B.weight_B() == 2 * 8_030_261_248 == MEASURED["model"]["weight_bytes"]


def test_llama3_8b_kv_B_per_token():
    # 2 (K and V) x 32 layers x 8 KV heads x 128 head_dim x 2 bytes (BF16)
    assert m.LLAMA3_8B.kv_B_per_token() == 2 * 32 * 8 * 128 * 2 == 131072
    assert MEASURED["model"]["kv_bytes_per_token"] == 131072


def test_llama3_8b_head_dim_is_d_model_over_heads():
    assert m.LLAMA3_8B.head_dim == 4096 // 32 == 128 == MEASURED["model"]["head_dim"]


def test_llama3_70b_parameter_count():
    d, hd, layers, vocab = 8192, 128, 80, 128256
    attn = 2 * d * 64 * hd + 2 * d * 8 * hd      # Q and O full width; K and V for 8 KV heads
    ffn = 3 * d * 28672                          # SwiGLU: gate, up, down
    expected = layers * (attn + ffn + 2 * d) + d + 2 * vocab * d
    assert m.LLAMA3_70B.n_params == expected
    assert expected == pytest.approx(70.6e9, rel=1e-3)


def test_llama3_70b_kv_B_per_token():
    assert m.LLAMA3_70B.kv_B_per_token() == 2 * 80 * 8 * 128 * 2 == 327680


def test_tied_embeddings_drop_one_vocab_matrix():
    tied = replace(m.LLAMA3_8B, tied_embeddings=True)
    assert tied.n_params == 8_030_261_248 - 128256 * 4096


def test_explicit_head_dim_is_kept():
    shape = replace(m.LLAMA3_8B, head_dim=64)
    assert shape.head_dim == 64
    assert shape.kv_B_per_token() == 2 * 32 * 8 * 64 * 2


def test_weight_B_at_other_precisions():
    assert m.LLAMA3_8B.weight_B(1) == 8_030_261_248
    assert m.LLAMA3_8B.weight_B(0.5) == 8_030_261_248 / 2


def test_weight_B_by_hand():
    # 70e9 parameters x 2 bytes = 140 GB; x 0.5 bytes (INT4, scales left out) = 35 GB
    assert m.weight_B(70e9) == 140e9
    assert m.weight_B(70e9, 0.5) == 35e9
    # a mixture of experts stores every expert: Mixtral's total, not its active, parameters
    assert m.MIXTRAL_8X7B.weight_B() == m.weight_B(m.MIXTRAL_8X7B.n_params) > 2 * m.MIXTRAL_8X7B.n_active_params


# ---- FLOPs per token (Kaplan et al. 2020) -------------------------------------------------

def test_forward_flops_without_attention_is_2n():
    assert m.forward_flops_per_token(8e9) == 2 * 8e9


def test_attention_term_formula():
    assert m.attention_flops_per_token(32, 1000, 4096) == 2 * 32 * 1000 * 4096 == 262_144_000


def test_attention_term_is_about_1_6_percent_at_context_1000():
    share = m.attention_flops_per_token(32, 1000, 4096) / (2 * 8e9)
    assert share == pytest.approx(2 * 32 * 1000 * 4096 / 16e9)
    assert round(share * 100, 1) == 1.6


def test_forward_flops_adds_attention_term():
    assert m.forward_flops_per_token(8e9, 32, 1000, 4096) == 16e9 + 262_144_000


def test_shape_flops_per_token_uses_its_own_shape():
    n = 8_030_261_248
    assert m.LLAMA3_8B.flops_per_token() == 2 * n
    assert m.LLAMA3_8B.flops_per_token(1000) == 2 * n + 2 * 32 * 1000 * 4096


def test_prefill_flops_match_the_measurement_script():
    # reality_check.json counts prefill as 2 N P with P = 2000.
    assert m.LLAMA3_8B.flops_per_token() * 2000 == MEASURED["prefill"]["flops_2NP"]


@PROPS
@given(n=st.floats(1, 1e13), layers=st.integers(0, 200),
       ctx=st.floats(0, 1e6), d=st.integers(0, 32768))
def test_forward_flops_at_least_2n(n, layers, ctx, d):
    assert m.forward_flops_per_token(n, layers, ctx, d) >= 2 * n


@PROPS
@given(layers=st.integers(1, 200), ctx=st.floats(0, 1e6), d=st.integers(1, 32768))
def test_attention_term_grows_with_context(layers, ctx, d):
    assert (m.attention_flops_per_token(layers, ctx + 1, d)
            > m.attention_flops_per_token(layers, ctx, d))


# ---- KV bytes ----------------------------------------------------------------------------

def test_kv_B_formula():
    assert m.kv_B_per_token(32, 8, 128) == 131072
    assert m.kv_B_per_token(32, 8, 128, bytes_per_value=1) == 65536


def test_gqa_caches_fewer_heads():
    # Full multi-head attention (32 KV heads) would cache 4x more than GQA with 8.
    assert m.kv_B_per_token(32, 32, 128) == 4 * m.kv_B_per_token(32, 8, 128)


# ---- validation --------------------------------------------------------------------------

@pytest.mark.parametrize("bad", BAD_POSITIVE)
def test_forward_flops_rejects_bad_n_params(bad):
    with pytest.raises((TypeError, ValueError), match=names("n_params")):
        m.forward_flops_per_token(bad)


@pytest.mark.parametrize("bad", BAD_NON_NEGATIVE + [1.5])
@pytest.mark.parametrize("param, call", [
    ("n_layers", lambda x: m.attention_flops_per_token(x, 1000, 4096)),
    ("d_model", lambda x: m.attention_flops_per_token(32, 1000, x)),
    ("n_layers", lambda x: m.forward_flops_per_token(8e9, x, 1000, 4096)),
    ("d_model", lambda x: m.forward_flops_per_token(8e9, 32, 1000, x)),
])
def test_attention_counts_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_NON_NEGATIVE)
@pytest.mark.parametrize("call", [
    lambda x: m.attention_flops_per_token(32, x, 4096),
    lambda x: m.forward_flops_per_token(8e9, 32, x, 4096),
    lambda x: m.LLAMA3_8B.flops_per_token(x),
])
def test_n_ctx_rejects_bad_input(call, bad):
    with pytest.raises((TypeError, ValueError), match=names("n_ctx")):
        call(bad)


@pytest.mark.parametrize("bad", BAD_COUNT)
@pytest.mark.parametrize("param, call", [
    ("n_layers", lambda x: m.kv_B_per_token(x, 8, 128)),
    ("n_kv_heads", lambda x: m.kv_B_per_token(32, x, 128)),
    ("head_dim", lambda x: m.kv_B_per_token(32, 8, x)),
])
def test_kv_counts_reject_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("param, call", [
    ("bytes_per_value", lambda x: m.kv_B_per_token(32, 8, 128, x)),
    ("bytes_per_value", lambda x: m.LLAMA3_8B.kv_B_per_token(x)),
    ("bytes_per_param", lambda x: m.LLAMA3_8B.weight_B(x)),
    ("bytes_per_param", lambda x: m.weight_B(8e9, x)),
    ("n_params", lambda x: m.weight_B(x, 2)),
])
def test_bytes_per_value_rejects_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", BAD_COUNT)
@pytest.mark.parametrize("field", ["n_layers", "d_model", "n_heads", "n_kv_heads", "d_ff", "vocab"])
def test_model_shape_rejects_bad_sizes(field, bad):
    with pytest.raises((TypeError, ValueError), match=names(field)):
        replace(m.LLAMA3_8B, **{field: bad})


# head_dim = 0 is documented as "use d_model // n_heads"; anything else must be a whole number >= 1.
@pytest.mark.parametrize("bad", [-128, -1, 1.5] + NOT_A_FINITE_NUMBER)
def test_model_shape_rejects_bad_head_dim(bad):
    with pytest.raises((TypeError, ValueError), match=names("head_dim")):
        replace(m.LLAMA3_8B, head_dim=bad)


def test_model_shape_rejects_kv_heads_that_do_not_divide_heads():
    with pytest.raises(ValueError, match="n_kv_heads"):
        replace(m.LLAMA3_8B, n_kv_heads=5)


def test_model_shape_rejects_d_model_not_divisible_by_heads_when_head_dim_is_implied():
    # 4100 / 32 = 128.125: an implied head_dim must not be silently truncated to 128.
    with pytest.raises(ValueError, match="d_model|n_heads|head_dim"):
        replace(m.LLAMA3_8B, d_model=4100, head_dim=0)


def test_attention_term_both_counting_conventions():
    from infra_lib import models as m
    # by hand, Llama-3-8B at the example's 2,000-token prompt, against 2N = 16e9:
    # Kaplan (one product): 2 x 32 x 2000 x 4096 = 0.524e9 = 3.28%; both products: 6.55%
    one = m.attention_flops_per_token(32, 2000, 4096)
    two = m.attention_flops_per_token(32, 2000, 4096, matmuls=2)
    assert one / 16e9 == pytest.approx(0.032768) and two == 2 * one
    # the seed's reading: Kaplan's count at an average context of 1,000 tokens, 1.64%
    assert m.attention_flops_per_token(32, 1000, 4096) / 16e9 == pytest.approx(0.016384)
    for bad in (0, 3, True, 1.5):
        with pytest.raises(ValueError, match="matmuls"):
            m.attention_flops_per_token(32, 2000, 4096, matmuls=bad)


# ---- beyond Llama: GELU MLPs and mixtures of experts (chapter 4) -----------------------------

def test_gpt2_small_matches_the_released_checkpoint():
    # 12 x (12 d^2 + 13 d) + vocab d + 1,024 d + 2 d, d = 768: the 124,439,808 of the checkpoint
    d = 768
    assert m.GPT2_SMALL.n_params == 12 * (12 * d * d + 13 * d) + 50257 * d + 1024 * d + 2 * d == 124_439_808


def test_gpt3_175b_is_175_billion():
    d = 12288
    expected = 96 * (12 * d * d + 13 * d) + 50257 * d + 2048 * d + 2 * d
    assert m.GPT3_175B.n_params == expected
    assert expected == pytest.approx(175e9, rel=0.005)      # Brown et al. 2020, Table 2.1


def test_mixtral_total_and_active_match_the_paper():
    # Jiang et al. 2024: 46.7B total, 12.9B active (2 of 8 experts)
    assert m.MIXTRAL_8X7B.n_params == pytest.approx(46.7e9, rel=0.001)
    assert m.MIXTRAL_8X7B.n_active_params == pytest.approx(12.9e9, rel=0.002)
    expert = 3 * 4096 * 14336
    assert m.MIXTRAL_8X7B.n_params - m.MIXTRAL_8X7B.n_active_params == 32 * 6 * expert


def test_breakdown_sums_to_total_and_dense_models_are_all_active():
    for shape in m.SHAPES.values():
        assert sum(shape.param_breakdown().values()) == shape.n_params
    assert m.LLAMA3_70B.n_active_params == m.LLAMA3_70B.n_params
    assert m.LLAMA3_70B.param_breakdown()["mlp"] == 80 * 3 * 8192 * 28672


def test_moe_flops_use_active_parameters():
    assert m.MIXTRAL_8X7B.flops_per_token() == 2 * m.MIXTRAL_8X7B.n_active_params


@pytest.mark.parametrize("kw", [{"mlp": "relu"}, {"norm": "batchnorm"}, {"n_experts": 0},
                                {"n_experts": 2, "experts_per_token": 3}])
def test_bad_new_fields_are_named(kw):
    with pytest.raises((ValueError, KeyError), match="|".join(kw)):
        replace(m.LLAMA3_8B, **kw)


def test_shape_at_follows_the_order_of_shapes_and_names_the_choices():
    assert [m.shape_at(i) for i in range(len(m.SHAPES))] == list(m.SHAPES.values())
    with pytest.raises(ValueError, match=r"model must be 0 to 4 \(0 = GPT-2 small.*got 5"):
        m.shape_at(5)


def test_kaplan_count_is_12_l_d2_by_default():
    assert m.non_embedding_params(10, 512) == 12 * 10 * 512 ** 2
    assert m.non_embedding_params(2, 64, d_attn=32, d_ff=100) == 2 * 2 * 64 * (2 * 32 + 100)


def test_non_embedding_leaves_out_the_vocabulary_matrices():
    for s in m.SHAPES.values():
        b = s.param_breakdown()
        assert s.non_embedding_params == sum(v for k, v in b.items() if k not in ("embedding", "positions", "lm_head"))


def test_kaplan_count_matches_a_plain_shape_less_its_norms():
    # a GPT-style shape without biases: attention 4 d^2, MLP 8 d^2 per layer, plus norms
    s = replace(m.GPT3_175B, bias=False)
    assert s.non_embedding_params - s.param_breakdown()["norms"] == m.non_embedding_params(s.n_layers, s.d_model)


# ---- mixture of experts: experts touched per step, weights read per step ---------------------

def test_experts_touched_limits():
    # one token touches exactly its k experts; a dense model always its one; many tokens touch all
    assert m.expected_experts_touched(8, 2, 1) == pytest.approx(2)
    assert m.expected_experts_touched(1, 1, 37) == pytest.approx(1)
    assert m.expected_experts_touched(8, 2, 0) == 0
    assert m.expected_experts_touched(8, 2, 10_000) == pytest.approx(8)


def test_experts_touched_by_enumeration():
    # two tokens, each choosing 2 of 4 experts uniformly: enumerate the 6 x 6 pairs of choices
    from itertools import combinations
    picks = list(combinations(range(4), 2))
    mean = sum(len(set(a) | set(b)) for a in picks for b in picks) / len(picks) ** 2
    assert m.expected_experts_touched(4, 2, 2) == pytest.approx(mean)


@given(st.integers(1, 64), st.data())
def test_experts_touched_grows_and_saturates(e, data):
    k = data.draw(st.integers(1, e))
    b = data.draw(st.integers(1, 500))
    n, n1 = m.expected_experts_touched(e, k, b), m.expected_experts_touched(e, k, b + 1)
    assert k - 1e-9 <= n <= n1 + 1e-12 <= e + 1e-9
    assert n <= min(e, k * b) + 1e-9


@pytest.mark.parametrize("args", [(8, 9, 1), (0, 1, 1), (8, 2, -1), (8, 2.5, 1)])
def test_experts_touched_rejects(args):
    with pytest.raises((ValueError, TypeError)):
        m.expected_experts_touched(*args)


def test_mixtral_totals_match_paper():
    # Jiang et al. 2024: 46.7B total, 12.9B active (section 2.1)
    assert m.MIXTRAL_8X7B.n_params / 1e9 == pytest.approx(46.7, abs=0.05)
    assert m.MIXTRAL_8X7B.n_active_params / 1e9 == pytest.approx(12.9, abs=0.05)


def test_decode_params_read():
    mix = m.MIXTRAL_8X7B
    b = mix.param_breakdown()
    # batch 1 reads what one token multiplies; a huge batch reads every weight but the embedding table
    assert mix.decode_params_read(1) == pytest.approx(mix.matmul_params)
    assert mix.decode_params_read(100_000) == pytest.approx(mix.n_params - b["embedding"])
    assert mix.matmul_params == mix.n_active_params - b["embedding"]
    # a dense model reads the same weights at every batch
    assert m.LLAMA3_8B.decode_params_read(1) == m.LLAMA3_8B.decode_params_read(512) == m.LLAMA3_8B.matmul_params
    assert m.LLAMA3_8B.matmul_params == m.LLAMA3_8B.n_params - 128256 * 4096
    # a tied LM head is multiplied even though the table is looked up: nothing to subtract
    assert m.GPT2_SMALL.matmul_params == m.GPT2_SMALL.n_params - 1024 * 768
    with pytest.raises(ValueError):
        mix.decode_params_read(0)
