"""The scheduling queue: activeQ, backoffQ and the unschedulable pods.

Upstream ``backend/queue/scheduling_queue.go`` (PriorityQueue):

* activeQ pops the highest priority first, then the earliest queue timestamp (PrioritySort);
* a pod that failed waits in backoffQ for 1 s doubling per attempt up to 10 s
  (podInitialBackoffSeconds / podMaxBackoffSeconds) — or in the unschedulable pool when it was
  rejected by filters, until a cluster event one of the rejecting plugins registered (and
  whose queueing hint says Queue) could make it schedulable; then it goes to backoffQ if its
  backoff has not expired, else straight to activeQ;
* events that arrive while a pod is being scheduled are remembered and checked when it fails
  (upstream's in-flight events), so a pod whose victims were deleted during its own cycle is
  not parked;
* pods left unschedulable for 5 minutes are retried anyway (flushUnschedulablePodsLeftover,
  every 30 s).

Times are simulated seconds. The queue holds PodInfos; it never touches the store.
"""

from __future__ import annotations

import heapq
import itertools
from operator import attrgetter
from typing import Any, Callable

from .framework.interface import NODE, ClusterEvent, QueueingHint
from .framework.node_info import PodInfo

# backend/queue/scheduling_queue.go
DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION = 300.0
UNSCHEDULABLE_FLUSH_PERIOD = 30.0


class QueuedPodInfo:
    __slots__ = ("pi", "timestamp", "initial_attempt", "attempts", "unschedulable_plugins",
                 "profile", "unschedulable_since", "park_seq", "sig")

    def __init__(self, pi: PodInfo, now: float, profile: str) -> None:
        self.pi = pi
        self.timestamp = now
        self.initial_attempt: float | None = None
        self.attempts = 0
        self.unschedulable_plugins: set[str] = set()
        self.profile = profile
        self.unschedulable_since = now
        self.park_seq = 0
        self.sig: Any = None

    # the PodInfo's key, through a C getter (a Python one is a call from C into a new frame)
    key = property(attrgetter("pi.key"))


class SchedulingQueue:
    def __init__(self, now: Callable[[], float], initial_backoff: float = 1.0,
                 max_backoff: float = 10.0) -> None:
        self._now = now
        self.initial_backoff = initial_backoff
        self.max_backoff = max_backoff
        self._seq = itertools.count()
        self._active: list = []            # heap of (-priority, timestamp, seq, key)
        self._backoff: list = []           # heap of (expiry, seq, key)
        self.unschedulable: dict[str, QueuedPodInfo] = {}
        # The unschedulable pods grouped by what a Node event's queueing hints read of them
        # (see _signature): one hint call per group instead of one per pod, so a backlog of
        # 34,000 pods from a few templates costs a few calls per node event, not 34,000.
        self._groups: dict[Any, dict[str, QueuedPodInfo]] = {}
        self._park_seq = itertools.count()
        self._where: dict[str, str] = {}   # key -> "active" | "backoff" | "unschedulable"
        self._infos: dict[str, QueuedPodInfo] = {}
        self._entry: dict[str, tuple] = {}  # key -> its live heap entry
        self.in_flight: dict[str, list] = {}  # key -> events seen while it was scheduled
        # events registered per profile: profile -> plugin -> [ClusterEventWithHint]
        self.events: dict[str, dict[str, list]] = {}

    # -- adding -------------------------------------------------------------------------------
    def add(self, pi: PodInfo, profile: str) -> None:
        """A new pending pod (or one whose spec changed) goes to activeQ."""
        key = pi.key
        q = self._infos.get(key)
        if q is None:
            q = QueuedPodInfo(pi, self._now(), profile)
            self._infos[key] = q
        else:
            q.pi = pi
        if key in self.in_flight:
            return
        self._to_active(q)

    def update(self, pi: PodInfo) -> None:
        """The pending pod changed (spec or labels): retry it, respecting its backoff."""
        q = self._infos.get(pi.key)
        if q is None:
            return
        q.pi = pi
        if pi.key in self.in_flight or self._where.get(pi.key) == "active":
            return
        self._requeue(q)

    def update_info(self, pi: PodInfo) -> None:
        """Refresh the stored pod (status-only changes) without moving it."""
        q = self._infos.get(pi.key)
        if q is not None:
            q.pi = pi

    def delete(self, key: str) -> None:
        self._where.pop(key, None)
        self._infos.pop(key, None)
        self._entry.pop(key, None)
        self._unpark(key)
        self.in_flight.pop(key, None)

    def _unpark(self, key: str) -> None:
        q = self.unschedulable.pop(key, None)
        if q is not None:
            group = self._groups.get(q.sig)
            if group is not None:
                group.pop(key, None)
                if not group:
                    del self._groups[q.sig]

    def _to_active(self, q: QueuedPodInfo) -> None:
        key = q.key
        self._unpark(key)
        entry = (-q.pi.priority, q.timestamp, next(self._seq), key)
        self._entry[key] = entry
        self._where[key] = "active"
        heapq.heappush(self._active, entry)

    def _to_backoff(self, q: QueuedPodInfo) -> None:
        key = q.key
        self._unpark(key)
        entry = (self.backoff_expiry(q), next(self._seq), key)
        self._entry[key] = entry
        self._where[key] = "backoff"
        heapq.heappush(self._backoff, entry)

    def _requeue(self, q: QueuedPodInfo) -> None:
        if self.backoff_expiry(q) > self._now():
            self._to_backoff(q)
        else:
            self._to_active(q)

    # -- backoff ------------------------------------------------------------------------------
    def backoff_duration(self, q: QueuedPodInfo) -> float:
        """calculateBackoffDuration: initial, doubled per extra attempt, capped at max."""
        d = self.initial_backoff
        for _ in range(1, q.attempts):
            if d > self.max_backoff - d:
                return self.max_backoff
            d += d
        return d

    def backoff_expiry(self, q: QueuedPodInfo) -> float:
        return q.timestamp + self.backoff_duration(q) if q.attempts else q.timestamp

    def next_backoff_expiry(self) -> float | None:
        while self._backoff and self._entry.get(self._backoff[0][2]) is not self._backoff[0]:
            heapq.heappop(self._backoff)
        return self._backoff[0][0] if self._backoff else None

    def flush_backoff_completed(self) -> None:
        now = self._now()
        while self._backoff:
            expiry, _, key = self._backoff[0]
            if self._entry.get(key) is not self._backoff[0]:
                heapq.heappop(self._backoff)
                continue
            if expiry > now:
                break
            heapq.heappop(self._backoff)
            self._to_active(self._infos[key])

    def flush_unschedulable_leftover(self) -> None:
        now = self._now()
        for _key, q in list(self.unschedulable.items()):
            if now - q.unschedulable_since > DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION:
                self._requeue(q)

    # -- popping ------------------------------------------------------------------------------
    def pop(self) -> QueuedPodInfo | None:
        while self._active:
            entry = heapq.heappop(self._active)
            key = entry[3]
            if self._entry.get(key) is not entry:
                continue
            del self._entry[key]
            self._where.pop(key, None)
            q = self._infos[key]
            q.attempts += 1
            if q.initial_attempt is None:
                q.initial_attempt = self._now()
            self.in_flight[key] = []
            return q
        return None

    def has_active(self) -> bool:
        while self._active and self._entry.get(self._active[0][3]) is not self._active[0]:
            heapq.heappop(self._active)
        return bool(self._active)

    def done(self, key: str) -> None:
        """The pod was bound (or dropped): forget it."""
        self.in_flight.pop(key, None)
        self._infos.pop(key, None)
        self._where.pop(key, None)
        self._entry.pop(key, None)

    def add_unschedulable_if_not_present(self, q: QueuedPodInfo, rejected: bool) -> None:
        """After a failed attempt: park it, or back it off if an event seen meanwhile (or an
        error rather than a rejection) says it may fit now."""
        key = q.key
        seen = self.in_flight.pop(key, [])
        if key not in self._infos:
            return
        q.timestamp = self._now()
        if not rejected or any(self._worth_requeuing(q, ev, old, new) for ev, old, new in seen):
            self._to_backoff(q)
            return
        q.unschedulable_since = self._now()
        self._where[key] = "unschedulable"
        self._entry.pop(key, None)
        self._unpark(key)
        self.unschedulable[key] = q
        q.park_seq = next(self._park_seq)
        q.sig = _signature(q)
        self._groups.setdefault(q.sig, {})[key] = q

    # -- cluster events -----------------------------------------------------------------------
    def _worth_requeuing(self, q: QueuedPodInfo, ev: ClusterEvent, old: Any, new: Any) -> bool:
        if not q.unschedulable_plugins:
            return True
        registered = self.events.get(q.profile, {})
        for plugin in q.unschedulable_plugins:
            for reg in registered.get(plugin, ()):
                if not reg.event.matches(ev):
                    continue
                if reg.hint is None:
                    return True
                if reg.hint(q.pi.pod, old, new) == QueueingHint.QUEUE:
                    return True
        return False

    def move_on_event(self, ev: ClusterEvent, old: Any, new: Any,
                      skip: Callable[[QueuedPodInfo], bool] | None = None) -> bool:
        """MoveAllToActiveOrBackoffQueue for one event; True when anything moved."""
        for events in self.in_flight.values():
            events.append((ev, old, new))
        if ev.resource == NODE and skip is None:
            return self._move_groups(ev, old, new)
        moved = False
        for _key, q in list(self.unschedulable.items()):
            if skip is not None and skip(q):
                continue
            if self._worth_requeuing(q, ev, old, new):
                self._requeue(q)
                moved = True
        return moved

    def _move_groups(self, ev: ClusterEvent, old: Any, new: Any) -> bool:
        """move_on_event for a Node event: each group's hints are asked once (a Node event's
        hints read only what the signature holds), and the pods that move are requeued in
        the order they were parked — the order the per-pod loop moved them in."""
        moving: list[QueuedPodInfo] = []
        for group in self._groups.values():
            first = next(iter(group.values()))
            if self._worth_requeuing(first, ev, old, new):
                moving.extend(group.values())
        if len(moving) > 1:
            moving.sort(key=lambda q: q.park_seq)
        for q in moving:
            self._requeue(q)
        return bool(moving)

    def pending(self) -> dict[str, list[str]]:
        """Keys per queue (for tests and the TUI's pending pane)."""
        out: dict[str, list[str]] = {"active": [], "backoff": [], "unschedulable": []}
        for key, where in self._where.items():
            out[where].append(key)
        return out

    def __len__(self) -> int:
        return len(self._infos)


def _signature(q: QueuedPodInfo) -> Any:
    """What the queueing hints of a Node event read of a pending pod: its profile, the
    plugins that rejected it, and the pod's spec, namespace and labels (requests, tolerations,
    affinity, spread constraints, ports). Pods equal in these get the same answer. A spec that
    cannot be hashed gets a group of its own."""
    pod = q.pi.pod
    parts = (q.profile, frozenset(q.unschedulable_plugins), pod.metadata.namespace,
             pod.metadata.labels, pod.spec)
    try:
        return _Signature(parts)
    except TypeError:
        return ("pod", q.key)


class _Signature:
    """A tuple hashed once (a pod spec's hash walks the whole spec)."""

    __slots__ = ("parts", "_hash")

    def __init__(self, parts: tuple) -> None:
        self.parts = parts
        self._hash = hash(parts)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Signature) and self._hash == other._hash and \
            self.parts == other.parts
