"""NodeUnschedulable: a cordoned node (spec.unschedulable) takes no new pods.

Upstream ``plugins/nodeunschedulable/node_unschedulable.go``: a pod passes if it tolerates
the ``node.kubernetes.io/unschedulable:NoSchedule`` taint (as DaemonSet pods do).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...api.taints import NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE, Taint, tolerations_tolerate_taint
from ..framework.interface import (
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

NAME = names.NODE_UNSCHEDULABLE
ERR_REASON_UNSCHEDULABLE = "node(s) were unschedulable"
ERR_REASON_UNKNOWN_CONDITION = "node(s) had unknown conditions"

_UNSCHEDULABLE_TAINT = Taint(key=TAINT_NODE_UNSCHEDULABLE, effect=NO_SCHEDULE)


def _tolerates_unschedulable(pod: Pod) -> bool:
    return tolerations_tolerate_taint(pod.spec.tolerations, _UNSCHEDULABLE_TAINT)


class NodeUnschedulable:
    name = NAME
    filter_reads_one_node = True   # its verdicts may come from its column: explain._column_passes
    # filter_vec reads only the pod's spec and the nodes' static parts: the fast path asks it
    # once per spec object while those stand when it lets every node pass (FastPath._filter)
    filter_vec_static = True

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(
            ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT), self._hint)]

    def _hint(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Queue only when the node became schedulable (or the pod tolerates cordons)."""
        if new is None or new.spec.unschedulable and not _tolerates_unschedulable(pod):
            return QueueingHint.QUEUE_SKIP
        if old is not None and not old.spec.unschedulable:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        if not node_info.node.spec.unschedulable:
            return None
        if _tolerates_unschedulable(pod):
            return None
        return Status.unresolvable(ERR_REASON_UNSCHEDULABLE)

    def filter_vec(self, state: Any, pod: Pod, ctx: Any):
        tol = pod.spec.tolerations
        if ctx.static_of(tol, (NAME, "tolerates"), lambda: _tolerates_unschedulable(pod)):
            return None
        mask = ctx.static(("unschedulable",), lambda: np.array(
            [bool(ni.node.spec.unschedulable) for ni in ctx.infos], dtype=bool))
        # Whether any node is cordoned: as static as the mask (asked once per node change,
        # not by every pod over every node).
        if not ctx.static(("unschedulable", "any"), lambda: bool(mask.any())):
            return None
        return mask.astype(np.int32), {1: Status.unresolvable(ERR_REASON_UNSCHEDULABLE)}


def new(args: Any, handle: Any) -> NodeUnschedulable:
    return NodeUnschedulable()
