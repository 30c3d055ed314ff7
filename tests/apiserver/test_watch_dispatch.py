"""The watch dispatch: a write calls only the handlers it concerns, in subscription order, and
a handler left out would have done nothing (apiserver/dispatch.py).

Upstream every informer's event handler hears every event of its resource and filters in the
client (e.g. pkg/controller/replicaset/replica_set.go's addPod/updatePod resolve the
controllerRef and return for another kind's pod; pkg/controller/deployment's deletePod acts for
Recreate only); the sandbox keys each write by type and controller kinds and calls only the
handlers whose filters admit it. The scenario tests hold the two ways against each other: every
handler the dispatch leaves out is called anyway and must change nothing, and a whole run with
the dispatch equals the same run with every handler hearing every write.
"""

from __future__ import annotations

import random
import types
from collections import deque
from typing import Any

import attrs
import pytest

from ksandbox.api.core import Container, Namespace, Pod, PodSpec
from ksandbox.api.meta import ObjectMeta, OwnerReference
from ksandbox.apiserver import dispatch
from ksandbox.apiserver import store as store_mod
from ksandbox.apiserver.informers import ControllerIndex, Informers, OwnerHandler, _controller
from ksandbox.apiserver.store import ADDED, DELETED, MODIFIED, Store, WatchEvent
from ksandbox.session import Session
from ksandbox.sim.clock import Clock
from ksandbox.sim.rand import SimRandom


def _pod(name: str, *owners: OwnerReference) -> Pod:
    return Pod(metadata=ObjectMeta(name=name, namespace="default", owner_references=owners),
               spec=PodSpec(containers=(Container(name="c", image="nginx"),)))


def _ref(kind: str, name: str, uid: str) -> OwnerReference:
    return OwnerReference(api_version="apps/v1", kind=kind, name=name, uid=uid, controller=True)


def _store() -> Store:
    clock = Clock()
    store = Store(clock.read, SimRandom(1))
    store.create(Namespace(metadata=ObjectMeta(name="default")))
    return store


# -- the table itself ---------------------------------------------------------------------------
def test_types_and_owner_kinds_pick_the_handlers_in_subscription_order():
    store = _store()
    store.track_controllers("Pod")
    heard: list[tuple[str, str, str]] = []

    def hearer(tag: str):
        return lambda ev: heard.append((tag, ev.type, ev.obj.metadata.name))

    every, deletes, rs, orphans, new = (hearer(t) for t in ("every", "deletes", "rs", "orphans",
                                                            "new"))
    store.subscribe("Pod", every)
    store.subscribe("Pod", deletes, types=(DELETED,))
    store.subscribe("Pod", rs, owners=("ReplicaSet",))
    store.subscribe("Pod", orphans, owners=(None,))
    store.subscribe("Pod", new, types=(ADDED,), owners=("ReplicaSet", None))
    controlled = hearer("controlled")
    store.subscribe("Pod", controlled, owners=(dispatch.ANY_CONTROLLER,))
    a = store.create(_pod("a", _ref("ReplicaSet", "web", "u1")))
    store.create(_pod("b", _ref("Job", "batch", "u2")))
    store.create(_pod("c"))
    # c adopted by a ReplicaSet: old side an orphan, new side a ReplicaSet's
    c = store.get("Pod", "c", "default")
    store.update(_with_refs(c, _ref("ReplicaSet", "web", "u1")))
    store.remove("Pod", "a", "default")
    assert a is not None
    assert heard == [
        ("every", ADDED, "a"), ("rs", ADDED, "a"), ("new", ADDED, "a"), ("controlled", ADDED, "a"),
        ("every", ADDED, "b"), ("controlled", ADDED, "b"),
        ("every", ADDED, "c"), ("orphans", ADDED, "c"), ("new", ADDED, "c"),
        ("every", MODIFIED, "c"), ("rs", MODIFIED, "c"), ("orphans", MODIFIED, "c"),
        ("controlled", MODIFIED, "c"),
        ("every", DELETED, "a"), ("deletes", DELETED, "a"), ("rs", DELETED, "a"),
        ("controlled", DELETED, "a"),
    ]


@pytest.mark.parametrize("tracked", [False, True])
def test_a_status_write_is_heard_by_the_subscriptions_that_act_on_status_writes(tracked):
    """update_status and write_status (the status subresource) key their write as STATUS: a
    ``status=False`` subscription does not hear it, and hears every other write; the others
    hear it as a MODIFIED."""
    store = _store()
    if tracked:
        store.track_controllers("Pod")
    heard: list[tuple[str, str]] = []
    store.subscribe("Pod", lambda ev: heard.append(("every", ev.type)))
    store.subscribe("Pod", lambda ev: heard.append(("spec", ev.type)), status=False)
    store.subscribe("Pod", lambda ev: heard.append(("modified", ev.type)), types=(MODIFIED,))
    store.subscribe("Pod", lambda ev: heard.append(("spec-modified", ev.type)),
                    types=(MODIFIED,), status=False)
    pod = store.create(_pod("a"))
    pod = store.write_status(pod, attrs.evolve(pod.status, phase="Running"))
    pod = store.update_status(attrs.evolve(pod, status=attrs.evolve(pod.status, reason="x")))
    pod = store.update(attrs.evolve(pod, metadata=attrs.evolve(pod.metadata,
                                                               labels={"app": "web"})))
    store.remove("Pod", "a", "default")
    assert heard == [
        ("every", ADDED), ("spec", ADDED),
        ("every", MODIFIED), ("modified", MODIFIED),                # write_status
        ("every", MODIFIED), ("modified", MODIFIED),                # update_status
        ("every", MODIFIED), ("spec", MODIFIED), ("modified", MODIFIED),
        ("spec-modified", MODIFIED),                                # update
        ("every", DELETED), ("spec", DELETED),
    ]


def _with_refs(pod: Any, *refs: Any) -> Any:
    import attrs
    return attrs.evolve(pod, metadata=attrs.evolve(pod.metadata, owner_references=refs))


@pytest.mark.parametrize("seed", range(6))
def test_each_write_calls_the_handlers_its_plain_key_plans(seed):
    """Store._notify keeps the handlers of a write with one controller ref (or none) on both
    sides under the ref's kind, by type, and those of any other write under the key tuple
    (type, old controller kind, new controller kind): either way, a write calls exactly what
    dispatch.plan picks for its key tuple, in subscription order."""
    rng = random.Random(seed)
    store = _store()
    store.track_controllers("Pod")
    heard: list[str] = []
    filters = [dict(), dict(owners=("ReplicaSet",)), dict(owners=("ReplicaSet", None)),
               dict(owners=(None,)), dict(owners=("Job",)),
               dict(owners=(dispatch.ANY_CONTROLLER,)), dict(types=(MODIFIED,)),
               dict(status=False), dict(types=(ADDED, DELETED), owners=("Job", None))]
    handlers = []
    for i, f in enumerate(filters):
        def h(ev: WatchEvent, i: int = i) -> None:
            heard.append(str(i))
        handlers.append(h)
        store.subscribe("Pod", h, **f)
    refs = [(), (_ref("ReplicaSet", "web", "u1"),), (_ref("Job", "batch", "u2"),),
            (OwnerReference(api_version="v1", kind="Node", name="n", uid="u3"),
             _ref("ReplicaSet", "web", "u1"))]
    names = ["a", "b", "c"]
    for _ in range(60):
        name = rng.choice(names)
        old = store.get("Pod", name, "default")
        heard.clear()
        if old is None:
            new = store.create(_pod(name, *rng.choice(refs)))
            key = (ADDED, "", _kind(new))
        else:
            op = rng.choice(("status", "keep", "refs", "remove"))
            if op == "status":
                new = store.write_status(old, attrs.evolve(old.status, reason=str(rng.random())))
                key = (dispatch.STATUS, _kind(old), _kind(new))
            elif op == "keep":
                new = store.update(attrs.evolve(old, metadata=attrs.evolve(
                    old.metadata, labels={"n": str(rng.random())})))
                key = (MODIFIED, _kind(old), _kind(new))
            elif op == "refs":
                new = store.update(_with_refs(old, *rng.choice(refs)))
                key = (MODIFIED, _kind(old), _kind(new))
            else:
                store.remove("Pod", name, "default")
                key = (DELETED, _kind(old), "")
        expected = [str(handlers.index(h))
                    for h in dispatch.plan(handlers, store._filters, "Pod", key)]
        assert heard == expected, key


def _kind(pod: Any) -> Any:
    ref = _controller(pod)
    return ref.kind if ref is not None else None


def test_refilter_keeps_the_place_and_muting_or_leaving_is_heard_at_once():
    store = _store()
    heard: list[str] = []
    first, second, third = (lambda ev, t=t: heard.append(t) for t in "123")
    store.subscribe("Namespace", first)
    store.subscribe("Namespace", second, types=(DELETED,))
    store.subscribe("Namespace", third)

    def write(name: str) -> list[str]:
        heard.clear()
        store.create(Namespace(metadata=ObjectMeta(name=name)))
        return list(heard)

    assert write("n1") == ["1", "3"]
    store.refilter("Namespace", second, types=(ADDED, DELETED))
    assert write("n2") == ["1", "2", "3"]          # back in its place, not last
    with store.muted([("Namespace", first)]):
        assert write("n3") == ["2", "3"]
    assert write("n4") == ["1", "2", "3"]
    store.unsubscribe("Namespace", second)
    assert write("n5") == ["1", "3"]


def test_an_owner_filter_needs_the_kind_tracked():
    store = _store()
    with pytest.raises(AssertionError):
        store.subscribe("Pod", lambda ev: None, owners=("ReplicaSet",))


def test_the_index_reads_the_refs_the_store_read():
    store = _store()
    inf = Informers(store)
    pod = store.create(_pod("a", _ref("ReplicaSet", "web", "u1")))
    ev, old_ref, new_ref = store.last_refs
    assert ev.obj is pod and old_ref is dispatch.NO_OBJECT and new_ref.uid == "u1"
    assert inf.pods.last == store.last_refs
    assert list(inf.pods.owned("u1")) == ["a"]


@pytest.mark.parametrize("orphans", [True, False])
def test_owner_handler_filter_is_exactly_where_it_calls(orphans):
    """Every pair of sides (missing, orphan, its kind's, another kind's) for every type: the
    handler subscribed with its ``owners`` filter makes the same calls as unfiltered."""
    sides = [None, "orphan", "ReplicaSet", "Job"]

    def refs(side: str | None) -> tuple:
        return () if side in (None, "orphan") else (_ref(side, "x", f"u-{side}"),)

    for type_ in (ADDED, MODIFIED, DELETED):
        for old_side in sides:
            for new_side in sides:
                if (type_ == ADDED) != (old_side is None) or \
                        (type_ == DELETED and new_side is not None) or \
                        (type_ != DELETED and new_side is None):
                    continue
                calls: dict[str, list] = {"plain": [], "filtered": []}
                store = _store()
                index = ControllerIndex(store, "Pod")
                for mode in calls:
                    h = OwnerHandler("ReplicaSet",
                                     lambda ns, o, ev, c=calls[mode]: c.append(("call", o)),
                                     lambda uid, p, s, c=calls[mode]: c.append(("acc", uid, s)),
                                     index, orphans=orphans)
                    store.subscribe("Pod", h, owners=h.owners if mode == "filtered" else None)
                old = _pod("p", *refs(old_side)) if old_side is not None else None
                new = _pod("p", *refs(new_side)) if new_side is not None else old
                if old is not None:
                    store.create(old)
                    calls["plain"].clear()
                    calls["filtered"].clear()
                if type_ == ADDED:
                    store.create(new)
                elif type_ == MODIFIED:
                    store.update(_with_refs(store.get("Pod", "p", "default"), *refs(new_side)))
                else:
                    store.remove("Pod", "p", "default")
                assert calls["filtered"] == calls["plain"], (type_, old_side, new_side)


# -- the dispatch against the broadcast, in a run -----------------------------------------------
_NODES = "".join(
    f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{zone: z{i % 2}}}}}\n"
    f"status:\n  capacity: {{cpu: '4', memory: 8Gi, pods: '20'}}\n"
    f"  allocatable: {{cpu: '4', memory: 8Gi, pods: '20'}}\n" for i in range(3))
_TEMPLATE = ("  template:\n    metadata: {labels: {app: %s}}\n    spec:\n"
             "      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]\n")
_ORPHANS = "".join(
    f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: o{i}, labels: {{app: web}}}}\n"
    f"spec:\n  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 100m}}}}}}]\n"
    for i in range(4))
_STORAGE = ("apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: late}\n"
            "provisioner: x\nvolumeBindingMode: WaitForFirstConsumer\n---\n"
            "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec:\n"
            "  storageClassName: late\n  accessModes: [ReadWriteOnce]\n"
            "  resources: {requests: {storage: 1Gi}}\n")
_CLAIMER = ("apiVersion: v1\nkind: Pod\nmetadata: {name: claimer}\nspec:\n"
            "  containers: [{name: c, image: nginx}]\n"
            "  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]\n")


def _scenario(s: Session) -> None:
    """Orphans adopted and released, every workload kind, a budget, a drain, a Recreate
    rollout, a claim waiting for its pod, the last DaemonSet and budget deleted (and a
    DaemonSet made again), a failed node."""
    def sub(cmd: str, stdin: str | None = None) -> None:
        s.submit(cmd, stdin)

    sub("kubectl apply -f -", _ORPHANS)
    s.run_until(5)
    sub("kubectl apply -f -", "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web}\n"
        "spec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n" + _TEMPLATE % "web")
    sub("kubectl apply -f -", "apiVersion: policy/v1\nkind: PodDisruptionBudget\n"
        "metadata: {name: pdb}\nspec:\n  minAvailable: 1\n  selector: {matchLabels: {app: web}}\n")
    sub("kubectl apply -f -", _STORAGE)
    s.run_until(10)
    sub("kubectl apply -f -", _CLAIMER)
    s.run_until(20)
    sub("kubectl label pod o0 app=other --overwrite")   # released
    s.run_until(25)
    sub("kubectl label pod o0 app=web --overwrite")     # an orphan the ReplicaSet adopts
    s.run_until(28)
    sub("kubectl apply -f -", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\n"
        "spec:\n  replicas: 2\n  serviceName: db\n  selector: {matchLabels: {app: db}}\n"
        + _TEMPLATE % "db")
    sub("kubectl apply -f -", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\n"
        "spec:\n  selector: {matchLabels: {app: agent}}\n" + _TEMPLATE % "agent")
    sub("kubectl apply -f -", "apiVersion: batch/v1\nkind: Job\nmetadata: {name: once}\nspec:\n"
        "  completions: 2\n  template:\n    metadata: {labels: {app: once}}\n    spec:\n"
        "      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n")
    sub("kubectl apply -f -", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: rec}\n"
        "spec:\n  replicas: 2\n  strategy: {type: Recreate}\n"
        "  selector: {matchLabels: {app: rec}}\n" + _TEMPLATE % "rec")
    sub("kubectl apply -f -", "apiVersion: v1\nkind: ReplicationController\n"
        "metadata: {name: rc}\nspec:\n  replicas: 1\n  selector: {app: rcp}\n" + _TEMPLATE % "rcp")
    s.run_until(80)
    # orphans made while their owners exist: adopted through the pod watch
    sub("kubectl apply -f -", "apiVersion: v1\nkind: Pod\nmetadata: {name: stray, labels: "
        "{app: agent}}\nspec:\n  containers: [{name: c, image: nginx}]\n")
    sub("kubectl set image deployment/rec c=nginx:2")
    sub("kubectl scale statefulset db --replicas=1")
    s.run_until(120)
    sub("kubectl drain n1 --ignore-daemonsets --force")
    s.run_until(200)
    sub("kubectl delete replicaset web --cascade=orphan")
    s.run_until(210)
    sub("kubectl delete pod o1")
    sub("kubectl uncordon n1")
    # the last DaemonSet and budget go: orphans' and pods' writes are left out meanwhile
    sub("kubectl delete daemonset agent")
    sub("kubectl delete poddisruptionbudget pdb")
    s.run_until(215)
    sub("kubectl label pod o2 app=agent --overwrite")
    s.run_until(220)
    sub("kubectl apply -f -", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent2}\n"
        "spec:\n  selector: {matchLabels: {app: agent}}\n" + _TEMPLATE % "agent")
    s.run_until(230)
    sub("kubectl label pod o3 app=agent --overwrite")
    sub("kubectl taint node n0 k=v:NoSchedule")   # agent2's pod no longer runs there
    sub("ksandbox add node n3 --like n1")
    sub("ksandbox fail node n2")
    s.run_until(420)


_SHARED = (Store, Clock, ControllerIndex, Informers, Session)


def _state(x: Any, seen: dict[int, Any], top: bool = True) -> Any:
    """A comparable picture of a component's own state: its containers, the helper objects it
    owns (queues, timers, caches), its random streams; stored API objects by identity (a new
    version is a new object); the store, clock, indexes and other components left out."""
    if x is None or isinstance(x, (bool, int, float, str, bytes)):
        return x
    key = id(x)
    if key in seen:
        return ("seen", key)
    seen[key] = True
    if isinstance(x, dict):
        return ("dict",) + tuple((_state(k, seen, False), _state(v, seen, False))
                                 for k, v in x.items())
    if isinstance(x, (list, tuple, deque)):
        return (type(x).__name__,) + tuple(_state(v, seen, False) for v in x)
    if isinstance(x, (set, frozenset)):
        return ("set", frozenset(map(repr, (_state(v, seen, False) for v in x))))
    if isinstance(x, random.Random):
        return ("rng", x.getstate())
    if isinstance(x, types.MethodType):
        return ("method", id(x.__self__), x.__func__.__qualname__)
    if isinstance(x, _SHARED) or callable(x) and not hasattr(x, "__dict__") \
            or not type(x).__module__.startswith("ksandbox.") \
            or type(x).__module__.startswith("ksandbox.api.") \
            or not top and hasattr(x, "start") and hasattr(x, "name"):
        return ("id", key)
    attrs_ = getattr(x, "__dict__", None)
    if attrs_ is None:
        names = [n for c in type(x).__mro__ for n in getattr(c, "__slots__", ())]
        attrs_ = {n: getattr(x, n, None) for n in names}
    return (type(x).__name__,) + tuple((n, _state(v, seen, False)) for n, v in attrs_.items())


def _owners_of(handler: Any) -> list[Any]:
    if isinstance(handler, OwnerHandler):
        fns = [handler._on_change, handler._account]
        return [getattr(f, "__self__", f) for f in fns if f is not None]
    return [getattr(handler, "__self__", handler)]


def test_a_handler_the_dispatch_leaves_out_would_have_done_nothing(monkeypatch):
    """Every write is heard by every handler of its kind, in order (the broadcast), and each
    one the dispatch would have left out must change nothing: its component's state and the
    clock's callbacks are as they were. Also: the scenario leaves out some writes of every
    filtered subscription, and the same check sees effects of each of them on the writes
    the dispatch does call it for, so it can fail."""
    left_out: dict[str, int] = {}
    acted: dict[str, int] = {}
    # (kept here, not asserted in the handler: a command or a sync catches what it raises)
    acted_left_out: list[tuple[str, str, str]] = []

    def notify(self: Store, type_: str, obj: Any, old: Any = None, status: bool = False) -> None:
        ev = WatchEvent(type_, obj, old)
        kind = obj.kind
        handlers = list(self._handlers.get(kind, ()))
        called = store_mod.plan(handlers, self._filters, kind, _key_of(self, ev, kind, status))
        clock = self._now.__self__   # the session's clock (Store is handed clock.read)
        for h in handlers:
            name = getattr(h, "__qualname__", None) or f"OwnerHandler:{h.owner_kind}"
            clock_seq = (clock._seq, clock.foreground_pending)   # call_at, call_batched
            owners = _owners_of(h)
            before = [_state(o, {}) for o in owners]
            h(ev)
            if h in called:
                if (clock._seq, clock.foreground_pending) != clock_seq or \
                        [_state(o, {}) for o in owners] != before:
                    acted[name] = acted.get(name, 0) + 1
                continue
            left_out[name] = left_out.get(name, 0) + 1
            if [_state(o, {}) for o in owners] != before or \
                    (clock._seq, clock.foreground_pending) != clock_seq:
                acted_left_out.append((name, ev.type, ev.obj.metadata.name))
        for h in self._all_handlers:
            h(ev)

    monkeypatch.setattr(Store, "_notify", notify)
    s = Session.from_text(_NODES, seed=5)
    _scenario(s)
    assert acted_left_out == []
    filtered = ("OwnerHandler:ReplicaSet", "OwnerHandler:ReplicationController",
                "OwnerHandler:DaemonSet", "OwnerHandler:StatefulSet", "OwnerHandler:Job",
                "DeploymentController._pod_event", "PersistentVolumeController._pod_event",
                "NodeLifecycleController._on_pod", "DrainRunner._on_pod",
                "DisruptionController._on_pod", "DisruptionController._on_workload",
                "Metrics._pod_event", "TaintEvictionController._on_pod",
                "TaintEvictionController._on_node", "DaemonSetController._node_event",
                "KubeletManager._on_node", "ReplicaSetController._owner_event",
                "Metrics._owner_event")
    # (the Deployment controller's ReplicaSet handler: every ReplicaSet here is a
    # Deployment's or an orphan, which it may adopt, so it hears them all)
    for name in filtered:
        assert left_out.get(name, 0) > 0, (name, left_out)
        assert acted.get(name, 0) > 0 or name == "DrainRunner._on_pod", (name, acted)


def _key_of(store: Store, ev: Any, kind: str, status: bool) -> Any:
    """The dispatch key of a write, read here apart from the store's own reading; a write of
    the status subresource is checked to be one: the stored spec and metadata kept, but for
    the resourceVersion."""
    type_ = ev.type
    if status:
        assert ev.type == MODIFIED and getattr(ev.obj, "spec", None) is \
            getattr(ev.old, "spec", None), ev
        assert attrs.evolve(ev.obj.metadata, resource_version=None) == \
            attrs.evolve(ev.old.metadata, resource_version=None), ev
        type_ = dispatch.STATUS
    if kind not in store._tracked:
        return type_
    old = _controller(ev.old) if ev.old is not None else dispatch.NO_OBJECT
    new = _controller(ev.obj) if ev.type != DELETED else dispatch.NO_OBJECT
    return (type_, old.kind if old is not None else None,
            new.kind if new is not None else None)


def _trace(monkeypatch: pytest.MonkeyPatch, broadcast: bool) -> list[Any]:
    out: list[Any] = []
    if broadcast:
        monkeypatch.setattr(store_mod, "plan", lambda handlers, filters, kind, key:
                            tuple(handlers))
    real_call_at = Clock.call_at

    def call_at(self: Clock, when: float, callback: Any, priority: int = 0, label: str = "",
                background: bool = False, arg: Any = None) -> Any:
        out.append(("at", max(when, self._now), priority, label, background, repr(arg)))
        return real_call_at(self, when, callback, priority, label, background, arg)

    monkeypatch.setattr(Clock, "call_at", call_at)
    real_batched = Clock.call_batched

    def call_batched(self: Clock, when: float, callback: Any, arg: Any, priority: int = 0,
                     label: str = "") -> Any:
        out.append(("batched", max(when, self._now), priority, label, repr(arg)))
        return real_batched(self, when, callback, arg, priority, label)

    monkeypatch.setattr(Clock, "call_batched", call_batched)
    s = Session.from_text(_NODES, seed=5)
    s.store.subscribe(None, lambda ev: out.append(("w", ev.type, ev.obj)))
    _scenario(s)
    out.append(("events", [(e.reason, e.message) for e in s.store.occurrences]))
    monkeypatch.undo()
    return out


def test_a_run_with_the_dispatch_is_the_run_with_every_handler_hearing_every_write(monkeypatch):
    dispatched = _trace(monkeypatch, broadcast=False)
    broadcast = _trace(monkeypatch, broadcast=True)
    assert len(dispatched) > 500
    assert dispatched == broadcast


def test_a_fork_keeps_the_filters_and_opens_its_own_gates():
    """A fork copies the subscriptions with their filters: a DaemonSet made in the fork opens
    the fork's orphan gate and adopts an orphan through the watch there, as the original
    does."""
    s = Session.from_text(_NODES, seed=5)
    s.run_until(5)
    other = s.fork()
    stray = ("apiVersion: v1\nkind: Pod\nmetadata: {name: stray, labels: {app: agent}}\n"
             "spec:\n  containers: [{name: c, image: nginx}]\n")
    for sess in (other, s):
        sess.submit("kubectl apply -f -", "apiVersion: apps/v1\nkind: DaemonSet\n"
                    "metadata: {name: agent}\nspec:\n  selector: {matchLabels: {app: agent}}\n"
                    + _TEMPLATE % "agent")
        sess.run_until(10)
        sess.submit("kubectl apply -f -", stray)
        sess.run_until(15)
    # adopted through the pod watch, and removed as one pod too many for the DaemonSet (a
    # pod nobody adopted would be running)
    assert other.store.get("Pod", "stray", "default") is None
    assert s.view() == other.view()
