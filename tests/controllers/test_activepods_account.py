"""ActivePods.account writes pod_active, pod_ready, labels_cover and _is_plain out in its own
body (the ReplicaSet controller calls it twice a pod write): held here to the helpers' way,
state for state — counts, the pods by node and the special pods in the same order, the nodes
marked — over random pod versions entering and leaving."""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.codec import FrozenDict
from ksandbox.api.core import Pod, PodCondition, PodSpec, PodStatus
from ksandbox.api.meta import ObjectMeta
from ksandbox.controllers import activepods
from ksandbox.controllers.activepods import ActivePods
from ksandbox.controllers.controller_utils import pod_active, pod_ready

WANTED = FrozenDict({"app": "web"})


def plain_account(pods: ActivePods, pod: Pod, sign: int) -> bool:
    """ActivePods.account as it read before the helpers were written out in it."""
    if not pod_active(pod):
        return False
    ready = pod_ready(pod)
    pods.active += sign
    if ready:
        pods.ready += sign
    if pods.labels is not None and activepods.labels_cover(pod.metadata.labels, pods.labels):
        pods.labeled += sign
    node, name = pod.spec.node_name, pod.metadata.name
    if sign > 0:
        pods.nodes.setdefault(node, {})[name] = pod
    else:
        on = pods.nodes.get(node)
        if on is not None:
            on.pop(name, None)
            if not on:
                del pods.nodes[node]
    if not activepods._is_plain(pod, ready):
        if sign > 0:
            pods.special[name] = pod
        else:
            pods.special.pop(name, None)
    pods._dirty.add(node)
    pods._static.pop(node, None)
    return True


_CONDITIONS = st.sampled_from([
    (),
    (PodCondition(type="Ready", status="True", last_transition_time=3.0),),
    (PodCondition(type="Ready", status="False"),),
    (PodCondition(type="PodScheduled", status="True"),
     PodCondition(type="Ready", status="True", last_transition_time=1.0)),
    (PodCondition(type="ContainersReady", status="True"),),
])
_LABELS = st.sampled_from([WANTED, FrozenDict({"app": "web"}), FrozenDict({"app": "db"}),
                           FrozenDict({"app": "web", "tier": "x"}), FrozenDict()])
_COST = st.sampled_from([None, "0", "3", "-2", "not-a-number", "00"])


@st.composite
def _pods(draw: st.DrawFn) -> Pod:
    cost = draw(_COST)
    annotations = {"other": "1"} if draw(st.booleans()) else {}
    if cost is not None:
        annotations[activepods.POD_DELETION_COST] = cost
    return Pod(
        metadata=ObjectMeta(name=draw(st.sampled_from("abcde")), namespace="default",
                            uid=draw(st.sampled_from(["u1", "u2"])),
                            labels=draw(_LABELS), annotations=FrozenDict(annotations),
                            creation_timestamp=1.0,
                            deletion_timestamp=draw(st.sampled_from([None, None, 5.0]))),
        spec=PodSpec(node_name=draw(st.sampled_from(["", "n1", "n2", "n3"]))),
        status=PodStatus(phase=draw(st.sampled_from(
            ["Pending", "Running", "Running", "Succeeded", "Failed", "Unknown"])),
            conditions=draw(_CONDITIONS)))


def _state(pods: ActivePods) -> tuple:
    return (pods.active, pods.ready, pods.labeled,
            [(node, [(name, id(p)) for name, p in on.items()]) for node, on in pods.nodes.items()],
            [(name, id(p)) for name, p in pods.special.items()],
            sorted(pods._dirty), list(pods._static))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_pods(), st.booleans(), st.booleans()), max_size=40),
       st.booleans())
def test_account_keeps_the_state_the_helpers_keep(steps: list, labeled: bool) -> None:
    fast, plain = ActivePods(), ActivePods()
    fast.labels = plain.labels = WANTED if labeled else None
    entered: dict[str, Pod] = {}   # name -> the version that entered last
    for pod, leave_first, stale in steps:
        name = pod.metadata.name
        for pods in (fast, plain):   # a node's order, to be dropped by the next account
            pods._static[pod.spec.node_name] = []
        if leave_first and name in entered:
            # a write: the old version leaves (or, now and then, another version does)
            old = pod if stale else entered[name]
            assert fast.account(old, -1) == plain_account(plain, old, -1)
            assert _state(fast) == _state(plain)
        assert fast.account(pod, 1) == plain_account(plain, pod, 1)
        assert _state(fast) == _state(plain)
        entered[name] = pod
    for pod in entered.values():
        assert fast.account(pod, -1) == plain_account(plain, pod, -1)
        assert _state(fast) == _state(plain)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_pods(), st.booleans(), st.booleans()), max_size=40),
       st.booleans())
def test_swap_keeps_the_state_of_a_leave_then_an_enter(steps: list, labeled: bool) -> None:
    """swap(old, new) (the ReplicaSet controller's call for a write that keeps the pod's
    controller) leaves the state account(old, -1) then account(new, 1) leave, and tells
    which of the two counted."""
    fast, plain = ActivePods(), ActivePods()
    fast.labels = plain.labels = WANTED if labeled else None
    entered: dict[str, Pod] = {}
    for pod, relabel, stale in steps:
        name = pod.metadata.name
        for pods in (fast, plain):
            pods._static[pod.spec.node_name] = []
        old = entered.get(name)
        if old is None:
            assert fast.account(pod, 1) == plain.account(pod, 1)
        else:
            if stale:
                old = pod   # now and then the same version leaves and enters
            elif not relabel:
                # most writes keep the labels object (the labeled shortcut's case)
                pod = Pod(metadata=attrs.evolve(pod.metadata, labels=old.metadata.labels),
                          spec=pod.spec, status=pod.status)
            left = plain.account(old, -1)
            came = plain.account(pod, 1)
            assert fast.swap(old, pod) == left + 2 * came
        assert _state(fast) == _state(plain)
        entered[name] = pod
