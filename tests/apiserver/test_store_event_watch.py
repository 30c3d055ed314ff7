"""Event watches: record_event builds a watch event only when someone listens (a UI's model, an
all-kinds observer); a watcher hears every new and repeated event, and a store nobody watches
records exactly the same events (upstream: the event sink writes Events through the API, and a
watch of events sees both the create and the count bump — client-go tools/record)."""

import attrs

from ksandbox.api.core import Node
from ksandbox.api.meta import ObjectMeta
from ksandbox.apiserver.store import ADDED, MODIFIED, Store
from ksandbox.sim.rand import SimRandom


def _store() -> Store:
    return Store(lambda: 7.0, SimRandom(3))


def _record(store: Store) -> None:
    n1 = store.create(Node(metadata=ObjectMeta(name="n1")))
    n2 = store.create(Node(metadata=ObjectMeta(name="n2")))
    store.record_event(n1, "Normal", "Starting", "a")
    store.record_event(n2, "Warning", "NodeNotReady", "b")
    store.record_event(n1, "Normal", "Starting", "a")   # a repeat: count 2


def _events(store: Store) -> list:
    return [attrs.asdict(e) for e in store.events]


def test_event_watchers_hear_new_and_repeated_events():
    for kind in ("Event", None):
        store = _store()
        heard: list = []

        def hear(ev, heard=heard):
            if ev.obj.kind == "Event":
                heard.append((ev.type, ev.obj.reason, ev.obj.count))

        store.subscribe(kind, hear)
        _record(store)
        assert heard == [(ADDED, "Starting", 1), (ADDED, "NodeNotReady", 1),
                         (MODIFIED, "Starting", 2)], kind


def test_an_unwatched_store_records_the_same_events():
    quiet, watched = _store(), _store()
    watched.subscribe("Event", lambda ev: None)
    _record(quiet)
    _record(watched)
    assert _events(quiet) == _events(watched)
    assert [e.count for e in quiet.events] == [2, 1]
    assert quiet.resource_version == watched.resource_version


def test_a_watcher_subscribed_later_hears_the_events_from_then_on():
    store = _store()
    heard: list = []

    def hear(ev):
        if ev.obj.kind == "Event":
            heard.append((ev.type, ev.obj.reason, ev.obj.count))

    store.subscribe("Node", lambda ev: None)   # no event watcher yet
    n1 = store.create(Node(metadata=ObjectMeta(name="n1")))
    store.record_event(n1, "Normal", "Starting", "a")
    for kind in (None, "Event"):
        store.subscribe(kind, hear)
        store.record_event(n1, "Normal", "Starting", "a")
        store.unsubscribe(kind, hear)
        store.record_event(n1, "Normal", "Starting", "a")
    assert heard == [(MODIFIED, "Starting", 2), (MODIFIED, "Starting", 4)]
