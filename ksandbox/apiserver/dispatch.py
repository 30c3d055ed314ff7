"""Which of a kind's watch handlers a write concerns.

Every write is heard synchronously by the kind's handlers in subscription order. Most of them
act on some writes only (the deployment controller hears pod deletions; the ReplicaSet
controller the pods a ReplicaSet controls, and orphans it may adopt), and a pod is written
seven times on its way to Running: calling the others to return at once was a fifth of a
pod's watch fan-out. A subscription may declare what it acts on (``Store.subscribe(kind,
handler, types=..., owners=...)``), and a write then calls only the handlers it concerns,
still in subscription order: what the called ones do, and in what order, is what it was when
every handler heard every write. Declaring a filter is a promise that the handler does
nothing for the writes it excludes; each declaration says why where it is made.

The store keys a write by its event type (:data:`STATUS` for a write through the status
subresource; and, for a kind whose controllers are tracked, the kinds of the object's controller
before and after the write) and keeps, per kind and key, the tuple of handlers :func:`plan`
picked. Upstream has no such table (each informer's handlers
filter in the client); this is the sandbox's in-process shortcut to the same calls.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence


class _NoObject:
    """The side a write does not have (an ADDED's old object, a DELETED's new one) where a
    controller ref is expected: ``kind`` "" matches no ``owners`` filter."""

    __slots__ = ()
    kind = ""
    name = ""
    uid = ""

    def __repr__(self) -> str:
        return "NO_OBJECT"

    def __reduce__(self) -> str:   # one instance, also in a fork's copy
        return "NO_OBJECT"


NO_OBJECT: Any = _NoObject()

# In an ``owners`` filter: any controller at all (an object with a controller on a side).
ANY_CONTROLLER = "*"

_MODIFIED = "MODIFIED"   # store.MODIFIED (the store imports this module)
# The type part of a dispatch key for a write through the status subresource (Store's
# update_status and write_status): a MODIFIED whose object keeps the stored spec and metadata,
# but for its resourceVersion — a kubelet's pod and node status, most writes of a run. Its
# handlers hear it as MODIFIED; a subscription with ``status=False`` does not hear it.
STATUS = "MODIFIED/status"


class WatchFilter:
    """What one subscription acts on: event ``types`` (None: all), controller kinds
    ``owners`` before or after the write (None: any; None in the set: no controller;
    ANY_CONTROLLER: a controller of any kind) and whether it acts on writes of the status
    subresource (``status``; a MODIFIED in ``types`` otherwise)."""

    __slots__ = ("types", "owners", "status")

    def __init__(self, types: Iterable[str] | None,
                 owners: Iterable[str | None] | None, status: bool = True) -> None:
        self.types = frozenset(types) if types is not None else None
        self.owners = frozenset(owners) if owners is not None else None
        self.status = status

    def concerns(self, key: Any) -> bool:
        """Whether a write with this dispatch key (``type`` or ``(type, old controller
        kind, new controller kind)``; type STATUS for a status write) is one the handler
        acts on."""
        if isinstance(key, tuple):
            type_, old_kind, new_kind = key
            owners = self.owners
            if owners is not None and old_kind not in owners and new_kind not in owners \
                    and not (ANY_CONTROLLER in owners and (old_kind or new_kind)):
                return False   # (old_kind / new_kind: None for an orphan, "" for no side)
        else:
            type_ = key
            assert self.owners is None, "owners filters need the kind's controllers tracked"
        if type_ == STATUS:
            if not self.status:
                return False
            type_ = _MODIFIED
        return self.types is None or type_ in self.types

    def __repr__(self) -> str:
        return (f"WatchFilter(types={self.types!r}, owners={self.owners!r}, "
                f"status={self.status!r})")


def plan(handlers: Sequence[Callable[[Any], None]],
         filters: dict[tuple[str, Any], WatchFilter], kind: str,
         key: Any) -> tuple[Callable[[Any], None], ...]:
    """The handlers (in their order) a write of ``kind`` with dispatch ``key`` concerns."""
    out = []
    for h in handlers:
        f = filters.get((kind, h))
        if f is None or f.concerns(key):
            out.append(h)
    return tuple(out)
