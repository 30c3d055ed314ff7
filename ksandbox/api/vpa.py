"""autoscaling.k8s.io/v1 VerticalPodAutoscaler: the custom resource of the VPA add-on.

A VPA names a workload (``spec.targetRef``), says how its pods' requests may be changed
(``spec.updatePolicy.updateMode``: ``Off`` only recommends, ``Initial`` sets requests when a pod
is created, ``Recreate`` and ``Auto`` also evict pods whose requests are out of range) and
bounds the recommendation per container (``spec.resourcePolicy.containerPolicies``:
``minAllowed``, ``maxAllowed``, ``controlledResources``, ``controlledValues``, ``mode``; the
container name ``*`` is the default policy). The recommender writes
``status.recommendation.containerRecommendations`` (target, lowerBound, upperBound,
uncappedTarget) and the ``RecommendationProvided`` / ``NoPodsMatched`` conditions.

Field names and enums follow ``vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1/types.go``.
Not here: the controller (``ksandbox.controllers.vpa``) and the semantic validation
(``ksandbox.apiserver.validation``).
"""

from __future__ import annotations

from typing import Any

from .codec import EMPTY, FrozenDict, Int32, ResourceList, api_type, extra_field, j
from .meta import ObjectMeta
from .policy import CrossVersionObjectReference

# types.go: UpdateMode. The default is Recreate; Auto is its deprecated synonym.
UPDATE_MODE_OFF = "Off"
UPDATE_MODE_INITIAL = "Initial"
UPDATE_MODE_RECREATE = "Recreate"
UPDATE_MODE_AUTO = "Auto"
UPDATE_MODE_IN_PLACE_OR_RECREATE = "InPlaceOrRecreate"
UPDATE_MODES = (UPDATE_MODE_OFF, UPDATE_MODE_INITIAL, UPDATE_MODE_RECREATE,
                UPDATE_MODE_IN_PLACE_OR_RECREATE, UPDATE_MODE_AUTO)
DEFAULT_UPDATE_MODE = UPDATE_MODE_RECREATE
# types.go: ContainerScalingMode, ContainerControlledValues, DefaultContainerResourcePolicy.
CONTAINER_MODES = ("Auto", "Off")
CONTROLLED_VALUES = ("RequestsAndLimits", "RequestsOnly")
DEFAULT_CONTAINER_POLICY = "*"
CONTROLLABLE_RESOURCES = ("cpu", "memory")
# types.go: the condition types the recommender maintains.
RECOMMENDATION_PROVIDED = "RecommendationProvided"
NO_PODS_MATCHED = "NoPodsMatched"


@api_type
class PodUpdatePolicy:
    update_mode: str = j("updateMode", "")
    min_replicas: Int32 | None = j("minReplicas", None)
    extra: FrozenDict = extra_field()


@api_type
class ContainerResourcePolicy:
    container_name: str = j("containerName", "")
    mode: str = j("mode", "")
    min_allowed: ResourceList = j("minAllowed", EMPTY)
    max_allowed: ResourceList = j("maxAllowed", EMPTY)
    controlled_resources: tuple[str, ...] | None = j("controlledResources", None)
    controlled_values: str = j("controlledValues", "")
    extra: FrozenDict = extra_field()


@api_type
class PodResourcePolicy:
    container_policies: tuple[ContainerResourcePolicy, ...] = j("containerPolicies", ())
    extra: FrozenDict = extra_field()


@api_type
class VerticalPodAutoscalerSpec:
    target_ref: CrossVersionObjectReference | None = j("targetRef", None)
    update_policy: PodUpdatePolicy | None = j("updatePolicy", None)
    resource_policy: PodResourcePolicy | None = j("resourcePolicy", None)
    extra: FrozenDict = extra_field()


@api_type
class RecommendedContainerResources:
    container_name: str = j("containerName", "")
    target: ResourceList = j("target", EMPTY)
    lower_bound: ResourceList = j("lowerBound", EMPTY)
    upper_bound: ResourceList = j("upperBound", EMPTY)
    uncapped_target: ResourceList = j("uncappedTarget", EMPTY)
    extra: FrozenDict = extra_field()


@api_type
class RecommendedPodResources:
    container_recommendations: tuple[RecommendedContainerResources, ...] = j(
        "containerRecommendations", ())
    extra: FrozenDict = extra_field()


@api_type
class VerticalPodAutoscalerCondition:
    type: str = j("type", "")
    status: str = j("status", "")
    last_transition_time: Any = j("lastTransitionTime", None)
    reason: str = j("reason", "")
    message: str = j("message", "")
    extra: FrozenDict = extra_field()


@api_type
class VerticalPodAutoscalerStatus:
    recommendation: RecommendedPodResources | None = j("recommendation", None)
    conditions: tuple[VerticalPodAutoscalerCondition, ...] = j("conditions", ())
    extra: FrozenDict = extra_field()


@api_type
class VerticalPodAutoscaler:
    api_version: str = j("apiVersion", "autoscaling.k8s.io/v1")
    kind: str = j("kind", "VerticalPodAutoscaler")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: VerticalPodAutoscalerSpec = j("spec", VerticalPodAutoscalerSpec())
    status: VerticalPodAutoscalerStatus = j("status", VerticalPodAutoscalerStatus())
    extra: FrozenDict = extra_field()

    @property
    def update_mode(self) -> str:
        """The effective update mode (GetUpdateMode: Recreate when unset)."""
        p = self.spec.update_policy
        return (p.update_mode if p is not None and p.update_mode else DEFAULT_UPDATE_MODE)

    def container_policy(self, container: str) -> ContainerResourcePolicy | None:
        """GetContainerResourcePolicy: the container's own policy, else the ``*`` default."""
        rp = self.spec.resource_policy
        if rp is None:
            return None
        default = None
        for p in rp.container_policies:
            if p.container_name == container:
                return p
            if p.container_name == DEFAULT_CONTAINER_POLICY:
                default = p
        return default

    def condition(self, type_: str) -> VerticalPodAutoscalerCondition | None:
        for c in self.status.conditions:
            if c.type == type_:
                return c
        return None

    def recommendation_for(self, container: str) -> RecommendedContainerResources | None:
        rec = self.status.recommendation
        if rec is None:
            return None
        for r in rec.container_recommendations:
            if r.container_name == container:
                return r
        return None
