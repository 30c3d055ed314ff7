"""NodePorts: a pod asking for a host port needs that port free on the node.

Upstream ``plugins/nodeports/node_ports.go``: (hostIP, protocol, hostPort) triples; 0.0.0.0
clashes with every IP on the same protocol and port.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..framework.interface import (
    ASSIGNED_POD,
    NODE,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
    Status,
)
from . import names

if TYPE_CHECKING:
    import numpy as np

    from ...api.core import Pod
else:
    from ..framework.lazy_numpy import np

NAME = names.NODE_PORTS
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"


def fits_ports(want: tuple, node_info: Any) -> bool:
    return not any(node_info.port_conflict(ip, proto, port) for ip, proto, port in want)


class NodePorts:
    name = NAME

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(ASSIGNED_POD, ActionType.DELETE), self._pod_hint),
                ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD))]

    def _pod_hint(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """A deleted pod frees ports only if it held one the pod wants."""
        want = {(proto, port) for _, proto, port in pod.spec.host_ports}
        held = {(proto, port) for _, proto, port in old.spec.host_ports}
        return QueueingHint.QUEUE if want & held else QueueingHint.QUEUE_SKIP

    def spec_only(self, pod: Pod) -> tuple[str, ...]:
        """PreFilter reads only the pod's host ports (pod_plan.py)."""
        return ("pre_filter",)

    def pre_filter(self, state: Any, pod: Pod, nodes: list):
        ports = pod.spec.host_ports
        if not ports:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, ports)
        return None, None

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        want = state.get(PRE_FILTER_STATE_KEY)
        if want is None:
            want = pod.spec.host_ports
        if fits_ports(want, node_info):
            return None
        return Status.unschedulable(ERR_REASON)

    def filter_vec(self, state: Any, pod: Pod, ctx: Any):
        want = state.read(PRE_FILTER_STATE_KEY)
        codes = np.zeros(ctx.n, dtype=np.int32)
        for i, ni in enumerate(ctx.infos):
            if ni.used_ports and not fits_ports(want, ni):
                codes[i] = 1
        return codes, {1: Status.unschedulable(ERR_REASON)}


def new(args: Any, handle: Any) -> NodePorts:
    return NodePorts()
