"""Clock.wake: an owner's one Wakeup, scheduled again and again, runs exactly where
call_at's Timer for the same callback would — checked on random schedules of owners (work
queues, workers, kubelets' pod syncs: scheduled when kicked unless already waiting, some
cancelled for good) among plain timers, against the same clock given a Timer each time; and
what the clock tells of its waiting entries is the same."""

import random

import pytest

from ksandbox.sim.clock import Clock, Wakeup


def _world(clock: Clock, seed: int, wakeups: bool):
    rng = random.Random(seed)
    log: list = []
    handles: list = []

    class Owner:
        def __init__(self, i: int) -> None:
            self.name = f"owner{i}"
            self.prio = rng.choice((10, 10, 20, 30))
            self.timer = None
            self.dead = False
            self.wakeup = Wakeup(self.run, self.name, clock)

        def kick(self) -> None:
            if self.timer is None and not self.dead:
                if wakeups:
                    self.timer = clock.wake(self.wakeup, clock.now, self.prio)
                else:
                    self.timer = clock.call_at(clock.now, self.run, self.prio, self.name)

        def run(self) -> None:
            self.timer = None
            act(self.name)

    owners = [Owner(i) for i in range(6)]

    def act(name: str) -> None:
        log.append((clock.now, name))
        if len(log) > 500:
            return
        for _ in range(rng.choice((0, 1, 1, 2))):
            n = f"{name}.{len(log)}"
            handles.append(clock.call_at(clock.now + rng.choice((0, 0, 0.5, 1, 2)),
                                         lambda n=n: act(n), rng.choice((0, 10, 20, 30, 50))))
        if rng.random() < 0.3:
            # a batched timer (a kubelet's pod start): a wake at its (time, priority) closes
            # the batch as a call_at there does
            clock.call_batched(clock.now + rng.choice((0, 0, 0.5, 1)), act,
                               f"{name}.b{len(log)}", rng.choice((10, 20, 30)))
        for _ in range(rng.choice((0, 1, 2, 3))):
            rng.choice(owners).kick()
        if handles and rng.random() < 0.1:
            handles[rng.randrange(len(handles))].cancel()
        if rng.random() < 0.03:
            # an owner stopped for good (a kubelet's node gone): its waiting entry cancelled
            o = rng.choice(owners)
            o.dead = True
            if o.timer is not None:
                o.timer.cancel()

    for i in range(8):
        handles.append(clock.call_at(rng.choice((0, 0.5, 1)), lambda i=i: act(f"seed{i}"),
                                     rng.choice((10, 20, 50))))
    for o in owners[:3]:
        o.kick()
    return log


def _listing(clock: Clock):
    return (clock.now, clock.pending(), clock.foreground_pending, clock.events_run,
            clock.next_event_time(), clock.scheduled())


@pytest.mark.parametrize("seed", range(30))
def test_a_wakeup_runs_where_a_timer_would(seed):
    runs = []
    for wakeups in (True, False):
        clock = Clock()
        log = _world(clock, seed, wakeups)
        drive = random.Random(seed * 5 + 3)
        seen = []
        for _ in range(150):
            how = drive.random()
            if how < 0.3:
                clock.step()
            elif how < 0.6:
                clock.run_until(clock.now + drive.choice((0, 0.5, 1)), budget=drive.randrange(5))
            else:
                clock.run_until(clock.now + drive.choice((0, 0.5, 1, 2)))
            seen.append(_listing(clock))
        runs.append((log, seen))
    assert runs[0] == runs[1]
    assert len(runs[0][0]) > 100


def test_a_cancelled_wakeup_is_skipped_and_counted_out():
    clock, seen = Clock(), []
    w = Wakeup(lambda: seen.append("w"), "w", clock)
    assert clock.wake(w, 1.0, 10) is w
    clock.call_at(1.0, lambda: seen.append("t"), 10)
    assert clock.foreground_pending == 2
    assert [label for _when, _p, label, _a, _b in clock.scheduled()] == ["w", ""]
    w.cancel()
    w.cancel()   # (twice counts once, as a Timer's)
    assert clock.foreground_pending == 1
    clock.run_until(2.0)
    assert seen == ["t"] and clock.foreground_pending == 0 and clock.pending() == 0
