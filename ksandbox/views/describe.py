"""``kubectl describe``: the text for one object, section by section as kubectl prints it.

``describe(obj, store, now)`` picks the describer for the object's kind. Nodes and pods are
here (describeNode and describePod in ``kubernetes/kubectl`` ``pkg/describe/describe.go``),
the workloads and the smaller kinds in ``describe_workloads.py``. Sections the sandbox has no
data for are printed as kubectl prints them empty (``System Info`` with blank IDs); the node's
``Lease`` section reads the node's Lease in ``kube-node-lease``. Leases and VPAs have no
describer of their own in kubectl: its generic describer (``describe_generic.py``).

Pure: reads objects, the store's pods and events, and ``now``. Not here: choosing which objects
to describe (``ksandbox.commands.describe``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..api.coordination import NAMESPACE_NODE_LEASE
from .age import age
from .describe_base import (
    LEVEL_0,
    LEVEL_1,
    Writer,
    annotations_multiline,
    containers,
    describe_events,
    labels_multiline,
    pod_requests_limits,
    taints_multiline,
    tolerations_multiline,
    topology_spread,
    volumes,
)
from .printers import node_roles
from .timefmt import rfc1123z

if TYPE_CHECKING:
    from ..api.core import Node, Pod
    from ..apiserver.store import Store


def describe(obj: Any, store: Store, now: float, show_events: bool = True) -> str:
    from . import describe_workloads as wl
    from .describe_generic import describe_generic
    from .describe_objects import DESCRIBERS

    fn = DESCRIBERS.get(obj.kind) or {"Node": describe_node, "Pod": describe_pod,
          "Deployment": wl.describe_deployment, "ReplicaSet": wl.describe_replicaset,
          "ReplicationController": wl.describe_replicaset,
          "DaemonSet": wl.describe_daemonset,
          "HorizontalPodAutoscaler": wl.describe_hpa,
          "PodDisruptionBudget": wl.describe_pdb, "PriorityClass": wl.describe_priority_class,
          "Namespace": wl.describe_namespace, "Event": wl.describe_event,
          # kubectl has no describer of its own for these: its generic describer.
          "VerticalPodAutoscaler": describe_generic, "Lease": describe_generic}.get(
        obj.kind, describe_generic)
    return fn(obj, store, now, show_events)


def object_events(store: Store, obj: Any, show_events: bool) -> list[Any] | None:
    if not show_events:
        return None
    return store.events_for(obj.kind, obj.metadata.name, obj.metadata.namespace)


# -- pod --------------------------------------------------------------------------------------

def describe_pod(pod: Pod, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    meta, spec, status = pod.metadata, pod.spec, pod.status
    w.write(LEVEL_0, f"Name:\t{meta.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{meta.namespace}\n")
    if spec.priority is not None:
        w.write(LEVEL_0, f"Priority:\t{spec.priority}\n")
    if spec.priority_class_name:
        w.write(LEVEL_0, f"Priority Class Name:\t{spec.priority_class_name}\n")
    if spec.extra.get("serviceAccountName"):
        w.write(LEVEL_0, f"Service Account:\t{spec.extra['serviceAccountName']}\n")
    if not spec.node_name:
        w.write(LEVEL_0, "Node:\t<none>\n")
    else:
        w.write(LEVEL_0, f"Node:\t{spec.node_name}/{status.host_ip}\n")
    if isinstance(status.start_time, (int, float)):
        w.write(LEVEL_0, f"Start Time:\t{rfc1123z(status.start_time)}\n")
    labels_multiline(w, "Labels", meta.labels)
    annotations_multiline(w, "Annotations", meta.annotations)
    if meta.deletion_timestamp is not None and status.phase not in ("Failed", "Succeeded"):
        # kubectl ages the (future) deletion deadline, hence its famous "<invalid>".
        w.write(LEVEL_0, f"Status:\tTerminating (lasts {age(meta.deletion_timestamp, now)})\n")
        w.write(LEVEL_0, f"Termination Grace Period:\t{meta.deletion_grace_period_seconds or 0}s\n")
    else:
        w.write(LEVEL_0, f"Status:\t{status.phase}\n")
    if status.reason:
        w.write(LEVEL_0, f"Reason:\t{status.reason}\n")
    if status.message:
        w.write(LEVEL_0, f"Message:\t{status.message}\n")
    w.write(LEVEL_0, f"IP:\t{status.pod_ip}\n")
    if status.pod_ip:
        w.write(LEVEL_0, "IPs:\n")
        w.write(LEVEL_1, f"IP:\t{status.pod_ip}\n")
    else:
        w.write(LEVEL_0, "IPs:\t<none>\n")
    ref = meta.controller_ref()
    if ref is not None:
        w.write(LEVEL_0, f"Controlled By:\t{ref.kind}/{ref.name}\n")
    if status.nominated_node_name:
        w.write(LEVEL_0, f"NominatedNodeName:\t{status.nominated_node_name}\n")
    if spec.init_containers:
        containers(w, "Init Containers", spec.init_containers)
    statuses = pod.status.extra.get("containerStatuses") or ()
    if status.phase in ("Succeeded", "Failed") and any(
            isinstance(s, dict) and (s.get("state") or {}).get("running") for s in statuses):
        # a stopped pod whose last statuses still say running (the sandbox's kubelet leaves
        # an evicted pod's in place): not claimed as running, no state shown
        statuses = ()
    containers(w, "Containers", spec.containers, statuses=statuses)
    if status.conditions:
        w.write(LEVEL_0, "Conditions:\n  Type\tStatus\n")
        for c in status.conditions:
            w.write(LEVEL_1, f"{c.type} \t{c.status} \n")
    volumes(w, spec.volumes)
    w.write(LEVEL_0, f"QoS Class:\t{status.qos_class or spec.qos_class}\n")
    labels_multiline(w, "Node-Selectors", spec.node_selector)
    tolerations_multiline(w, "Tolerations", spec.tolerations)
    topology_spread(w, spec.topology_spread_constraints)
    events = object_events(store, pod, show_events)
    if events is not None:
        describe_events(w, events, now)
    return w.render()


# -- node -------------------------------------------------------------------------------------

def _resource_list(w: Writer, resources: Any) -> None:
    for name in sorted(resources):
        w.write(LEVEL_0, f"  {name}:\t{resources[name]}\n")


def _pct(part: Any, whole: Any, milli: bool) -> int:
    total = whole.milli_value() if milli else whole.value()
    if total == 0:
        return 0
    value = part.milli_value() if milli else part.value()
    return int(value / total * 100)


def _node_resources(w: Writer, node: Node, pods: list[Any], now: float) -> None:
    """describeNodeResource: the non-terminated pods' requests and limits, as cells like
    ``100m (2%)``, then their totals under ``Allocated resources``."""
    from ..api.quantity import ZERO

    alloc = node.status.allocatable or node.status.capacity
    cpu_alloc, mem_alloc = alloc.get("cpu", ZERO), alloc.get("memory", ZERO)
    w.write(LEVEL_0, f"Non-terminated Pods:\t({len(pods)} in total)\n")
    w.write(LEVEL_1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\t"
                     "Memory Limits\tAge\n")
    w.write(LEVEL_1, "---------\t----\t\t------------\t----------\t---------------\t"
                     "-------------\t---\n")
    total_req: dict[str, Any] = {}
    total_lim: dict[str, Any] = {}
    for pod in pods:
        req, lim = pod_requests_limits(pod.spec)
        for src, dst in ((req, total_req), (lim, total_lim)):
            for name, q in src.items():
                dst[name] = dst[name] + q if name in dst else q
        cr, cl = req.get("cpu", ZERO), lim.get("cpu", ZERO)
        mr, ml = req.get("memory", ZERO), lim.get("memory", ZERO)
        w.write(LEVEL_1, f"{pod.metadata.namespace}\t{pod.metadata.name}\t\t"
                         f"{cr} ({_pct(cr, cpu_alloc, True)}%)\t"
                         f"{cl} ({_pct(cl, cpu_alloc, True)}%)\t"
                         f"{mr} ({_pct(mr, mem_alloc, False)}%)\t"
                         f"{ml} ({_pct(ml, mem_alloc, False)}%)\t"
                         f"{age(pod.metadata.creation_timestamp, now)}\n")
    w.write(LEVEL_0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., "
                     "overcommitted.)\n")
    w.write(LEVEL_1, "Resource\tRequests\tLimits\n")
    w.write(LEVEL_1, "--------\t--------\t------\n")
    for name in ("cpu", "memory", "ephemeral-storage"):
        r, l = total_req.get(name, ZERO), total_lim.get(name, ZERO)
        whole = alloc.get(name, ZERO)
        milli = name == "cpu"
        w.write(LEVEL_1, f"{name}\t{r} ({_pct(r, whole, milli)}%)\t"
                         f"{l} ({_pct(l, whole, milli)}%)\n")
    standard = {"cpu", "memory", "ephemeral-storage", "pods"}
    for name in sorted(n for n in alloc if n.startswith("hugepages-")):
        r, l, whole = total_req.get(name, ZERO), total_lim.get(name, ZERO), alloc[name]
        w.write(LEVEL_1, f"{name}\t{r} ({_pct(r, whole, False)}%)\t"
                         f"{l} ({_pct(l, whole, False)}%)\n")
    for name in sorted(n for n in alloc if n not in standard and not n.startswith("hugepages-")):
        w.write(LEVEL_1, f"{name}\t{total_req.get(name, ZERO)}\t{total_lim.get(name, ZERO)}\n")


def describe_node(node: Node, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    meta, spec, status = node.metadata, node.spec, node.status
    w.write(LEVEL_0, f"Name:\t{meta.name}\n")
    w.write(LEVEL_0, f"Roles:\t{','.join(node_roles(node)) or '<none>'}\n")
    labels_multiline(w, "Labels", meta.labels)
    annotations_multiline(w, "Annotations", meta.annotations)
    w.write(LEVEL_0, f"CreationTimestamp:\t{rfc1123z(meta.creation_timestamp)}\n")
    taints_multiline(w, "Taints", spec.taints)
    w.write(LEVEL_0, f"Unschedulable:\t{'true' if spec.unschedulable else 'false'}\n")
    # describe.go NodeDescriber: the node's Lease in kube-node-lease, "<unset>" for what the
    # Lease (or a missing Lease) does not have.
    lease = store.get("Lease", meta.name, NAMESPACE_NODE_LEASE)
    lspec = lease.spec if lease is not None else None
    w.write(LEVEL_0, "Lease:\n")
    w.write(LEVEL_1, f"HolderIdentity:\t{(lspec and lspec.holder_identity) or '<unset>'}\n")
    for title, t in (("AcquireTime", lspec.acquire_time if lspec else None),
                     ("RenewTime", lspec.renew_time if lspec else None)):
        shown = rfc1123z(t) if isinstance(t, (int, float)) and not isinstance(t, bool) \
            else "<unset>"
        w.write(LEVEL_1, f"{title}:\t{shown}\n")
    if status.conditions:
        w.write(LEVEL_0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\t"
                         "Reason\tMessage\n")
        w.write(LEVEL_1, "----\t------\t-----------------\t------------------\t------\t-------\n")
        for c in status.conditions:
            hb = c.last_heartbeat_time if isinstance(c.last_heartbeat_time, (int, float)) else None
            tr = c.last_transition_time if isinstance(c.last_transition_time, (int, float)) \
                else None
            w.write(LEVEL_1, f"{c.type} \t{c.status} \t{rfc1123z(hb)} \t{rfc1123z(tr)} \t"
                             f"{c.reason} \t{c.message}\n")
    w.write(LEVEL_0, "Addresses:\n")
    for a in status.addresses:
        w.write(LEVEL_1, f"{a.type}:\t{a.address}\n")
    if status.capacity:
        w.write(LEVEL_0, "Capacity:\n")
        _resource_list(w, status.capacity)
    if status.allocatable:
        w.write(LEVEL_0, "Allocatable:\n")
        _resource_list(w, status.allocatable)
    info = status.node_info
    w.write(LEVEL_0, "System Info:\n")
    for title, value in (("Machine ID", info.extra.get("machineID", "")),
                         ("System UUID", info.extra.get("systemUUID", "")),
                         ("Boot ID", info.extra.get("bootID", "")),
                         ("Kernel Version", info.kernel_version),
                         ("OS Image", info.os_image),
                         ("Operating System", info.operating_system),
                         ("Architecture", info.architecture),
                         ("Container Runtime Version", info.container_runtime_version),
                         ("Kubelet Version", info.kubelet_version),
                         ("Kube-Proxy Version", info.extra.get("kubeProxyVersion", ""))):
        w.write(LEVEL_0, f"  {title}:\t{value}\n")
    if spec.pod_cidr:
        w.write(LEVEL_0, f"PodCIDR:\t{spec.pod_cidr}\n")
    # The API server defaults spec.podCIDRs to [podCIDR] (SetDefaults_NodeSpec).
    cidrs = spec.extra.get("podCIDRs") or ((spec.pod_cidr,) if spec.pod_cidr else ())
    if cidrs:
        w.write(LEVEL_0, f"PodCIDRs:\t{','.join(cidrs)}\n")
    if spec.provider_id:
        w.write(LEVEL_0, f"ProviderID:\t{spec.provider_id}\n")
    pods = sorted((p for p in store.pods_on_node(meta.name) if not p.is_terminated),
                  key=lambda p: (p.metadata.namespace, p.metadata.name))
    _node_resources(w, node, pods, now)
    events = object_events(store, node, show_events)
    if events is not None:
        describe_events(w, events, now)
    return w.render()
