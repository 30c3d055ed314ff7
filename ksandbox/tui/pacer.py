"""Real-time pacing of the simulated clock: speed, pause, and work in small slices.

The sandbox's clock never reads the wall clock (DESIGN.md §1, "Time"); this is the layer that
does, for pacing only — as SimPy keeps real-time pacing in ``rt.py`` apart from its core. Each
UI tick hands :meth:`Pacer.tick` the real seconds since the last one; the pacer turns them into
a simulated target (``now + real_dt × speed``) and hands it, with its slice of real time, to
the one playback loop (:class:`ksandbox.recording.playback.Playback`), which walks the clock
there callback by callback and runs any recorded step when its time comes. When the sandbox
cannot keep up (1000× on a busy cluster) the simulation lags behind the target instead of
stalling the UI, and :attr:`Pacer.lagging` says so.

No Textual here.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from ..recording.playback import Playback

if TYPE_CHECKING:
    from ..session import Session

# The speed ladder `<` and `>` walk: from a quarter of real time to a thousand times it.
SPEEDS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0,
                             500.0, 1000.0)
# Real seconds of sandbox work per tick before yielding back to the event loop. A frame at
# 60 fps is 16.7 ms; the UI's own work must fit beside it (DESIGN.md §5: no stall > 100 ms).
DEFAULT_BUDGET = 0.012
# A tick after a long gap (the machine slept, a modal was open) must not try to catch up.
MAX_REAL_DT = 0.25
# A tick's slice ends early when a key arrives (Pacer.tick's ``yield_when``), at the next
# callback once this much of it has run: a key then waits ~3 ms of sandbox work, not up to the
# whole budget, and typing without a pause still lets the cluster move.
MIN_SLICE = 0.003


def format_speed(speed: float) -> str:
    if speed == int(speed):
        return f"{int(speed)}×"
    return f"{speed:g}×"


class Pacer:
    """Speed, pause, and wall time turned into a target time for the playback loop."""

    def __init__(self, session: Session, *, speed: float = 1.0, paused: bool = False,
                 budget: float = DEFAULT_BUDGET, playback: Playback | None = None,
                 perf_counter: Callable[[], float] = time.perf_counter) -> None:
        self.speed = float(speed)
        self.paused = paused
        self.budget = budget
        self.playback = playback if playback is not None else Playback(session)
        self._perf = perf_counter
        self.limit: float | None = None
        """Where the clock stops (the end of a recording being played); None: no end."""
        self.cut_short = False
        """The last tick ended early to let a key through (see ``tick``)."""

    @property
    def session(self) -> Any:
        return self.playback.session

    @property
    def lagging(self) -> bool:
        """The last tick ran out of budget before reaching its target (a tick cut short for
        a key is not lagging: the time owed is paid by the next ones)."""
        return self.playback.lagging and not self.cut_short

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
    def tick(self, real_dt: float, yield_when: Callable[[], bool] | None = None) -> bool:
        """Advance by ``real_dt`` real seconds at the current speed. True if time moved.
        ``yield_when()`` true (a key arrived): the slice ends at the next callback once
        MIN_SLICE of it has run, and the key is handled before the rest of the work."""
        self.cut_short = False
        if self.paused or real_dt <= 0:
            return False
        before = self.session.now
        target = before + min(real_dt, MAX_REAL_DT) * self.speed
        if self.limit is not None:
            target = min(target, max(self.limit, before))
        self.advance_to(target, yield_when=yield_when)
        return self.session.now != before

    def advance_to(self, target: float, budget: float | None = None,
                   yield_when: Callable[[], bool] | None = None) -> None:
        """Walk towards ``target`` until done or the tick's budget is spent
        (``budget=float("inf")``: all the way)."""
        b = self.budget if budget is None else budget
        if b == float("inf"):
            self.playback.advance_to(target, None, self._perf)
            return
        real = self._perf
        if yield_when is None:
            self.playback.advance_to(target, b, real)
            return
        start = real()

        def clock() -> float:
            # Past any deadline once a key waits (and the minimum slice has run).
            now = real()
            if now - start >= MIN_SLICE and yield_when():
                self.cut_short = True
                return float("inf")
            return now
        self.playback.advance_to(target, b, clock)

    def step_next(self) -> float | None:
        """Jump to the next scheduled event (or recorded step) and run it; its time, or None."""
        return self.playback.step_next()
