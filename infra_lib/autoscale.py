"""Inference autoscaling: cold starts, replicas by Little's law, and a burst while replicas start.

A new replica of a model server is useful only once its container image is pulled, its weights
are in GPU memory and the engine has initialised. Each part is bytes over a bandwidth (or a
fixed time), so where the weights come from (object storage, a local NVMe disk, host memory)
decides whether a cold start takes seconds or minutes. The bandwidths the chapter uses are
teaching assumptions (registry entry ``cluster_teaching``), not measurements.

Replicas for a load follow from Little's law (Little 1961): requests in the system
L = lambda x W, so a request rate lambda with W seconds per request keeps L requests in flight,
and at ``slots`` concurrent requests per replica the fleet needs ceil(L / (slots x u)) replicas
at a target utilisation u.

Scaling down is deliberately slow. Kubernetes' HorizontalPodAutoscaler recomputes its desired
replicas every sync period and, scaling down, takes the largest recommendation of the last
stabilization window (:func:`hpa_stabilize`), so replicas a spike added stay until the last high
recommendation has left the window, held, idle, for about the window.
"""
import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from . import _check


@_check.finite
def load_time_s(size_B: float, bandwidth_Bps: float) -> float:
    """Seconds to move ``size_B`` bytes at ``bandwidth_Bps``: t = S / B.

    140 GB of weights at 1 GB/s: 140 s; at 25 GB/s from host memory: 5.6 s.

    >>> load_time_s(140e9, 1e9), load_time_s(140e9, 25e9)
    (140.0, 5.6)
    """
    return _check.non_negative("size_B", size_B, "bytes") / _check.positive("bandwidth_Bps", bandwidth_Bps, "bytes/s")


@dataclass(frozen=True)
class ColdStart:
    """A replica's cold start, in seconds: image pull, weight load, engine start, and their sum."""
    pull_s: float
    load_s: float
    init_s: float

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def total_s(self) -> float:
        return self.pull_s + self.load_s + self.init_s


@_check.finite
def cold_start(image_B: float, pull_Bps: float, weights_B: float, load_Bps: float, init_s: float = 0.0) -> ColdStart:
    """Cold start = image / pull bandwidth + weights / load bandwidth + engine start (in series).

    Equation eq-cold-start in chapter 8. A 10 GB image at 0.5 GB/s, 16 GB of weights at 1 GB/s
    and 30 s of engine start: 20 + 16 + 30 = 66 s.

    >>> cold_start(10e9, 0.5e9, 16e9, 1e9, 30).total_s
    66.0
    """
    return ColdStart(load_time_s(image_B, pull_Bps), load_time_s(weights_B, load_Bps),
                     _check.non_negative("init_s", init_s, "s"))


@_check.finite
def in_flight(rate_per_s: float, latency_s: float) -> float:
    """Little's law: requests in the system L = lambda x W.

    Equation eq-littles-law in chapter 3. 20 requests/s of 2 s each: 40 in flight.

    >>> in_flight(20, 2)
    40.0
    """
    return _check.non_negative("rate_per_s", rate_per_s, "requests/s") * _check.positive("latency_s", latency_s, "s")


@_check.finite
def replicas_needed(rate_per_s: float, latency_s: float, slots: int, utilization: float = 1.0) -> int:
    """Replicas for a rate: ceil(lambda x W / (slots x u)), at least one.

    Equation eq-replicas in chapter 8. 20 requests/s of 2 s, 16 concurrent requests a replica,
    at 80% target utilisation: 40 / 12.8 = 3.1, so 4 replicas.

    >>> replicas_needed(20, 2, 16, 0.8)
    4
    """
    per = _check.count("slots", slots, "concurrent requests per replica") * _check.fraction("utilization", utilization)
    return max(1, math.ceil(in_flight(rate_per_s, latency_s) / per - 1e-9))


@dataclass(frozen=True)
class BurstTrace:
    """A burst, sampled every ``dt_s``: offered rate, replicas ready, requests queued (waiting)."""
    dt_s: float
    time_s: tuple[float, ...]
    rate_per_s: tuple[float, ...]
    ready: tuple[int, ...]
    queued: tuple[float, ...]

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def peak_queued(self) -> float:
        return max(self.queued)

    @property
    def drained_s(self) -> float:
        """First time after the peak at which the queue is empty again (the end if never)."""
        i = self.queued.index(self.peak_queued)
        return next((t for t, q in zip(self.time_s[i:], self.queued[i:]) if q <= 1e-9), self.time_s[-1])


@_check.finite
def simulate_burst(base_rate_per_s: float, burst_rate_per_s: float, latency_s: float, slots: int,
                   cold_start_s: float, burst_at_s: float = 60.0, duration_s: float = 600.0, dt_s: float = 1.0,
                   utilization: float = 0.8) -> BurstTrace:
    """A step in load while new replicas start: a discrete-time fluid model.

    The fleet starts with replicas_needed(base) replicas. From ``burst_at_s`` the offered rate is
    ``burst_rate_per_s``. Each step of ``dt_s``: the autoscaler sees the current rate and starts
    the replicas it lacks, which become ready ``cold_start_s`` later; a ready replica completes
    slots / latency_s requests per second; arrivals beyond what the ready replicas complete wait
    in a queue, which the spare capacity drains later.

    Base 10/s, burst 30/s, 2 s a request, 16 slots, 80%: 2 replicas serve up to 16/s; the 14/s
    excess queues for the 60 s cold start (840 requests) before 3 more replicas arrive.

    >>> b = simulate_burst(10, 30, 2, 16, 60)
    >>> b.ready[0], b.ready[-1], round(b.peak_queued)
    (2, 5, 840)
    """
    base = _check.non_negative("base_rate_per_s", base_rate_per_s, "requests/s")
    burst = _check.non_negative("burst_rate_per_s", burst_rate_per_s, "requests/s")
    w = _check.positive("latency_s", latency_s, "s")
    k = _check.count("slots", slots, "concurrent requests per replica")
    cold = _check.non_negative("cold_start_s", cold_start_s, "s")
    at = _check.non_negative("burst_at_s", burst_at_s, "s")
    end = _check.positive("duration_s", duration_s, "s")
    dt = _check.positive("dt_s", dt_s, "s")
    u = _check.fraction("utilization", utilization)
    steps = math.ceil(end / dt - 1e-9)
    if steps > 100_000:
        raise ValueError(f"duration_s / dt_s must be at most 100000 steps, got {steps}")
    ready = replicas_needed(base, w, k, u)
    pending: deque[list[float]] = deque()     # [time ready, replicas], in order of time
    starting = 0                              # replicas started and not yet ready
    q = 0.0
    times: list[float] = []
    rates: list[float] = []
    readies: list[int] = []
    queue: list[float] = []
    for i in range(steps + 1):
        t = i * dt
        rate = burst if t >= at else base
        while pending and pending[0][0] <= t + 1e-9:
            n = int(pending.popleft()[1])
            ready, starting = ready + n, starting - n
        lacking = replicas_needed(rate, w, k, u) - ready - starting
        if lacking > 0:
            if cold == 0:
                ready += lacking
            else:
                pending.append([t + cold, lacking])
                starting += lacking
        served = ready * k / w
        q = max(0.0, q + (rate - served) * dt) if i else 0.0
        times.append(t)
        rates.append(rate)
        readies.append(ready)
        queue.append(q)
    return BurstTrace(dt, tuple(times), tuple(rates), tuple(readies), tuple(queue))


@dataclass(frozen=True)
class ScaleDown:
    """Replicas an HPA sets at each sync, against the replicas the load needs then."""
    sync_period_s: float
    desired: tuple[int, ...]     # the recommendation at each sync (what the load needs)
    replicas: tuple[int, ...]    # what the HPA sets, after stabilization

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def idle_replica_s(self) -> float:
        """Replica-seconds held beyond the need: each sync's excess, held until the next sync."""
        return sum(max(0, r - d) for r, d in zip(self.replicas, self.desired)) * self.sync_period_s

    @_check.finite
    def idle_gpu_h(self, gpus_per_replica: int) -> float:
        """GPU-hours held beyond the need, at ``gpus_per_replica`` GPUs a replica."""
        return self.idle_replica_s * _check.count("gpus_per_replica", gpus_per_replica, "GPUs") / 3600


@_check.finite
def hpa_stabilize(desired: Sequence[int], sync_period_s: float, window_s: float) -> ScaleDown:
    """The HorizontalPodAutoscaler's scale-down stabilization, one sync at a time.

    At sync i (time i x p) the HPA records the recommendation d_i and sets the largest
    recommendation recorded in the last ``window_s``, those at times after t_i - w (Kubernetes,
    "Horizontal Pod Autoscaling", stabilization window; the controller keeps recommendations
    whose time is after now - w). Rising needs are met at once (scale-up has no window by
    default); its rate policies and the metrics' own delay are left out. After a spike the extra
    replicas leave w after the last high recommendation: with w a multiple of p, they are held
    w/p - 1 syncs beyond the need, (w - p) per replica.

    Needs 2, 5, 5, then 2, a sync every 15 s and a 60 s window: the last 5 is recorded at 30 s
    and the 5 replicas stay until the sync at 90 s, so 3 replicas idle for three syncs, 45 s
    (w - p) each: 135 replica-seconds.

    >>> s = hpa_stabilize([2, 5, 5, 2, 2, 2, 2, 2], 15, 60)
    >>> s.replicas, s.idle_replica_s
    ((2, 5, 5, 5, 5, 5, 2, 2), 135.0)
    """
    p = _check.positive("sync_period_s", sync_period_s, "s")
    w = _check.non_negative("window_s", window_s, "s")
    if isinstance(desired, (str, bytes)) or not isinstance(desired, Sequence) or not desired:
        raise TypeError(f"desired: expected a non-empty sequence of replica counts, got {desired!r}")
    if len(desired) > 100_000:
        raise ValueError(f"desired must hold at most 100000 syncs, got {len(desired)}")
    d = tuple(_check.count(f"desired[{i}]", x, "replicas", minimum=0) for i, x in enumerate(desired))
    keep = max(1, math.ceil(w / p - 1e-9))  # syncs j with t_j > t_i - w: i - j < w / p (and i itself)
    out = tuple(max(d[max(0, i - keep + 1):i + 1]) for i in range(len(d)))
    return ScaleDown(p, d, out)
