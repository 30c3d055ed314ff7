"""FitError and Diagnosis: why a pod fits no node, in upstream's words.

Upstream ``framework/types.go``: ``0/N nodes are available: <count reason>, ... .`` with each
node's reasons counted and the "count reason" strings sorted, then the PreFilter message (if
PreFilter rejected the pod, instead of the per-node counts) and the PostFilter (preemption)
message, each as `` <msg>.``.
"""

from __future__ import annotations

from collections import Counter
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING

from .interface import Code, Status

if TYPE_CHECKING:
    from ...api.core import Pod

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"


_NAME = attrgetter("name")

class NodeToStatus:
    """Per-node rejection statuses, plus one status standing for every node not listed."""

    def __init__(self) -> None:
        self.statuses: dict[str, Status] = {}
        self.absent: Status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def set(self, name: str, status: Status) -> None:
        self.statuses[name] = status

    def get(self, name: str) -> Status:
        return self.statuses.get(name, self.absent)

    def __len__(self) -> int:
        return len(self.statuses)

    def nodes_for_code(self, infos: list, code: Code) -> list:
        """The NodeInfos whose status has ``code`` (absent ones use the absent status), in
        ``infos`` order. Built with C-level maps: a pod that fits nowhere asks this over
        every node, and its statuses are a handful of shared objects."""
        got = list(map(self.statuses.get, map(_NAME, infos)))
        distinct = dict(zip(map(id, got), got))
        good = {i for i, st in distinct.items()
                if (st if st is not None else self.absent).code == code}
        return list(compress(infos, map(good.__contains__, map(id, got))))


class Diagnosis:
    def __init__(self) -> None:
        self.node_to_status = NodeToStatus()
        self.unschedulable_plugins: set[str] = set()
        self.pre_filter_msg = ""
        self.post_filter_msg = ""

    def add_plugin_status(self, status: Status) -> None:
        if status.plugin:
            self.unschedulable_plugins.add(status.plugin)


class FitError(Exception):
    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    def reason_histogram(self) -> dict[str, int]:
        d = self.diagnosis
        reasons: dict[str, int] = {}
        # Counted by Status object first, at C speed (the fast path and preemption share one
        # Status among the nodes that failed alike: a backlog pod's FitError over 2,000 nodes
        # holds a handful), then per reason.
        statuses = list(d.node_to_status.statuses.values())
        ids = list(map(id, statuses))
        by_id = dict(zip(ids, statuses))
        for i, n in Counter(ids).items():
            for r in by_id[i].reasons:
                reasons[r] = reasons.get(r, 0) + n
        missing = self.num_all_nodes - len(d.node_to_status)
        if missing > 0:
            for r in d.node_to_status.absent.reasons:
                reasons[r] = reasons.get(r, 0) + missing
        return reasons

    def __str__(self) -> str:
        msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        d = self.diagnosis
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            parts = sorted(f"{v} {k}" for k, v in self.reason_histogram().items())
            if parts:
                msg += f" {', '.join(parts)}."
        if d.post_filter_msg:
            msg += f" {d.post_filter_msg}"
        return msg

