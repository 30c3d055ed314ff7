"""The text of ``ksandbox sim -o wide``: the sandbox's state for a person to read.

Four parts, each a kubectl-shaped table a newcomer already knows how to read:

* a header line — the simulated time (seconds and as an age, ``412s (6m52s)``) and counts;
* nodes, as ``kubectl get nodes -o wide`` plus TAINTS (``key=value:Effect``, comma-separated,
  so a taint can be copied straight into ``kubectl taint``) and the requested/allocatable CPU
  and memory, which is what scheduling decisions hinge on;
* pods, as ``kubectl get pods -A -o wide``, plus EVICTION (when a NoExecute taint will evict
  the pod, ``in 4m10s``) and the pod's reason for pending pods;
* events, as ``kubectl get events -A`` with the simulated second each happened at;
* when a cluster autoscaler is configured, its node groups and scale-down candidates
  (``autoscaling.py``).

Pure: reads a session, returns text. Not here: the JSON form (``state.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..api.quantity import format_resource
from .age import age, human_duration
from .printers import PrintOptions, event_object, table_rows
from .state import node_requested, pod_reason
from .table import format_table

if TYPE_CHECKING:
    from ..api.core import Node
    from ..session import Session


def _taints(node: Node) -> str:
    return ",".join(t.to_string() for t in node.spec.taints) or "<none>"


def _share(node: Node, requested: dict[str, int], resource: str) -> str:
    alloc = node.allocatable_amounts.get(resource, 0)
    req = requested.get(resource, 0)
    return f"{format_resource(resource, req)}/{format_resource(resource, alloc)}"


def nodes_table(session: Session) -> str:
    store = session.store
    nodes = sorted(store.nodes(), key=lambda n: n.name)
    rows = table_rows("Node", nodes, session.now, PrintOptions(wide=True))
    rows[0] += ["TAINTS", "CPU (REQ/ALLOC)", "MEMORY (REQ/ALLOC)", "PODS"]
    for node, row in zip(nodes, rows[1:]):
        requested = node_requested(store, node.name)
        pods_alloc = node.allocatable_amounts.get("pods", 0)
        row += [_taints(node), _share(node, requested, "cpu"),
                _share(node, requested, "memory"), f"{requested.get('pods', 0)}/{pods_alloc}"]
    return format_table(rows)


def pods_table(session: Session) -> str:
    pods = sorted(session.store.list("Pod"), key=lambda p: (p.metadata.namespace,
                                                           p.metadata.name))
    rows = table_rows("Pod", pods, session.now, PrintOptions(wide=True, with_namespace=True))
    rows[0] += ["EVICTION", "REASON"]
    for pod, row in zip(pods, rows[1:]):
        deadline = session.eviction_deadline(pod)
        eviction = f"in {human_duration(max(0.0, deadline - session.now))}" \
            if deadline is not None else ""
        reason, message = pod_reason(pod)
        detail = message if (pod.status.phase or "Pending") == "Pending" and message else reason
        row += [eviction or "-", detail or "-"]
    return format_table(rows)


def events_table(session: Session) -> str:
    rows = [["TIME", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]]
    for ev in session.store.events:
        first = f"{float(ev.first_timestamp):g}s"
        count = f" (x{ev.count})" if ev.count > 1 else ""
        obj = event_object(ev)
        if ev.involved_object.namespace:
            obj = f"{ev.involved_object.namespace}/{obj}"
        rows.append([first, age(ev.last_timestamp or ev.first_timestamp, session.now),
                     ev.type, ev.reason + count, obj, ev.message.strip()])
    return format_table(rows)


def render_sim_wide(session: Session) -> str:
    store = session.store
    nodes = store.nodes()
    pods = store.list("Pod")
    ready = sum(1 for n in nodes if n.ready == "True")
    running = sum(1 for p in pods if p.status.phase == "Running")
    pending = sum(1 for p in pods if (p.status.phase or "Pending") == "Pending")
    header = (f"Simulated time: {session.now:g}s ({human_duration(session.now)})   "
              f"nodes: {ready}/{len(nodes)} ready   pods: {running} running, {pending} pending, "
              f"{len(pods)} total\n")
    parts = [header, "\nNODES\n", nodes_table(session) if nodes else "No nodes.\n",
             "\nPODS\n", pods_table(session) if pods else "No pods.\n",
             "\nEVENTS\n", events_table(session) if store.events else "No events.\n"]
    status = session.cp.clusterautoscaler.status()
    if status is not None:
        from .autoscaling import render_cluster_autoscaler_status

        parts += ["\nCLUSTER AUTOSCALER\n", render_cluster_autoscaler_status(status)]
    return "".join(parts)


render = render_sim_wide
