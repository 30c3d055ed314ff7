"""Rows of the k9s-style list views: ``kubectl get``'s own cells, one row per object.

A list view's cells come from :mod:`ksandbox.views.printers` — the printers ``kubectl get``
uses — so the TUI and kubectl cannot disagree about a node's STATUS, a pod's RESTARTS or an
HPA's TARGETS: there is one function per fact. A :class:`RowSpec` only *chooses* which of
kubectl's columns a view shows by default (``ctrl+w`` shows every ``-o wide`` column), adds
the NAMESPACE column ``-A`` adds, and may add a few columns kubectl has no equivalent for
(:class:`Extra`: a node's taint count, a pod's eviction countdown), which are named as such.

Cells are computed only for the lines on screen (the list view is a Line API widget), so a
30,000-pod list costs what its visible 40 rows cost; sorting uses the cheap per-column keys
here, never the formatted cells.

No Textual here: the widget styles rows by the ``state`` name a spec returns.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Callable

import attrs

from ..api.kinds import BY_KIND
from ..views import printers
from ..views.printers import node_roles, node_status, pod_status
from .cards import clock_text

if TYPE_CHECKING:
    from ..session import Session

Cells = tuple[str, ...]
NAMESPACE = "NAMESPACE"


def _age_key(obj: Any) -> float:
    # Sorting by AGE puts the youngest first, as k9s does.
    created = obj.metadata.creation_timestamp
    return -(created or 0.0)


def _ns_name(obj: Any) -> tuple[str, str]:
    return (obj.metadata.namespace, obj.metadata.name)


def _name(o: Any) -> str:
    return o.metadata.name


def _ok(obj: Any) -> str:
    return "ok"


@attrs.frozen
class Extra:
    """A column kubectl does not print, placed after kubectl's column ``after``."""

    name: str
    after: str
    cell: Callable[[Any, float, Session], str]


# -- row states (the colour of a row; the words come from the printers) ----------------------

def node_state(node: Any) -> str:
    status = node_status(node)
    if not status.startswith("Ready"):
        return "failed"
    return "cordoned" if status.endswith("SchedulingDisabled") else "ok"


# -- a pod's STATUS, remembered ------------------------------------------------------------------
# printers.pod_status reads only the pod's status object and its deletion time, and both are
# immutable values a write replaces. A list view asks for it per row three times (the STATUS
# sort, the filter's search text, the row's colour), and at 30,000 pods each pass cost ~100 ms;
# remembered by the status object it is computed once per pod version, whichever asks first.
# An entry holds the status weakly and leaves when the status object dies (a replaced status
# must not be kept alive by this memo; its id may then be reused by another object).
_STATUS_MEMO: dict[tuple[int, Any], tuple[Any, str]] = {}
STATUS_MEMO_LIMIT = 500_000


def _forget(key: tuple[int, Any]) -> Callable[[Any], None]:
    memo = _STATUS_MEMO     # held here: at interpreter exit the module global may be None

    def forget(_ref: Any) -> None:
        memo.pop(key, None)
    return forget


def pod_status_of(pod: Any) -> str:
    """``printers.pod_status(pod)``, computed once per (status object, deletion time)."""
    status = pod.status
    key = (id(status), pod.metadata.deletion_timestamp)
    hit = _STATUS_MEMO.get(key)
    if hit is not None and hit[0]() is status:
        return hit[1]
    text = pod_status(pod)
    if len(_STATUS_MEMO) >= STATUS_MEMO_LIMIT:
        _STATUS_MEMO.clear()
    try:
        ref = weakref.ref(status, _forget(key))
    except TypeError:  # a status type without weak references: not remembered
        return text
    _STATUS_MEMO[key] = (ref, text)
    return text


def pod_search_text(pod: Any) -> str:
    """What ``/`` searches in the pod list: namespace/name, STATUS and node."""
    meta = pod.metadata
    return f"{meta.namespace}/{meta.name} {pod_status_of(pod)} {pod.spec.node_name}"


def pod_state(pod: Any) -> str:
    status = pod_status_of(pod)
    if status == "Running":
        return "ok"
    if status in ("Terminating", "Completed"):
        return "dim"
    if status in ("Pending", "ContainerCreating", "SchedulingGated"):
        return "pending"
    return "failed"


def _replicas_state(ready: Callable[[Any], int]) -> Callable[[Any], str]:
    def state(obj: Any) -> str:
        want = obj.spec.replicas if obj.spec.replicas is not None else 1
        return "ok" if ready(obj) >= want else "pending"
    return state


def _ds_state(ds: Any) -> str:
    st = ds.status
    return "ok" if st.number_ready >= st.desired_number_scheduled else "pending"


def _event_state(ev: Any) -> str:
    return "warning" if ev.type == "Warning" else "ok"


# -- columns kubectl does not have -------------------------------------------------------------

def _taint_count(node: Any, now: float, session: Session) -> str:
    return str(len(node.spec.taints))


def eviction_in(pod: Any, now: float, session: Session) -> str:
    """Time left before the taint manager deletes the pod (``4:12``), or blank. A pod already
    being deleted has no countdown: it is terminating."""
    if pod.metadata.deletion_timestamp is not None or not pod.spec.node_name:
        return ""
    deadline = session.eviction_deadline(pod)
    return clock_text(deadline - now) if deadline is not None else ""


# -- the specs ---------------------------------------------------------------------------------

@attrs.frozen
class RowSpec:
    kind: str
    shown: tuple[str, ...] | None = None
    """kubectl's columns shown by default (None: the columns plain ``kubectl get`` prints)."""
    sort_keys: dict[str, Callable[[Any], Any]] = attrs.field(factory=dict)
    state: Callable[[Any], str] = _ok
    search: Callable[[Any], str] = lambda o: f"{o.metadata.namespace}/{o.metadata.name}"
    key: Callable[[Any], tuple[str, str]] = _ns_name
    extras: tuple[Extra, ...] = ()

    @property
    def resource(self) -> str:
        return BY_KIND[self.kind].resource

    @property
    def namespaced(self) -> bool:
        return BY_KIND[self.kind].namespaced

    def kubectl_columns(self, wide: bool = False) -> tuple[str, ...]:
        """The kubectl columns shown, in kubectl's order (without NAMESPACE)."""
        if wide:
            return tuple(printers.headers(self.kind, True))
        if self.shown is not None:
            return self.shown
        return tuple(printers.headers(self.kind, False))

    def columns(self, wide: bool = False, with_namespace: bool = True) -> tuple[str, ...]:
        cols = list(self.kubectl_columns(wide))
        for extra in self.extras:
            at = cols.index(extra.after) + 1 if extra.after in cols else len(cols)
            cols.insert(at, extra.name)
        if with_namespace and self.namespaced:
            cols.insert(0, NAMESPACE)
        return tuple(cols)

    def cells(self, obj: Any, now: float, session: Session, wide: bool = False,
              with_namespace: bool = True) -> Cells:
        """The row's cells: kubectl's ``-o wide`` cells picked by column name, the extras."""
        full = dict(zip(printers.headers(self.kind, True),
                        printers.row(self.kind, obj, now, wide=True)))
        extras = {e.name: e for e in self.extras}
        out = []
        for col in self.columns(wide, with_namespace):
            if col == NAMESPACE and col not in full:
                out.append(obj.metadata.namespace)
            elif col in extras:
                out.append(extras[col].cell(obj, now, session))
            else:
                out.append(full.get(col, ""))
        return tuple(out)

    def is_extra(self, column: str) -> bool:
        return any(e.name == column for e in self.extras)


def _generic(kind: str) -> RowSpec:
    keys: dict[str, Callable[[Any], Any]] = {"NAME": _name, "AGE": _age_key}
    if BY_KIND[kind].namespaced:
        keys["NAMESPACE"] = _ns_name
    return RowSpec(kind, sort_keys=keys)


def _node_search(n: Any) -> str:
    return " ".join((n.name, node_status(n), ",".join(node_roles(n)),
                     *(t.to_string() for t in n.spec.taints)))


_NS_KEYS: dict[str, Callable[[Any], Any]] = {"NAMESPACE": _ns_name, "NAME": _name,
                                               "AGE": _age_key}

SPECS: dict[str, RowSpec] = {kind: _generic(kind) for kind in printers.TABLES}
SPECS.update({
    "Node": RowSpec(
        "Node", None,
        {"NAME": _name, "STATUS": node_status, "ROLES": lambda n: ",".join(node_roles(n)),
         "TAINTS": lambda n: len(n.spec.taints), "AGE": _age_key},
        node_state, search=_node_search,
        extras=(Extra("TAINTS", "ROLES", _taint_count),)),
    "Pod": RowSpec(
        "Pod", ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"),
        {**_NS_KEYS, "STATUS": pod_status_of, "NODE": lambda p: p.spec.node_name},
        pod_state,
        search=pod_search_text,
        extras=(Extra("EVICTION", "NODE", eviction_in),)),
    "Deployment": RowSpec("Deployment", None, dict(_NS_KEYS),
                          _replicas_state(lambda d: d.status.ready_replicas)),
    "ReplicaSet": RowSpec("ReplicaSet", None, dict(_NS_KEYS),
                          _replicas_state(lambda rs: rs.status.ready_replicas)),
    "DaemonSet": RowSpec("DaemonSet", None, dict(_NS_KEYS), _ds_state),
    "PriorityClass": RowSpec("PriorityClass", None,
                             {"NAME": _name, "VALUE": lambda p: p.value, "AGE": _age_key}),
    "Event": RowSpec(
        "Event", None,
        # Newest first; within one second, the order they happened (cause above effect).
        {"LAST SEEN": lambda e: (-e.last_timestamp, int(e.metadata.resource_version or 0)),
         "TYPE": lambda e: e.type, "REASON": lambda e: e.reason,
         "OBJECT": lambda e: (e.involved_object.kind, e.involved_object.name)},
        _event_state,
        search=lambda e: (f"{e.type} {e.reason} {printers.event_object(e)} {e.message}"),
        key=lambda e: (e.metadata.namespace, e.metadata.name)),
})


def spec_for(kind: str) -> RowSpec:
    return SPECS[kind]
