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
sorted by age (re-sorted only when that node's pods change or an age crosses a power of two —
looked at when the node's best pod comes up in a pick: ages only grow, so an order that has
aged was never placed after where it belongs), and the k to delete are merged across the most
crowded nodes. The few other pods are sorted
with the full key. The result is exactly the full sort's.

Not here: container restart counts (not modelled), the controllers themselves.
"""

from __future__ import annotations

import heapq
import math
from itertools import count as _counter
from typing import TYPE_CHECKING, Any

from .controller_utils import pod_active, pod_ready, ready_since

if TYPE_CHECKING:
    from ..api.core import Pod

# pkg/apis/core: the annotation that makes a pod cheaper (or dearer) to delete.
POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
# pkg/controller/controller_utils.go: podPhaseToOrdinal (phases not listed count as 0).
_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}
_versions = _counter(1)


def deletion_cost(pod: Pod) -> int:
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


def deletion_key(pod: Pod, ranks: dict[str, int], now: float) -> tuple:
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


def _is_plain(pod: Pod, ready: bool) -> bool:
    """``ready``: pod_ready(pod), which the caller has read already."""
    return (bool(pod.spec.node_name) and pod.status.phase == "Running" and ready
            and deletion_cost(pod) == 0)


class ActivePods:
    """One owner's active pods with the running counts its status needs, and the standing
    order of its plain pods for deletion."""

    __slots__ = ("active", "ready", "labeled", "labels", "nodes", "special", "node_counts",
                 "_static", "_sorted", "_entry", "_heap", "_expiry", "_dirty", "_ranks_src")

    def __init__(self) -> None:
        self.active = self.ready = self.labeled = 0
        self.labels: Any = None  # the template labels ``labeled`` was counted against
        self.nodes: dict[str, dict[str, Any]] = {}   # node ("" = none) → name → pod
        self.special: dict[str, Any] = {}            # the pods that are not plain
        self.node_counts = NodeCounts(self)
        # Per node: its plain pods' (ready since, created, uid, pod), rebuilt when they
        # change; sorted by age key, and until when _pick_plain may take that order.
        self._static: dict[str, list[tuple]] = {}
        self._sorted: dict[str, tuple[float, list]] = {}
        # A lazy heap of each node's best plain pod, (-rank, age key, node, stamp); an entry
        # is live while its stamp is the node's current one in ``_entry``.
        self._entry: dict[str, tuple] = {}
        self._heap: list[tuple] = []
        self._expiry: list[tuple[float, str, int]] = []
        self._dirty: set[str] = set()
        self._ranks_src: Any = None

    def account(self, pod: Pod, sign: int) -> bool:
        """A pod enters (+1) or leaves (-1) the set; inactive pods are not counted (False)."""
        if not pod_active(pod):
            return False
        ready = pod_ready(pod)
        self.active += sign
        if ready:
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
        if not _is_plain(pod, ready):
            if sign > 0:
                self.special[name] = pod
            else:
                self.special.pop(name, None)
        self._dirty.add(node)
        self._static.pop(node, None)
        return True

    def ranks_changed(self, nodes: list[str]) -> None:
        """The family's count changed on each of ``nodes`` (a sibling's pods came or went):
        one call for all of a pick's changed nodes (~24 calls a pick when it was one each)."""
        mine, dirty = self.nodes, self._dirty
        for node in nodes:
            if node in mine:
                dirty.add(node)

    def all(self) -> list[Any]:
        return [p for on in self.nodes.values() for p in on.values()]

    def pick(self, count: int, ranks: Any, now: float) -> list[Any]:
        """The ``count`` pods upstream would delete first. ``ranks`` maps a node to how many
        active pods of the family (the ReplicaSets of one Deployment) it holds (``.get``);
        pass the same object while it stays valid, and call :meth:`ranks_changed` when a
        sibling's count on a node changes."""
        if count >= self.active:
            return self.all()
        before, after = [], []
        for p in self.special.values():
            late = (p.spec.node_name and p.status.phase == "Running" and pod_ready(p)
                    and deletion_cost(p) > 0)
            (after if late else before).append(p)
        if before:
            table = {n: ranks.get(n, 0) for n in {p.spec.node_name for p in before}}
            before.sort(key=lambda p: deletion_key(p, table, now))
        if count <= len(before):
            return before[:count]
        out = before
        out.extend(self._pick_plain(count - len(out), ranks, now))
        if len(out) < count:
            table = {n: ranks.get(n, 0) for n in {p.spec.node_name for p in after}}
            after.sort(key=lambda p: deletion_key(p, table, now))
            out.extend(after[:count - len(out)])
        return out

    # -- the standing order of plain pods ----------------------------------------------------
    def _refresh(self, ranks: Any, now: float) -> None:
        if ranks is not self._ranks_src:
            self._ranks_src = ranks
            self._static.clear()
            self._entry.clear()
            self._heap.clear()
            self._expiry.clear()
            self._dirty = set(self.nodes)
        expiry = self._expiry
        while expiry and expiry[0][0] <= now:
            _, node, stamp = heapq.heappop(expiry)
            entry = self._entry.get(node)
            if entry is not None and entry[3] == stamp:
                self._dirty.add(node)
        for node in self._dirty:
            self._sorted.pop(node, None)
            self._entry.pop(node, None)
            if not node or node not in self.nodes:
                continue
            self._push(node, ranks, now)
        self._dirty.clear()
        if len(self._heap) > 2 * len(self._entry) + 64:  # drop the dead entries
            self._heap = list(self._entry.values())
            heapq.heapify(self._heap)
            live = {e[3] for e in self._entry.values()}
            self._expiry = [x for x in expiry if x[2] in live]
            heapq.heapify(self._expiry)

    def _push(self, node: str, ranks: Any, now: float) -> None:
        """Sort the node's plain pods and put its best one in the heap. An order that ages
        only by its pods' ages growing is checked when its entry comes to the top
        (_pick_plain); one with a pod of age <= 0 goes in the expiry heap (_refresh)."""
        valid, entries, monotone = self._sort_node(node, now)
        if entries:
            entry = (-ranks.get(node, 0), entries[0][0], node, next(_versions))
            self._entry[node] = entry
            heapq.heappush(self._heap, entry)
            if not monotone:
                heapq.heappush(self._expiry, (valid, node, entry[3]))

    def _pick_plain(self, need: int, ranks: Any, now: float) -> list[Any]:
        """A k-way merge of the nodes' sorted plain pods, crowded nodes first; the standing
        heap is left as it was (picking is not deleting)."""
        self._refresh(ranks, now)
        heap, live = self._heap, self._entry
        taken: list[tuple] = []
        more: list[tuple] = []  # (-rank, key, node, index) of the nodes' next pods
        out: list[Any] = []
        sorted_ = self._sorted
        while len(out) < need:
            while heap:
                top = heap[0]
                node = top[2]
                if live.get(node) is not top:
                    heapq.heappop(heap)
                elif sorted_[node][0] <= now:
                    # An order that has aged (_push): its pods' ages only grow, so each key
                    # only grows and the stale entry was never after its place — sorted
                    # again, the node goes back in at its place now.
                    heapq.heappop(heap)
                    del live[node]
                    self._push(node, ranks, now)
                else:
                    break
            if heap and (not more or heap[0][:2] < more[0][:2]):
                entry = heapq.heappop(heap)
                taken.append(entry)
                neg_rank, node, i = entry[0], entry[2], 0
            elif more:
                neg_rank, _, node, i = heapq.heappop(more)
            else:
                break
            entries = self._sorted[node][1]
            out.append(entries[i][1])
            if i + 1 < len(entries):
                heapq.heappush(more, (neg_rank, entries[i + 1][0], node, i + 1))
        for entry in taken:
            heapq.heappush(heap, entry)
        return out

    def _sort_node(self, node: str, now: float) -> tuple[float, list, bool]:
        """The node's plain pods as [(age key, pod)], sorted; until when that holds (an age
        crossing into the next power of two may reorder them); and whether every age in it
        is positive — then the keys only grow with time (log2 of a growing age), while an
        age of 0 or less turns to a positive one whose log2 may be below -1."""
        static = self._static.get(node)
        if static is None:
            special = self.special
            static = [(ready_since(p), p.metadata.creation_timestamp, p.metadata.uid, p)
                      for name, p in self.nodes.get(node, {}).items() if name not in special]
            self._static[node] = static
        entries = []
        valid = math.inf
        monotone = True
        log2 = math.log2
        for since, created, uid, p in static:
            r = c = -2
            if since is not None:
                age = now - since
                if age > 0:
                    r = int(log2(age * 1e9))
                    change = since + 2.0 ** (r + 1) / 1e9
                else:
                    r, change, monotone = -1, since, False
                if change < valid:
                    valid = change
            if created is not None:
                age = now - created
                if age > 0:
                    c = int(log2(age * 1e9))
                    change = created + 2.0 ** (c + 1) / 1e9
                else:
                    c, change, monotone = -1, created, False
                if change < valid:
                    valid = change
            entries.append(((r, c, uid), p))
        entries.sort(key=_first)
        # _pick_plain sorts again at this time; an order that is not monotone is sorted
        # again by _refresh (the expiry heap) instead, once per pick (its age of 0 may last).
        self._sorted[node] = (valid if monotone else math.inf, entries)
        return valid, entries, monotone


def _first(entry: tuple) -> Any:
    return entry[0]


class NodeCounts:
    """``ranks`` for a ReplicaSet without a family: its own active pods per node."""

    __slots__ = ("_pods",)

    def __init__(self, pods: ActivePods) -> None:
        self._pods = pods

    def get(self, node: str, default: int = 0) -> int:
        on = self._pods.nodes.get(node)
        return len(on) if on is not None else default


def labels_cover(labels: Any, wanted: Any) -> bool:
    """Whether ``labels`` carry every key/value of ``wanted``."""
    if labels is wanted:
        return True
    for k, v in wanted.items():
        if labels.get(k) != v:
            return False
    return True
