"""The node lifecycle controller, as timelines: a silent kubelet goes Unknown after the grace
period, the unreachable taints arrive (NoSchedule at once, NoExecute one monitor period later,
rate limited per zone), condition taints follow conditions, recovery removes it all."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kubelet"))

from nodesim import (cluster, condition, events, get_pod, kubelets, node,  # noqa: E402
                     play, pod, taints)

UNREACHABLE = {"node.kubernetes.io/unreachable:NoSchedule": 70.0,
               "node.kubernetes.io/unreachable:NoExecute": 75.0}


def three_nodes(*docs):
    return cluster(node("node-1"), node("node-2"), node("node-3"), *docs)


def test_a_silent_node_goes_unknown_after_the_grace_period():
    s = three_nodes(pod("web", "node-2"))
    # The script step runs after the kubelet's renewal at 10; the controller sees it at 15.
    play(s, [(10, "ksandbox fail node node-2")])
    s.run_until(65)
    assert condition(s, "node-2", "Ready").status == "True"
    assert taints(s, "node-2") == {}
    s.run_until(70)      # 70 > 15 + 50: the first pass past the grace period
    ready = condition(s, "node-2", "Ready")
    assert (ready.status, ready.reason, ready.message, ready.last_transition_time) == (
        "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.", 70.0)
    for t in ("MemoryPressure", "DiskPressure", "PIDPressure"):
        assert condition(s, "node-2", t).status == "Unknown"
    assert taints(s, "node-2") == {"node.kubernetes.io/unreachable:NoSchedule": 70.0}
    assert events(s, "NodeNotReady") == [
        (70.0, "Node/node-2", "Node node-2 status is now: NodeNotReady"),
        (70.0, "Pod/default/web", "Node is not ready")]
    assert get_pod(s, "web").status.condition("Ready").status == "False"
    s.run_until(75)      # the next pass decides from the Unknown it observed
    assert taints(s, "node-2") == UNREACHABLE
    assert condition(s, "node-1", "Ready").status == "True"


def test_a_node_whose_kubelet_never_posted_gets_the_startup_grace_period():
    s = three_nodes()
    k = kubelets(s)
    play(s, [(100, lambda s: (k.add_node("node-4"), k.fail_node("node-4")))])
    s.run_until(160)
    assert s.store.get("Node", "node-4").status.conditions == ()
    s.run_until(165)     # 165 > 100 + 60
    ready = condition(s, "node-4", "Ready")
    assert (ready.status, ready.reason, ready.message) == (
        "Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status.")
    assert taints(s, "node-4") == {"node.kubernetes.io/unreachable:NoSchedule": 165.0,
                                   "node.kubernetes.io/unreachable:NoExecute": 165.0}
    assert events(s, "NodeNotReady") == []


def test_recovery_removes_the_taints_and_cancels_the_countdowns():
    s = three_nodes(pod("web", "node-2"))
    play(s, [(10, "ksandbox fail node node-2"),
             (200, "ksandbox recover node node-2")])
    assert condition(s, "node-2", "Ready").status == "True"   # posted at once
    s.run_until(200)     # the controller's NoSchedule pass reacts to that update
    assert taints(s, "node-2") == {"node.kubernetes.io/unreachable:NoExecute": 75.0}
    s.run_until(205)
    assert taints(s, "node-2") == {}
    assert events(s, "TaintManagerEviction") == [
        (205.0, "Pod/default/web", "Cancelling deletion of Pod default/web")]
    assert get_pod(s, "web").status.condition("Ready").status == "True"
    s.run_until(1000)
    assert get_pod(s, "web").metadata.deletion_timestamp is None


def test_the_no_execute_taint_is_rate_limited_per_zone():
    nodes = [node(f"node-{i:02d}") for i in range(10)]
    s = cluster(*nodes)
    play(s, [(10, lambda s: [kubelets(s).fail_node(n) for n in ("node-03", "node-07")])])
    s.run_until(200)
    # 0.1 node/s, burst 1: the first at once, the second when the next token comes.
    assert taints(s, "node-03")["node.kubernetes.io/unreachable:NoExecute"] == 75.0
    assert taints(s, "node-07")["node.kubernetes.io/unreachable:NoExecute"] == 85.0


def test_a_mostly_failed_small_zone_evicts_nothing():
    s = cluster(*(node(f"node-{i}") for i in range(4)))
    play(s, [(10, lambda s: [kubelets(s).fail_node(f"node-{i}") for i in range(3)])])
    s.run_until(500)
    # 3 of 4 down (>= 55 %, more than 2): partial disruption, and at 4 nodes (<= 50) the
    # secondary rate is 0 — no NoExecute taint at all.
    for i in range(3):
        assert taints(s, f"node-{i}") == {"node.kubernetes.io/unreachable:NoSchedule": 70.0}


def test_when_every_node_is_down_nothing_is_evicted():
    s = cluster(node("node-1"), node("node-2"), pod("web", "node-1"))
    play(s, [(10, "ksandbox fail node node-1"), (10, "ksandbox fail node node-2")])
    s.run_until(600)
    assert "node.kubernetes.io/unreachable:NoExecute" not in taints(s, "node-1")
    assert get_pod(s, "web").metadata.deletion_timestamp is None


def test_condition_taints_follow_conditions_and_cordoning():
    bad_network = node("node-2").replace(
        '"status": {', '"status": {"conditions": [{"type": "NetworkUnavailable", '
                       '"status": "True", "reason": "NoRouteCreated"}], ')
    s = cluster(node("node-1"), bad_network)
    assert taints(s, "node-2") == {"node.kubernetes.io/network-unavailable:NoSchedule": 0.0}
    play(s, [(12, "kubectl cordon node-1")])
    s.run_until(12)
    assert taints(s, "node-1") == {"node.kubernetes.io/unschedulable:NoSchedule": 12.0}
    play(s, [(13, "ksandbox pressure node node-1 pid on")])
    s.run_until(20)
    assert taints(s, "node-1") == {"node.kubernetes.io/unschedulable:NoSchedule": 12.0,
                                   "node.kubernetes.io/pid-pressure:NoSchedule": 20.0}
    play(s, [(25, "kubectl uncordon node-1")])
    s.run_until(25)
    assert taints(s, "node-1") == {"node.kubernetes.io/pid-pressure:NoSchedule": 20.0}
