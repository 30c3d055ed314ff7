"""Timeline helpers for the node tests: small manifests, a session, steps at simulated seconds.

A timeline test reads like a script: ``play(session, [(10, "ksandbox fail node node-2"),
(70, check), ...])`` runs the clock to each time, then submits the command (asserting it worked)
or calls the check. Times are simulated seconds; nothing here sleeps.

The tests assert on what the node components do (conditions, taints, countdowns, events,
kubelet writes), never on where a scheduler would put a replacement pod, so they hold whether
or not the scheduler and workload controllers are part of the build.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from ksandbox.session import Session


def node(name: str, cpu: str = "4", memory: str = "8Gi", labels: dict | None = None,
         taints: list | None = None, extra_status: str = "") -> str:
    doc = {"apiVersion": "v1", "kind": "Node",
           "metadata": {"name": name, "labels": labels or {}},
           "spec": {"taints": taints or []},
           "status": {"capacity": {"cpu": cpu, "memory": memory, "pods": "110",
                                   "ephemeral-storage": "100Gi"}}}
    return json.dumps(doc) + extra_status


def pod(name: str, node_name: str | None = None, *, tolerations: list | None = None,
        requests: dict | None = None, limits: dict | None = None, labels: dict | None = None,
        owner: str | None = None, namespace: str = "default", priority_class: str = "",
        grace: int | None = None, volumes: list | None = None, containers: int = 1) -> str:
    resources: dict = {}
    if requests:
        resources["requests"] = requests
    if limits:
        resources["limits"] = limits
    spec: dict = {"containers": [{"name": f"c{i}" if i else "app", "image": "nginx",
                                  "resources": resources} for i in range(containers)]}
    if node_name:
        spec["nodeName"] = node_name
    if tolerations is not None:
        spec["tolerations"] = tolerations
    if priority_class:
        spec["priorityClassName"] = priority_class
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    if volumes:
        spec["volumes"] = volumes
    meta: dict = {"name": name, "namespace": namespace, "labels": labels or {}}
    if owner:
        kind, _, oname = owner.partition("/")
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": oname,
                                    "uid": f"uid-{oname}", "controller": True}]
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec})


def toleration(key: str, seconds: int | None = None, effect: str = "NoExecute",
               operator: str = "Exists", value: str = "") -> dict:
    t: dict = {"key": key, "operator": operator, "effect": effect}
    if value:
        t["value"] = value
    if seconds is not None:
        t["tolerationSeconds"] = seconds
    return t


def cluster(*docs: str, seed: int = 0) -> Session:
    return Session.from_text("\n---\n".join(docs), seed=seed)


Step = tuple[float, Any]   # a command line, or a callable taking the session


def play(session: Session, steps: Iterable[Step]) -> None:
    """Run the clock to each step's time, then do it (a command must succeed)."""
    for at, step in steps:
        session.run_until(at)
        if isinstance(step, str):
            result = session.submit(step)
            assert result.ok, result.error
        else:
            step(session)


# -- reading the state ------------------------------------------------------------------------

def taints(session: Session, node_name: str) -> dict[str, float | None]:
    """``key:Effect`` → timeAdded for every taint of the node."""
    n = session.store.get("Node", node_name)
    return {t.to_string(): t.time_added for t in n.spec.taints}


def condition(session: Session, node_name: str, type_: str) -> Any:
    return session.store.get("Node", node_name).status.condition(type_)


def get_pod(session: Session, name: str, namespace: str = "default") -> Any:
    return session.store.get("Pod", name, namespace)


def events(session: Session, reason: str | None = None, obj: str | None = None
           ) -> list[tuple[float, str, str]]:
    """(first time, object, message) of the events, optionally of one reason / object."""
    return [(e.first_timestamp, e.object_path, e.message) for e in session.store.events
            if (reason is None or e.reason == reason) and (obj is None or e.object_path == obj)]


def marked_for_deletion(session: Session) -> dict[str, float]:
    """pod ``ns/name`` → when the taint manager marked it for deletion."""
    out = {}
    for e in session.store.events:
        if e.reason == "TaintManagerEviction" and e.message.startswith("Marking for deletion"):
            out[e.message.rsplit(" ", 1)[1]] = e.first_timestamp
    return out


def kubelets(session: Session) -> Any:
    return session.cp.kubelets
