"""The simulated clock: one deterministic event heap, the only notion of time in the sandbox.

Every piece of the control plane (kubelets, controllers, the scheduler) asks the clock to call it
back at a simulated second. Entries are ordered by ``(time, priority, seq)``: the sequence number
makes same-time, same-priority callbacks run in the order they were scheduled, so a run is a pure
function of its inputs. The clock never reads the wall clock; pacing against real time is the
UI's business (it calls :meth:`Clock.run_until` with ``now + real_dt * speed``).

Modelled on SimPy's ``Environment`` (``peek``/``step``/``run(until)``), without generators:
callbacks are plain functions, which is cheaper and easier to fork.
"""

from __future__ import annotations

import heapq
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


class Clock:
    """A heap of ``(time, priority, seq, Timer)``; ``now`` only moves forward.

    A timer is *background* when it is housekeeping that recurs forever (heartbeats, lease
    renewals, periodic monitors). Headless runs stop when only background work is left and the
    cluster has been quiet for a while; ``foreground_pending`` counts the rest.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now: float = float(start)
        self._heap: list[tuple[float, int, int, Timer]] = []
        self._seq = 0
        self.events_run = 0
        self.foreground_pending = 0

    @property
    def now(self) -> float:
        """The current simulated second. Read-only: only running callbacks moves it."""
        return self._now

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
        timer = Timer(when, callback, label, background, self, arg)
        if not background:
            self.foreground_pending += 1
        self._seq += 1
        heapq.heappush(self._heap, (when, priority, self._seq, timer))
        return timer

    def call_later(self, delay: float, callback: Callable[..., Any],
                   priority: int = PRIORITY_DEFAULT, label: str = "", background: bool = False,
                   arg: Any = None) -> Timer:
        return self.call_at(self._now + max(0.0, delay), callback, priority, label, background,
                            arg)

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
    def _drop_cancelled(self) -> None:
        heap = self._heap
        while heap and heap[0][3].cancelled:
            heapq.heappop(heap)

    def next_event_time(self) -> float | None:
        """The simulated time of the next live callback, or None when nothing is scheduled."""
        self._drop_cancelled()
        return self._heap[0][0] if self._heap else None

    def pending(self) -> int:
        """How many callbacks are scheduled (cancelled ones included until they surface)."""
        return len(self._heap)

    def step(self) -> bool:
        """Run the next live callback; False when there is none."""
        self._drop_cancelled()
        if not self._heap:
            return False
        when, _prio, _seq, timer = heapq.heappop(self._heap)
        self._fire(when, timer)
        return True

    def run_until(self, until: float, budget: int | None = None) -> bool:
        """Run every callback due at or before ``until``, then set ``now`` to ``until``.

        With ``budget``, stop after that many callbacks and return False (``now`` is then the
        last callback's time): a caller shows progress between slices. The callbacks run in the
        same order whether a run is sliced or not. True when ``until`` was reached."""
        heap = self._heap
        if budget is None:
            while heap:
                when, _prio, _seq, timer = heap[0]
                if when > until:
                    break
                heapq.heappop(heap)
                if timer.cancelled:
                    continue
                self._fire(when, timer)
        else:
            while heap:
                when, _prio, _seq, timer = heap[0]
                if when > until:
                    break
                if timer.cancelled:
                    heapq.heappop(heap)
                    continue
                if budget <= 0:
                    return False
                heapq.heappop(heap)
                budget -= 1
                self._fire(when, timer)
        if until > self._now:
            self._now = until
        return True
