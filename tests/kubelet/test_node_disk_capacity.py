"""A node whose manifest gives no ephemeral-storage still reports its root disk, as a real
kubelet does, so pods that request disk are not refused with `capacity: 0`."""

from ksandbox.session import Session

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: scratch}
spec:
  containers:
    - name: c
      image: busybox
      resources: {requests: {cpu: 100m, ephemeral-storage: 1Gi}}
"""


def test_a_pod_requesting_disk_runs_on_a_node_without_declared_disk():
    s = Session.from_text(CLUSTER)
    s.run_until(30)
    node = s.store.get("Node", "node-1")
    assert "ephemeral-storage" in node.status.capacity
    assert "ephemeral-storage" in node.status.allocatable
    pod = s.store.get("Pod", "scratch", "default")
    assert pod.spec.node_name == "node-1"
    assert pod.status.phase == "Running"
