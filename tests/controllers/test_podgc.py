"""The pod garbage collector: orphans after their quarantine, terminating pods on out-of-service
nodes, and the terminated-pod threshold."""

from __future__ import annotations

import sys
from pathlib import Path

import attrs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kubelet"))

from nodesim import cluster, get_pod, node, play, pod  # noqa: E402


def test_pods_of_a_deleted_node_are_failed_and_deleted_after_the_quarantine():
    s = cluster(node("node-1"), node("node-2"), pod("a", "node-2"), pod("b", "node-2"))
    seen = []

    def target(p):
        c = p.status.condition("DisruptionTarget")
        return c and (c.reason, c.observed_generation)
    s.store.subscribe("Pod", lambda ev: seen.append((s.now, ev.type, ev.obj.metadata.name,
                                                      ev.obj.status.phase, target(ev.obj))))
    play(s, [(5, "kubectl delete node node-2")])
    s.run_until(59)
    assert get_pod(s, "a") is not None
    s.run_until(60)        # seen orphaned at the pass at 20, quarantined until 60
    assert get_pod(s, "a") is None and get_pod(s, "b") is None
    assert [x[:4] for x in seen if x[0] == 60.0] == [
        (60.0, "MODIFIED", "a", "Failed"), (60.0, "DELETED", "a", "Failed"),
        (60.0, "MODIFIED", "b", "Failed"), (60.0, "DELETED", "b", "Failed")]
    # the DisruptionTarget PodGC sets carries the pod's generation (KEP 5067)
    assert {x[4] for x in seen if x[0] == 60.0} == {("DeletionByPodGC", 1)}


def test_terminating_pods_on_an_out_of_service_node_are_force_deleted():
    s = cluster(node("node-1"), node("node-2"), pod("web", "node-2"))
    play(s, [(10, "ksandbox fail node node-2"),
             (100, "kubectl delete pod web"),
             (130, "kubectl taint nodes node-2 node.kubernetes.io/out-of-service=nodeshutdown:NoSchedule")])
    s.run_until(139)
    assert get_pod(s, "web") is not None      # Terminating: no kubelet to finish it
    s.run_until(140)                          # the next pod GC pass
    assert get_pod(s, "web") is None


def test_terminated_pods_beyond_the_threshold_go_oldest_and_evicted_first():
    s = cluster(node("node-1"), *(pod(f"job-{i}", "node-1") for i in range(4)))
    s.cp.components["podgc"].terminated_threshold = 2
    s.run_until(5)
    for i, reason in enumerate(["", "Evicted", "", ""]):
        p = get_pod(s, f"job-{i}")
        s.store.update_status(attrs.evolve(p, status=attrs.evolve(p.status, phase="Failed",
                                                                  reason=reason)))
    s.run_until(20)
    assert sorted(p.metadata.name for p in s.store.list("Pod")) == ["job-2", "job-3"]
