"""apps/v1 workloads (ReplicaSet, Deployment, DaemonSet) and core/v1 ReplicationController.

Their controllers live in ``ksandbox.controllers``; these are only the values. A pod template's
spec object is shared by every pod a controller stamps out from it, which keeps 150,000 pods
small in memory.
"""

from __future__ import annotations

from typing import Any

from .codec import EMPTY, FrozenDict, IntOrString, api_type, extra_field, j
from .core import PodTemplateSpec
from .meta import ObjectMeta
from .selectors import LabelSelector


@api_type
class ReplicaSetSpec:
    replicas: int | None = j("replicas", None)
    selector: LabelSelector | None = j("selector", None)
    template: PodTemplateSpec = j("template", PodTemplateSpec())
    min_ready_seconds: int = j("minReadySeconds", 0)
    extra: FrozenDict = extra_field()


@api_type
class ReplicaSetStatus:
    replicas: int = j("replicas", 0, omit_empty=False)
    fully_labeled_replicas: int = j("fullyLabeledReplicas", 0)
    ready_replicas: int = j("readyReplicas", 0)
    available_replicas: int = j("availableReplicas", 0)
    observed_generation: int = j("observedGeneration", 0)
    extra: FrozenDict = extra_field()


@api_type
class ReplicaSet:
    api_version: str = j("apiVersion", "apps/v1")
    kind: str = j("kind", "ReplicaSet")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: ReplicaSetSpec = j("spec", ReplicaSetSpec())
    status: ReplicaSetStatus = j("status", ReplicaSetStatus())
    extra: FrozenDict = extra_field()


@api_type
class ReplicationControllerSpec:
    replicas: int | None = j("replicas", None)
    selector: FrozenDict = j("selector", EMPTY)
    template: PodTemplateSpec = j("template", PodTemplateSpec())
    min_ready_seconds: int = j("minReadySeconds", 0)
    extra: FrozenDict = extra_field()


@api_type
class ReplicationController:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "ReplicationController")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: ReplicationControllerSpec = j("spec", ReplicationControllerSpec())
    status: ReplicaSetStatus = j("status", ReplicaSetStatus())
    extra: FrozenDict = extra_field()


@api_type
class RollingUpdateDeployment:
    max_surge: IntOrString | None = j("maxSurge", None)
    max_unavailable: IntOrString | None = j("maxUnavailable", None)
    extra: FrozenDict = extra_field()


@api_type
class DeploymentStrategy:
    type: str = j("type", "")
    rolling_update: RollingUpdateDeployment | None = j("rollingUpdate", None)
    extra: FrozenDict = extra_field()


@api_type
class DeploymentSpec:
    replicas: int | None = j("replicas", None)
    selector: LabelSelector | None = j("selector", None)
    template: PodTemplateSpec = j("template", PodTemplateSpec())
    strategy: DeploymentStrategy = j("strategy", DeploymentStrategy())
    min_ready_seconds: int = j("minReadySeconds", 0)
    revision_history_limit: int | None = j("revisionHistoryLimit", None)
    paused: bool = j("paused", False)
    progress_deadline_seconds: int | None = j("progressDeadlineSeconds", None)
    extra: FrozenDict = extra_field()


@api_type
class DeploymentStatus:
    replicas: int = j("replicas", 0)
    updated_replicas: int = j("updatedReplicas", 0)
    ready_replicas: int = j("readyReplicas", 0)
    available_replicas: int = j("availableReplicas", 0)
    unavailable_replicas: int = j("unavailableReplicas", 0)
    observed_generation: int = j("observedGeneration", 0)
    extra: FrozenDict = extra_field()


@api_type
class Deployment:
    api_version: str = j("apiVersion", "apps/v1")
    kind: str = j("kind", "Deployment")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: DeploymentSpec = j("spec", DeploymentSpec())
    status: DeploymentStatus = j("status", DeploymentStatus())
    extra: FrozenDict = extra_field()


@api_type
class DaemonSetUpdateStrategy:
    type: str = j("type", "")
    rolling_update: Any = j("rollingUpdate", None)
    extra: FrozenDict = extra_field()


@api_type
class DaemonSetSpec:
    selector: LabelSelector | None = j("selector", None)
    template: PodTemplateSpec = j("template", PodTemplateSpec())
    update_strategy: DaemonSetUpdateStrategy = j("updateStrategy", DaemonSetUpdateStrategy())
    min_ready_seconds: int = j("minReadySeconds", 0)
    revision_history_limit: int | None = j("revisionHistoryLimit", None)
    extra: FrozenDict = extra_field()


@api_type
class DaemonSetStatus:
    current_number_scheduled: int = j("currentNumberScheduled", 0, omit_empty=False)
    desired_number_scheduled: int = j("desiredNumberScheduled", 0, omit_empty=False)
    number_misscheduled: int = j("numberMisscheduled", 0, omit_empty=False)
    number_ready: int = j("numberReady", 0, omit_empty=False)
    number_available: int = j("numberAvailable", 0)
    updated_number_scheduled: int = j("updatedNumberScheduled", 0)
    observed_generation: int = j("observedGeneration", 0)
    extra: FrozenDict = extra_field()


@api_type
class DaemonSet:
    api_version: str = j("apiVersion", "apps/v1")
    kind: str = j("kind", "DaemonSet")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: DaemonSetSpec = j("spec", DaemonSetSpec())
    status: DaemonSetStatus = j("status", DaemonSetStatus())
    extra: FrozenDict = extra_field()
