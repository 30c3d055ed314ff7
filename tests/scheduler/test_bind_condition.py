"""The bind's PodScheduled=True condition: pods bound at one simulated instant share one
immutable condition made at that instant; a later bind gets its own time. Each bound pod's
status must equal what upstream's binding writes (podutil.UpdatePodCondition of a fresh
PodScheduled=True at the bind time — pkg/scheduler/schedule_one.go, handleBindingCycle's
status): the condition list built the plain way (Scheduler._set_condition of a new condition)."""

from ksandbox.api.core import PodCondition
from ksandbox.scheduler.scheduler import _set_condition
from ksandbox.session import Session

NODES = "".join(f"""---
apiVersion: v1
kind: Node
metadata: {{name: n{i}}}
status:
  allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
""" for i in range(3))


def _pod(name: str) -> str:
    return f"""---
apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 100m}}}}}}]
"""


def _scheduled(pod):
    return [c for c in pod.status.conditions if c.type == "PodScheduled"]


def test_pods_bound_at_one_instant_share_the_condition_and_later_ones_get_their_time():
    s = Session.from_text(NODES + "".join(_pod(f"a{i}") for i in range(4)))
    s.settle()
    first = [s.store.get("Pod", f"a{i}", "default") for i in range(4)]
    t0 = _scheduled(first[0])[0].last_transition_time
    assert all(p.spec.node_name for p in first)
    assert len({id(_scheduled(p)[0]) for p in first}) == 1   # one object for the instant
    s.run_until(s.now + 30)
    s.apply_objects([o for o in Session.from_text(_pod("late")).initial_objects
                     if o.kind == "Pod"])
    s.settle()
    late = s.store.get("Pod", "late", "default")
    (cond,) = _scheduled(late)
    assert late.spec.node_name and cond.status == "True"
    assert cond.last_transition_time > t0


def test_the_bind_condition_equals_the_plain_update():
    now = 12.5
    made = PodCondition(type="PodScheduled", status="True", last_transition_time=now)
    fresh = PodCondition(type="PodScheduled", status="True")
    for before in ((), (PodCondition(type="Ready", status="False"),),
                   (PodCondition(type="PodScheduled", status="False", reason="Unschedulable",
                                 message="0/3 nodes", last_transition_time=3.0),)):
        assert _set_condition(before, made, now) == _set_condition(before, fresh, now)
    # a condition already True keeps its transition time (and the tuple itself)
    kept = (PodCondition(type="PodScheduled", status="True", last_transition_time=1.0),)
    assert _set_condition(kept, made, now) is kept


def test_pods_with_no_condition_bound_at_one_instant_share_the_plain_conditions():
    """As bound (before the kubelet writes its own): one conditions tuple for the instant's
    pods that had none, equal to the plain update's."""
    s = Session.from_text(NODES)
    s.settle()
    bound = []
    s.store.subscribe("Pod", lambda ev: bound.append(ev.obj) if ev.obj.spec.node_name and (
        ev.old is None or not ev.old.spec.node_name) else None)
    s.apply_objects([o for o in Session.from_text("".join(_pod(f"a{i}") for i in range(4)))
                     .initial_objects if o.kind == "Pod"])
    s.settle()
    assert len(bound) == 4
    assert len({id(p.status.conditions) for p in bound}) == 1
    cond = _scheduled(bound[0])[0]
    assert bound[0].status.conditions == _set_condition((), cond, cond.last_transition_time)
