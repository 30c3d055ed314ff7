"""Store.events_for answers from its per-object index exactly as a scan of the event log.

The index is built on the first read and kept by record_event from then on; it must follow
repeats (a count bump keeps the event's place), the log dropping its oldest tenth at
MAX_EVENTS, the index's own rebuild when it has grown to twice the log, namespaces (the same
name in two), and forks (which start without one).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.codec import decode
from ksandbox.api.core import Node, Pod
from ksandbox.apiserver import store as store_module
from ksandbox.apiserver.store import Store
from ksandbox.sim.rand import SimRandom


def _scan(store, kind, name, namespace=""):
    return [e for e in store.events if e.involved_object.kind == kind
            and e.involved_object.name == name
            and (not namespace or e.involved_object.namespace == namespace)]


OBJECTS = ([decode(Node, {"metadata": {"name": f"n{i}"}}) for i in range(3)]
           + [decode(Pod, {"metadata": {"name": f"p{i % 3}", "namespace": ns},
                           "spec": {"containers": [{"name": "c", "image": "x"}]}})
              for i, ns in enumerate(("default", "default", "default", "other", "other"))])
ASKS = ([("Node", f"n{i}", "") for i in range(3)] + [("Node", "missing", "")]
        + [("Pod", f"p{i}", ns) for i in range(3) for ns in ("", "default", "other")])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(OBJECTS) - 1), st.integers(0, 3),
                          st.integers(0, 20), st.booleans()), max_size=400),
       st.integers(0, 400))
def test_events_for_equals_a_scan_of_the_log(steps, first_read):
    saved = store_module.MAX_EVENTS
    store_module.MAX_EVENTS = 40   # drops and index rebuilds within a few hundred events
    try:
        store = Store(lambda: 0.0, SimRandom(1))
        for step, (which, reason, message, read) in enumerate(steps):
            store.record_event(OBJECTS[which], "Normal", f"R{reason}", f"m{message}")
            if step >= first_read and read:
                for ask in ASKS:
                    assert store.events_for(*ask) == _scan(store, *ask), (step, ask)
        for ask in ASKS:
            assert store.events_for(*ask) == _scan(store, *ask), ask
        # the index is bounded: positions of dropped events go at twice the log
        assert store._events_by_object_size <= 2 * store_module.MAX_EVENTS
        other = store.fork(lambda: 0.0, SimRandom(2))
        other.record_event(OBJECTS[0], "Warning", "Forked", "f")
        for ask in ASKS:
            assert other.events_for(*ask) == _scan(other, *ask), ask
            assert store.events_for(*ask) == _scan(store, *ask), ask
    finally:
        store_module.MAX_EVENTS = saved


def test_a_long_log_with_drops_and_rebuilds():
    import random

    saved = store_module.MAX_EVENTS
    store_module.MAX_EVENTS = 50
    try:
        r = random.Random(11)
        store = Store(lambda: 0.0, SimRandom(1))
        rebuilt = 0
        for step in range(2_000):
            store.record_event(r.choice(OBJECTS), "Normal", f"R{r.randrange(4)}",
                               f"m{r.randrange(30)}")
            rebuilt += store._events_by_object is None and step > 10
            if step % 37 == 0 or step > 1_900:
                for ask in ASKS:
                    assert store.events_for(*ask) == _scan(store, *ask), (step, ask)
        assert store._events_dropped > 500 and rebuilt   # the log dropped, the index rebuilt
        assert store._events_by_object_size <= 2 * store_module.MAX_EVENTS
    finally:
        store_module.MAX_EVENTS = saved
