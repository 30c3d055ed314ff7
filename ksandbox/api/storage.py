"""Persistent storage: core/v1 PersistentVolume and PersistentVolumeClaim, storage.k8s.io/v1
StorageClass, CSIDriver, CSINode and VolumeAttachment.

The scheduler's VolumeBinding, VolumeZone and VolumeRestrictions plugins read PVs, PVCs and
StorageClasses (``scheduler/plugins/volume_binding.py`` and friends), and the sandbox's
persistent-volume controller binds claims (``controllers/persistentvolume.py``). CSIDriver,
CSINode and VolumeAttachment are stored only. Field names follow ``k8s.io/api/core/v1`` and
``k8s.io/api/storage/v1``.
"""

from __future__ import annotations

from typing import Any

from .codec import EMPTY, FrozenDict, ResourceList, api_type, extra_field, j
from .core import NodeSelector
from .meta import ObjectMeta
from .selectors import LabelSelector
from .storage_names import (  # noqa: F401 - the names, for this module's importers
    ACCESS_MODE_SHORT,
    ACCESS_MODES,
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_PROVISIONED_BY,
    ANN_SELECTED_NODE,
    ANN_STORAGE_PROVISIONER,
    BETA_DEFAULT_CLASS_ANNOTATION,
    BINDING_IMMEDIATE,
    BINDING_MODES,
    BINDING_WAIT,
    CLAIM_BOUND,
    CLAIM_LOST,
    CLAIM_PENDING,
    DEFAULT_CLASS_ANNOTATION,
    PV_AVAILABLE,
    PV_BOUND,
    PV_PENDING,
    PV_RELEASED,
    PV_SOURCES,
    RECLAIM_POLICIES,
    ROX,
    RWO,
    RWOP,
    RWX,
    VOLUME_MODES,
    access_modes_string,
)


@api_type
class ObjectRef:
    """The claimRef a PV points back to its claim with."""

    kind: str = j("kind", "")
    namespace: str = j("namespace", "")
    name: str = j("name", "")
    uid: str = j("uid", "")
    api_version: str = j("apiVersion", "")
    resource_version: Any = j("resourceVersion", None)
    extra: FrozenDict = extra_field()


@api_type
class VolumeNodeAffinity:
    required: NodeSelector | None = j("required", None)
    extra: FrozenDict = extra_field()


@api_type
class PersistentVolumeSpec:
    capacity: ResourceList = j("capacity", EMPTY)
    access_modes: tuple[str, ...] = j("accessModes", ())
    claim_ref: ObjectRef | None = j("claimRef", None)
    persistent_volume_reclaim_policy: str = j("persistentVolumeReclaimPolicy", "")
    storage_class_name: str = j("storageClassName", "")
    volume_mode: str = j("volumeMode", "")
    node_affinity: VolumeNodeAffinity | None = j("nodeAffinity", None)
    mount_options: tuple[str, ...] = j("mountOptions", ())
    volume_attributes_class_name: str = j("volumeAttributesClassName", "")
    extra: FrozenDict = extra_field()   # the volume source (csi, hostPath, local, ...) lives here

    def source_kinds(self) -> list[str]:
        return [k for k in PV_SOURCES if k in self.extra]


@api_type
class PersistentVolumeStatus:
    phase: str = j("phase", "")
    message: str = j("message", "")
    reason: str = j("reason", "")
    last_phase_transition_time: Any = j("lastPhaseTransitionTime", None)
    extra: FrozenDict = extra_field()


@api_type
class PersistentVolume:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "PersistentVolume")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: PersistentVolumeSpec = j("spec", PersistentVolumeSpec())
    status: PersistentVolumeStatus = j("status", PersistentVolumeStatus())
    extra: FrozenDict = extra_field()


@api_type
class VolumeResourceRequirements:
    requests: ResourceList = j("requests", EMPTY)
    limits: ResourceList = j("limits", EMPTY)
    extra: FrozenDict = extra_field()


@api_type
class PersistentVolumeClaimSpec:
    access_modes: tuple[str, ...] = j("accessModes", ())
    selector: LabelSelector | None = j("selector", None)
    resources: VolumeResourceRequirements = j("resources", VolumeResourceRequirements())
    volume_name: str = j("volumeName", "")
    storage_class_name: str | None = j("storageClassName", None)
    volume_mode: str = j("volumeMode", "")
    data_source: Any = j("dataSource", None)
    data_source_ref: Any = j("dataSourceRef", None)
    volume_attributes_class_name: str = j("volumeAttributesClassName", "")
    extra: FrozenDict = extra_field()


@api_type
class PersistentVolumeClaimStatus:
    phase: str = j("phase", "")
    access_modes: tuple[str, ...] = j("accessModes", ())
    capacity: ResourceList = j("capacity", EMPTY)
    conditions: tuple[Any, ...] = j("conditions", ())
    extra: FrozenDict = extra_field()


@api_type
class PersistentVolumeClaim:
    api_version: str = j("apiVersion", "v1")
    kind: str = j("kind", "PersistentVolumeClaim")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: PersistentVolumeClaimSpec = j("spec", PersistentVolumeClaimSpec())
    status: PersistentVolumeClaimStatus = j("status", PersistentVolumeClaimStatus())
    extra: FrozenDict = extra_field()


@api_type
class StorageClass:
    api_version: str = j("apiVersion", "storage.k8s.io/v1")
    kind: str = j("kind", "StorageClass")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    provisioner: str = j("provisioner", "")
    parameters: FrozenDict = j("parameters", EMPTY)
    reclaim_policy: str = j("reclaimPolicy", "")
    mount_options: tuple[str, ...] = j("mountOptions", ())
    allow_volume_expansion: bool | None = j("allowVolumeExpansion", None)
    volume_binding_mode: str = j("volumeBindingMode", "")
    allowed_topologies: tuple[Any, ...] = j("allowedTopologies", ())
    extra: FrozenDict = extra_field()

    @property
    def binding_mode(self) -> str:
        """SetDefaults_StorageClass: Immediate."""
        return self.volume_binding_mode or BINDING_IMMEDIATE

    @property
    def is_default(self) -> bool:
        """storageutil.IsDefaultAnnotation."""
        ann = self.metadata.annotations
        return ann.get(DEFAULT_CLASS_ANNOTATION) == "true" or \
            ann.get(BETA_DEFAULT_CLASS_ANNOTATION) == "true"


@api_type
class CSIDriver:
    api_version: str = j("apiVersion", "storage.k8s.io/v1")
    kind: str = j("kind", "CSIDriver")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: Any = j("spec", None)
    extra: FrozenDict = extra_field()


@api_type
class CSINode:
    api_version: str = j("apiVersion", "storage.k8s.io/v1")
    kind: str = j("kind", "CSINode")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: Any = j("spec", None)
    extra: FrozenDict = extra_field()


@api_type
class VolumeAttachment:
    api_version: str = j("apiVersion", "storage.k8s.io/v1")
    kind: str = j("kind", "VolumeAttachment")
    metadata: ObjectMeta = j("metadata", ObjectMeta())
    spec: Any = j("spec", None)
    status: Any = j("status", None)
    extra: FrozenDict = extra_field()
