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
sorted by age, and a heap holds each node at its best pod, the rank and both log2 ages packed
in one int key. A node is sorted only when it comes to the top of the heap: until then it
waits with its rank's key alone (below its pods'), and all such nodes of that rank are sorted
together. A node whose rank alone changes keeps its order; one whose pods change waits to be
sorted again; an order whose ages have crossed a power of two is sorted again when it comes
up (ages only grow, so an order that has aged was never placed after where it belongs). One
pod to delete — nearly every scale-down — is the top's; more are merged across the most
crowded nodes. The few other pods are sorted with the full key. The result is exactly the
full sort's.

Not here: ActivePodsWithRanks' "more restarts first" rule (the kubelet keeps restart counts,
but an owned pod restarts only when a user changes its image: the rule is not applied), the
controllers themselves.
"""

from __future__ import annotations

import heapq
import math
from itertools import count as _counter
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ..api.core import FAILED, SUCCEEDED
from .controller_utils import POD_READY, pod_ready, ready_since

if TYPE_CHECKING:
    from ..api.core import Pod

# pkg/apis/core: the annotation that makes a pod cheaper (or dearer) to delete.
POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"
# pkg/controller/controller_utils.go: podPhaseToOrdinal (phases not listed count as 0).
_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}
_versions = _counter(1)
# The standing order's int keys: (-rank << _RANK) + ((r + _AGE_BIAS) << _AGE) + c + _AGE_BIAS
# orders as (-rank, r, c) — r and c, the log2 ages (-2 for none), lie in [-1100, 1100) —
# and compares faster than that tuple in the heap; a rank's key alone is below its pods'.
_AGE, _AGE_BIAS = 12, 2048
_RANK = 2 * _AGE
_AGES_UID = itemgetter(0, 1)   # a node's pods sort by ages key, then uid (as upstream)


def _span(r: int) -> float:
    try:
        return 2.0 ** (r + 1) / 1e9
    except OverflowError:
        return math.inf


# _SPAN[r]: 2**(r+1) ns in seconds, when an age in log2 bucket r (an age in ns in
# [2**r, 2**(r+1))) leaves it, counted from the age's origin — a table, as a pick computes
# it for every pod it sorts. Indexed by r itself: the log2 of a positive float is in
# [-1075, 1024), and a negative r reads from the end, where those buckets are.
_SPAN = [_span(r) for r in range(1100)] + [_span(r) for r in range(-1100, 0)]


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
        # Per node: its plain pods' (ready since, created, uid, pod), dropped when they
        # change; and its order (_sort_node): (until when _pick_plain may take it, [(ages
        # key, uid, pod)] sorted, when an age in it changes bucket, whether all its ages were
        # positive, the static list it was sorted from).
        self._static: dict[str, list[tuple]] = {}
        self._sorted: dict[str, tuple[float, list, float, bool, list]] = {}
        # A lazy heap of the nodes (see "the standing order" below); the live entry of each
        # node in ``_entry``.
        self._entry: dict[str, tuple] = {}
        self._heap: list[tuple] = []
        self._expiry: list[tuple[float, str, int]] = []
        self._dirty: set[str] = set()
        self._ranks_src: Any = None

    def account(self, pod: Pod, sign: int) -> bool:
        """A pod enters (+1) or leaves (-1) the set; inactive pods are not counted (False).

        The ReplicaSet controller's every pod write comes here twice (the old version
        leaves, the new one enters): pod_active, pod_ready, labels_cover and _is_plain are
        written out below, a call each being about as dear as its test (~3k instructions a
        call together; tests/controllers/test_activepods_account.py holds this to the
        helpers' way)."""
        meta, status = pod.metadata, pod.status
        phase = status.phase
        # pod_active
        if meta.deletion_timestamp is not None or phase == SUCCEEDED or phase == FAILED:
            return False
        # pod_ready
        ready = False
        for c in status.conditions:
            if c.type == POD_READY:
                ready = c.status == "True"
                break
        self.active += sign
        if ready:
            self.ready += sign
        wanted = self.labels
        if wanted is not None:
            # labels_cover
            labels = meta.labels
            if labels is not wanted:
                for k, v in wanted.items():
                    if labels.get(k) != v:
                        break
                else:
                    self.labeled += sign
            else:
                self.labeled += sign
        node, name = pod.spec.node_name, meta.name
        if sign > 0:
            on = self.nodes.get(node)
            if on is None:
                on = self.nodes[node] = {}
            on[name] = pod
        else:
            on = self.nodes.get(node)
            if on is not None:
                on.pop(name, None)
                if not on:
                    del self.nodes[node]
        # _is_plain (the deletion cost read only when all else says plain: most pods have
        # no such annotation)
        if not (node and phase == "Running" and ready and (
                POD_DELETION_COST not in meta.annotations or deletion_cost(pod) == 0)):
            if sign > 0:
                self.special[name] = pod
            else:
                self.special.pop(name, None)
        self._dirty.add(node)
        self._static.pop(node, None)
        return True

    def swap(self, old: Pod, new: Pod) -> int:
        """``account(old, -1)`` then ``account(new, 1)`` in one call, to the same state (the
        counts, the pods by node and the special pods in the same order, the nodes marked):
        a pod write that keeps its controller — every one of a rolling pod's writes after
        its create — is a leave and an enter, and the second call read again what the
        first had read. 1 if ``old`` was counted (active), plus 2 if ``new`` is."""
        wanted = self.labels
        nodes, special, dirty, static = self.nodes, self.special, self._dirty, self._static
        out = 0
        old_meta, status = old.metadata, old.status
        phase = status.phase
        old_labels = None   # old's labels if they covered the wanted ones (it was labeled)
        if old_meta.deletion_timestamp is None and phase != SUCCEEDED and phase != FAILED:
            out = 1
            ready = False
            for c in status.conditions:
                if c.type == POD_READY:
                    ready = c.status == "True"
                    break
            self.active -= 1
            if ready:
                self.ready -= 1
            if wanted is not None:
                labels = old_meta.labels
                if labels is not wanted:
                    for k, v in wanted.items():
                        if labels.get(k) != v:
                            break
                    else:
                        self.labeled -= 1
                        old_labels = labels
                else:
                    self.labeled -= 1
                    old_labels = labels
            node, name = old.spec.node_name, old_meta.name
            on = nodes.get(node)
            if on is not None:
                on.pop(name, None)
                if not on:
                    del nodes[node]
            if not (node and phase == "Running" and ready and (
                    POD_DELETION_COST not in old_meta.annotations or deletion_cost(old) == 0)):
                special.pop(name, None)
            dirty.add(node)
            static.pop(node, None)
        meta, status = new.metadata, new.status
        phase = status.phase
        if meta.deletion_timestamp is not None or phase == SUCCEEDED or phase == FAILED:
            return out
        ready = False
        for c in status.conditions:
            if c.type == POD_READY:
                ready = c.status == "True"
                break
        self.active += 1
        if ready:
            self.ready += 1
        if wanted is not None:
            labels = meta.labels
            if labels is wanted or labels is old_labels:
                # (the labels object old was counted labeled with: most writes keep it)
                self.labeled += 1
            else:
                for k, v in wanted.items():
                    if labels.get(k) != v:
                        break
                else:
                    self.labeled += 1
        node, name = new.spec.node_name, meta.name
        on = nodes.get(node)
        if on is None:
            on = nodes[node] = {}
        on[name] = new
        if not (node and phase == "Running" and ready and (
                POD_DELETION_COST not in meta.annotations or deletion_cost(new) == 0)):
            special[name] = new
        dirty.add(node)
        static.pop(node, None)
        return out + 2

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
    # A heap of nodes, each at its best plain pod: (key, uid, node, stamp), the key packing
    # the node's rank and the pod's two log2 ages in one int (_AGES); a node not sorted yet
    # has uid None and the key of its rank alone, below every pod's there. An entry is live
    # while it is the node's in ``_entry``; the others are dropped as they come up.

    def _refresh(self, ranks: Any, now: float) -> None:
        if ranks is not self._ranks_src:
            # A ranks object not seen before (the owner's first pick, a new family): every
            # node's entry at once, one heapify instead of a push per node.
            self._ranks_src = ranks
            self._rebuild(ranks, now)
            return
        expiry = self._expiry
        dirty = self._dirty
        while expiry and expiry[0][0] <= now:
            _, node, stamp = heapq.heappop(expiry)
            entry = self._entry.get(node)
            if entry is not None and entry[3] == stamp:
                self._sorted.pop(node, None)   # its order has aged: sorted when it comes up
                dirty.add(node)
        if dirty:
            nodes, entry_of, heap, make = self.nodes, self._entry, self._heap, self._make_entry
            for node in dirty:
                entry_of.pop(node, None)
                if node and node in nodes:
                    # its entry at its rank, pushed
                    entry = make(node, -ranks.get(node, 0) << _RANK, now)
                    if entry is not None:
                        entry_of[node] = entry
                        heapq.heappush(heap, entry)
            dirty.clear()
        if len(self._heap) > 2 * len(self._entry) + 64:  # drop the dead entries
            self._heap = list(self._entry.values())
            heapq.heapify(self._heap)
            live = {e[3] for e in self._entry.values()}
            self._expiry = [x for x in expiry if x[2] in live]
            heapq.heapify(self._expiry)

    def _rebuild(self, ranks: Any, now: float) -> None:
        """Every node's entry anew (the ranks object changed), in one heapify."""
        entry_of: dict[str, tuple] = {}
        make = self._make_entry
        for node in self.nodes:
            if node:
                entry = make(node, -ranks.get(node, 0) << _RANK, now)
                if entry is not None:
                    entry_of[node] = entry
        self._heap = list(entry_of.values())
        heapq.heapify(self._heap)
        self._entry, self._expiry = entry_of, []
        self._dirty.clear()

    def _make_entry(self, node: str, base: int, now: float) -> tuple | None:
        """The node's entry at its rank's key ``base``: at its best plain pod while the order
        sorted last holds (the node's rank alone changed: its pods and their age buckets are
        as they were), else not sorted — sorted when it comes to the top (_pick_plain), so a
        node below the most crowded ones may never be. None: no plain pod there. (An order
        with an age <= 0 in it is not kept: it may change at once, see _sort_node.)"""
        held = self._sorted.get(node)
        if held is not None and held[3] and held[0] > now and held[4] is self._static.get(node):
            if not held[1]:
                return None
            best = held[1][0]
            return (base + best[0], best[1], node, next(_versions))
        special = self.special
        if special and all(name in special for name in self.nodes[node]):
            return None
        return (base, None, node, next(_versions))

    def _pick_plain(self, need: int, ranks: Any, now: float) -> list[Any]:
        """A k-way merge of the nodes' sorted plain pods, crowded nodes first; the standing
        heap is left as it was (picking is not deleting)."""
        self._refresh(ranks, now)
        heap, live = self._heap, self._entry
        taken: list[tuple] = []
        more: list[tuple] = []  # (key, uid, node, index, rank key) of the nodes' next pods
        out: list[Any] = []
        sorted_ = self._sorted
        while len(out) < need:
            while heap:
                top = heap[0]
                node = top[2]
                if live.get(node) is not top:
                    heapq.heappop(heap)
                elif top[1] is None:
                    # Not sorted yet: nor is any node of this rank pushed since its pods
                    # changed (or its order aged); they all come up before the sorted ones,
                    # so all are sorted now, in one pass.
                    heap = self._sort_rank(top[0], now, taken)
                elif sorted_[node][0] <= now:
                    # An order that has aged: its pods' ages only grow, so each key only
                    # grows and the entry was never after its place — sorted again, the
                    # node goes back in at its place.
                    heapq.heappop(heap)
                    self._enter(node, top[0] - sorted_[node][1][0][0], now)
                else:
                    break
            if need == 1 and heap:
                # One pod (nearly every scale-down): the top's, which stays in the heap.
                return [sorted_[heap[0][2]][1][0][2]]
            if heap and (not more or heap[0][:2] < more[0][:2]):
                entry = heapq.heappop(heap)
                taken.append(entry)
                node, i = entry[2], 0
                base = entry[0] - sorted_[node][1][0][0]
            elif more:
                _, _, node, i, base = heapq.heappop(more)
            else:
                break
            entries = sorted_[node][1]
            out.append(entries[i][2])
            if i + 1 < len(entries):
                after = entries[i + 1]
                heapq.heappush(more, (base + after[0], after[1], node, i + 1, base))
        for entry in taken:
            heapq.heappush(heap, entry)
        return out

    def _sort_rank(self, base: int, now: float, taken: list[tuple]) -> list[tuple]:
        """Sort every node not sorted yet whose rank key is ``base`` (see _pick_plain); the
        heap after (a new one, without the dead entries, when many were sorted: a push each
        costs more). ``taken``: the live entries a pick holds out of the heap."""
        # The nodes to sort are the heap's first entries: ``base`` is the top's key, the least
        # in the heap, and a key equal to a rank's key alone is an unsorted entry's (a sorted
        # one's is above it by its ages key, in (0, 2**_RANK), so below the next rank's).
        # Popped off the top, dead ones dropped, where a scan of every live entry looked for
        # them (the live ones are all in the heap: those a pick holds out are sorted ones).
        heap, live = self._heap, self._entry
        todo = []
        while heap and heap[0][0] == base:
            e = heapq.heappop(heap)
            if live.get(e[2]) is e:
                todo.append(e[2])
        if len(todo) < 16:
            for node in todo:
                self._enter(node, base, now)
            return self._heap
        live, expiry, sort_node = self._entry, self._expiry, self._sort_node
        for node in todo:
            valid, entries, monotone = sort_node(node, now)
            if entries:
                entry = live[node] = (base + entries[0][0], entries[0][1], node,
                                      next(_versions))
                if not monotone:
                    heapq.heappush(expiry, (valid, node, entry[3]))
            else:
                del live[node]
        held = {id(e) for e in taken}
        heap = [e for e in live.values() if id(e) not in held] if held else list(live.values())
        heapq.heapify(heap)
        self._heap = heap
        return heap

    def _enter(self, node: str, base: int, now: float) -> None:
        """Sort the node and push its live entry at its best plain pod (``base``: its rank's
        key)."""
        valid, entries, monotone = self._sort_node(node, now)
        if entries:
            entry = (base + entries[0][0], entries[0][1], node, next(_versions))
            self._entry[node] = entry
            heapq.heappush(self._heap, entry)
            if not monotone:
                heapq.heappush(self._expiry, (valid, node, entry[3]))
        else:
            del self._entry[node]

    def _sort_node(self, node: str, now: float) -> tuple[float, list, bool]:
        """The node's plain pods as [(ages key, uid, pod)], sorted; until when that holds (an
        age crossing into the next power of two may reorder them); and whether every age in
        it is positive — then the keys only grow with time (log2 of a growing age), while an
        age of 0 or less turns to a positive one whose log2 may be below -1."""
        static = self._static.get(node)
        if static is None:
            # [(ready_since(p), created, uid, p)] of the node's plain pods, in a loop with
            # ready_since inline (no frame for the comprehension and none a pod: a node is
            # sorted about once a pod at the bench's 500 nodes, its pods one or two)
            special = self.special
            static = []
            for name, p in self.nodes[node].items():
                if name in special:
                    continue
                since = None
                for c in p.status.conditions:
                    if c.type == POD_READY:
                        t = c.last_transition_time
                        if c.status == "True" and isinstance(t, (int, float)):
                            since = float(t)
                        break
                meta = p.metadata
                static.append((since, meta.creation_timestamp, meta.uid, p))
            self._static[node] = static
        entries = []
        valid = math.inf
        monotone = True
        log2 = math.log2
        span = _SPAN
        for since, created, uid, p in static:
            r = c = -2
            if since is not None:
                age = now - since
                if age > 0:
                    r = int(log2(age * 1e9))
                    change = since + span[r]
                else:
                    r, change, monotone = -1, since, False
                if change < valid:
                    valid = change
            if created is not None:
                age = now - created
                if age > 0:
                    c = int(log2(age * 1e9))
                    change = created + span[c]
                else:
                    c, change, monotone = -1, created, False
                if change < valid:
                    valid = change
            entries.append((((r + _AGE_BIAS) << _AGE) + c + _AGE_BIAS, uid, p))
        if len(entries) > 1:
            entries.sort(key=_AGES_UID)
        # _pick_plain sorts again at this time; an order that is not monotone is sorted
        # again by _refresh (the expiry heap) instead, once per pick (its age of 0 may last).
        self._sorted[node] = (valid if monotone else math.inf, entries, valid, monotone, static)
        return valid, entries, monotone


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
