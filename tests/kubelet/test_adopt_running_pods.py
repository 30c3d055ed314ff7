"""A kubelet that starts on a node whose pods the loaded state shows Running adopts them: the
pod workers take them as running (no admission, no pull, no Created/Started events) and the
status is left as it was — phase, readiness, pod IP, start times, restart counts. A pod loaded
Pending with a nodeName is admitted and started as usual.

Upstream behaviour traced: pkg/kubelet/kubelet.go syncPod after a kubelet restart (the runtime
already has the pod's sandbox and containers: computePodActions starts nothing, and the status
manager's pod status is the one in the API), and the API's pod strategy, whose create resets
a client's status (here kept only for an export's bound Running pods and finished pods).
"""

from __future__ import annotations

import json
import re

from ksandbox.resources import data_path
from ksandbox.session import Session

from nodesim import node, pod

EXPORT = str(data_path("sample_clusters") / "export.yaml")
START_REASONS = {"Pulling", "Pulled", "Created", "Started", "Killing"}


def _running(name: str, node_name: str | None, ip: str, *, restarts: int = 0,
             requests: dict | None = None) -> str:
    doc = json.loads(pod(name, node_name, requests=requests))
    doc["status"] = {
        "phase": "Running", "podIP": "10.9.0.%s" % ip, "hostIP": "192.168.0.1",
        "startTime": "2025-05-20T08:00:04Z",
        "conditions": [{"type": t, "status": "True",
                        "lastTransitionTime": "2025-05-20T08:00:13Z"}
                       for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
        "containerStatuses": [{"name": "app", "image": "nginx", "ready": True,
                               "started": True, "restartCount": restarts,
                               "state": {"running": {"startedAt": "2025-05-20T08:00:12Z"}}}]}
    return json.dumps(doc)


def _events_of(s: Session, name: str) -> list[str]:
    return [e.reason for e in s.store.list("Event")
            if e.involved_object.name == name]


def _snapshot(p) -> tuple:
    st = p.status
    return (st.phase, st.pod_ip, st.host_ip, st.start_time,
            tuple((c.type, c.status, c.last_transition_time) for c in st.conditions),
            st.extra.get("containerStatuses"))


def test_the_exports_running_pods_are_running_and_ready_at_once_and_never_restarted():
    s = Session.from_files([EXPORT])
    running = [p for p in s.store.list("Pod") if p.status.phase == "Running"]
    assert len(running) == 12   # every exported pod but the finished Job pod
    web = s.store.get("Pod", "web-6f8d9c7b54-2jxkd", "shop")
    assert web.status.pod_ip == "10.0.1.60"
    assert web.status.start_time == "2025-05-20T08:00:04Z"
    assert web.status.condition("Ready").status == "True"
    (cs,) = web.status.extra["containerStatuses"]
    assert cs["state"]["running"]["startedAt"] == "2025-05-20T08:00:12Z"
    assert cs["ready"] is True and cs["restartCount"] == 0
    before = {(p.metadata.namespace, p.metadata.name): _snapshot(p) for p in running}
    s.run_until(120)
    for (ns, name), snap in before.items():
        p = s.store.get("Pod", name, ns)
        assert _snapshot(p) == snap, name
        assert not START_REASONS & set(_events_of(s, name)), name
    out = s.submit("kubectl get pods -n shop").output
    assert re.search(r"^web-6f8d9c7b54-2jxkd +1/1 +Running +0 ", out, re.M)


def test_an_adopted_pod_keeps_its_restart_count_and_ip():
    s = Session.from_text("\n---\n".join([node("node-1"), _running("app", "node-1", "7",
                                                                     restarts=3)]))
    s.run_until(30)
    p = s.store.get("Pod", "app", "default")
    assert p.status.phase == "Running" and p.status.pod_ip == "10.9.0.7"
    assert p.status.extra["containerStatuses"][0]["restartCount"] == 3
    assert _events_of(s, "app") == []
    assert re.search(r"^app +1/1 +Running +3 ", s.submit("kubectl get pods").output, re.M)


def test_a_pod_loaded_pending_with_a_node_name_is_started_normally():
    doc = json.loads(pod("app", "node-1"))
    doc["status"] = {"phase": "Pending"}
    s = Session.from_text("\n---\n".join([node("node-1"), json.dumps(doc)]))
    assert s.store.get("Pod", "app", "default").status.phase == "Pending"
    s.run_until(30)
    p = s.store.get("Pod", "app", "default")
    assert p.status.phase == "Running" and p.status.pod_ip
    assert {"Pulling", "Pulled", "Created", "Started"} <= set(_events_of(s, "app"))
    # The kubelet's own start: the simulated second it admitted the pod.
    assert isinstance(p.status.start_time, float)


def test_a_running_status_without_a_node_starts_over_pending():
    """Only a bound pod can be running somewhere: an unbound one is scheduled and started."""
    s = Session.from_text("\n---\n".join([node("node-1"), _running("app", None, "7")]))
    assert s.store.get("Pod", "app", "default").status.phase == "Pending"
    s.run_until(30)
    p = s.store.get("Pod", "app", "default")
    assert p.spec.node_name == "node-1" and p.status.phase == "Running"
    assert "Started" in _events_of(s, "app")


def test_adopted_pods_hold_the_nodes_resources():
    """The adopted pod's requests count at the kubelet's admission of the next pod."""
    s = Session.from_text("\n---\n".join([
        node("node-1", cpu="1"), _running("big", "node-1", "7", requests={"cpu": "800m"}),
        pod("late", "node-1", requests={"cpu": "500m"})]))
    s.run_until(30)
    late = s.store.get("Pod", "late", "default")
    assert late.status.phase == "Failed" and late.status.reason == "OutOfcpu"
    assert s.store.get("Pod", "big", "default").status.phase == "Running"


def test_an_adopted_pod_deleted_stops_its_containers():
    s = Session.from_text("\n---\n".join([node("node-1"), _running("app", "node-1", "7")]))
    s.run_until(5)
    s.submit("kubectl delete pod app --wait=false")
    s.run_until(60)
    assert s.store.get("Pod", "app", "default") is None
    assert "Killing" in _events_of(s, "app")


def test_a_new_pod_never_gets_an_adopted_pods_ip():
    """The node's allocator (host-local IPAM's) skips the address an adopted pod holds."""
    n = json.loads(node("node-1"))
    n["spec"]["podCIDR"] = "10.9.0.0/24"
    s = Session.from_text("\n---\n".join([json.dumps(n), _running("old", "node-1", "2"),
                                          pod("new", "node-1")]))
    s.run_until(30)
    assert s.store.get("Pod", "old", "default").status.pod_ip == "10.9.0.2"
    assert s.store.get("Pod", "new", "default").status.pod_ip == "10.9.0.3"


def test_an_exported_running_mirror_pod_is_adopted_and_its_mirror_kept():
    """A kubeadm export's static pod (its mirror Running on the node): the kubelet runs it as
    it finds it, and a deleted mirror comes back with the same IP (the pod never stopped)."""
    doc = json.loads(_running("etcd-node-1", "node-1", "5"))
    doc["metadata"].update(namespace="kube-system", annotations={
        "kubernetes.io/config.mirror": "abc", "kubernetes.io/config.source": "file"})
    s = Session.from_text("\n---\n".join([node("node-1"), json.dumps(doc)]))
    s.run_until(5)
    p = s.store.get("Pod", "etcd-node-1", "kube-system")
    assert p.status.phase == "Running" and p.status.pod_ip == "10.9.0.5"
    assert _events_of(s, "etcd-node-1") == []
    s.submit("kubectl delete pod etcd-node-1 -n kube-system")
    s.run_until(20)
    p = s.store.get("Pod", "etcd-node-1", "kube-system")
    assert p.metadata.deletion_timestamp is None
    assert p.status.phase == "Running" and p.status.pod_ip == "10.9.0.5"
    assert not {"Pulling", "Started"} & set(_events_of(s, "etcd-node-1"))
