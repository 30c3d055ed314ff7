"""The shared informers: pods (and ReplicaSets) by controller uid and orphans by namespace,
one index per control plane that every workload controller reads.

The index mirrors upstream's pod indexer ``controller.AddPodControllerUIDIndexer``
(pkg/controller/controller_utils.go); the handler's calls mirror what each controller's own
watch used to hear.
"""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.core import Container, Namespace, Pod, PodSpec
from ksandbox.api.meta import ObjectMeta, OwnerReference
from ksandbox.apiserver.informers import Informers, OwnerHandler
from ksandbox.apiserver.store import Store
from ksandbox.session import Session
from ksandbox.sim.clock import Clock
from ksandbox.sim.rand import SimRandom


def _pod(name: str, *owners: OwnerReference) -> Pod:
    return Pod(metadata=ObjectMeta(name=name, namespace="default", owner_references=owners),
               spec=PodSpec(containers=(Container(name="c", image="nginx"),)))


def _ref(kind: str, name: str, uid: str, controller: bool = True) -> OwnerReference:
    return OwnerReference(api_version="apps/v1", kind=kind, name=name, uid=uid,
                          controller=controller)


def _store() -> Store:
    clock = Clock()
    store = Store(lambda: clock.now, SimRandom(1))
    store.create(Namespace(metadata=ObjectMeta(name="default")))
    return store


def test_pods_are_indexed_by_their_controller_and_orphans_by_namespace():
    store = _store()
    inf = Informers(store)
    store.create(_pod("a", _ref("ReplicaSet", "web", "u1")))
    store.create(_pod("b", _ref("DaemonSet", "agent", "u2")))
    store.create(_pod("c"))
    store.create(_pod("d", _ref("ReplicaSet", "web", "u9", controller=False)))  # not a controller
    assert list(inf.pods.owned("u1")) == ["a"]
    assert list(inf.pods.owned("u2")) == ["b"]
    assert sorted(inf.pods.orphans("default")) == ["c", "d"]
    assert inf.pods.orphans("other") == {}
    assert inf.pods.owned("nobody") == {}


def test_adoption_release_and_deletion_move_a_pod_between_the_tables():
    store = _store()
    inf = Informers(store)
    pod = store.create(_pod("a"))
    adopted = store.update(Pod(metadata=ObjectMeta(
        name="a", namespace="default", uid=pod.metadata.uid,
        resource_version=pod.metadata.resource_version,
        creation_timestamp=pod.metadata.creation_timestamp,
        owner_references=(_ref("ReplicaSet", "web", "u1"),)), spec=pod.spec))
    assert inf.pods.orphans("default") == {} and list(inf.pods.owned("u1")) == ["a"]
    assert inf.pods.owned("u1")["a"] is adopted
    store.remove("Pod", "a", "default")
    assert inf.pods.owned("u1") == {} and inf.pods.orphans("default") == {}


def test_a_controllers_handler_hears_only_its_own_kind_and_orphans():
    store = _store()
    inf = Informers(store)
    heard: list[tuple[str | None, str]] = []
    counts: list[tuple[str, str, int]] = []
    store.subscribe("Pod", inf.pods.handler(
        "ReplicaSet", lambda ns, owner, ev: heard.append((owner, ev.obj.metadata.name)),
        lambda uid, pod, sign: counts.append((uid, pod.metadata.name, sign))))
    store.create(_pod("a", _ref("ReplicaSet", "web", "u1")))
    store.create(_pod("b", _ref("Job", "batch", "u3")))       # another kind's: not heard
    store.create(_pod("c"))                                    # an orphan: heard, owner None
    assert heard == [("web", "a"), (None, "c")]
    assert counts == [("u1", "a", 1)]


def test_one_index_serves_every_workload_controller_of_a_session():
    """No controller keeps a private pod index, and none reads another controller's."""
    s = Session.from_text("")
    from ksandbox.controllers.base import Controller

    controllers = [c for c in s.components
                   if type(c).__module__.startswith("ksandbox.controllers")]
    holders = [c for c in controllers if getattr(c, "pods", None) is s.cp.informers.pods]
    assert {type(c).__name__ for c in holders} >= {
        "ReplicaSetController", "ReplicationControllerController", "DaemonSetController",
        "StatefulSetController", "JobController", "DeploymentController"}
    for c in controllers:
        for name, value in vars(c).items():
            assert not isinstance(value, Controller) or value is c, \
                f"{type(c).__name__}.{name} holds another controller"


_OWNERS = (None, ("ReplicaSet", "web", "u1"), ("ReplicaSet", "api", "u2"), ("Job", "batch", "u3"),
           ("ReplicaSet", "web", "u1", False))


def _apply_owner_ops(store, ops) -> None:
    """Create, re-own, relabel (keeping the owner references object: what a status write or
    a bind does) or delete pods a, b, c as the generated ``ops`` say."""
    for name, op, owner in ops:
        cur = store.get("Pod", name, "default")
        if op == "delete":
            if cur is not None:
                store.remove("Pod", name, "default")
            continue
        if op == "touch":
            if cur is not None:
                store.update(attrs.evolve(cur, metadata=attrs.evolve(
                    cur.metadata, labels={"touched": str(owner)})))
            continue
        o = _OWNERS[owner]
        refs = () if o is None else (_ref(o[0], o[1], o[2], *o[3:]),)
        if cur is None:
            store.create(_pod(name, *refs))
        else:
            store.update(attrs.evolve(cur, metadata=attrs.evolve(cur.metadata,
                                                                  owner_references=refs)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(("put", "delete", "touch")),
                          st.integers(0, len(_OWNERS) - 1)), max_size=25))
def test_handlers_reading_the_index_refs_hear_what_the_plain_handler_hears(ops):
    """The shared index computes each write's controller refs once for every OwnerHandler of
    that write (the fast path; a write that keeps the owner references object takes the
    shortest way); a handler without the index walks the ownerReferences itself (the plain
    path). Both hear the same calls, in the same order, for orphans, adoptions, releases,
    writes that keep the owner, other kinds' pods and deletions."""
    store = _store()
    inf = Informers(store)
    heard: dict[str, list] = {"fast": [], "plain": [], "swap": []}
    for kind in ("ReplicaSet", "Job"):
        for path, handler in (("fast", inf.pods.handler), ("plain", None),
                              ("swap", inf.pods.handler)):
            out = heard[path]

            def change(ns, owner, ev, out=out, kind=kind):
                out.append((kind, ns, owner, ev.type, ev.obj.metadata.name))

            def account(uid, pod, sign, out=out, kind=kind):
                out.append((kind, uid, pod.metadata.name, sign, id(pod)))

            def swap(uid, old, new, out=out, kind=kind):
                # what it stands for: the old version leaves, the new one enters
                out.append((kind, uid, old.metadata.name, -1, id(old)))
                out.append((kind, uid, new.metadata.name, 1, id(new)))
            if path == "swap":
                h = handler(kind, change, account, swap=swap)
            else:
                h = (handler(kind, change, account) if handler is not None
                     else OwnerHandler(kind, change, account))
            store.subscribe("Pod", h)
    _apply_owner_ops(store, ops)
    assert heard["fast"] == heard["plain"]
    assert heard["swap"] == heard["plain"]
    # and the index holds every pod, as it is now, under its controller's uid (or as an
    # orphan): what a fresh read of the store gives
    by_owner: dict = {}
    orphans: dict = {}
    for pod in store.list("Pod"):
        ref = pod.metadata.controller_ref()
        table = orphans.setdefault(pod.metadata.namespace, {}) if ref is None else \
            by_owner.setdefault(ref.uid, {})
        table[pod.metadata.name] = pod
    assert {u: inf.pods.owned(u) for u in inf.pods._by_owner} == by_owner
    assert {ns: inf.pods.orphans(ns) for ns in inf.pods._orphans} == orphans
    for u, table in by_owner.items():
        assert all(inf.pods.owned(u)[n] is p for n, p in table.items())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from(("put", "delete", "touch")),
                          st.integers(0, len(_OWNERS) - 1)), max_size=25))
def test_a_handler_without_orphans_hears_the_rest(ops):
    """``orphans=False`` (StatefulSet, Job: controllers that adopt nothing) drops exactly the
    owner-None calls the plain handler makes — the orphan writes' own (the index's
    orphan_event shortcut) and a release's — and nothing else, accounting included."""
    store = _store()
    inf = Informers(store)
    heard: dict[str, list] = {"none": [], "plain": []}
    for kind in ("ReplicaSet", "Job"):
        for path in ("none", "plain"):
            out = heard[path]

            def change(ns, owner, ev, out=out, kind=kind):
                out.append((kind, ns, owner, ev.type, ev.obj.metadata.name))

            def account(uid, pod, sign, out=out, kind=kind):
                out.append((kind, uid, pod.metadata.name, sign))
            h = (inf.pods.handler(kind, change, account, orphans=False) if path == "none"
                 else OwnerHandler(kind, change, account))
            store.subscribe("Pod", h)
    _apply_owner_ops(store, ops)
    assert heard["none"] == [c for c in heard["plain"] if not (len(c) == 5 and c[2] is None)]
