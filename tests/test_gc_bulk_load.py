"""A big load builds its cluster without the cycle collector and freezes it after
(gcpolicy.bulk_load, around the Session's load): the collections that walked hundreds of
thousands of long-lived objects for nothing during the load (~0.4 CPU s of a 150,000-pod
one) do not run, and later full collections do not walk the loaded cluster again. Only the
collector's work changes: the session is the same. Small loads leave the collector alone,
and a refused load freezes nothing."""

from __future__ import annotations

import gc

import pytest

from ksandbox import gcpolicy
from ksandbox.api.errors import ValidationError
from ksandbox.session import Session

CLUSTER = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: p{i}}}
spec:
  nodeName: n1
  containers: [{{name: c, image: nginx:1.25, resources: {{requests: {{cpu: 10m}}}}}}]
""" for i in range(30))


@pytest.fixture
def collections():
    """The collections run while the test runs, by generation; nothing left frozen after."""
    seen = [0, 0, 0]

    def count(phase, info):
        if phase == "start":
            seen[info["generation"]] += 1

    gc.callbacks.append(count)
    frozen = gc.get_freeze_count()
    try:
        yield seen
    finally:
        gc.callbacks.remove(count)
        if gc.get_freeze_count() != frozen:
            gc.unfreeze()


def test_a_big_load_runs_no_collection_and_freezes_what_it_built(collections, monkeypatch):
    """From the first write of the load to the end of its t=0 run no collection runs (with
    thresholds that collect at every allocation otherwise), and the result is frozen."""
    import ksandbox.session as session_module

    monkeypatch.setattr(gcpolicy, "FREEZE_LOAD_OBJECTS", 10)
    marks: dict[str, list[int]] = {}
    real_apply, real_run = session_module.apply_all, Session._run_clock

    def apply_all(*args, **kwargs):
        marks["load starts"] = list(collections)
        return real_apply(*args, **kwargs)

    def run_clock(self, t):
        real_run(self, t)
        marks["t=0 ran"] = list(collections)

    monkeypatch.setattr(session_module, "apply_all", apply_all)
    monkeypatch.setattr(Session, "_run_clock", run_clock)
    old = gc.get_threshold()
    gc.set_threshold(1, 1, 1)   # a collection at every allocation, wherever one may run
    try:
        before = gc.get_freeze_count()
        s = Session.from_text(CLUSTER)
    finally:
        gc.set_threshold(*old)
    assert sum(marks["load starts"]) > 0   # (the thresholds do collect outside the load)
    assert marks["t=0 ran"] == marks["load starts"]
    assert gc.isenabled()
    assert gc.get_freeze_count() > before
    plain = _plain_session(monkeypatch)
    s.run_until(30)
    plain.run_until(30)
    assert s.view() == plain.view()


def _plain_session(monkeypatch) -> Session:
    monkeypatch.setattr(gcpolicy, "FREEZE_LOAD_OBJECTS", 10 ** 9)
    return Session.from_text(CLUSTER)


def test_a_small_load_leaves_the_collector_alone(collections):
    before = gc.get_freeze_count()
    Session.from_text(CLUSTER)
    assert gc.get_freeze_count() == before and gc.isenabled()


def test_a_refused_load_freezes_nothing(collections, monkeypatch):
    monkeypatch.setattr(gcpolicy, "FREEZE_LOAD_OBJECTS", 10)
    before = gc.get_freeze_count()
    with pytest.raises(ValidationError):
        Session.from_text(CLUSTER + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: bad_Name}\n"
                          "spec: {containers: [{name: c, image: i}]}\n")
    assert gc.get_freeze_count() == before and gc.isenabled()
