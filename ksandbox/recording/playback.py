"""The one playback loop: run recorded steps at their times while the clock advances.

Every way of running timed steps goes through :class:`Playback` — ``ksandbox sim --script``
and ``explain --script`` (``run_script``), ``ksandbox play`` headless and in the TUI,
``Session.replay`` (forks of the past, undo), and the TUI's pacer, which only turns wall time
into a target time and hands it to :meth:`Playback.advance_to` with a budget of real seconds.

Order at one instant: callbacks due at or before a step's time run first, then the step (as
``run_until(at)`` followed by ``submit`` has always done); a step that carries ``expect:`` is
checked once its command and everything due at that second have run.

What it is not: a pacer (no wall clock is read unless a budget is given) nor a presenter —
results go to the ``on_step`` callback; expectation failures are kept in :attr:`failures`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, Sequence

import attrs

from ..api.safeload import files_only_under
from .expect import check

if TYPE_CHECKING:
    from ..session import Session

OnStep = Callable[[Any, Any], None]
"""``on_step(step, result)``: after each step (``result`` is None for captions/markers)."""


@attrs.frozen
class Failure:
    """An expectation that did not hold: which, when, and what was seen instead."""

    step: Any
    index: int          # position in the step's expect list
    expectation: Any
    seen: str

    def describe(self, source: str = "") -> str:
        where = f"{source}: " if source else ""
        return (f"{where}steps[{self.step.index}].expect[{self.index}] at {self.step.at:g}s: "
                f"{self.expectation.describe()}: {self.seen}")


class Playback:
    """Steps, a position among them, and the walk of the clock to a target time."""

    def __init__(self, session: Session, steps: Sequence[Any] = (), *,
                 on_step: OnStep | None = None, check_expectations: bool = True) -> None:
        self.session = session
        self.steps = tuple(steps)
        self.on_step = on_step
        self.check_expectations = check_expectations
        self.index = 0
        # Steps already in the past (a playback attached to a session mid-way) are done.
        while self.index < len(self.steps) and self.steps[self.index].at < session.now:
            self.index += 1
        self.failures: list[Failure] = []
        self.checked = 0
        self.lagging = False
        """The last budgeted advance ran out of budget before reaching its target."""

    # -- where we are -----------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.index >= len(self.steps)

    def next_step_time(self) -> float | None:
        """When the next recorded step is due (None when there are no more)."""
        return self.steps[self.index].at if self.index < len(self.steps) else None

    def next_change_time(self) -> float | None:
        """The earlier of the next clock callback and the next recorded step."""
        due = self.next_step_time()
        nxt = self.session.clock.next_event_time()
        if due is None:
            return nxt
        return due if nxt is None or due <= nxt else nxt

    # -- running ----------------------------------------------------------------------------
    def advance_to(self, target: float, budget: float | None = None,
                   perf_counter: Callable[[], float] = time.perf_counter) -> bool:
        """Run the clock and the steps due up to ``target``.

        Without a budget, all the way (True). With one (real seconds), callback by callback
        so a burst at one instant spreads over several calls, stopping when the budget is
        spent; True when ``target`` was reached.
        """
        session = self.session
        clock = session.clock
        if budget is None:
            while self.index < len(self.steps) and self.steps[self.index].at <= target:
                session.run_until(self.steps[self.index].at)
                self._fire()
            session.run_until(target)
            self.lagging = False
            return True
        deadline = perf_counter() + budget
        self.lagging = False
        while True:
            due = self.next_step_time()
            nxt = clock.next_event_time()
            if due is not None and due <= target and (nxt is None or due < nxt):
                session.run_until(due)
                self._fire()
            elif nxt is None or nxt > target:
                session.run_until(target)
                return True
            else:
                # One callback at a time (events due at a step's own time run before it).
                session.run_next()
            if perf_counter() > deadline:
                self.lagging = session.now < target
                return not self.lagging

    def step_next(self) -> float | None:
        """Jump to the next clock callback or recorded step and run it; its time, or None."""
        due = self.next_step_time()
        nxt = self.session.clock.next_event_time()
        if due is not None and (nxt is None or due < nxt):
            self.session.run_until(due)
            self._fire()
            return due
        if nxt is None:
            return None
        self.session.run_until(nxt)
        return nxt

    def run_to_end(self) -> None:
        """Every remaining step (headless play), then let the cluster settle."""
        if self.steps:
            self.advance_to(max(self.steps[-1].at, self.session.now))
        self.session.settle()

    def _fire(self) -> None:
        step = self.steps[self.index]
        self.index += 1
        result = None
        if step.command is not None:
            # A recording's step reads only the files its player allowed (none by default),
            # whatever path its command names: safeload.read_source enforces it.
            with files_only_under(getattr(step, "file_roots", None)):
                result = self.session.submit(step.command, step.stdin)
        expect = getattr(step, "expect", ())
        if expect and self.check_expectations:
            # Everything the command set going at this second, then the checks.
            self.session.run_until(step.at)
            for i, exp in enumerate(expect):
                self.checked += 1
                seen = check(self.session, exp)
                if seen is not None:
                    self.failures.append(Failure(step, i, exp, seen))
        if self.on_step is not None:
            self.on_step(step, result)
