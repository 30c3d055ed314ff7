"""The DaemonSet controller: one pod per eligible node, the automatic tolerations, the node
affinity that pins a pod to its node, reactions to nodes coming, changing and going, status,
and the rolling update.

Pods may be bound by a scheduler or left pending when none is in the build; the tests look at
the pod's target node (its matchFields term), which the controller sets either way.
"""

from __future__ import annotations

import re

import attrs
import pytest

from ksandbox.api.core import Node, NodeStatus, PodCondition
from ksandbox.api.meta import ObjectMeta
from ksandbox.api.quantity import Quantity
from ksandbox.api.taints import Taint, Toleration
from ksandbox.api.codec import FrozenDict
from ksandbox.controllers.controller_utils import pod_active, pod_ready
from ksandbox.controllers.daemonset_util import daemon_tolerations, target_node
from ksandbox.session import Session


def nodes_yaml(*specs: tuple[str, str]) -> str:
    out = []
    for name, extra in specs:
        out.append(f"""
---
apiVersion: v1
kind: Node
metadata: {{name: {name}, {extra}}}
status: {{capacity: {{cpu: "8", memory: 32Gi, pods: "110"}}}}
""")
    return "".join(out)


def ds_yaml(pod_spec: str = "", name: str = "agent", extra: str = "") -> str:
    return f"""
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: {name}, namespace: kube-system}}
spec:
  {extra}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      {pod_spec}
      containers: [{{name: agent, image: "agent:1"}}]
"""


THREE = nodes_yaml(("node-1", "labels: {disk: ssd}"), ("node-2", "labels: {disk: ssd}"),
                   ("node-3", "labels: {disk: hdd}"))


def ds_pods(s: Session, name: str = "agent") -> list:
    out = []
    for p in s.store.list("Pod", "kube-system"):
        ref = p.metadata.controller_ref()
        if ref is not None and ref.kind == "DaemonSet" and ref.name == name and pod_active(p):
            out.append(p)
    return out


def by_node(s: Session, name: str = "agent") -> dict[str, str]:
    return {target_node(p): p.metadata.name for p in ds_pods(s, name)}


def status(s: Session, name: str = "agent"):
    return s.store.get("DaemonSet", name, "kube-system").status


def update_node(s: Session, name: str, **changes) -> None:
    node = s.store.get("Node", name)
    s.store.update(attrs.evolve(node, **changes))


def make_all_ready(s: Session) -> None:
    now = s.now
    for p in ds_pods(s):
        if not pod_ready(p):
            st = attrs.evolve(p.status, phase="Running", start_time=now, conditions=(
                PodCondition(type="Ready", status="True", last_transition_time=now),))
            s.store.update_status(attrs.evolve(p, status=st))


def test_one_pod_per_node_named_after_the_daemonset():
    s = Session.from_text(THREE + ds_yaml())
    pods = ds_pods(s)
    assert sorted(target_node(p) for p in pods) == ["node-1", "node-2", "node-3"]
    ds = s.store.get("DaemonSet", "agent", "kube-system")
    for p in pods:
        assert re.fullmatch(r"agent-[bcdfghjklmnpqrstvwxz2456789]{5}", p.metadata.name)
        ref = p.metadata.controller_ref()
        assert (ref.kind, ref.name, ref.uid) == ("DaemonSet", "agent", ds.metadata.uid)
        assert p.metadata.labels["controller-revision-hash"]
    created = [e for e in s.store.events if e.reason == "SuccessfulCreate"]
    assert len(created) == 3 and {e.source_component for e in created} == \
        {"daemonset-controller"}
    assert all(e.message.startswith("Created pod: agent-") for e in created)


def test_pods_are_pinned_to_their_node_by_required_node_affinity():
    pref = ("affinity: {nodeAffinity: {"
            "requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
            "[{matchExpressions: [{key: disk, operator: In, values: [ssd, hdd]}]}]}, "
            "preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: "
            "{matchExpressions: [{key: disk, operator: In, values: [ssd]}]}}]}}")
    s = Session.from_text(THREE + ds_yaml(pod_spec=pref))
    for p in ds_pods(s):
        na = p.spec.affinity.node_affinity
        (term,) = na.required.node_selector_terms
        assert term.match_expressions == ()
        (req,) = term.match_fields
        assert (req.key, req.operator, len(req.values)) == ("metadata.name", "In", 1)
        if p.spec.node_name:
            assert p.spec.node_name == req.values[0]
        assert len(na.preferred) == 1


def test_daemon_pods_get_the_automatic_tolerations_without_seconds():
    s = Session.from_text(THREE + ds_yaml())
    got = [(t.key, t.operator, t.effect, t.toleration_seconds)
           for t in ds_pods(s)[0].spec.tolerations]
    assert got == [
        ("node.kubernetes.io/not-ready", "Exists", "NoExecute", None),
        ("node.kubernetes.io/unreachable", "Exists", "NoExecute", None),
        ("node.kubernetes.io/disk-pressure", "Exists", "NoSchedule", None),
        ("node.kubernetes.io/memory-pressure", "Exists", "NoSchedule", None),
        ("node.kubernetes.io/pid-pressure", "Exists", "NoSchedule", None),
        ("node.kubernetes.io/unschedulable", "Exists", "NoSchedule", None),
    ]


@pytest.mark.parametrize("host_network,given,want_extra", [
    (True, (), ["node.kubernetes.io/network-unavailable"]),
    (False, (Toleration(key="node.kubernetes.io/not-ready", operator="Exists",
                        effect="NoExecute", toleration_seconds=60),), []),
])
def test_automatic_tolerations_replace_matching_ones_and_cover_host_network(
        host_network, given, want_extra):
    from ksandbox.api.core import PodSpec

    tols = daemon_tolerations(PodSpec(host_network=host_network, tolerations=given))
    keys = [t.key for t in tols]
    assert keys[6:] == want_extra
    not_ready = [t for t in tols if t.key == "node.kubernetes.io/not-ready"]
    assert len(not_ready) == 1 and not_ready[0].toleration_seconds is None


def test_node_selector_limits_the_nodes():
    s = Session.from_text(THREE + ds_yaml(pod_spec="nodeSelector: {disk: ssd}"))
    assert sorted(by_node(s)) == ["node-1", "node-2"]
    st = status(s)
    assert (st.desired_number_scheduled, st.current_number_scheduled,
            st.number_misscheduled) == (2, 2, 0)


def test_untolerated_no_schedule_taint_keeps_new_pods_off_but_lets_running_ones_stay():
    tainted = nodes_yaml(("node-1", ""), ("node-2", "")) + """
---
apiVersion: v1
kind: Node
metadata: {name: gpu-1}
spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}
"""
    s = Session.from_text(tainted + ds_yaml())
    assert sorted(by_node(s)) == ["node-1", "node-2"]
    node = s.store.get("Node", "node-2")
    update_node(s, "node-2", spec=attrs.evolve(node.spec, taints=(
        Taint(key="dedicated", value="x", effect="NoSchedule"),)))
    s.run_for(1)
    assert sorted(by_node(s)) == ["node-1", "node-2"]  # may continue running
    st = status(s)
    assert (st.desired_number_scheduled, st.number_misscheduled) == (1, 1)


def test_untolerated_no_execute_taint_removes_the_pod():
    s = Session.from_text(THREE + ds_yaml())
    node = s.store.get("Node", "node-3")
    update_node(s, "node-3", spec=attrs.evolve(node.spec, taints=(
        Taint(key="maintenance", value="now", effect="NoExecute"),)))
    s.run_for(1)
    assert sorted(by_node(s)) == ["node-1", "node-2"]
    assert any(e.reason == "SuccessfulDelete" and e.source_component == "daemonset-controller"
               for e in s.store.events)


def test_tolerated_taint_gets_a_pod():
    tol = "tolerations: [{key: dedicated, operator: Exists, effect: NoSchedule}]"
    tainted = THREE + """
---
apiVersion: v1
kind: Node
metadata: {name: gpu-1}
spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}
"""
    s = Session.from_text(tainted + ds_yaml(pod_spec=tol))
    assert "gpu-1" in by_node(s)


def test_new_node_gets_a_pod_and_relabelled_node_loses_it():
    s = Session.from_text(THREE + ds_yaml(pod_spec="nodeSelector: {disk: ssd}"))
    s.store.create(Node(metadata=ObjectMeta(name="node-4", labels={"disk": "ssd"}),
                        status=NodeStatus(capacity=FrozenDict(
                            {"cpu": Quantity("8"), "memory": Quantity("32Gi"),
                             "pods": Quantity("110")}))))
    s.run_for(1)
    assert sorted(by_node(s)) == ["node-1", "node-2", "node-4"]
    node = s.store.get("Node", "node-1")
    update_node(s, "node-1", metadata=node.metadata.with_labels({"disk": "hdd"}))
    s.run_for(1)
    assert sorted(by_node(s)) == ["node-2", "node-4"]
    assert status(s).desired_number_scheduled == 2


def test_deleted_node_is_no_longer_desired_and_its_pending_pod_goes():
    s = Session.from_text(THREE + ds_yaml())
    pod_name = by_node(s)["node-3"]
    was_bound = bool(s.store.get("Pod", pod_name, "kube-system").spec.node_name)
    s.store.remove("Node", "node-3")
    s.run_for(1)
    assert status(s).desired_number_scheduled == 2
    if not was_bound:  # bound ones are the pod garbage collector's, as upstream
        assert s.store.get("Pod", pod_name, "kube-system") is None


def test_status_counts_ready_pods():
    s = Session.from_text(THREE + ds_yaml())
    make_all_ready(s)
    s.run_for(1)
    st = status(s)
    assert (st.desired_number_scheduled, st.current_number_scheduled, st.number_ready,
            st.number_available, st.updated_number_scheduled, st.number_misscheduled) == \
        (3, 3, 3, 3, 3, 0)


def test_template_change_rolls_out_one_node_at_a_time():
    s = Session.from_text(THREE + ds_yaml())
    make_all_ready(s)
    s.run_for(1)
    old = set(by_node(s).values())
    ds = s.store.get("DaemonSet", "agent", "kube-system")
    tmpl = ds.spec.template
    containers = tuple(attrs.evolve(c, image="agent:2") for c in tmpl.spec.containers)
    tmpl = attrs.evolve(tmpl, spec=attrs.evolve(tmpl.spec, containers=containers))
    s.store.update(attrs.evolve(ds, spec=attrs.evolve(ds.spec, template=tmpl)))
    for _ in range(10):
        s.run_for(1)
        live = {p.metadata.name for p in ds_pods(s)}
        # maxUnavailable 1: never more than one node without an old or a ready new pod
        down = [n for n in ("node-1", "node-2", "node-3")
                if not any(target_node(p) == n and (p.metadata.name in old or pod_ready(p))
                           for p in ds_pods(s))]
        assert len(down) <= 1
        for p in s.store.list("Pod", "kube-system"):
            if p.metadata.deletion_timestamp is not None:
                s.store.remove("Pod", p.metadata.name, "kube-system")
        make_all_ready(s)
        if not live & old and len(live) == 3:
            break
    pods = ds_pods(s)
    assert len(pods) == 3 and not {p.metadata.name for p in pods} & old
    assert all(p.spec.containers[0].image == "agent:2" for p in pods)
    s.run_for(1)
    assert status(s).updated_number_scheduled == 3
