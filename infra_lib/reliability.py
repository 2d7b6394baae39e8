"""Failures at scale: job MTBF against the number of GPUs, the checkpoint interval, goodput.

A synchronous training job stops when any one of its parts fails: one GPU, one NIC, one cable.
With N parts failing independently at a constant rate (exponential times between failures), the
job's failure rate is the sum of theirs, so its mean time between failures is the part's divided
by N (:func:`job_mtbf_s`). The Llama 3 405B run saw 419 unexpected interruptions in a 54-day
snapshot on 16,384 H100s (Dubey et al. 2024, §3.3.4): one every 3.1 hours.

A job that checkpoints every tau seconds of work, each checkpoint blocking it for delta seconds,
loses on each failure the work since its last checkpoint and a restart of R seconds. Young (1974)
minimised the first-order waste delta/tau + tau/(2M) and found tau = sqrt(2 delta M)
(:func:`young_interval_s`). Daly (2006, "A higher order estimate of the optimum checkpoint
interval for restart dumps", Future Generation Computer Systems 22(3)) wrote the expected wall
time of the whole run exactly for exponential failures (failures may strike during checkpoints and
restarts too) and gave a higher-order optimum (:func:`daly_interval_s`). :func:`goodput` is the
share of wall time that is useful work in that model: checkpoint writes, lost work and restarts
are the rest.
"""
import math

from . import _check

MINUTE_S, HOUR_S, DAY_S = 60.0, 3600.0, 86400.0
YEAR_S = 365.25 * DAY_S   # a Julian year, for MTBFs quoted in years


@_check.finite
def job_mtbf_s(part_mtbf_s: float, parts: int) -> float:
    """Mean time between failures of a job that stops when any of ``parts`` independent parts fails.

    Failure rates add: 1/M_job = N / M_part, so M_job = M_part / N. A GPU (with its share of the
    node and network) failing once in 5 years gives a 16,384-GPU job one failure every 2.7 hours.

    >>> round(job_mtbf_s(5 * 365 * 86400, 16384) / 3600, 2)
    2.67
    """
    m = _check.positive("part_mtbf_s", part_mtbf_s, "s")
    return m / _check.count("parts", parts, "parts")


@_check.finite
def part_mtbf_s(job_mtbf_s: float, parts: int) -> float:
    """The per-part MTBF implied by a job's observed MTBF over ``parts`` parts: M_part = N x M_job.

    The inverse of :func:`job_mtbf_s`. Llama 3's 3.09 hours between unexpected interruptions on
    16,384 GPUs is one failure per GPU every 5.8 years.

    >>> round(part_mtbf_s(3.09 * 3600, 16384) / (365 * 86400), 1)
    5.8
    """
    m = _check.positive("job_mtbf_s", job_mtbf_s, "s")
    return m * _check.count("parts", parts, "parts")


def _interval_inputs(checkpoint_s: float, mtbf_s: float) -> tuple[float, float]:
    return _check.positive("checkpoint_s", checkpoint_s, "s"), _check.positive("mtbf_s", mtbf_s, "s")


@_check.finite
def young_waste(interval_s: float, checkpoint_s: float, mtbf_s: float) -> float:
    """Young's first-order share of time lost: delta/tau for checkpoints, tau/(2M) for the work lost
    at a failure (on average half an interval). Its minimum over tau is at :func:`young_interval_s`.

    >>> round(young_waste(1200, 60, 12000), 3)       # 60/1200 + 1200/24000
    0.1
    """
    tau = _check.positive("interval_s", interval_s, "s")
    delta, m = _interval_inputs(checkpoint_s, mtbf_s)
    return delta / tau + tau / (2 * m)


@_check.finite
def young_interval_s(checkpoint_s: float, mtbf_s: float) -> float:
    """Young's optimum checkpoint interval (work between checkpoints): tau = sqrt(2 delta M).
    Equation eq-young in chapter 8.

    J. W. Young, "A first order approximation to the optimum checkpoint interval", Communications
    of the ACM 17(9), 1974. A 60 s checkpoint and a 3-hour MTBF: sqrt(2 x 60 x 10,800) = 1,138 s.

    >>> round(young_interval_s(60, 3 * 3600))
    1138
    """
    delta, m = _interval_inputs(checkpoint_s, mtbf_s)
    return math.sqrt(2 * delta * m)


@_check.finite
def daly_interval_s(checkpoint_s: float, mtbf_s: float) -> float:
    """Daly's higher-order optimum checkpoint interval (Daly 2006). Equation eq-daly in chapter 8.

    tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta / 2M) + (1/9) (delta / 2M)] - delta for delta < 2M,
    and tau = M otherwise. It approximates the minimum of :func:`wall_time_s`; for delta << M it
    tends to Young's sqrt(2 delta M) - delta.

    >>> round(daly_interval_s(60, 3 * 3600))
    1099
    >>> daly_interval_s(3000, 1000)          # checkpoints longer than twice the MTBF: checkpoint every M
    1000.0
    """
    delta, m = _interval_inputs(checkpoint_s, mtbf_s)
    if delta >= 2 * m:
        return m
    x = delta / (2 * m)
    return math.sqrt(2 * delta * m) * (1 + math.sqrt(x) / 3 + x / 9) - delta


@_check.finite
def wall_time_s(work_s: float, interval_s: float, checkpoint_s: float, restart_s: float, mtbf_s: float) -> float:
    """Expected wall time of ``work_s`` of work checkpointed every ``interval_s`` (Daly 2006).

    T = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau, for exponential failures of mean M that may
    strike at any time, during checkpoints and restarts too. With no failures (M -> infinity) it is
    T_s (tau + delta) / tau: the checkpoints alone.

    >>> round(wall_time_s(3600, 1200, 60, 600, 1e12))        # no failures: 3 checkpoints of 60 s
    3780
    """
    ts = _check.non_negative("work_s", work_s, "s")
    tau = _check.positive("interval_s", interval_s, "s")
    delta, m = _interval_inputs(checkpoint_s, mtbf_s)
    r = _check.non_negative("restart_s", restart_s, "s")
    if (tau + delta) / m > 700 or r / m > 700:
        raise ValueError(f"interval_s + checkpoint_s and restart_s must be below 700 x mtbf_s "
                         f"(the job would never finish), got {tau + delta:g} s and {r:g} s for mtbf_s={m:g} s")
    return m * math.exp(r / m) * math.expm1((tau + delta) / m) * ts / tau


@_check.finite
def goodput(interval_s: float, checkpoint_s: float, restart_s: float, mtbf_s: float) -> float:
    """Share of wall time spent on useful work: T_s / T in :func:`wall_time_s`. Equation eq-goodput in chapter 8.

    What is left goes to checkpoint writes, work lost at failures and restarts. Every 1,200 s of
    work, a 60 s checkpoint, a 600 s restart, one failure in 3 hours: 85 % goodput.

    >>> round(goodput(1200, 60, 600, 3 * 3600), 3)
    0.849
    """
    return 1.0 / wall_time_s(1.0, interval_s, checkpoint_s, restart_s, mtbf_s)
