"""The sandbox's node verbs beyond fail/recover: adding a node like another, deleting one."""

from __future__ import annotations

from nodesim import cluster, events, get_pod, kubelets, node, play, pod

CONFIG = """
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
kubeReserved: {cpu: 500m}
ksandbox:
  nodeSelector: {pool: big}
"""


def test_add_node_like_another_copies_its_shape_not_its_identity():
    gpu = node("gpu-1", cpu="8", memory="32Gi", labels={"pool": "big", "hw-type": "gpu"},
               taints=[{"key": "hw-type", "value": "gpu", "effect": "NoSchedule"}])
    s = cluster(CONFIG, gpu)
    play(s, [(20, "kubectl cordon gpu-1"),
             (30, "ksandbox add node gpu-2 --like gpu-1")])
    s.run_until(30)
    n = s.store.get("Node", "gpu-2")
    assert n.metadata.labels["hw-type"] == "gpu"
    assert n.metadata.labels["kubernetes.io/hostname"] == "gpu-2"
    assert [t.to_string() for t in n.spec.taints] == ["hw-type=gpu:NoSchedule"]
    assert not n.spec.unschedulable
    assert n.ready == "True"
    assert str(n.status.allocatable["cpu"]) == "7500m"        # its KubeletConfiguration applies
    assert s.store.get("Lease", "gpu-2", "kube-node-lease").spec.renew_time == 30.0
    s.run_until(40)
    assert s.store.get("Lease", "gpu-2", "kube-node-lease").spec.renew_time == 40.0


def test_add_node_without_like_has_the_default_shape():
    s = cluster(node("node-1"))
    kubelets(s).add_node("node-9")
    s.run_until(0)
    alloc = s.store.get("Node", "node-9").status.allocatable
    # The default kubelet holds back evictionHard memory.available 100Mi, nodefs.available 10%.
    assert {k: str(v) for k, v in alloc.items()} == {
        "cpu": "4", "memory": "8092Mi", "pods": "110", "ephemeral-storage": "90Gi"}


def test_deleting_a_node_stops_its_kubelet_and_podgc_collects_its_pods():
    s = cluster(node("node-1"), node("node-2"), pod("web", "node-2"))
    play(s, [(30, "kubectl delete node node-2")])
    s.run_until(30)
    assert s.store.get("Lease", "node-2", "kube-node-lease") is None
    # podgc passes run at 0, 20, 40, ...: the pass at 40 quarantines node-2 for 40 s.
    s.run_until(79)
    assert get_pod(s, "web") is not None
    s.run_until(80)
    assert get_pod(s, "web") is None
    # The monitor pass at 30 ran before the command; the next one notices.
    assert events(s, "RemovingNode") == [
        (35.0, "Node/node-2", "Node node-2 event: Removing Node node-2 from Controller")]
