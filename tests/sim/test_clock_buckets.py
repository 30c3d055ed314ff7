"""The clock's buckets (one FIFO per (time, priority), each key once in the heap) run every
callback in the order of one plain heap of (time, priority, seq): checked against such a heap
on random schedules — same-instant chains, cancels, batches, stepping and budgets."""

import heapq
import random

import pytest

from ksandbox.sim.clock import Clock


class _PlainTimer:
    __slots__ = ("when", "callback", "arg", "cancelled")

    def __init__(self, when, callback, arg):
        self.when, self.callback, self.arg, self.cancelled = when, callback, arg, False

    def cancel(self):
        self.cancelled = True


class _PlainClock:
    """The reference: one heap of (time, priority, seq, timer); a batched call is a timer of
    its own (what call_batched promises to run as)."""

    def __init__(self):
        self.now = 0.0
        self.heap = []
        self.seq = 0
        self.last = {}   # (callback, arg) -> the last batched timer (TimerBatch.cancel's)

    def call_at(self, when, callback, priority=50, arg=None):
        when = max(when, self.now)
        t = _PlainTimer(when, callback, arg)
        self.seq += 1
        heapq.heappush(self.heap, (when, priority, self.seq, t))
        return t

    def call_batched(self, when, callback, arg, priority=50):
        t = self.last[(callback, arg)] = self.call_at(when, callback, priority, arg)
        return t

    def cancel_batched(self, callback, arg):
        t = self.last.get((callback, arg))
        if t is not None:
            t.cancel()

    def _fire(self, when, t):
        self.now = when
        if t.arg is None:
            t.callback()
        else:
            t.callback(t.arg)

    def step(self):
        while self.heap and self.heap[0][3].cancelled:
            heapq.heappop(self.heap)
        if not self.heap:
            return False
        when, _p, _s, t = heapq.heappop(self.heap)
        self._fire(when, t)
        return True

    def run_until(self, until, budget=None):
        while self.heap:
            when, _p, _s, t = self.heap[0]
            if when > until:
                break
            if t.cancelled:
                heapq.heappop(self.heap)
                continue
            if budget is not None:
                if budget <= 0:
                    return False
                budget -= 1
            heapq.heappop(self.heap)
            self._fire(when, t)
        self.now = max(self.now, until)
        return True

    def next_event_time(self):
        while self.heap and self.heap[0][3].cancelled:
            heapq.heappop(self.heap)
        return self.heap[0][0] if self.heap else None


def _world(clock, seed, plain):
    """Callbacks that log what runs and, from a seeded draw made in run order, schedule more
    (often at the current instant), cancel pending timers and batched calls."""
    rng = random.Random(seed)
    log, handles = [], []
    batched: dict = {}   # arg -> its batch handle, while its one call is pending (the contract)

    def when():
        return clock.now + rng.choice((0, 0, 0, 0.5, 1, 2, 3.25))

    def prio():
        return rng.choice((0, 10, 10, 20, 30, 50))

    def act(name):
        log.append((clock.now, name))
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            schedule(f"{name}.{len(log)}")
        if handles and rng.random() < 0.15:
            handles[rng.randrange(len(handles))].cancel()
        if batched and rng.random() < 0.15:
            arg = sorted(batched)[rng.randrange(len(batched))]
            handle = batched.pop(arg)
            if plain:
                clock.cancel_batched(act_batched, arg)
            else:
                handle.cancel(act_batched, arg)

    def act_batched(arg):
        del batched[arg]
        act(arg)

    def schedule(name):
        if len(log) > 400:
            return
        arg = f"b{rng.randrange(40)}"   # an arg comes back once its call has run
        if rng.random() < 0.3 and arg not in batched:
            batched[arg] = clock.call_batched(when(), act_batched, arg, prio())
        else:
            handles.append(clock.call_at(when(), lambda: act(name), prio()))

    for i in range(12):
        schedule(f"seed{i}")
    return log, rng


@pytest.mark.parametrize("seed", range(40))
def test_buckets_run_the_plain_heaps_order(seed):
    runs = []
    for plain in (False, True):
        clock = _PlainClock() if plain else Clock()
        log, _ = _world(clock, seed, plain)
        drive = random.Random(seed * 7 + 1)
        times = []
        for _ in range(120):
            how = drive.random()
            if how < 0.3:
                clock.step()
            elif how < 0.6:
                clock.run_until(clock.now + drive.choice((0, 0.5, 1)), budget=drive.randrange(4))
            else:
                clock.run_until(clock.now + drive.choice((0, 0.25, 1, 2)))
            times.append((clock.now, clock.next_event_time()))
        runs.append((log, times))
    assert runs[0] == runs[1]
    assert len(runs[0][0]) > 50   # the schedule did run a while


def test_a_bucket_takes_a_timer_due_at_its_key_while_it_runs():
    """A callback that schedules at its own (time, priority) runs that one after the entries
    already waiting there, and an entry cancelled mid-bucket is skipped."""
    clock, seen = Clock(), []
    clock.call_at(1, lambda: (seen.append("a"), clock.call_soon(lambda: seen.append("d"), 10)),
                  10)
    doomed = clock.call_at(1, lambda: seen.append("x"), 10)
    clock.call_at(1, lambda: seen.append("b"), 10)
    clock.call_at(1, lambda: seen.append("c"), 20)
    doomed.cancel()
    assert clock.pending() == 4
    clock.run_until(1)
    assert seen == ["a", "b", "d", "c"] and clock.pending() == 0 and not clock._heap
