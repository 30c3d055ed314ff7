"""Batched timers (Clock.call_batched, sim/clock.TimerBatch) run exactly as plain timers:
the same callbacks in the same order at the same times, the same events_run and
foreground_pending at every point, whether the clock runs whole, in budgeted slices or step
by step, with cancellations and callbacks that schedule and cancel more at the same instant.

The plain way is ``call_at(when, callback, priority, label, arg=arg)`` per call; the batched
way holds the calls due at one (time, priority) in one heap entry (a load's 150,000 kubelet
pod starts, kubelet/pod_workers.schedule_start). Upstream has no such clock: the order
being kept is our own (time, priority, seq) contract (sim/clock.py's docstring).
"""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.sim.clock import Clock, TimerBatch
from ksandbox.sim.snapshot import fork_graph

TIMES = (0.0, 1.0, 1.5, 2.0)
PRIOS = (10, 30)
ARGS = range(6)
CALLBACKS = ("a", "b")


class World:
    """One clock driven by a program; ``batched`` sends the batchable calls through
    call_batched instead of call_at."""

    def __init__(self, batched: bool, reactions: dict) -> None:
        self.clock = Clock()
        self.batched = batched
        self.reactions = reactions
        self.log: list = []
        self.handles: dict = {}   # (callback name, arg) -> the last call's handle
        self.runs = 0
        self.cbs = {"a": self._run_a, "b": self._run_b}

    def _run_a(self, arg):
        self._ran("a", arg)

    def _run_b(self, arg):
        self._ran("b", arg)

    def _ran(self, name, arg):
        c = self.clock
        self.log.append(("ran", c.now, name, arg, c.events_run, c.foreground_pending))
        self.runs += 1
        if self.runs > 150:
            return
        for op in self.reactions.get((name, arg), ()):
            if op[0] == "sched":
                _, delta, prio, batch, name2, arg2 = op
                self.schedule(c.now + delta, prio, batch, name2, arg2)
            else:
                self.cancel(op[1], op[2])

    def schedule(self, when, prio, batch, name, arg):
        cb = self.cbs[name]
        if batch and self.batched:
            h = self.clock.call_batched(when, cb, arg, prio, f"{name}{arg}")
        else:
            h = self.clock.call_at(when, cb, prio, f"{name}{arg}", arg=arg)
        self.handles[(name, arg)] = h

    def cancel(self, name, arg):
        h = self.handles.get((name, arg))
        if isinstance(h, TimerBatch):
            h.cancel(self.cbs[name], arg)
        elif h is not None:
            h.cancel()

    def state(self):
        c = self.clock
        return (c.now, c.events_run, c.foreground_pending, c.next_event_time(),
                [(w, p, label, arg) for w, p, label, arg, _bg in c.scheduled()])

    def play(self, program):
        for op in program:
            kind = op[0]
            if kind == "sched":
                _, when, prio, batch, name, arg = op
                self.schedule(when, prio, batch, name, arg)
            elif kind == "cancel":
                self.cancel(op[1], op[2])
            elif kind == "run":
                done = self.clock.run_until(op[1], budget=op[2])
                self.log.append(("run", done, self.state()))
            else:
                self.log.append(("step", self.clock.step(), self.state()))
        self.clock.run_until(100.0)
        self.log.append(("end", self.state()))
        return self.log


_name = st.sampled_from(CALLBACKS)
_arg = st.sampled_from(ARGS)
_sched = st.tuples(st.just("sched"), st.sampled_from(TIMES), st.sampled_from(PRIOS),
                   st.booleans(), _name, _arg)
_cancel = st.tuples(st.just("cancel"), _name, _arg)
_run = st.tuples(st.just("run"), st.sampled_from(TIMES),
                 st.one_of(st.none(), st.integers(0, 4)))
_step = st.tuples(st.just("step"))
_program = st.lists(st.one_of(_sched, _sched, _sched, _cancel, _run, _step), max_size=40)
_reaction = st.one_of(
    st.tuples(st.just("sched"), st.sampled_from((0.0, 0.5)), st.sampled_from(PRIOS),
              st.booleans(), _name, _arg),
    _cancel)
_reactions = st.dictionaries(st.tuples(_name, _arg), st.lists(_reaction, max_size=3),
                             max_size=6)


@settings(max_examples=400, deadline=None)
@given(_program, _reactions)
def test_batched_timers_run_as_plain_timers(program, reactions):
    plain = World(False, reactions).play(program)
    batched = World(True, reactions).play(program)
    assert batched == plain


@settings(max_examples=100, deadline=None)
@given(_program, _program, _reactions)
def test_a_fork_of_a_clock_with_batches_goes_on_as_the_original(first, then, reactions):
    """A fork (sim/snapshot.fork_graph) taken with batches pending — some partly run,
    some with cancelled entries — goes on as the original does: the cancelled-entry marker
    and the batch's (arg, callback) index survive the copy."""
    world = World(True, reactions)
    world.play(first)
    other = fork_graph(world)
    assert other.play(then) == world.play(then)


def test_one_heap_entry_holds_every_call_due_at_one_time_and_priority():
    """What the batch is for: 1,000 calls at one (time, priority) are one heap entry, not
    1,000 Timers (sys.getsizeof of the lists: ~8 bytes a call each)."""
    clock, seen = Clock(), []
    for i in range(1000):
        clock.call_batched(1.5, seen.append, i, 30, "start")
    assert clock.pending() == 1 and clock.foreground_pending == 1000
    batch = clock.entries()[0][2]
    assert isinstance(batch, TimerBatch)
    per_call = sum(sys.getsizeof(x) for x in (batch.callbacks, batch.args, batch.labels)) / 1000
    assert per_call < 32
    clock.run_until(2)
    assert seen == list(range(1000)) and clock.events_run == 1000
    assert clock.foreground_pending == 0 and clock.pending() == 0


def test_a_timer_at_the_same_time_and_priority_closes_the_batch():
    """A plain timer scheduled between two batched calls of one (time, priority) runs
    between them, as its sequence number says: the second call opens a new batch."""
    clock, seen = Clock(), []
    clock.call_batched(1.0, seen.append, "first", 30)
    clock.call_at(1.0, lambda: seen.append("plain"), 30)
    clock.call_at(1.0, lambda: seen.append("other priority"), 20)
    clock.call_batched(1.0, seen.append, "second", 30)
    assert clock.pending() == 4
    clock.run_until(1.0)
    assert seen == ["other priority", "first", "plain", "second"]
