"""infra_lib.quantization: expected values worked out by hand or from identities."""
import math

import numpy as np
import pytest

from infra_lib import cuda, formats, generations, hardware, models, planner, quantization as q


def test_bits_per_param_by_hand():
    assert q.bits_per_param(4, 16, 128) == 4 + 16 / 128                    # 4.125
    assert q.bits_per_param(4, 16, 128, zero_point_bits=16) == 4.25
    assert q.bits_per_param(8, 16, 4096) == 8 + 1 / 256
    assert formats.MXFP4.bits_per_value == 4.25 and formats.NVFP4.bits_per_value == 4.5


def test_weight_bytes_70b():
    assert q.weight_B_at_bits(70e9, 16) == 140e9
    assert q.weight_B_at_bits(70e9, 4.5) == pytest.approx(39.375e9)


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
    # error [0, 0.5] against [3, 4] (norm 5): relative error 0.1 -> 20 dB
    assert q.sqnr_db([3.0, 4.0], [3.0, 4.5]) == pytest.approx(20.0)
    # half the error (0.25 / 5 = 0.05): 20 log10(2) = 6.0206 dB more, what one more bit buys
    gain = q.sqnr_db([3.0, 4.0], [3.0, 4.25]) - q.sqnr_db([3.0, 4.0], [3.0, 4.5])
    assert gain == pytest.approx(6.0206, abs=1e-4)
    with pytest.raises(ValueError, match="infinite"):
        q.sqnr_db([1.0], [1.0])


def test_kv_tokens_by_hand():
    assert q.kv_tokens_that_fit(80e9, 16e9, 131072) == int(64e9 / 131072)
    assert q.kv_tokens_that_fit(10e9, 16e9, 131072) == 0


# ---- chapter 9: storage, decode, KV room, matmul error, FP8 prefill/decode --------------------


def test_storage_formats_by_hand():
    f = {s.key: s for s in q.storage_formats()}
    assert f["bf16"].bits_per_param == 16 and f["bf16"].bytes_per_param == 2
    assert f["fp8"].bits_per_param == 8 + 32 / 8192 ** 2 and f["fp8"].element_bits == formats.E4M3.bits == 8
    assert f["int8"].bits_per_param == 8 + 16 / 4096
    assert f["int4_g128"].bits_per_param == 4 + (16 + 16) / 128 == 4.25
    assert f["int4_g128_sym"].bits_per_param == 4 + 16 / 128 == 4.125
    assert f["mxfp4"].bits_per_param == 4 + 8 / 32 == formats.MXFP4.bits_per_value
    assert f["nvfp4"].bits_per_param == 4 + 8 / 16 == formats.NVFP4.bits_per_value
    assert q.storage_format("int4_g128").bytes_per_param == 4.25 / 8
    # 70e9 parameters at 4.25 bits: 70e9 x 4.25 / 8 = 37.1875 GB
    assert q.weight_B_at_bits(70e9, f["int4_g128"].bits_per_param) == pytest.approx(37.1875e9)
    # the per-tensor scale shrinks as the tensor grows
    assert q.storage_formats(1)[1].bits_per_param == 40


def test_storage_format_unknown_key_suggests():
    with pytest.raises(KeyError, match="nvfp4"):
        q.storage_format("nvfp5")


def test_decode_ceiling_by_hand():
    # H200 4.8 TB/s over 8e9 x 16 / 8 = 16 GB: 300 tokens/s; 4 bits: 1,200
    assert q.decode_ceiling_at_bits_tok_s(8e9, 16, 4.8e12) == pytest.approx(300)
    assert q.decode_ceiling_at_bits_tok_s(8e9, 4, 4.8e12) == pytest.approx(1200)
    bw = hardware.value("h200_sxm", "mem_bw_Bps")
    assert q.decode_ceiling_at_bits_tok_s(70e9, 8, bw) == generations.decode_ceiling_tok_s(bw, 70e9)


def test_decode_ceiling_scales_inversely_with_bits():
    for bits in (16, 8, 4.5, 4.25):
        assert q.decode_ceiling_at_bits_tok_s(1e9, bits, 1e12) * bits == pytest.approx(1e12 / 1e9 * 8)


def test_max_batch_by_hand():
    shape = models.LLAMA3_70B
    # FP8 weights: 141e9 x 0.9 - 5 GiB of runtime - (blocks at 1 byte + embedding and head, 2 x 128,256 x 8,192,
    # at 2 bytes); BF16 KV: 2 x 80 x 8 x 128 x 2 = 327,680 B per token
    rest = 2 * 128_256 * 8192
    free = 141e9 * 0.9 - 5 * 2**30 - ((shape.n_params - rest) + 2 * rest)
    assert q.max_batch_at(shape, 141e9, 8, 16, 4096) == int(free // 327680 // 4096)
    assert q.max_batch_at(shape, 141e9, 8, 8, 4096) == int(free // 163840 // 4096)
    assert q.max_batch_at(shape, 141e9, 16, 16, 4096) == 0          # 141 GB of BF16 weights leave nothing
    assert q.max_batch_at(shape, 141e9, 8, 16, 4096) == planner.max_batch(shape, 141e9, 1, 1 + rest / shape.n_params, 4096, 2)


def test_halving_kv_bits_about_doubles_the_batch():
    shape = models.LLAMA3_8B
    for ctx in (1024, 8192, 65536):
        b16, b8, b4 = (q.max_batch_at(shape, 80e9, 16, kv, ctx) for kv in (16, 8, 4))
        assert b16 <= b8 <= b4
        assert 2 * b16 <= b8 <= 2 * b16 + 1 and 2 * b8 <= b4 <= 2 * b8 + 1


def test_synthetic_data_is_deterministic_and_has_its_outliers():
    a, b = q.synthetic_weights(256, 32, 0.01, 25.0), q.synthetic_weights(256, 32, 0.01, 25.0)
    assert np.array_equal(a, b) and a.shape == (256, 32)
    assert not np.array_equal(a, q.synthetic_weights(256, 32, 0.01, 25.0, seed=1))
    clean = q.synthetic_weights(256, 32)
    assert clean.std() == pytest.approx(1 / 16, rel=0.05)                 # std 1/sqrt(256)
    x = q.synthetic_activations(32, 128, 3, 20.0)
    big = np.abs(x).mean(axis=0) > 5 * np.median(np.abs(x).mean(axis=0))
    assert x.shape == (32, 128) and big.sum() == 3


def test_synthetic_data_refuses_bad_sizes():
    with pytest.raises(ValueError, match="d_in"):
        q.synthetic_weights(2 ** 12, 2 ** 12)
    with pytest.raises(ValueError, match="outlier_channels"):
        q.synthetic_activations(4, 8, 9)
    with pytest.raises(ValueError, match="outlier_fraction"):
        q.synthetic_weights(8, 8, 1.5)


def _outlier_case():
    return q.synthetic_activations(64, 512, 4, 20.0), q.synthetic_weights(512, 128, 0.002, 30.0)


def test_matmul_error_is_the_relative_rms_of_the_product():
    x, w = _outlier_case()
    wq = q.quantize_int(w, 4, "channel")
    ref = np.sqrt(np.sum((x @ w - x @ wq) ** 2) / np.sum((x @ w) ** 2))
    assert q.matmul_output_error(x, w, 4, "channel") == pytest.approx(ref)
    assert q.matmul_output_sqnr_db(x, w, 4, "channel") == pytest.approx(-20 * math.log10(ref))


def test_matmul_error_falls_as_bits_rise():
    x, w = _outlier_case()
    for g in q.GRANULARITIES:
        errs = [q.matmul_output_error(x, w, b, g) for b in (2, 3, 4, 6, 8)]
        assert all(e1 > e2 for e1, e2 in zip(errs, errs[1:])), (g, errs)


def test_finer_granularity_wins_on_outlier_data():
    x, w = _outlier_case()
    for bits in (4, 8):
        e = {g: q.matmul_output_error(x, w, bits, g) for g in q.GRANULARITIES}
        assert e["group"] <= e["channel"] <= e["tensor"]
        s = q.granularity_errors(w, bits)
        assert s["group"] >= s["channel"] >= s["tensor"]


def test_about_six_db_per_bit():
    """Uniform rounding error of half a step: SQNR = 6.02 b + const, so 8 bits minus 4 bits is
    about 4 x 6.02 = 24.1 dB on Gaussian weights (per channel: no outliers to change the const)."""
    w = q.synthetic_weights(512, 128)
    s = {b: q.granularity_errors(w, b)["channel"] for b in (4, 5, 6, 7, 8)}
    assert s[8] - s[4] == pytest.approx(4 * 20 * math.log10(2), abs=1.5)
    for b in (5, 6, 7, 8):
        assert s[b] - s[b - 1] == pytest.approx(20 * math.log10(2), abs=0.7)


def test_activation_quantization_adds_error_and_outlier_channels_hurt_it():
    x, w = _outlier_case()
    weight_only = q.matmul_output_error(x, w, 8, "channel")
    assert q.matmul_output_error(x, w, 8, "channel", act_bits=8) > weight_only
    clean_x = q.synthetic_activations(64, 512)
    w0 = q.synthetic_weights(512, 128)
    # INT4 per token: an outlier channel sets every token's scale and crushes the other channels
    assert (q.matmul_output_error(x, w0, 8, "channel", act_bits=4)
            > q.matmul_output_error(clean_x, w0, 8, "channel", act_bits=4))


def test_matmul_shapes_are_checked():
    with pytest.raises(ValueError, match="x has 3 columns"):
        q.matmul_output_error(np.ones((2, 3)), np.ones((4, 2)), 8, "tensor")
    with pytest.raises(ValueError, match="2-D"):
        q.matmul_output_error([1.0, 2.0], np.ones((2, 2)), 8, "tensor")
    with pytest.raises(ValueError, match="group_size"):
        q.matmul_output_error(np.ones((2, 100)), np.ones((100, 2)), 8, "group")
    with pytest.raises(KeyError):
        q.matmul_output_error(np.ones((2, 2)), np.ones((2, 2)), 8, "row")


def test_prefill_gains_the_peak_ratio_decode_the_byte_ratio():
    peaks = cuda.measured_matmul_peaks_flop_s()
    r = q.prefill_decode_speedup(8e9, 2048, 4.8e12)
    # prefill compute-bound: 2 x 8e9 x 2048 / peak; the speedup is the measured FP8/BF16 ratio (~1.8)
    assert r.prefill_bf16_s == pytest.approx(2 * 8e9 * 2048 / peaks["bf16"])
    assert r.prefill_speedup == pytest.approx(peaks["fp8"] / peaks["bf16"])
    assert 1.7 < r.prefill_speedup < 1.9
    # batch-1 decode memory-bound: 16 GB / 4.8 TB/s against 8 GB: exactly 2, nothing from the FLOPs
    assert r.decode_bf16_s == pytest.approx(16e9 / 4.8e12)
    assert r.decode_speedup == pytest.approx(2.0)
    same_peak = q.prefill_decode_speedup(8e9, 2048, 4.8e12, peaks["bf16"], peaks["bf16"])
    assert same_peak.prefill_speedup == pytest.approx(1.0) and same_peak.decode_speedup == pytest.approx(2.0)


def test_prefill_of_one_token_is_decode():
    r = q.prefill_decode_speedup(8e9, 1, 4.8e12)
    assert r.prefill_bf16_s == r.decode_bf16_s and r.prefill_speedup == pytest.approx(2.0)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="mem_bw_Bps"):
        q.decode_ceiling_at_bits_tok_s(8e9, 16, 0)
    with pytest.raises(ValueError, match="kv_bits"):
        q.max_batch_at(models.LLAMA3_8B, 80e9, 16, -8, 4096)
    with pytest.raises(ValueError, match="overhead_fraction"):
        q.max_batch_at(models.LLAMA3_8B, 80e9, 16, 16, 4096, overhead_fraction=1.0)
    with pytest.raises(ValueError, match="fp8_flop_s"):
        q.prefill_decode_speedup(8e9, 100, 4.8e12, 1e15, -1.0)
    with pytest.raises(TypeError):
        q.max_batch_at("llama", 80e9, 16, 16, 4096)


def test_smoothing_keeps_the_product_and_flattens_the_activations():
    x, w = q.synthetic_activations(32, 256, 4, 20.0), q.synthetic_weights(256, 64)
    xs, ws = q.smooth(x, w)
    assert np.allclose(xs @ ws, x @ w)
    spread = lambda a: np.abs(a).max(axis=0).max() / np.median(np.abs(a).max(axis=0))  # noqa: E731
    assert spread(xs) < spread(x)
    s = q.smooth_scales(x, w, 0.5)
    assert np.allclose(s, np.sqrt(np.abs(x).max(axis=0) / np.abs(w).max(axis=1)))     # alpha = 1/2 by hand
    assert np.allclose(q.smooth_scales(x, w, 0.0), 1 / np.abs(w).max(axis=1))
    # per-token INT8 activations lose less after smoothing (weights at 16 bits: nearly exact)
    assert (q.matmul_output_error(xs, ws, 16, "channel", act_bits=8)
            < q.matmul_output_error(x, w, 16, "channel", act_bits=8))
    with pytest.raises(ValueError, match="alpha"):
        q.smooth_scales(x, w, 1.5)


def test_compute_bound_batch_by_hand_and_fp8_keeps_it():
    # ridge 1000e12 / 4e12 = 250 FLOP/byte; 8-bit weights reach it at 250 x 8 / 16 = 125 sequences
    assert q.compute_bound_batch_at_bits(1000e12, 4e12, 8) == pytest.approx(125)
    # FP8 arithmetic doubles the peak as FP8 weights halve the bits: the crossing stays put
    assert q.compute_bound_batch_at_bits(2000e12, 4e12, 8) == pytest.approx(
        q.compute_bound_batch_at_bits(1000e12, 4e12, 16))
    with pytest.raises(ValueError, match="bits"):
        q.compute_bound_batch_at_bits(1000e12, 4e12, 0)


def test_gqa_kv_bytes_per_token_by_hand():
    # 2 (K and V) x layers x KV heads x head dim x 2 bytes: GQA counts KV heads, not query heads
    assert models.LLAMA3_70B.kv_B_per_token() == 2 * 80 * 8 * 128 * 2 == 327_680
    assert models.LLAMA3_8B.kv_B_per_token() == 2 * 32 * 8 * 128 * 2 == 131_072
    assert models.LLAMA3_70B.kv_B_per_token(1) == 163_840                     # FP8 KV halves it


def test_split_over_gpus_multiplies_the_ceiling():
    # BF16 Llama-3-70B (141.1 GB) needs two 141 GB H200s (126.9 GB usable each); split by tensor
    # parallelism each reads half the weights per token: twice one GPU's ceiling
    shape, bw = models.LLAMA3_70B, 4.8e12
    assert planner.gpus_needed(shape, 141e9, 2).gpus == 2
    assert q.decode_ceiling_at_bits_tok_s(shape.n_params, 16, 2 * bw) == pytest.approx(
        2 * q.decode_ceiling_at_bits_tok_s(shape.n_params, 16, bw))
    # INT4 g128 on one GPU against BF16 on two: (16 / 4.25) / 2 = 1.88
    ratio = (q.decode_ceiling_at_bits_tok_s(shape.n_params, 4.25, bw)
             / q.decode_ceiling_at_bits_tok_s(shape.n_params, 16, 2 * bw))
    assert ratio == pytest.approx(16 / 4.25 / 2)


def test_w4a16_and_fp8_tie_where_bf16_flops_equal_fp8_bytes():
    """Step time of a batch-B decode, roofline max(FLOPs / peak, bytes / bandwidth): W4A16 (4.25
    bits, BF16 arithmetic at F) against FP8 weights and FP8 arithmetic (8 bits, 2F). They tie at
    2 P B / F = P / BW, B = F / (2 BW): 1000e12 / 8e12 = 125 here."""
    F, bw, P = 1000e12, 4e12, 1e9
    w4 = lambda B: max(2 * P * B / F, P * 4.25 / 8 / bw)        # noqa: E731
    fp8 = lambda B: max(2 * P * B / (2 * F), P * 8 / 8 / bw)     # noqa: E731
    tie = q.compute_bound_batch_at_bits(F, bw, 8)
    assert tie == pytest.approx(125)
    assert w4(tie) == pytest.approx(fp8(tie))
    assert w4(tie / 2) < fp8(tie / 2) and w4(2 * tie) > fp8(2 * tie)
    # W4A16 turns compute-bound at 250 x 4.25 / 16 = 66.4, before the tie
    assert q.compute_bound_batch_at_bits(F, bw, 4.25) == pytest.approx(250 * 4.25 / 16)


# ---- GPTQ/AWQ layout, KV bandwidth, FP8 activations and keys (chapter 9, issue 21) -------------

def test_gptq_awq_layout_by_hand():
    f = q.storage_format("int4_g128_z4")
    assert f.bits_per_param == 4 + (16 + 4) / 128                      # FP16 scale + packed 4-bit zero
    assert q.storage_format("int4_g128").bits_per_param == 4.25         # the generic FP16-zero layout is unchanged
    assert q.weight_B_at_bits(models.LLAMA3_70B.n_params, f.bits_per_param) == pytest.approx(
        models.LLAMA3_70B.n_params * 4.15625 / 8)


def test_kv_crossover_and_step_bytes_agree():
    shape, ctx = models.LLAMA3_70B, 32768
    b_x = q.kv_weight_crossover_batch(shape, 8, 16, ctx)
    per_token = 2 * shape.n_layers * shape.n_kv_heads * (shape.d_model // shape.n_heads) * 2
    weights = shape.n_params + 2 * 128_256 * 8192          # FP8 blocks, 16-bit embedding and head
    assert b_x == pytest.approx(weights / (per_token * ctx))
    # at the crossover batch the step reads the weights twice over
    assert q.decode_read_B(shape, 8, 16, 1, ctx * b_x) == pytest.approx(2 * weights)
    # halving the cache's bits halves its share and doubles the crossover
    assert q.kv_weight_crossover_batch(shape, 8, 8, ctx) == pytest.approx(2 * b_x)
    with pytest.raises(ValueError, match="kv_bits"):
        q.decode_read_B(shape, 8, 0, 1, ctx)


def test_score_stderr():
    assert q.score_stderr(0.8, 400) == pytest.approx(math.sqrt(0.16 / 400))
    assert q.score_stderr(0.3, 100) == pytest.approx(q.score_stderr(0.7, 100))
    with pytest.raises(ValueError, match="accuracy"):
        q.score_stderr(1.5, 10)


def test_fp8_relative_error_is_scale_free():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((32, 64))
    xq = q.quantize_fp8(x)
    s = np.abs(x).max() / formats.E4M3.max_normal
    normal = np.abs(x) >= formats.E4M3.min_normal * s
    assert np.all(np.abs(xq - x)[normal] <= 2.0 ** -4 * np.abs(x)[normal] + 1e-15)   # half a step of 3 mantissa bits
    # a scale by a power of two changes nothing but the scale
    assert np.allclose(q.quantize_fp8(x * 1024.0), xq * 1024.0)
    # per token: each row's largest value is exact
    rows = q.quantize_fp8(x, "token")
    assert np.allclose(np.abs(rows).max(axis=1), np.abs(x).max(axis=1))


def test_fp8_activations_ignore_outlier_channels_int8_does_not():
    w = q.synthetic_weights(512, 64)
    clean, out = q.synthetic_activations(64, 512), q.synthetic_activations(64, 512, 4, 20.0)
    fp8 = [q.activation_output_sqnr_db(x, w, "fp8_tensor") for x in (clean, out)]
    int8 = [q.activation_output_sqnr_db(x, w, "int8_token") for x in (clean, out)]
    assert abs(fp8[0] - fp8[1]) < 1.0 and int8[0] - int8[1] > 10
    assert int8[0] > fp8[0]                                # INT8 is finer without outliers
    assert q.activation_output_sqnr_db(out, w, "int8_token") == pytest.approx(
        q.matmul_output_sqnr_db(out, w, 16, "channel", act_bits=8), abs=0.01)


def test_keys_per_channel_beat_per_token_on_channel_outliers():
    k = q.synthetic_activations(128, 64, 2, 20.0, seed=1)
    qs = q.synthetic_activations(8, 64, seed=2)
    per_tok = q.quantize_kv(k, 4, "token")
    per_ch = q.quantize_kv(k, 4, "channel")
    assert np.allclose(per_tok, q.quantize_int(k.T, 4, "channel").T)
    assert q.attention_score_sqnr_db(qs, k, per_ch) > q.attention_score_sqnr_db(qs, k, per_tok) + 3
    with pytest.raises(ValueError, match="keys_hat"):
        q.attention_score_sqnr_db(qs, k, per_ch[:-1])
    with pytest.raises(KeyError):
        q.quantize_kv(k, 4, "head")


def test_checkpoint_bytes_keep_embeddings_and_head_at_16_bits():
    """Weight-only checkpoints (GPTQ, AWQ) quantize the decoder blocks only: the embedding table and an
    untied LM head stay 16-bit. Counted by hand from the shapes' published sizes."""
    from infra_lib import models, quant_storage as qs
    l70 = models.LLAMA3_70B                        # untied: embedding and head, 128,256 x 8,192 each
    rest = 2 * 128_256 * 8192
    expected = (l70.n_params - rest) * 4.15625 / 8 + rest * 2
    assert qs.checkpoint_B(l70, 4.15625) == pytest.approx(expected, rel=1e-12)
    gpt2 = models.GPT2_SMALL                        # tied head: only the table and the positions stay
    rest2 = 50_257 * 768 + 1024 * 768
    assert qs.checkpoint_B(gpt2, 4) == pytest.approx((gpt2.n_params - rest2) * 0.5 + rest2 * 2, rel=1e-12)
    for shape in models.SHAPES.values():
        assert qs.checkpoint_B(shape, 16) == pytest.approx(2 * shape.n_params, rel=1e-12)
    with pytest.raises(TypeError, match="shape"):
        qs.checkpoint_B("llama", 4)


def test_checkpoint_bits_average_the_blocks_and_the_16_bit_rest():
    from infra_lib import models, quant_storage as qs
    l70, rest = models.LLAMA3_70B, 2 * 128_256 * 8192
    assert qs.checkpoint_bits(l70, 4.15625) == pytest.approx(((l70.n_params - rest) * 4.15625 + rest * 16) / l70.n_params)
    assert all(qs.checkpoint_bits(s, 16) == pytest.approx(16) for s in models.SHAPES.values())


# ---- the evaluation checklist: score differences, KL divergence, top-1 agreement ----------------

def test_unpaired_difference_is_two_independent_stderrs():
    for pa, pb, n in ((0.9, 0.88, 1319), (0.5, 0.6, 100)):
        assert q.score_difference_stderr(pa, pb, n) == pytest.approx(
            math.hypot(q.score_stderr(pa, n), q.score_stderr(pb, n)))


def test_paired_difference_matches_the_per_question_differences():
    # build n questions with exact counts: u right -> wrong, w wrong -> right, the rest unchanged
    n, pa, u, w = 1000, 0.9, 40, 25
    a = np.zeros(n); a[: int(pa * n)] = 1
    b = a.copy(); b[:u] = 0; b[int(pa * n): int(pa * n) + w] = 1
    d = b - a
    expected = d.std() / math.sqrt(n)                     # population std of d_i over sqrt(n)
    got = q.score_difference_stderr(pa, b.mean(), n, flip_share=(u + w) / n)
    assert got == pytest.approx(expected)


def test_paired_difference_matches_a_simulation():
    rng = np.random.default_rng(11)
    n, trials, pa, u, w = 500, 4000, 0.8, 0.07, 0.03     # shares: right -> wrong, wrong -> right
    cats = rng.choice(4, size=(trials, n), p=[pa - u, u, w, 1 - pa - w])   # both right, down, up, both wrong
    diffs = ((cats == 2).sum(axis=1) - (cats == 1).sum(axis=1)) / n
    se = q.score_difference_stderr(pa, pa - u + w, n, flip_share=u + w)
    assert diffs.std() == pytest.approx(se, rel=0.05)
    # pairing narrows the error: the unpaired one is larger
    assert se < q.score_difference_stderr(pa, pa - u + w, n)


def test_paired_difference_refuses_impossible_flips():
    with pytest.raises(ValueError, match="flip_share"):
        q.score_difference_stderr(0.9, 0.8, 100, flip_share=0.05)      # fewer flips than the difference
    with pytest.raises(ValueError, match="flip_share"):
        q.score_difference_stderr(0.95, 0.95, 100, flip_share=0.5)     # more right -> wrong than right answers
    with pytest.raises(ValueError, match="questions"):
        q.score_difference_stderr(0.9, 0.9, 0)
    assert q.Z_95 == pytest.approx(1.959964, abs=1e-6)


def test_kl_divergence_by_hand_and_its_invariances():
    p = np.array([[math.log(0.7), math.log(0.2), math.log(0.1)]])
    r = np.array([[math.log(0.5), math.log(0.25), math.log(0.25)]])
    by_hand = 0.7 * math.log(0.7 / 0.5) + 0.2 * math.log(0.2 / 0.25) + 0.1 * math.log(0.1 / 0.25)
    assert q.mean_kl_divergence(p, r) == pytest.approx(by_hand)
    assert q.mean_kl_divergence(p + 3.0, r - 1.0) == pytest.approx(by_hand)      # a constant per row changes nothing
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((50, 20)), rng.standard_normal((50, 20))
    assert q.mean_kl_divergence(a, b) > 0 and q.mean_kl_divergence(a, a) == 0
    with pytest.raises(ValueError, match="shape"):
        q.mean_kl_divergence(a, b[:, :10])


def test_top1_agreement_counts_the_same_argmax():
    a = np.array([[3.0, 1.0, 0.0], [0.0, 2.0, 1.0], [0.0, 0.0, 5.0], [1.0, 0.0, 0.0]])
    b = np.array([[2.0, 1.9, 0.0], [0.0, 1.0, 2.0], [0.0, 1.0, 5.0], [0.0, 3.0, 0.0]])
    assert q.top1_agreement(a, b) == 0.5
    assert q.top1_agreement(a, a) == 1.0


def test_finer_scales_lose_less_distribution():
    x = q.synthetic_activations(256, 512, 4, 20.0, seed=5)
    w = q.synthetic_weights(512, 256, 0.002, 30.0)
    ref = x @ w
    kl = {g: q.mean_kl_divergence(ref, x @ q.quantize_int(w, 4, g, 128)) for g in ("tensor", "group")}
    assert kl["group"] < kl["tensor"]
    assert q.mean_kl_divergence(ref, x @ q.quantize_int(w, 8, "channel")) < kl["group"]


def test_kv_residual_window_by_hand():
    assert q.kv_bits_with_residual(4, 1000, 100) == pytest.approx((100 * 16 + 900 * 4) / 1000)
    assert q.kv_bits_with_residual(4, 1000, 0) == 4
    assert q.kv_bits_with_residual(4, 50, 100) == 16
    # the window's share falls as 1/T: long requests approach the quantized bits
    assert q.kv_bits_with_residual(4, 10**6, 128) == pytest.approx(4, abs=0.002)


def test_deepseek_block_scales_cost_by_hand():
    assert formats.FP8_TILE_1X128.bits_per_value == 8 + 32 / 128
    assert formats.FP8_BLOCK_128X128.bits_per_value == 8 + 32 / (128 * 128)
