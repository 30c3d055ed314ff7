"""``kubectl describe`` for workloads and the smaller kinds.

Deployments, replica sets (and replication controllers), daemon sets, horizontal pod
autoscalers, pod disruption budgets, priority classes, namespaces and events, ported from
describeDeployment, describeReplicaSet, describeDaemonSet, describeHorizontalPodAutoscalerV2,
describePodDisruptionBudget, describePriorityClass and describeNamespace in
``kubernetes/kubectl`` ``pkg/describe/describe.go``. ``Pods Status`` counts the pods the
object controls (by controller owner reference), as kubectl's getPodStatusForController does.

Not here: nodes and pods (``describe.py``), the shared sections (``describe_base.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..api.selectors import format_label_selector
from ..controllers.deployment_util import new_and_old_replicasets
from .describe_base import (
    LEVEL_0,
    LEVEL_1,
    LEVEL_2,
    Writer,
    annotations_multiline,
    describe_events,
    labels_multiline,
    pod_template,
)
from .printers import format_labels, hpa_metric_specs, hpa_metric_statuses
from .timefmt import rfc1123z

if TYPE_CHECKING:
    from ..apiserver.store import Store


def _events(store: Store, obj: Any, show: bool) -> list[Any] | None:
    if not show:
        return None
    return store.events_for(obj.kind, obj.metadata.name, obj.metadata.namespace)


def _finish(w: Writer, store: Store, obj: Any, now: float, show_events: bool) -> str:
    events = _events(store, obj, show_events)
    if events is not None:
        describe_events(w, events, now)
    return w.render()


def _pods_status(store: Store, obj: Any) -> str:
    counts = {"Running": 0, "Pending": 0, "Succeeded": 0, "Failed": 0}
    for pod in store.list("Pod", obj.metadata.namespace):
        ref = pod.metadata.controller_ref()
        if ref is None or ref.uid != obj.metadata.uid:
            continue
        phase = pod.status.phase or "Pending"
        if phase in counts:
            counts[phase] += 1
    return (f"{counts['Running']} Running / {counts['Pending']} Waiting / "
            f"{counts['Succeeded']} Succeeded / {counts['Failed']} Failed")


def _conditions(w: Writer, obj: Any) -> None:
    conds = [c for c in (obj.status.extra.get("conditions") or ()) if hasattr(c, "get")]
    if conds:
        w.write(LEVEL_0, "Conditions:\n  Type\tStatus\tReason\n")
        w.write(LEVEL_1, "----\t------\t------\n")
        for c in conds:
            w.write(LEVEL_1, f"{c.get('type', '')} \t{c.get('status', '')}\t"
                             f"{c.get('reason', '')}\n")


def _owned_replicasets(store: Store, d: Any) -> list[Any]:
    out = []
    for rs in store.list("ReplicaSet", d.metadata.namespace):
        ref = rs.metadata.controller_ref()
        if ref is not None and ref.uid == d.metadata.uid:
            out.append(rs)
    return sorted(out, key=lambda rs: rs.metadata.creation_timestamp or 0)


def _rs_list(items: list[Any]) -> str:
    text = ", ".join(f"{rs.metadata.name} ({rs.status.replicas}/{rs.spec.replicas or 0} "
                     f"replicas created)" for rs in items)
    return text or "<none>"


def describe_deployment(d: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    spec, st = d.spec, d.status
    w.write(LEVEL_0, f"Name:\t{d.metadata.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{d.metadata.namespace}\n")
    w.write(LEVEL_0, f"CreationTimestamp:\t{rfc1123z(d.metadata.creation_timestamp)}\n")
    labels_multiline(w, "Labels", d.metadata.labels)
    annotations_multiline(w, "Annotations", d.metadata.annotations)
    w.write(LEVEL_0, f"Selector:\t{format_label_selector(spec.selector)}\n")
    replicas = spec.replicas if spec.replicas is not None else 1
    w.write(LEVEL_0, f"Replicas:\t{replicas} desired | {st.updated_replicas} updated | "
                     f"{st.replicas} total | {st.available_replicas} available | "
                     f"{st.unavailable_replicas} unavailable\n")
    w.write(LEVEL_0, f"StrategyType:\t{spec.strategy.type}\n")
    w.write(LEVEL_0, f"MinReadySeconds:\t{spec.min_ready_seconds}\n")
    ru = spec.strategy.rolling_update
    if ru is not None:
        w.write(LEVEL_0, f"RollingUpdateStrategy:\t{ru.max_unavailable} max unavailable, "
                         f"{ru.max_surge} max surge\n")
    pod_template(w, spec.template)
    _conditions(w, d)
    new, old = new_and_old_replicasets(d, _owned_replicasets(store, d))
    w.write(LEVEL_0, f"OldReplicaSets:\t{_rs_list(old)}\n")
    w.write(LEVEL_0, f"NewReplicaSet:\t{_rs_list([new] if new is not None else [])}\n")
    return _finish(w, store, d, now, show_events)


def describe_replicaset(rs: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    w.write(LEVEL_0, f"Name:\t{rs.metadata.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{rs.metadata.namespace}\n")
    if rs.kind == "ReplicationController":
        w.write(LEVEL_0, f"Selector:\t{format_labels(rs.spec.selector)}\n")
    else:
        w.write(LEVEL_0, f"Selector:\t{format_label_selector(rs.spec.selector)}\n")
    labels_multiline(w, "Labels", rs.metadata.labels)
    annotations_multiline(w, "Annotations", rs.metadata.annotations)
    ref = rs.metadata.controller_ref()
    if ref is not None:
        w.write(LEVEL_0, f"Controlled By:\t{ref.kind}/{ref.name}\n")
    desired = rs.spec.replicas if rs.spec.replicas is not None else 1
    w.write(LEVEL_0, f"Replicas:\t{rs.status.replicas} current / {desired} desired\n")
    w.write(LEVEL_0, f"Pods Status:\t{_pods_status(store, rs)}\n")
    pod_template(w, rs.spec.template)
    _conditions(w, rs)
    return _finish(w, store, rs, now, show_events)


def describe_daemonset(ds: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    s = ds.status
    w.write(LEVEL_0, f"Name:\t{ds.metadata.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{ds.metadata.namespace}\n")
    w.write(LEVEL_0, f"Selector:\t{format_label_selector(ds.spec.selector)}\n")
    w.write(LEVEL_0, f"Node-Selector:\t{format_labels(ds.spec.template.spec.node_selector)}\n")
    labels_multiline(w, "Labels", ds.metadata.labels)
    annotations_multiline(w, "Annotations", ds.metadata.annotations)
    w.write(LEVEL_0, f"Desired Number of Nodes Scheduled: {s.desired_number_scheduled}\n")
    w.write(LEVEL_0, f"Current Number of Nodes Scheduled: {s.current_number_scheduled}\n")
    w.write(LEVEL_0, f"Number of Nodes Scheduled with Up-to-date Pods: "
                     f"{s.updated_number_scheduled}\n")
    w.write(LEVEL_0, f"Number of Nodes Scheduled with Available Pods: {s.number_available}\n")
    w.write(LEVEL_0, f"Number of Nodes Misscheduled: {s.number_misscheduled}\n")
    w.write(LEVEL_0, f"Pods Status:\t{_pods_status(store, ds)}\n")
    pod_template(w, ds.spec.template)
    return _finish(w, store, ds, now, show_events)


def describe_hpa(hpa: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    ref = hpa.spec.scale_target_ref
    w.write(LEVEL_0, f"Name:\t{hpa.metadata.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{hpa.metadata.namespace}\n")
    labels_multiline(w, "Labels", hpa.metadata.labels)
    annotations_multiline(w, "Annotations", hpa.metadata.annotations)
    w.write(LEVEL_0, f"CreationTimestamp:\t{rfc1123z(hpa.metadata.creation_timestamp)}\n")
    w.write(LEVEL_0, f"Reference:\t{ref.kind}/{ref.name}\n")
    w.write(LEVEL_0, "Metrics:\t( current / target )\n")
    statuses = hpa_metric_statuses(hpa)
    for i, m in enumerate(hpa_metric_specs(hpa)):
        res = m.get("resource") if m.get("type") == "Resource" else None
        if not res:
            w.write(LEVEL_1, f"<unknown metric type \"{m.get('type', '')}\">\n")
            continue
        target = res.get("target") or {}
        cur = (statuses[i].get("resource") or {}).get("current") or {} \
            if i < len(statuses) else {}
        w.write(LEVEL_1, f"resource {res.get('name')} on pods")
        if target.get("averageValue") is not None:
            current = cur.get("averageValue", "<unknown>")
            w.write(LEVEL_0, f":\t{current} / {target['averageValue']}\n")
        else:
            current = "<unknown>"
            if cur.get("averageUtilization") is not None:
                current = f"{cur['averageUtilization']}% ({cur.get('averageValue', '0')})"
            want = f"{target['averageUtilization']}%" \
                if target.get("averageUtilization") is not None else "<auto>"
            w.write(LEVEL_1, f"(as a percentage of request):\t{current} / {want}\n")
    min_r = hpa.spec.min_replicas
    w.write(LEVEL_0, f"Min replicas:\t{min_r if min_r is not None else '<unset>'}\n")
    w.write(LEVEL_0, f"Max replicas:\t{hpa.spec.max_replicas}\n")
    w.write(LEVEL_0, f"{ref.kind} pods:\t")
    w.write(LEVEL_0, f"{hpa.status.current_replicas} current / "
                     f"{hpa.status.desired_replicas} desired\n")
    conds = [c for c in (hpa.status.extra.get("conditions") or ()) if hasattr(c, "get")]
    if conds:
        w.write(LEVEL_0, "Conditions:\n")
        w.write(LEVEL_1, "Type\tStatus\tReason\tMessage\n")
        w.write(LEVEL_1, "----\t------\t------\t-------\n")
        for c in conds:
            w.write(LEVEL_1, f"{c.get('type', '')}\t{c.get('status', '')}\t"
                             f"{c.get('reason', '')}\t{c.get('message', '')}\n")
    return _finish(w, store, hpa, now, show_events)


def describe_pdb(pdb: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    s = pdb.spec
    w.write(LEVEL_0, f"Name:\t{pdb.metadata.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{pdb.metadata.namespace}\n")
    if s.min_available is not None:
        w.write(LEVEL_0, f"Min available:\t{s.min_available}\n")
    elif s.max_unavailable is not None:
        w.write(LEVEL_0, f"Max unavailable:\t{s.max_unavailable}\n")
    w.write(LEVEL_0, f"Selector:\t{format_label_selector(s.selector)}\n")
    w.write(LEVEL_0, "Status:\n")
    st = pdb.status
    w.write(LEVEL_2, f"Allowed disruptions:\t{st.disruptions_allowed}\n")
    w.write(LEVEL_2, f"Current:\t{st.current_healthy}\n")
    w.write(LEVEL_2, f"Desired:\t{st.desired_healthy}\n")
    w.write(LEVEL_2, f"Total:\t{st.expected_pods}\n")
    return _finish(w, store, pdb, now, show_events)


def describe_priority_class(pc: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    w.write(LEVEL_0, f"Name:\t{pc.metadata.name}\n")
    w.write(LEVEL_0, f"Value:\t{pc.value}\n")
    w.write(LEVEL_0, f"GlobalDefault:\t{'true' if pc.global_default else 'false'}\n")
    w.write(LEVEL_0, f"PreemptionPolicy:\t{pc.preemption_policy or 'PreemptLowerPriority'}\n")
    w.write(LEVEL_0, f"Description:\t{pc.description}\n")
    w.write(LEVEL_0, f"Annotations:\t{format_labels(pc.metadata.annotations)}\n")
    return _finish(w, store, pc, now, show_events)


def describe_namespace(ns: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    w.write(LEVEL_0, f"Name:\t{ns.metadata.name}\n")
    labels_multiline(w, "Labels", ns.metadata.labels)
    annotations_multiline(w, "Annotations", ns.metadata.annotations)
    w.write(LEVEL_0, f"Status:\t{ns.status.phase or 'Active'}\n")
    w.write(LEVEL_0, "\nNo resource quota.\n")
    w.write(LEVEL_0, "\nNo LimitRange resource.\n")
    return w.render()


def describe_event(ev: Any, store: Store, now: float, show_events: bool = True) -> str:
    """Events have no describer upstream; kubectl falls back to its generic one."""
    w = Writer()
    o = ev.involved_object
    w.write(LEVEL_0, f"Name:\t{ev.metadata.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{ev.metadata.namespace}\n")
    w.write(LEVEL_0, f"Type:\t{ev.type}\n")
    w.write(LEVEL_0, f"Reason:\t{ev.reason}\n")
    w.write(LEVEL_0, f"Involved Object:\t{o.kind}/{o.name}\n")
    w.write(LEVEL_0, f"Source:\t{ev.source_component}\n")
    w.write(LEVEL_0, f"Count:\t{ev.count}\n")
    w.write(LEVEL_0, f"First Timestamp:\t{rfc1123z(ev.first_timestamp)}\n")
    w.write(LEVEL_0, f"Last Timestamp:\t{rfc1123z(ev.last_timestamp)}\n")
    w.write(LEVEL_0, f"Message:\t{ev.message}\n")
    return w.render()
