"""The in-tree plugin registry and the default profile.

Upstream ``framework/plugins/registry.go`` (name -> factory) and
``apis/config/v1/default_plugins.go``: the default profile enables these plugins at every
extension point they implement ("multiPoint"), in this order, with these score weights.
Plugins upstream enables that have nothing to do in the sandbox (VolumeBinding,
NodeVolumeLimits, DynamicResources) are accepted by name and do nothing.
"""

from __future__ import annotations

from typing import Any, Callable

from ..plugins import (balanced_allocation, default_preemption, image_locality,
                       inter_pod_affinity, names, node_affinity, node_name, node_ports,
                       node_resources_fit, node_unschedulable, pod_topology_spread,
                       taint_toleration, volume_restrictions, volume_zone)

DEFAULT_SCHEDULER_NAME = "default-scheduler"


class _Inert:
    """A plugin upstream enables by default that has no work in the sandbox."""

    def __init__(self, name: str) -> None:
        self.name = name


class _Marker:
    """PrioritySort / DefaultBinder / SchedulingGates: built into the queue and the binder."""

    def __init__(self, name: str) -> None:
        self.name = name


def _inert(name: str) -> Callable[[Any, Any], Any]:
    return lambda args, handle: _Inert(name)


def _marker(name: str) -> Callable[[Any, Any], Any]:
    return lambda args, handle: _Marker(name)


REGISTRY: dict[str, Callable[[Any, Any], Any]] = {
    names.SCHEDULING_GATES: _marker(names.SCHEDULING_GATES),
    names.PRIORITY_SORT: _marker(names.PRIORITY_SORT),
    names.NODE_UNSCHEDULABLE: node_unschedulable.new,
    names.NODE_NAME: node_name.new,
    names.TAINT_TOLERATION: taint_toleration.new,
    names.NODE_AFFINITY: node_affinity.new,
    names.NODE_PORTS: node_ports.new,
    names.NODE_RESOURCES_FIT: node_resources_fit.new,
    names.VOLUME_RESTRICTIONS: volume_restrictions.new,
    names.NODE_VOLUME_LIMITS: _inert(names.NODE_VOLUME_LIMITS),
    names.VOLUME_BINDING: _inert(names.VOLUME_BINDING),
    names.VOLUME_ZONE: volume_zone.new,
    names.POD_TOPOLOGY_SPREAD: pod_topology_spread.new,
    names.INTER_POD_AFFINITY: inter_pod_affinity.new,
    names.DEFAULT_PREEMPTION: default_preemption.new,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: balanced_allocation.new,
    names.IMAGE_LOCALITY: image_locality.new,
    names.DYNAMIC_RESOURCES: _inert(names.DYNAMIC_RESOURCES),
    names.DEFAULT_BINDER: _marker(names.DEFAULT_BINDER),
}

# default_plugins.go getDefaultPlugins: MultiPoint, in order, with weights (0 = not a scorer).
DEFAULT_MULTI_POINT: tuple[tuple[str, int], ...] = (
    (names.SCHEDULING_GATES, 0),
    (names.PRIORITY_SORT, 0),
    (names.NODE_UNSCHEDULABLE, 0),
    (names.NODE_NAME, 0),
    (names.TAINT_TOLERATION, 3),
    (names.NODE_AFFINITY, 2),
    (names.NODE_PORTS, 0),
    (names.NODE_RESOURCES_FIT, 1),
    (names.VOLUME_RESTRICTIONS, 0),
    (names.NODE_VOLUME_LIMITS, 0),
    (names.VOLUME_BINDING, 0),
    (names.VOLUME_ZONE, 0),
    (names.POD_TOPOLOGY_SPREAD, 2),
    (names.INTER_POD_AFFINITY, 2),
    (names.DEFAULT_PREEMPTION, 0),
    (names.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    (names.IMAGE_LOCALITY, 1),
    (names.DEFAULT_BINDER, 0),
)

# The extension points a profile's ``plugins`` may name, and the method each maps to.
EXTENSION_POINTS: dict[str, str | None] = {
    "queueSort": None, "preEnqueue": None, "preFilter": "pre_filter", "filter": "filter",
    "postFilter": "post_filter", "preScore": "pre_score", "score": "score",
    "reserve": "reserve", "permit": None, "preBind": None, "bind": None, "postBind": None,
}
