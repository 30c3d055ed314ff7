"""kubectl get tables, cell by cell (pkg/printers/internalversion/printers.go; printers_test.go
cases for node status, roles and pod status, in our objects' terms)."""

from __future__ import annotations

import attrs
import pytest

from view_helpers import cluster  # noqa: F401

from ksandbox.api.codec import decode
from ksandbox.api.core import Node, Pod
from ksandbox.views.printers import (PrintOptions, hpa_targets, node_roles, node_status,
                                     pod_status, render_table)

NODES = """
apiVersion: v1
kind: Node
metadata: {name: cp-1, labels: {node-role.kubernetes.io/control-plane: ""}}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions: [{type: Ready, status: "True"}]
  addresses: [{type: InternalIP, address: 10.0.0.1}]
  nodeInfo: {kubeletVersion: v1.35.0, osImage: Ubuntu 24.04.1 LTS,
             kernelVersion: 6.8.0-45-generic, containerRuntimeVersion: containerd://2.0.0}
---
apiVersion: v1
kind: Node
metadata: {name: worker-10}
spec: {unschedulable: true}
status:
  capacity: {cpu: "8", memory: 16Gi, pods: "110"}
  conditions: [{type: Ready, status: "Unknown"}]
  nodeInfo: {kubeletVersion: v1.35.0}
"""


def node(spec: dict) -> Node:
    return decode(Node, {"metadata": {"name": "n"}, **spec})


@pytest.mark.parametrize("spec,want", [
    ({"status": {"conditions": [{"type": "Ready", "status": "True"}]}}, "Ready"),
    ({"status": {"conditions": [{"type": "Ready", "status": "False"}]}}, "NotReady"),
    ({"status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}}, "NotReady"),
    ({"status": {}}, "Unknown"),
    ({"spec": {"unschedulable": True}, "status": {"conditions": [
        {"type": "Ready", "status": "True"}]}}, "Ready,SchedulingDisabled"),
    ({"spec": {"unschedulable": True}}, "Unknown,SchedulingDisabled"),
], ids=["ready", "not ready", "unknown ready is NotReady", "no condition",
        "cordoned", "cordoned without condition"])
def test_node_status(spec, want):
    assert node_status(node(spec)) == want


@pytest.mark.parametrize("labels,want", [
    ({}, []),
    ({"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/etcd": ""},
     ["control-plane", "etcd"]),
    ({"node-role.kubernetes.io/": "x"}, []),
    ({"kubernetes.io/role": "infra"}, ["infra"]),
    ({"kubernetes.io/role": ""}, []),
])
def test_node_roles(labels, want):
    assert node_roles(node({"metadata": {"name": "n", "labels": labels}})) == want


def test_get_nodes_table(cluster):
    cluster.create(NODES)
    cluster.at(3 * 3600 + 5 * 60)
    assert render_table("Node", cluster.store.nodes(), cluster.now) == (
        "NAME        STATUS                        ROLES           AGE    VERSION\n"
        "cp-1        Ready                         control-plane   3h5m   v1.35.0\n"
        "worker-10   NotReady,SchedulingDisabled   <none>          3h5m   v1.35.0\n")


def test_get_nodes_wide_table(cluster):
    cluster.create(NODES)
    out = render_table("Node", cluster.store.nodes(), 95, PrintOptions(wide=True))
    assert out == (
        "NAME        STATUS                        ROLES           AGE   VERSION   INTERNAL-IP"
        "   EXTERNAL-IP   OS-IMAGE             KERNEL-VERSION     CONTAINER-RUNTIME\n"
        "cp-1        Ready                         control-plane   95s   v1.35.0   10.0.0.1   "
        "   <none>        Ubuntu 24.04.1 LTS   6.8.0-45-generic   containerd://2.0.0\n"
        "worker-10   NotReady,SchedulingDisabled   <none>          95s   v1.35.0   <none>     "
        "   <none>        <unknown>            <unknown>          <unknown>\n")


def pod(status: dict | None = None, meta: dict | None = None, containers: int = 1) -> Pod:
    return decode(Pod, {"metadata": {"name": "p", **(meta or {})},
                        "spec": {"containers": [{"name": f"c{i}", "image": "x"}
                                                for i in range(containers)]},
                        "status": status or {}})


@pytest.mark.parametrize("p,want", [
    (pod({"phase": "Pending"}), "Pending"),
    (pod({"phase": "Running"}), "Running"),
    (pod({"phase": "Failed", "reason": "Evicted"}), "Evicted"),
    (pod({"phase": "Running"}, {"deletionTimestamp": 30.0}), "Terminating"),
    (pod({"phase": "Succeeded"}, {"deletionTimestamp": 30.0}), "Completed"),
    (pod({"phase": "Running", "reason": "NodeLost"}, {"deletionTimestamp": 30.0}), "Unknown"),
    (pod({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                              "reason": "SchedulingGated"}]}),
     "SchedulingGated"),
    (pod({"phase": "Pending", "containerStatuses": [
        {"name": "c0", "state": {"waiting": {"reason": "ContainerCreating"}}}]}),
     "ContainerCreating"),
    (pod({"phase": "Running", "containerStatuses": [
        {"name": "c0", "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}),
     "CrashLoopBackOff"),
], ids=["pending", "running", "reason wins", "terminating", "terminal phase is no terminating",
        "lost node", "scheduling gated", "container creating", "crash loop"])
def test_pod_status(p, want):
    assert pod_status(p) == want


def test_get_pods_table_with_namespaces(cluster):
    cluster.create("""
apiVersion: v1
kind: Pod
metadata: {name: web-1}
spec: {nodeName: cp-1, containers: [{name: a, image: x}, {name: b, image: y}]}
""")
    stored = cluster.store.get("Pod", "web-1", "default")
    running = attrs.evolve(stored, status=attrs.evolve(stored.status, phase="Running",
                                                       pod_ip="10.244.0.5"))
    cluster.store.update_status(running)
    cluster.at(330)
    pods = cluster.store.list("Pod")
    assert render_table("Pod", pods, cluster.now, PrintOptions(with_namespace=True)) == (
        "NAMESPACE   NAME    READY   STATUS    RESTARTS   AGE\n"
        "default     web-1   2/2     Running   0          5m30s\n")
    assert render_table("Pod", pods, cluster.now, PrintOptions(wide=True)) == (
        "NAME    READY   STATUS    RESTARTS   AGE     IP           NODE   NOMINATED NODE   "
        "READINESS GATES\n"
        "web-1   2/2     Running   0          5m30s   10.244.0.5   cp-1   <none>           "
        "<none>\n")


def test_restarts_and_readiness_from_container_statuses():
    p = pod({"phase": "Running", "containerStatuses": [
        {"name": "c0", "ready": True, "restartCount": 2, "state": RUNNING},
        {"name": "c1", "ready": False, "restartCount": 1, "state": RUNNING}]}, containers=2)
    out = render_table("Pod", [p], 0, PrintOptions(no_headers=True))
    assert out.split()[1:4] == ["1/2", "Running", "3"]


RUNNING = {"running": {"startedAt": 5}}
STALE = [{"name": "c0", "ready": True, "restartCount": 0, "state": RUNNING}]


@pytest.mark.parametrize("status,meta,want", [
    ({"phase": "Failed", "reason": "Evicted", "containerStatuses": STALE}, None,
     ["0/1", "Evicted"]),
    ({"phase": "Failed", "reason": "Evicted"}, None, ["0/1", "Evicted"]),
    ({"phase": "Succeeded", "containerStatuses": STALE}, None, ["0/1", "Completed"]),
    ({"phase": "Succeeded"}, None, ["0/1", "Completed"]),
    ({"phase": "Running", "containerStatuses": STALE}, {"deletionTimestamp": 30.0},
     ["1/1", "Terminating"]),
    ({"phase": "Running", "containerStatuses": [
        {"name": "c0", "ready": True, "state": {"terminated": {"exitCode": 1,
                                                               "reason": "Error"}}}]},
     None, ["0/1", "Error"]),
    ({"phase": "Running", "containerStatuses": [
        {"name": "c0", "ready": False, "state": {"terminated": {"exitCode": 137}}}]},
     None, ["0/1", "ExitCode:137"]),
    ({"phase": "Running", "containerStatuses": [
        {"name": "c0", "ready": True, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]},
     None, ["0/1", "CrashLoopBackOff"]),
], ids=["an evicted pod's stale running statuses are not ready",
        "an evicted pod without statuses", "a succeeded pod is completed",
        "a succeeded pod without statuses is completed",
        "a deleting running pod stays ready while it terminates",
        "a terminated container's reason", "a terminated container's exit code",
        "a waiting container is not ready"])
def test_ready_and_status_as_print_pod_counts_them(status, meta, want):
    out = render_table("Pod", [pod(status, meta)], 0, PrintOptions(no_headers=True))
    assert out.split()[1:3] == want


WORKLOADS = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx:1.27}, {name: log, image: fluentbit}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {kubernetes.io/os: linux}
      containers: [{name: agent, image: agent:2}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb}
spec: {minAvailable: 2, selector: {matchLabels: {app: web}}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
globalDefault: false
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}
"""


@pytest.mark.parametrize("kind,wide,want", [
    ("Deployment", False, "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\n"
                          "web    0/3     0            0           2d\n"),
    ("Deployment", True, "NAME   READY   UP-TO-DATE   AVAILABLE   AGE   CONTAINERS   IMAGES   "
                         "              SELECTOR\n"
                         "web    0/3     0            0           2d    nginx,log    "
                         "nginx:1.27,fluentbit   app=web\n"),
    ("DaemonSet", False, "NAME    DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE "
                         "SELECTOR            AGE\n"
                         "agent   0         0         0       0            0           "
                         "kubernetes.io/os=linux   2d\n"),
    ("PodDisruptionBudget", False, "NAME      MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED "
                                   "DISRUPTIONS   AGE\n"
                                   "web-pdb   2               N/A               0         "
                                   "            2d\n"),
    ("PriorityClass", False, "NAME   VALUE   GLOBAL-DEFAULT   AGE   PREEMPTIONPOLICY\n"
                             "high   1000    false            2d    PreemptLowerPriority\n"),
    ("HorizontalPodAutoscaler", False, "NAME   REFERENCE        TARGETS              MINPODS   "
                                       "MAXPODS   REPLICAS   AGE\n"
                                       "web    Deployment/web   cpu: <unknown>/80%   2         "
                                       "10        0          2d\n"),
])
def test_workload_tables(cluster, kind, wide, want):
    cluster.create(WORKLOADS)
    cluster.at(2 * 86400)
    out = render_table(kind, cluster.store.list(kind, "default"), cluster.now,
                       PrintOptions(wide=wide))
    assert out == want


def test_hpa_targets_with_current_utilization_and_values():
    from ksandbox.api.policy import HorizontalPodAutoscaler

    hpa = decode(HorizontalPodAutoscaler, {
        "metadata": {"name": "h"},
        "spec": {"maxReplicas": 3, "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {
                "type": "Utilization", "averageUtilization": 50}}},
            {"type": "Resource", "resource": {"name": "memory", "target": {
                "type": "AverageValue", "averageValue": "200Mi"}}},
            {"type": "Pods", "pods": {}}]},
        "status": {"currentMetrics": [
            {"type": "Resource", "resource": {"name": "cpu", "current": {
                "averageUtilization": 32}}},
            {"type": "Resource", "resource": {"name": "memory", "current": {
                "averageValue": "100Mi"}}}]}})
    assert hpa_targets(hpa) == "cpu: 32%/50%, 100Mi/200Mi + 1 more..."


def test_v1_hpa_target_prints_like_v2():
    from ksandbox.api.policy import HorizontalPodAutoscaler

    hpa = decode(HorizontalPodAutoscaler, {
        "metadata": {"name": "h"},
        "spec": {"maxReplicas": 3, "targetCPUUtilizationPercentage": 70},
        "status": {"currentCPUUtilizationPercentage": 12}})
    assert hpa_targets(hpa) == "cpu: 12%/70%"


def test_events_table(cluster):
    (p,) = cluster.create("apiVersion: v1\nkind: Pod\nmetadata: {name: web-1}\n"
                          "spec: {containers: [{name: c, image: x}]}\n")
    cluster.store.record_event(p, "Warning", "FailedScheduling", "0/3 nodes are available",
                               "default-scheduler")
    cluster.at(60)
    cluster.store.record_event(p, "Warning", "FailedScheduling", "0/3 nodes are available",
                               "default-scheduler")
    cluster.at(90)
    out = render_table("Event", cluster.store.list("Event"), cluster.now)
    assert out == ("LAST SEEN   TYPE      REASON             OBJECT      MESSAGE\n"
                   "30s         Warning   FailedScheduling   pod/web-1   0/3 nodes are "
                   "available\n")


def test_show_labels_and_kind_prefix(cluster):
    cluster.create(WORKLOADS)
    out = render_table("Deployment", cluster.store.list("Deployment"), 5,
                       PrintOptions(show_labels=True, kind_prefix=True))
    assert out.splitlines() == [
        "NAME                  READY   UP-TO-DATE   AVAILABLE   AGE   LABELS",
        "deployment.apps/web   0/3     0            0           5s    <none>"]
