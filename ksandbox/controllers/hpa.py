"""The HorizontalPodAutoscaler controller: CPU-utilization autoscaling of Deployments,
ReplicaSets and ReplicationControllers.

Every 15 s each autoscaler reads its target's scale and the CPU usage of the target's pods
(from the ``metrics`` component), proposes ``ceil(ready pods × utilization / target)`` unless
the ratio is within the 10 % tolerance, clamps to [minReplicas, maxReplicas] and to the scale-up
rate, holds scale-downs for the 5-minute stabilization window, and writes the new
``spec.replicas`` to the target (event ``SuccessfulRescale``). Pods without a CPU request make
the metric unusable: the status shows no utilization (``<unknown>``) and nothing is scaled.

Ported from upstream ``pkg/controller/podautoscaler/horizontal.go`` (reconcileAutoscaler,
normalizeDesiredReplicas[WithBehaviors], stabilizeRecommendation[WithBehaviors],
convertDesiredReplicasWithBehaviorRate, calculateScaleUp/DownLimit[WithScalingRules]) and
``replica_calculator.go`` (GetResourceReplicas, groupPods, calculatePodRequests), plus
``metrics/utilization.go`` (GetResourceUtilizationRatio) — in our own words. An HPA without
``behavior`` follows upstream's plain path (scale-up limit max(2 × current, 4), down-scale
stabilization); with ``behavior``, the policies, periods and windows it gives, defaulted as
upstream's GenerateHPAScaleUp/DownRules.

Not here: memory, pods, object and external metrics (only CPU utilization is simulated); the
HPA's conditions (AbleToScale, ScalingActive, ScalingLimited), not modelled by the API types.
"""

from __future__ import annotations

import math
from typing import Any

import attrs

from ..api.errors import KsandboxError
from ..api.kinds import BY_KIND
from ..api.selectors import LabelSelector
from ..apiserver.store import DELETED, WatchEvent
from ..sim.clock import PRIORITY_CONTROLLER
from .controller_utils import POD_READY

COMPONENT = "horizontal-pod-autoscaler"
# kube-controller-manager defaults: --horizontal-pod-autoscaler-sync-period 15 s,
# --horizontal-pod-autoscaler-tolerance 0.1, --horizontal-pod-autoscaler-downscale-
# stabilization 5 min, --horizontal-pod-autoscaler-cpu-initialization-period 5 min,
# --horizontal-pod-autoscaler-initial-readiness-delay 30 s.
SYNC_PERIOD = 15.0
TOLERANCE = 0.1
DOWNSCALE_STABILIZATION = 300.0
CPU_INITIALIZATION_PERIOD = 300.0
INITIAL_READINESS_DELAY = 30.0
# metrics-server's default --metric-resolution: the window a CPU sample covers.
METRIC_WINDOW = 15.0
# horizontal.go: scaleUpLimitFactor and scaleUpLimitMinimum (the plain path's rate limit).
SCALE_UP_LIMIT_FACTOR = 2.0
SCALE_UP_LIMIT_MINIMUM = 4
# pkg/apis/autoscaling: DefaultCPUUtilization, the target when an HPA names no metric.
DEFAULT_CPU_UTILIZATION = 80
CPU_METRIC_NAME = "cpu resource utilization (percentage of request)"
# pkg/apis/autoscaling/v2/defaults.go: GenerateHPAScaleUpRules / GenerateHPAScaleDownRules.
DEFAULT_SCALE_UP = {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                    "policies": ({"type": "Pods", "value": 4, "periodSeconds": 15},
                                 {"type": "Percent", "value": 100, "periodSeconds": 15})}
DEFAULT_SCALE_DOWN = {"stabilizationWindowSeconds": None, "selectPolicy": "Max",
                      "policies": ({"type": "Percent", "value": 100, "periodSeconds": 15},)}


class MetricError(Exception):
    """Why no replica count could be computed from the metric (upstream's error text)."""


def _rules(behavior: Any, direction: str) -> dict:
    defaults = DEFAULT_SCALE_UP if direction == "scaleUp" else DEFAULT_SCALE_DOWN
    given = (behavior or {}).get(direction) or {}
    rules = {k: given.get(k) if given.get(k) is not None else v for k, v in defaults.items()}
    if rules["stabilizationWindowSeconds"] is None:
        rules["stabilizationWindowSeconds"] = DOWNSCALE_STABILIZATION
    return rules


def _change_in_period(events: list[tuple[float, int]], period: float, now: float) -> int:
    """getReplicasChangePerPeriod: replicas added (or removed) within the last period."""
    return sum(n for t, n in events if t > now - period)


def scale_up_limit(current: int, ups: list, downs: list, rules: dict, now: float) -> int:
    """calculateScaleUpLimitWithScalingRules: the most replicas the policies allow now."""
    select = rules["selectPolicy"]
    if select == "Disabled":
        return current
    pick, result = (min, math.inf) if select == "Min" else (max, -math.inf)
    for p in rules["policies"]:
        period = float(p.get("periodSeconds", 15))
        start = current - _change_in_period(ups, period, now) + _change_in_period(downs, period,
                                                                                  now)
        if p.get("type") == "Pods":
            proposed = start + int(p.get("value", 0))
        else:
            proposed = math.ceil(start * (1 + int(p.get("value", 0)) / 100))
        result = pick(result, proposed)
    return int(result) if result not in (math.inf, -math.inf) else current


def scale_down_limit(current: int, ups: list, downs: list, rules: dict, now: float) -> int:
    """calculateScaleDownLimitWithBehaviors: the fewest replicas the policies allow now."""
    select = rules["selectPolicy"]
    if select == "Disabled":
        return current
    pick, result = (max, -math.inf) if select == "Min" else (min, math.inf)
    for p in rules["policies"]:
        period = float(p.get("periodSeconds", 15))
        start = current - _change_in_period(ups, period, now) + _change_in_period(downs, period,
                                                                                  now)
        if p.get("type") == "Pods":
            proposed = start - int(p.get("value", 0))
        else:
            proposed = int(start * (1 - int(p.get("value", 0)) / 100))
        result = pick(result, proposed)
    return int(result) if result not in (math.inf, -math.inf) else current


class _State:
    """What upstream keeps per autoscaler in memory: recent recommendations, scale events."""

    __slots__ = ("recommendations", "ups", "downs", "timer", "busy_until")

    def __init__(self) -> None:
        self.recommendations: list[tuple[float, int]] = []
        self.ups: list[tuple[float, int]] = []
        self.downs: list[tuple[float, int]] = []
        self.timer: Any = None
        self.busy_until: float | None = None


class HorizontalPodAutoscalerController:
    name = "hpa"

    def start(self, cp: Any) -> None:
        self.cp = cp
        self.store = cp.store
        self.clock = cp.clock
        self._states: dict[tuple[str, str], _State] = {}
        self.store.subscribe("HorizontalPodAutoscaler", self._hpa_event)

    def busy_until(self) -> float | None:
        """While a scale-down waits out its stabilization window (or a scale-up its rate
        limit), a headless run must keep going until the autoscaler can act."""
        times = [s.busy_until for s in self._states.values() if s.busy_until is not None]
        return max(times) if times else None

    # -- scheduling ----------------------------------------------------------------------------
    def _hpa_event(self, ev: WatchEvent) -> None:
        hpa = ev.obj
        key = (hpa.metadata.namespace, hpa.metadata.name)
        if ev.type == DELETED:
            state = self._states.pop(key, None)
            if state is not None and state.timer is not None:
                state.timer.cancel()
            return
        if ev.old is not None and ev.old.spec is hpa.spec:
            return  # our own status write
        state = self._states.setdefault(key, _State())
        if state.timer is not None:
            state.timer.cancel()
        state.timer = self.clock.call_soon(lambda: self._tick(key), PRIORITY_CONTROLLER,
                                           f"hpa {key}")

    def _tick(self, key: tuple[str, str]) -> None:
        state = self._states.get(key)
        hpa = self.store.get("HorizontalPodAutoscaler", key[1], key[0])
        if state is None or hpa is None:
            return
        self.reconcile(hpa, state)
        state.timer = self.clock.call_later(SYNC_PERIOD, lambda: self._tick(key),
                                            PRIORITY_CONTROLLER, f"hpa {key}", background=True)

    # -- reconcileAutoscaler -------------------------------------------------------------------
    def reconcile(self, hpa: Any, state: _State) -> None:
        now = self.clock.now
        ref = hpa.spec.scale_target_ref
        info = BY_KIND.get(ref.kind)
        target = self.store.get(ref.kind, ref.name, hpa.metadata.namespace) \
            if info is not None and ref.kind in ("Deployment", "ReplicaSet",
                                                 "ReplicationController") else None
        if target is None:
            what = f'{info.display_resource} "{ref.name}" not found' if info else \
                f'no matches for kind "{ref.kind}"'
            self._event(hpa, "Warning", "FailedGetScale",
                        f"the HPA controller was unable to get the target's current scale: {what}")
            return
        current = target.spec.replicas if target.spec.replicas is not None else 1
        lo, hi = hpa.spec.min_replicas or 1, hpa.spec.max_replicas
        utilization: int | None = None
        reason = ""
        state.busy_until = None
        if current == 0 and lo != 0:
            desired = 0  # scaling is disabled while the target is scaled to zero
        elif current > hi:
            desired, reason = hi, "Current number of replicas above Spec.MaxReplicas"
        elif current < lo:
            desired, reason = lo, "Current number of replicas below Spec.MinReplicas"
        else:
            try:
                proposal, utilization = self._cpu_proposal(hpa, target, current)
            except MetricError as err:
                self._event(hpa, "Warning", "FailedGetResourceMetric", str(err))
                self._event(hpa, "Warning", "FailedComputeMetricsReplicas",
                            f"invalid metrics (1 invalid out of 1), first error is: failed to "
                            f"get cpu resource metric value: {err}")
                self._set_status(hpa, current, hpa.status.desired_replicas, None, False)
                return
            if proposal > current:
                reason = f"{CPU_METRIC_NAME} above target"
            elif proposal < current:
                reason = "All metrics below target"
            if hpa.spec.behavior is None:
                desired = self._normalize(state, current, proposal, lo, hi, now)
            else:
                desired = self._normalize_with_behavior(hpa, state, current, proposal, lo, hi,
                                                        now)
        rescale = desired != current
        if rescale:
            try:
                self.store.update(attrs.evolve(target, spec=attrs.evolve(target.spec,
                                                                         replicas=desired)))
            except KsandboxError as err:
                self._event(hpa, "Warning", "FailedRescale",
                            f"New size: {desired}; reason: {reason}; error: {err}")
                return
            self._event(hpa, "Normal", "SuccessfulRescale",
                        f"New size: {desired}; reason: {reason}")
            if hpa.spec.behavior is not None:
                events = state.ups if desired > current else state.downs
                events.append((now, abs(desired - current)))
                horizon = now - 3600.0
                state.ups = [e for e in state.ups if e[0] > horizon]
                state.downs = [e for e in state.downs if e[0] > horizon]
        self._set_status(hpa, current, desired, utilization, rescale)

    def _cpu_proposal(self, hpa: Any, target: Any, current: int) -> tuple[int, int]:
        """computeStatusForResourceMetric → GetResourceReplicas for cpu utilization."""
        target_pct = hpa.cpu_target_percent()
        if target_pct is None:
            if hpa.spec.metrics:
                raise MetricError("failed to get cpu utilization: only cpu utilization "
                                  "metrics are simulated")
            target_pct = DEFAULT_CPU_UTILIZATION
        try:
            return self._resource_replicas(hpa, target, current, target_pct)
        except MetricError as err:
            raise MetricError(f"failed to get cpu utilization: {err}") from None

    def _selector(self, target: Any) -> LabelSelector | None:
        sel = target.spec.selector
        if isinstance(sel, LabelSelector) or sel is None:
            return sel
        return LabelSelector(match_labels=sel)

    def _resource_replicas(self, hpa: Any, target: Any, current: int,
                           target_pct: int) -> tuple[int, int]:
        metrics = self.cp.component("metrics")
        if metrics is None:
            raise MetricError("unable to get metrics for resource cpu: no metrics returned "
                              "from resource metrics API")
        selector = self._selector(target)
        ns = hpa.metadata.namespace
        pods = [p for p in self.store.list("Pod", ns)
                if selector is not None and selector.matches(p.metadata.labels)]
        if not pods:
            raise MetricError("no pods returned by selector while calculating replica count")
        now = self.clock.now
        usage: dict[str, float] = {}
        for p in pods:
            u = metrics.usage(p)
            if u is not None:
                usage[p.metadata.name] = u
        if not usage:
            raise MetricError("unable to get metrics for resource cpu: no metrics returned "
                              "from resource metrics API")
        ready_count, unready, missing = 0, [], []
        for p in pods:  # groupPods
            name = p.metadata.name
            if p.metadata.deletion_timestamp is not None or p.status.phase in ("Failed",
                                                                               "Pending"):
                usage.pop(name, None)
                continue
            if name not in usage:
                missing.append(name)
                continue
            if _unready_for_hpa(p, now):
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
        # The metric is absolute millicores upstream; ours is a percent of the request.
        values = {n: usage[n] * requests[n] / 100.0 for n in usage}
        ratio, utilization = _utilization_ratio(values, requests, target_pct)
        scale_up_with_unready = bool(unready) and ratio > 1.0
        if not scale_up_with_unready and not missing:
            if abs(1.0 - ratio) <= TOLERANCE:
                return current, utilization
            return math.ceil(ratio * ready_count), utilization
        for name in missing:
            # Scale-down: a pod without metrics counts at its full request; scale-up: at zero.
            values[name] = float(requests[name]) if ratio < 1.0 else 0.0
        if scale_up_with_unready:
            for name in unready:
                values[name] = 0.0
        new_ratio, _ = _utilization_ratio(values, requests, target_pct)
        if abs(1.0 - new_ratio) <= TOLERANCE or (ratio < 1.0 < new_ratio) or \
                (new_ratio < 1.0 < ratio):
            return current, utilization
        proposal = math.ceil(new_ratio * len(values))
        if (new_ratio < 1.0 and proposal > current) or (new_ratio > 1.0 and proposal < current):
            return current, utilization
        return proposal, utilization

    # -- normalization -------------------------------------------------------------------------
    def _normalize(self, state: _State, current: int, proposal: int, lo: int, hi: int,
                   now: float) -> int:
        """normalizeDesiredReplicas: the highest recommendation of the last 5 minutes, then
        [minReplicas, min(maxReplicas, max(2 × current, 4))]."""
        cutoff = now - DOWNSCALE_STABILIZATION
        recent = [r for r in state.recommendations if r[0] >= cutoff]  # upstream: !Before
        stabilized = max([proposal] + [n for _, n in recent])
        state.recommendations = recent + [(now, proposal)]
        if stabilized > proposal:
            held = max(t for t, n in recent if n > proposal)
            state.busy_until = held + DOWNSCALE_STABILIZATION + SYNC_PERIOD
        limit = max(int(SCALE_UP_LIMIT_FACTOR * current), SCALE_UP_LIMIT_MINIMUM)
        top = min(hi, limit)
        if stabilized < lo:
            return lo
        if stabilized > top:
            state.busy_until = now + SYNC_PERIOD * 2
            return top
        return stabilized

    def _normalize_with_behavior(self, hpa: Any, state: _State, current: int, proposal: int,
                                 lo: int, hi: int, now: float) -> int:
        """normalizeDesiredReplicasWithBehaviors: stabilize between the lowest recent
        recommendation (up window) and the highest (down window), then apply the policies'
        rate limits within [minReplicas, maxReplicas]."""
        up, down = _rules(hpa.spec.behavior, "scaleUp"), _rules(hpa.spec.behavior, "scaleDown")
        up_cut = now - float(up["stabilizationWindowSeconds"])
        down_cut = now - float(down["stabilizationWindowSeconds"])
        up_rec = down_rec = proposal
        for t, n in state.recommendations:
            if t > up_cut:
                up_rec = min(up_rec, n)
            if t > down_cut:
                down_rec = max(down_rec, n)
        horizon = min(up_cut, down_cut)
        state.recommendations = [r for r in state.recommendations if r[0] >= horizon]
        state.recommendations.append((now, proposal))
        desired = min(max(current, up_rec), down_rec)
        if desired != proposal:
            state.busy_until = now + max(float(up["stabilizationWindowSeconds"]),
                                         float(down["stabilizationWindowSeconds"])) + SYNC_PERIOD
        if desired > current:
            limit = max(current, scale_up_limit(current, state.ups, state.downs, up, now))
            top = min(hi, limit)
            if desired > top:
                state.busy_until = now + SYNC_PERIOD * 2
                return top
        elif desired < current:
            limit = min(current, scale_down_limit(current, state.ups, state.downs, down, now))
            bottom = max(lo, limit)
            if desired < bottom:
                state.busy_until = now + SYNC_PERIOD * 2
                return bottom
        return desired

    # -- status and events ---------------------------------------------------------------------
    def _set_status(self, hpa: Any, current: int, desired: int, utilization: int | None,
                    rescaled: bool) -> None:
        fresh = self.store.get("HorizontalPodAutoscaler", hpa.metadata.name,
                               hpa.metadata.namespace)
        if fresh is None:
            return
        st = fresh.status
        new = attrs.evolve(st, current_replicas=current, desired_replicas=desired,
                           current_cpu_utilization_percentage=utilization,
                           last_scale_time=self.clock.now if rescaled else st.last_scale_time)
        if new != st:
            self.store.update(attrs.evolve(fresh, status=new), validate=False)

    def _event(self, hpa: Any, type_: str, reason: str, message: str) -> None:
        self.store.record_event(hpa, type_, reason, message, COMPONENT)


def _utilization_ratio(values: dict[str, float], requests: dict[str, int],
                       target_pct: int) -> tuple[float, int]:
    """GetResourceUtilizationRatio: total usage over total requests, as a whole percent."""
    used = total = 0.0
    for name, v in values.items():
        if name in requests:
            used += v
            total += requests[name]
    if total <= 0:
        raise MetricError("no metrics returned matched known pods")
    utilization = int(used * 100 // total)
    return utilization / target_pct, utilization


def _unready_for_hpa(pod: Any, now: float) -> bool:
    """groupPods' CPU readiness rule: within the initialization period a pod counts only once
    it is ready and a full metric window has passed since; later, only a pod that has never
    been ready is left out."""
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
    changed = cond.last_transition_time if isinstance(cond.last_transition_time,
                                                      (int, float)) else start
    if start + CPU_INITIALIZATION_PERIOD > now:
        return cond.status == "False" or now < changed + METRIC_WINDOW
    return cond.status == "False" and start + INITIAL_READINESS_DELAY > changed
