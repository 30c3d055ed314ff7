"""VolumeBinding: a pod's PersistentVolumeClaims must be bound, or bindable on the node.

Upstream ``plugins/volumebinding/volume_binding.go`` and ``binder.go`` (GetPodVolumeClaims,
FindPodVolumes, checkBoundClaims, findMatchingVolumes, checkVolumeProvisions,
BindPodVolumes), in our own words:

* PreFilter sorts the pod's claims: bound (``volumeName`` set and ``bind-completed``),
  WaitForFirstConsumer claims still to bind, and unbound claims of an Immediate class (or
  pre-bound by ``volumeName`` but not yet bound) — those make the pod
  UnschedulableAndUnresolvable, "pod has unbound immediate PersistentVolumeClaims", until the
  PV controller binds them. No claims: Skip.
* Filter, per node: a bound claim's PV must exist ("node(s) unavailable due to one or more
  pvc(s) bound to non-existent pv(s)") and its node affinity must admit the node ("node(s) had
  volume node affinity conflict"); a claim to bind needs an Available PV that fits the node,
  or a class that can provision there (a provisioner other than
  ``kubernetes.io/no-provisioner`` whose allowedTopologies admit the node), else "node(s)
  didn't find available persistent volumes to bind". A claim the scheduler already gave a
  node (``volume.kubernetes.io/selected-node``) only fits that node.
* PreBind, on the chosen node: a matched PV gets the claim in its ``claimRef``
  (``bound-by-controller``), a claim to provision gets ``selected-node``; the PV controller
  (``controllers/persistentvolume.py``) finishes the binding and the provisioning.

Not here: storage capacity (CSIStorageCapacity, "did not have enough free storage"), the
scoring of the StorageCapacityScoring feature, the PreFilter's eligible-node narrowing for
local volumes, waiting in PreBind for the binding to complete (the controller finishes it at
the same simulated instant).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from ...api.codec import FrozenDict
from ...api.storage_names import ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE
from ...api.volume_helpers import (
    NOT_SUPPORTED_PROVISIONER,
    check_node_affinity,
    claim_class,
    find_matching_volume,
    is_delay_binding,
    pod_claim_names,
    topology_terms_match,
    volume_class,
)
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
    from ...api.core import Node, Pod
    from ...apiserver.store import Store

NAME = names.VOLUME_BINDING
ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
_STATE_KEY = "PreFilter" + NAME


@attrs.define
class _Claims:
    bound: list[Any]
    to_bind: list[Any]


def claims_of(store: Store, pod: Pod) -> tuple[_Claims | None, Status | None]:
    """GetPodVolumeClaims: (bound, to bind) or the status that stops the pod."""
    ns = pod.metadata.namespace
    classes = {sc.metadata.name: sc for sc in store.list("StorageClass")}
    out = _Claims([], [])
    immediate = False
    for name in pod_claim_names(pod):
        pvc = store.get("PersistentVolumeClaim", name, ns)
        if pvc is None:
            return None, Status.unresolvable(f'persistentvolumeclaim "{name}" not found')
        if pvc.metadata.deletion_timestamp is not None:
            return None, Status.unresolvable(f'persistentvolumeclaim "{name}" is being deleted')
        if pvc.spec.volume_name and ANN_BIND_COMPLETED in pvc.metadata.annotations:
            out.bound.append(pvc)
        elif is_delay_binding(pvc, classes) and not pvc.spec.volume_name:
            out.to_bind.append(pvc)
        else:
            immediate = True
    if immediate:
        return None, Status.unresolvable(UNBOUND_IMMEDIATE)
    return out, None


class VolumeBinding:
    name = NAME

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def events_to_register(self) -> list[ClusterEventWithHint]:
        upd = ActionType.ADD | ActionType.UPDATE
        return [ClusterEventWithHint(ClusterEvent(PERSISTENT_VOLUME_CLAIM, upd)),
                ClusterEventWithHint(ClusterEvent(PERSISTENT_VOLUME, upd)),
                ClusterEventWithHint(ClusterEvent(STORAGE_CLASS, upd)),
                ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE))]

    def spec_only(self, pod: Pod) -> tuple[str, ...]:
        """PreFilter reads the store only for the pod's claims: without any, only its spec
        (pod_plan.py)."""
        return () if pod_claim_names(pod) else ("pre_filter",)

    def pre_filter(self, state: Any, pod: Pod, nodes: list):
        if not pod_claim_names(pod):
            return None, Status.skip()
        claims, status = claims_of(self.handle.store, pod)
        if status is not None:
            return None, status
        state.write(_STATE_KEY, claims)
        return None, None

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        claims = state.get(_STATE_KEY)
        if claims is None:
            return None
        reasons = find_pod_volumes(self.handle.store, claims, node_info.node)[0]
        return Status.unresolvable(*reasons) if reasons else None

    def pre_bind(self, state: Any, pod: Pod, node_name: str) -> Status | None:
        """BindPodVolumes' API updates for the chosen node."""
        claims = state.get(_STATE_KEY)
        if claims is None or not claims.to_bind:
            return None
        store = self.handle.store
        node = store.get("Node", node_name)
        if node is None:
            return Status.error(f'node "{node_name}" not found')
        reasons, static, provision = find_pod_volumes(store, claims, node)
        if reasons:
            return Status.unresolvable(*reasons)
        if static:
            # a PV's type, loaded with the first volume (api/kinds.py): a store holding one
            # has imported it already
            from ...api.storage import ObjectRef
        for pv, pvc in static:
            ref = ObjectRef(kind="PersistentVolumeClaim", namespace=pvc.metadata.namespace,
                            name=pvc.metadata.name, uid=pvc.metadata.uid, api_version="v1",
                            resource_version=pvc.metadata.resource_version)
            ann = dict(pv.metadata.annotations)
            ann[ANN_BOUND_BY_CONTROLLER] = "yes"
            store.update(attrs.evolve(pv, metadata=attrs.evolve(
                pv.metadata, annotations=FrozenDict(ann)), spec=attrs.evolve(
                pv.spec, claim_ref=ref)))
        for pvc in provision:
            ann = dict(pvc.metadata.annotations)
            ann[ANN_SELECTED_NODE] = node_name
            store.update(attrs.evolve(pvc, metadata=attrs.evolve(
                pvc.metadata, annotations=FrozenDict(ann))))
        return None


def find_pod_volumes(store: Store, claims: _Claims, node: Node
                     ) -> tuple[list[str], list[tuple[Any, Any]], list[Any]]:
    """FindPodVolumes for one node: (reasons, static bindings (pv, pvc), claims to
    provision)."""
    bound_ok, pvs_found, unbound_ok = True, True, True
    for pvc in claims.bound:
        pv = store.get("PersistentVolume", pvc.spec.volume_name)
        if pv is None:
            pvs_found = False
            break
        if not check_node_affinity(pv, node.metadata.labels, node.metadata.name):
            bound_ok = False
            break
    static: list[tuple[Any, Any]] = []
    provision: list[Any] = []
    if claims.to_bind:
        matching = []
        for pvc in claims.to_bind:
            selected = pvc.metadata.annotations.get(ANN_SELECTED_NODE)
            if selected is not None:
                if selected != node.metadata.name:
                    unbound_ok = False
                    break
                provision.append(pvc)
            else:
                matching.append(pvc)
        if unbound_ok and matching:
            pvs = store.list("PersistentVolume")
            chosen: set[str] = set()
            for pvc in matching:
                pv = find_matching_volume(pvc, [v for v in pvs
                                                if claim_class(pvc) == volume_class(v)],
                                          node=node, excluded=chosen, delay_binding=True)
                if pv is None:
                    provision.append(pvc)
                    continue
                chosen.add(pv.metadata.name)
                static.append((pv, pvc))
        if unbound_ok and provision:
            unbound_ok = _can_provision(store, provision, node)
    reasons = []
    if not bound_ok:
        reasons.append(ERR_REASON_NODE_CONFLICT)
    if not unbound_ok:
        reasons.append(ERR_REASON_BIND_CONFLICT)
    if not pvs_found:
        reasons.append(ERR_REASON_PV_NOT_EXIST)
    return reasons, static, provision


def _can_provision(store: Store, claims: list[Any], node: Node) -> bool:
    """checkVolumeProvisions: every claim's class can provision a volume on this node."""
    for pvc in claims:
        sc = store.get("StorageClass", claim_class(pvc))
        if sc is None:
            return False
        if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
            return False
        if not topology_terms_match(sc.allowed_topologies, node.metadata.labels):
            return False
    return True


def new(args: Any, handle: Any) -> VolumeBinding:
    return VolumeBinding(handle)
