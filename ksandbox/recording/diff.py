"""What-if: two futures of one cluster, and what differs between them at one simulated time.

:func:`diff_sessions` is the one diff: ``ksandbox diff`` prints it (``-o json`` as it is,
``-o wide`` through ``views/diffwide.py``) and the TUI's side-by-side view draws it. Its JSON is
documented in docs/whatif.md. Both sessions must stand at the same simulated time (the caller
runs them there); each section lists only what differs:

* ``pods`` — a pod (by namespace/name) bound to different nodes, Pending in one and bound in
  the other (each side's reason), in a different phase, with a different eviction deadline,
  or present in only one branch (null on the side where it is gone).
* ``workloads`` — for pods a controller owns, whose generated names differ between branches
  once they diverge: how many of the owner's pods sit on each node (``(pending)`` for unbound).
* ``evictions`` — the times each pod was evicted (taint manager, kubelet pressure, preemption),
  when the two branches disagree.
* ``nodes`` — readiness, conditions, taints, cordon, requested vs allocatable.
* ``events`` — event counts by reason.

What it is not: a renderer, nor the runner that brings both branches to the same time
(``run_pair``, the CLI and the TUI's branch list do that).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..views.state import node_dict, pod_dict
from .expect import is_eviction

if TYPE_CHECKING:
    from ..api.core import Node, Pod
    from ..apiserver.store import Store
    from ..session import Session

DIFF_VERSION = "ksandbox/v1alpha1"
NODE_FIELDS = ("ready", "conditions", "unschedulable", "taints", "allocatable", "requested")
POD_FIELDS = ("node", "phase", "reason", "message", "evictionAt")


def _pod_side(d: dict | None) -> dict | None:
    if d is None:
        return None
    return {k: d[k] for k in POD_FIELDS}


def _pod_difference(a: dict | None, b: dict | None) -> str:
    """The kind of difference, in the order a person cares about."""
    if a is None:
        return "only-b"
    if b is None:
        return "only-a"
    if bool(a["node"]) != bool(b["node"]):
        return "pending"
    if a["node"] != b["node"]:
        return "placement"
    if a["phase"] != b["phase"]:
        return "phase"
    if (a["reason"] == "Terminating") != (b["reason"] == "Terminating"):
        return "terminating"
    if a["evictionAt"] != b["evictionAt"]:
        return "eviction"
    return "status"


def _pod_objects(session: Session) -> dict[tuple[str, str], Pod]:
    return {(p.metadata.namespace, p.metadata.name): p for p in session.store.list("Pod")}


def _pod_section(a: Session, b: Session) -> list[dict]:
    oa, ob = _pod_objects(a), _pod_objects(b)
    out = []
    for key in sorted(set(oa) | set(ob)):
        pod_a, pod_b = oa.get(key), ob.get(key)
        # Branches share every object neither has written since the fork (objects are
        # immutable): the same object is the same pod, but for the taint manager's deadline.
        if pod_a is not None and pod_a is pod_b and \
                a.eviction_deadline(pod_a) == b.eviction_deadline(pod_a):
            continue
        da = pod_dict(a, pod_a) if pod_a is not None else None
        db = pod_dict(b, pod_b) if pod_b is not None else None
        sa, sb = _pod_side(da), _pod_side(db)
        if sa == sb:
            continue
        either = da or db
        assert either is not None
        out.append({"namespace": key[0], "name": key[1], "owner": either["owner"],
                    "difference": _pod_difference(sa, sb), "a": sa, "b": sb})
    return out


def _placement(session: Session) -> dict[tuple[str, str], dict[str, int]]:
    """(namespace, owner) -> {node or "(pending)": pods}, for owned pods not terminating."""
    out: dict[tuple[str, str], dict[str, int]] = {}
    for pod in session.store.list("Pod"):
        ref = pod.metadata.controller_ref()
        if ref is None or pod.metadata.deletion_timestamp is not None:
            continue
        where = pod.spec.node_name or "(pending)"
        counts = out.setdefault((pod.metadata.namespace, f"{ref.kind}/{ref.name}"), {})
        counts[where] = counts.get(where, 0) + 1
    return out


def _workload_section(a: Any, b: Any) -> list[dict]:
    wa, wb = _placement(a), _placement(b)
    out = []
    for key in sorted(set(wa) | set(wb)):
        ca, cb = wa.get(key, {}), wb.get(key, {})
        if ca == cb:
            continue
        out.append({"namespace": key[0], "owner": key[1],
                    "a": dict(sorted(ca.items())), "b": dict(sorted(cb.items()))})
    return out


def _evictions(session: Session) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for ev in session.store.occurrences:
        if is_eviction(ev):
            o = ev.involved_object
            out.setdefault(f"{o.namespace}/{o.name}", []).append(float(ev.last_timestamp))
    return out


def _eviction_section(a: Any, b: Any) -> list[dict]:
    ea, eb = _evictions(a), _evictions(b)
    return [{"pod": pod, "a": ea.get(pod, []), "b": eb.get(pod, [])}
            for pod in sorted(set(ea) | set(eb)) if ea.get(pod, []) != eb.get(pod, [])]


def _node(store: Store, node: Node) -> dict:
    d = node_dict(store, node)
    return {
        "ready": d["ready"],
        "conditions": {c.type: c.status for c in sorted(node.status.conditions,
                                                        key=lambda c: c.type)},
        "unschedulable": d["unschedulable"],
        # Taints without timeAdded: the same taint added at another second is a time
        # difference, shown by the events; the set of taints is what placement depends on.
        "taints": [_taint_text(t) for t in d["taints"]],
        "allocatable": d["allocatable"],
        "requested": d["requested"],
    }


def _taint_text(t: dict) -> str:
    """``key=value:Effect``, as kubectl taint takes it."""
    value = f"={t['value']}" if t["value"] else ""
    return f"{t['key']}{value}:{t['effect']}"


def _node_section(a: Session, b: Session) -> list[dict]:
    na = {n.name: n for n in a.store.list("Node")}
    nb = {n.name: n for n in b.store.list("Node")}
    out = []
    for name in sorted(set(na) | set(nb)):
        node_a, node_b = na.get(name), nb.get(name)
        if node_a is not None and node_a is node_b and _same_pods_on(a.store, b.store, name):
            continue     # the same object with the same pods: nothing can differ
        sa = _node(a.store, node_a) if node_a is not None else None
        sb = _node(b.store, node_b) if node_b is not None else None
        if sa == sb:
            continue
        fields = list(NODE_FIELDS) if sa is None or sb is None else \
            [f for f in NODE_FIELDS if sa[f] != sb[f]]
        out.append({"name": name, "differences": fields, "a": sa, "b": sb})
    return out


def _same_pods_on(sa: Store, sb: Store, node: str) -> bool:
    pa, pb = list(sa.pods_on_node(node)), list(sb.pods_on_node(node))
    return len(pa) == len(pb) and all(x is y for x, y in zip(pa, pb))


def _event_counts(session: Session) -> dict[str, int]:
    out: dict[str, int] = {}
    for ev in session.store.occurrences:
        out[ev.reason] = out.get(ev.reason, 0) + 1
    return out


def _event_section(a: Any, b: Any) -> list[dict]:
    ca, cb = _event_counts(a), _event_counts(b)
    return [{"reason": r, "a": ca.get(r, 0), "b": cb.get(r, 0)}
            for r in sorted(set(ca) | set(cb)) if ca.get(r, 0) != cb.get(r, 0)]


def diff_sessions(a: Any, b: Any, names: tuple[str, str] = ("A", "B")) -> dict:
    """What differs between two sessions standing at the same simulated time."""
    if abs(a.now - b.now) > 1e-9:
        raise ValueError(f"branches at different times: {a.now:g}s and {b.now:g}s")
    out = {
        "apiVersion": DIFF_VERSION,
        "kind": "Diff",
        "time": float(a.now),
        "branches": {"a": names[0], "b": names[1]},
        "pods": _pod_section(a, b),
        "workloads": _workload_section(a, b),
        "evictions": _eviction_section(a, b),
        "nodes": _node_section(a, b),
        "events": _event_section(a, b),
    }
    out["identical"] = not any(out[k] for k in ("pods", "workloads", "evictions", "nodes",
                                                "events"))
    return out


def run_to_same_time(playbacks: list[Any], until: float | None = None) -> float:
    """Play each branch's steps and bring every branch to one simulated time; that time.

    With ``until``: the steps due by then, and the clock to ``until``. Without: each branch
    runs its steps and settles, then the ones that settled earlier run on to the latest
    (a diff compares the same instant, never two different ones).
    """
    if until is not None:
        for pb in playbacks:
            if pb.session.now > until:
                raise ValueError(f"--until {until:g}: a branch starts later, at "
                                 f"{pb.session.now:g}s")
            pb.advance_to(until)
        return until
    for pb in playbacks:
        pb.run_to_end()
    t = max(pb.session.now for pb in playbacks)
    for pb in playbacks:
        pb.advance_to(t)
    return t
