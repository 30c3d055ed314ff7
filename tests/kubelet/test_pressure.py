"""Node pressure: the kubelet's condition, the lifecycle controller's taint, the eviction manager
evicting in upstream's rank order, the transition period, and admission under pressure."""

from __future__ import annotations

import pytest

from ksandbox.api.core import Container, Pod, PodSpec, ResourceRequirements
from ksandbox.api.codec import FrozenDict
from ksandbox.api.meta import ObjectMeta
from ksandbox.api.quantity import Quantity
from ksandbox.kubelet.eviction import exceeds_requests, rank
from nodesim import cluster, condition, events, get_pod, node, play, pod, taints

GUARANTEED = {"cpu": "100m", "memory": "100Mi"}


def qos_pods(node_name="node-1"):
    return [pod("best-effort", node_name),
            pod("burstable", node_name, requests={"cpu": "100m", "memory": "100Mi"}),
            pod("guaranteed", node_name, requests=GUARANTEED, limits=GUARANTEED)]


def test_memory_pressure_evicts_besteffort_then_burstable_then_guaranteed():
    s = cluster(node("node-1"), node("node-2"), *qos_pods())
    play(s, [(13, "ksandbox pressure node node-1 memory on")])
    # The eviction manager's next pass (every 10 s from registration) is at 20; after an
    # eviction it waits for the pod to go (1 s grace, then its 1-second poll): 22, 24.
    s.run_until(30)
    assert [(t, o) for t, o, _m in events(s, "Evicted")] == [
        (20.0, "Pod/default/best-effort"), (22.0, "Pod/default/burstable"),
        (24.0, "Pod/default/guaranteed")]
    for name in ("best-effort", "burstable", "guaranteed"):
        p = get_pod(s, name)
        assert (p.status.phase, p.status.reason, p.status.message) == (
            "Failed", "Evicted",
            "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. ")
        target = p.status.condition("DisruptionTarget")
        assert (target.status, target.reason) == ("True", "TerminationByKubelet")
        # the kubelet's condition and status are of the generation it synced (KEP 5067)
        assert (target.observed_generation, p.status.observed_generation) == (1, 1)
    assert get_pod(s, "best-effort").status.condition("Ready").status == "False"
    assert condition(s, "node-1", "MemoryPressure").status == "True"
    assert condition(s, "node-1", "MemoryPressure").last_transition_time == 20.0
    assert taints(s, "node-1") == {"node.kubernetes.io/memory-pressure:NoSchedule": 20.0}
    assert events(s, "NodeHasInsufficientMemory")[0][0] == 20.0
    assert events(s, "EvictionThresholdMet")[0][2] == "Attempting to reclaim memory"


def test_the_condition_clears_five_minutes_after_the_pressure_ends():
    s = cluster(node("node-1"))
    play(s, [(13, "ksandbox pressure node node-1 disk on"),
             (45, "ksandbox pressure node node-1 disk off")])
    # Last observed at the pass at 40; cleared at the first pass 300 s or more after it.
    s.run_until(339)
    assert condition(s, "node-1", "DiskPressure").status == "True"
    s.run_until(340)
    assert condition(s, "node-1", "DiskPressure").status == "False"
    assert taints(s, "node-1") == {}
    assert events(s, "NodeHasNoDiskPressure")[-1][0] == 0.0   # first seen at registration


def test_lower_priority_goes_first_among_pods_over_their_requests():
    high = """
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
"""
    s = cluster(high, node("node-1"), pod("important", "node-1", priority_class="high"),
                pod("burst", "node-1", requests={"memory": "10Mi"}))
    play(s, [(13, "ksandbox pressure node node-1 memory on")])
    s.run_until(30)
    assert [o for _t, o, _m in events(s, "Evicted")] == ["Pod/default/burst",
                                                          "Pod/default/important"]


def test_critical_pods_are_never_evicted():
    s = cluster(node("node-1"), pod("dns", "node-1", priority_class="system-cluster-critical"))
    play(s, [(13, "ksandbox pressure node node-1 pid on")])
    s.run_until(100)
    assert events(s, "Evicted") == []
    assert get_pod(s, "dns").status.phase == "Running"


@pytest.mark.parametrize("kind,name,admitted", [
    ("memory", "be", False), ("memory", "bu", True), ("disk", "bu", False),
], ids=["memory pressure refuses BestEffort", "memory pressure admits Burstable",
        "disk pressure refuses everyone"])
def test_admission_under_pressure(kind, name, admitted):
    s = cluster(node("node-1"))
    play(s, [(13, f"ksandbox pressure node node-1 {kind} on")])
    s.run_until(21)
    doc = pod(name, "node-1", requests={"cpu": "10m"} if name == "bu" else None)
    play(s, [(21, lambda s: s.submit("kubectl apply -f -", stdin=doc))])
    s.run_until(21)
    p = get_pod(s, name)
    cond = {"memory": "MemoryPressure", "disk": "DiskPressure"}[kind]
    if admitted:
        assert p.status.phase != "Failed"
    else:
        assert (p.status.phase, p.status.reason, p.status.message) == (
            "Failed", "Evicted", f"Pod was rejected: The node had condition: [{cond}]. ")


def _pod(requests=None, limits=None, priority=0, name="p"):
    res = ResourceRequirements(
        requests=FrozenDict({k: Quantity(v) for k, v in (requests or {}).items()}),
        limits=FrozenDict({k: Quantity(v) for k, v in (limits or {}).items()}))
    return Pod(metadata=ObjectMeta(name=name), spec=PodSpec(
        containers=(Container(name="c", resources=res),), priority=priority))


@pytest.mark.parametrize("requests,limits,exceeds", [
    (None, None, True),
    ({"memory": "100Mi"}, None, True),
    ({"memory": "100Mi"}, {"memory": "200Mi"}, True),
    ({"memory": "100Mi"}, {"memory": "100Mi"}, False),
], ids=["BestEffort uses more than it requests", "no limit: more than requested",
        "a higher limit: more than requested", "request equal to limit: exactly its request"])
def test_the_usage_model(requests, limits, exceeds):
    assert exceeds_requests(_pod(requests, limits), "memory") is exceeds


def test_rank_orders_by_exceeding_then_priority_then_qos():
    pods = [_pod(GUARANTEED, GUARANTEED, name="g"), _pod({"memory": "1Mi"}, name="bu"),
            _pod(name="be"), _pod(name="be-high", priority=10)]
    assert [p.metadata.name for p in rank(pods, "memory")] == ["be", "bu", "be-high", "g"]
