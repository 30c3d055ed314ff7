"""Store.update_fields, the one-field write a lease renewal takes: the stored object, the
resourceVersion, the settled-run clock and what every watcher hears are those of the plain
``update(evolve(old, ...))`` (upstream: a kubelet's lease renewal is an ordinary PUT of the
Lease, pkg/kubelet/nodelease/controller.go; this is only a cheaper way to the same write)."""

from __future__ import annotations

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
