"""The metrics controller counts a workload's serving pods from the watch; its pod handler
reads "serving" (Running, not terminating, not marked unready) inline. Held here to
metrics._serving over random pod versions written and deleted."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.core import Pod, PodCondition, PodSpec, PodStatus
from ksandbox.api.meta import ObjectMeta
from ksandbox.apiserver.store import ADDED, DELETED, MODIFIED, WatchEvent
from ksandbox.controllers import metrics
from ksandbox.controllers.metrics import Metrics

LEVELS = (("default", "ReplicaSet", "web-1"), ("default", "Deployment", "web"))
_CONDITIONS = st.sampled_from([
    (),
    (PodCondition(type="Ready", status="True"),),
    (PodCondition(type="Ready", status="False"),),
    (PodCondition(type="PodScheduled", status="True"), PodCondition(type="Ready",
                                                                      status="True")),
    (PodCondition(type="PodScheduled", status="True"),),
])


@st.composite
def _pod(draw: st.DrawFn) -> Pod:
    return Pod(metadata=ObjectMeta(name=draw(st.sampled_from("abc")), namespace="default",
                                   deletion_timestamp=draw(st.sampled_from([None, None, 4.0]))),
               spec=PodSpec(),
               status=PodStatus(phase=draw(st.sampled_from(["Pending", "Running", "Running",
                                                            "Succeeded", "Unknown"])),
                                conditions=draw(_CONDITIONS)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_pod(), st.booleans()), max_size=30))
def test_serving_counts_follow_the_serving_rule(writes: list) -> None:
    m = Metrics.__new__(Metrics)
    m._serving, m._counted = {}, {}
    m._chain = lambda pod: LEVELS   # every pod under one ReplicaSet of one Deployment
    stored: dict[str, Pod] = {}
    for pod, delete in writes:
        name = pod.metadata.name
        old = stored.get(name)
        if delete:
            if old is None:
                continue
            m._pod_event(WatchEvent(DELETED, old, old))
            del stored[name]
        else:
            m._pod_event(WatchEvent(ADDED if old is None else MODIFIED, pod, old))
            stored[name] = pod
        want = sum(1 for p in stored.values() if metrics._serving(p))
        for level in LEVELS:
            assert m._serving.get(level, 0) == want
