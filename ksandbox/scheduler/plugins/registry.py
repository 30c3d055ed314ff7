"""The in-tree plugin registry: plugin name -> factory ``(args, handle) -> plugin``.

Upstream ``pkg/scheduler/framework/plugins/registry.go`` (NewInTreeRegistry), kept beside the
plugins as upstream keeps it. Plugins upstream enables that have nothing to do in the sandbox
(NodeVolumeLimits, DynamicResources) are accepted by name and do nothing. The
default profile (which plugins, in which order, with which weights) is not here: it is
``framework/defaults.py``.
"""

from __future__ import annotations

from typing import Any, Callable

from . import (
    balanced_allocation,
    default_preemption,
    image_locality,
    inter_pod_affinity,
    names,
    node_affinity,
    node_name,
    node_ports,
    node_resources_fit,
    node_unschedulable,
    pod_topology_spread,
    taint_toleration,
    volume_binding,
    volume_restrictions,
    volume_zone,
)


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
    names.VOLUME_BINDING: volume_binding.new,
    names.VOLUME_ZONE: volume_zone.new,
    names.POD_TOPOLOGY_SPREAD: pod_topology_spread.new,
    names.INTER_POD_AFFINITY: inter_pod_affinity.new,
    names.DEFAULT_PREEMPTION: default_preemption.new,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: balanced_allocation.new,
    names.IMAGE_LOCALITY: image_locality.new,
    names.DYNAMIC_RESOURCES: _inert(names.DYNAMIC_RESOURCES),
    names.DEFAULT_BINDER: _marker(names.DEFAULT_BINDER),
}
