"""Store.write_status, the status subresource write with the object built once: the stored
object, the resourceVersion, the pod-by-node index, the settled-run clock and what every
watcher hears are those of the plain ``update_status(evolve(obj, status=status))`` (upstream:
the status strategies' PrepareForUpdate keep the stored spec and metadata,
pkg/registry/core/pod/strategy.go podStatusStrategy; this is only a cheaper way to the same
write) — for a pod on a node, a stale copy of it, a ReplicaSet (a kind with generations),
an unbound pod and a write about an object that is gone."""

from __future__ import annotations

import attrs
import pytest

from ksandbox.api.core import PodCondition
from ksandbox.api.errors import ApiError
from ksandbox.api.evolve import evolve
from ksandbox.api.manifest import load_manifests
from ksandbox.apiserver.store import Store, apply_all
from ksandbox.sim.rand import SimRandom

SETUP = """
apiVersion: v1
kind: Namespace
metadata: {name: default}
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: bound, labels: {app: a}}
spec: {nodeName: node-1, containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: pending}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  replicas: 2
  selector: {matchLabels: {app: a}}
  template:
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: nginx}]}
"""


class _Now:
    now = 0.0


def _store() -> tuple[Store, _Now, list]:
    clock = _Now()
    store = Store(lambda: clock.now, SimRandom(1))
    apply_all(store, load_manifests(SETUP))
    heard: list = []
    store.subscribe("Pod", lambda ev: heard.append(("pod", ev.type, ev.obj, ev.old)))
    store.subscribe("ReplicaSet", lambda ev: heard.append(("rs", ev.type, ev.obj, ev.old)))
    store.subscribe(None, lambda ev: heard.append(("all", ev.type, ev.obj, ev.old)))
    return store, clock, heard


def _fields(obj: object) -> list:
    return [getattr(obj, a.name) for a in attrs.fields(type(obj))]


def _same(a: object, b: object) -> None:
    assert type(a) is type(b) and a == b
    assert _fields(a.metadata) == _fields(b.metadata)    # type: ignore[attr-defined]
    # what the write keeps is the stored object's own (same objects, not copies)
    for name in ("spec", "extra"):
        x, y = getattr(a, name, None), getattr(b, name, None)
        assert x == y
    assert a.status == b.status    # type: ignore[attr-defined]


def _warm_twins(*classes: type) -> None:
    """Build each class until it has its building twin (write_status's one-frame build, the
    stamped metadata and the object together, needs the twins of both classes)."""
    from ksandbox.api import codec
    for cls in classes:
        for _ in range(codec.WARM_BUILDS):
            if codec.BUILDING_TWINS.get(cls) is not None:
                break
            cls()


@pytest.mark.parametrize("warm", [True, False])
@pytest.mark.parametrize("quiet", [True, False])
def test_write_status_equals_update_status_of_the_evolved_object(quiet: bool,
                                                                 warm: bool) -> None:
    from ksandbox.api.apps import ReplicaSet
    from ksandbox.api.core import Pod
    from ksandbox.api.meta import ObjectMeta
    from ksandbox.apiserver import store as store_mod
    if warm:
        _warm_twins(Pod, ReplicaSet, ObjectMeta)
    fast, fast_clock, fast_heard = _store()
    slow, slow_clock, slow_heard = _store()
    stale_fast = fast.get("Pod", "bound", "default")
    stale_slow = slow.get("Pod", "bound", "default")
    steps = [("Pod", "bound", False), ("Pod", "pending", False), ("ReplicaSet", "rs", False),
             ("Pod", "bound", True), ("Pod", "bound", False), ("ReplicaSet", "rs", False)]
    for i, (kind, name, stale) in enumerate(steps):
        fast_clock.now = slow_clock.now = 10.0 + i
        if stale:   # a copy read before the last write: the stored one takes the status
            cur_fast, cur_slow = stale_fast, stale_slow
        else:
            cur_fast, cur_slow = fast.get(kind, name, "default"), slow.get(kind, name, "default")
        if kind == "Pod":
            status = evolve(cur_fast.status, phase="Running", conditions=(
                PodCondition(type="Ready", status="True", last_transition_time=float(i)),))
        else:
            status = evolve(cur_fast.status, replicas=i, observed_generation=1)
        a = fast.write_status(cur_fast, status, quiet=quiet)
        b = slow.update_status(evolve(cur_slow, status=status), quiet=quiet)
        _same(a, b)
        assert a.status is status
        assert a is fast.get(kind, name, "default") and b is slow.get(kind, name, "default")
        assert a.spec is fast.get(kind, name, "default").spec
        assert fast.resource_version == slow.resource_version
        assert a.metadata.resource_version == str(fast.resource_version)
        assert fast.last_change_time == slow.last_change_time
        assert fast.last_change_time == (0.0 if quiet else 10.0 + i)
    assert fast.get("ReplicaSet", "rs", "default").metadata.generation == \
        slow.get("ReplicaSet", "rs", "default").metadata.generation == 1
    # the pod index serves the new version
    assert [p.metadata.resource_version for p in fast.pods_on_node("node-1")] == \
        [p.metadata.resource_version for p in slow.pods_on_node("node-1")]
    assert fast.pods_on_node("node-1")[0] is fast.get("Pod", "bound", "default")
    if warm:   # the writes took the one-frame build
        for cls in (Pod, ReplicaSet):
            assert store_mod._STAMPED_STATUS[cls] is not store_mod._NO_BUILD
    # every watcher heard the same events in the same order, each with its old object
    assert len(fast_heard) == len(slow_heard) == 2 * len(steps)
    for (w1, t1, o1, old1), (w2, t2, o2, old2) in zip(fast_heard, slow_heard):
        assert (w1, t1) == (w2, t2)
        _same(o1, o2)
        _same(old1, old2)


def test_write_status_of_an_object_that_is_gone_is_refused_like_update_status() -> None:
    store, _, heard = _store()
    pod = store.get("Pod", "pending", "default")
    rv = store.resource_version
    store.remove("Pod", "pending", "default")
    with pytest.raises(ApiError) as fast:
        store.write_status(pod, pod.status)
    with pytest.raises(ApiError) as slow:
        store.update_status(evolve(pod, status=pod.status))
    assert str(fast.value) == str(slow.value)
    assert store.resource_version == rv + 1   # the removal's only


@pytest.mark.parametrize("grace", [None, 7])
def test_a_graceful_delete_equals_the_write_of_the_marked_object(grace: int | None) -> None:
    """Store.delete marks a bound pod with its metadata built once: the stored pod, the
    resourceVersion, the pod index and what every watcher hears are those of the plain
    ``_write(obj, evolve(obj, metadata=evolve(meta, deletion_timestamp=..., ...)))`` — with
    the generation one up (apiserver rest.BeforeDelete; a plain write keeps it)."""

    def bumped(pod):
        return evolve(pod, metadata=evolve(pod.metadata,
                                           generation=pod.metadata.generation + 1))

    fast, fast_clock, fast_heard = _store()
    slow, slow_clock, slow_heard = _store()
    fast_clock.now = slow_clock.now = 12.5
    before = fast.get("Pod", "bound", "default")
    a = fast.delete("Pod", "bound", "default", grace_period=grace)
    old = slow.get("Pod", "bound", "default")
    wait = 30 if grace is None else grace
    marked = evolve(old, metadata=evolve(old.metadata, deletion_timestamp=12.5 + wait,
                                         deletion_grace_period_seconds=wait))
    b = slow._write(old, marked, False)
    _same(a, bumped(b))
    assert a.spec is before.spec and a.status is before.status
    assert a.metadata.deletion_timestamp == 12.5 + wait
    assert a.metadata.uid == before.metadata.uid
    assert a.metadata.generation == before.metadata.generation + 1 == 2
    assert a is fast.get("Pod", "bound", "default")
    assert fast.resource_version == slow.resource_version
    assert a.metadata.resource_version == str(fast.resource_version)
    assert fast.last_change_time == slow.last_change_time == 12.5
    assert fast.pods_on_node("node-1")[0] is a
    assert len(fast_heard) == len(slow_heard) == 2
    for (w1, t1, o1, old1), (w2, t2, o2, old2) in zip(fast_heard, slow_heard):
        assert (w1, t1) == (w2, t2)
        _same(o1, bumped(o2))
        _same(old1, old2)
    # marked already: a second delete changes nothing
    assert fast.delete("Pod", "bound", "default") is a
