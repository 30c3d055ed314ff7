"""Static pods: run by the kubelet from its configuration, published as mirror pods that the
API cannot delete for good."""

from __future__ import annotations

from nodesim import cluster, events, get_pod, node, play

CONFIG = """
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
staticPodPath: /etc/kubernetes/manifests
ksandbox:
  nodeSelector: {node-role.kubernetes.io/control-plane: ""}
  staticPods:
    - apiVersion: v1
      kind: Pod
      metadata: {name: etcd, namespace: kube-system, labels: {component: etcd}}
      spec:
        priorityClassName: system-node-critical
        containers: [{name: etcd, image: "registry.k8s.io/etcd:3.5.16-0"}]
"""


def control_plane():
    return node("cp-1", labels={"node-role.kubernetes.io/control-plane": ""})


def test_the_mirror_pod_is_published_with_upstreams_shape():
    s = cluster(CONFIG, control_plane(), node("node-1"))
    mirror = get_pod(s, "etcd-cp-1", "kube-system")
    meta = mirror.metadata
    assert mirror.spec.node_name == "cp-1"
    assert meta.annotations["kubernetes.io/config.source"] == "file"
    assert meta.annotations["kubernetes.io/config.mirror"] == \
        meta.annotations["kubernetes.io/config.hash"]
    assert len(meta.annotations["kubernetes.io/config.hash"]) == 32
    ref = meta.owner_references[0]
    assert (ref.kind, ref.name, ref.controller) == ("Node", "cp-1", True)
    assert any(t.operator == "Exists" and t.effect == "NoExecute" and not t.key
               and t.toleration_seconds is None for t in mirror.spec.tolerations)
    assert mirror.spec.priority == 2_000_001_000
    assert s.store.get("Pod", "etcd-node-1", "kube-system") is None   # selector: cp only
    s.run_until(5)
    assert get_pod(s, "etcd-cp-1", "kube-system").status.phase == "Running"


def test_a_static_pod_survives_deletion_through_the_api():
    s = cluster(CONFIG, control_plane())
    s.run_until(5)
    before = get_pod(s, "etcd-cp-1", "kube-system")
    play(s, [(100, "kubectl delete pod etcd-cp-1 -n kube-system")])
    s.run_until(100)
    after = get_pod(s, "etcd-cp-1", "kube-system")
    assert after.metadata.uid != before.metadata.uid          # a fresh mirror...
    assert after.metadata.creation_timestamp == 100.0
    assert after.metadata.deletion_timestamp is None
    assert after.status.phase == "Running"                     # ...of a pod that never stopped
    assert after.status.start_time == before.status.start_time
    assert events(s, "Killing") == []
    play(s, [(200, "kubectl delete pod etcd-cp-1 -n kube-system --grace-period=0 --force")])
    s.run_until(200)
    assert get_pod(s, "etcd-cp-1", "kube-system").status.phase == "Running"


def test_static_pods_are_never_evicted_by_node_problems():
    s = cluster(CONFIG, control_plane(), node("node-1"))
    play(s, [(10, "ksandbox fail node cp-1")])
    s.run_until(1000)
    mirror = get_pod(s, "etcd-cp-1", "kube-system")
    assert mirror.metadata.deletion_timestamp is None
    assert "node.kubernetes.io/unreachable:NoExecute" in \
        [t.to_string() for t in s.store.get("Node", "cp-1").spec.taints]


def test_a_mirror_pod_in_loaded_manifests_is_adopted_as_a_static_pod():
    mirror = """
apiVersion: v1
kind: Pod
metadata:
  name: kube-scheduler-node-1
  namespace: kube-system
  annotations: {kubernetes.io/config.mirror: abc, kubernetes.io/config.source: file}
spec:
  nodeName: node-1
  containers: [{name: kube-scheduler, image: kube-scheduler}]
"""
    s = cluster(node("node-1"), mirror)
    s.run_until(5)
    assert get_pod(s, "kube-scheduler-node-1", "kube-system").status.phase == "Running"
    play(s, [(10, "kubectl delete pod kube-scheduler-node-1 -n kube-system")])
    s.run_until(10)
    assert get_pod(s, "kube-scheduler-node-1", "kube-system").metadata.creation_timestamp == 10.0


def test_a_recreated_mirror_keeps_the_running_pods_ip_and_times():
    """The static pod never stopped, so its recreated mirror shows the same sandbox: upstream's
    status manager syncs the cached status (podIP, startedAt, condition times) to the new
    mirror pod (pkg/kubelet/status/status_manager.go syncPod via the mirror's translated uid)."""
    s = cluster(CONFIG, control_plane(), node("node-1"))
    s.run_until(5)
    before = get_pod(s, "etcd-cp-1", "kube-system")
    assert before.status.pod_ip
    # Another pod on the node takes the next address meanwhile.
    play(s, [(50, "kubectl run other --image=nginx:1.27 "
                  "--overrides='{\"spec\":{\"nodeName\":\"cp-1\"}}'"),
             (100, "kubectl delete pod etcd-cp-1 -n kube-system")])
    s.run_until(110)
    after = get_pod(s, "etcd-cp-1", "kube-system")
    assert after.metadata.uid != before.metadata.uid
    assert after.status.pod_ip == before.status.pod_ip
    assert after.status.condition("Ready").last_transition_time == \
        before.status.condition("Ready").last_transition_time
    started = [c["state"]["running"]["startedAt"]
               for c in (before.status.extra["containerStatuses"],
                         after.status.extra["containerStatuses"])[1]]
    assert started == [before.status.extra["containerStatuses"][0]["state"]["running"]
                       ["startedAt"]]


def test_a_loaded_mirror_without_the_noexecute_toleration_is_evicted_once_then_tolerated():
    # A hand-written export: a mirror pod lacking the toleration every static pod carries, on
    # a node with a NoExecute taint. The taint eviction controller deletes it; the kubelet
    # re-creates it from the static pod it stands for, which tolerates the taint, and the
    # clock moves on. (It used to delete and re-create forever at t=0; the alarm turns such a
    # loop into a failure instead of a hung test.)
    import signal

    tainted = """
apiVersion: v1
kind: Node
metadata: {name: n0}
spec: {taints: [{key: k, effect: NoExecute}]}
status: {capacity: {cpu: '2', memory: 4Gi, pods: '110'}}
"""
    mirror = """
apiVersion: v1
kind: Pod
metadata: {name: p3, annotations: {kubernetes.io/config.mirror: x}}
spec:
  nodeName: n0
  containers: [{name: c, image: nginx}]
"""

    def stuck(signum, frame):
        raise AssertionError("the simulation looped at one instant")

    previous = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(30)
    try:
        s = cluster(tainted, mirror)
        s.run_until(60)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert s.clock.now == 60
    pod = get_pod(s, "p3", "default")
    assert pod.metadata.deletion_timestamp is None
    assert pod.status.phase == "Running"
    assert any(t.operator == "Exists" and t.effect == "NoExecute" and not t.key
               for t in pod.spec.tolerations)
    marked = [e for e in events(s, "TaintManagerEviction") if e[2].startswith("Marking")]
    assert len(marked) == 1, marked
