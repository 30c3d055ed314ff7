"""Expectations: what a recording says must be true at a step's time (``expect:`` blocks).

A demo that tells a story should still tell it after the scheduler or a controller changes;
``ksandbox play FILE --headless --check`` runs the recording and checks each step's
expectations when playback reaches it (once the step's command and everything due at that
second have run). Five forms, each one mapping (docs/recordings.md):

    - pod: default/ml-server      # NAMESPACE/NAME; NAME may be a glob (web-*): every match
      node: node-2                #   bound to this node
      pending: "untolerated"      #   or Pending and unbound, the reason containing this text
      phase: Running              #   or in this phase
      gone: true                  #   or no such pod (deleted, evicted)
    - evicted: default/checkout-* # a pod evicted (taint manager, kubelet pressure, preemption)
      by: 106                     #   at or before this time (default: now)
    - node: node-2
      ready: "Unknown"            # the Ready condition's status
      tainted: node.kubernetes.io/unreachable:NoExecute   # key[=value][:Effect]
      untainted: hw-type          # no taint with this key[:Effect]
      unschedulable: true
    - workload: deployment/web    # the pods a Deployment/ReplicaSet/DaemonSet/... owns
      namespace: default          #   (default "default")
      pods: 3                     #   how many (not terminating)
      phase: Running              #   counting only pods in this phase
      node: node-1                #   counting only pods on this node
      zone: zone-a                #   or on nodes of this topology.kubernetes.io/zone

What it is not: a general query language. Each check answers with what it saw instead, in
words a user can act on (``saw Pending: 0/5 nodes are available: ...``).
"""

from __future__ import annotations

import fnmatch
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from ..api.core import Pod
    from ..apiserver.store import Store
    from ..session import Session

ZONE_LABEL = "topology.kubernetes.io/zone"
PHASES = ("Pending", "Running", "Succeeded", "Failed")
EVICTION_REASONS = ("TaintManagerEviction", "Evicted", "Preempted")
WORKLOAD_KINDS = {"deployment": "Deployment", "deploy": "Deployment",
                  "replicaset": "ReplicaSet", "rs": "ReplicaSet", "daemonset": "DaemonSet",
                  "ds": "DaemonSet", "statefulset": "StatefulSet", "sts": "StatefulSet",
                  "job": "Job", "replicationcontroller": "ReplicationController",
                  "rc": "ReplicationController"}
FORMS = {
    "pod": ("pod", "node", "pending", "phase", "gone"),
    "evicted": ("evicted", "by"),
    "node": ("node", "ready", "tainted", "untainted", "unschedulable"),
    "workload": ("workload", "namespace", "pods", "phase", "node", "zone"),
}


class ExpectError(Exception):
    def __init__(self, path: tuple[Any, ...], message: str) -> None:
        super().__init__(message)
        self.path = path
        self.message = message


@attrs.frozen
class Expectation:
    form: str                     # "pod", "evicted", "node" or "workload"
    subject: str                  # what the first key names
    fields: tuple[tuple[str, Any], ...]

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.fields).get(key, default)

    def describe(self) -> str:
        rest = ", ".join(f"{k}: {v}" for k, v in self.fields)
        return f"{self.form} {self.subject}" + (f" ({rest})" if rest else "")


def parse_expectations(raw: Any) -> tuple[Expectation, ...]:
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise ExpectError((), "expected a list of expectations (pod, evicted, node or "
                              "workload)")
    return tuple(_parse_one(item, (i,)) for i, item in enumerate(raw))


def _parse_one(item: Any, path: tuple[Any, ...]) -> Expectation:
    if not isinstance(item, dict):
        raise ExpectError(path, "expected a mapping such as {pod: default/web-1, node: node-1}")
    # "pod" wins over "node" as the form: {pod: x, node: y} is a pod bound to a node.
    form = next((f for f in ("pod", "evicted", "workload", "node") if f in item), None)
    if form is None:
        raise ExpectError(path, "Required value: one of pod, evicted, node or workload")
    allowed = FORMS[form]
    for key in item:
        if key not in allowed:
            raise ExpectError(path + (key,), f"unknown field {key!r} for a {form} expectation "
                                             f"(expected {', '.join(allowed)})")
    subject = item[form]
    if not isinstance(subject, str) or not subject:
        raise ExpectError(path + (form,), f"Invalid value: {subject!r}: must be a name")
    fields = {k: v for k, v in item.items() if k != form}
    if form in ("pod", "evicted"):
        if subject.count("/") != 1 or not all(subject.split("/")):
            raise ExpectError(path + (form,), f"Invalid value: {subject!r}: must be "
                                              f"NAMESPACE/NAME (NAME may be a glob)")
    if form == "pod" and not fields:
        raise ExpectError(path, "Required value: one of node, pending, phase or gone")
    if form == "node" and not fields:
        raise ExpectError(path, "Required value: one of ready, tainted, untainted or "
                                "unschedulable")
    if form == "workload":
        kind, _, name = subject.partition("/")
        if kind.lower() not in WORKLOAD_KINDS or not name:
            raise ExpectError(path + (form,), f"Invalid value: {subject!r}: must be KIND/NAME "
                                              f"(deployment, replicaset, daemonset, ...)")
        if "pods" not in fields:
            raise ExpectError(path + ("pods",), "Required value: how many pods")
    for key, val in fields.items():
        _check_value(form, key, val, path + (key,))
    return Expectation(form, subject, tuple(fields.items()))


def _check_value(form: str, key: str, val: Any, path: tuple[Any, ...]) -> None:
    def bad(why: str) -> ExpectError:
        return ExpectError(path, f"Invalid value: {val!r}: {why}")

    if key in ("node", "pending", "tainted", "untainted", "namespace", "zone"):
        if not isinstance(val, str) or (key != "pending" and not val):
            raise bad("must be a string")
    elif key == "phase":
        if val not in PHASES:
            raise bad("must be one of " + ", ".join(PHASES))
    elif key == "ready":
        if val not in ("True", "False", "Unknown", True, False):
            raise bad('must be "True", "False" or "Unknown"')
    elif key in ("gone", "unschedulable"):
        if not isinstance(val, bool):
            raise bad("must be true or false")
    elif key == "by":
        if isinstance(val, bool) or not isinstance(val, (int, float)) or val < 0:
            raise bad("must be a number of simulated seconds")
    elif key == "pods":
        if isinstance(val, bool) or not isinstance(val, int) or val < 0:
            raise bad("must be a count, 0 or more")


# -- checking ---------------------------------------------------------------------------------

def check(session: Session, exp: Expectation) -> str | None:
    """None when ``exp`` holds in ``session`` now, else what was seen instead."""
    return _CHECKS[exp.form](session, exp)


def _pods_matching(store: Store, pattern: str) -> list[Any]:
    namespace, name = pattern.split("/")
    if not any(ch in name for ch in "*?["):
        pod = store.get("Pod", name, namespace)
        return [pod] if pod is not None else []
    return sorted((p for p in store.list("Pod", namespace)
                   if fnmatch.fnmatchcase(p.metadata.name, name)),
                  key=lambda p: p.metadata.name)


def _pod_state(pod: Pod) -> str:
    from ..views.state import pod_reason

    phase = pod.status.phase or "Pending"
    where = f" on {pod.spec.node_name}" if pod.spec.node_name else " (not bound)"
    reason, message = pod_reason(pod)
    why = f": {message or reason}" if (message or reason) else ""
    return f"{phase}{where}{why}"


def _check_pod(session: Session, exp: Expectation) -> str | None:
    pods = _pods_matching(session.store, exp.subject)
    if exp.get("gone") is True:
        if pods:
            return f"saw {', '.join(p.metadata.name for p in pods)} still there: " \
                   f"{_pod_state(pods[0])}"
        return None
    if not pods:
        return "saw no such pod"
    node, pending, phase = exp.get("node"), exp.get("pending"), exp.get("phase")
    for pod in pods:
        label = f"{pod.metadata.namespace}/{pod.metadata.name}"
        prefix = f"{label}: saw " if len(pods) > 1 or "*" in exp.subject else "saw "
        if node is not None and pod.spec.node_name != node:
            return prefix + _pod_state(pod)
        if phase is not None and (pod.status.phase or "Pending") != phase:
            return prefix + _pod_state(pod)
        if pending is not None:
            from ..views.state import pod_reason

            reason, message = pod_reason(pod)
            if pod.spec.node_name or (pod.status.phase or "Pending") != "Pending" or \
                    pending.lower() not in f"{reason} {message}".lower():
                return prefix + _pod_state(pod)
    return None


def is_eviction(ev: Any) -> bool:
    """An event saying a pod was evicted (taint manager, kubelet pressure, preemption).

    The taint manager writes TaintManagerEviction twice (``Marking for deletion`` when it
    deletes, ``Cancelling deletion`` when a taint goes first): only the first is an eviction.
    """
    if ev.reason not in EVICTION_REASONS or ev.involved_object.kind != "Pod":
        return False
    return ev.reason != "TaintManagerEviction" or ev.message.startswith("Marking")


def _check_evicted(session: Session, exp: Expectation) -> str | None:
    namespace, name = exp.subject.split("/")
    by = float(exp.get("by", session.now))
    seen = []
    for ev in session.store.occurrences:
        if not is_eviction(ev):
            continue
        o = ev.involved_object
        if o.namespace != namespace or not fnmatch.fnmatchcase(o.name, name):
            continue
        if ev.last_timestamp <= by:
            return None
        seen.append(f"{o.name} at {ev.last_timestamp:g}s")
    if seen:
        return f"saw it evicted only later: {', '.join(seen[:3])}"
    pods = _pods_matching(session.store, exp.subject)
    if pods:
        return f"saw no eviction; {pods[0].metadata.name} is {_pod_state(pods[0])}"
    return "saw no eviction of a matching pod"


def _taint_matches(taint: Any, spec: str) -> bool:
    key, _, effect = spec.partition(":")
    key, eq, value = key.partition("=")
    if taint.key != key:
        return False
    if eq and (taint.value or "") != value:
        return False
    return not effect or taint.effect == effect


def _check_node(session: Session, exp: Expectation) -> str | None:
    node = session.store.get("Node", exp.subject)
    if node is None:
        return "saw no such node"
    ready = exp.get("ready")
    if ready is not None:
        want = ready if isinstance(ready, str) else ("True" if ready else "False")
        if node.ready != want:
            return f"saw Ready={node.ready}"
    taints = node.spec.taints
    shown = ", ".join(t.to_string() for t in taints) or "no taints"
    tainted = exp.get("tainted")
    if tainted is not None and not any(_taint_matches(t, tainted) for t in taints):
        return f"saw {shown}"
    untainted = exp.get("untainted")
    if untainted is not None and any(_taint_matches(t, untainted) for t in taints):
        return f"saw {shown}"
    unsched = exp.get("unschedulable")
    if unsched is not None and bool(node.spec.unschedulable) != unsched:
        return f"saw unschedulable={str(bool(node.spec.unschedulable)).lower()}"
    return None


def workload_pods(store: Store, kind: str, name: str, namespace: str) -> list[Any]:
    """The pods a workload owns: directly, or through its ReplicaSets for a Deployment."""
    owner = store.get(kind, name, namespace)
    if owner is None:
        return []
    uids = {owner.metadata.uid}
    if kind == "Deployment":
        for rs in store.list("ReplicaSet", namespace):
            ref = rs.metadata.controller_ref()
            if ref is not None and ref.uid == owner.metadata.uid:
                uids.add(rs.metadata.uid)
    out = []
    for pod in store.list("Pod", namespace):
        ref = pod.metadata.controller_ref()
        if ref is not None and ref.uid in uids:
            out.append(pod)
    return out


def _check_workload(session: Session, exp: Expectation) -> str | None:
    kind_word, _, name = exp.subject.partition("/")
    kind = WORKLOAD_KINDS[kind_word.lower()]
    namespace = exp.get("namespace", "default")
    if session.store.get(kind, name, namespace) is None:
        return f"saw no {kind} {namespace}/{name}"
    pods = [p for p in workload_pods(session.store, kind, name, namespace)
            if p.metadata.deletion_timestamp is None]
    phase, node, zone = exp.get("phase"), exp.get("node"), exp.get("zone")
    in_zone: set[str] = set()
    if zone is not None:
        in_zone = {n.name for n in session.store.list("Node")
                   if n.metadata.labels.get(ZONE_LABEL) == zone}
    counted = [p for p in pods if (phase is None or (p.status.phase or "Pending") == phase)
               and (node is None or p.spec.node_name == node)
               and (zone is None or p.spec.node_name in in_zone)]
    want = exp.get("pods")
    if len(counted) != want:
        by_phase: dict[str, int] = {}
        for p in pods:
            key = p.status.phase or "Pending"
            by_phase[key] = by_phase.get(key, 0) + 1
        detail = ", ".join(f"{n} {k}" for k, n in sorted(by_phase.items())) or "none"
        return f"saw {len(counted)} (of its pods: {detail})"
    return None


_CHECKS = {"pod": _check_pod, "evicted": _check_evicted, "node": _check_node,
           "workload": _check_workload}
