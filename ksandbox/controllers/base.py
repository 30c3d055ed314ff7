"""The controller skeleton every controller is built on: client-go's shape on the simulated clock.

A controller upstream is informers whose handlers only enqueue keys, a rate-limited work queue,
and workers that pop a key, call ``sync(key)`` and, when it fails, put the key back with a
per-item exponential backoff (``processNextWorkItem`` / ``handleErr`` in every
``pkg/controller/*``). Here:

* :class:`WorkQueue` — ``add`` (deduplicated while waiting), ``add_after``, ``add_rate_limited``,
  ``forget``, ``num_requeues`` and ``process_next`` (pop one key and sync it). By default the
  queue drains itself at the current instant (priority ``PRIORITY_CONTROLLER``) after the watch
  handler that added a key has returned; keys added while it drains wait for the next drain,
  scheduled at the same instant.
* :class:`Worker` — one worker over several queues, taking from the first non-empty one (the
  taint eviction controller prefers node updates to pod updates, as upstream's worker does);
  queues given ``wake=worker.kick`` are drained by it instead of by themselves, until all are
  empty.
* :class:`Controller` — the start wiring: ``start(cp)`` keeps the store and the clock, makes
  ``self.queue`` over ``self.sync``, and calls :meth:`Controller.watch` to subscribe.

A sync that raises is not the end of the clock callback that ran it: ``process_next`` catches
the error, keeps it in :data:`SYNC_ERRORS` (newest last; the test suite fails a test that
leaves one) and requeues the key after ``5 ms × 2^failures`` capped at 1000 s —
``workqueue.DefaultItemBasedRateLimiter`` / ``NewItemExponentialFailureRateLimiter(5ms,
1000s)``. After :data:`MAX_RETRIES` failures in a row the key is dropped, as the controllers
with a ``maxRetries`` do (``deployment_controller.go``: 15). Not modelled: the overall 10 qps /
100 burst bucket of ``DefaultControllerRateLimiter``, which only matters under error storms.

Periodic loops that are not keyed work (the HPA's per-autoscaler resync, pod GC, the cluster
autoscaler's scan) use the clock directly, each pass run through :func:`run_pass`: an error is
kept in :data:`SYNC_ERRORS` like a failed sync's and the loop goes on at its next period.

Not here: what a controller does (its module), indexes shared between controllers (the
control plane's ``apiserver/informers.py``).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Hashable, Iterable

from ..sim.clock import PRIORITY_CONTROLLER, Clock, Wakeup
from ..sim.tokenbucket import TokenBucket

# client-go util/workqueue default_rate_limiters.go DefaultItemBasedRateLimiter: 5 ms, 1000 s.
BASE_DELAY = 0.005
MAX_DELAY = 1000.0
# pkg/controller/deployment/deployment_controller.go: maxRetries.
MAX_RETRIES = 15
# A controller that keeps finding work at one instant is stopped from spinning the clock forever:
# past this many drains at the same simulated second, the next drain is pushed one second on.
MAX_DRAINS_PER_INSTANT = 10_000

# (simulated time, queue label, key, "ExceptionType: message") of the latest failed syncs.
SYNC_ERRORS: deque[tuple[float, str, Any, str]] = deque(maxlen=100)


class ItemExponentialFailureRateLimiter:
    """workqueue.NewItemExponentialFailureRateLimiter: per key, ``base × 2^failures``."""

    def __init__(self, base: float = BASE_DELAY, cap: float = MAX_DELAY) -> None:
        self.base = base
        self.cap = cap
        self.failures: dict[Hashable, int] = {}

    def when(self, key: Hashable) -> float:
        n = self.failures.get(key, 0)
        self.failures[key] = n + 1
        # 2^n overflows float long after the cap: stop doubling once past it.
        return self.cap if n > 40 else min(self.cap, self.base * 2 ** n)

    def forget(self, key: Hashable) -> None:
        self.failures.pop(key, None)

    def num_requeues(self, key: Hashable) -> int:
        return self.failures.get(key, 0)


class WorkQueue:
    """client-go's rate-limited work queue on the simulated clock (see the module docstring)."""

    def __init__(self, clock: Clock, sync: Callable[[Any], None], label: str, *,
                 wake: Callable[[], None] | None = None, max_retries: int = MAX_RETRIES) -> None:
        self._clock = clock
        self._sync = sync
        self.label = label
        self._wake = wake
        self.max_retries = max_retries
        self.limiter = ItemExponentialFailureRateLimiter()
        self._pending: dict[Hashable, None] = {}
        # The same keys in order, for process_next: taking the first key of a dict whose front
        # entries were deleted scans every deleted slot (O(n) per pop, O(n²) over a load of
        # 150,000 pods); a deque pops it in O(1). Kept only for a queue drained by its wake
        # (a Worker's, the VPA's loops): a queue that drains itself takes all its keys at
        # once (_drain), and kept them here only to clear them (~17 adds a rolling pod's life).
        self._order: deque[Hashable] = deque()
        # the drain, while scheduled: the queue's one Wakeup, scheduled again each time
        # (no Timer built for each of the ~9 drains a rolling pod's life brings)
        self._timer: Wakeup | None = None
        self._wakeup = Wakeup(self._drain, label, clock)
        self._delayed: dict[Hashable, Any] = {}
        self._instant = -1.0
        self._drains = 0
        # the Worker whose kick is the wake, when Worker.queue made this queue: add kicks it
        # inline (~900 adds a 120 s span of the bench's small shape)
        self._worker: Worker | None = None

    def __len__(self) -> int:
        return len(self._pending)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._pending

    def add(self, key: Hashable) -> None:
        if key in self._pending:
            return
        self._pending[key] = None
        if self._wake is not None:
            self._order.append(key)
            worker = self._worker
            if worker is None:
                self._wake()
            elif worker._timer is None:   # worker.kick(), inline
                clock = self._clock
                worker._timer = clock.wake(worker._wakeup, clock.now, PRIORITY_CONTROLLER)
        elif self._timer is None:
            when = self._clock.now
            if when == self._instant and self._drains >= MAX_DRAINS_PER_INSTANT:
                when += 1.0
            self._timer = self._clock.wake(self._wakeup, when, PRIORITY_CONTROLLER)

    def add_all(self, keys: Iterable[Hashable]) -> None:
        """``add(key)`` of each key in turn (a controller's catch-up after a load: every pod's
        key). Once the queue's drain is scheduled — its timer, or its worker's — another add
        only appends its key (the wake or timer check finds it scheduled), so the keys after
        that are appended here without an add each."""
        it = iter(keys)
        for key in it:
            self.add(key)
            if self._armed():
                break
        pending, order = self._pending, self._order
        if self._wake is None:   # (see _order)
            for key in it:
                pending[key] = None
            return
        for key in it:
            if key not in pending:
                pending[key] = None
                order.append(key)

    def _armed(self) -> bool:
        """Whether an add now would only append its key: the drain is scheduled already."""
        if self._wake is None:
            return self._timer is not None
        worker = getattr(self._wake, "__self__", None)
        return worker.__class__ is Worker and worker._timer is not None

    def add_after(self, key: Hashable, delay: float, background: bool = False) -> None:
        """Add ``key`` after ``delay`` seconds (the earliest request wins)."""
        when = self._clock.now + max(0.0, delay)
        old = self._delayed.get(key)
        if old is not None and not old.cancelled and not old.done:
            if old.when <= when:
                return
            old.cancel()

        def fire() -> None:
            self._delayed.pop(key, None)
            self.add(key)

        self._delayed[key] = self._clock.call_at(when, fire, PRIORITY_CONTROLLER,
                                                 f"{self.label} {key}", background)

    def add_rate_limited(self, key: Hashable) -> None:
        """Add ``key`` after its backoff: 5 ms, doubling per failure, at most 1000 s."""
        self.add_after(key, self.limiter.when(key))

    def forget(self, key: Hashable) -> None:
        """The key's work succeeded: its next failure starts the backoff afresh."""
        self.limiter.forget(key)

    def num_requeues(self, key: Hashable) -> int:
        return self.limiter.num_requeues(key)

    def process_next(self) -> bool:
        """Pop the first waiting key and sync it (see :meth:`process`); False when empty."""
        if not self._pending:
            return False
        # (a queue that drains itself keeps no _order: its first key, then)
        key = self._order.popleft() if self._wake is not None else next(iter(self._pending))
        del self._pending[key]
        if not self._pending:
            # A dict keeps its table when its keys are deleted: emptied after a load (the node
            # lifecycle and taint eviction queues hold every pod's key at t=0), it kept 5 MB
            # per 150,000 pods until its next growth. clear() gives the table back.
            self._pending.clear()
        # process(key), inline (a call less per key: a worker's queues take every key here)
        try:
            self._sync(key)
        except Exception as exc:  # noqa: BLE001 - as process's
            self._failed(key, exc)
            return True
        if self.limiter.failures:
            self.forget(key)
        return True

    def process(self, key: Hashable) -> None:
        """processNextWorkItem + handleErr for a key already taken off the queue."""
        try:
            self._sync(key)
        except Exception as exc:  # noqa: BLE001 - a failed sync is requeued, as client-go does
            self._failed(key, exc)
            return
        if self.limiter.failures:
            self.forget(key)

    def _failed(self, key: Hashable, exc: Exception) -> None:
        """handleErr of a sync that raised ``exc``: kept, and requeued after its backoff
        until it has failed max_retries times."""
        SYNC_ERRORS.append((self._clock.now, self.label, key, f"{type(exc).__name__}: {exc}"))
        if self.limiter.num_requeues(key) < self.max_retries:
            self.add_rate_limited(key)
        else:
            self.forget(key)

    def _drain(self) -> None:
        self._timer = None
        now = self._clock.now
        if now != self._instant:
            self._instant, self._drains = now, 0
        self._drains += 1
        keys = list(self._pending)
        self._pending.clear()   # (no _order to clear: see there)
        limiter = self.limiter
        for key in keys:
            # process(key), inline (a call less per key: ~7 syncs a pod life)
            try:
                self._sync(key)
            except Exception as exc:  # noqa: BLE001 - as process's
                self._failed(key, exc)
                continue
            if limiter.failures:
                self.forget(key)


def run_pass(clock: Clock, label: str, fn: Callable[..., None], *args: Any) -> None:
    """One pass of a periodic loop: a pass that raises is recorded (see :data:`SYNC_ERRORS`),
    not the end of the loop — the caller schedules the next pass either way."""
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001 - one failed pass must not stop the loop
        SYNC_ERRORS.append((clock.now, label, args[0] if args else None,
                            f"{type(exc).__name__}: {exc}"))


class Worker:
    """One worker over queues made with ``wake=worker.kick``: at the current instant it drains
    them, always from the first non-empty queue, until all are empty."""

    def __init__(self, clock: Clock, label: str) -> None:
        self._clock = clock
        self.label = label
        self.queues: list[WorkQueue] = []
        self._timer: Wakeup | None = None
        self._wakeup = Wakeup(self.run, label, clock)   # (as a WorkQueue's drain)

    def queue(self, sync: Callable[[Any], None], label: str | None = None) -> WorkQueue:
        """A new queue this worker drains (after the ones made before it)."""
        q = WorkQueue(self._clock, sync, label or self.label, wake=self.kick)
        q._worker = self
        self.queues.append(q)
        return q

    def kick(self) -> None:
        if self._timer is None:
            clock = self._clock
            self._timer = clock.wake(self._wakeup, clock.now, PRIORITY_CONTROLLER)

    def run(self) -> None:
        self._timer = None
        queues = self.queues
        while True:
            i = 0
            for q in queues:
                if q._pending:
                    break
                i += 1
            else:
                return
            # q's keys one after another while every queue before it stays empty: a sync that
            # queues work there has that work taken next, as a new look from the first queue
            # would (a load's 150,000 pod keys each looked at the empty node queue first).
            # (A queue's _pending stays one dict object. The first queue has none before it,
            # the second one: no list of them then — most runs.)
            # (q.process_next() of each key, inline: a call less a key, ~2 a rolling pod's life)
            if i == 1:
                first = queues[0]._pending
            elif i:
                before = [b._pending for b in queues[:i]]
            pending, order, sync, limiter = q._pending, q._order, q._sync, q.limiter
            while pending:
                key = order.popleft()
                del pending[key]
                if not pending:
                    pending.clear()   # (its table back: see process_next)
                try:
                    sync(key)
                except Exception as exc:  # noqa: BLE001 - as process_next's
                    q._failed(key, exc)
                else:
                    if limiter.failures:
                        q.forget(key)
                if i == 1:
                    if first:
                        break
                elif i and any(before):
                    break


# kube-controller-manager --kube-api-qps and --kube-api-burst (defaults 20 and 30): each
# controller's client may make 20 requests a second, 30 at once.
KUBE_API_QPS, KUBE_API_BURST = 20.0, 30


class Controller:
    """The start wiring of a keyed controller. A subclass sets ``name``, subscribes its
    handlers in :meth:`watch` (handlers only ``self.queue.add(key)``), and implements
    :meth:`sync` (read the current state for ``key`` and act; raise to be retried)."""

    name = ""

    def start(self, cp: Any) -> None:
        self.cp = cp
        self.store = cp.store
        self.clock: Clock = cp.clock
        self.queue = WorkQueue(cp.clock, self.sync, self.name)
        # Each controller of kube-controller-manager has its own API client, rate limited by
        # --kube-api-qps / --kube-api-burst; the controllers that create pods in a loop
        # (ReplicaSet, StatefulSet) spend its tokens, so runaway work takes simulated time.
        self.client = TokenBucket(KUBE_API_QPS, KUBE_API_BURST, cp.clock.now)
        self.watch()

    def watch(self) -> None:
        """Subscribe to the store's watches."""

    def sync(self, key: Any) -> None:
        raise NotImplementedError
