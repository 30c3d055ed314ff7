"""Rows of the k9s-style list views: kubectl's columns, one row per object, computed lazily.

A :class:`RowSpec` says, for one kind, which columns ``kubectl get`` prints, how to fill them
for one object, what a sort on each column compares, what the `/` filter searches, and what
state colours the row. Cells are computed only for the lines on screen (the list view is a
Line API widget), so a 30,000-pod list costs what its visible 40 rows cost; sorting uses the
cheap per-column keys here, never the formatted cells.

No Textual here: the widget styles rows by the ``state`` name a spec returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import attrs

from ..api.kinds import BY_KIND

if TYPE_CHECKING:
    from ..session import Session

Cells = tuple[str, ...]


def human_duration(seconds: float) -> str:
    """apimachinery pkg/util/duration HumanDuration: ``95s``, ``5m30s``, ``3h5m``, ``3d4h``."""
    s = int(seconds)
    if s < 0:
        return "<invalid>"
    if s < 120:
        return f"{s}s"
    m = s // 60
    if m < 10:
        return f"{m}m{s % 60}s" if s % 60 else f"{m}m"
    if m < 180:
        return f"{m}m"
    h = s // 3600
    if h < 8:
        return f"{h}h{m % 60}m" if m % 60 else f"{h}h"
    if h < 48:
        return f"{h}h"
    d = h // 24
    if h < 24 * 8:
        return f"{d}d{h % 24}h" if h % 24 else f"{d}d"
    if d < 365 * 2:
        return f"{d}d"
    y = d // 365
    return f"{y}y{d % 365}d" if d % 365 else f"{y}y"


def age(obj: Any, now: float) -> str:
    created = obj.metadata.creation_timestamp
    return human_duration(now - created) if created is not None else "<unknown>"


def _age_key(obj: Any) -> float:
    # Sorting by AGE puts the youngest first, as k9s does.
    created = obj.metadata.creation_timestamp
    return -(created or 0.0)


# -- nodes ------------------------------------------------------------------------------------

ROLE_PREFIX = "node-role.kubernetes.io/"


def node_roles(node: Any) -> str:
    roles = sorted(k[len(ROLE_PREFIX):] for k in node.metadata.labels if k.startswith(ROLE_PREFIX))
    return ",".join(r for r in roles if r) or "<none>"


def node_status(node: Any) -> str:
    """pkg/printers/internalversion printNode: Ready / NotReady / Unknown (+SchedulingDisabled)."""
    ready = node.ready
    status = {"True": "Ready", "False": "NotReady"}.get(ready, "Unknown")
    if node.spec.unschedulable:
        status += ",SchedulingDisabled"
    return status


def node_state(node: Any) -> str:
    if node.ready != "True":
        return "failed"
    if node.spec.unschedulable:
        return "cordoned"
    return "ok"


def _node_cells(node: Any, now: float, session: Session) -> Cells:
    version = node.status.node_info.kubelet_version or "v1.35.0"
    return (node.name, node_status(node), node_roles(node), str(len(node.spec.taints)),
            age(node, now), version)


# -- pods -------------------------------------------------------------------------------------

def pod_status(pod: Any) -> str:
    """printPod's STATUS column, reduced to what the sandbox models."""
    if pod.metadata.deletion_timestamp is not None:
        return "Terminating"
    reason = pod.status.reason or pod.status.phase or "Pending"
    if reason == "Pending" and pod.spec.node_name:
        return "ContainerCreating"
    if reason == "Succeeded":
        return "Completed"
    if reason == "Failed":
        return "Error"
    return reason


def pod_ready(pod: Any) -> str:
    total = len(pod.spec.containers) or 1
    cond = pod.status.condition("Ready")
    ready = total if (pod.status.phase == "Running"
                      and (cond is None or cond.status == "True")) else 0
    return f"{ready}/{total}"


def pod_state(pod: Any) -> str:
    status = pod_status(pod)
    if status == "Running":
        return "ok"
    if status in ("Terminating", "Completed"):
        return "dim"
    if status in ("Pending", "ContainerCreating"):
        return "pending"
    return "failed"


def _pod_cells(pod: Any, now: float, session: Session) -> Cells:
    return (pod.metadata.namespace, pod.metadata.name, pod_ready(pod), pod_status(pod), "0",
            age(pod, now), pod.status.pod_ip or "<none>", pod.spec.node_name or "<none>")


# -- workloads --------------------------------------------------------------------------------

def _deploy_cells(d: Any, now: float, session: Session) -> Cells:
    want = d.spec.replicas if d.spec.replicas is not None else 1
    st = d.status
    return (d.metadata.namespace, d.metadata.name, f"{st.ready_replicas}/{want}",
            str(st.updated_replicas), str(st.available_replicas), age(d, now))


def _deploy_state(d: Any) -> str:
    want = d.spec.replicas if d.spec.replicas is not None else 1
    return "ok" if d.status.ready_replicas >= want else "pending"


def _rs_cells(rs: Any, now: float, session: Session) -> Cells:
    want = rs.spec.replicas if rs.spec.replicas is not None else 1
    st = rs.status
    return (rs.metadata.namespace, rs.metadata.name, str(want), str(st.replicas),
            str(st.ready_replicas), age(rs, now))


def _rs_state(rs: Any) -> str:
    want = rs.spec.replicas if rs.spec.replicas is not None else 1
    return "ok" if rs.status.ready_replicas >= want else "pending"


def _ds_cells(ds: Any, now: float, session: Session) -> Cells:
    st = ds.status
    sel = ",".join(f"{k}={v}" for k, v in sorted(ds.spec.template.spec.node_selector.items()))
    return (ds.metadata.namespace, ds.metadata.name, str(st.desired_number_scheduled),
            str(st.current_number_scheduled), str(st.number_ready),
            str(st.updated_number_scheduled), str(st.number_available), sel or "<none>",
            age(ds, now))


def _ds_state(ds: Any) -> str:
    st = ds.status
    return "ok" if st.number_ready >= st.desired_number_scheduled else "pending"


def _hpa_cells(h: Any, now: float, session: Session) -> Cells:
    ref = h.spec.scale_target_ref
    cur = h.cpu_current_percent()
    target = h.cpu_target_percent()
    targets = f"{'<unknown>' if cur is None else f'{cur}%'}/{target}%" if target else "<none>"
    return (h.metadata.namespace, h.metadata.name, f"{ref.kind}/{ref.name}", targets,
            str(h.spec.min_replicas or 1), str(h.spec.max_replicas),
            str(h.status.current_replicas), age(h, now))


def _ns_cells(ns: Any, now: float, session: Session) -> Cells:
    return (ns.metadata.name, ns.status.phase or "Active", age(ns, now))


def _pdb_cells(p: Any, now: float, session: Session) -> Cells:
    return (p.metadata.namespace, p.metadata.name,
            "N/A" if p.spec.min_available is None else str(p.spec.min_available),
            "N/A" if p.spec.max_unavailable is None else str(p.spec.max_unavailable),
            str(p.status.disruptions_allowed), age(p, now))


def _pc_cells(p: Any, now: float, session: Session) -> Cells:
    return (p.metadata.name, str(p.value), str(p.global_default).lower(), age(p, now),
            p.preemption_policy or "PreemptLowerPriority")


# -- events -----------------------------------------------------------------------------------

def _event_cells(ev: Any, now: float, session: Session) -> Cells:
    o = ev.involved_object
    seen = human_duration(now - ev.last_timestamp)
    if ev.count > 1:
        seen += f" (x{ev.count})"
    return (ev.metadata.namespace, seen, ev.type, ev.reason, f"{o.kind.lower()}/{o.name}",
            ev.message)


def _event_state(ev: Any) -> str:
    return "warning" if ev.type == "Warning" else "ok"


# -- the table ---------------------------------------------------------------------------------

def _ns_name(obj: Any) -> tuple[str, str]:
    return (obj.metadata.namespace, obj.metadata.name)


def _ok(obj: Any) -> str:
    return "ok"


@attrs.frozen
class RowSpec:
    kind: str
    columns: tuple[str, ...]
    cells: Callable[[Any, float, Any], Cells]
    sort_keys: dict[str, Callable[[Any], Any]]
    state: Callable[[Any], str] = _ok
    search: Callable[[Any], str] = lambda o: f"{o.metadata.namespace}/{o.metadata.name}"
    key: Callable[[Any], tuple[str, str]] = _ns_name

    @property
    def resource(self) -> str:
        return BY_KIND[self.kind].resource

    @property
    def namespaced(self) -> bool:
        return BY_KIND[self.kind].namespaced


def _name(o: Any) -> str:
    return o.metadata.name


SPECS: dict[str, RowSpec] = {
    "Node": RowSpec(
        "Node", ("NAME", "STATUS", "ROLES", "TAINTS", "AGE", "VERSION"), _node_cells,
        {"NAME": _name, "STATUS": node_status, "ROLES": node_roles,
         "TAINTS": lambda n: len(n.spec.taints), "AGE": _age_key},
        node_state,
        search=lambda n: " ".join((n.name, node_status(n), node_roles(n),
                                   *(t.to_string() for t in n.spec.taints)))),
    "Pod": RowSpec(
        "Pod", ("NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"),
        _pod_cells,
        {"NAMESPACE": _ns_name, "NAME": _name, "STATUS": lambda p: pod_status(p),
         "AGE": _age_key, "NODE": lambda p: p.spec.node_name},
        pod_state,
        search=lambda p: (f"{p.metadata.namespace}/{p.metadata.name} {p.status.phase} "
                          f"{p.spec.node_name}")),
    "Deployment": RowSpec(
        "Deployment", ("NAMESPACE", "NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"),
        _deploy_cells, {"NAMESPACE": _ns_name, "NAME": _name, "AGE": _age_key}, _deploy_state),
    "ReplicaSet": RowSpec(
        "ReplicaSet", ("NAMESPACE", "NAME", "DESIRED", "CURRENT", "READY", "AGE"), _rs_cells,
        {"NAMESPACE": _ns_name, "NAME": _name, "AGE": _age_key}, _rs_state),
    "DaemonSet": RowSpec(
        "DaemonSet", ("NAMESPACE", "NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE",
                      "AVAILABLE", "NODE SELECTOR", "AGE"),
        _ds_cells, {"NAMESPACE": _ns_name, "NAME": _name, "AGE": _age_key}, _ds_state),
    "HorizontalPodAutoscaler": RowSpec(
        "HorizontalPodAutoscaler", ("NAMESPACE", "NAME", "REFERENCE", "TARGETS", "MINPODS",
                                    "MAXPODS", "REPLICAS", "AGE"),
        _hpa_cells, {"NAMESPACE": _ns_name, "NAME": _name, "AGE": _age_key}),
    "Namespace": RowSpec("Namespace", ("NAME", "STATUS", "AGE"), _ns_cells,
                         {"NAME": _name, "AGE": _age_key}),
    "PodDisruptionBudget": RowSpec(
        "PodDisruptionBudget", ("NAMESPACE", "NAME", "MIN AVAILABLE", "MAX UNAVAILABLE",
                                "ALLOWED DISRUPTIONS", "AGE"),
        _pdb_cells, {"NAMESPACE": _ns_name, "NAME": _name, "AGE": _age_key}),
    "PriorityClass": RowSpec(
        "PriorityClass", ("NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"),
        _pc_cells, {"NAME": _name, "VALUE": lambda p: p.value, "AGE": _age_key}),
    "Event": RowSpec(
        "Event", ("NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"),
        _event_cells,
        {"LAST SEEN": lambda e: -e.last_timestamp, "TYPE": lambda e: e.type,
         "REASON": lambda e: e.reason,
         "OBJECT": lambda e: (e.involved_object.kind, e.involved_object.name)},
        _event_state,
        search=lambda e: (f"{e.type} {e.reason} {e.involved_object.kind.lower()}/"
                          f"{e.involved_object.name} {e.message}"),
        key=lambda e: (e.metadata.namespace, e.metadata.name)),
}


def spec_for(kind: str) -> RowSpec:
    return SPECS[kind]
