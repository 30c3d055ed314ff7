"""Shared informers: the watch-fed indexes the control plane's components share.

Upstream, kube-controller-manager builds one shared informer factory and hands every
controller the same pod cache, with indexers on it (``controller.AddPodControllerUIDIndexer``:
pods by their controller's UID, orphans under one key). No controller keeps its own copy, and
none reads another controller's. Here :class:`Informers` is made once per control plane
(``cp.informers``, fed by the store's watch from before any component starts) and handed to
the controllers that read it by ``build_components``:

* ``informers.pods`` — pods by controller uid (``owned(uid)``), orphans by namespace
  (``orphans(namespace)``): the ReplicaSet, ReplicationController, DaemonSet, StatefulSet and
  Job controllers manage their pods through it and adopt orphans from it; the Deployment
  controller reads a ReplicaSet's pods from it.
* ``informers.replicasets`` — ReplicaSets by controller uid and orphans: the Deployment
  controller's.
* Pods by node stay the store's own index (``store.pods_on_node``), as the API server serves a
  ``spec.nodeName`` field selector from its watch cache; ``informers.pods_on_node`` reads it.

A consumer that wants to hear changes subscribes ``index.handler(owner_kind, on_change,
account)`` to the store itself, where its other watches are: the handler runs in the
consumer's place in the watch order (so the order of every enqueue is as it was when each
controller kept its own index), after the shared index has been updated.
"""

from __future__ import annotations

from typing import Any, Callable, Collection, Sequence

from .dispatch import NO_OBJECT
from .store import DELETED, Store, WatchEvent

_NONE: dict = {}
# The side a write does not have (ADDED's old, DELETED's new): as the store's dispatch reads it.
_NOT_INDEXED: Any = NO_OBJECT


class ControllerIndex:
    """Objects of one kind by the uid of their controller (any kind), and the objects with no
    controller by namespace. Read-only for its users: do not mutate what it returns."""

    def __init__(self, store: Store, kind: str) -> None:
        self.kind = kind
        self._by_owner: dict[str, dict[str, Any]] = {}
        self._orphans: dict[str, dict[str, Any]] = {}
        # (event, controller ref of its old object, of its new one) of the last event heard:
        # the index hears each write before its OwnerHandlers (it subscribed first), and the
        # five workload controllers' handlers of a pod write read the refs from here instead
        # of each walking both objects' ownerReferences again.
        self.last: tuple[Any, Any, Any] = (None, None, None)
        # The last event if its object had no controller before and after the write (or was
        # created / deleted as one), else None: each OwnerHandler of that write makes its one
        # owner-None call without looking at the refs (a SchedulingBasic pod's every write).
        self.orphan_event: Any = None
        # The last event if the write kept its controller ref object on both sides (a status,
        # a bind, a resize: most writes), with that ref (its uid a str), else None: each
        # OwnerHandler of that write makes its one call (the owner's, if of its kind)
        # without taking the refs apart again. (Only compared with the event heard, by
        # identity: an earlier write's is left until the next kept one, and never matches.)
        self.kept: Any = None
        self.kept_ref: Any = None
        self._store = store
        # The store reads both sides' controller refs of every write of this kind (the key
        # that calls only the OwnerHandlers a write concerns) and keeps them for us.
        store.track_controllers(kind)
        store.subscribe(kind, self._update)

    def catch_up(self) -> None:
        """Index every stored object of the kind, in the store's order: what hearing each
        one's create would have made, for an index that heard nothing of a load into a store
        with none of the kind (Informers.muted_for_load). The load creates each object once
        (apply_all refuses a name twice) and a create appends to both the store's table and
        the index's entry, so the orders agree."""
        insert = self._insert
        for (ns, name), obj in self._store.items(self.kind):
            # (an object without owner references has no controller: no call to find none)
            ref = _controller(obj) if obj.metadata.owner_references else None
            insert(ref.uid if ref is not None else None, ns, name, obj)

    def owned(self, uid: str) -> dict[str, Any]:
        """name -> object for every object whose controller has this uid."""
        return self._by_owner.get(uid, _NONE)

    def orphans(self, namespace: str) -> dict[str, Any]:
        """name -> object for the objects of ``namespace`` with no controller."""
        return self._orphans.get(namespace, _NONE)

    def handler(self, owner_kind: str, on_change: Callable[[str, str | None, WatchEvent], None],
                account: Callable[[str, Any, int], None] | None = None, *,
                orphans: bool = True,
                swap: Callable[[str, Any, Any], None] | None = None) -> OwnerHandler:
        """A watch handler for a controller of ``owner_kind`` (see :class:`OwnerHandler`);
        subscribe it with ``owners=handler.owners``."""
        return OwnerHandler(owner_kind, on_change, account, self, orphans=orphans, swap=swap)

    def _update(self, ev: WatchEvent) -> None:
        last = self._store.last_refs
        heard, old_ref, new_ref = last
        if heard is ev:   # the store read them for this very write (track_controllers)
            self.last = last
            if old_ref is new_ref:
                if old_ref is None:
                    # An orphan before and after the write (a SchedulingBasic pod's bind and
                    # status): what the general path below does then — an orphan event, the
                    # new version in its place among its namespace's orphans.
                    self.orphan_event = ev
                    meta = ev.obj.metadata
                    table = self._orphans.get(meta.namespace)
                    if table is None:
                        table = self._orphans[meta.namespace] = {}
                    table[meta.name] = ev.obj
                    return
                uid = old_ref.uid
                if type(uid) is str:
                    # The write kept the owner references object (a status, a bind, a
                    # resize: most writes): what the general path below does then — no
                    # orphan on either side, the same owner's table, the new version in the
                    # object's place.
                    self.orphan_event = None
                    self.kept = ev
                    self.kept_ref = old_ref
                    # _insert's, inline: the owner's table is there (the object is in it)
                    table = self._by_owner.get(uid)
                    if table is None:
                        table = self._by_owner[uid] = {}
                    table[ev.obj.metadata.name] = ev.obj
                    return
        else:
            old_ref = _controller(ev.old) if ev.old is not None else _NOT_INDEXED
            new_ref = _controller(ev.obj) if ev.type != DELETED else _NOT_INDEXED
            self.last = (ev, old_ref, new_ref)
        meta = ev.obj.metadata
        # OwnerHandler's orphan case: a None ref on one side, None or not indexed on the other
        self.orphan_event = ev if (
            (old_ref is None and (new_ref is None or new_ref is _NOT_INDEXED))
            or (new_ref is None and old_ref is _NOT_INDEXED)) else None
        old = old_ref if old_ref is None or old_ref is _NOT_INDEXED else old_ref.uid
        new = new_ref if new_ref is None or new_ref is _NOT_INDEXED else new_ref.uid
        if old == new and new is not _NOT_INDEXED:
            self._insert(new, meta.namespace, meta.name, ev.obj)   # same place, new version
            return
        self._remove(old, meta.namespace, meta.name)
        self._insert(new, meta.namespace, meta.name, ev.obj)

    def _remove(self, uid: Any, ns: str, name: str) -> None:
        if uid is _NOT_INDEXED:
            return
        tables, key = (self._orphans, ns) if uid is None else (self._by_owner, uid)
        table = tables.get(key)
        if table is not None:
            table.pop(name, None)
            if not table:
                del tables[key]

    def _insert(self, uid: Any, ns: str, name: str, obj: Any) -> None:
        if uid is _NOT_INDEXED:
            return
        # get, then a new table only when there is none (setdefault made an empty dict at
        # every write to throw away)
        tables, key = (self._orphans, ns) if uid is None else (self._by_owner, uid)
        table = tables.get(key)
        if table is None:
            table = tables[key] = {}
        table[name] = obj


class OwnerHandler:
    """What a controller of ``owner_kind`` hears of a shared index's kind.

    ``on_change(namespace, owner_name_or_None, event)`` is called once for the old controller
    and once for the new one when they differ; owner name None means an orphan changed. An
    object controlled by another kind is not this controller's business (no call).
    ``account(uid, obj, +1 | -1)``, if given, hears every object entering or leaving an owner's
    set (an update is a leave then an enter), for controllers that keep running counts;
    ``swap(uid, old, new)``, if given with it, must be ``account(uid, old, -1)`` then
    ``account(uid, new, 1)``: one call for a write that keeps the object with its owner (the
    ReplicaSet controller's, most of a pod's writes).
    Handlers only enqueue keys. ``orphans=False``: a controller that never adopts (its
    ``on_change`` does nothing for owner None: StatefulSet, Job here) gets no owner-None call.
    """

    def __init__(self, owner_kind: str,
                 on_change: Callable[[str, str | None, WatchEvent], None],
                 account: Callable[[str, Any, int], None] | None,
                 index: ControllerIndex | None = None, *, orphans: bool = True,
                 swap: Callable[[str, Any, Any], None] | None = None) -> None:
        self.owner_kind = owner_kind
        self._on_change = on_change
        self._account = account
        self._swap = swap if account is not None else None
        self._index = index
        self._orphans = orphans

    @property
    def owners(self) -> frozenset[str | None]:
        """The writes this handler acts on, as a ``Store.subscribe`` ``owners`` filter: an
        object controlled by ``owner_kind`` before or after the write, or (with orphans) one
        with no controller on a side. Any other write reaches neither branch below: both
        sides are another kind's or missing (no account, no call), or, without orphans, an
        orphan side makes no call."""
        return frozenset((self.owner_kind, None) if self._orphans else (self.owner_kind,))

    def hear_orphans(self, store: Store, on: bool) -> None:
        """Hear orphans' writes (if this handler adopts) only while ``on``: a controller
        with no owner at all calls ``on_change(ns, None, ev)`` for an orphan to find none
        that selects it, so it subscribes ``owners`` without None meanwhile (the handler
        keeps its place)."""
        assert self._index is not None
        owners = self.owners if on else frozenset((self.owner_kind,))
        store.refilter(self._index.kind, self, owners=owners)

    def __call__(self, ev: WatchEvent) -> None:
        index = self._index
        if index is not None and index.kept is ev:
            # The one controller ref on both sides, as the index read this very event
            # (ControllerIndex.kept): what the general path below does then — for a ref of
            # this handler's kind, the object leaves and enters the same owner's set and one
            # call for that owner; for another kind's, nothing.
            ref = index.kept_ref
            if ref.kind == self.owner_kind:
                swap = self._swap
                if swap is not None:
                    swap(ref.uid, ev.old, ev.obj)
                else:
                    account = self._account
                    if account is not None:
                        account(ref.uid, ev.old, -1)
                        account(ref.uid, ev.obj, 1)
                self._on_change(ev.obj.metadata.namespace, ref.name, ev)
            return
        if index is not None and index.orphan_event is ev:
            # An orphan (or created / deleted as one) on both sides, as the index read this
            # very event: what the general path below does for it — one call, owner None,
            # nothing to account.
            if self._orphans:
                self._on_change(ev.obj.metadata.namespace, None, ev)
            return
        ns = ev.obj.metadata.namespace
        kind = self.owner_kind
        heard, old_ref, new_ref = index.last if index is not None else _NO_LAST
        if heard is ev:
            # The refs the index read from this very event (see ControllerIndex.last; one
            # ref object on both sides was ControllerIndex.kept's, above).
            if old_ref is not None and old_ref is not _NOT_INDEXED and old_ref.kind != kind:
                old_ref = _NOT_INDEXED
            if new_ref is not None and new_ref is not _NOT_INDEXED and new_ref.kind != kind:
                new_ref = _NOT_INDEXED
        else:
            old_ref = _ref_of(ev.old, kind) if ev.old is not None else _NOT_INDEXED
            new_ref = _ref_of(ev.obj, kind) if ev.type != DELETED else _NOT_INDEXED
        old_slot = old_ref if old_ref is None or old_ref is _NOT_INDEXED else old_ref.uid
        new_slot = new_ref if new_ref is None or new_ref is _NOT_INDEXED else new_ref.uid
        account = self._account
        if account is not None:
            if isinstance(old_slot, str):
                account(old_slot, ev.old, -1)
            if isinstance(new_slot, str):
                account(new_slot, ev.obj, 1)
        if old_slot != new_slot and old_ref is not _NOT_INDEXED and (
                old_ref is not None or self._orphans):
            self._on_change(ns, old_ref.name if old_ref is not None else None, ev)
        if new_ref is not _NOT_INDEXED and (new_ref is not None or self._orphans):
            self._on_change(ns, new_ref.name if new_ref is not None else None, ev)


class Informers:
    """The shared indexes of one control plane."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.pods = ControllerIndex(store, "Pod")
        self.replicasets = ControllerIndex(store, "ReplicaSet")
        self._loading: list[ControllerIndex] = []   # muted for a load (muted_for_load)

    def pods_on_node(self, node_name: str) -> list[Any]:
        return self.store.pods_on_node(node_name)

    # -- a Session's load (bulk start: session.py) ---------------------------------------------
    def muted_for_load(self, kinds: Collection[str] = (), objects: Sequence[Any] = ()
                       ) -> list[tuple[str, Any]]:
        """The index of a loaded kind with none stored yet hears nothing of the load and
        catches up at load_done (ControllerIndex.catch_up). Nothing reads an index during a
        load: the OwnerHandlers that hear a loaded write read the refs themselves when the
        index did not hear it (their general path), and their controllers only queue keys.
        The Session makes these indexes catch up before any component's load_done."""
        self._loading = [index for index in (self.pods, self.replicasets)
                         if index.kind in kinds and not self.store.count(index.kind)]
        return [(index.kind, index._update) for index in self._loading]

    def load_done(self) -> None:
        for index in self._loading:
            index.catch_up()
        self._loading = []


_NO_LAST: tuple[Any, Any, Any] = (None, None, None)


def _controller(obj: Any) -> Any:
    """The object's controller ref, None for an orphan."""
    for ref in obj.metadata.owner_references:
        if ref.controller:
            return ref
    return None


def _ref_of(obj: Any, owner_kind: str) -> Any:
    """The controller ref if it is of ``owner_kind``; None for an orphan; _NOT_INDEXED when some
    other kind controls the object (a Node for mirror pods, a Job, ...)."""
    for ref in obj.metadata.owner_references:
        if ref.controller:
            return ref if ref.kind == owner_kind else _NOT_INDEXED
    return None
