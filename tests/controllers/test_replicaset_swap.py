"""The ReplicaSet controller's _swap (OwnerHandler's one call for a pod write that keeps its
controller) against _account of the old version leaving and the new one entering: the same
counts and order of every ReplicaSet's pods, the same family counts per node, and the same
nodes marked on each sibling when a pick flushes the family's changes — although _swap takes
no family step for a pod that stays active on its node."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.core import Pod, PodCondition, PodSpec, PodStatus
from ksandbox.api.meta import ObjectMeta
from ksandbox.controllers.activepods import ActivePods
from ksandbox.controllers.replicaset import ReplicaSetController

# two ReplicaSets of one Deployment (siblings), one of another, one without a parent
PARENTS = {"r1": "d1", "r2": "d1", "r3": "d2", "r4": None}


def _controller() -> ReplicaSetController:
    rc = ReplicaSetController.__new__(ReplicaSetController)
    rc.counts = {}
    rc._parent = {uid: p for uid, p in PARENTS.items() if p is not None}
    rc._siblings = {}
    for uid, p in rc._parent.items():
        rc._siblings.setdefault(p, set()).add(uid)
    rc._family = {}
    rc._touched = {}
    return rc


_READY = (PodCondition(type="Ready", status="True", last_transition_time=2.0),)


@st.composite
def _pod(draw: st.DrawFn, name: str) -> Pod:
    return Pod(
        metadata=ObjectMeta(name=name, namespace="default", uid=f"p-{name}",
                            creation_timestamp=1.0,
                            deletion_timestamp=draw(st.sampled_from([None, None, None, 9.0]))),
        spec=PodSpec(node_name=draw(st.sampled_from(["", "n1", "n1", "n2", "n3"]))),
        status=PodStatus(phase=draw(st.sampled_from(["Pending", "Running", "Running",
                                                     "Succeeded"])),
                         conditions=draw(st.sampled_from([(), _READY]))))


@st.composite
def _ops(draw: st.DrawFn) -> list:
    ops = []
    for _ in range(draw(st.integers(0, 60))):
        kind = draw(st.sampled_from(["write", "write", "write", "flush", "settle"]))
        if kind == "write":
            name = draw(st.sampled_from("abcdef"))
            ops.append(("write", name, draw(st.sampled_from(sorted(PARENTS))),
                        draw(_pod(name))))
        else:
            ops.append((kind, draw(st.sampled_from(["d1", "d2"]))))
    return ops


def _state(pods: ActivePods) -> tuple:
    return (pods.active, pods.ready, pods.labeled,
            [(node, [(name, id(p)) for name, p in on.items()]) for node, on in pods.nodes.items()],
            [(name, id(p)) for name, p in pods.special.items()],
            sorted(pods._dirty), list(pods._static))


def _compare(fast: ReplicaSetController, plain: ReplicaSetController) -> None:
    assert fast.counts.keys() == plain.counts.keys()
    for uid in fast.counts:
        assert _state(fast.counts[uid]) == _state(plain.counts[uid])
    assert {p: dict(f) for p, f in fast._family.items() if f} == \
        {p: dict(f) for p, f in plain._family.items() if f}


@settings(max_examples=300, deadline=None)
@given(_ops())
def test_swap_leaves_what_a_leave_and_an_enter_leave(ops: list) -> None:
    fast, plain = _controller(), _controller()
    owner: dict[str, tuple[str, Pod]] = {}   # pod name -> (its ReplicaSet's uid, version)
    for op in ops:
        if op[0] == "write":
            _, name, uid, pod = op
            held = owner.get(name)
            if held is not None and held[0] == uid:
                fast._swap(uid, held[1], pod)
                plain._account(uid, held[1], -1)
                plain._account(uid, pod, 1)
            else:   # a new pod (or one that changed controller): one side each
                if held is not None:
                    fast._account(held[0], held[1], -1)
                    plain._account(held[0], held[1], -1)
                fast._account(uid, pod, 1)
                plain._account(uid, pod, 1)
            owner[name] = (uid, pod)
        elif op[0] == "settle":
            # a pick's refresh takes the marked nodes: what a flush marks after shows
            for rc in (fast, plain):
                for c in rc.counts.values():
                    c._dirty.clear()
        else:
            fast._flush_ranks(op[1])
            plain._flush_ranks(op[1])
        _compare(fast, plain)
