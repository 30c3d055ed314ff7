"""The controller skeleton: client-go's work queue, its backoff, and a sync that fails.

Cases after client-go ``util/workqueue`` (default_rate_limiters_test.go
TestItemExponentialFailureRateLimiter: 1, 2, 4, 8, 16 ms … capped, and Forget starting over)
and the controllers' ``handleErr``: a failed sync is requeued with backoff, a succeeding one is
forgotten, and after maxRetries the key is dropped.
"""

from __future__ import annotations

import pytest

from ksandbox.controllers import base
from ksandbox.controllers.base import (Controller, ItemExponentialFailureRateLimiter, WorkQueue,
                                       Worker)
from ksandbox.sim.clock import Clock


@pytest.fixture(autouse=True)
def _clear_errors():
    base.SYNC_ERRORS.clear()
    yield
    base.SYNC_ERRORS.clear()


def test_item_exponential_backoff_doubles_from_5ms_to_1000s_and_forget_restarts():
    limiter = ItemExponentialFailureRateLimiter()
    delays = [limiter.when("a") for _ in range(20)]
    assert delays[:5] == [0.005, 0.01, 0.02, 0.04, 0.08]
    assert delays[-1] == 1000.0 and max(delays) == 1000.0
    assert limiter.num_requeues("a") == 20
    assert limiter.when("b") == 0.005       # per item
    limiter.forget("a")
    assert limiter.num_requeues("a") == 0 and limiter.when("a") == 0.005
    for _ in range(200):                    # no overflow far past the cap
        limiter.when("c")
    assert limiter.when("c") == 1000.0


def test_keys_are_deduplicated_and_drained_at_the_current_instant():
    clock = Clock()
    seen = []
    q = WorkQueue(clock, seen.append, "t")
    q.add("a")
    q.add("b")
    q.add("a")
    assert len(q) == 2 and "a" in q and seen == []
    clock.run_until(0.0)
    assert seen == ["a", "b"] and len(q) == 0


def test_keys_added_while_draining_wait_for_the_next_drain_at_the_same_instant():
    clock = Clock()
    seen = []

    def sync(key):
        seen.append((clock.now, key))
        if key == "a":
            clock.call_soon(lambda: seen.append((clock.now, "other")), 10)
            q.add("a2")

    q = WorkQueue(clock, sync, "t")
    q.add("a")
    clock.run_until(1.0)
    assert seen == [(0.0, "a"), (0.0, "other"), (0.0, "a2")]


def test_add_after_keeps_the_earliest_request():
    clock = Clock()
    seen = []
    q = WorkQueue(clock, lambda k: seen.append((clock.now, k)), "t")
    q.add_after("a", 10.0)
    q.add_after("a", 5.0)
    q.add_after("a", 7.0)
    clock.run_until(20.0)
    assert seen == [(5.0, "a")]


def test_a_failing_sync_is_requeued_with_backoff_and_the_others_still_run():
    clock = Clock()
    seen = []
    failures = {"bad": 3}

    def sync(key):
        seen.append((round(clock.now, 3), key))
        if failures.get(key, 0) > 0:
            failures[key] -= 1
            raise RuntimeError(f"boom {key}")

    q = WorkQueue(clock, sync, "t")
    q.add("bad")
    q.add("good")
    clock.run_until(1.0)
    assert seen == [(0.0, "bad"), (0.0, "good"), (0.005, "bad"), (0.015, "bad"),
                    (0.035, "bad")]
    assert [e[1:] for e in base.SYNC_ERRORS] == [("t", "bad", "RuntimeError: boom bad")] * 3
    assert q.num_requeues("bad") == 0        # the success forgot it
    base.SYNC_ERRORS.clear()


def test_after_max_retries_the_key_is_dropped():
    clock = Clock()
    calls = []

    def sync(key):
        calls.append(clock.now)
        raise ValueError("always")

    q = WorkQueue(clock, sync, "t", max_retries=3)
    q.add("k")
    clock.run_until(10_000.0)
    assert len(calls) == 4                   # the first try and three retries
    assert q.num_requeues("k") == 0 and clock.next_event_time() is None
    base.SYNC_ERRORS.clear()


def test_a_worker_takes_from_its_first_non_empty_queue():
    clock = Clock()
    seen = []
    worker = Worker(clock, "w")

    def on_node(key):
        seen.append(("node", key))

    def on_pod(key):
        seen.append(("pod", key))
        if key == "p1":
            nodes.add("n2")          # a node update arriving mid-way goes first

    nodes = worker.queue(on_node)
    pods = worker.queue(on_pod)
    pods.add("p1")
    pods.add("p2")
    nodes.add("n1")
    clock.run_until(0.0)
    assert seen == [("node", "n1"), ("pod", "p1"), ("node", "n2"), ("pod", "p2")]


def test_a_controller_is_wired_by_start():
    class Echo(Controller):
        name = "echo"

        def watch(self):
            self.store.subscribe("Node", lambda ev: self.queue.add(ev.obj.metadata.name))

        def sync(self, key):
            self.synced.append(key)

    from ksandbox.session import Session

    s = Session()
    echo = Echo()
    echo.synced = []
    echo.start(s.cp)
    s.submit("ksandbox add node extra")
    s.run_until(1.0)
    assert set(echo.synced) == {"extra"} and echo.queue.label == "echo"


def test_a_periodic_pass_that_raises_is_recorded_and_the_loop_goes_on():
    """A periodic loop (HPA resync, pod GC, the cluster autoscaler's scan) is not keyed work;
    a pass that fails is kept like a failed sync, and the next period's pass still runs."""
    clock = Clock()
    passes: list[float] = []

    def gc() -> None:
        passes.append(clock.now)
        if len(passes) == 2:
            raise RuntimeError("boom")

    def loop() -> None:
        base.run_pass(clock, "podgc", gc)
        clock.call_later(20.0, loop, 0, "podgc")

    clock.call_soon(loop, 0, "podgc")
    clock.run_until(65.0)
    assert passes == [0.0, 20.0, 40.0, 60.0]
    assert [e[1:] for e in base.SYNC_ERRORS] == [("podgc", None, "RuntimeError: boom")]
