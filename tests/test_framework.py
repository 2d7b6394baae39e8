"""infra_lib.framework: eager CPU time against GPU time, CUDA-graph savings on the H200 sweep,
fusion traffic. Expected values worked by hand."""
import json
from pathlib import Path

import pytest

from infra_lib import framework as F

RUN = Path(__file__).resolve().parents[1] / "infra_lib" / "data" / "measurements" / "h200-2026-11-29"


def test_eager_cpu_time_and_ratio():
    assert F.eager_cpu_s(100, 10e-6) == pytest.approx(1e-3)
    assert F.launch_bound_ratio(100, 10e-6, 0.5e-3) == pytest.approx(2.0)
    assert F.ops_hidden(1e-3, 10e-6) == pytest.approx(100)


def test_matvec_crossover_is_where_read_time_equals_launch():
    n = F.launch_bound_matvec_n(8e-6, 2e12, 2)            # n^2 * 2 B / 2e12 B/s = 8 us -> n = 2828.4
    assert n == pytest.approx(8000 ** 0.5 * 10 ** 1.5, rel=1e-9)
    assert n * n * 2 / 2e12 == pytest.approx(8e-6)


def test_graph_savings_are_the_measured_gaps():
    rows = json.loads((RUN / "reality_check.json").read_text(encoding="utf-8"))["decode"]
    s = F.h200_graph_savings()
    assert len(s) == len(rows)
    measured = sorted(r["s_eager"] - r["s_graph"] for r in rows)
    assert sorted(p.saved_s for p in s) == pytest.approx(measured)
    first = min(rows, key=lambda r: r["s_graph"])
    assert all(p.cpu_issue_s == pytest.approx(first["s_eager"]) for p in s)
    # the largest batch has more GPU work than the CPU's issue time: not CPU-bound
    assert not s[-1].cpu_bound and s[0].cpu_bound
    assert s[0].saved_share > s[-1].saved_share


def test_fusion_traffic_by_hand():
    ks = [k for _, k in F.GELU_TANH_CHAIN]
    assert sum(ks) == 10 and len(ks) == 8                   # 10 reads + 8 writes
    assert F.unfused_traffic_B(1e6, ks, 2) == pytest.approx(18 * 2e6)
    assert F.fused_traffic_B(1e6, 1, 2) == pytest.approx(2 * 2e6)
    assert F.fusion_saving(ks, 1) == pytest.approx(1 - 2 / 18)
    assert F.fusion_saving([1, 2], 2) == pytest.approx(1 - 3 / 5)   # silu(g) * u


@pytest.mark.parametrize("bad", [[], "ab", [0, 1], [1.5]])
def test_bad_chains(bad):
    with pytest.raises((ValueError, TypeError)):
        F.unfused_traffic_B(10, bad)


def test_graph_node_limit_is_gpu_time_per_node():
    assert F.graph_nodes_max(1e-3, 1e-6) == pytest.approx(1000)
    with pytest.raises(ValueError):
        F.graph_nodes_max(1e-3, 0)


def test_compile_counts_by_hand():
    sizes = [1, 8, 16, 24, 8, 32]
    # static: one graph per distinct size (1, 8, 16, 24, 32)
    assert F.compiles_needed(sizes, "static") == F.CompileCount(5, 0)
    # auto: size 1 specialized, then the first new size makes the dimension dynamic
    assert F.compiles_needed(sizes) == F.CompileCount(2, 0)
    # dynamic from the start: still a graph for the specialized size 1, one dynamic graph for the rest
    assert F.compiles_needed(sizes, "dynamic") == F.CompileCount(2, 0)
    assert F.compiles_needed([4, 4, 4], "static") == F.CompileCount(1, 0)
    assert F.compiles_needed([4, 5, 6]) == F.CompileCount(2, 0)          # static 4, then dynamic
    assert F.compiles_needed([0, 1, 5, 6], "dynamic") == F.CompileCount(3, 0)


def test_recompile_limit_sends_the_rest_to_eager():
    sizes = list(range(2, 20))
    c = F.compiles_needed(sizes, "static", recompile_limit=8)
    assert c.compiles == 8 and c.eager_calls == len(sizes) - 8
    assert F.compiles_needed(sizes, "auto", recompile_limit=8) == F.CompileCount(2, 0)
    with pytest.raises(KeyError):
        F.compiles_needed(sizes, "sometimes")
