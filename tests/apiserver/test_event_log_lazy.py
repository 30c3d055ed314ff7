"""The store's event log keeps compact records and builds each Event when it is read; every
reader must see exactly what the log gave when it built the Event at every record.

The reference here is that eager log, written plainly: a repeat of an event still in the log
(same object, uid, type, reason and message) bumps its count and last time — upstream's
EventCorrelator (client-go tools/record/events_cache.go, TestEventCorrelator in
events_cache_test.go) — else a new Event with the next name number and resourceVersion; the
log drops its oldest tenth at MAX_EVENTS, and the occurrence list drops its oldest tenth of
the occurrences that are not store.KEPT_REASONS. Random histories (reads interleaved, a
watcher or none, forks) are compared on every reader: ``events``, ``occurrences``, the sim
JSON's event list (``occurrence_facts``), ``events_for``, ``list("Event")``, watch events
and the resourceVersion.
"""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.codec import decode
from ksandbox.api.core import Event, Node, ObjectReference, Pod
from ksandbox.api.meta import ObjectMeta
from ksandbox.apiserver import store as store_module
from ksandbox.apiserver.event_records import REASON, RecordList
from ksandbox.apiserver.store import KEPT_REASONS, Store
from ksandbox.sim.rand import SimRandom
from ksandbox.views.state import event_dict, occurrence_dict

MAX = 12   # MAX_EVENTS for these tests: small, so that both drops happen


def _pod(name: str, ns: str, uid: str, api_version: str = "v1") -> Pod:
    return decode(Pod, {"apiVersion": api_version,
                        "metadata": {"name": name, "namespace": ns, "uid": uid},
                        "spec": {"containers": [{"name": "c", "image": "x"}]}})


OBJECTS = [decode(Node, {"metadata": {"name": "n0", "uid": "u-n0"}}),
           decode(Node, {"metadata": {"name": "n1", "uid": "u-n1"}}),
           _pod("p", "default", "u1"), _pod("p", "default", "u2"),   # recreated: a new uid
           _pod("p", "other", "u3"), _pod("q", "default", "u4"),
           _pod("q", "default", "u4", "core/v1")]   # another apiVersion, same object
REASONS = ["Pulled", "Created", "Started"] + sorted(KEPT_REASONS)
ASKS = ([("Node", "n0", ""), ("Node", "n1", ""), ("Node", "nx", "")]
        + [("Pod", name, ns) for name in ("p", "q") for ns in ("", "default", "other")])


class EagerLog:
    """The log as it was: an Event built at every record."""

    def __init__(self, rv: int) -> None:
        self.rv = rv
        self.seq = 0
        self.events: list[Event] = []
        self.occurrences: list[Event] = []
        self.dropped = 0

    def record(self, obj, type_, reason, message, component, now):
        m = obj.metadata
        for i, ev in enumerate(self.events):
            o = ev.involved_object
            if (o.kind, o.namespace, o.name, o.uid, ev.type, ev.reason, ev.message) == (
                    obj.kind, m.namespace, m.name, m.uid, type_, reason, message):
                ev = self.events[i] = attrs.evolve(ev, count=ev.count + 1, last_timestamp=now)
                self._occurred(ev)
                return "MODIFIED", ev
        self.rv += 1
        self.seq += 1
        ev = Event(metadata=ObjectMeta(name=f"{m.name}.{self.seq:x}",
                                       namespace=m.namespace or "default",
                                       resource_version=str(self.rv)),
                   involved_object=ObjectReference(kind=obj.kind, namespace=m.namespace,
                                                   name=m.name, uid=m.uid,
                                                   api_version=obj.api_version),
                   reason=reason, message=message, type=type_, source_component=component,
                   first_timestamp=now, last_timestamp=now)
        if len(self.events) >= MAX:
            del self.events[:MAX // 10]
        self.events.append(ev)
        self._occurred(ev)
        return "ADDED", ev

    def _occurred(self, ev):
        if ev.reason not in KEPT_REASONS:
            others = [i for i, e in enumerate(self.occurrences) if e.reason not in KEPT_REASONS]
            if len(others) >= MAX:
                gone = set(others[:max(1, MAX // 10)])
                self.occurrences = [e for i, e in enumerate(self.occurrences) if i not in gone]
                self.dropped += len(gone)
        self.occurrences.append(ev)

    def events_for(self, kind, name, namespace):
        return [e for e in self.events if (e.involved_object.kind, e.involved_object.name)
                == (kind, name) and (not namespace or e.involved_object.namespace == namespace)]


def _same(store: Store, log: EagerLog, heard: list | None, log_heard: list) -> None:
    assert list(store.events) == log.events
    assert [attrs.asdict(e) for e in store.occurrences] == [attrs.asdict(e)
                                                            for e in log.occurrences]
    assert len(store.occurrences) == len(log.occurrences)
    assert store.occurrences_dropped == log.dropped
    assert [occurrence_dict(*f) for f in store.occurrence_facts()] == \
        [event_dict(e) for e in log.occurrences]
    for ask in ASKS:
        assert store.events_for(*ask) == log.events_for(*ask), ask
    for ns in (None, "default", "other"):
        assert store.list("Event", ns) == [e for e in log.events
                                           if ns is None or e.metadata.namespace == ns]
    assert store.resource_version == log.rv
    if heard is not None:
        assert heard == log_heard


STEP = st.tuples(st.integers(0, len(OBJECTS) - 1), st.booleans(), st.sampled_from(REASONS),
                 st.integers(0, 2), st.integers(0, 2), st.integers(0, 8))


@settings(max_examples=80, deadline=None)
@given(st.lists(STEP, max_size=150), st.booleans(), st.integers(0, 150))
def test_the_lazy_log_reads_what_the_eager_log_built(steps, watched, fork_at):
    saved = store_module.MAX_EVENTS
    store_module.MAX_EVENTS = MAX
    try:
        now = [0.0]
        store = Store(lambda: now[0], SimRandom(1))
        heard: list | None = [] if watched else None
        if heard is not None:
            store.subscribe("Event", lambda w: heard.append((w.type, w.obj)))
        log, log_heard = EagerLog(store.resource_version), []
        for step, (which, warning, reason, message, component, what) in enumerate(steps):
            type_ = "Warning" if warning else "Normal"
            log_heard.append(log.record(OBJECTS[which], type_, reason, f"m{message}",
                                        f"c{component}", now[0]))
            store.record_event(OBJECTS[which], type_, reason, f"m{message}", f"c{component}")
            if what == 0:
                now[0] += 1.5
            elif what == 1:
                _same(store, log, heard, log_heard)   # reads in the middle build some Events
            elif what == 2:
                assert store.occurrences[-1] == log.occurrences[-1]
            if step == fork_at:
                # A fork shares the records: what one records the other must not see.
                other = store.fork(lambda: now[0], SimRandom(2))
                _same(other, log, None, log_heard)
                other.record_event(OBJECTS[0], "Normal", "Forked", "f")
                if step % 2:   # go on with the fork (it has no subscribers)
                    log.record(OBJECTS[0], "Normal", "Forked", "f", "", now[0])
                    store, heard = other, None
        _same(store, log, heard, log_heard)
    finally:
        store_module.MAX_EVENTS = saved


def test_an_event_read_twice_is_one_object_and_a_repeat_leaves_the_earlier_occurrence():
    now = [1.0]
    store = Store(lambda: now[0], SimRandom(1))
    node = OBJECTS[0]
    store.record_event(node, "Normal", "Starting", "a")
    first = store.events[0]
    assert first is store.occurrences[0] and first.count == 1
    now[0] = 4.0
    store.record_event(node, "Normal", "Starting", "a")
    assert [(e.count, e.last_timestamp) for e in store.occurrences] == [(1, 1.0), (2, 4.0)]
    assert store.occurrences[0] is first and store.events[0] is store.occurrences[1]


def test_a_repeat_of_an_event_dropped_from_the_log_is_a_new_event(monkeypatch):
    monkeypatch.setattr(store_module, "MAX_EVENTS", MAX)
    store = Store(lambda: 2.0, SimRandom(1))
    log = EagerLog(store.resource_version)
    node = OBJECTS[0]
    calls = [("Starting", "a")] + [("Other", f"m{i}") for i in range(MAX)] + [("Starting", "a")]
    for reason, message in calls:
        store.record_event(node, "Normal", reason, message)
        log.record(node, "Normal", reason, message, "", 2.0)
    assert store.events[-1].reason == "Starting" and store.events[-1].count == 1
    _same(store, log, None, [])


def test_a_fork_of_the_simulation_shares_the_records_and_reads_the_same_events():
    """Session.fork (sim/snapshot.fork_graph) shares the records (flat tuples) and starts the
    fork's table of built Events empty; both read the same events and go on apart."""
    from ksandbox.session import Session

    s = Session.from_text("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n")
    s.settle()
    node = s.store.get("Node", "n1")
    for i in range(5):
        s.store.record_event(node, "Normal", "Tick", f"m{i % 3}")
    before = list(s.store.occurrences)   # some built before the fork
    f = s.fork()
    assert s.store._build_event.__self__._built and not f.store._build_event.__self__._built
    assert list(f.store.occurrences) == before and list(f.store.events) == list(s.store.events)
    assert all(a is b for a, b in zip(f.store._occurrence_recs, s.store._occurrence_recs))
    f.store.record_event(node, "Normal", "Tick", "m0")
    assert len(f.store.occurrences) == len(before) + 1 and list(s.store.occurrences) == before


def _plain_drop(occ: list, start: int, count: int) -> tuple[list, int, int]:
    """The occurrence drop written plainly: from ``start``, drop the first ``count`` records
    whose reason is not kept, keep the kept ones met on the way (in order), leave the rest.
    (new list, where the next drop starts, how many were dropped)"""
    i, kept, dropped = start, [], 0
    while dropped < count and i < len(occ):
        if occ[i][REASON] in KEPT_REASONS:
            kept.append(occ[i])
        else:
            dropped += 1
        i += 1
    return occ[:start] + kept + occ[i:], start + len(kept), dropped


@settings(max_examples=300, deadline=None)
@given(reasons=st.lists(st.sampled_from(REASONS), max_size=60), start=st.integers(0, 60),
       count=st.integers(1, 20))
def test_the_occurrence_drop_is_the_plain_one(reasons: list[str], start: int,
                                               count: int) -> None:
    """Store._drop_oldest_occurrences (a slice at a time, sorted by C calls) against the
    record-by-record loop: the same records left in the same order, the same place for the
    next drop, the same counts; with kept reasons in runs, at the start and at the end."""
    start = min(start, len(reasons))
    occ = [("Pod", "default", f"p{i}", "u", "Normal", r, "m") for i, r in enumerate(reasons)]
    store = Store(lambda: 0.0, SimRandom(1))
    store._occurrence_recs = RecordList(occ)
    store._droppable_from = start
    store._droppable = store.occurrences_dropped = 100
    want, want_from, want_dropped = _plain_drop(occ, start, count)
    store._drop_oldest_occurrences(count)
    assert store._occurrence_recs == want
    assert store._droppable_from == want_from
    assert store._droppable == 100 - want_dropped
    assert store.occurrences_dropped == 100 + want_dropped
