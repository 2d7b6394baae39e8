"""Pipeline and expert parallelism (chapter 7): the pipeline bubble of GPipe, 1F1B and interleaved
schedules, the microbatches a stage keeps in flight, and the all-to-all an expert-parallel layer sends.

Sources: Y. Huang et al., "GPipe", NeurIPS 2019 (all forwards, then all backwards: m microbatches in
flight); D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC 2021, §2.2 (the bubble (p - 1)/m of the ideal time; 1F1B, PipeDream-Flush, keeps at
most p microbatches in flight; the interleaved schedule with v model chunks per device divides the
bubble by v); D. Lepikhin et al., "GShard", 2020, and W. Fedus et al., "Switch Transformers", 2021
(tokens dispatched to experts and combined back by two all-to-alls per layer).
"""
from . import _check

SCHEDULES = ("gpipe", "1f1b")
ALL_TO_ALLS_PER_STEP = 4   # per expert-parallel layer: dispatch and combine, in the forward and the backward pass


@_check.finite
def pipeline_bubble_fraction(stages: int, microbatches: int, interleave: int = 1) -> float:
    """Share of a pipeline step the devices sit idle: (p - 1) / (v m + p - 1).

    Equation eq-pipeline-bubble in chapter 7. With p stages, m microbatches and v model chunks per
    device (v = 1: GPipe or 1F1B, which have the same bubble), the fill and the drain cost (p - 1)/v
    microbatch-times on every device, against m of work. Narayanan et al. (§2.2) write the same
    bubble relative to the ideal time, (p - 1)/(v m). The interleaved schedule (v > 1) runs the
    microbatches in groups of p, so m must be a multiple of p.

    >>> pipeline_bubble_fraction(4, 8), pipeline_bubble_fraction(4, 8, 2)
    (0.2727272727272727, 0.15789473684210525)
    """
    p = _check.count("stages", stages, "stages")
    m = _check.count("microbatches", microbatches, "microbatches")
    v = _check.count("interleave", interleave, "model chunks per device")
    if v > 1 and m % p:
        raise ValueError(f"microbatches ({m}) must be a multiple of stages ({p}) for the interleaved schedule "
                         f"(interleave = {v}): it runs the microbatches in groups of p, as Megatron-LM requires")
    return (p - 1) / (v * m + p - 1)


@_check.finite
def pipeline_in_flight(stages: int, microbatches: int, schedule: str = "1f1b", stage: int = 0) -> int:
    """Microbatches whose activations stage ``stage`` (0 = the first) holds at once.

    GPipe runs every forward before any backward, so each stage holds all m. 1F1B (PipeDream-Flush)
    runs p - i - 1 warm-up forwards on stage i, then alternates one forward with one backward, so it
    holds at most min(p - i, m): the first stage p, whatever m is. That is why 1F1B, with the same
    bubble, lets m grow.

    >>> pipeline_in_flight(4, 8, "gpipe"), pipeline_in_flight(4, 8), pipeline_in_flight(4, 8, stage=3)
    (8, 4, 1)
    """
    p = _check.count("stages", stages, "stages")
    m = _check.count("microbatches", microbatches, "microbatches")
    kind = _check.choice("schedule", schedule, SCHEDULES)
    i = _check.count("stage", stage, "", minimum=0)
    if i >= p:
        raise ValueError(f"stage must be below stages ({p}), got {i}")
    return m if kind == "gpipe" else min(p - i, m)


@_check.finite
def expert_all_to_all_B(tokens: int, hidden: int, top_k: int, expert_parallel: int,
                        bytes_per_value: float = 2) -> float:
    """Bytes one GPU sends in one all-to-all of an expert-parallel layer: T k h b (E - 1)/E.

    Equation eq-expert-all-to-all in chapter 7. Each of the GPU's T tokens goes to its k experts;
    with routing spread evenly over the E GPUs of the expert-parallel group, (E - 1)/E of the copies
    leave the GPU. A layer does two per forward pass (dispatch, then combine) and two per backward.

    >>> expert_all_to_all_B(4096, 4096, 2, 8) / 2**20      # 4096 x 2 x 4096 x 2 B x 7/8
    56.0
    """
    t = _check.count("tokens", tokens, "tokens")
    h = _check.count("hidden", hidden, "")
    k = _check.count("top_k", top_k, "experts")
    e = _check.count("expert_parallel", expert_parallel, "GPUs")
    b = _check.positive("bytes_per_value", bytes_per_value, "bytes")
    return float(t) * k * h * b * (e - 1) / e
