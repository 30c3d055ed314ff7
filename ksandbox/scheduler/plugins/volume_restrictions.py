"""VolumeRestrictions: inline disks that only one node (or one writer) may mount.

Upstream ``plugins/volumerestrictions/volume_restrictions.go``: the same GCE PD (unless all
mounts are read-only), AWS EBS volume, iSCSI IQN or RBD image (unless read-only) on a pod
already on the node is a conflict. The sandbox has no PersistentVolumeClaims, so the
ReadWriteOncePod half of the plugin has nothing to check.
"""

from __future__ import annotations

from typing import Any

from ..framework.interface import (
    ASSIGNED_POD,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Status,
)
from . import names

NAME = names.VOLUME_RESTRICTIONS
ERR_REASON_DISK_CONFLICT = "node(s) had no available disk"
_KINDS = ("gcePersistentDisk", "awsElasticBlockStore", "iscsi", "rbd")


def _sources(pod: Any) -> list[tuple[str, dict]]:
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

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(ASSIGNED_POD, ActionType.DELETE))]

    def pre_filter(self, state: Any, pod: Any, nodes: list):
        if not _sources(pod):
            return None, Status.skip()
        return None, None

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status | None:
        mine = _sources(pod)
        for pi in node_info.pods.values():
            theirs = _sources(pi.pod)
            if theirs and any(is_volume_conflict(k, s, theirs) for k, s in mine):
                return Status.unschedulable(ERR_REASON_DISK_CONFLICT)
        return None


def new(args: Any, handle: Any) -> VolumeRestrictions:
    return VolumeRestrictions()
