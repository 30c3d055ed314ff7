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
convertDesiredReplicasWithBehaviorRate, calculateScaleUp/DownLimit[WithScalingRules], the
status conditions) in our own words; the usage arithmetic is in ``replica_calculator.py``,
what a proposal becomes (stabilization, rate limits, bounds) in ``normalize.py``. An
HPA without ``behavior`` follows upstream's plain path (scale-up limit max(2 × current, 4),
down-scale stabilization); with ``behavior``, the policies, periods and windows it gives,
defaulted as upstream's GenerateHPAScaleUp/DownRules. The v2 status parts the API types do not
model (``currentMetrics``, ``conditions``) are kept in ``status.extra``, as ``kubectl describe``
reads them.

Not here: memory, pods, object and external metrics (only CPU utilization is simulated).
"""

from __future__ import annotations

from typing import Any

from ...api.codec import FrozenDict, freeze
from ...api.errors import KsandboxError
from ...api.evolve import evolve
from ...api.kinds import BY_KIND
from ...api.quantity import format_resource
from ...api.selectors import LabelSelector
from ...apiserver.store import DELETED, WatchEvent
from ...sim.clock import PRIORITY_CONTROLLER
from ..base import run_pass
from ..controller_utils import server_message
from .normalize import SYNC_PERIOD, State, normalize, normalize_with_behavior
from .replica_calculator import MetricError, resource_replicas

COMPONENT = "horizontal-pod-autoscaler"
# The kinds with a scale subresource the sandbox simulates.
SCALABLE_KINDS = ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet")
# pkg/apis/autoscaling: DefaultCPUUtilization, the target when an HPA names no metric.
DEFAULT_CPU_UTILIZATION = 80
CPU_METRIC_NAME = "cpu resource utilization (percentage of request)"


class HorizontalPodAutoscalerController:
    name = "hpa"

    def __init__(self, metrics: Any) -> None:
        self.metrics = metrics   # the metrics server's pod usage

    def start(self, cp: Any) -> None:
        self.cp = cp
        self.store = cp.store
        self.clock = cp.clock
        self._states: dict[tuple[str, str], State] = {}
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
        state = self._states.setdefault(key, State())
        if state.timer is not None:
            state.timer.cancel()
        state.timer = self.clock.call_soon(lambda: self._tick(key), PRIORITY_CONTROLLER,
                                           f"hpa {key}")

    def _tick(self, key: tuple[str, str]) -> None:
        state = self._states.get(key)
        hpa = self.store.get("HorizontalPodAutoscaler", key[1], key[0])
        if state is None or hpa is None:
            return
        run_pass(self.clock, "hpa", self.reconcile, hpa, state)
        state.timer = self.clock.call_later(SYNC_PERIOD, lambda: self._tick(key),
                                            PRIORITY_CONTROLLER, f"hpa {key}", background=True)

    # -- reconcileAutoscaler -------------------------------------------------------------------
    def reconcile(self, hpa: Any, state: State) -> None:
        now = self.clock.now
        state.busy_until = None
        state.conditions = {}
        cond = state.conditions
        target, err = self._scale_target(hpa)
        if target is None:
            # The event carries the error itself, the condition says what it stopped.
            self._event(hpa, "Warning", "FailedGetScale", err)
            cond["AbleToScale"] = ("False", "FailedGetScale", "the HPA controller was unable "
                                   f"to get the target's current scale: {err}")
            self._set_status(hpa, state, hpa.status.current_replicas,
                             hpa.status.desired_replicas, None, False)
            return
        cond["AbleToScale"] = ("True", "SucceededGetScale",
                               "the HPA controller was able to get the target's current scale")
        current = target.spec.replicas if target.spec.replicas is not None else 1
        if not state.recommendations:
            # recordInitialRecommendation: the first sync remembers the current count, so a
            # new HPA cannot scale below it before the stabilization window has passed.
            state.recommendations.append((now, current))
        lo, hi = hpa.spec.min_replicas or 1, hpa.spec.max_replicas
        metric: tuple[int, int] | None = None
        reason = ""
        if current == 0 and lo != 0:
            desired = 0
            cond["ScalingActive"] = ("False", "ScalingDisabled", "scaling is disabled since "
                                     "the replica count of the target is zero")
        elif current > hi:
            desired, reason = hi, "Current number of replicas above Spec.MaxReplicas"
        elif current < lo:
            desired, reason = lo, "Current number of replicas below Spec.MinReplicas"
        else:
            try:
                proposal, utilization, average = self._cpu_proposal(hpa, target, current)
            except MetricError as err:
                self._event(hpa, "Warning", "FailedGetResourceMetric", str(err))
                self._event(hpa, "Warning", "FailedComputeMetricsReplicas",
                            f"invalid metrics (1 invalid out of 1), first error is: failed to "
                            f"get cpu resource metric value: {err}")
                cond["ScalingActive"] = ("False", "FailedGetResourceMetric",
                                         f"the HPA was unable to compute the replica count: "
                                         f"{err}")
                self._set_status(hpa, state, current, hpa.status.desired_replicas, None, False)
                return
            metric = (utilization, average)
            cond["ScalingActive"] = ("True", "ValidMetricFound", "the HPA was able to "
                                     f"successfully calculate a replica count from "
                                     f"{CPU_METRIC_NAME}")
            if proposal > current:
                reason = f"{CPU_METRIC_NAME} above target"
            elif proposal < current:
                reason = "All metrics below target"
            if hpa.spec.behavior is None:
                desired = normalize(state, current, proposal, lo, hi, now)
            else:
                desired = normalize_with_behavior(hpa.spec.behavior, state, current, proposal,
                                                  lo, hi, now)
        rescale = desired != current
        if rescale:
            try:
                self.store.update(evolve(target, spec=evolve(target.spec,
                                                             replicas=desired)))
            except KsandboxError as err:
                self._event(hpa, "Warning", "FailedRescale",
                            f"New size: {desired}; reason: {reason}; error: "
                            f"{server_message(err)}")
                cond["AbleToScale"] = ("False", "FailedUpdateScale", "the HPA controller was "
                                       f"unable to update the target scale: {server_message(err)}")
                self._set_status(hpa, state, current, desired, metric, False)
                return
            self._event(hpa, "Normal", "SuccessfulRescale",
                        f"New size: {desired}; reason: {reason}")
            cond["AbleToScale"] = ("True", "SucceededRescale", "the HPA controller was able "
                                   f"to update the target scale to {desired}")
            if hpa.spec.behavior is not None:
                events = state.ups if desired > current else state.downs
                events.append((now, abs(desired - current)))
                horizon = now - 3600.0
                state.ups = [e for e in state.ups if e[0] > horizon]
                state.downs = [e for e in state.downs if e[0] > horizon]
        self._set_status(hpa, state, current, desired, metric, rescale)

    def _scale_target(self, hpa: Any) -> tuple[Any, str]:
        """The target's scale, found as upstream finds it: the group of scaleTargetRef's
        apiVersion and its kind give the REST mapping (a kind not served in that group —
        ``extensions/v1beta1`` Deployments are long gone — has none), then the scale
        subresource of the named object. (target, "") or (None, the error's text)."""
        ref = hpa.spec.scale_target_ref
        group = ref.api_version.rsplit("/", 1)[0] if "/" in ref.api_version else ""
        info = BY_KIND.get(ref.kind)
        if info is None or info.group != group:
            return None, f'no matches for kind "{ref.kind}" in group "{group}"'
        if ref.kind not in SCALABLE_KINDS:
            return None, "the server could not find the requested resource"
        target = self.store.get(ref.kind, ref.name, hpa.metadata.namespace)
        if target is None:
            return None, f'{info.display_resource} "{ref.name}" not found'
        return target, ""

    def _cpu_proposal(self, hpa: Any, target: Any, current: int) -> tuple[int, int, int]:
        """computeStatusForResourceMetric → GetResourceReplicas for cpu utilization."""
        target_pct = hpa.cpu_target_percent()
        if target_pct is None:
            if hpa.spec.metrics:
                raise MetricError("failed to get cpu utilization: only cpu utilization "
                                  "metrics are simulated")
            target_pct = DEFAULT_CPU_UTILIZATION
        sel = target.spec.selector
        if sel is not None and not isinstance(sel, LabelSelector):
            sel = LabelSelector(match_labels=sel)
        pods = [p for p in self.store.list("Pod", hpa.metadata.namespace)
                if sel is not None and sel.matches(p.metadata.labels)]
        try:
            return resource_replicas(pods, self.metrics.usage, current, target_pct, self.clock.now)
        except MetricError as err:
            raise MetricError(f"failed to get cpu utilization: {err}") from None

    # -- status and events ---------------------------------------------------------------------
    def _set_status(self, hpa: Any, state: State, current: int, desired: int,
                    metric: tuple[int, int] | None, rescaled: bool) -> None:
        """The status, with v2's currentMetrics and conditions kept in ``extra``."""
        fresh = self.store.get("HorizontalPodAutoscaler", hpa.metadata.name,
                               hpa.metadata.namespace)
        if fresh is None:
            return
        st = fresh.status
        extra = dict(st.extra)
        extra.pop("currentMetrics", None)
        if metric is not None:
            extra["currentMetrics"] = freeze([{"type": "Resource", "resource": {
                "name": "cpu", "current": {"averageUtilization": metric[0],
                                           "averageValue": format_resource("cpu", metric[1])}}}])
        conditions = _merge_conditions(st.extra.get("conditions") or (), state.conditions,
                                       self.clock.now)
        if conditions:
            extra["conditions"] = conditions
        # autoscaling/v2 status: the utilization lives in currentMetrics only.
        new = evolve(st, current_replicas=current, desired_replicas=desired,
                     current_cpu_utilization_percentage=None,
                     last_scale_time=self.clock.now if rescaled else st.last_scale_time,
                     extra=FrozenDict(extra))
        if new != st or new.extra != st.extra:
            self.store.update_status(evolve(fresh, status=new))

    def _event(self, hpa: Any, type_: str, reason: str, message: str) -> None:
        self.store.record_event(hpa, type_, reason, message, COMPONENT)


_CONDITION_ORDER = ("AbleToScale", "ScalingActive", "ScalingLimited")


def _merge_conditions(old: Any, new: dict[str, tuple[str, str, str]], now: float) -> tuple:
    """setCondition: the transition time moves only when a condition's status changes."""
    by_type = {c.get("type"): c for c in old if hasattr(c, "get")}
    for type_, (status, reason, message) in new.items():
        prev = by_type.get(type_)
        since = prev.get("lastTransitionTime") if prev is not None and \
            prev.get("status") == status else now
        by_type[type_] = freeze({"type": type_, "status": status, "reason": reason,
                                 "message": message, "lastTransitionTime": since})
    return tuple(by_type[t] for t in _CONDITION_ORDER if t in by_type) + \
        tuple(c for t, c in by_type.items() if t not in _CONDITION_ORDER)
