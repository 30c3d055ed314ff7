"""VolumeZone: a pod's bound PersistentVolumes must be usable in the node's zone and region.

Upstream ``plugins/volumezone/volume_zone.go`` (getPVbyPod, getPVTopologies, Filter), in our
own words. PreFilter collects, for each claim the pod names, the bound PV's zone and region
labels (``topology.kubernetes.io/zone``/``region`` and the deprecated
``failure-domain.beta.kubernetes.io/`` pair; a value may list several zones joined by
``__``). An unbound claim of a WaitForFirstConsumer class is skipped (VolumeBinding deals
with it); any other unbound claim stops the pod: "PersistentVolumeClaim had no pv name and
storageClass name" (no class) or "PersistentVolume had no name"; a missing claim, class or
volume gives the API's not-found text. No labelled volumes: Skip.

Filter: a node with none of the four labels fits (nothing to compare); otherwise each
volume label must be present on the node (a beta key is also looked up under its GA name)
with one of the volume's values, else UnschedulableAndUnresolvable "node(s) had no available
volume zone". CSI volumes carry their zone in node affinity instead, which VolumeBinding
checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...api.storage_names import BINDING_WAIT
from ...api.volume_helpers import claim_class, pod_claim_names
from ..framework.interface import (
    NODE,
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    STORAGE_CLASS,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Status,
)
from . import names

if TYPE_CHECKING:
    from ...api.core import Pod
    from ...apiserver.store import Store

NAME = names.VOLUME_ZONE
ERR_REASON_CONFLICT = "node(s) had no available volume zone"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
TOPOLOGY_LABELS = (BETA_ZONE, BETA_REGION, ZONE, REGION)
_TO_GA = {BETA_ZONE: ZONE, BETA_REGION: REGION}
_STATE_KEY = "PreFilter" + NAME


def pv_topologies(pv: Any) -> list[tuple[str, frozenset[str]]]:
    """getPVTopologies: (label key, allowed values) for each topology label on the volume."""
    out = []
    for key in TOPOLOGY_LABELS:
        value = pv.metadata.labels.get(key)
        if value is not None:
            out.append((key, frozenset(z.strip() for z in value.split("__") if z.strip())))
    return out


def pod_topologies(store: Store, pod: Pod) -> tuple[list[tuple[str, frozenset[str]]],
                                                  Status | None]:
    """getPVbyPod."""
    ns = pod.metadata.namespace
    out: list[tuple[str, frozenset[str]]] = []
    for claim in pod_claim_names(pod):
        if not claim:
            return [], Status.unresolvable("PersistentVolumeClaim had no name")
        pvc = store.get("PersistentVolumeClaim", claim, ns)
        if pvc is None:
            return [], Status.unresolvable(f'persistentvolumeclaim "{claim}" not found')
        pv_name = pvc.spec.volume_name
        if not pv_name:
            sc_name = claim_class(pvc)
            if not sc_name:
                return [], Status.unresolvable(
                    "PersistentVolumeClaim had no pv name and storageClass name")
            sc = store.get("StorageClass", sc_name)
            if sc is None:
                return [], Status.unresolvable(
                    f'storageclass.storage.k8s.io "{sc_name}" not found')
            if sc.binding_mode == BINDING_WAIT:
                continue
            return [], Status.unresolvable("PersistentVolume had no name")
        pv = store.get("PersistentVolume", pv_name)
        if pv is None:
            return [], Status.unresolvable(f'persistentvolume "{pv_name}" not found')
        out.extend(pv_topologies(pv))
    return out, None


class VolumeZone:
    name = NAME

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def events_to_register(self) -> list[ClusterEventWithHint]:
        upd = ActionType.ADD | ActionType.UPDATE
        return [ClusterEventWithHint(ClusterEvent(STORAGE_CLASS, ActionType.ADD)),
                ClusterEventWithHint(ClusterEvent(NODE, upd)),
                ClusterEventWithHint(ClusterEvent(PERSISTENT_VOLUME_CLAIM, upd)),
                ClusterEventWithHint(ClusterEvent(PERSISTENT_VOLUME, upd))]

    def spec_only(self, pod: Pod) -> tuple[str, ...]:
        """PreFilter reads the store only for the pod's claims: without any, only its spec
        (pod_plan.py)."""
        return () if pod_claim_names(pod) else ("pre_filter",)

    def pre_filter(self, state: Any, pod: Pod, nodes: list):
        if not pod_claim_names(pod) or getattr(self.handle, "store", None) is None:
            return None, Status.skip()
        topologies, status = pod_topologies(self.handle.store, pod)
        if status is not None:
            return None, status
        if not topologies:
            return None, Status.skip()
        state.write(_STATE_KEY, topologies)
        return None, None

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        topologies = state.get(_STATE_KEY)
        if not topologies:
            return None
        labels = node_info.labels
        if not any(k in labels for k in TOPOLOGY_LABELS):
            return None
        for key, values in topologies:
            v = labels.get(key)
            if v is None and key in _TO_GA:
                v = labels.get(_TO_GA[key])
            if v is None or v not in values:
                return Status.unresolvable(ERR_REASON_CONFLICT)
        return None


def new(args: Any, handle: Any) -> VolumeZone:
    return VolumeZone(handle)
