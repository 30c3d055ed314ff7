"""The clock: ordering, cancellation, background accounting, determinism."""

from ksandbox.sim.clock import Clock
from ksandbox.sim.rand import SimRandom


def test_callbacks_run_in_time_then_priority_then_fifo_order():
    clock, seen = Clock(), []
    clock.call_at(5, lambda: seen.append("t5-p50-first"))
    clock.call_at(5, lambda: seen.append("t5-p10"), priority=10)
    clock.call_at(1, lambda: seen.append("t1"))
    clock.call_at(5, lambda: seen.append("t5-p50-second"))
    clock.run_until(10)
    assert seen == ["t1", "t5-p10", "t5-p50-first", "t5-p50-second"]
    assert clock.now == 10


def test_run_until_stops_before_later_work_and_time_never_goes_back():
    clock, seen = Clock(), []
    clock.call_at(3, lambda: seen.append(clock.now))
    clock.call_at(7, lambda: seen.append(clock.now))
    clock.run_until(5)
    assert seen == [3] and clock.now == 5
    clock.call_at(1, lambda: seen.append(clock.now))  # in the past: runs "now"
    clock.run_until(5)
    assert seen == [3, 5]
    assert clock.next_event_time() == 7


def test_callbacks_can_schedule_more_work_at_the_same_instant():
    clock, seen = Clock(), []

    def first():
        seen.append("first")
        clock.call_soon(lambda: seen.append("chained"))

    clock.call_at(2, first)
    clock.run_until(2)
    assert seen == ["first", "chained"]


def test_cancelled_timers_never_run_and_leave_the_foreground_count():
    clock, seen = Clock(), []
    t = clock.call_at(1, lambda: seen.append("x"))
    clock.call_at(2, lambda: seen.append("bg"), background=True)
    assert clock.foreground_pending == 1
    t.cancel()
    t.cancel()
    assert clock.foreground_pending == 0
    clock.run_until(3)
    assert seen == ["bg"]
    assert clock.next_event_time() is None


def test_step_runs_one_callback():
    clock, seen = Clock(), []
    clock.call_at(4, lambda: seen.append(1))
    clock.call_at(9, lambda: seen.append(2))
    assert clock.step() and clock.now == 4 and seen == [1]
    assert clock.step() and clock.now == 9
    assert not clock.step()


def test_same_seed_same_numbers_and_children_are_independent():
    a, b = SimRandom(7), SimRandom(7)
    assert [a.random() for _ in range(5)] == [b.random() for _ in range(5)]
    c1 = SimRandom(7).child("kubelet")
    c2 = SimRandom(7)
    c2.random()  # draws on the parent do not move a child
    assert c1.random() == c2.child("kubelet").random()
    assert SimRandom(7).child("a").random() != SimRandom(7).child("b").random()
    assert len(SimRandom(1).uid()) == 36
    assert all(ch in "bcdfghjklmnpqrstvwxz2456789" for ch in SimRandom(1).name_suffix())
