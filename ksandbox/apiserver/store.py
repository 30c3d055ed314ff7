"""The in-memory API server: objects by kind, namespace and name, with watches.

Every write goes through admission (defaulting) and validation and bumps one global
``resourceVersion``; subscribers then hear ``ADDED`` / ``MODIFIED`` / ``DELETED`` synchronously,
in write order. Subscribers are informers: they must only enqueue work, never write back from
inside the callback (the clock runs their work later), which keeps the order deterministic.

Objects are immutable, so a read hands out the stored value itself and :meth:`Store.fork` is a
shallow copy of the index dicts. Pods are also indexed by node, because the scheduler cache,
the kubelets, ``describe node`` and the node board all ask "which pods are on node X".

Not here: the rules themselves (``admission.py``, ``validation.py``) and the event log's
presentation (``ksandbox.views``).
"""

from __future__ import annotations

import builtins
from contextlib import contextmanager
from itertools import compress
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from ..api import loadprogress
from ..api.codec import BUILDING_TWINS
from ..api.core import TERMINATED_PHASES
from ..api.errors import ApiError, KsandboxError
from ..api.evolve import (
    evolve,
    evolve_fields,
    replacer,
    stamped_builder,
    stamped_part_builder,
)
from ..api.kinds import BY_KIND, KindInfo
from ..api.meta import ObjectMeta
from ..sim import limits
from ..sim.clock import Clock
from ..sim.rand import SimRandom
from . import admission, validation
from .dispatch import NO_OBJECT, STATUS, WatchFilter, plan
from .event_records import (
    COUNT,
    KIND,
    NAME,
    NAMESPACE,
    EventBuilder,
    EventList,
    Record,
    RecordList,
    event_namespace,
    occurrence_facts,
    reason_of,
)

if TYPE_CHECKING:
    from ..api.core import Event, Pod

ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"

# Kinds whose registry strategy keeps metadata.generation: 1 at create, +1 on each spec change
# (pkg/registry/apps/*/strategy.go, policy/poddisruptionbudget, autoscaling; Pods since v1.33:
# pkg/registry/core/pod/strategy.go PrepareForCreate and updatePodGeneration — the binding
# subresource writes spec.nodeName without the strategy, so a bind is no spec change here
# either). Leases, Nodes, Events and Namespaces have none.
GENERATION_KINDS = frozenset(("Deployment", "ReplicaSet", "ReplicationController", "DaemonSet",
                              "PodDisruptionBudget", "HorizontalPodAutoscaler",
                              "VerticalPodAutoscaler", "StatefulSet", "Job", "CronJob", "Pod"))

Key = tuple[str, str]  # (namespace, name); namespace "" for cluster-scoped kinds


class WatchEvent:
    """One write as its subscribers hear it: ``type`` (ADDED / MODIFIED / DELETED), the object
    written (for DELETED, the object as it was) and the version it replaced (None for ADDED).

    A plain slotted class, not an attrs one: every write builds one (seven per scheduled pod),
    and attrs' frozen ``__init__`` (object.__setattr__ per field) cost twice as much. Treat it
    as read-only."""

    __slots__ = ("type", "obj", "old")

    def __init__(self, type: str, obj: Any, old: Any = None) -> None:  # noqa: A002 - the watch API's name
        self.type = type
        self.obj = obj
        self.old = old

    @property
    def kind(self) -> str:
        return self.obj.kind

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not WatchEvent:
            return NotImplemented
        return (self.type, self.obj, self.old) == (other.type, other.obj,  # type: ignore[attr-defined]
                                                   other.old)  # type: ignore[attr-defined]

    def __hash__(self) -> int:   # as the frozen attrs class's
        return hash((self.type, self.obj, self.old))

    def __repr__(self) -> str:
        return f"WatchEvent(type={self.type!r}, obj={self.obj!r}, old={self.old!r})"


Handler = Callable[[WatchEvent], None]
_new_event = object.__new__

# Events kept in memory; older ones are dropped (upstream keeps events for 1 h by default).
MAX_EVENTS = 20_000
# Occurrences never dropped from the log the sim JSON prints: what a run is read for (who was
# placed, who could not be, who was preempted or evicted). Their number is bounded by the
# scheduling attempts and evictions the run made; the rest roll over past MAX_EVENTS, counted.
KEPT_REASONS = frozenset({"TaintManagerEviction", "Scheduled", "FailedScheduling", "Preempted"})


class _TimeSource:
    """A time source given as a plain callable, read the way a Clock is read (``_now``)."""

    __slots__ = ("read",)

    def __init__(self, read: Callable[[], float]) -> None:
        self.read = read

    @property
    def _now(self) -> float:
        return self.read()


class Store:
    def __init__(self, now: Callable[[], float], rand: SimRandom) -> None:
        self._now = now
        # What the writes read the time from: ``self._time._now``. A Session's store is
        # handed its clock's ``read``: the clock itself then, whose ``_now`` is a plain
        # attribute — no Python frame per read, where calling ``read`` was one (~20 reads a
        # rolling pod's life: every write's last-change time, every event). Any other
        # callable is called, through _TimeSource.
        self._time: Any = getattr(now, "__self__", None) \
            if getattr(now, "__func__", None) is Clock.read else _TimeSource(now)
        self.rand = rand
        self.resource_version = 0
        self._objects: dict[str, dict[Key, Any]] = {k: {} for k in BY_KIND}
        # len() of every table together, kept by create and remove (object_count is asked on
        # every create: summing 48 tables each time cost seconds over a 150,000-pod load)
        self._count = 0
        self._pods_by_node: dict[str, dict[Key, Any]] = {}
        self._handlers: dict[str, list[Handler]] = {}
        self._all_handlers: list[Handler] = []
        # ``self._all_handlers or "Event" in self._handlers``, kept by subscribe and
        # unsubscribe (the only writers of either): record_event asks it at every event
        self._events_heard = False
        # What a subscription declared it acts on (subscribe's types / owners), by (kind,
        # handler); a handler without an entry hears every write of its kind.
        self._filters: dict[tuple[str, Handler], WatchFilter] = {}
        # Kinds with a declared filter or tracked controllers -> {dispatch key: the handlers
        # that write concerns, in subscription order} (dispatch.plan), built on first use and
        # emptied whenever the kind's subscriptions change. A kind not here: every handler.
        # (A tracked kind's write with one controller kind k on both sides finds its
        # handlers under k, then its type: _notify.)
        self._plans: dict[str, dict[Any, Any]] = {}
        # Kinds whose writes are keyed by their controllers' kinds too (track_controllers),
        # and the refs read for the last such write: (event, old side, new side), NO_OBJECT
        # for a side the write has not (ADDED's old, DELETED's new), None for an orphan.
        self._tracked: set[str] = set()
        self.last_refs: tuple[Any, Any, Any] = (None, None, None)
        # Deduplicated events (what `kubectl get events` lists, with counts) and every
        # occurrence in order (what the sim JSON and the live event log show, each at the
        # simulated second it happened), as records (event_records.py: flat tuples): the
        # Event is built when read (self.events / self.occurrences), most never are.
        self._event_recs = RecordList()
        self._occurrence_recs = RecordList()
        self._build_event = EventBuilder().build
        # the correlator's key (a record's first seven) -> absolute position in the log
        self._event_index: dict[tuple, int] = {}
        self._events_dropped = 0  # events dropped from the front of self.events so far
        # (kind, name) -> absolute positions (as _event_index's) of the events about it, built
        # on the first events_for (describe, explain) and kept from then on: a scan of the
        # 20,000-event log was ~10 ms of every explain. Positions of dropped events stay until
        # the index holds twice the log, then it is built again.
        self._events_by_object: dict[tuple[str, str], builtins.list[int]] | None = None
        self._events_by_object_size = 0
        # Occurrences dropped from self.occurrences (never one of KEPT_REASONS), how many of
        # the others it holds, and where the first of those is (all before it are kept ones).
        self.occurrences_dropped = 0
        self._droppable = 0
        self._droppable_from = 0
        self._event_seq = 0
        # Simulated time of the last write that changed the cluster (heartbeats excluded):
        # headless runs stop once the cluster has been quiet for a while.
        self.last_change_time = 0.0
        # Mutating admission that components register (admission.add_mutator): kind -> hooks.
        self.mutators: dict[str, list[Callable[[Any], Any]]] = {}
        # (kind, part, field) -> the write of that field (field_writer), one for the store's
        # writers of it (every kubelet's lease renewal)
        self._field_writers: dict[tuple[str, str, str], Callable[..., Any]] = {}

    # -- reads ----------------------------------------------------------------------------
    def now(self) -> float:
        return self._time._now

    def get(self, kind: str, name: str, namespace: str = "") -> Any | None:
        # The hottest read (a kubelet's every tick and renewal, every handler): one dict
        # lookup for the scope, no call.
        return self._objects[kind].get((namespace if _NAMESPACED[kind] else "", name))

    def list(self, kind: str, namespace: str | None = None) -> list[Any]:
        if kind == "Event":
            build = self._build_event
            return [build(r) for r in self._event_recs
                    if namespace is None or event_namespace(r) == namespace]
        objs = self._objects[kind]
        if namespace is None or not _namespaced(kind):
            return list(objs.values())
        return [o for (ns, _), o in objs.items() if ns == namespace]

    def count(self, kind: str) -> int:
        return len(self._objects[kind])

    def object_count(self) -> int:
        """Every stored object (events are kept apart, in a bounded ring)."""
        return self._count

    def items(self, kind: str) -> Iterable[tuple[Key, Any]]:
        """Live ``((namespace, name), object)`` pairs of a kind, for readers that need keys
        for every object (the TUI's list views sort 30,000 pods by key without reading each
        object's metadata). Read-only; do not hold it across writes."""
        return self._objects[kind].items()

    def table(self, kind: str) -> dict[Key, Any]:
        """The live ``(namespace, name) -> object`` table of a kind (namespace "" for a
        cluster-scoped kind): the same dict for the store's life, for a reader that looks one
        object up again and again (a kubelet's own Node at every status check: one dict
        lookup, no call). Read-only."""
        return self._objects[kind]

    def pods_on_node(self, node_name: str) -> builtins.list[Any]:
        return list(self._pods_by_node.get(node_name, {}).values())

    def nodes(self) -> builtins.list[Any]:
        return list(self._objects["Node"].values())

    # -- watches --------------------------------------------------------------------------
    def subscribe(self, kind: str | None, handler: Handler, *,
                  types: Iterable[str] | None = None,
                  owners: Iterable[str | None] | None = None, status: bool = True) -> None:
        """Hear every write of ``kind`` (or of every kind when None), in write order.

        A handler that acts on only some writes declares which, and hears only those (in its
        place among the kind's handlers): ``types`` — the watch event types it acts on;
        ``owners`` — the kinds of controller (None: no controller) an object must have before
        or after the write (the kind must be tracked: :meth:`track_controllers`);
        ``status=False`` — it does nothing for a write of the status subresource
        (:meth:`update_status`, :meth:`write_status`: the stored spec and metadata kept, a new
        status and resourceVersion). Declare only what the handler provably ignores
        otherwise, and say why where it subscribes: the order of everything the others do
        stays as if every handler heard every write."""
        if kind is None:
            assert types is None and owners is None and status, "filters are per kind"
            self._all_handlers.append(handler)
            self._events_heard = True
            return
        self._handlers.setdefault(kind, []).append(handler)
        self._events_heard = bool(self._all_handlers) or "Event" in self._handlers
        self._set_filter(kind, handler, types, owners, status)

    def refilter(self, kind: str, handler: Handler, *,
                 types: Iterable[str] | None = None,
                 owners: Iterable[str | None] | None = None, status: bool = True) -> None:
        """Declare anew what a subscribed handler acts on (as :meth:`subscribe`; it keeps
        its place): for a handler whose interest follows its own state (a controller that
        adopts orphans only while it has owners to adopt them)."""
        assert handler in self._handlers.get(kind, ()), "refilter a subscribed handler"
        self._set_filter(kind, handler, types, owners, status)

    def track_controllers(self, kind: str) -> None:
        """Key the writes of ``kind`` by the kind of the object's controller before and
        after (``owners`` filters need it) and keep the refs read in :attr:`last_refs` for
        the handlers (the shared informers' index reads them instead of reading again)."""
        self._tracked.add(kind)
        self._plans[kind] = {}

    def _set_filter(self, kind: str, handler: Handler, types: Iterable[str] | None,
                    owners: Iterable[str | None] | None, status: bool) -> None:
        if types is None and owners is None and status:
            self._filters.pop((kind, handler), None)
        else:
            assert owners is None or kind in self._tracked, f"track_controllers({kind!r}) first"
            self._filters[(kind, handler)] = WatchFilter(types, owners, status)
        if (kind, handler) in self._filters or kind in self._plans:
            self._plans[kind] = {}

    def unsubscribe(self, kind: str | None, handler: Handler) -> None:
        """Stop calling ``handler`` (subscribed with the same ``kind``)."""
        handlers = self._all_handlers if kind is None else self._handlers.get(kind, [])
        if handler in handlers:
            handlers.remove(handler)
            self._events_heard = bool(self._all_handlers) or "Event" in self._handlers
            if kind is not None:
                if handler not in handlers:
                    self._filters.pop((kind, handler), None)
                if kind in self._plans:
                    self._plans[kind] = {}

    @contextmanager
    def muted(self, handlers: Iterable[tuple[str, Handler]]) -> Iterator[None]:
        """Within the block the given ``(kind, handler)`` subscriptions hear nothing; after
        it each is back at its own place in its kind's handler order. For a component that
        catches up from the store after a load instead of hearing every write of it
        (Session's bulk start)."""
        before = {kind: list(self._handlers[kind]) for kind, _ in handlers}
        removed = [(kind, before[kind].index(handler), handler) for kind, handler in handlers]
        for kind, _, handler in removed:
            self._handlers[kind].remove(handler)
        self._replan(before)
        try:
            yield
        finally:
            # each back at the place it had, lowest first (so every index is right again)
            for kind, i, handler in sorted(removed, key=lambda r: (r[0], r[1])):
                self._handlers[kind].insert(i, handler)
            self._replan(before)

    def _replan(self, kinds: Iterable[str]) -> None:
        for kind in kinds:
            if kind in self._plans:
                self._plans[kind] = {}

    def _notify(self, type_: str, obj: Any, old: Any = None, status: bool = False) -> None:
        """Hand the write (``type_``, the object written, the version it replaced;
        ``status``: a write of the status subresource) to the handlers that hear it. The
        WatchEvent is built only when one does: a load's 150,000 pod creates, heard by
        nobody (Session's bulk start mutes every pod handler), build none."""
        kind = obj.kind
        plans = self._plans.get(kind)
        tracked = False
        if plans is None:
            hs: Any = self._handlers.get(kind, ())
        else:
            tracked = kind in self._tracked
            if tracked:
                # The controller refs of both sides (ControllerIndex's and OwnerHandler's
                # reading, done once here): the dispatch key names their kinds. A first
                # reference that is the controller is the one the loop finds (no iterator
                # for the usual one-reference tuple).
                old_ref = new_ref = None
                if old is None:
                    old_ref = NO_OBJECT
                else:
                    refs = old.metadata.owner_references
                    if refs and refs[0].controller:
                        old_ref = refs[0]
                    else:
                        for ref in refs:
                            if ref.controller:
                                old_ref = ref
                                break
                if type_ == DELETED:
                    new_ref = NO_OBJECT
                elif old is not None and \
                        obj.metadata.owner_references is old.metadata.owner_references:
                    new_ref = old_ref
                else:
                    for ref in obj.metadata.owner_references:
                        if ref.controller:
                            new_ref = ref
                            break
                if old_ref is new_ref:
                    # The one controller (or none) on both sides, most writes: the plans of
                    # the key (type, k, k) wait under k, by type — two lookups by interned
                    # strings instead of a key tuple built, hashed and compared (a tuple
                    # key never equals a kind's name or None).
                    ref_kind = old_ref.kind if old_ref is not None else None
                    by_type: Any = plans.get(ref_kind)
                    if by_type is None:
                        by_type = plans[ref_kind] = {}
                    type_key = STATUS if status else type_
                    hs = by_type.get(type_key)
                    if hs is None:
                        hs = by_type[type_key] = plan(self._handlers.get(kind, ()),
                                                      self._filters, kind,
                                                      (type_key, ref_kind, ref_kind))
                else:
                    key: Any = (STATUS if status else type_,
                                old_ref.kind if old_ref is not None else None,
                                new_ref.kind if new_ref is not None else None)
                    hs = plans.get(key)
                    if hs is None:
                        hs = plans[key] = plan(self._handlers.get(kind, ()), self._filters,
                                               kind, key)
            else:
                key = STATUS if status else type_
                hs = plans.get(key)
                if hs is None:
                    hs = plans[key] = plan(self._handlers.get(kind, ()), self._filters, kind,
                                           key)
        if not hs and not self._all_handlers:
            return
        # WatchEvent(type_, obj, old), its fields set here: a class call runs __init__ in a
        # frame of its own (~560 instructions more a write)
        ev = _new_event(WatchEvent)
        ev.type = type_
        ev.obj = obj
        ev.old = old
        if tracked:
            self.last_refs = (ev, old_ref, new_ref)
        for h in hs:
            h(ev)
        if self._all_handlers:   # (a UI's model; none in a headless run: no iterator)
            for h in self._all_handlers:
                h(ev)

    # -- writes ---------------------------------------------------------------------------
    def _next_rv(self) -> str:
        self.resource_version += 1
        return str(self.resource_version)

    def admit(self, obj: Any, stamp: bool = False,
              priorities: dict[str, tuple[int, str]] | None = None) -> Any:
        """Default and validate ``obj`` as a create would, without storing it (dry run);
        ``stamp``: for a create that follows at once; ``priorities``: the Priority plugin's
        answers kept by class name while no PriorityClass is written (both:
        admission.admit_create)."""
        obj = admission.admit_create(self, obj, stamp, priorities)
        validation.validate(self, obj)
        return obj

    def check_namespace(self, obj: Any, extra: set[str] = frozenset()) -> None:
        """NamespaceLifecycle admission: a namespaced object needs its namespace to exist."""
        if not BY_KIND[obj.kind].namespaced or obj.kind == "Event":
            return
        ns = obj.metadata.namespace or "default"
        if ns not in extra and self.get("Namespace", ns) is None:
            raise ApiError.not_found("namespaces", ns)

    def create(self, obj: Any, *, admitted: bool = False) -> Any:
        """POST: admission (NamespaceLifecycle, defaults, priority), validation, then the
        mutating hooks and the write.

        ``admitted=True`` only for an object that went through :meth:`admit` (this create's own
        admission and validation) already: ``apply_all``'s staging, a controller stamping many
        pods from one template it admitted once (``ReplicaSetController._admitted``), and
        ``kubectl autoscale`` checking every HPA before creating any. Mutating hooks still
        run."""
        kind = obj.kind
        info = BY_KIND[kind]
        if not admitted:
            self.check_namespace(obj)
            obj = self.admit(obj)
        if kind in self.mutators:
            obj = admission.run_mutators(self, obj)
        meta = obj.metadata
        key = (meta.namespace if info.namespaced else "", meta.name)   # _key's
        table = self._objects[kind]
        if key in table:
            raise ApiError.already_exists(info.display_resource, obj.metadata.name)
        cap = limits.LIMITS.max_objects
        if self._count >= cap:
            # The sandbox-wide object cap (sim/limits.py): runaway growth becomes a refused
            # create (a controller records FailedCreate and backs off), never an OOM kill.
            raise ApiError("Forbidden", f'{info.display_resource} "{obj.metadata.name}" is '
                                        f'forbidden: the sandbox holds {cap} objects, its '
                                        f'limit (--max-objects)', 403)
        version = self.resource_version = self.resource_version + 1   # _next_rv's, inline
        rv, now = str(version), self._time._now
        if not (meta.resource_version == rv and meta.uid and meta.creation_timestamp == now
                and type(meta.creation_timestamp) is type(now)
                and (meta.generation or kind not in GENERATION_KINDS)):
            if kind in GENERATION_KINDS and not meta.generation:
                meta = (_STAMP_OBJECT_META if type(meta) is ObjectMeta else _stamp_any)(
                    meta, rv, meta.uid or self.rand.uid(), now, 1)
            else:
                meta = _replace(meta, _CREATE_FIELDS, rv, meta.uid or self.rand.uid(), now)
            obj = _with_metadata(obj, meta)
        # else: stamped exactly so already — apply_all staged it in a copy of this store
        # whose resourceVersion ran in step with this one — and it is stored as it is
        # instead of being built again (two objects per object of a 150,000-pod load).
        table[key] = obj
        self._count += 1
        if kind == "Pod" and obj.spec.node_name:   # _index_pod's (a pending pod: nothing)
            self._index_pod(key, None, obj)
        self.last_change_time = now
        self._notify(ADDED, obj)
        return obj

    def update(self, obj: Any, *, quiet: bool = False) -> Any:
        """PUT: replace a stored object, admitted and validated against it; the caller built
        ``obj`` from the current one with evolve.

        ``quiet`` marks routine writes (kubelet heartbeats) that do not count as a change when
        deciding whether a headless run has settled.
        """
        old = self._current(obj)
        if obj.kind == "ReplicaSet" and obj.metadata is old.metadata:
            # A resize (the Deployment controller's scaleReplicaSet, ~2 a rolling pod's
            # life): admission and validation read only the spec's replicas, template and
            # selector here (the metadata is the stored one: not checked again), and both
            # are pure functions of those objects. A template and selector that one update
            # was admitted unchanged with (_ADMITTED_TEMPLATES) are admitted unchanged again;
            # with the stored selector (immutable) and replicas a non-negative int, the
            # plain path would return ``obj`` itself: it is written as it is.
            spec = obj.spec
            known = _ADMITTED_TEMPLATES.get(id(spec.template))
            if known is not None and known[0] is spec.template and known[1] is spec.selector \
                    and spec.selector is old.spec.selector and type(spec.replicas) is int \
                    and spec.replicas >= 0:
                return self._write(old, obj, quiet)
        return self._write(old, self._admit_update(old, obj), quiet)

    def update_fields(self, old: Any, fields: tuple[str, ...], *values: Any,
                      quiet: bool = False) -> Any:
        """``update(evolve(old, **dict(zip(fields, values))), quiet=quiet)`` for ``old`` as
        the store holds it, built once: a lease renewal (5,000 nodes renew 500 leases a
        simulated second) changes one field of a kind with no update defaulting and no rules
        beyond its metadata, which it keeps — so admission returns the object, validation
        has nothing to check, and the stored object is built directly around its new
        resourceVersion instead of being built by the caller and again by the store. Any
        other write (a stale ``old``, a kind with defaults or rules, generations, the pod
        index) takes :meth:`update`; the stored object, the resourceVersion and the watch
        event are the same either way (tests/apiserver/test_store_update_fields.py)."""
        plan = _PLAIN_UPDATE.get((type(old), fields))
        if plan is None:
            plan = _PLAIN_UPDATE[(type(old), fields)] = _plain_update(old, fields)
        namespaced, build, stamp = plan
        meta = old.metadata
        table = self._objects[old.kind]
        key = (meta.namespace if namespaced else "", meta.name)
        if build is None or table.get(key) is not old:
            return self.update(_replace(old, fields, *values), quiet=quiet)
        # _write's stamp with uid, creationTimestamp and generation kept: only the
        # resourceVersion is new (_next_rv's, inline).
        rv = self.resource_version = self.resource_version + 1
        obj = build(old, stamp(meta, str(rv)), *values)
        table[key] = obj
        if not quiet:
            self.last_change_time = self._time._now
        self._notify(MODIFIED, obj, old)
        return obj

    def write_field(self, kind: str, name: str, namespace: str, part: str, field: str,
                    value: Any, *, quiet: bool = False) -> Any | None:
        """``update_fields(cur, (part,), evolve(getattr(cur, part), **{field: value}),
        quiet=quiet)`` of the stored object ``cur`` of ``kind``/``namespace``/``name``; None
        when there is none (nothing written). A kubelet's lease renewal (``spec.renewTime``):
        500 nodes renew every 10 simulated seconds, a fixed cost of every simulated second.
        When the kind's write is plain (update_fields') the new object, its part and its
        stamped metadata are built in one frame (evolve.stamped_part_builder) instead of by
        three replacers, around one lookup of the stored object; the stored object, the
        resourceVersion and the watch event are update_fields' either way
        (tests/apiserver/test_store_update_fields.py)."""
        table = self._objects[kind]
        key = (namespace if _NAMESPACED[kind] else "", name)
        old = table.get(key)
        if old is None:
            return None
        build = _PART_BUILD.get((type(old), part, field))
        if build is None:
            build = _part_build(old, part, field)
        new = build(old, str(self.resource_version + 1), value) if build is not _NO_BUILD \
            else None
        if new is None:   # (not plain, not ready, or another class of metadata or part)
            return self.update_fields(old, (part,), evolve_fields(getattr(old, part), (field,),
                                                                  value), quiet=quiet)
        self.resource_version += 1
        table[key] = new
        if not quiet:
            self.last_change_time = self._time._now
        self._notify(MODIFIED, new, old)
        return new

    def field_writer(self, kind: str, part: str, field: str) -> Callable[[Key, Any, bool], Any]:
        """``write(key, value, quiet)``: :meth:`write_field` of ``kind``'s ``part.field`` for
        the object under the table key ``key`` (``(namespace, name)``, namespace "" for a
        cluster-scoped kind), for a writer that writes one field again and again: a kubelet
        renews its Lease every 10 simulated seconds (500 renewals a second at 5,000 nodes).
        The build is found once per object class, where write_field builds and hashes its
        key tuples at every call; the stored object, the resourceVersion and the watch event
        are write_field's (tests/apiserver/test_store_update_fields.py). One writer per
        (kind, part, field) for the store."""
        writer = self._field_writers.get((kind, part, field))
        if writer is not None:
            return writer
        table = self._objects[kind]
        builds: dict[type, Any] = {}   # final builds (_PART_BUILD's) by the object's class

        def write(key: Key, value: Any, quiet: bool) -> Any | None:
            old = table.get(key)
            if old is None:
                return None
            build = builds.get(old.__class__)
            if build is None:
                cls = type(old)
                build = _PART_BUILD.get((cls, part, field))
                if build is None:
                    build = _part_build(old, part, field)
                if (cls, part, field) in _PART_BUILD:   # final (not waiting for twins)
                    builds[cls] = build
            new = build(old, str(self.resource_version + 1), value) \
                if build is not _NO_BUILD else None
            if new is None:   # write_field's other ways
                return self.write_field(kind, key[1], key[0], part, field, value, quiet=quiet)
            self.resource_version += 1
            table[key] = new
            if not quiet:
                self.last_change_time = self._time._now
            self._notify(MODIFIED, new, old)
            return new

        self._field_writers[(kind, part, field)] = write
        return write

    def update_all(self, objs: Iterable[Any], *, dry_run: bool = False) -> builtins.list[Any]:
        """Several updates, all or nothing (kubectl's cordon, taint, label, scale over many
        objects): each object is admitted and validated against its stored version first, as
        :meth:`update` does; only when all pass are they written (or, with ``dry_run``,
        returned as they would be written)."""
        checked = []
        for obj in objs:
            old = self._current(obj)
            checked.append(self._admit_update(old, obj))
        if dry_run:
            return checked
        return [self._write(self._current(obj), obj, False) for obj in checked]

    def _admit_update(self, old: Any, obj: Any) -> Any:
        admitted = admission.admit_update(self, old, obj)
        validation.validate(self, admitted, old)
        if admitted is obj and obj.kind == "ReplicaSet":
            # admitted unchanged and valid: what update's resize takes as known
            template = obj.spec.template
            if len(_ADMITTED_TEMPLATES) >= _ADMITTED_LIMIT:
                _ADMITTED_TEMPLATES.clear()
            _ADMITTED_TEMPLATES[id(template)] = (template, obj.spec.selector)
        return admitted

    def _update_admitted(self, obj: Any) -> Any:
        """Write an update that :func:`apply_all` has admitted and validated already."""
        return self._write(self._current(obj), obj, False)

    def update_status(self, obj: Any, *, quiet: bool = False) -> Any:
        """PUT .../status, the status subresource: the stored object takes ``obj``'s status and
        keeps its own spec and metadata (the status strategies' PrepareForUpdate), so there is
        no spec to admit or validate. What controllers, kubelets and the scheduler write when
        they report what they observed."""
        old = self._current(obj)
        if getattr(obj, "spec", None) is not getattr(old, "spec", None) or \
                obj.metadata is not old.metadata:
            obj = evolve(old, status=obj.status)
        return self._write(old, obj, quiet, True)

    def write_status(self, obj: Any, status: Any, *, quiet: bool = False) -> Any:
        """``update_status(evolve(obj, status=status), quiet=quiet)`` with the stored object
        built once: the status subresource keeps the stored object's spec and metadata, so
        the new version is the stored one with ``status`` and a stamped metadata — built
        directly instead of by the caller (evolve) and again by the store (the stamp). The
        stored object, resourceVersion, pod index and watch event are update_status's
        (tests/apiserver/test_store_write_status.py)."""
        # _current's lookup, then _stamp, _next_rv and _replace, inline: the commonest write
        # of a run (a kubelet's pod status, a controller's status), a call less each
        kind = obj.kind
        meta = obj.metadata
        key = (meta.namespace if _NAMESPACED[kind] else "", meta.name)
        table = self._objects[kind]
        old = table.get(key)
        if old is None:
            raise ApiError.not_found(BY_KIND[kind].display_resource, meta.name)
        # _write's stamp of a status write: uid, creationTimestamp and generation kept (the
        # spec is the stored one: no generation bump), so only the resourceVersion is new.
        # The stamped metadata and the object in one frame (evolve.stamped_builder) once the
        # classes have their building twins; else, or for metadata of another class, the
        # stamp and the object by a replacer each.
        stamped = _STAMPED_STATUS.get(type(old))
        if stamped is None:
            stamped = _stamped_status_of(type(old))
        rv = self.resource_version + 1
        new = stamped(old, str(rv), status)
        if new is not None:
            self.resource_version = rv
        else:
            build = _STATUS_BUILD.get(type(old), _UNKNOWN)
            if build is _UNKNOWN:
                build = _STATUS_BUILD[type(old)] = replacer(type(old), _STATUS_FIELDS) \
                    if _STAMP_RV is not None else None
            if build is None:
                return self.update_status(evolve(obj, status=status), quiet=quiet)
            meta = old.metadata
            self.resource_version = rv
            if type(meta) is ObjectMeta:
                meta = _STAMP_RV(meta, str(rv))
            else:
                meta = _stamp_any(meta, str(rv), meta.uid, meta.creation_timestamp,
                                  meta.generation)
            new = build(old, meta, status)
        table[key] = new
        if kind == "Pod":
            # _index_pod's, for a pod that stays where it is (the stored spec is kept): the
            # new version in its place among its node's pods
            node = new.spec.node_name
            if node:
                bucket = self._pods_by_node.get(node)
                if bucket is not None:
                    bucket[key] = new
                else:
                    self._index_pod(key, old, new)
        if not quiet:
            self.last_change_time = self._time._now
        self._notify(MODIFIED, new, old, True)
        return new

    def bind(self, pod: Pod, node_name: str, status: Any) -> Any:
        """POST pods/NAME/binding: assign the pod to ``node_name``, with ``status`` (the
        scheduler's PodScheduled condition). A pod already assigned is refused (409), as
        upstream's binding REST does."""
        # _current's lookup, inline (a Pod: namespaced)
        pod_meta = pod.metadata
        table = self._objects["Pod"]
        old = table.get((pod_meta.namespace, pod_meta.name))
        if old is None:
            raise ApiError.not_found(BY_KIND["Pod"].display_resource, pod_meta.name)
        if old.spec.node_name:
            raise ApiError.conflict("pods", old.metadata.name,
                                    f"pod {old.metadata.name} is already assigned to node "
                                    f'"{old.spec.node_name}"')
        # _write(old, evolve(old, spec=..., status=status)) with the pod built once, around
        # its stamped metadata (a Pod has no generation to bump)
        meta = old.metadata
        key = (meta.namespace, meta.name)
        build = _BIND_BUILD.get(type(old))
        if build is None:   # replacer's answer, kept by class (a Pod's: never None)
            build = _BIND_BUILD[type(old)] = replacer(type(old), _BIND_FIELDS) or \
                (lambda o, *values: _replace(o, _BIND_FIELDS, *values))
        rv = self.resource_version = self.resource_version + 1   # _next_rv's, inline
        obj = build(old, (_STAMP_OBJECT_META if type(meta) is ObjectMeta else _stamp_any)(
            meta, str(rv), meta.uid, meta.creation_timestamp, meta.generation),
            old.spec.with_node_name(node_name), status)
        table[key] = obj
        # _index_pod's, inline: the pod had no node (refused above), now it has its own
        new_node = obj.spec.node_name
        if new_node:
            bucket = self._pods_by_node.get(new_node)
            if bucket is None:
                bucket = self._pods_by_node[new_node] = {}
            bucket[key] = obj
        self.last_change_time = self._time._now
        self._notify(MODIFIED, obj, old)
        return obj

    def _current(self, obj: Any) -> Any:
        kind = obj.kind
        meta = obj.metadata
        old = self._objects[kind].get((meta.namespace if _NAMESPACED[kind] else "", meta.name))
        if old is None:
            raise ApiError.not_found(BY_KIND[kind].display_resource, meta.name)
        return old

    def _write(self, old: Any, obj: Any, quiet: bool, status: bool = False) -> Any:
        """Store ``obj`` in place of ``old``: resourceVersion, generation, the pod index, the
        watch event (``status``: ``obj`` is ``old`` with another status, update_status's).
        Every named write above ends here."""
        kind = obj.kind
        meta = obj.metadata
        key = (meta.namespace if _NAMESPACED[kind] else "", meta.name)
        old_meta = old.metadata
        generation = old_meta.generation
        if kind in GENERATION_KINDS and obj.spec is not old.spec and obj.spec != old.spec:
            generation += 1
        # _with_metadata(obj, _stamp(meta, self._next_rv(), ...)), inline: three frames
        # fewer a write (a scale, every update)
        rv = self.resource_version = self.resource_version + 1
        meta = (_STAMP_OBJECT_META if type(meta) is ObjectMeta else _stamp_any)(
            meta, str(rv), old_meta.uid, old_meta.creation_timestamp, generation)
        build = _WITH_META.get(type(obj))
        if build is None:
            build = _with_meta_of(type(obj))
        return self._replace(kind, key, old, build(obj, meta), quiet, status)

    def _replace(self, kind: str, key: Key, old: Any, new: Any, quiet: bool,
                 status: bool = False) -> Any:
        """Put the stamped ``new`` in place of ``old``: the table, the pod index, the time
        of the last change, the watch event (``status``: a write of the status
        subresource)."""
        self._objects[kind][key] = new
        if kind == "Pod":
            self._index_pod(key, old, new)
        if not quiet:
            self.last_change_time = self._time._now
        self._notify(MODIFIED, new, old, status)
        return new

    def remove(self, kind: str, name: str, namespace: str = "") -> Any:
        """Take an object out of the store at once (the end of a graceful deletion)."""
        info = BY_KIND[kind]
        key = (namespace if info.namespaced else "", name)
        table = self._objects[kind]
        old = table.pop(key, None)
        if old is None:
            raise ApiError.not_found(info.display_resource, name)
        self._count -= 1
        if kind == "Pod":
            # _index_pod(key, old, None)'s, inline: out of its node's pods
            old_node = old.spec.node_name
            if old_node:
                bucket = self._pods_by_node.get(old_node)
                if bucket is not None:
                    bucket.pop(key, None)
                    if not bucket:
                        del self._pods_by_node[old_node]
        self.resource_version += 1   # (_next_rv's)
        self.last_change_time = self._time._now
        self._notify(DELETED, old, old)
        return old

    def delete(self, kind: str, name: str, namespace: str = "",
               grace_period: int | None = None) -> Any:
        """Delete as the API server does.

        A pod bound to a node is deleted gracefully: it gets a ``deletionTimestamp`` and the
        node's kubelet removes it once its containers have stopped (or at once with
        ``grace_period=0``, kubectl's ``--force``). Everything else goes at once.
        """
        info = BY_KIND[kind]
        key = (namespace if info.namespaced else "", name)
        obj = self._objects[kind].get(key)   # (self.get's)
        if obj is None:
            raise ApiError.not_found(info.display_resource, name)
        # (not obj.is_terminated, read as its phases: a property is a frame)
        if kind == "Pod" and obj.spec.node_name and \
                obj.status.phase not in TERMINATED_PHASES:
            grace = grace_period
            if grace is None or grace < 0:
                grace = obj.spec.termination_grace_period_seconds
                grace = 30 if grace is None else grace
            if grace > 0:
                if obj.metadata.deletion_timestamp is not None:
                    return obj
                # Graceful deletion: the deletion stamp, and the generation one up when it
                # has one (apiserver rest.BeforeDelete: the first graceful deletion changes
                # what the object's controllers may do, so it counts as a new generation).
                meta = obj.metadata
                generation = meta.generation + 1 if meta.generation > 0 else 0
                if type(meta) is not ObjectMeta or _MARK_META is None:
                    marked = evolve(obj, metadata=evolve(
                        meta, deletion_timestamp=self._time._now + grace,
                        deletion_grace_period_seconds=grace))
                    new = _with_metadata(marked, _stamp(
                        marked.metadata, self._next_rv(), meta.uid, meta.creation_timestamp,
                        generation))
                    return self._replace(kind, (meta.namespace, meta.name), obj, new, False)
                # _write(obj, marked) with the metadata built once, stamped as _write's
                # (uid and creationTimestamp kept), with the generation above
                rv = self.resource_version = self.resource_version + 1   # (_next_rv's)
                now = self._time._now
                build = _WITH_META.get(type(obj))   # (_with_metadata's)
                if build is None:
                    build = _with_meta_of(type(obj))
                new = build(obj, _MARK_META(meta, now + grace, grace, str(rv), meta.uid,
                                            meta.creation_timestamp, generation))
                # _replace's, inline: the pod keeps its spec, so its node: the new version
                # in its place among its node's pods (_index_pod's)
                key = (meta.namespace, meta.name)
                self._objects["Pod"][key] = new
                bucket = self._pods_by_node.get(new.spec.node_name)
                if bucket is not None:
                    bucket[key] = new
                else:
                    self._index_pod(key, obj, new)
                self.last_change_time = now
                self._notify(MODIFIED, new, obj)
                return new
        return self.remove(kind, name, namespace)

    def _index_pod(self, key: Key, old: Any, new: Any) -> None:
        old_node = old.spec.node_name if old is not None else ""
        new_node = new.spec.node_name if new is not None else ""
        if old_node and old_node != new_node:
            bucket = self._pods_by_node.get(old_node)
            if bucket is not None:
                bucket.pop(key, None)
                if not bucket:
                    del self._pods_by_node[old_node]
        if new_node:
            # get, then a new bucket only when there is none (setdefault made an empty dict
            # at every pod write to throw away)
            bucket = self._pods_by_node.get(new_node)
            if bucket is None:
                bucket = self._pods_by_node[new_node] = {}
            bucket[key] = new

    # -- events ---------------------------------------------------------------------------
    @property
    def events(self) -> EventList:
        """The deduplicated events, oldest first (``kubectl get events``): read-only, in place."""
        return EventList(self._event_recs, self._build_event)

    @property
    def occurrences(self) -> EventList:
        """Every occurrence of an event in order, repeats included (the sim JSON, the live
        event log), each at the count and time it had then: read-only, in place."""
        return EventList(self._occurrence_recs, self._build_event)

    def occurrence_facts(self) -> Iterator[tuple[float, str, str, str, str]]:
        """(last_timestamp, type, reason, object_path, message) of every occurrence, in
        order, as ``self.occurrences`` gives them, without building the Events."""
        return occurrence_facts(self._occurrence_recs)

    def record_event(self, obj: Any, type_: str, reason: str, message: str,
                     component: str = "") -> None:
        """Record a core/v1 Event, now; a repeat of the same one bumps its count, as upstream's
        event correlator does. The Event is built when read (``events``, ``occurrences``,
        ``events_for``, ``list("Event")``) or at once for a watcher of events."""
        # ~4.4 per scheduled pod: one pass, no call but the clock's
        meta = obj.metadata
        key = (obj.kind, meta.namespace, meta.name, meta.uid, type_, reason, message)
        now = self._time._now
        recs = self._event_recs
        n = len(recs)
        # The new event's position if it is one: one lookup that also enters it (setdefault),
        # for a key hashed once — most messages are new (a pod's name in them). A position is
        # absolute (offset by what was dropped), so dropping the oldest tenth below keeps it.
        pos = n + self._events_dropped
        idx = self._event_index.setdefault(key, pos)
        if idx != pos and 0 <= (idx := idx - self._events_dropped) < n:
            # a repeat: a new record (count + 1, last seen now), as evolve made a new Event
            old = recs[idx]
            rec = recs[idx] = old[:-2] + (now, old[COUNT] + 1)
            change = MODIFIED
        else:
            if idx != pos:   # a repeat of an event dropped from the log: a new one
                self._event_index[key] = pos
            # a new event: its resourceVersion and name's number drawn now, as the Event's were
            rv = self.resource_version = self.resource_version + 1
            seq = self._event_seq = self._event_seq + 1
            rec = key + (obj.api_version, component, seq, rv, now, now, 1)
            if n >= MAX_EVENTS:
                recs = self._drop_oldest_events()
            if self._events_by_object is not None:
                self._index_by_object(key, pos)
            recs.append(rec)
            change = ADDED
        # the occurrence
        if reason not in KEPT_REASONS:
            if self._droppable >= MAX_EVENTS:
                self._drop_oldest_occurrences(max(1, MAX_EVENTS // 10))
            self._droppable += 1
        self._occurrence_recs.append(rec)
        # Nobody watches events in a headless run (a UI's model does): the Event and its
        # watch event are built only for a listener (_notify would call no one).
        if self._events_heard:   # (self._all_handlers or "Event" in self._handlers)
            self._notify(change, self._build_event(rec))

    def _drop_oldest_events(self) -> list[Record]:
        """Drop the oldest tenth of the log. Positions in the index are absolute (offset by
        what was dropped), so this costs no rebuild; entries of dropped events are pruned only
        when the index has grown to twice the log."""
        drop = MAX_EVENTS // 10
        recs = self._event_recs = RecordList(self._event_recs[drop:])
        self._events_dropped += drop
        if len(self._event_index) > 2 * MAX_EVENTS:
            first = self._events_dropped
            self._event_index = {k: i for k, i in self._event_index.items() if i >= first}
        return recs

    def _index_by_object(self, key: tuple, pos: int) -> None:
        """Keep events_for's index (once built) with the new event at ``pos``."""
        if self._events_by_object_size >= 2 * MAX_EVENTS:
            self._events_by_object = None   # rebuilt from the log at the next read
        elif self._events_by_object is not None:
            self._events_by_object_size += 1
            self._events_by_object.setdefault((key[KIND], key[NAME]), []).append(pos)

    def _drop_oldest_occurrences(self, count: int) -> None:
        """Drop the ``count`` oldest occurrences that are not KEPT_REASONS, keeping the order
        of the rest. Only the stretch from the first droppable one is looked at, a slice at a
        time: a slice of as many occurrences as are still to drop holds at most that many
        droppable ones, so the stretch ends at the slice where they are all found — each
        slice sorted into kept and dropped by C calls (2,000 records a drop; a loop turn each
        was ~1 % of a rolling update's work)."""
        occ = self._occurrence_recs
        start = i = self._droppable_from
        kept: list[Record] = []
        need = count
        n = len(occ)
        while need and i < n:
            part = occ[i:i + need]
            keep = list(compress(part, map(KEPT_REASONS.__contains__, map(reason_of, part))))
            kept += keep
            need -= len(part) - len(keep)
            i += len(part)
        occ[start:i] = kept
        self._droppable_from = start + len(kept)
        self._droppable -= count - need
        self.occurrences_dropped += count - need

    def events_for(self, kind: str, name: str, namespace: str = "") -> builtins.list[Event]:
        """The events about the object ``kind``/``name`` (in ``namespace`` when given), oldest
        first: what describe's Events section lists."""
        by_object = self._events_by_object
        if by_object is None:
            by_object = self._events_by_object = {}
            first = self._events_dropped
            for i, rec in enumerate(self._event_recs, first):
                by_object.setdefault((rec[KIND], rec[NAME]), []).append(i)
            self._events_by_object_size = len(self._event_recs)
        recs, first = self._event_recs, self._events_dropped
        found = [recs[i - first] for i in by_object.get((kind, name), ()) if i >= first]
        if namespace:
            found = [r for r in found if r[NAMESPACE] == namespace]
        return [self._build_event(r) for r in found]

    # -- forking --------------------------------------------------------------------------
    def fork(self, now: Callable[[], float], rand: SimRandom) -> "Store":
        """A copy sharing every (immutable) object; subscribers are not copied."""
        other = Store(now, rand)
        other.resource_version = self.resource_version
        other._objects = {k: dict(v) for k, v in self._objects.items()}
        other._count = self._count
        other._pods_by_node = {k: dict(v) for k, v in self._pods_by_node.items()}
        other._event_recs = RecordList(self._event_recs)   # records are tuples: shared
        other._occurrence_recs = RecordList(self._occurrence_recs)
        other._event_index = dict(self._event_index)
        other._events_dropped = self._events_dropped
        other.occurrences_dropped = self.occurrences_dropped
        other._droppable = self._droppable
        other._droppable_from = self._droppable_from
        other._event_seq = self._event_seq
        other.last_change_time = self.last_change_time
        return other


# -- stamping a write -------------------------------------------------------------------------
# Every update rebuilds the object around new metadata (resourceVersion, uid, creation time,
# generation) with constructors generated once per class (api/evolve.py): the result is exactly
# attrs.evolve's at a third of the cost.


def _with_metadata(obj: Any, meta: ObjectMeta) -> Any:
    """attrs.evolve(obj, metadata=meta)."""
    build = _WITH_META.get(type(obj))
    if build is None:
        build = _with_meta_of(type(obj))
    return build(obj, meta)


# class -> fn(obj, meta): attrs.evolve(obj, metadata=meta), kept by class (the writes that
# restamp an object: no (class, fields) key to hash, no evolve_fields frame)
_WITH_META: dict[type, Any] = {}
_META_FIELD = ("metadata",)


def _with_meta_of(cls: type) -> Any:
    build = _WITH_META[cls] = replacer(cls, _META_FIELD) or \
        (lambda obj, meta: _replace(obj, _META_FIELD, meta))
    return build


# attrs.evolve(obj, **dict(zip(fields, values)))
_replace = evolve_fields


_RV_FIELD = ("resource_version",)
# (class, changed fields) -> (namespaced, build object, stamp metadata) for Store.update_fields;
# "build" is None unless an update of the kind is only the write: no update defaulting, no rules
# beyond metadata, no generation, no pod index, metadata not among the fields. The tables it
# reads are fixed at import.
_PLAIN_UPDATE: dict[tuple[type, tuple[str, ...]], tuple[bool, Any, Any]] = {}


def _plain_update(old: Any, fields: tuple[str, ...]) -> tuple[bool, Any, Any]:
    kind = old.kind
    plain = not (kind in GENERATION_KINDS or kind == "Pod" or "metadata" in fields
                 or admission.defaults_on_update(kind) or validation.has_kind_rules(kind))
    build = replacer(type(old), ("metadata", *fields)) if plain else None
    stamp = replacer(type(old.metadata), _RV_FIELD)
    if stamp is None:
        build = None
    return BY_KIND[kind].namespaced, build, stamp


# (class, part, field) -> fn(old, rv, value) for Store.write_field, or _NO_BUILD (the plain way,
# for good); absent while not known yet, or while the classes have no building twins yet
_PART_BUILD: dict[tuple[type, str, str], Any] = {}


def _NO_BUILD(old: Any, rv: str, value: Any) -> None:
    """Store.write_field's build for a write that takes update_fields: none."""


def _part_build(old: Any, part: str, field: str) -> Any:
    """The build of Store.write_field for ``old``'s class (kept in _PART_BUILD when final)."""
    key = (type(old), part, field)
    _, plain, stamp = _plain_update(old, (part,))
    if plain is None or stamp is None:
        _PART_BUILD[key] = _NO_BUILD
        return _NO_BUILD
    classes = (type(old), type(old.metadata), type(getattr(old, part)))
    build = stamped_part_builder(*classes, part, (field,))
    if build is None:
        if all(c in BUILDING_TWINS for c in classes):
            _PART_BUILD[key] = _NO_BUILD   # (each class has its twin, or never will)
        return _NO_BUILD   # else not kept: the classes may have their building twins later
    _PART_BUILD[key] = build
    return build


# id(template) -> (template, selector) of a ReplicaSet update that admission returned unchanged
# and validation passed (Store._admit_update; the entry keeps both alive, so the id is not
# reused while it is here): Store.update writes a later resize with the same two as it is.
_ADMITTED_TEMPLATES: dict[int, tuple[Any, Any]] = {}
_ADMITTED_LIMIT = 4096   # entries kept at most (the table starts over when full)


# class -> fn(old, rv, status) for Store.write_status: the stamped object built in one frame, or
# _NO_BUILD (for good: the replacers' way below); absent while not known yet or not ready
_STAMPED_STATUS: dict[type, Any] = {}


def _stamped_status_of(cls: type) -> Any:
    """Store.write_status's one-frame build for ``cls`` (kept in _STAMPED_STATUS when final);
    _NO_BUILD while the classes have no building twins yet."""
    build = stamped_builder(cls, ObjectMeta, ("status",))
    if build is None:
        if cls in BUILDING_TWINS and ObjectMeta in BUILDING_TWINS:
            _STAMPED_STATUS[cls] = _NO_BUILD   # (each has its twin, or never will)
        return _NO_BUILD
    _STAMPED_STATUS[cls] = build
    return build


# class -> fn(old, metadata, status) for Store.write_status (None: the plain way)
_STATUS_FIELDS = ("metadata", "status")
_STATUS_BUILD: dict[type, Any] = {}
_UNKNOWN: Any = object()
_CREATE_FIELDS = ("resource_version", "uid", "creation_timestamp")
_STAMP_FIELDS = ("resource_version", "uid", "creation_timestamp", "generation")
_BIND_FIELDS = ("metadata", "spec", "status")
# class -> fn(old, metadata, spec, status) for Store.bind: evolve_fields(old, _BIND_FIELDS, ...)
# called directly (no key to hash, no star call: ~3k instructions a bind)
_BIND_BUILD: dict[type, Any] = {}


def _stamp(meta: ObjectMeta, rv: str, uid: str, created: Any, generation: int) -> ObjectMeta:
    """evolve(meta, resource_version=rv, uid=uid, creation_timestamp=created,
    generation=generation)."""
    if type(meta) is ObjectMeta and _STAMP_META is not None:
        return _STAMP_META(meta, rv, uid, created, generation)
    return _replace(meta, _STAMP_FIELDS, rv, uid, created, generation)


def _stamp_any(meta: Any, rv: str, uid: str, created: Any, generation: int) -> Any:
    """_stamp's way for metadata of another class."""
    return _replace(meta, _STAMP_FIELDS, rv, uid, created, generation)


_STAMP_META: Any = replacer(ObjectMeta, _STAMP_FIELDS)
# _stamp of an ObjectMeta (for a caller that tells the metadata's class itself)
_STAMP_OBJECT_META: Any = _STAMP_META if _STAMP_META is not None else _stamp_any
# evolve(meta, resource_version=rv): the stamp of a write that keeps uid, creationTimestamp and
# generation (a status write), one argument where _STAMP_META takes four
_STAMP_RV: Any = replacer(ObjectMeta, _RV_FIELD)
# evolve(evolve(meta, deletion_timestamp=..., deletion_grace_period_seconds=...), stamped as
# _stamp): a graceful deletion's metadata, built once (every deleted pod's)
_MARK_META = replacer(ObjectMeta, ("deletion_timestamp", "deletion_grace_period_seconds",
                                   *_STAMP_FIELDS))
def _namespaced(kind: str) -> bool:
    return BY_KIND[kind].namespaced


_NAMESPACED: dict[str, bool] = {kind: info.namespaced for kind, info in BY_KIND.items()}


def _key(info: KindInfo, meta: ObjectMeta) -> Key:
    return (meta.namespace if info.namespaced else "", meta.name)


def apply_all(store: Store, objects: Iterable[Any], origins: list[Any] | None = None, *,
              atomic: bool = True, take: bool = False,
              whole: bool = False) -> list[tuple[Any, str]]:
    """Create or update every object, all or nothing.

    An object that exists is merged into the stored one by ``admission.merge_apply`` — or,
    with ``whole``, is the stored object's next version as it is (``kubectl apply``, which
    merged it itself: commands/apply.py), its status and identity kept by the update.

    Each object is admitted and validated first against the current state (and against the
    objects before it in the same batch, for duplicates); only when every one passes are they
    written. Returns (stored object, "created" | "configured" | "unchanged") in input order.
    With ``origins`` (one ``manifest.Origin`` per object), a refusal is re-raised as a
    ManifestError naming the file and document of the object refused.

    ``atomic=False`` is for a caller that throws the store away when any object is refused (a
    Session being built from its files): each object is then admitted, checked and written in
    one pass, in the same order, against the same state — the store holds exactly the objects
    before it, as the staging copy would — so the stored objects, their uids and
    resourceVersions, the watch events and every refusal's message are the ones the all or
    nothing way gives, without staging every object in a copy of the store first.

    ``take`` (with atomic=False; ``objects`` and ``origins`` lists the caller hands over):
    each object, and its origin, is taken out of its list once written, and nothing is
    returned (an empty list) — a Session's load, so a decoded object goes as soon as its
    stored copy is made. A refused object's origin is still in its place for the message.
    """
    if take:
        assert not atomic and isinstance(objects, list)
    else:
        objects = list(objects)
    try:
        if atomic:
            return _apply_all(store, objects, whole)
        return _apply_each(store, objects, origins if take else None, take)
    except KsandboxError as exc:
        index = getattr(exc, "object_index", None)
        if origins is None or index is None:
            raise
        raise origins[index].error(str(exc)) from None


def _apply_all(store: Store, objects: list[Any], whole: bool = False) -> list[tuple[Any, str]]:
    """Stage every object in a scratch copy of the store (so later objects see earlier ones:
    a PriorityClass before the pods that name it), then write them for real."""
    from ..api.codec import encode

    scratch = store.fork(store._now, store.rand)
    staged: list[tuple[Any, Any]] = []
    seen: set[tuple[str, str, str]] = set()
    new_namespaces = {o.metadata.name for o in objects if o.kind == "Namespace"}
    report = loadprogress.current()   # a display of a long load (api/loadprogress.py)
    step, total = loadprogress.STEP, len(objects)
    for index, obj in enumerate(objects):
        if report is not None and index and not index % step:
            report(loadprogress.CHECKING, index, total)
        try:
            admitted, current = _stage(scratch, obj, seen, new_namespaces, whole=whole)
            if current is None:
                # Keep the uid drawn here, so the real write does not draw another.
                admitted = scratch.create(admitted, admitted=True)
            else:
                scratch._update_admitted(admitted)
            staged.append((admitted, current))
        except KsandboxError as exc:
            exc.object_index = index  # type: ignore[attr-defined]
            raise
    results: list[tuple[Any, str]] = []
    for obj, current in staged:
        if report is not None and results and not len(results) % step:
            report(loadprogress.STORING, len(results), total)
        if current is None:
            results.append((store.create(obj, admitted=True), "created"))
        elif encode(_comparable(obj)) == encode(_comparable(current)):
            results.append((current, "unchanged"))
        else:
            results.append((store._update_admitted(obj), "configured"))
    return results


def _apply_each(store: Store, objects: list[Any], origins: list[Any] | None = None,
                take: bool = False) -> list[tuple[Any, str]]:
    """apply_all's one pass (atomic=False): stage each object against the store itself and
    write it at once; with ``take``, each object (and origin) leaves its list once written
    and no results are kept."""
    from ..api.codec import encode

    seen: set[tuple[str, str, str]] = set()
    new_namespaces = {o.metadata.name for o in objects if o.kind == "Namespace"}
    known = _Known()
    report = loadprogress.current()
    step, total = loadprogress.STEP, len(objects)
    results: list[tuple[Any, str]] = []
    for index in range(total):
        obj = objects[index]
        if report is not None and index and not index % step:
            report(loadprogress.STORING, index, total)
        try:
            admitted, current = _stage(store, obj, seen, new_namespaces, stamp=True, known=known)
            if obj.kind == "PriorityClass":
                known.priorities.clear()   # the answers may change with it
            if current is None:
                result = (store.create(admitted, admitted=True), "created")
            elif encode(_comparable(admitted)) == encode(_comparable(current)):
                result = (current, "unchanged")
            else:
                result = (store._update_admitted(admitted), "configured")
        except KsandboxError as exc:
            exc.object_index = index  # type: ignore[attr-defined]
            raise
        if take:
            objects[index] = obj = admitted = None
            if origins is not None:
                origins[index] = None
        else:
            results.append(result)
    return results


class _Known:
    """What apply_all's one pass has found and may take as still so for its next objects
    (a load's 150,000 pods asked both once each):

    * ``namespaces``: the namespaces NamespaceLifecycle found (in the store or the input).
      Nothing the pass writes removes a namespace — it creates and updates, and watch
      handlers never write — so one found stays found;
    * ``priorities``: the Priority plugin's answer (resolve_priority) by PriorityClass name
      ("" for none). It reads only the stored PriorityClasses, so it holds until the pass
      writes one: the pass forgets them all then. A refusal is not kept."""

    __slots__ = ("namespaces", "priorities")

    def __init__(self) -> None:
        self.namespaces: set[str] = set()
        self.priorities: dict[str, tuple[int, str]] = {}


def _stage(store: Store, obj: Any, seen: set, new_namespaces: set,
           stamp: bool = False, known: _Known | None = None,
           whole: bool = False) -> tuple[Any, Any]:
    """Admit and validate one object of an apply: (object to write, current object or None);
    ``stamp``: a create is written right after (Store.admit); ``known``: apply_all's one
    pass's (see _Known)."""
    kind = obj.kind
    meta = obj.metadata
    name = meta.name
    info = BY_KIND[kind]
    ns = (meta.namespace or "default") if info.namespaced else ""
    if known is None or ns not in known.namespaces:
        store.check_namespace(obj, new_namespaces)
        if known is not None and info.namespaced and kind != "Event":
            known.namespaces.add(ns)   # (an Event's namespace is not checked: not found)
    ident = (kind, ns, name)
    if name and ident in seen:
        raise ApiError("Invalid", f'{info.display_resource} "{name}" is '
                       f'defined twice in the input', 422)
    seen.add(ident)
    current = store._objects[kind].get((ns, name)) if name else None   # store.get's
    if current is None:
        return store.admit(obj, stamp, known.priorities if known is not None else None), None
    merged = obj if whole else admission.merge_apply(current, obj)
    merged = admission.admit_update(store, current, merged)
    validation.validate(store, merged, current)
    return merged, current


def _comparable(obj: Any) -> Any:
    return evolve(obj, metadata=evolve(obj.metadata, resource_version=None,
                                                   generation=0))
