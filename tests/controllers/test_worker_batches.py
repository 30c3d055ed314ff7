"""Worker.run drains a queue's keys one after another while the queues before it stay empty,
and WorkQueue.add_all appends keys without an add each once the drain is scheduled: both must
do exactly what the plain ways do — Worker.run looking again from the first queue after every
key, add() of each key — for any syncs that queue more work (in an earlier queue, the same one,
a later one, by add or add_all) or fail (and are requeued with backoff): the same keys synced
in the same order at the same instants, the same timers."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ksandbox.controllers import base
from ksandbox.controllers.base import Worker, WorkQueue
from ksandbox.sim.clock import Clock


def _plain_run(self: Worker) -> None:
    """Worker.run as it was: a new look from the first queue after every key."""
    self._timer = None
    while True:
        for q in self.queues:
            if q.process_next():
                break
        else:
            return


def _plain_add_all(self: WorkQueue, keys) -> None:
    for key in keys:
        self.add(key)


# what syncing a key does: (queue index, keys to queue, by add_all?) per step, or "fail"
_ACTION = st.one_of(st.just("fail"),
                    st.tuples(st.integers(0, 2), st.lists(st.integers(0, 6), max_size=4),
                              st.booleans()))


def _run(programme, queues_n, initial, use_worker, plain):
    clock = Clock()
    synced = []
    actions = dict(programme)
    done = set()
    worker = Worker(clock, "w") if use_worker else None
    queues: list[WorkQueue] = []

    def sync_of(qi):
        def sync(key):
            synced.append((clock.now, qi, key))
            action = actions.get((qi, key))
            if action is None or (qi, key) in done:
                return
            done.add((qi, key))   # once: the run ends
            if action == "fail":
                raise RuntimeError("no")
            target, keys, bulk = action
            q = queues[target % queues_n]
            if bulk:
                q.add_all(keys)
            else:
                for k in keys:
                    q.add(k)
        return sync

    for qi in range(queues_n):
        queues.append(worker.queue(sync_of(qi), f"q{qi}") if worker is not None
                      else WorkQueue(clock, sync_of(qi), f"q{qi}"))
    for qi, keys in initial:
        queues[qi % queues_n].add_all(keys)
    clock.run_until(60.0)
    timers = [(w, p, label, repr(arg)) for w, p, label, arg, _ in clock.scheduled()]
    return synced, clock.events_run, timers


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.tuples(st.integers(0, 2), st.integers(0, 6)), _ACTION),
                max_size=12),
       st.integers(1, 3),
       st.lists(st.tuples(st.integers(0, 2), st.lists(st.integers(0, 6), max_size=6)),
                min_size=1, max_size=3),
       st.booleans())
# a bulk add during the worker's run whose first key waits already: the next key kicks it
@example([((0, 0), (0, [1, 5], True))], 1, [(0, [0, 1])], True)
# the second queue's first key queues work in the first: it is taken before the second key
@example([((1, 0), (0, [5], False))], 2, [(1, [0, 1])], True)
# the third queue's first key queues work in the second
@example([((2, 0), (1, [5], False))], 3, [(2, [0, 1])], True)
def test_worker_runs_and_bulk_adds_sync_what_the_plain_ways_sync(programme, queues_n, initial,
                                                                  use_worker):
    fast = _run(programme, queues_n, initial, use_worker, plain=False)
    run, add_all = Worker.run, WorkQueue.add_all
    Worker.run, WorkQueue.add_all = _plain_run, _plain_add_all
    try:
        plain = _run(programme, queues_n, initial, use_worker, plain=True)
    finally:
        Worker.run, WorkQueue.add_all = run, add_all
        base.SYNC_ERRORS.clear()
    assert fast == plain


def test_a_bulk_add_adds_each_key_once_at_its_first_place():
    clock = Clock()
    q = WorkQueue(clock, lambda key: None, "q")
    q.add("b")
    q.add_all(["a", "b", "c", "a", "d"])
    # (a queue that drains itself takes its keys in _pending's order and keeps no _order)
    assert list(q._pending) == ["b", "a", "c", "d"] and not q._order
    assert len([t for t in clock.scheduled() if t[2] == "q"]) == 1
    worker = Worker(clock, "w")
    wq = worker.queue(lambda key: None)
    wq.add("b")
    wq.add_all(["a", "b", "c", "a", "d"])
    assert list(wq._order) == ["b", "a", "c", "d"] and list(wq._pending) == ["b", "a", "c", "d"]
    assert len([t for t in clock.scheduled() if t[2] == "w"]) == 1


def test_process_next_of_a_queue_that_drains_itself_takes_its_keys_in_order():
    """Such a queue keeps no _order (its drain takes every key at once); process_next, which
    nothing calls on it, still takes the first key waiting, as the drain would."""
    clock = Clock()
    synced = []
    q = WorkQueue(clock, synced.append, "q")
    q.add_all(["c", "a", "b"])
    q.add("a")
    while q.process_next():
        pass
    assert synced == ["c", "a", "b"] and not q._pending
