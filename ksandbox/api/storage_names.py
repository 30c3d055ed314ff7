"""The storage API's values and annotation names: access modes, reclaim policies, binding
modes, volume and claim phases, the annotations the PV controller and the scheduler set.

Without the types (api/storage.py), which load when a storage object is first decoded
(api/kinds.py): the scheduler's volume plugins, validation and the printers compare against
these names in every sandbox, most of which hold no volume (issue 11 item 5). Field names
and values follow ``k8s.io/api/core/v1`` and ``k8s.io/api/storage/v1``.
"""

from __future__ import annotations

from typing import Any

# core/v1 PersistentVolumeAccessMode values.
RWO, ROX, RWX, RWOP = "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"
ACCESS_MODES = (RWO, ROX, RWX, RWOP)
# printers.go / helper.GetAccessModesAsString: the short forms `kubectl get pv` prints.
ACCESS_MODE_SHORT = {RWO: "RWO", ROX: "ROX", RWX: "RWX", RWOP: "RWOP"}
RECLAIM_POLICIES = ("Delete", "Recycle", "Retain")
VOLUME_MODES = ("Block", "Filesystem")
BINDING_IMMEDIATE, BINDING_WAIT = "Immediate", "WaitForFirstConsumer"
BINDING_MODES = (BINDING_IMMEDIATE, BINDING_WAIT)
# PV and PVC phases (core/v1 PersistentVolumePhase / PersistentVolumeClaimPhase).
PV_AVAILABLE, PV_BOUND, PV_RELEASED, PV_PENDING = "Available", "Bound", "Released", "Pending"
CLAIM_PENDING, CLAIM_BOUND, CLAIM_LOST = "Pending", "Bound", "Lost"
# storage/v1 util: the annotations that mark the default class.
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
BETA_DEFAULT_CLASS_ANNOTATION = "storageclass.beta.kubernetes.io/is-default-class"
# pv_controller.go: the claim annotations the controller and the scheduler set.
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"
ANN_BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
ANN_BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
# The volume sources a PV may carry (exactly one must be set): kept as given.
PV_SOURCES = ("awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "csi",
              "fc", "flexVolume", "flocker", "gcePersistentDisk", "glusterfs", "hostPath",
              "iscsi", "local", "nfs", "photonPersistentDisk", "portworxVolume", "quobyte",
              "rbd", "scaleIO", "storageos", "vsphereVolume")


def access_modes_string(modes: Any) -> str:
    """helper.GetAccessModesAsString: known modes, in a fixed order, comma-separated."""
    present = set(modes or ())
    return ",".join(ACCESS_MODE_SHORT[m] for m in ACCESS_MODES if m in present)
