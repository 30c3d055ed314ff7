"""NodeName: a pod that names a node fits only that node.

Upstream ``plugins/nodename/node_name.go``. (A pod created with ``spec.nodeName`` set never
reaches the scheduler — the kubelet takes it directly — so this filter matters for explain and
for profiles that re-run it.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..framework.interface import NODE, ActionType, ClusterEvent, ClusterEventWithHint, Status
from . import names

if TYPE_CHECKING:
    import numpy as np

    from ...api.core import Pod
else:
    from ..framework.lazy_numpy import np

NAME = names.NODE_NAME
ERR_REASON = "node(s) didn't match the requested node name"


def fits(pod: Pod, node_info: Any) -> bool:
    return not pod.spec.node_name or pod.spec.node_name == node_info.name


class NodeName:
    name = NAME
    filter_reads_one_node = True   # its verdicts may come from its column: explain._column_passes
    # filter_vec reads only the pod's spec and the nodes' static parts: the fast path asks it
    # once per spec object while those stand when it lets every node pass (FastPath._filter)
    filter_vec_static = True

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD))]

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        if fits(pod, node_info):
            return None
        return Status.unresolvable(ERR_REASON)

    def filter_vec(self, state: Any, pod: Pod, ctx: Any):
        want = pod.spec.node_name
        if not want:
            return None
        codes = np.array([ni.name != want for ni in ctx.infos], dtype=np.int32)
        return codes, {1: Status.unresolvable(ERR_REASON)}


def new(args: Any, handle: Any) -> NodeName:
    return NodeName()
