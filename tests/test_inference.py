"""Tests for infra_lib.inference: prefill, decode steps, batching, and the seed's worked example."""
import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from infra_lib import inference as inf
from infra_lib.models import LLAMA3_8B

from bad_values import BAD_NON_NEGATIVE, BAD_POSITIVE, BAD_COUNT, PROPS, names

ROOT = Path(__file__).resolve().parents[1]
MEASURED = json.loads((ROOT / "infra_lib" / "data" / "measurements" / "h200-2026-11-29"
                       / "reality_check.json").read_text(encoding="utf-8"))

BAD_FRACTION = BAD_POSITIVE + [1.01, 70]

# The seed's example, written out by hand: 8B params in BF16, 2000-token prompt, 0.3 GB KV
# per request per step; 1000 TFLOPS at 50%, 3 TB/s at 70%.
N, P, KV, W = 8e9, 2000, 0.3e9, 8e9 * 2
EFF_F, EFF_B = 1e15 * 0.5, 3e12 * 0.7


@pytest.fixture
def req():
    return inf.teaching_request()


@pytest.fixture
def gpu():
    return inf.teaching_gpu()


# ---- the teaching inputs come from the registry -------------------------------------------

def test_teaching_request(req):
    assert (req.n_params, req.prompt_tokens, req.kv_B, req.bytes_per_param) == (8e9, 2000, 0.3e9, 2)
    assert req.weight_B == 16e9
    assert req.flops_per_token == 2 * 8e9


def test_teaching_gpu(gpu):
    assert (gpu.peak_flop_s, gpu.mem_bw_Bps) == (1e15, 3e12)
    assert gpu.effective_flop_s == pytest.approx(EFF_F)
    assert gpu.effective_Bps == pytest.approx(EFF_B)           # 2.1 TB/s
    assert round(gpu.ridge_point, 1) == 333.3                  # peak over peak, not effective


def test_h100_at_peak_uses_full_efficiency():
    h100 = inf.Accelerator.at_peak("h100_sxm5")
    assert (h100.peak_flop_s, h100.mem_bw_Bps) == (989.4e12, 3352e9)
    assert (h100.flop_efficiency, h100.bw_efficiency) == (1.0, 1.0)
    assert h100.ridge_point == pytest.approx(989.4 / 3.352)
    assert round(h100.ridge_point, 1) == 295.2


def test_from_registry_overrides_efficiencies():
    acc = inf.Accelerator.from_registry("teaching_gpu", flop_efficiency=0.8, bw_efficiency=0.9)
    assert (acc.flop_efficiency, acc.bw_efficiency) == (0.8, 0.9)


def test_from_registry_needs_efficiencies_the_registry_lacks():
    # the H100 has no efficiency specs: a missing one is an error naming it, never a silent 1.0
    with pytest.raises(KeyError, match="flop_efficiency"):
        inf.Accelerator.from_registry("h100_sxm5")
    with pytest.raises(KeyError, match="bw_efficiency"):
        inf.Accelerator.from_registry("h100_sxm5", flop_efficiency=0.5)
    acc = inf.Accelerator.from_registry("h100_sxm5", flop_efficiency=0.5, bw_efficiency=0.7)
    assert (acc.flop_efficiency, acc.bw_efficiency) == (0.5, 0.7)


def test_from_registry_needs_a_dense_peak():
    with pytest.raises(KeyError, match="peak_flop_s"):
        inf.Accelerator.from_registry("h200_sxm")     # the registry holds only the sparse figure


# ---- prefill: 64 ms of arithmetic vs 7.6 ms of weight reads --------------------------------

def test_prefill_worked_example(req, gpu):
    p = inf.prefill(req, gpu)
    assert p.flops == pytest.approx(2 * N * P)                 # 32 TFLOP
    assert p.compute_s == pytest.approx(2 * N * P / EFF_F)     # 64 ms
    assert p.weight_read_s == pytest.approx(W / EFF_B)         # 7.6 ms
    assert round(p.compute_s * 1e3) == 64 and round(p.weight_read_s * 1e3, 1) == 7.6
    assert p.bound == "compute"
    assert p.time_s == p.compute_s


def test_short_prompt_prefill_is_memory_bound(gpu):
    # 1 token: 16 GFLOP in 0.032 ms, but the weights still take 7.6 ms to read.
    p = inf.prefill(inf.Request(n_params=N, prompt_tokens=1, kv_B=0), gpu)
    assert p.bound == "memory" and p.time_s == pytest.approx(W / EFF_B)


# ---- decode: one step, batch 1 ------------------------------------------------------------

def test_decode_step_worked_example(req, gpu):
    s = inf.decode_step(req, gpu)
    assert s.compute_s == pytest.approx(2 * N / EFF_F)         # 0.032 ms
    assert round(s.compute_s * 1e3, 3) == 0.032
    assert s.read_B == pytest.approx(W + KV) == 16.3e9
    assert s.memory_s == pytest.approx((W + KV) / EFF_B)       # 16.3 GB at 2.1 TB/s
    assert round(s.memory_s * 1e3, 1) == 7.8
    assert s.bound == "memory"
    assert s.time_s == s.inter_token_latency_s == s.memory_s
    assert s.memory_s / s.compute_s > 100                      # two orders of magnitude
    assert s.intensity == pytest.approx(2 * N / (W + KV))      # ~1 FLOP/byte, far below 333


def test_batch_one_throughput_is_about_129(req, gpu):
    tput = inf.decode_step(req, gpu).throughput_tok_s
    assert tput == pytest.approx(EFF_B / (W + KV))
    assert round(tput) == 129


# ---- decode: batch 32 ---------------------------------------------------------------------

def test_batch_32_worked_example(req, gpu):
    s = inf.decode_step(req, gpu, batch=32)
    assert s.read_B == pytest.approx(W + 32 * KV) == 25.6e9
    assert s.time_s == pytest.approx((W + 32 * KV) / EFF_B)
    assert round(s.time_s * 1e3, 1) == 12.2
    assert s.throughput_tok_s == pytest.approx(32 * EFF_B / (W + 32 * KV))
    assert round(s.throughput_tok_s, -2) == 2600
    assert s.kv_share == pytest.approx(32 * KV / (W + 32 * KV)) == 0.375
    assert s.flops == pytest.approx(32 * 2 * N)


def test_batching_gives_about_20x(req, gpu):
    ratio = inf.decode_step(req, gpu, 32).throughput_tok_s / inf.decode_step(req, gpu).throughput_tok_s
    assert ratio == pytest.approx(32 * (W + KV) / (W + 32 * KV))
    assert round(ratio) == 20


def test_batch_32_costs_latency(req, gpu):
    # Each request waits 12.2 ms per token instead of 7.8 ms.
    one, many = inf.decode_step(req, gpu), inf.decode_step(req, gpu, 32)
    assert many.inter_token_latency_s / one.inter_token_latency_s == pytest.approx((W + 32 * KV) / (W + KV))


def test_without_kv_decode_turns_compute_bound_past_the_effective_ridge(gpu):
    # KV = 0: intensity = 2N*b / 2N bytes = b FLOP/byte; effective ridge = 0.5e15 / 2.1e12 = 238.1.
    r = inf.Request(n_params=N, prompt_tokens=1, kv_B=0)
    first = math.ceil(EFF_F / EFF_B)
    assert first == 239
    assert inf.decode_step(r, gpu, first - 1).bound == "memory"
    assert inf.decode_step(r, gpu, first).bound == "compute"


# ---- the floor on a decode step -----------------------------------------------------------

def test_min_token_time_on_h100():
    t = inf.min_token_time_s(16e9, 3352e9)
    assert t == pytest.approx(16e9 / 3352e9)
    assert round(t * 1e3, 2) == 4.77
    assert 1 / t <= 210


def test_min_token_time_is_the_inverse_of_the_decode_ceiling():
    # 3,352 GB/s over 16 GB: 209.5 tokens/s, so 1 / 209.5 s per token
    assert inf.min_token_time_s(16e9, 3352e9) == 1 / 209.5
    with pytest.raises(ValueError, match="weight_B"):        # 1e308 B at 5e-324 B/s: no float holds it
        inf.min_token_time_s(1e308, 5e-324)


def test_measured_h200_steps_respect_the_floor():
    # Every measured decode step took at least bytes / datasheet bandwidth (4.8 TB/s).
    for row in MEASURED["decode"]:
        assert row["s_graph"] >= inf.min_token_time_s(row["bytes_min"], 4.8e12), row


def test_llama3_8b_floor_on_h200():
    t = inf.min_token_time_s(LLAMA3_8B.weight_B(), 4.8e12)
    assert t == pytest.approx(2 * 8_030_261_248 / 4.8e12)      # 3.35 ms, at most ~299 tokens/s


# ---- identities ---------------------------------------------------------------------------

requests = st.builds(inf.Request, n_params=st.floats(1e6, 1e13), prompt_tokens=st.integers(1, 100_000),
                     kv_B=st.floats(0, 1e12), bytes_per_param=st.sampled_from([0.5, 1, 2, 4]))
accelerators = st.builds(inf.Accelerator, name=st.just("x"), peak_flop_s=st.floats(1e12, 1e18),
                         mem_bw_Bps=st.floats(1e9, 1e15), flop_efficiency=st.floats(0.01, 1),
                         bw_efficiency=st.floats(0.01, 1))
batches = st.integers(1, 4096)


@PROPS
@given(requests, accelerators, batches)
def test_batching_never_lowers_throughput(req, acc, b):
    lo, hi = inf.decode_step(req, acc, b), inf.decode_step(req, acc, b + 1)
    assert hi.throughput_tok_s >= lo.throughput_tok_s * (1 - 1e-12)   # float rounding only


@PROPS
@given(requests, accelerators, batches)
def test_kv_share_in_unit_interval_and_increasing(req, acc, b):
    req = replace(req, kv_B=max(req.kv_B, 1.0))
    lo, hi = inf.decode_step(req, acc, b), inf.decode_step(req, acc, b + 1)
    assert 0 <= lo.kv_share < 1
    assert hi.kv_share > lo.kv_share


@PROPS
@given(requests, accelerators, batches)
def test_step_takes_the_slower_of_compute_and_memory(req, acc, b):
    s = inf.decode_step(req, acc, b)
    assert s.time_s == max(s.compute_s, s.memory_s)
    assert s.compute_s == pytest.approx(b * 2 * req.n_params / (acc.peak_flop_s * acc.flop_efficiency))
    assert s.memory_s == pytest.approx((req.n_params * req.bytes_per_param + b * req.kv_B)
                                       / (acc.mem_bw_Bps * acc.bw_efficiency))
    assert s.bound == ("compute" if s.compute_s >= s.memory_s else "memory")


@PROPS
@given(batches)
def test_teaching_decode_is_memory_bound_at_any_batch(b):
    # Per request: 0.3 GB / 2.1 TB/s = 143 us of KV reads vs 16 GFLOP / 500 TFLOP/s = 32 us.
    assert inf.decode_step(inf.teaching_request(), inf.teaching_gpu(), b).bound == "memory"


@PROPS
@given(requests, accelerators)
def test_prefill_is_linear_in_prompt(req, acc):
    p = inf.prefill(req, acc)
    assert p.flops == pytest.approx(2 * req.n_params * req.prompt_tokens)
    assert p.time_s == max(p.compute_s, p.weight_read_s)


# ---- validation --------------------------------------------------------------------------

@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("field", ["peak_flop_s", "mem_bw_Bps"])
def test_accelerator_rejects_bad_peaks(field, bad):
    with pytest.raises((TypeError, ValueError), match=names(field)):
        replace(inf.teaching_gpu(), **{field: bad})


@pytest.mark.parametrize("bad", BAD_FRACTION)
@pytest.mark.parametrize("field", ["flop_efficiency", "bw_efficiency"])
def test_accelerator_rejects_bad_efficiency(field, bad):
    with pytest.raises((TypeError, ValueError), match=names(field)):
        replace(inf.teaching_gpu(), **{field: bad})


@pytest.mark.parametrize("bad", [b for b in BAD_FRACTION if b is not None])   # None = "use registry"
@pytest.mark.parametrize("field", ["flop_efficiency", "bw_efficiency"])
def test_from_registry_rejects_bad_efficiency(field, bad):
    with pytest.raises((TypeError, ValueError), match=names(field)):
        inf.Accelerator.from_registry("h100_sxm5", **{"flop_efficiency": 0.5, "bw_efficiency": 0.7, field: bad})


def test_from_registry_rejects_unknown_device():
    with pytest.raises(KeyError, match="h900"):
        inf.Accelerator.from_registry("h900")


@pytest.mark.parametrize("field, bads", [
    ("n_params", BAD_POSITIVE),
    ("bytes_per_param", BAD_POSITIVE),
    ("prompt_tokens", BAD_COUNT),
    ("kv_B", BAD_NON_NEGATIVE),
])
def test_request_rejects_bad_fields(field, bads):
    for bad in bads:
        with pytest.raises((TypeError, ValueError), match=names(field)):
            replace(inf.teaching_request(), **{field: bad})


@pytest.mark.parametrize("bad", BAD_COUNT)
def test_decode_step_rejects_bad_batch(bad):
    with pytest.raises((TypeError, ValueError), match=names("batch")):
        inf.decode_step(inf.teaching_request(), inf.teaching_gpu(), bad)


@pytest.mark.parametrize("bad", BAD_POSITIVE)
@pytest.mark.parametrize("param, call", [
    ("weight_B", lambda x: inf.min_token_time_s(x, 3352e9)),
    ("mem_bw_Bps", lambda x: inf.min_token_time_s(16e9, x)),
])
def test_min_token_time_rejects_bad_input(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


@pytest.mark.parametrize("bad", [None, "teaching"])
@pytest.mark.parametrize("param, call", [
    pytest.param("request", lambda x: inf.prefill(x, inf.teaching_gpu()), id="prefill-request"),
    pytest.param("acc", lambda x: inf.prefill(inf.teaching_request(), x), id="prefill-acc"),
    pytest.param("request", lambda x: inf.decode_step(x, inf.teaching_gpu()), id="decode-request"),
    pytest.param("acc", lambda x: inf.decode_step(inf.teaching_request(), x), id="decode-acc"),
])
def test_prefill_and_decode_reject_wrong_objects(param, call, bad):
    with pytest.raises((TypeError, ValueError), match=names(param)):
        call(bad)


# ---- compute_bound_batch ------------------------------------------------------------------------

def test_compute_bound_batch_without_kv_matches_hand_arithmetic():
    no_kv = inf.Request(8e9, 2000, 0.0)
    # weights 16e9 B at 2.1e12 B/s = 7.619 ms; each request 1.6e10 FLOP at 5e14 FLOP/s = 0.032 ms
    expected = (16e9 / 2.1e12) / (1.6e10 / 5e14)
    b = inf.compute_bound_batch(no_kv, inf.teaching_gpu())
    assert b == pytest.approx(expected)
    gpu = inf.teaching_gpu()
    assert inf.decode_step(no_kv, gpu, math.floor(b)).bound == "memory"
    assert inf.decode_step(no_kv, gpu, math.ceil(b)).bound == "compute"


def test_compute_bound_batch_never_with_teaching_kv():
    # 0.3 GB of KV per request adds 0.3e9 / 2.1e12 = 0.143 ms of memory time, more than 0.032 ms of arithmetic
    assert inf.compute_bound_batch(inf.teaching_request(), inf.teaching_gpu()) == math.inf


def test_compute_bound_batch_names_bad_arguments():
    with pytest.raises(TypeError, match="request"):
        inf.compute_bound_batch(None, inf.teaching_gpu())
    with pytest.raises(TypeError, match="acc"):
        inf.compute_bound_batch(inf.teaching_request(), "H100")


def test_capacity_bound_of_the_worked_example(req):
    # by hand: (80 - 16) GB / 0.3 GB = 213.3 -> 213; batch 256 would need 16 + 256 x 0.3 = 92.8 GB
    assert inf.max_batch_that_fits(req.weight_B, req.kv_B, 80e9) == 213
    assert req.weight_B + 256 * req.kv_B == pytest.approx(92.8e9)
    # the same 80 read as GiB: (85.90 - 16) / 0.3 = 233.0 -> 232 (just under)
    assert inf.max_batch_that_fits(req.weight_B, req.kv_B, 80 * 2**30) == 232
    # Llama-3-8B's own KV at 2,000 tokens, BF16 then FP8: 64 / 0.262 = 243.9, 64 / 0.131 = 487.8
    kv = LLAMA3_8B.kv_B_per_token() * 2000
    assert inf.max_batch_that_fits(LLAMA3_8B.weight_B(), kv, 80e9) == 243
    assert inf.max_batch_that_fits(LLAMA3_8B.weight_B(), LLAMA3_8B.kv_B_per_token(1) * 2000, 80e9) == 487


def test_capacity_bound_edges():
    assert inf.max_batch_that_fits(16e9, 1e9, 16e9) == 0          # the weights alone fill it
    assert inf.max_batch_that_fits(16e9, 1e9, 10e9) == 0          # not even the weights fit
    assert inf.max_batch_that_fits(16e9, 1e9, 20e9, reserved_B=2e9) == 2
    assert inf.max_batch_that_fits(0.0, 0.1e9, 3e9) == 30         # an exact multiple is not lost to rounding
    with pytest.raises(ValueError, match="kv_B_per_request"):
        inf.max_batch_that_fits(16e9, 0.0, 80e9)
    with pytest.raises(ValueError, match="mem_capacity_B"):
        inf.max_batch_that_fits(16e9, 0.3e9, -1.0)


@settings(max_examples=50, deadline=None)
@given(w=st.floats(0, 1e11), kv=st.floats(1e6, 1e10), cap=st.floats(1e9, 2e11))
def test_capacity_bound_is_the_largest_batch_that_fits(w, kv, cap):
    b = inf.max_batch_that_fits(w, kv, cap)
    assert b >= 0
    if b > 0:
        assert w + b * kv <= cap * (1 + 1e-9)
    assert w + (b + 1) * kv > cap * (1 - 1e-9)


def test_the_compute_bound_batch_lies_beyond_the_capacity_bound(req, gpu):
    no_kv = inf.Request(req.n_params, req.prompt_tokens, 0.0)
    assert inf.compute_bound_batch(no_kv, gpu) > inf.max_batch_that_fits(req.weight_B, req.kv_B, 80e9)


# ---- the KV read after the matmuls (chapter 6's model) and the MoE critical batch ---------------

def test_kv_after_agrees_below_the_ridge_and_is_slower_above():
    req, gpu = inf.teaching_request(), inf.teaching_gpu()
    ridge = gpu.effective_flop_s / gpu.effective_Bps          # 2N per request / 2 bytes per weight
    for b in (1, 8, 32, int(ridge)):
        a, s = inf.decode_step(req, gpu, b), inf.decode_step(req, gpu, b, kv_after=True)
        assert s.time_s == pytest.approx(a.time_s)
    for b in (int(ridge) + 2, 400, 1000):
        a, s = inf.decode_step(req, gpu, b), inf.decode_step(req, gpu, b, kv_after=True)
        expect = max(s.compute_s, s.weight_read_s) + s.kv_read_s
        assert s.time_s == pytest.approx(expect) and s.time_s > a.time_s
        assert s.bound == "compute" and a.bound == "memory"


def test_kv_after_matches_decode_model_structure():
    # the same function prices both: decode_model's terms fed into inference's step give one time
    from infra_lib import decode_model as dm, roofline
    e = dm.efficiencies()
    d = dm.decode_terms(128, 1000, e)
    assert d.total_s == roofline.sequential_step_s(d.compute_s, d.weights_s, d.kv_s + d.elementwise_s)


def test_compute_bound_batch_kv_after_ignores_kv():
    req, gpu = inf.teaching_request(), inf.teaching_gpu()
    no_kv = inf.Request(req.n_params, req.prompt_tokens, 0.0)
    assert inf.compute_bound_batch(req, gpu) == math.inf
    assert inf.compute_bound_batch(req, gpu, kv_after=True) == pytest.approx(inf.compute_bound_batch(no_kv, gpu))


def test_decode_critical_batch():
    from infra_lib import models
    f, bw = 989.5e12, 4.8e12
    # dense, BF16: the ridge point, rounded up
    assert inf.decode_critical_batch(LLAMA3_8B, f, bw) == math.ceil(f / bw)
    # a mixture of experts, expert by expert: each expert sees B k / E tokens and turns at the ridge
    mix = models.MIXTRAL_8X7B
    bm = inf.decode_critical_batch(mix, f, bw)
    per_expert = lambda n: n * mix.experts_per_token / mix.n_experts
    assert per_expert(bm) >= f / bw > per_expert(bm - 1)
    # later than a dense model of its active size, by E / k (up to rounding)
    assert bm == pytest.approx(math.ceil(f / bw) * mix.n_experts / mix.experts_per_token, abs=mix.n_experts)
    # more experts per token turn it sooner; more experts later
    from dataclasses import replace
    assert inf.decode_critical_batch(replace(mix, experts_per_token=4), f, bw) < bm
    assert inf.decode_critical_batch(replace(mix, n_experts=16), f, bw) > bm
    # FP8 weights halve the bytes: a dense model turns at half the batch
    assert inf.decode_critical_batch(LLAMA3_8B, f, bw, 1) == math.ceil(f / bw / 2)
    with pytest.raises(TypeError):
        inf.decode_critical_batch("mixtral", f, bw)
    with pytest.raises(ValueError):
        inf.decode_critical_batch(mix, -1.0, bw)


# ---- the latency bound on batching ----------------------------------------------------------

def test_tpot_batch_worked_example(req, gpu):
    # by hand: (T - W / (eta_B BW)) / (KV / (eta_B BW)) requests, memory-bound at this target
    tpot = 20e-3
    assert inf.max_batch_for_tpot(req, gpu, tpot) == math.floor((tpot - W / EFF_B) / (KV / EFF_B))


@settings(max_examples=60, deadline=None)
@given(tpot=st.floats(1e-3, 0.2), kv=st.floats(0.0, 2e9), kv_after=st.booleans())
def test_tpot_batch_is_the_largest_that_meets_the_target(tpot, kv, kv_after):
    """Against a direct search: the batch meets the target and one more request does not."""
    r, gpu = inf.Request(N, P, kv), inf.teaching_gpu()
    b = inf.max_batch_for_tpot(r, gpu, tpot, kv_after)
    ok = lambda n: inf.decode_step(r, gpu, n, kv_after).time_s <= tpot
    if b == 0:
        assert not ok(1)
    else:
        assert ok(b) and not ok(b + 1)


@pytest.mark.parametrize("bad", BAD_POSITIVE)
def test_tpot_batch_refuses_a_bad_target(req, gpu, bad):
    with pytest.raises((TypeError, ValueError), match="tpot_s"):
        inf.max_batch_for_tpot(req, gpu, bad)
