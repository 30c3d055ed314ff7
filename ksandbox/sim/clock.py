"""The simulated clock: one deterministic event heap, the only notion of time in the sandbox.

Every piece of the control plane (kubelets, controllers, the scheduler) asks the clock to call it
back at a simulated second. Entries are ordered by ``(time, priority, seq)``: the sequence number
makes same-time, same-priority callbacks run in the order they were scheduled, so a run is a pure
function of its inputs. The entries of one ``(time, priority)`` wait in one first-in first-out
bucket, and the heap holds each bucket's ``(time, priority)`` once (see :class:`Clock`). The clock never reads the wall clock; pacing against real time is the
UI's business (it calls :meth:`Clock.run_until` with ``now + real_dt * speed``).

Modelled on SimPy's ``Environment`` (``peek``/``step``/``run(until)``), without generators:
callbacks are plain functions, which is cheaper and easier to fork.
"""

from __future__ import annotations

import heapq
from collections import deque
from operator import attrgetter
from typing import Any, Callable

Callback = Callable[[], Any]

# Priorities for callbacks due at the same simulated second; lower runs first. The order mirrors
# how a real cluster reacts within one instant: the API write lands, controllers and the
# scheduler see it, kubelets act on the result.
PRIORITY_COMMAND = 0
# A kubelet registers (posts its allocatable) before anything else acts at that instant:
# the scheduler never sees a node whose allocatable its kubelet has not reported yet.
PRIORITY_NODE_REGISTRATION = 5
PRIORITY_CONTROLLER = 10
PRIORITY_SCHEDULER = 20
PRIORITY_KUBELET = 30
PRIORITY_DEFAULT = 50


class Timer:
    """A handle on a scheduled callback; :meth:`cancel` makes the clock skip it."""

    __slots__ = ("when", "callback", "arg", "cancelled", "label", "background", "done", "_clock")

    def __init__(self, when: float, callback: Callable[..., Any], label: str, background: bool,
                 clock: "Clock", arg: Any = None) -> None:
        self.when = when
        self.callback = callback
        # called as callback(arg) when arg is not None: a per-object timer (a kubelet's start
        # of each of 150,000 loaded pods) then needs no closure of its own — a shared bound
        # method and the key (~230 bytes less per pending timer than a lambda and its cells)
        self.arg = arg
        self.cancelled = False
        self.label = label
        self.background = background
        self.done = False
        self._clock = clock

    def cancel(self) -> None:
        if not self.cancelled and not self.done and not self.background:
            self._clock.foreground_pending -= 1
        self.cancelled = True

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        state = " cancelled" if self.cancelled else ""
        return f"<Timer {self.label} at {self.when}{state}>"


_new_timer = object.__new__


class Wakeup:
    """A callback its owner schedules again and again, never while it is still waiting (a
    work queue's drain, a worker's run, a kubelet's pod sync): the owner keeps this one
    entry, and :meth:`Clock.wake` puts it in its bucket each time where :meth:`Clock.call_at`
    would build a Timer (about half of what scheduling cost; a rolling update schedules
    about twelve such callbacks a pod). It runs where that Timer would — the same (time,
    priority, sequence) — and reads as a Timer to the clock and to its listings
    (foreground, no argument). Cancelled, it must not be woken again (its old place may
    still be in a bucket)."""

    __slots__ = ("when", "callback", "label", "cancelled", "done", "_clock")
    background = False
    arg = None

    def __init__(self, callback: Callable[[], Any], label: str, clock: "Clock") -> None:
        self.when = 0.0
        self.callback = callback
        self.label = label
        self.cancelled = False
        self.done = True   # (not waiting)
        self._clock = clock

    def cancel(self) -> None:
        """As Timer.cancel."""
        if not self.cancelled and not self.done:
            self._clock.foreground_pending -= 1
        self.cancelled = True

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        state = " cancelled" if self.cancelled else ""
        return f"<Wakeup {self.label} at {self.when}{state}>"


class _CANCELLED:
    """What a TimerBatch holds in place of an entry that ran or was cancelled (a class: a
    fork shares it as it is, so identity checks hold in the copy, sim/snapshot.py)."""


class TimerBatch:
    """Argument timers due at one ``(time, priority)``, held as one heap entry: a load's
    150,000 pod starts (Clock.call_batched). Each entry is a callback, its argument and its
    label in three lists (24 bytes), where a Timer of its own costs a Timer, a heap tuple and
    a sequence number (~208 bytes).

    Exactly the plain order: the batch sits in its (time, priority) bucket at its first
    entry's place, and it takes further entries only while no other timer of the same (time,
    priority) has been scheduled since (Clock.call_at closes it), so every entry would have
    run at the batch's place in the plain order too (also while the batch runs: an entry
    added then comes after its other entries, as a later Timer would). The clock runs one
    entry per step, as it runs one Timer: what an entry's callback schedules at that instant
    with a lower priority runs before the next entry, as it would before the next Timer.
    """

    __slots__ = ("when", "priority", "callbacks", "args", "labels", "next", "cancelled",
                 "done", "_index", "_clock")
    background = False

    def __init__(self, when: float, priority: int, clock: "Clock") -> None:
        self.when = when
        self.priority = priority
        self.callbacks: list[Callable[..., Any]] = []
        self.args: list[Any] = []
        self.labels: list[str] = []
        self.next = 0            # the next entry to run (a live one, or len(args))
        self.cancelled = False   # True once no entry is left to run: the heap drops it
        self.done = False
        # (arg, callback) -> the position of its last entry, built at the first cancel (rare)
        self._index: dict[tuple[Any, Any], int] | None = None
        self._clock = clock

    def _add(self, callback: Callable[..., Any], arg: Any, label: str) -> None:
        if self._index is not None:
            self._index[(arg, callback)] = len(self.args)
        self.callbacks.append(callback)
        self.args.append(arg)
        self.labels.append(label)

    def cancel(self, callback: Callable[..., Any], arg: Any) -> None:
        """Cancel the last entry scheduled with ``callback`` and ``arg`` (the one its owner's
        handle names: a Timer handle names the last call too); nothing when it already ran or
        was cancelled."""
        index = self._index
        if index is None:
            index = self._index = {(a, c): i for i, (a, c)
                                   in enumerate(zip(self.args, self.callbacks))}
        i = index.get((arg, callback))
        args = self.args
        if i is None or i < self.next or args[i] is _CANCELLED:
            return
        args[i] = self.callbacks[i] = _CANCELLED   # as an entry that ran: nothing kept alive
        self._clock.foreground_pending -= 1
        self._skip()

    def _skip(self) -> None:
        """Move ``next`` past cancelled entries; an exhausted batch is closed and dropped."""
        args, i, n = self.args, self.next, len(self.args)
        while i < n and args[i] is _CANCELLED:
            i += 1
        self.next = i
        if i >= n:
            self.cancelled = True
            self._clock._close(self)

    def entries(self) -> list[tuple[str, Any]]:
        """(label, arg) of the entries left to run, in order."""
        return [(self.labels[i], self.args[i]) for i in range(self.next, len(self.args))
                if self.args[i] is not _CANCELLED]

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"<TimerBatch of {len(self.args) - self.next} at {self.when}>"


class Clock:
    """Timers run in ``(time, priority, seq)`` order; ``now`` only moves forward.

    The entries (Timer or TimerBatch) of one ``(time, priority)`` wait in a FIFO bucket, in
    the order they were scheduled — which is their sequence order, the sequence only ever
    growing — and the heap holds each bucket's ``(time, priority)`` once. That is the order of
    one heap of ``(time, priority, seq, entry)``, at less cost: about half of a rolling
    update's timers are due at a (time, priority) that has entries waiting already (the
    controllers' queue drains at the current instant), and they join its bucket without a
    heap push; the heap holds fewer keys, and compares two fields, not three (a pop from the
    plain heap of ~70 entries was ~2,500 instructions, the clock's costliest C work).

    A timer is *background* when it is housekeeping that recurs forever (heartbeats, lease
    renewals, periodic monitors). Headless runs stop when only background work is left and the
    cluster has been quiet for a while; ``foreground_pending`` counts the rest.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now: float = float(start)
        # (time, priority) of every bucket, a heap; the bucket of each: its entries (Timer or
        # TimerBatch), first to run first. A bucket is dropped with its key once empty.
        self._heap: list[tuple[float, int]] = []
        self._buckets: dict[tuple[float, int], deque[Any]] = {}
        self._seq = 0   # entries scheduled so far (call_at and new batches)
        self.events_run = 0
        self.foreground_pending = 0
        # (time, priority) -> the batch that may still take entries (call_batched)
        self._open: dict[tuple[float, int], TimerBatch] = {}
        # every priority a batch was opened at (a superset of _open's): a timer at another
        # priority cannot close one, so call_at and wake skip the lookup (a rolling update's
        # queue drains at PRIORITY_CONTROLLER while the kubelets' pod starts wait open)
        self._batch_priorities: set[int] = set()

    # The current simulated second. Read-only: only running callbacks moves it. A property
    # whose getter is C (attrgetter): read ~5 times per scheduled pod, and a Python getter is
    # a call from C into a new interpreter frame (~200 instructions more a read).
    now = property(attrgetter("_now"), doc="The current simulated second (read-only).")

    def read(self) -> float:
        """``now`` as a plain method, for a component handed a time source: one call, where
        ``lambda: clock.now`` is two (the lambda and the property). The API server reads it
        at every write and event (~8 times per scheduled pod)."""
        return self._now

    # -- scheduling -----------------------------------------------------------------------
    def call_at(self, when: float, callback: Callable[..., Any],
                priority: int = PRIORITY_DEFAULT, label: str = "", background: bool = False,
                arg: Any = None) -> Timer:
        """Run ``callback`` at simulated second ``when`` (never earlier than now); with
        ``arg`` (not None), ``callback(arg)``."""
        if when < self._now:
            when = self._now
        key = (when, priority)
        if priority in self._batch_priorities and self._open:
            self._open.pop(key, None)   # a timer at a batch's (time, priority) runs after it
        # Timer(when, callback, label, background, self, arg), its fields set here: a class
        # call runs __init__ in a frame of its own (~850 instructions more a timer)
        timer = _new_timer(Timer)
        timer.when = when
        timer.callback = callback
        timer.arg = arg
        timer.cancelled = False
        timer.label = label
        timer.background = background
        timer.done = False
        timer._clock = self
        if not background:
            self.foreground_pending += 1
        self._seq += 1
        bucket = self._buckets.get(key)
        if bucket is None:
            self._buckets[key] = deque((timer,))
            heapq.heappush(self._heap, key)
        else:
            bucket.append(timer)
        return timer

    def wake(self, entry: Wakeup, when: float, priority: int) -> Wakeup:
        """``call_at(when, entry.callback, priority, entry.label)`` with ``entry`` as the
        waiting entry instead of a new Timer (see :class:`Wakeup`); returns it. Only when
        ``entry`` is not waiting already (it has run, or was never woken)."""
        if when < self._now:
            when = self._now
        key = (when, priority)
        if priority in self._batch_priorities and self._open:   # (as call_at's)
            self._open.pop(key, None)
        entry.when = when
        entry.done = False
        self.foreground_pending += 1
        self._seq += 1
        bucket = self._buckets.get(key)
        if bucket is None:
            self._buckets[key] = deque((entry,))
            heapq.heappush(self._heap, key)
        else:
            bucket.append(entry)
        return entry

    def call_later(self, delay: float, callback: Callable[..., Any],
                   priority: int = PRIORITY_DEFAULT, label: str = "", background: bool = False,
                   arg: Any = None) -> Timer:
        return self.call_at(self._now + max(0.0, delay), callback, priority, label, background,
                            arg)

    def call_batched(self, when: float, callback: Callable[..., Any], arg: Any,
                     priority: int = PRIORITY_DEFAULT, label: str = "") -> TimerBatch:
        """``call_at(when, callback, priority, label, arg=arg)`` that runs exactly as that
        would, held in a :class:`TimerBatch` with the other entries due at that (time,
        priority) instead of a Timer and heap entry of its own. The handle is the batch: cancel
        with ``batch.cancel(callback, arg)``. For foreground timers whose owner keeps one
        pending call per (callback, arg) it may cancel (a kubelet's pod starts, per pod key)."""
        if when < self._now:
            when = self._now
        key = (when, priority)
        batch = self._open.get(key)
        if batch is None:
            self._batch_priorities.add(priority)
            batch = TimerBatch(when, priority, self)
            self._seq += 1
            bucket = self._buckets.get(key)
            if bucket is None:
                self._buckets[key] = deque((batch,))
                heapq.heappush(self._heap, key)
            else:
                bucket.append(batch)
            self._open[key] = batch
        batch._add(callback, arg, label)
        self.foreground_pending += 1
        return batch

    def _close(self, batch: TimerBatch) -> None:
        key = (batch.when, batch.priority)
        if self._open.get(key) is batch:
            del self._open[key]

    def _fire_entry(self, batch: TimerBatch) -> None:
        """Run the batch's next entry (it stays first in its bucket until its last entry has
        run: whatever that entry schedules goes in around it, as around a
        Timer)."""
        i = batch.next
        callback, arg = batch.callbacks[i], batch.args[i]
        batch.callbacks[i] = batch.args[i] = _CANCELLED   # run: keep nothing alive
        batch.next = i + 1
        batch._skip()
        if batch.cancelled:
            batch.done = True
        self._now = batch.when
        self.events_run += 1
        self.foreground_pending -= 1
        callback(arg)

    def call_soon(self, callback: Callback, priority: int = PRIORITY_DEFAULT,
                  label: str = "") -> Timer:
        return self.call_at(self._now, callback, priority, label)

    def _fire(self, when: float, timer: Timer) -> None:
        self._now = when
        self.events_run += 1
        timer.done = True
        if not timer.background:
            self.foreground_pending -= 1
        if timer.arg is None:
            timer.callback()
        else:
            timer.callback(timer.arg)

    # -- running --------------------------------------------------------------------------
    def _first(self) -> Any:
        """The first entry that is not cancelled (None when there is none), the cancelled ones
        before it dropped; it stays first in the first bucket."""
        heap, buckets = self._heap, self._buckets
        while heap:
            bucket = buckets[heap[0]]
            while bucket:
                entry = bucket[0]
                if not entry.cancelled:
                    return entry
                bucket.popleft()
            del buckets[heapq.heappop(heap)]
        return None

    def _take(self, bucket: deque[Any]) -> None:
        """Take the first entry off ``bucket``, the first bucket; the bucket and its heap key
        go when it is empty (before the entry runs: what the entry schedules at the same
        (time, priority) comes after it either way)."""
        bucket.popleft()
        if not bucket:
            del self._buckets[heapq.heappop(self._heap)]

    def next_event_time(self) -> float | None:
        """The simulated time of the next live callback, or None when nothing is scheduled."""
        entry = self._first()
        return entry.when if entry is not None else None

    def pending(self) -> int:
        """How many callbacks are scheduled (cancelled ones included until they surface; a
        batch counts once)."""
        return sum(map(len, self._buckets.values()))

    def entries(self) -> list[tuple[float, int, Any]]:
        """``(time, priority, entry)`` of every Timer and TimerBatch waiting (cancelled ones
        included until they surface), in the order they run; the time is the bucket's."""
        return [(when, prio, t) for when, prio in sorted(self._buckets)
                for t in self._buckets[(when, prio)]]

    def scheduled(self) -> list[tuple[float, int, str, Any, bool]]:
        """The live callbacks in the order they will run, as ``(when, priority, label, arg,
        background)``: a batch's entries at its place (for tests and debugging)."""
        out: list[tuple[float, int, str, Any, bool]] = []
        for _when, prio, t in self.entries():
            if t.cancelled:
                continue
            if t.__class__ is TimerBatch:
                out.extend((t.when, prio, label, arg, False) for label, arg in t.entries())
            else:
                out.append((t.when, prio, t.label, t.arg, t.background))
        return out

    def step(self) -> bool:
        """Run the next live callback; False when there is none."""
        timer = self._first()
        if timer is None:
            return False
        if timer.__class__ is TimerBatch:
            self._fire_entry(timer)
            return True
        self._take(self._buckets[self._heap[0]])
        self._fire(timer.when, timer)
        return True

    def run_until(self, until: float, budget: int | None = None) -> bool:
        """Run every callback due at or before ``until``, then set ``now`` to ``until``.

        With ``budget``, stop after that many callbacks and return False (``now`` is then the
        last callback's time): a caller shows progress between slices. The callbacks run in the
        same order whether a run is sliced or not. True when ``until`` was reached."""
        heap, buckets, heappop = self._heap, self._buckets, heapq.heappop
        if budget is None:
            while heap:
                key = heap[0]
                if key[0] > until:
                    break
                bucket = buckets[key]
                timer = bucket[0]
                if timer.__class__ is TimerBatch and not timer.cancelled:
                    self._fire_entry(timer)
                    continue
                # _take's and _fire's, inline (once per callback)
                bucket.popleft()
                if not bucket:
                    del buckets[heappop(heap)]
                if not timer.cancelled:
                    self._now = timer.when
                    self.events_run += 1
                    timer.done = True
                    if not timer.background:
                        self.foreground_pending -= 1
                    if timer.arg is None:
                        timer.callback()
                    else:
                        timer.callback(timer.arg)
        else:
            while heap:
                key = heap[0]
                if key[0] > until:
                    break
                bucket = buckets[key]
                timer = bucket[0]
                if timer.cancelled:
                    self._take(bucket)
                    continue
                if budget <= 0:
                    return False
                budget -= 1
                if timer.__class__ is TimerBatch:
                    self._fire_entry(timer)
                    continue
                self._take(bucket)
                self._fire(timer.when, timer)
        if until > self._now:
            self._now = until
        return True
