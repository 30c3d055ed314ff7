"""The HPA's replica calculator for CPU utilization: from pod usage to a proposed replica count.

Ported from upstream ``pkg/controller/podautoscaler/replica_calculator.go`` (GetResourceReplicas,
groupPods, calculatePodRequests) and ``metrics/utilization.go`` (GetResourceUtilizationRatio),
in our own words. Failed and terminating pods are left out; Pending pods and pods still
starting up (not ready, or ready for less than a metric window within the CPU initialization
period) are "unready"; a ratio within the tolerance keeps the current count; when some pods are unready or
without metrics, the proposal is recomputed assuming the worst for the direction of change,
and abandoned if that flips the direction.

Usage comes from the ``metrics`` component as a percent of each pod's CPU request; upstream's
metrics are absolute millicores, so the percent is turned back into millicores first.

Not here: the controller loop, stabilization and rate limits (``hpa.py``); memory and other
metric types.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ..controller_utils import POD_READY

if TYPE_CHECKING:
    from ...api.core import Pod

# kube-controller-manager defaults: --horizontal-pod-autoscaler-tolerance 0.1,
# --horizontal-pod-autoscaler-cpu-initialization-period 5 min,
# --horizontal-pod-autoscaler-initial-readiness-delay 30 s.
TOLERANCE = 0.1
CPU_INITIALIZATION_PERIOD = 300.0
INITIAL_READINESS_DELAY = 30.0
# metrics-server's default --metric-resolution: the window a CPU sample covers.
METRIC_WINDOW = 15.0


class MetricError(Exception):
    """Why no replica count could be computed (upstream's error text)."""


def resource_replicas(pods: Iterable[Any], usage_of: Callable[[Any], float | None],
                      current: int, target_pct: int, now: float) -> tuple[int, int, int]:
    """GetResourceReplicas: (proposed replicas, utilization %, average usage in millicores)."""
    pods = list(pods)
    usage: dict[str, float] = {}
    for p in pods:
        u = usage_of(p)
        if u is not None:
            usage[p.metadata.name] = u
    if not usage:
        raise MetricError("unable to get metrics for resource cpu: no metrics returned from "
                          "resource metrics API")
    if not pods:
        raise MetricError("no pods returned by selector while calculating replica count")
    ready_count, unready, missing = 0, [], []
    for p in pods:  # groupPods
        name = p.metadata.name
        if p.metadata.deletion_timestamp is not None or p.status.phase == "Failed":
            usage.pop(name, None)  # ignored
            continue
        if p.status.phase == "Pending":
            # A Pending pod is unready: left out of the ratio, then counted at 0 % of its
            # request on a scale-up — so pods that cannot be placed pull a scale-up down
            # instead of vanishing from the count.
            unready.append(name)
            usage.pop(name, None)
            continue
        if name not in usage:
            missing.append(name)
            continue
        if unready_for_cpu(p, now):
            unready.append(name)
            usage.pop(name, None)
            continue
        ready_count += 1
    if not usage:
        raise MetricError("did not receive metrics for targeted pods (pods might be unready)")
    requests: dict[str, int] = {}
    for p in pods:  # calculatePodRequests
        for c in p.spec.containers:
            if "cpu" not in c.resources.requests:
                raise MetricError(f"missing request for cpu in container {c.name} of Pod "
                                  f"{p.metadata.name}")
        requests[p.metadata.name] = p.spec.requests.get("cpu", 0)
    values = {n: usage[n] * requests[n] / 100.0 for n in usage}
    ratio, utilization, average = utilization_ratio(values, requests, target_pct)
    scale_up_with_unready = bool(unready) and ratio > 1.0
    if not scale_up_with_unready and not missing:
        if abs(1.0 - ratio) <= TOLERANCE:
            return current, utilization, average
        return math.ceil(ratio * ready_count), utilization, average
    for name in missing:
        # On a scale-down a pod without metrics counts at its full request (or at the target
        # when the target is above 100 %); on a scale-up, at zero.
        if ratio < 1.0:
            values[name] = requests[name] * max(100, target_pct) / 100.0
        elif ratio > 1.0:
            values[name] = 0.0
    if scale_up_with_unready:
        for name in unready:
            values[name] = 0.0
    new_ratio, _, _ = utilization_ratio(values, requests, target_pct)
    if abs(1.0 - new_ratio) <= TOLERANCE or ratio < 1.0 < new_ratio or new_ratio < 1.0 < ratio:
        return current, utilization, average
    proposal = math.ceil(new_ratio * len(values))
    if (new_ratio < 1.0 and proposal > current) or (new_ratio > 1.0 and proposal < current):
        return current, utilization, average
    return proposal, utilization, average


def utilization_ratio(values: dict[str, float], requests: dict[str, int],
                      target_pct: int) -> tuple[float, int, int]:
    """GetResourceUtilizationRatio: total usage over total requests as a whole percent, the
    ratio to the target, and the average usage."""
    used = total = 0.0
    entries = 0
    for name, v in values.items():
        if name in requests:
            used += v
            total += requests[name]
            entries += 1
    if total <= 0:
        raise MetricError("no metrics returned matched known pods")
    utilization = int(used * 100 // total)
    return utilization / target_pct, utilization, int(used // entries)


def unready_for_cpu(pod: Pod, now: float) -> bool:
    """groupPods' readiness rule for CPU: within the initialization period a pod counts once
    it is ready and a metric window has passed since; later, only a pod that has never been
    ready is left out."""
    cond = None
    for c in pod.status.conditions:
        if c.type == POD_READY:
            cond = c
            break
    start = pod.status.start_time
    if not isinstance(start, (int, float)):
        start = pod.metadata.creation_timestamp
    if cond is None or start is None:
        return True
    changed = cond.last_transition_time
    if not isinstance(changed, (int, float)):
        changed = start
    if start + CPU_INITIALIZATION_PERIOD > now:
        return cond.status == "False" or now < changed + METRIC_WINDOW
    return cond.status == "False" and start + INITIAL_READINESS_DELAY > changed
