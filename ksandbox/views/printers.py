"""``kubectl get`` tables: the columns and cells of every kind the sandbox models.

Each kind has a list of columns (the ``-o wide`` ones marked) and a function turning one object
into its cells, ported from ``kubernetes/kubernetes`` ``pkg/printers/internalversion/printers.go``
(printNode, printPod, printDeployment, printReplicaSet, printDaemonSet,
printHorizontalPodAutoscaler, printPodDisruptionBudget, printPriorityClass, printNamespace,
printLease, printEvent), plus the VerticalPodAutoscaler CRD's printer columns. ``render_table`` adds what
``kubectl get`` adds around them: the NAMESPACE column with ``-A``, LABELS with
``--show-labels``, ``kind/`` name prefixes when several kinds are listed, and the tabwriter
layout.

Pure: objects and a ``now`` in, text out. Not here: ``-o yaml/json/name`` (``serialize.py``),
``describe`` (``describe.py``), and anything about which objects to list (the commands do that).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import attrs

from ..api.kinds import BY_KIND
from . import printers_objects
from .age import age
from .table import format_table
from .timefmt import sim_seconds

if TYPE_CHECKING:
    from ..api.core import Node, Pod

NONE = "<none>"
# printers.go: the node-role label prefix and the legacy role label.
LABEL_NODE_ROLE_PREFIX = "node-role.kubernetes.io/"
LABEL_NODE_ROLE = "kubernetes.io/role"
# pkg/util/node: the reason the node lifecycle controller gives pods of an unreachable node.
NODE_UNREACHABLE_POD_REASON = "NodeLost"


@attrs.frozen
class Column:
    name: str
    wide: bool = False


@attrs.frozen
class PrintOptions:
    wide: bool = False
    with_namespace: bool = False     # -A: a NAMESPACE column first
    show_labels: bool = False        # --show-labels: a LABELS column last
    no_headers: bool = False
    kind_prefix: bool = False        # several kinds in one get: NAME is "pod/web-1"
    label_columns: tuple[str, ...] = ()  # -L: one column per label key, before LABELS


def format_labels(labels: Any) -> str:
    """labels.FormatLabels: ``k=v,k2=v2`` sorted by key, ``<none>`` when empty."""
    if not labels:
        return NONE
    return ",".join(f"{k}={labels[k]}" for k in sorted(labels))


def _none(value: Any) -> str:
    return str(value) if value not in (None, "") else NONE


# -- nodes ------------------------------------------------------------------------------------

def node_roles(node: Node) -> list[str]:
    """findNodeRoles: ``node-role.kubernetes.io/<role>`` keys and ``kubernetes.io/role``."""
    roles = set()
    for k, v in node.metadata.labels.items():
        if k.startswith(LABEL_NODE_ROLE_PREFIX):
            role = k[len(LABEL_NODE_ROLE_PREFIX):]
            if role:
                roles.add(role)
        elif k == LABEL_NODE_ROLE and v:
            roles.add(v)
    return sorted(roles)


def node_status(node: Node) -> str:
    """``Ready``, ``NotReady`` (Ready False *or* Unknown), ``Unknown`` (no Ready condition),
    plus ``,SchedulingDisabled`` when cordoned."""
    cond = node.status.condition("Ready")
    status = []
    if cond is not None:
        status.append("Ready" if cond.status == "True" else "NotReady")
    else:
        status.append("Unknown")
    if node.spec.unschedulable:
        status.append("SchedulingDisabled")
    return ",".join(status)


def node_address(node: Node, kind: str) -> str:
    for a in node.status.addresses:
        if a.type == kind:
            return a.address
    return NONE


def _node_row(node: Node, now: float, wide: bool) -> list[str]:
    info = node.status.node_info
    cells = [node.name, node_status(node), ",".join(node_roles(node)) or NONE,
             age(node.metadata.creation_timestamp, now), info.kubelet_version]
    if wide:
        cells += [node_address(node, "InternalIP"), node_address(node, "ExternalIP"),
                  info.os_image or "<unknown>", info.kernel_version or "<unknown>",
                  info.container_runtime_version or "<unknown>"]
    return cells


# -- pods -------------------------------------------------------------------------------------

def _container_statuses(pod: Pod) -> list[Any]:
    # The pod type keeps containerStatuses (if a kubelet wrote any) as plain data in extra.
    raw = pod.status.extra.get("containerStatuses") or ()
    return [s for s in raw if isinstance(s, dict)]


def _count(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0   # (a loaded export's count of another shape)


def _mapping(value: Any) -> Any:
    """A state's part as a mapping (a loaded export's odd value, a string, reads as set but
    empty)."""
    return value if isinstance(value, dict) or value is None else {}


def _terminal(pod: Pod) -> bool:
    return pod.status.phase in ("Succeeded", "Failed")


def _pod_containers(pod: Pod) -> tuple[int, int, str | None, bool]:
    """printPod's walk over the container statuses (last to first): (ready containers,
    restarts, the reason a waiting or terminated container gives, whether one is running).

    A container counts as ready only when it is ready *and* running with no waiting or
    terminated reason. The sandbox's kubelet leaves a stopped pod's last statuses in place;
    in a terminal phase its containers have all terminated, so a status still claiming to run
    is read as terminated — not ready, and ``Completed`` (exit 0) for a Succeeded pod, as a
    real kubelet's terminated state would say."""
    ready = restarts = 0
    reason: str | None = None
    has_running = False
    statuses = _container_statuses(pod)
    terminal = _terminal(pod)
    if terminal and pod.status.phase == "Succeeded" and not any(
            (s.get("state") or {}).get("terminated") for s in statuses):
        reason = "Completed"
    for s in reversed(statuses):
        restarts += _count(s.get("restartCount"))
        state = s.get("state")
        if not isinstance(state, dict):
            state = {}
        waiting, terminated, running = (_mapping(state.get("waiting")),
                                        _mapping(state.get("terminated")), state.get("running"))
        if waiting and waiting.get("reason"):
            reason = waiting["reason"]
        elif terminated is not None and terminated.get("reason"):
            reason = terminated["reason"]
        elif terminated is not None:
            if terminated.get("signal"):
                reason = f"Signal:{terminated['signal']}"
            else:
                reason = f"ExitCode:{terminated.get('exitCode', 0)}"
        elif terminal:
            continue
        elif s.get("ready") and running is not None:
            has_running = True
            ready += 1
    return ready, restarts, reason, has_running


def pod_ready_counts(pod: Pod) -> tuple[int, int, int]:
    """(ready containers, containers, restarts), as printPod counts them. Without container
    statuses, a Running pod whose Ready condition is not False counts all its containers
    ready (the sandbox's kubelet may not have written statuses yet)."""
    total = len(pod.spec.containers)
    if _container_statuses(pod):
        ready, restarts, _reason, _running = _pod_containers(pod)
        return ready, total, restarts
    cond = pod.status.condition("Ready")
    running = pod.status.phase == "Running" and pod.metadata.deletion_timestamp is None
    ready = total if running and (cond is None or cond.status == "True") else 0
    return ready, total, 0


def pod_status(pod: Pod) -> str:
    """printPod's STATUS: the phase, or the pod's reason (``Evicted``), or a container's
    waiting/terminated reason (``CrashLoopBackOff``, ``Completed`` for a Succeeded pod);
    ``Terminating`` once a deletion of a non-terminal pod is under way; ``Unknown`` for a pod
    of a lost node that is being deleted."""
    phase = pod.status.phase or "Pending"
    reason = pod.status.reason or phase
    for c in pod.status.conditions:
        if c.type == "PodScheduled" and c.reason == "SchedulingGated":
            reason = "SchedulingGated"
    _ready, _restarts, container_reason, has_running = _pod_containers(pod)
    if container_reason:
        reason = container_reason
    if reason == "Completed" and has_running:
        cond = pod.status.condition("Ready")
        reason = "Running" if cond is not None and cond.status == "True" else "NotReady"
    if pod.metadata.deletion_timestamp is not None:
        if pod.status.reason == NODE_UNREACHABLE_POD_REASON:
            return "Unknown"
        if not _terminal(pod):
            return "Terminating"
    return reason


def pod_restarts(pod: Pod, now: float) -> str:
    """printPod's RESTARTS: the containers' restarts, and how long ago the latest one's last
    instance finished (``1 (5s ago)``) when a container's last state says."""
    restarts = 0
    last: float | None = None
    for s in _container_statuses(pod):
        restarts += _count(s.get("restartCount"))
        last_state = s.get("lastState")
        terminated = last_state.get("terminated") if isinstance(last_state, dict) else None
        if isinstance(terminated, dict):
            at = sim_seconds(terminated.get("finishedAt"))
            if at is not None and (last is None or at > last):
                last = at
    if restarts and last is not None:
        return f"{restarts} ({age(last, now)} ago)"
    return str(restarts)


def _pod_row(pod: Pod, now: float, wide: bool) -> list[str]:
    ready, total, _restarts = pod_ready_counts(pod)
    cells = [pod.metadata.name, f"{ready}/{total}", pod_status(pod), pod_restarts(pod, now),
             age(pod.metadata.creation_timestamp, now)]
    if wide:
        gates = pod.spec.extra.get("readinessGates") or ()
        gate_text = NONE
        if gates:
            ok = sum(1 for g in gates if (c := pod.status.condition(g.get("conditionType", "")))
                     is not None and c.status == "True")
            gate_text = f"{ok}/{len(gates)}"
        cells += [_none(pod.status.pod_ip), _none(pod.spec.node_name),
                  _none(pod.status.nominated_node_name), gate_text]
    return cells


# -- workloads --------------------------------------------------------------------------------

def _containers_images(spec: Any) -> list[str]:
    return [",".join(c.name for c in spec.containers), ",".join(c.image for c in spec.containers)]


def _selector(sel: Any) -> str:
    if sel is None:
        return NONE
    return str(sel) or NONE


def _deployment_row(d: Any, now: float, wide: bool) -> list[str]:
    desired = d.spec.replicas if d.spec.replicas is not None else 1
    cells = [d.metadata.name, f"{d.status.ready_replicas}/{desired}",
             str(d.status.updated_replicas), str(d.status.available_replicas),
             age(d.metadata.creation_timestamp, now)]
    if wide:
        cells += _containers_images(d.spec.template.spec) + [_selector(d.spec.selector)]
    return cells


def _replicaset_row(rs: Any, now: float, wide: bool) -> list[str]:
    desired = rs.spec.replicas if rs.spec.replicas is not None else 1
    cells = [rs.metadata.name, str(desired), str(rs.status.replicas),
             str(rs.status.ready_replicas), age(rs.metadata.creation_timestamp, now)]
    if wide:
        sel = rs.spec.selector
        sel_text = format_labels(sel) if rs.kind == "ReplicationController" else _selector(sel)
        cells += _containers_images(rs.spec.template.spec) + [sel_text]
    return cells


def _daemonset_row(ds: Any, now: float, wide: bool) -> list[str]:
    s = ds.status
    cells = [ds.metadata.name, str(s.desired_number_scheduled), str(s.current_number_scheduled),
             str(s.number_ready), str(s.updated_number_scheduled), str(s.number_available),
             format_labels(ds.spec.template.spec.node_selector),
             age(ds.metadata.creation_timestamp, now)]
    if wide:
        cells += _containers_images(ds.spec.template.spec) + [_selector(ds.spec.selector)]
    return cells


# -- autoscaling, policy, scheduling, namespaces, events --------------------------------------

def hpa_metric_specs(hpa: Any) -> list[Any]:
    """spec.metrics, with v1's targetCPUUtilizationPercentage as the Resource metric it is."""
    specs = list(hpa.spec.metrics)
    if not specs and hpa.spec.target_cpu_utilization_percentage is not None:
        specs = [{"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization",
            "averageUtilization": hpa.spec.target_cpu_utilization_percentage}}}]
    return specs


def hpa_metric_statuses(hpa: Any) -> list[Any]:
    statuses = list(hpa.status.extra.get("currentMetrics") or ())
    if not statuses and hpa.status.current_cpu_utilization_percentage is not None:
        statuses = [{"type": "Resource", "resource": {"name": "cpu", "current": {
            "averageUtilization": hpa.status.current_cpu_utilization_percentage}}}]
    return statuses


def hpa_targets(hpa: Any) -> str:
    """formatHPAMetrics for Resource metrics: ``cpu: 45%/80%``, ``cpu: <unknown>/80%``,
    ``memory: 100Mi/200Mi``; at most two, then `` + N more...``; ``<none>`` without metrics."""
    specs = hpa_metric_specs(hpa)
    if not specs:
        return NONE
    statuses = hpa_metric_statuses(hpa)
    items = []
    for i, spec in enumerate(specs):
        res = spec.get("resource") if spec.get("type") == "Resource" else None
        if not res:
            # Pods/Object/External metrics have no source in the sandbox's metrics emulator.
            items.append("<unknown>")
            continue
        target = res.get("target") or {}
        cur = {}
        if i < len(statuses) and (statuses[i].get("resource") or None):
            cur = statuses[i]["resource"].get("current") or {}
        if target.get("averageValue") is not None:
            current = str(cur["averageValue"]) if cur.get("averageValue") is not None \
                else "<unknown>"
            items.append(f"{current}/{target['averageValue']}")
        else:
            current = f"{cur['averageUtilization']}%" if cur.get("averageUtilization") \
                is not None else "<unknown>"
            want = f"{target['averageUtilization']}%" if target.get("averageUtilization") \
                is not None else "<auto>"
            items.append(f"{res.get('name')}: {current}/{want}")
    if len(items) > 2:
        return ", ".join(items[:2]) + f" + {len(items) - 2} more..."
    return ", ".join(items)


def _hpa_row(hpa: Any, now: float, wide: bool) -> list[str]:
    ref = hpa.spec.scale_target_ref
    min_pods = str(hpa.spec.min_replicas) if hpa.spec.min_replicas is not None else "<unset>"
    return [hpa.metadata.name, f"{ref.kind}/{ref.name}", hpa_targets(hpa), min_pods,
            str(hpa.spec.max_replicas), str(hpa.status.current_replicas),
            age(hpa.metadata.creation_timestamp, now)]


def _pdb_row(pdb: Any, now: float, wide: bool) -> list[str]:
    s = pdb.spec
    return [pdb.metadata.name, "N/A" if s.min_available is None else str(s.min_available),
            "N/A" if s.max_unavailable is None else str(s.max_unavailable),
            str(pdb.status.disruptions_allowed), age(pdb.metadata.creation_timestamp, now)]


def _priority_class_row(pc: Any, now: float, wide: bool) -> list[str]:
    return [pc.metadata.name, str(pc.value), "true" if pc.global_default else "false",
            age(pc.metadata.creation_timestamp, now),
            pc.preemption_policy or "PreemptLowerPriority"]


def _namespace_row(ns: Any, now: float, wide: bool) -> list[str]:
    return [ns.metadata.name, ns.status.phase or "Active", age(ns.metadata.creation_timestamp, now)]


def _vpa_row(vpa: Any, now: float, wide: bool) -> list[str]:
    """The VPA CRD's additionalPrinterColumns (.spec.updatePolicy.updateMode, the first
    container's target cpu and memory, the RecommendationProvided condition); a value the
    object does not have prints as <none>, as for every CRD column."""
    up = vpa.spec.update_policy
    mode = up.update_mode if up is not None and up.update_mode else NONE
    rec = vpa.status.recommendation
    first = rec.container_recommendations[0] if rec is not None and \
        rec.container_recommendations else None
    cpu = first.target.get("cpu") if first is not None else None
    mem = first.target.get("memory") if first is not None else None
    cond = vpa.condition("RecommendationProvided")
    return [vpa.metadata.name, mode, str(cpu) if cpu is not None else NONE,
            str(mem) if mem is not None else NONE, cond.status if cond is not None else NONE,
            age(vpa.metadata.creation_timestamp, now)]


def _lease_row(lease: Any, now: float, wide: bool) -> list[str]:
    """printLease: the name, spec.holderIdentity (empty when unset) and the age."""
    return [lease.metadata.name, lease.spec.holder_identity or "",
            age(lease.metadata.creation_timestamp, now)]


def event_object(ev: Any) -> str:
    o = ev.involved_object
    return f"{o.kind.lower()}/{o.name}" if o.name else o.kind.lower()


def _event_row(ev: Any, now: float, wide: bool) -> list[str]:
    first = age(ev.first_timestamp, now)
    last = age(ev.last_timestamp, now) if ev.last_timestamp else first
    if wide:
        return [last, ev.type, ev.reason, event_object(ev),
                ev.involved_object.extra.get("fieldPath", ""), ev.source_component,
                ev.message.strip(), first, str(ev.count or 1), ev.metadata.name]
    return [last, ev.type, ev.reason, event_object(ev), ev.message.strip()]


# -- the table of tables ----------------------------------------------------------------------

_W = True
TABLES: dict[str, tuple[list[Column], Callable[[Any, float, bool], list[str]]]] = {
    "Node": ([Column("NAME"), Column("STATUS"), Column("ROLES"), Column("AGE"),
              Column("VERSION"), Column("INTERNAL-IP", _W), Column("EXTERNAL-IP", _W),
              Column("OS-IMAGE", _W), Column("KERNEL-VERSION", _W),
              Column("CONTAINER-RUNTIME", _W)], _node_row),
    "Pod": ([Column("NAME"), Column("READY"), Column("STATUS"), Column("RESTARTS"),
             Column("AGE"), Column("IP", _W), Column("NODE", _W), Column("NOMINATED NODE", _W),
             Column("READINESS GATES", _W)], _pod_row),
    "Deployment": ([Column("NAME"), Column("READY"), Column("UP-TO-DATE"), Column("AVAILABLE"),
                    Column("AGE"), Column("CONTAINERS", _W), Column("IMAGES", _W),
                    Column("SELECTOR", _W)], _deployment_row),
    "ReplicaSet": ([Column("NAME"), Column("DESIRED"), Column("CURRENT"), Column("READY"),
                    Column("AGE"), Column("CONTAINERS", _W), Column("IMAGES", _W),
                    Column("SELECTOR", _W)], _replicaset_row),
    "DaemonSet": ([Column("NAME"), Column("DESIRED"), Column("CURRENT"), Column("READY"),
                   Column("UP-TO-DATE"), Column("AVAILABLE"), Column("NODE SELECTOR"),
                   Column("AGE"), Column("CONTAINERS", _W), Column("IMAGES", _W),
                   Column("SELECTOR", _W)], _daemonset_row),
    "HorizontalPodAutoscaler": ([Column("NAME"), Column("REFERENCE"), Column("TARGETS"),
                                 Column("MINPODS"), Column("MAXPODS"), Column("REPLICAS"),
                                 Column("AGE")], _hpa_row),
    "VerticalPodAutoscaler": ([Column("NAME"), Column("MODE"), Column("CPU"), Column("MEM"),
                               Column("PROVIDED"), Column("AGE")], _vpa_row),
    "PodDisruptionBudget": ([Column("NAME"), Column("MIN AVAILABLE"), Column("MAX UNAVAILABLE"),
                             Column("ALLOWED DISRUPTIONS"), Column("AGE")], _pdb_row),
    "PriorityClass": ([Column("NAME"), Column("VALUE"), Column("GLOBAL-DEFAULT"), Column("AGE"),
                       Column("PREEMPTIONPOLICY")], _priority_class_row),
    "Namespace": ([Column("NAME"), Column("STATUS"), Column("AGE")], _namespace_row),
    "Lease": ([Column("NAME"), Column("HOLDER"), Column("AGE")], _lease_row),
    "Event": ([Column("LAST SEEN"), Column("TYPE"), Column("REASON"), Column("OBJECT"),
               Column("SUBOBJECT", _W), Column("SOURCE", _W), Column("MESSAGE"),
               Column("FIRST SEEN", _W), Column("COUNT", _W), Column("NAME", _W)], _event_row),
}
TABLES["ReplicationController"] = TABLES["ReplicaSet"]
TABLES.update(printers_objects.tables(Column))  # Services, storage, RBAC, batch, ...


def headers(kind: str, wide: bool = False) -> list[str]:
    cols, _ = TABLES[kind]
    return [c.name for c in cols if wide or not c.wide]


def row(kind: str, obj: Any, now: float, wide: bool = False) -> list[str]:
    _, fn = TABLES[kind]
    return fn(obj, now, wide)


def table_rows(kind: str, objects: Iterable[Any], now: float,
               options: PrintOptions = PrintOptions()) -> list[list[str]]:
    """Header plus one row per object, with the extra columns ``options`` ask for."""
    namespaced = BY_KIND[kind].namespaced
    with_ns = options.with_namespace and namespaced
    rows: list[list[str]] = []
    if not options.no_headers:
        head = headers(kind, options.wide)
        if with_ns:
            head = ["NAMESPACE"] + head
        # formatLabelHeaders: the key's last path segment, upper case.
        head = head + [k.split("/")[-1].upper() for k in options.label_columns]
        if options.show_labels:
            head = head + ["LABELS"]
        rows.append(head)
    prefix = BY_KIND[kind].qualified + "/" if options.kind_prefix else ""
    for obj in objects:
        cells = row(kind, obj, now, options.wide)
        if prefix and kind != "Event":
            cells = [prefix + cells[0]] + cells[1:]
        if with_ns:
            cells = [obj.metadata.namespace] + cells
        if options.label_columns:
            labels = obj.metadata.labels
            cells = cells + [labels.get(k, "") for k in options.label_columns]
        if options.show_labels:
            cells = cells + [format_labels(obj.metadata.labels)]
        rows.append(cells)
    return rows


def render_table(kind: str, objects: Sequence[Any], now: float,
                 options: PrintOptions = PrintOptions()) -> str:
    return format_table(table_rows(kind, objects, now, options))
