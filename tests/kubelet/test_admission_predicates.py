"""Kubelet admission of bound pods: GeneralPredicates (pkg/kubelet/lifecycle/predicate.go).

Ported from pkg/kubelet/lifecycle/predicate_test.go TestGeneralPredicates ("no resources/port/
host requested always fits", "not enough cpu and memory resource", "host not match",
"hostport conflict") plus generalFilter's NoExecute taint check and
predicateAdmitHandler.Admit's first-reason rule; and end to end: a pod placed with
``spec.nodeName`` bypasses the scheduler, not the kubelet — it goes Failed with upstream's
reason, "Pod was rejected: …" and a Warning event.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nodesim import node

from ksandbox.api.codec import decode
from ksandbox.api.core import Node, Pod
from ksandbox.kubelet.predicates import general_filter
from ksandbox.session import Session


def _node(labels: dict | None = None, taints: list | None = None) -> Node:
    return decode(Node, {"metadata": {"name": "machine1", "labels": labels or {}},
                         "spec": {"taints": taints or []},
                         "status": {"allocatable": {"cpu": "10", "memory": "20", "pods": "32"}}})


def _pod(node_name: str = "", cpu: str = "", memory: str = "", host_port: int = 0,
         node_selector: dict | None = None) -> Pod:
    req = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    c: dict = {"name": "c", "image": "x:1", "resources": {"requests": req}}
    if host_port:
        c["ports"] = [{"containerPort": host_port, "hostPort": host_port}]
    spec: dict = {"containers": [c], "nodeName": node_name}
    if node_selector:
        spec["nodeSelector"] = node_selector
    return decode(Pod, {"metadata": {"name": "p"}, "spec": spec})


@pytest.mark.parametrize("name,pod,used,ports,want", [
    ("no resources/port/host requested always fits", _pod(), {"cpu": 9000, "memory": 19}, [],
     []),
    ("not enough cpu and memory resource", _pod(cpu="8", memory="10"),
     {"cpu": 5000, "memory": 19, "pods": 1}, [],
     [("OutOfcpu", "Node didn't have enough resource: cpu, requested: 8000, used: 5000, "
                   "capacity: 10000"),
      ("OutOfmemory", "Node didn't have enough resource: memory, requested: 10, used: 19, "
                      "capacity: 20")]),
    ("host not match", _pod(node_name="machine2"), {}, [],
     [("NodeName", "Predicate NodeName failed: node(s) didn't match the requested node name")]),
    ("hostport conflict", _pod(host_port=123), {}, [("127.0.0.1", "TCP", 123)],
     [("NodePorts", "Predicate NodePorts failed: node(s) didn't have free ports for the "
                    "requested pod ports")]),
    ("node selector", _pod(node_selector={"disk": "ssd"}), {}, [],
     [("NodeAffinity", "Predicate NodeAffinity failed: node(s) didn't match Pod's node "
                       "affinity/selector")]),
])
def test_general_predicates(name, pod, used, ports, want):
    assert general_filter(pod, _node(), used, ports) == want, name


def test_only_noexecute_taints_count_and_not_for_static_pods():
    """generalFilter: the kubelet only cares about NoExecute taints, and not for static pods."""
    no_sched = _node(taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])
    no_exec = _node(taints=[{"key": "k", "value": "v", "effect": "NoExecute"}])
    assert general_filter(_pod(), no_sched, {}, []) == []
    assert general_filter(_pod(), no_exec, {}, []) == [
        ("TaintToleration", "Predicate TaintToleration failed: node(s) had untolerated taint")]
    assert general_filter(_pod(), no_exec, {}, [], static=True) == []


def _bound(name: str, node_name: str, **spec) -> str:
    body = {"containers": [{"name": "c", "image": "nginx:1.27",
                            **({"ports": spec.pop("ports")} if "ports" in spec else {})}],
            "nodeName": node_name, **spec}
    return json.dumps({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": "default"}, "spec": body})


@pytest.mark.parametrize("pod,reason,message", [
    (_bound("sel", "node-1", nodeSelector={"disk": "ssd"}), "NodeAffinity",
     "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"),
    (_bound("aff", "node-1", affinity={"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "NotIn",
                              "values": ["node-1"]}]}]}}}), "NodeAffinity",
     "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector"),
])
def test_a_bound_pod_is_rejected_by_the_kubelet(pod, reason, message):
    """(An untolerated NoExecute taint is checked too, but end to end the taint manager
    deletes such a pod first, as upstream's does.)"""
    s = Session.from_text("\n---\n".join([node("node-1"), pod]))
    s.run_until(10)
    (p,) = s.store.list("Pod", "default")
    assert (p.status.phase, p.status.reason, p.status.message) == \
        ("Failed", reason, f"Pod was rejected: {message}")
    ev = [e for e in s.store.events if e.reason == reason]
    assert ev and ev[0].type == "Warning" and ev[0].message == message
    assert ev[0].source_component == "kubelet"
    # ... and no Scheduled event: the scheduler never saw it.
    assert not [e for e in s.store.events if e.reason == "Scheduled"]


def test_two_bound_pods_on_one_host_port_the_second_is_rejected():
    s = Session.from_text("\n---\n".join([
        node("node-1"),
        _bound("first", "node-1", ports=[{"containerPort": 80, "hostPort": 8080}]),
        _bound("second", "node-1", ports=[{"containerPort": 80, "hostPort": 8080}])]))
    s.run_until(10)
    phases = {p.metadata.name: (p.status.phase, p.status.reason)
              for p in s.store.list("Pod", "default")}
    assert phases == {"first": ("Running", ""), "second": ("Failed", "NodePorts")}


_RESOURCE = st.sampled_from(["cpu", "memory", "ephemeral-storage", "pods",
                             "example.com/gpu", "hugepages-2Mi", "a.b/c"])


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(_RESOURCE, st.integers(-1, 5000), max_size=6),
       st.dictionaries(_RESOURCE, st.integers(0, 6000), max_size=6),
       st.dictionaries(_RESOURCE, st.integers(0, 6000), max_size=6))
def test_resource_failures_check_resources_in_fits_order(req, used, alloc):
    """The kubelet's resource check (noderesources.Fits as generalFilter reports it): every
    short resource, cpu, memory, ephemeral-storage first, then the others by name — the order
    remembered per requests value (predicates.fit_order) is the plain one, call after call."""
    from types import SimpleNamespace

    from ksandbox.api.codec import FrozenDict
    from ksandbox.kubelet.predicates import insufficient_message, resource_failures

    requests = FrozenDict(req)
    pod = SimpleNamespace(spec=SimpleNamespace(requests=requests))
    node = SimpleNamespace(allocatable_amounts=alloc)
    order = [n for n in ("cpu", "memory", "ephemeral-storage") if n in req] + sorted(
        n for n in req if n not in ("cpu", "memory", "ephemeral-storage"))
    want = []
    if "pods" in alloc and used.get("pods", 0) + 1 > alloc["pods"]:
        want.append(("OutOfpods", insufficient_message("pods", 1, used.get("pods", 0),
                                                       alloc["pods"])))
    for n in order:
        if req[n] > 0 and used.get(n, 0) + req[n] > alloc.get(n, 0):
            want.append((f"OutOf{n}", insufficient_message(n, req[n], used.get(n, 0),
                                                           alloc.get(n, 0))))
    assert resource_failures(pod, node, used) == want
    assert resource_failures(pod, node, used) == want
