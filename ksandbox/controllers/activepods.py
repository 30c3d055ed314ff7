"""One owner's active pods, kept from the watch, and the order in which surplus pods are
deleted (upstream ``ActivePodsWithRanks`` in ``pkg/controller/controller_utils.go``, used by
``getPodsToDelete`` in ``pkg/controller/replicaset/replica_set.go``).

The order, first deleted first: unassigned before assigned; Pending < Unknown < Running; not
ready before ready; lower ``controller.kubernetes.io/pod-deletion-cost`` first; pods on nodes
crowded with more pods of the same family (the ReplicaSets of one Deployment) first; ready more
recently first; created more recently first — both ages compared on a log2 scale
(LogarithmicScaleDown, on by default since 1.22) — and finally by uid, a pseudo-random but
stable tie-break.

Sorting every pod for each scale-down would cost O(n log n) per deleted pod in a 15,000-pod
ReplicaSet. Most pods are "plain": bound, Running, ready, without a deletion cost; they differ
only by node crowding and age. So plain pods are grouped by node, each node's plain pods kept
sorted by age (re-sorted only when that node's pods change or an age crosses a power of two),
and the k to delete are merged across the most crowded nodes. The few other pods are sorted
with the full key. The result is exactly the full sort's.

Not here: container restart counts (not modelled), the controllers themselves.
"""

from __future__ import annotations

import heapq
import math
from itertools import count as _counter
from typing import Any, Callable

from .controller_utils import pod_active, pod_ready, ready_since

# pkg/apis/core: the annotation that makes a pod cheaper (or dearer) to delete.
POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
# pkg/controller/controller_utils.go: podPhaseToOrdinal (phases not listed count as 0).
_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}
_versions = _counter(1)


def deletion_cost(pod: Any) -> int:
    raw = pod.metadata.annotations.get(POD_DELETION_COST)
    if raw is None:
        return 0
    try:
        return int(raw)
    except ValueError:
        return 0


def log2_rank(age: float) -> int:
    """The log2 bucket of an age in nanoseconds, as upstream's logarithmicRankDiff (-1 if none)."""
    return int(math.log2(age * 1e9)) if age > 0 else -1


def _next_change(t: float, now: float) -> float:
    """When log2_rank(now' - t) next changes, for now' > now."""
    age = now - t
    if age <= 0:
        return t
    return t + 2.0 ** (log2_rank(age) + 1) / 1e9


def deletion_key(pod: Any, ranks: dict[str, int], now: float) -> tuple:
    """ActivePodsWithRanks.Less as a sort key: smaller is deleted first."""
    node = pod.spec.node_name
    ready = pod_ready(pod)
    ready_rank = 0
    if ready:
        since = ready_since(pod)
        ready_rank = -2 if since is None else log2_rank(now - since)
    created = pod.metadata.creation_timestamp
    created_rank = -2 if created is None else log2_rank(now - created)
    return (1 if node else 0, _PHASE_ORDINAL.get(pod.status.phase, 0), 1 if ready else 0,
            deletion_cost(pod), -ranks.get(node, 0), ready_rank, created_rank, pod.metadata.uid)


def _is_plain(pod: Any) -> bool:
    return (bool(pod.spec.node_name) and pod.status.phase == "Running" and pod_ready(pod)
            and deletion_cost(pod) == 0)


class ActivePods:
    """One owner's active pods with the running counts its status needs."""

    __slots__ = ("active", "ready", "labeled", "labels", "nodes", "special", "versions",
                 "_sorted")

    def __init__(self) -> None:
        self.active = self.ready = self.labeled = 0
        self.labels: Any = None  # the template labels ``labeled`` was counted against
        self.nodes: dict[str, dict[str, Any]] = {}   # node ("" = none) → name → pod
        self.special: dict[str, Any] = {}            # the pods that are not plain
        self.versions: dict[str, int] = {}
        self._sorted: dict[str, tuple[int, float, list]] = {}

    def account(self, pod: Any, sign: int) -> None:
        """A pod enters (+1) or leaves (-1) the set; inactive pods are not counted."""
        if not pod_active(pod):
            return
        self.active += sign
        if pod_ready(pod):
            self.ready += sign
        if self.labels is not None and labels_cover(pod.metadata.labels, self.labels):
            self.labeled += sign
        node, name = pod.spec.node_name, pod.metadata.name
        if sign > 0:
            self.nodes.setdefault(node, {})[name] = pod
        else:
            on = self.nodes.get(node)
            if on is not None:
                on.pop(name, None)
                if not on:
                    del self.nodes[node]
                    self._sorted.pop(node, None)
        if node in self.nodes:
            self.versions[node] = next(_versions)
        else:
            self.versions.pop(node, None)
        if not _is_plain(pod):
            if sign > 0:
                self.special[name] = pod
            else:
                self.special.pop(name, None)

    def count_on(self, node: str) -> int:
        on = self.nodes.get(node)
        return len(on) if on is not None else 0

    def all(self) -> list[Any]:
        return [p for on in self.nodes.values() for p in on.values()]

    def pick(self, count: int, rank_of: Callable[[str], int], now: float) -> list[Any]:
        """The ``count`` pods upstream would delete first."""
        if count >= self.active:
            return self.all()
        ranks = {node: rank_of(node) for node in self.nodes}
        before, after = [], []
        for p in self.special.values():
            late = (p.spec.node_name and p.status.phase == "Running" and pod_ready(p)
                    and deletion_cost(p) > 0)
            (after if late else before).append(p)
        before.sort(key=lambda p: deletion_key(p, ranks, now))
        if count <= len(before):
            return before[:count]
        out = before
        out.extend(self._pick_plain(count - len(out), ranks, now))
        if len(out) < count:
            after.sort(key=lambda p: deletion_key(p, ranks, now))
            out.extend(after[:count - len(out)])
        return out

    def _pick_plain(self, need: int, ranks: dict[str, int], now: float) -> list[Any]:
        levels: dict[int, list[str]] = {}
        for node in self.nodes:
            if node:
                levels.setdefault(ranks[node], []).append(node)
        out: list[Any] = []
        for rank in sorted(levels, reverse=True):
            heap = []
            for node in levels[rank]:
                lst = self._plain_sorted(node, now)
                if lst:
                    heap.append((lst[0][0], node, 0))
            heapq.heapify(heap)
            while heap and len(out) < need:
                _, node, i = heapq.heappop(heap)
                lst = self._sorted[node][2]
                out.append(lst[i][1])
                if i + 1 < len(lst):
                    heapq.heappush(heap, (lst[i + 1][0], node, i + 1))
            if len(out) >= need:
                break
        return out

    def _plain_sorted(self, node: str, now: float) -> list:
        """The node's plain pods as [(age key, pod)], sorted; cached until they change."""
        version = self.versions.get(node, 0)
        hit = self._sorted.get(node)
        if hit is not None and hit[0] == version and now < hit[1]:
            return hit[2]
        special = self.special
        entries = []
        valid = math.inf
        for name, p in self.nodes.get(node, {}).items():
            if name in special:
                continue
            since = ready_since(p)
            created = p.metadata.creation_timestamp
            r = -2 if since is None else log2_rank(now - since)
            c = -2 if created is None else log2_rank(now - created)
            if since is not None:
                valid = min(valid, _next_change(since, now))
            if created is not None:
                valid = min(valid, _next_change(created, now))
            entries.append(((r, c, p.metadata.uid), p))
        entries.sort(key=lambda e: e[0])
        self._sorted[node] = (version, valid, entries)
        return entries


def labels_cover(labels: Any, wanted: Any) -> bool:
    """Whether ``labels`` carry every key/value of ``wanted``."""
    if labels is wanted:
        return True
    for k, v in wanted.items():
        if labels.get(k) != v:
            return False
    return True
