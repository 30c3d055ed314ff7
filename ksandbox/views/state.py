"""The sandbox state in the JSON contract of ``ksandbox sim -o json`` (DESIGN.md §3).

Pure: reads a session, returns plain dicts and lists. Nodes sorted by name, pods by namespace
and name, events in the order they happened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..api.quantity import format_resource
from .jsontext import Columns, dumps

if TYPE_CHECKING:
    from ..api.core import Node, Pod
    from ..apiserver.store import Store
    from ..session import Session


def node_requested(store: Store, node_name: str) -> dict[str, int]:
    """Summed requests of the node's non-terminated pods, plus their count."""
    total: dict[str, int] = {}
    count = 0
    for pod in store.pods_on_node(node_name):
        if pod.is_terminated:
            continue
        count += 1
        for name, amount in pod.spec.requests.items():
            total[name] = total.get(name, 0) + amount
    total["pods"] = count
    return total


def _resources(amounts: dict[str, int], keys: list[str]) -> dict[str, str]:
    return {k: format_resource(k, amounts.get(k, 0)) for k in keys}


def node_dict(store: Store, node: Node) -> dict:
    alloc = node.allocatable_amounts
    keys = sorted(set(alloc) | {"cpu", "memory", "pods"})
    requested = node_requested(store, node.name)
    return {
        "name": node.name,
        "ready": node.ready,
        "unschedulable": bool(node.spec.unschedulable),
        "taints": [{"key": t.key, "value": t.value, "effect": t.effect,
                    "timeAdded": t.time_added} for t in node.spec.taints],
        "labels": dict(sorted(node.metadata.labels.items())),
        "allocatable": {k: str(node.status.allocatable[k]) if k in node.status.allocatable
                        else format_resource(k, alloc.get(k, 0)) for k in keys},
        "requested": _resources(requested, keys),
    }


def pod_reason(pod: Pod) -> tuple[str, str]:
    """The (reason, message) a user wants to see: the pod's own, else PodScheduled's."""
    if pod.status.reason or pod.status.message:
        return pod.status.reason, pod.status.message
    if pod.metadata.deletion_timestamp is not None:
        # Deleted but not gone: its kubelet has not confirmed the containers stopped (on an
        # unreachable node it never will, as upstream). kubectl shows it as Terminating.
        return "Terminating", ""
    cond = pod.status.condition("PodScheduled")
    if cond is not None and cond.status == "False":
        return cond.reason, cond.message
    return "", ""


POD_KEYS = ("namespace", "name", "node", "phase", "reason", "message", "owner", "evictionAt")


def pod_dict(session: Session, pod: Pod) -> dict:
    return dict(zip(POD_KEYS, pod_row(session, pod)))


def pod_row(session: Session, pod: Pod) -> tuple:
    """``pod_dict``'s values, in POD_KEYS' order."""
    ref = pod.metadata.controller_ref()
    reason, message = pod_reason(pod)
    return (pod.metadata.namespace, pod.metadata.name, pod.spec.node_name or None,
            pod.status.phase or "Pending", reason, message,
            f"{ref.kind}/{ref.name}" if ref is not None else None,
            session.eviction_deadline(pod))


def event_dict(ev: Any) -> dict:
    """One occurrence of an event, at the simulated second it happened."""
    return occurrence_dict(ev.last_timestamp, ev.type, ev.reason, ev.object_path, ev.message)


EVENT_KEYS = ("time", "type", "reason", "object", "message")


def occurrence_dict(time: float, type_: str, reason: str, object_path: str,
                    message: str) -> dict:
    """``event_dict`` of the occurrence with these fields (``Store.occurrence_facts``: the
    store's records read without building the Events)."""
    return dict(zip(EVENT_KEYS, (float(time), type_, reason, object_path, message)))


def _event_columns(store: Store) -> Columns:
    """The event list as ``occurrence_dict`` gives it, column by column: the times as
    floats."""
    columns: list[Any] = list(zip(*store.occurrence_facts())) or [()] * len(EVENT_KEYS)
    columns[0] = list(map(float, columns[0]))
    return Columns(EVENT_KEYS, columns)


def _pod_columns(session: Session, pods: list[Pod]) -> Columns:
    rows = [pod_row(session, p) for p in pods]
    return Columns(POD_KEYS, list(zip(*rows)) if rows else [()] * len(POD_KEYS))


def state_dict(session: Session) -> dict:
    return _state(session, lambda pods: [pod_dict(session, p) for p in pods],
                  lambda store: [occurrence_dict(*facts) for facts in store.occurrence_facts()])


def state_json(session: Session) -> str:
    """``jsontext.dumps(state_dict(session))``, the same text: the pod and event lists (a
    row a pod, ~5 events a pod) are encoded from their columns (jsontext.Columns: each
    distinct value once, the rows joined in C) instead of as a dict a row (an event's row
    cost ~25k instructions, now ~4k)."""
    return dumps(_state(session, lambda pods: _pod_columns(session, pods), _event_columns))


def _state(session: Session, pod_list: Callable[[list[Pod]], Any],
           events: Callable[[Store], Any]) -> dict:
    store = session.store
    nodes = sorted(store.list("Node"), key=lambda n: n.name)
    pods = sorted(store.list("Pod"), key=lambda p: (p.metadata.namespace, p.metadata.name))
    state = {
        "time": float(session.now),
        "nodes": [node_dict(store, n) for n in nodes],
        "pods": pod_list(pods),
        "events": events(store),
    }
    # The event list is complete unless this says how many were left out (the oldest, never
    # one of store.KEPT_REASONS); absent when nothing was, so existing outputs are unchanged.
    if store.occurrences_dropped:
        state["eventsDropped"] = store.occurrences_dropped
    return state
