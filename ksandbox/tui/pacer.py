"""Real-time pacing of the simulated clock: speed, pause, and work in small slices.

The sandbox's clock never reads the wall clock (DESIGN.md §1, "Time"); this is the layer that
does, for pacing only — as SimPy keeps real-time pacing in ``rt.py`` apart from its core. Each
UI tick hands :meth:`Pacer.tick` the real seconds since the last one; the pacer turns them into
a simulated target (``now + real_dt × speed``) and walks the clock there callback by callback
(the same order ``run_until`` uses), stopping when its slice of real time is spent. When the sandbox cannot keep up (1000×
on a busy cluster) the simulation lags behind the target instead of stalling the UI, and
:attr:`Pacer.lagging` says so.

Playback: an optional :class:`StepFeed` supplies recorded commands; the pacer submits each one
when the simulated clock reaches its ``at``, so a recording replays through the same
``session.submit`` a key press uses.

No Textual here.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Protocol

# The speed ladder `<` and `>` walk: from a quarter of real time to a thousand times it.
SPEEDS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0,
                             500.0, 1000.0)
# Real seconds of sandbox work per tick before yielding back to the event loop. A frame at
# 60 fps is 16.7 ms; the UI's own work must fit beside it (DESIGN.md §5: no stall > 100 ms).
DEFAULT_BUDGET = 0.012
# A tick after a long gap (the machine slept, a modal was open) must not try to catch up.
MAX_REAL_DT = 0.25


class StepFeed(Protocol):
    """Recorded commands to replay at their simulated times."""

    def next_at(self) -> float | None:
        """When the next step is due (None when there are no more)."""

    def fire(self, session: Any) -> Any:
        """Run the next step against ``session`` (it is due now)."""


def format_speed(speed: float) -> str:
    if speed == int(speed):
        return f"{int(speed)}×"
    return f"{speed:g}×"


class Pacer:
    """Speed, pause and the budgeted walk of the simulated clock."""

    def __init__(self, session: Any, *, speed: float = 1.0, paused: bool = False,
                 budget: float = DEFAULT_BUDGET, feed: StepFeed | None = None,
                 on_step: Callable[[Any], None] | None = None,
                 perf_counter: Callable[[], float] = time.perf_counter) -> None:
        self.session = session
        self.speed = float(speed)
        self.paused = paused
        self.budget = budget
        self.feed = feed
        self.on_step = on_step
        """Called with each replayed step's result (the UI shows captions and errors)."""
        self.lagging = False
        """The last tick ran out of budget before reaching its target."""
        self._perf = perf_counter

    # -- controls -------------------------------------------------------------------------
    def toggle(self) -> bool:
        self.paused = not self.paused
        return self.paused

    def faster(self) -> float:
        self.speed = next((s for s in SPEEDS if s > self.speed), SPEEDS[-1])
        return self.speed

    def slower(self) -> float:
        self.speed = next((s for s in reversed(SPEEDS) if s < self.speed), SPEEDS[0])
        return self.speed

    @property
    def label(self) -> str:
        return "⏸" if self.paused else format_speed(self.speed)

    # -- running --------------------------------------------------------------------------
    def tick(self, real_dt: float) -> bool:
        """Advance by ``real_dt`` real seconds at the current speed. True if time moved."""
        if self.paused or real_dt <= 0:
            return False
        before = self.session.now
        self.advance_to(before + min(real_dt, MAX_REAL_DT) * self.speed)
        return self.session.now != before

    def advance_to(self, target: float, budget: float | None = None) -> None:
        """Walk the clock towards ``target`` until done or the tick's budget is spent
        (``budget=float("inf")``: all the way)."""
        session = self.session
        clock = session.clock
        deadline = self._perf() + (self.budget if budget is None else budget)
        self.lagging = False
        while True:
            due = self.feed.next_at() if self.feed is not None else None
            nxt = clock.next_event_time()
            if due is not None and due <= target and (nxt is None or due <= nxt):
                session.run_until(due)
                self._fire()
            elif nxt is None or nxt > target:
                session.run_until(target)
                return
            else:
                # One callback at a time, so a burst at one instant (400 pods created at
                # once) spreads over several ticks instead of stalling one.
                clock.step()
            if self._perf() > deadline:
                self.lagging = session.now < target
                return

    def step_next(self) -> float | None:
        """Jump to the next scheduled event (or recorded step) and run it; its time, or None."""
        session = self.session
        due = self.feed.next_at() if self.feed is not None else None
        nxt = session.clock.next_event_time()
        if due is not None and (nxt is None or due <= nxt):
            session.run_until(due)
            self._fire()
            return due
        if nxt is None:
            return None
        session.run_until(nxt)
        return nxt

    def _fire(self) -> None:
        result = self.feed.fire(self.session)
        if self.on_step is not None:
            self.on_step(result)
