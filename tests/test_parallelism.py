"""infra_lib.parallelism against a direct simulation of the pipeline schedules, and the all-to-all by hand."""
import pytest

from infra_lib import parallelism as P


def simulate(order, deps, dur):
    """Run each device's ops in its fixed order, each as soon as its dependencies have finished.

    order: device -> list of ops; deps: op -> ops it waits for; dur: op -> time. Returns finish times."""
    done: dict = {}
    free = {d: 0.0 for d in order}
    pos = {d: 0 for d in order}
    while any(pos[d] < len(order[d]) for d in order):
        moved = False
        for d in order:
            while pos[d] < len(order[d]) and all(x in done for x in deps[order[d][pos[d]]]):
                op = order[d][pos[d]]
                start = max([free[d]] + [done[x] for x in deps[op]])
                done[op] = free[d] = start + dur[op]
                pos[d] += 1
                moved = True
        assert moved, "deadlock in the schedule"
    return done


def pipeline(p, m, v=1, schedule="gpipe", tf=1.0, tb=2.0):
    """Ops ('F'|'B', virtual stage, microbatch); virtual stage s lives on device s % p."""
    S = p * v
    deps = {}
    for j in range(m):
        for s in range(S):
            deps[("F", s, j)] = [("F", s - 1, j)] if s else []
            deps[("B", s, j)] = [("B", s + 1, j)] if s < S - 1 else [("F", s, j)]
    dur = {op: (tf if op[0] == "F" else tb) / v for op in deps}
    order = {}
    for d in range(p):
        chunks = [c * p + d for c in range(v)]
        if schedule == "gpipe":
            fw = [("F", s, j) for g in range(0, m, p) for s in chunks for j in range(g, min(g + p, m))]
            bw = [("B", s, j) for g in range(0, m, p) for s in reversed(chunks) for j in range(g, min(g + p, m))]
            order[d] = fw + bw
        else:                                    # 1F1B, v = 1: p - d - 1 warm-up forwards, then F, B pairs
            warm = min(p - d - 1, m)
            ops = [("F", d, j) for j in range(warm)]
            for j in range(m):
                if j + warm < m:
                    ops.append(("F", d, j + warm))
                ops.append(("B", d, j))
            order[d] = ops
    return simulate(order, deps, dur), order


@pytest.mark.parametrize("p, m", [(2, 1), (4, 4), (4, 8), (8, 3), (3, 7)])
@pytest.mark.parametrize("schedule", ["gpipe", "1f1b"])
def test_bubble_matches_simulation(p, m, schedule):
    done, _ = pipeline(p, m, schedule=schedule)
    makespan = max(done.values())
    busy = m * 3.0                                # each device: m forwards (1) and m backwards (2)
    assert 1 - busy / makespan == pytest.approx(P.pipeline_bubble_fraction(p, m))


@pytest.mark.parametrize("p, m, v", [(2, 4, 2), (4, 8, 2), (4, 8, 4), (3, 6, 3)])
def test_interleaved_bubble_matches_simulation(p, m, v):
    done, _ = pipeline(p, m, v)
    makespan = max(done.values())
    assert 1 - m * 3.0 / makespan == pytest.approx(P.pipeline_bubble_fraction(p, m, v))
    assert P.pipeline_bubble_fraction(p, m, v) < P.pipeline_bubble_fraction(p, m)


@pytest.mark.parametrize("p, m", [(4, 8), (4, 2), (8, 16)])
@pytest.mark.parametrize("schedule", ["gpipe", "1f1b"])
def test_in_flight_matches_simulation(p, m, schedule):
    done, order = pipeline(p, m, schedule=schedule)
    for d in range(p):
        events = sorted((done[op], op[0] == "F") for op in order[d])   # a backward frees before a forward adds
        live = peak = 0
        for _, forward in events:
            live += 1 if forward else -1
            peak = max(peak, live)
        assert peak == P.pipeline_in_flight(p, m, schedule, d)


def test_bubble_limits():
    assert P.pipeline_bubble_fraction(1, 5) == 0
    assert P.pipeline_bubble_fraction(4, 6) > 0                      # 1F1B takes any m
    with pytest.raises(ValueError, match="multiple of stages"):
        P.pipeline_bubble_fraction(4, 6, 2)                           # interleaving needs m in groups of p
    assert P.pipeline_bubble_fraction(8, 10 ** 6) < 1e-5
    with pytest.raises(ValueError):
        P.pipeline_in_flight(4, 8, stage=4)
    with pytest.raises(KeyError):
        P.pipeline_in_flight(4, 8, "zb")


def test_all_to_all_by_hand():
    assert P.expert_all_to_all_B(10, 4, 2, 1) == 0                     # one GPU: nothing leaves
    assert P.expert_all_to_all_B(10, 4, 2, 4) == pytest.approx(10 * 2 * 4 * 2 * 0.75)
    with pytest.raises(ValueError):
        P.expert_all_to_all_B(10, 4, 0, 4)
