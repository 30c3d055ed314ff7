"""The event log's compact records, and the core/v1 Events made from them when read.

A run records ~4.4 events per scheduled pod, and a headless ``sim`` reads few of them as Events:
its JSON wants five fields of each occurrence, and past ``store.MAX_EVENTS`` the oldest are
dropped unread. Building the Event (its ObjectMeta, its reference, the name, the version
string) at every record was ~half of an event's cost, so ``Store.record_event`` keeps a flat
tuple per event instead and the Event is built the first time something reads it.

A record is ``(kind, namespace, name, uid, type, reason, message, api_version, component,
seq, rv, first, last, count)``: the first seven are the correlator's key of the event (the
object it is about, with its uid, and what happened), ``seq`` numbers the event's name and
``rv`` is its resourceVersion (an int). A repeat of an event is a new record (count + 1, last
= now), as the eager log made a new Event with ``evolve``; the old record stays where an
earlier occurrence holds it. Records hold only strings and numbers, so a fork of the
simulation (sim/snapshot.py) shares them as they are.

Built Events are remembered by record value (equal records make equal Events), so reading an
event twice gives the same object while the table lasts; it starts over when it is full, and
a fork of the simulation starts with an empty one.

``EventList`` is what ``Store.events`` / ``Store.occurrences`` hand out: a read-only sequence of
Events over a list of records, in place (no copy).
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import Any, Callable, Iterator, overload

from ..api.core import Event, ObjectReference, object_path
from ..api.evolve import replacer
from ..api.meta import ObjectMeta

Record = tuple   # (kind, namespace, name, uid, type, reason, message, api_version,
#                    component, seq, rv, first, last, count)

(KIND, NAMESPACE, NAME, UID, TYPE, REASON, MESSAGE, API_VERSION, COMPONENT, SEQ, RV, FIRST, LAST,
 COUNT) = range(14)
KEY_LEN = 7   # rec[:KEY_LEN] is the correlator's key

# Object references remembered for the events about an object (the table starts over when full).
_REFS_KEPT = 4096
# Events remembered by record (the table starts over when full): above the log's 20,000 events
# and the occurrences it keeps, so that a UI reading the same events sees the same objects.
_BUILT_KEPT = 1 << 16

_EVENT_FIELDS = ("metadata", "involved_object", "reason", "message", "type", "source_component",
                 "count", "first_timestamp", "last_timestamp")
_EVENT_TEMPLATE = Event()
_NEW_EVENT = replacer(Event, _EVENT_FIELDS)


def _new_event(*values: Any) -> Event:
    """Event(**dict(zip(_EVENT_FIELDS, values))), every other field at its default, by
    position (api/evolve.py) when the class allows it."""
    if _NEW_EVENT is not None:
        return _NEW_EVENT(_EVENT_TEMPLATE, *values)
    return Event(**dict(zip(_EVENT_FIELDS, values)))


class RecordList(list[Record]):
    """The store's list of records. They are immutable tuples of strings and numbers, so a
    fork of the simulation (sim/snapshot.py) copies the list shallowly, at C speed, instead
    of visiting each record."""

    __slots__ = ()

    def __deepcopy__(self, memo: Any) -> RecordList:
        return RecordList(self)


class EventBuilder:
    """Builds the Event of a record, once while its table lasts. The events about one object
    share one ObjectReference (it holds nothing a write changes)."""

    def __init__(self) -> None:
        # (kind, namespace, name, uid, apiVersion) -> the reference (immutable); bounded
        self._refs: dict[tuple, ObjectReference] = {}
        # record -> its Event; bounded (the log's records and occurrences, and then some)
        self._built: dict[Record, Event] = {}

    def __deepcopy__(self, memo: Any) -> EventBuilder:
        """A fork of the simulation starts with empty tables: they are caches."""
        return EventBuilder()

    def build(self, rec: Record) -> Event:
        built = self._built
        ev = built.get(rec)
        if ev is not None:
            return ev
        (kind, namespace, name, uid, type_, reason, message, api_version, component, seq, rv,
         first, last, count) = rec
        ref_key = (kind, namespace, name, uid, api_version)
        ref = self._refs.get(ref_key)
        if ref is None:
            ref = ObjectReference(kind=kind, namespace=namespace, name=name, uid=uid,
                                  api_version=api_version)
            if len(self._refs) >= _REFS_KEPT:
                self._refs.clear()
            self._refs[ref_key] = ref
        meta = ObjectMeta(name=f"{name}.{seq:x}", namespace=namespace or "default",
                          resource_version=str(rv))
        ev = _new_event(meta, ref, reason, message, type_, component, count, first, last)
        if len(built) >= _BUILT_KEPT:
            built.clear()
        built[rec] = ev
        return ev


# a record's reason, as a C call (the occurrence drop maps it over 2,000 records)
reason_of: Callable[[Record], str] = itemgetter(REASON)


def event_namespace(rec: Record) -> str:
    """The Event's own namespace (a cluster-scoped object's events go to "default")."""
    return rec[NAMESPACE] or "default"


def occurrence_facts(recs: list[Record]) -> Iterator[tuple[float, str, str, str, str]]:
    """(last_timestamp, type, reason, object_path, message) of each record, in order: what
    the built Events would give, without building them (the sim JSON's event list)."""
    for rec in recs:
        yield (rec[LAST], rec[TYPE], rec[REASON], object_path(rec[KIND], rec[NAMESPACE], rec[NAME]),
               rec[MESSAGE])


class EventList(Sequence[Event]):
    """A read-only list of Events over a list of records, each built when first read. It
    reads the list in place: what it holds is what the log holds at the time of the read."""

    __slots__ = ("_recs", "_build")

    def __init__(self, recs: list[Record], build: Callable[[Record], Event]) -> None:
        self._recs = recs
        self._build = build

    def __len__(self) -> int:
        return len(self._recs)

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        if isinstance(index, slice):
            return list(map(self._build, self._recs[index]))
        return self._build(self._recs[index])

    def __iter__(self) -> Iterator[Event]:
        return map(self._build, self._recs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventList):
            other = list(other)
        if not isinstance(other, list):
            return NotImplemented
        return list(self) == other

    __hash__ = None  # type: ignore[assignment]  # as a list's

    def __repr__(self) -> str:
        return f"EventList({list(self)!r})"
