"""autoscaling (HorizontalPodAutoscaler v1 and v2) and policy/v1 PodDisruptionBudget
(scheduling.k8s.io/v1 PriorityClass is api/scheduling.py: every sandbox makes two at start,
while this module loads when an HPA or a budget is first decoded, api/kinds.py).

The HPA keeps both API versions in one type: v1's ``targetCPUUtilizationPercentage`` and v2's
``metrics`` list; :meth:`HorizontalPodAutoscaler.cpu_target_percent` reads whichever is set.
"""

from __future__ import annotations

from typing import Any

from .codec import FrozenDict, Int32, IntOrString, api_type, extra_field, j
from .meta import ObjectMeta
from .selectors import LabelSelector


@api_type
class CrossVersionObjectReference:
    kind: str = j("kind", "")
    name: str = j("name", "")
    api_version: str = j("apiVersion", "")
    extra: FrozenDict = extra_field()


@api_type
class HorizontalPodAutoscalerSpec:
    scale_target_ref: CrossVersionObjectReference = j("scaleTargetRef",
                                                       CrossVersionObjectReference())
    min_replicas: Int32 | None = j("minReplicas", None)
    max_replicas: Int32 = j("maxReplicas", 0)
    target_cpu_utilization_percentage: Int32 | None = j("targetCPUUtilizationPercentage", None)
    metrics: tuple[Any, ...] = j("metrics", ())
    behavior: Any = j("behavior", None)
    extra: FrozenDict = extra_field()


@api_type
class HorizontalPodAutoscalerStatus:
    current_replicas: Int32 = j("currentReplicas", 0, omit_empty=False)
    desired_replicas: Int32 = j("desiredReplicas", 0, omit_empty=False)
    current_cpu_utilization_percentage: Int32 | None = j("currentCPUUtilizationPercentage", None)
    last_scale_time: Any = j("lastScaleTime", None)
    extra: FrozenDict = extra_field()


@api_type
class HorizontalPodAutoscaler:
    api_version: str = j("apiVersion", "autoscaling/v2")
    kind: str = j("kind", "HorizontalPodAutoscaler")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: HorizontalPodAutoscalerSpec = j("spec", HorizontalPodAutoscalerSpec())
    status: HorizontalPodAutoscalerStatus = j("status", HorizontalPodAutoscalerStatus())
    extra: FrozenDict = extra_field()

    def cpu_target_percent(self) -> int | None:
        """The CPU utilization target, from v1's field or v2's Resource metric."""
        if self.spec.target_cpu_utilization_percentage is not None:
            return self.spec.target_cpu_utilization_percentage
        for m in self.spec.metrics:
            res = m.get("resource") if isinstance(m, dict) else None
            if m.get("type") == "Resource" and res and res.get("name") == "cpu":
                target = res.get("target") or {}
                if target.get("averageUtilization") is not None:
                    return int(target["averageUtilization"])
        return None

    def cpu_current_percent(self) -> int | None:
        """The measured CPU utilization: v2's currentMetrics, or v1's status field."""
        for m in self.status.extra.get("currentMetrics") or ():
            res = m.get("resource") if isinstance(m, dict) else None
            if m.get("type") == "Resource" and res and res.get("name") == "cpu":
                cur = (res.get("current") or {}).get("averageUtilization")
                if cur is not None:
                    return int(cur)
        return self.status.current_cpu_utilization_percentage


@api_type
class PodDisruptionBudgetSpec:
    min_available: IntOrString | None = j("minAvailable", None)
    max_unavailable: IntOrString | None = j("maxUnavailable", None)
    selector: LabelSelector | None = j("selector", None)
    unhealthy_pod_eviction_policy: str = j("unhealthyPodEvictionPolicy", "")
    extra: FrozenDict = extra_field()


@api_type
class PodDisruptionBudgetStatus:
    current_healthy: Int32 = j("currentHealthy", 0, omit_empty=False)
    desired_healthy: Int32 = j("desiredHealthy", 0, omit_empty=False)
    disruptions_allowed: Int32 = j("disruptionsAllowed", 0, omit_empty=False)
    expected_pods: Int32 = j("expectedPods", 0, omit_empty=False)
    extra: FrozenDict = extra_field()


@api_type
class PodDisruptionBudget:
    api_version: str = j("apiVersion", "policy/v1")
    kind: str = j("kind", "PodDisruptionBudget")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: PodDisruptionBudgetSpec = j("spec", PodDisruptionBudgetSpec())
    status: PodDisruptionBudgetStatus = j("status", PodDisruptionBudgetStatus())
    extra: FrozenDict = extra_field()
