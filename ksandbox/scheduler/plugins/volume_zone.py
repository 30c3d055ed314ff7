"""VolumeZone: a pod's PersistentVolumes must be usable in the node's zone.

Upstream ``plugins/volumezone/volume_zone.go`` compares the zone labels of the volumes bound
to the pod's claims with the node's. The sandbox models no PersistentVolume or
PersistentVolumeClaim kinds, so no volume carries a zone: the plugin is registered (profiles
may name it) and skips every pod at PreFilter.
"""

from __future__ import annotations

from typing import Any

from ..framework.interface import Status
from . import names

NAME = names.VOLUME_ZONE
ERR_REASON_CONFLICT = "node(s) had no available volume zone"


class VolumeZone:
    name = NAME

    def pre_filter(self, state: Any, pod: Any, nodes: list):
        return None, Status.skip()

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status | None:
        return None


def new(args: Any, handle: Any) -> VolumeZone:
    return VolumeZone()
