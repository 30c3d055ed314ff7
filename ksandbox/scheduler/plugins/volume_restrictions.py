"""VolumeRestrictions: disks only one node (or one writer) may mount, and claims only one pod
may use.

Upstream ``plugins/volumerestrictions/volume_restrictions.go``, in our own words:

* Inline disks: the same GCE PD (unless all mounts are read-only), AWS EBS volume, iSCSI IQN
  or RBD image (unless read-only) on a pod already on the node is a conflict, "node(s) had no
  available disk".
* ReadWriteOncePod: PreFilter looks up each claim the pod names (a missing one is
  UnschedulableAndUnresolvable with the API's ``persistentvolumeclaim "x" not found``) and
  counts the scheduled pods anywhere that already use a ReadWriteOncePod claim of this pod;
  any such pod makes every node Unschedulable, "node has pod using PersistentVolumeClaim with
  the same name and ReadWriteOncePod access mode" (preemption may remove it: AddPod/RemovePod
  keep the count).

Nothing to check: Skip.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...api.volume_helpers import pod_claim_names, read_write_once_pod
from ..framework.interface import (
    ASSIGNED_POD,
    PERSISTENT_VOLUME_CLAIM,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Status,
)
from . import names

if TYPE_CHECKING:
    from ...api.core import Pod

NAME = names.VOLUME_RESTRICTIONS
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
ERR_REASON_RWOP_CONFLICT = ("node has pod using PersistentVolumeClaim with the same name and "
                            "ReadWriteOncePod access mode")
_STATE_KEY = "PreFilter" + NAME


class _State:
    """The pod's ReadWriteOncePod claim keys and how many scheduled pods use them."""

    __slots__ = ("keys", "conflicts")

    def __init__(self, keys: frozenset[str], conflicts: int) -> None:
        self.keys = keys
        self.conflicts = conflicts

    def clone(self) -> "_State":
        return _State(self.keys, self.conflicts)


def _claim_keys(pod: Pod) -> set[str]:
    ns = pod.metadata.namespace
    return {f"{ns}/{c}" for c in pod_claim_names(pod)}
_KINDS = ("gcePersistentDisk", "awsElasticBlockStore", "iscsi", "rbd")


def _sources(pod: Pod) -> list[tuple[str, dict]]:
    out = []
    for v in pod.spec.volumes:
        for kind in _KINDS:
            src = v.extra.get(kind)
            if isinstance(src, dict):
                out.append((kind, src))
    return out


def is_volume_conflict(kind: str, src: dict, existing: list[tuple[str, dict]]) -> bool:
    ro = bool(src.get("readOnly"))
    for ekind, esrc in existing:
        if ekind != kind:
            continue
        ero = bool(esrc.get("readOnly"))
        if kind == "gcePersistentDisk":
            if src.get("pdName") == esrc.get("pdName") and not (ro and ero):
                return True
        elif kind == "awsElasticBlockStore":
            if src.get("volumeID") == esrc.get("volumeID"):
                return True
        elif kind == "iscsi":
            if src.get("iqn") == esrc.get("iqn") and not (ro and ero):
                return True
        elif kind == "rbd":
            mons = set(src.get("monitors") or ())
            if mons & set(esrc.get("monitors") or ()) and src.get("pool") == esrc.get("pool") \
                    and src.get("image") == esrc.get("image") and not (ro and ero):
                return True
    return False


class VolumeRestrictions:
    name = NAME

    def __init__(self, handle: Any = None) -> None:
        self.handle = handle

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(ASSIGNED_POD, ActionType.DELETE)),
                ClusterEventWithHint(ClusterEvent(PERSISTENT_VOLUME_CLAIM,
                                                  ActionType.ADD | ActionType.UPDATE))]

    def spec_only(self, pod: Pod) -> tuple[str, ...]:
        """PreFilter reads the store only for the pod's claims: without any, only its spec
        (pod_plan.py)."""
        return () if pod_claim_names(pod) else ("pre_filter",)

    def pre_filter(self, state: Any, pod: Pod, nodes: list):
        needs_disk_check = bool(_sources(pod))
        claims = pod_claim_names(pod)
        store = getattr(self.handle, "store", None)
        rwop: set[str] = set()
        if claims and store is not None:
            ns = pod.metadata.namespace
            for name in claims:
                pvc = store.get("PersistentVolumeClaim", name, ns)
                if pvc is None:
                    return None, Status.unresolvable(f'persistentvolumeclaim "{name}" not found')
                if read_write_once_pod(pvc):
                    rwop.add(f"{ns}/{name}")
        conflicts = 0
        if rwop:
            me = (pod.metadata.namespace, pod.metadata.name)
            for ni in self.handle.node_list():
                for pi in ni.pods.values():
                    other = pi.pod.metadata
                    if (other.namespace, other.name) != me and _claim_keys(pi.pod) & rwop:
                        conflicts += 1
        if not needs_disk_check and conflicts == 0:
            return None, Status.skip()
        state.write(_STATE_KEY, _State(frozenset(rwop), conflicts))
        return None, None

    def add_pod(self, state: Any, pod: Pod, pi: Any, node_info: Any) -> None:
        s = state.get(_STATE_KEY)
        if s is not None and s.keys and _claim_keys(pi.pod) & s.keys:
            s.conflicts += 1

    def remove_pod(self, state: Any, pod: Pod, pi: Any, node_info: Any) -> None:
        s = state.get(_STATE_KEY)
        if s is not None and s.keys and _claim_keys(pi.pod) & s.keys:
            s.conflicts -= 1

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        mine = _sources(pod)
        if mine:
            for pi in node_info.pods.values():
                theirs = _sources(pi.pod)
                if theirs and any(is_volume_conflict(k, s, theirs) for k, s in mine):
                    return Status.unschedulable(ERR_REASON_DISK_CONFLICT)
        s = state.get(_STATE_KEY)
        if s is not None and s.conflicts > 0:
            return Status.unschedulable(ERR_REASON_RWOP_CONFLICT)
        return None


def new(args: Any, handle: Any) -> VolumeRestrictions:
    return VolumeRestrictions(handle)
