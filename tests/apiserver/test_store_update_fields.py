"""Store.update_fields, the one-field write a lease renewal takes: the stored object, the
resourceVersion, the settled-run clock and what every watcher hears are those of the plain
``update(evolve(old, ...))`` (upstream: a kubelet's lease renewal is an ordinary PUT of the
Lease, pkg/kubelet/nodelease/controller.go; this is only a cheaper way to the same write)."""

from __future__ import annotations

import attrs
import pytest

from ksandbox.api.coordination import NAMESPACE_NODE_LEASE, Lease, LeaseSpec
from ksandbox.api.errors import ApiError, ValidationError
from ksandbox.api.evolve import evolve
from ksandbox.api.manifest import load_manifests
from ksandbox.api.meta import ObjectMeta, OwnerReference
from ksandbox.api.taints import Taint
from ksandbox.apiserver.store import Store, apply_all
from ksandbox.sim.rand import SimRandom

SETUP = """
apiVersion: v1
kind: Namespace
metadata: {name: default}
---
apiVersion: v1
kind: Namespace
metadata: {name: kube-node-lease}
---
apiVersion: v1
kind: Node
metadata: {name: node-1, labels: {zone: a}}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "110"}}
"""


class _Now:
    now = 0.0


def _store() -> tuple[Store, _Now, list]:
    clock = _Now()
    store = Store(lambda: clock.now, SimRandom(1))
    apply_all(store, load_manifests(SETUP))
    owner = OwnerReference(api_version="v1", kind="Node", name="node-1", uid="u-1")
    store.create(Lease(metadata=ObjectMeta(name="node-1", namespace=NAMESPACE_NODE_LEASE,
                                           labels={"a": "b"}, owner_references=(owner,)),
                       spec=LeaseSpec(holder_identity="node-1", lease_duration_seconds=40,
                                      renew_time=0.0, lease_transitions=2),
                       extra={"x-extra": 1}))
    heard: list = []
    store.subscribe("Lease", lambda ev: heard.append(("lease", ev.type, ev.obj, ev.old)))
    store.subscribe(None, lambda ev: heard.append(("all", ev.type, ev.obj, ev.old)))
    return store, clock, heard


def _lease(store: Store) -> Lease:
    return store.get("Lease", "node-1", NAMESPACE_NODE_LEASE)


@pytest.mark.parametrize("quiet", [True, False])
def test_a_renewal_through_update_fields_equals_a_plain_update(quiet: bool) -> None:
    fast, fast_clock, fast_heard = _store()
    slow, slow_clock, slow_heard = _store()
    for t in (10.0, 20.0, 30.5):
        fast_clock.now = slow_clock.now = t
        old_fast, old_slow = _lease(fast), _lease(slow)
        a = fast.update_fields(old_fast, ("spec",), evolve(old_fast.spec, renew_time=t),
                               quiet=quiet)
        b = slow.update(evolve(old_slow, spec=evolve(old_slow.spec, renew_time=t)),
                        quiet=quiet)
        assert a == b and a.metadata == b.metadata and a.spec == b.spec
        for field in ("resource_version", "uid", "creation_timestamp", "generation",
                      "labels", "owner_references", "name", "namespace"):
            assert getattr(a.metadata, field) == getattr(b.metadata, field), field
        assert a.spec.renew_time == t and a.extra == {"x-extra": 1}
        assert a is _lease(fast) and b is _lease(slow)
        assert fast.resource_version == slow.resource_version
        assert fast.last_change_time == slow.last_change_time
        assert fast.last_change_time == (0.0 if quiet else t)
    # Every watcher heard the same events, in the same order, each with its old object.
    assert [(w, t, o) for w, t, o, _ in fast_heard] == [(w, t, o) for w, t, o, _ in slow_heard]
    assert [old.spec.renew_time for *_, old in fast_heard] == \
        [old.spec.renew_time for *_, old in slow_heard] == [0.0, 0.0, 10.0, 10.0, 20.0, 20.0]
    assert len(fast_heard) == 6


def test_a_stale_object_takes_the_checked_update() -> None:
    store, clock, _ = _store()
    stale = _lease(store)
    store.update_fields(stale, ("spec",), evolve(stale.spec, renew_time=5.0))
    # ``stale`` is no longer what the store holds: the plain update path writes it (a PUT
    # carries no resourceVersion precondition here), still one write and one new version.
    rv = store.resource_version
    out = store.update_fields(stale, ("spec",), evolve(stale.spec, renew_time=6.0))
    assert out.spec.renew_time == 6.0 and store.resource_version == rv + 1
    store.remove("Lease", "node-1", NAMESPACE_NODE_LEASE)
    with pytest.raises(ApiError):
        store.update_fields(out, ("spec",), evolve(out.spec, renew_time=7.0))


def test_a_kind_with_rules_is_still_validated() -> None:
    store, _, _ = _store()
    node = store.get("Node", "node-1")
    bad = (Taint(key="bad key!", effect="NoSchedule"),)
    with pytest.raises(ValidationError):
        store.update_fields(node, ("spec",), evolve(node.spec, taints=bad))
    assert store.get("Node", "node-1") is node


# -- Store.write_field: the renewal as a kubelet writes it -----------------------------------


def _warm_twins(*classes: type) -> None:
    """Build each class until it has its building twin (write_field's one-frame build needs
    the twins of the object's, its metadata's and its part's classes)."""
    from ksandbox.api import codec
    for cls in classes:
        for _ in range(codec.WARM_BUILDS):
            if codec.BUILDING_TWINS.get(cls) is not None:
                break
            cls()


@pytest.mark.parametrize("quiet", [True, False])
@pytest.mark.parametrize("warm", [True, False])
def test_write_field_equals_the_plain_update_of_the_evolved_part(quiet: bool,
                                                                 warm: bool) -> None:
    from ksandbox.apiserver import store as store_mod
    if warm:
        _warm_twins(Lease, ObjectMeta, LeaseSpec)
    fast, fast_clock, fast_heard = _store()
    slow, slow_clock, slow_heard = _store()
    for i in range(80):   # past the twins' warm-up when they are cold
        t = 10.0 * i + 0.25
        fast_clock.now = slow_clock.now = t
        old_fast, old_slow = _lease(fast), _lease(slow)
        a = fast.write_field("Lease", "node-1", NAMESPACE_NODE_LEASE, "spec", "renew_time", t,
                             quiet=quiet)
        b = slow.update(evolve(old_slow, spec=evolve(old_slow.spec, renew_time=t)),
                        quiet=quiet)
        assert type(a) is Lease and type(a.metadata) is ObjectMeta and type(a.spec) is LeaseSpec
        assert a == b and a.metadata == b.metadata and a.spec == b.spec
        # everything not written is the old object's own value, by identity
        for field in ("api_version", "kind", "extra"):
            assert getattr(a, field) is getattr(old_fast, field), field
        for field in ("uid", "creation_timestamp", "generation", "labels", "owner_references",
                      "name", "namespace", "annotations", "finalizers", "extra"):
            assert getattr(a.metadata, field) is getattr(old_fast.metadata, field), field
        for field in ("holder_identity", "lease_duration_seconds", "acquire_time",
                      "lease_transitions", "extra"):
            assert getattr(a.spec, field) is getattr(old_fast.spec, field), field
        assert a.spec.renew_time == t and a.metadata.resource_version == str(fast.resource_version)
        assert a is _lease(fast) and b is _lease(slow)
        assert fast.resource_version == slow.resource_version
        assert fast.last_change_time == slow.last_change_time == (0.0 if quiet else t)
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            a.spec.renew_time = 1.0
    assert [(w, t, o) for w, t, o, _ in fast_heard] == [(w, t, o) for w, t, o, _ in slow_heard]
    assert [old for *_, old in fast_heard[::2]] == [old for *_, old in slow_heard[::2]]
    # the one-frame build is the one that wrote the later renewals
    build = store_mod._PART_BUILD.get((Lease, "spec", "renew_time"))
    assert build is not None and build is not store_mod._NO_BUILD


def test_write_field_of_nothing_writes_nothing() -> None:
    store, _, heard = _store()
    rv = store.resource_version
    assert store.write_field("Lease", "node-2", NAMESPACE_NODE_LEASE, "spec", "renew_time",
                             1.0) is None
    assert store.resource_version == rv and heard == []


def test_write_field_of_a_kind_with_rules_is_still_validated() -> None:
    store, _, heard = _store()
    node = store.get("Node", "node-1")
    with pytest.raises(ValidationError):
        store.write_field("Node", "node-1", "", "spec", "taints",
                          (Taint(key="bad key!", effect="NoSchedule"),))
    assert store.get("Node", "node-1") is node and heard == []
    out = store.write_field("Node", "node-1", "", "spec", "unschedulable", True)
    assert out.spec.unschedulable is True and out is store.get("Node", "node-1")
    assert [(w, t) for w, t, *_ in heard] == [("all", "MODIFIED")]


# -- Store.field_writer: write_field by the table key, its build found once per class -------


@pytest.mark.parametrize("warm", [True, False])
def test_field_writer_writes_as_write_field(warm: bool) -> None:
    if warm:
        _warm_twins(Lease, ObjectMeta, LeaseSpec)
    fast, fast_clock, fast_heard = _store()
    slow, slow_clock, slow_heard = _store()
    write = fast.field_writer("Lease", "spec", "renew_time")
    assert fast.field_writer("Lease", "spec", "renew_time") is write   # one for the store
    key = (NAMESPACE_NODE_LEASE, "node-1")
    delegated: list = []
    plain_write_field = fast.write_field
    for i in range(80):   # past the twins' warm-up when they are cold
        t = 10.0 * i + 0.25
        quiet = i % 3 != 0
        fast_clock.now = slow_clock.now = t
        if i == 70:   # the one-frame build writes the later renewals (no write_field)
            fast.write_field = lambda *a, **k: delegated.append(a) or plain_write_field(*a, **k)
        a = write(key, t, quiet)
        b = slow.write_field("Lease", "node-1", NAMESPACE_NODE_LEASE, "spec", "renew_time", t,
                             quiet=quiet)
        assert type(a) is Lease and a == b and a.metadata == b.metadata and a.spec == b.spec
        assert a.extra == b.extra and a is _lease(fast)
        assert fast.resource_version == slow.resource_version
        assert fast.last_change_time == slow.last_change_time
    assert delegated == []
    assert write((NAMESPACE_NODE_LEASE, "node-2"), 1.0, False) is None
    assert [(w, t, o) for w, t, o, _ in fast_heard] == [(w, t, o) for w, t, o, _ in slow_heard]
    assert [old for *_, old in fast_heard[::2]] == [old for *_, old in slow_heard[::2]]


def test_field_writer_of_a_kind_with_rules_is_still_validated() -> None:
    store, _, heard = _store()
    node = store.get("Node", "node-1")
    with pytest.raises(ValidationError):
        store.field_writer("Node", "spec", "taints")(
            ("", "node-1"), (Taint(key="bad key!", effect="NoSchedule"),), False)
    assert store.get("Node", "node-1") is node and heard == []
    out = store.field_writer("Node", "spec", "unschedulable")(("", "node-1"), True, False)
    assert out.spec.unschedulable is True and out is store.get("Node", "node-1")
    assert [(w, t) for w, t, *_ in heard] == [("all", "MODIFIED")]
