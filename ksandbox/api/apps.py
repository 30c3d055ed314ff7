"""apps/v1 workloads (ReplicaSet, Deployment, DaemonSet, StatefulSet, ControllerRevision) and
core/v1 ReplicationController.

Their controllers live in ``ksandbox.controllers``; these are only the values. A pod template's
spec object is shared by every pod a controller stamps out from it, which keeps 150,000 pods
small in memory.
"""

from __future__ import annotations

from typing import Any

from .codec import EMPTY, FrozenDict, Int32, IntOrString, api_type, extra_field, j
from .core import PodTemplateSpec
from .meta import ObjectMeta
from .selectors import LabelSelector


@api_type
class ReplicaSetSpec:
    replicas: Int32 | None = j("replicas", None, pointer=True)
    selector: LabelSelector | None = j("selector", None)
    template: PodTemplateSpec = j("template", PodTemplateSpec())
    min_ready_seconds: Int32 = j("minReadySeconds", 0)
    extra: FrozenDict = extra_field()


@api_type
class ReplicaSetStatus:
    replicas: Int32 = j("replicas", 0, omit_empty=False)
    fully_labeled_replicas: Int32 = j("fullyLabeledReplicas", 0)
    ready_replicas: Int32 = j("readyReplicas", 0)
    available_replicas: Int32 = j("availableReplicas", 0)
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
    replicas: Int32 | None = j("replicas", None, pointer=True)
    selector: FrozenDict = j("selector", EMPTY)
    template: PodTemplateSpec = j("template", PodTemplateSpec())
    min_ready_seconds: Int32 = j("minReadySeconds", 0)
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
    replicas: Int32 | None = j("replicas", None, pointer=True)
    selector: LabelSelector | None = j("selector", None)
    template: PodTemplateSpec = j("template", PodTemplateSpec())
    strategy: DeploymentStrategy = j("strategy", DeploymentStrategy())
    min_ready_seconds: Int32 = j("minReadySeconds", 0)
    revision_history_limit: Int32 | None = j("revisionHistoryLimit", None)
    paused: bool = j("paused", False)
    progress_deadline_seconds: Int32 | None = j("progressDeadlineSeconds", None)
    extra: FrozenDict = extra_field()


@api_type
class DeploymentStatus:
    replicas: Int32 = j("replicas", 0)
    updated_replicas: Int32 = j("updatedReplicas", 0)
    ready_replicas: Int32 = j("readyReplicas", 0)
    available_replicas: Int32 = j("availableReplicas", 0)
    unavailable_replicas: Int32 = j("unavailableReplicas", 0)
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
    min_ready_seconds: Int32 = j("minReadySeconds", 0)
    revision_history_limit: Int32 | None = j("revisionHistoryLimit", None)
    extra: FrozenDict = extra_field()


@api_type
class DaemonSetStatus:
    current_number_scheduled: Int32 = j("currentNumberScheduled", 0, omit_empty=False)
    desired_number_scheduled: Int32 = j("desiredNumberScheduled", 0, omit_empty=False)
    number_misscheduled: Int32 = j("numberMisscheduled", 0, omit_empty=False)
    number_ready: Int32 = j("numberReady", 0, omit_empty=False)
    number_available: Int32 = j("numberAvailable", 0)
    updated_number_scheduled: Int32 = j("updatedNumberScheduled", 0)
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


# -- StatefulSet (controllers/statefulset.py) ---------------------------------------------------

POD_MANAGEMENT_POLICIES = ("OrderedReady", "Parallel")
STATEFULSET_UPDATE_STRATEGIES = ("OnDelete", "RollingUpdate")
# apps/v1 types.go: the label the StatefulSet controller puts on each pod (its ordinal name).
STATEFULSET_POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


@api_type
class StatefulSetUpdateStrategy:
    type: str = j("type", "")
    rolling_update: Any = j("rollingUpdate", None)
    extra: FrozenDict = extra_field()


@api_type
class StatefulSetSpec:
    replicas: Int32 | None = j("replicas", None, pointer=True)
    selector: LabelSelector | None = j("selector", None)
    template: PodTemplateSpec = j("template", PodTemplateSpec())
    volume_claim_templates: tuple[Any, ...] = j("volumeClaimTemplates", ())
    service_name: str = j("serviceName", "")
    pod_management_policy: str = j("podManagementPolicy", "")
    update_strategy: StatefulSetUpdateStrategy = j("updateStrategy", StatefulSetUpdateStrategy())
    revision_history_limit: Int32 | None = j("revisionHistoryLimit", None)
    min_ready_seconds: Int32 = j("minReadySeconds", 0)
    persistent_volume_claim_retention_policy: Any = j("persistentVolumeClaimRetentionPolicy",
                                                      None)
    ordinals: Any = j("ordinals", None)
    extra: FrozenDict = extra_field()

    @property
    def parallel(self) -> bool:
        return self.pod_management_policy == "Parallel"


@api_type
class StatefulSetStatus:
    observed_generation: int = j("observedGeneration", 0)
    replicas: Int32 = j("replicas", 0, omit_empty=False)
    ready_replicas: Int32 = j("readyReplicas", 0)
    current_replicas: Int32 = j("currentReplicas", 0)
    updated_replicas: Int32 = j("updatedReplicas", 0)
    available_replicas: Int32 = j("availableReplicas", 0)
    current_revision: str = j("currentRevision", "")
    update_revision: str = j("updateRevision", "")
    collision_count: Int32 = j("collisionCount", 0)
    extra: FrozenDict = extra_field()


@api_type
class StatefulSet:
    api_version: str = j("apiVersion", "apps/v1")
    kind: str = j("kind", "StatefulSet")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: StatefulSetSpec = j("spec", StatefulSetSpec())
    status: StatefulSetStatus = j("status", StatefulSetStatus())
    extra: FrozenDict = extra_field()


@api_type
class ControllerRevision:
    api_version: str = j("apiVersion", "apps/v1")
    kind: str = j("kind", "ControllerRevision")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    data: Any = j("data", None)
    revision: int = j("revision", 0)
    extra: FrozenDict = extra_field()
