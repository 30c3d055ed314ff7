"""The VPA recommender's model: decaying usage histograms and the percentile estimators.

Ported in our own words from ``vertical-pod-autoscaler/pkg/recommender``:

* ``util/histogram.go`` and ``histogram_options.go`` — exponential buckets (the first one 10m
  CPU or 10 MB memory wide, each next one 5 % wider); ``Percentile(p)`` returns the *end* of
  the bucket where the cumulative weight reaches ``p`` of the total; ``util/decaying_histogram.go``
  — a sample's weight doubles every half-life (24 h) of its timestamp, so older samples count
  less;
* ``model/aggregate_container_state.go`` — per container name, across the VPA's pods: CPU
  samples weighted by the container's CPU request (at least 0.1 core), memory as the peak of
  each container per 24 h aggregation window; the first/last sample time and the sample count
  that ``getConfidence`` reads;
* ``logic/recommender.go`` and ``estimator.go`` — target = 90th percentile, lowerBound = 50th,
  upperBound = 95th, each plus a 15 % safety margin; the upper bound multiplied by
  ``(1 + 1/confidence)`` and the lower bound by ``(1 + 0.001/confidence)^-2`` where confidence is
  the history length in days (capped by samples / 1440); at least 25m CPU and 250Mi memory per
  pod, split over its containers;
* ``pkg/utils/vpa/capping.go`` — the container policy's ``minAllowed`` / ``maxAllowed`` and
  ``controlledResources``; ``mode: Off`` containers get no recommendation.

Amounts follow upstream's ResourceAmount: integer millicores and bytes, truncated at each step,
capped at 1e14 (``MaxResourceAmount``). Not here: checkpoints, OOM bumps, the
``--humanize-memory`` and CPU rounding options (both off by default upstream).
"""

from __future__ import annotations

import math
from typing import Any

from ...api.codec import FrozenDict
from ...api.quantity import Quantity

# recommender/logic/recommender.go flag defaults.
SAFETY_MARGIN_FRACTION = 0.15            # --recommendation-margin-fraction
POD_MIN_CPU_MILLICORES = 25.0            # --pod-recommendation-min-cpu-millicores
POD_MIN_MEMORY_MB = 250.0                # --pod-recommendation-min-memory-mb (MiB)
TARGET_CPU_PERCENTILE = 0.9              # --target-cpu-percentile
LOWER_BOUND_CPU_PERCENTILE = 0.5
UPPER_BOUND_CPU_PERCENTILE = 0.95
TARGET_MEMORY_PERCENTILE = 0.9
LOWER_BOUND_MEMORY_PERCENTILE = 0.5
UPPER_BOUND_MEMORY_PERCENTILE = 0.95
# model/aggregations_config.go defaults.
MEMORY_AGGREGATION_INTERVAL = 24 * 3600.0
CPU_HISTOGRAM_DECAY_HALF_LIFE = 24 * 3600.0
MEMORY_HISTOGRAM_DECAY_HALF_LIFE = 24 * 3600.0
HISTOGRAM_BUCKET_SIZE_GROWTH = 0.05
# model/aggregate_container_state.go.
MIN_SAMPLE_WEIGHT = 0.1
EPSILON = 0.001 * MIN_SAMPLE_WEIGHT
# model/types.go: MaxResourceAmount.
MAX_RESOURCE_AMOUNT = 10 ** 14


def _amount(x: float) -> int:
    """resourceAmountFromFloat: truncated, never negative, at most MaxResourceAmount."""
    if x != x or x < 0:
        return 0
    if x > MAX_RESOURCE_AMOUNT:
        return MAX_RESOURCE_AMOUNT
    return int(x)


def _scale(amount: int, factor: float) -> int:
    return _amount(amount * factor)


class Histogram:
    """An exponential-bucket histogram whose sample weights decay with a half-life."""

    __slots__ = ("first", "ratio", "num_buckets", "weights", "total", "half_life")

    def __init__(self, max_value: float, first_bucket: float, half_life: float) -> None:
        self.first = first_bucket
        self.ratio = 1.0 + HISTOGRAM_BUCKET_SIZE_GROWTH
        self.num_buckets = int(math.ceil(math.log(max_value * (self.ratio - 1) / first_bucket
                                                  + 1, self.ratio))) + 1
        self.weights: dict[int, float] = {}
        self.total = 0.0
        self.half_life = half_life

    def find_bucket(self, value: float) -> int:
        if value < self.first:
            return 0
        b = int(math.log(value * (self.ratio - 1) / self.first + 1, self.ratio))
        return min(b, self.num_buckets - 1)

    def bucket_start(self, b: int) -> float:
        if b == 0:
            return 0.0
        return self.first * (self.ratio ** b - 1) / (self.ratio - 1)

    def _decay(self, t: float) -> float:
        return 2.0 ** (t / self.half_life)

    def add(self, value: float, weight: float, t: float) -> None:
        w = weight * self._decay(t)
        b = self.find_bucket(value)
        self.weights[b] = self.weights.get(b, 0.0) + w
        self.total += w

    def subtract(self, value: float, weight: float, t: float) -> None:
        w = weight * self._decay(t)
        b = self.find_bucket(value)
        have = self.weights.get(b, 0.0)
        if w > have - EPSILON:
            w = have
        self.total -= w
        left = have - w
        if left > 0:
            self.weights[b] = left
        else:
            self.weights.pop(b, None)

    def is_empty(self) -> bool:
        return not any(w >= EPSILON for w in self.weights.values())

    def percentile(self, p: float) -> float:
        """The end of the bucket where the cumulative weight first reaches ``p`` × total."""
        buckets = sorted(b for b, w in self.weights.items() if w >= EPSILON)
        if not buckets:
            return 0.0
        threshold = p * self.total
        partial = 0.0
        chosen = buckets[-1]
        lo, hi = buckets[0], buckets[-1]
        for b in range(lo, hi):
            partial += self.weights.get(b, 0.0)
            if partial >= threshold:
                chosen = b
                break
        if chosen < self.num_buckets - 1:
            return self.bucket_start(chosen + 1)
        return self.bucket_start(chosen)


def cpu_histogram() -> Histogram:
    # aggregations_config.go: CPU buckets from 0.01 core up to 1000 cores.
    return Histogram(1000.0, 0.01, CPU_HISTOGRAM_DECAY_HALF_LIFE)


def memory_histogram() -> Histogram:
    # aggregations_config.go: memory buckets from 10 MB up to 1 TB.
    return Histogram(1e12, 1e7, MEMORY_HISTOGRAM_DECAY_HALF_LIFE)


class AggregateContainerState:
    """One container name's history across a VPA's pods."""

    def __init__(self) -> None:
        self.cpu = cpu_histogram()
        self.memory_peaks = memory_histogram()
        self.first_sample_start: float | None = None
        self.last_sample_start: float | None = None
        self.total_samples_count = 0
        # Per container instance (pod uid, container): (window end, peak bytes, last sample).
        self._windows: dict[tuple[str, str], list[float]] = {}

    def add_cpu_sample(self, cores: float, request_cores: float, t: float) -> None:
        self.cpu.add(cores, max(request_cores, MIN_SAMPLE_WEIGHT), t)
        if self.last_sample_start is None or t > self.last_sample_start:
            self.last_sample_start = t
        if self.first_sample_start is None or t < self.first_sample_start:
            self.first_sample_start = t
        self.total_samples_count += 1

    def add_memory_sample(self, instance: tuple[str, str], used: float, t: float) -> None:
        """ContainerState.addMemorySample: one peak per container per aggregation window."""
        w = self._windows.get(instance)
        if w is None:
            w = self._windows[instance] = [t, 0.0, t]
        if t < w[2]:
            return
        w[2] = t
        if t < w[0]:
            if w[1] != 0 and used > w[1]:
                self.memory_peaks.subtract(w[1], 1.0, w[0])
                self.memory_peaks.add(used, 1.0, w[0])
                w[1] = used
            return
        shift = (t - w[0]) // MEMORY_AGGREGATION_INTERVAL * MEMORY_AGGREGATION_INTERVAL \
            + MEMORY_AGGREGATION_INTERVAL
        w[0] += shift
        w[1] = used
        self.memory_peaks.add(used, 1.0, w[0])

    def confidence(self) -> float:
        """getConfidence: history length in days, no more than samples / (60 × 24)."""
        if self.first_sample_start is None:
            return 0.0
        lifespan = (self.last_sample_start - self.first_sample_start) / 86400.0
        samples = self.total_samples_count / (60 * 24)
        return min(lifespan, samples)


def _confidence_factor(confidence: float, multiplier: float, exponent: float) -> float:
    if confidence == math.inf:
        return 1.0
    if confidence <= 0:
        base = math.inf
    else:
        base = 1.0 + multiplier / confidence
    try:
        return base ** exponent
    except OverflowError:
        return math.inf


def _with_margin(amount: int) -> int:
    return amount + _scale(amount, SAFETY_MARGIN_FRACTION)


def estimate(state: AggregateContainerState, containers_per_pod: int,
             confidence: float | None = None) -> dict[str, dict[str, int]]:
    """target / lowerBound / upperBound for one container: millicores and bytes (the bounds
    for a given ``confidence`` instead of the history's own: ``math.inf`` gives the limits
    they tend to)."""
    fraction = 1.0 / max(1, containers_per_pod)
    min_cpu = _scale(_amount(POD_MIN_CPU_MILLICORES), fraction)
    min_mem = _scale(_amount(POD_MIN_MEMORY_MB * 1024 * 1024), fraction)
    conf = state.confidence() if confidence is None else confidence

    def cpu(p: float) -> int:
        return _with_margin(_amount(state.cpu.percentile(p) * 1000.0))

    def mem(p: float) -> int:
        return _with_margin(_amount(state.memory_peaks.percentile(p)))

    upper = _confidence_factor(conf, 1.0, 1.0)
    lower = _confidence_factor(conf, 0.001, -2.0)
    return {
        "target": {"cpu": max(cpu(TARGET_CPU_PERCENTILE), min_cpu),
                   "memory": max(mem(TARGET_MEMORY_PERCENTILE), min_mem)},
        "lowerBound": {"cpu": max(_scale(cpu(LOWER_BOUND_CPU_PERCENTILE), lower), min_cpu),
                       "memory": max(_scale(mem(LOWER_BOUND_MEMORY_PERCENTILE), lower), min_mem)},
        "upperBound": {"cpu": max(_scale(cpu(UPPER_BOUND_CPU_PERCENTILE), upper), min_cpu),
                       "memory": max(_scale(mem(UPPER_BOUND_MEMORY_PERCENTILE), upper), min_mem)},
    }


def crossing_confidence(have: int, lower_limit: int, upper_limit: int) -> float | None:
    """The confidence at which a request of ``have`` leaves the bounds as they narrow towards
    ``lower_limit`` / ``upper_limit`` (lower × (1 + 0.001/c)^-2, upper × (1 + 1/c)); None if
    it never does."""
    if have <= 0:
        return 0.0
    if have < lower_limit:
        return 0.001 / ((lower_limit / have) ** 0.5 - 1)
    if have > upper_limit > 0:
        return 1.0 / (have / upper_limit - 1)
    return None


def as_resource_list(amounts: dict[str, int], resources: tuple[str, ...]) -> FrozenDict:
    """ResourcesAsResourceList: CPU as a milli quantity, memory as bytes (DecimalSI)."""
    out = {}
    for name in resources:
        if name not in amounts:
            continue
        if name == "cpu":
            out[name] = Quantity.from_scaled(amounts[name], -3)
        else:
            out[name] = Quantity.from_scaled(amounts[name], 0)
    return FrozenDict(out)


def cap(value: int, name: str, policy: Any) -> int:
    """capping.go: keep a recommended amount within the policy's minAllowed / maxAllowed."""
    if policy is None:
        return value
    lo = policy.min_allowed.get(name)
    hi = policy.max_allowed.get(name)
    if lo is not None:
        value = max(value, lo.milli_value() if name == "cpu" else lo.value())
    if hi is not None:
        value = min(value, hi.milli_value() if name == "cpu" else hi.value())
    return value
