"""A Session's bulk start (session.BULK_START: a component that can catch up from the loaded
store — the scheduler — hears none of the load's writes and catches up after it) ends exactly
as the one-by-one start, where every component hears every write: the same objects,
resourceVersions, events, placements, clock, and the same ``sim -o json`` view, at t=0 and
after running. Generated clusters with owners (Deployment → ReplicaSet → pods, orphans its
selector adopts), taints of every effect, cordoned nodes, pending, bound, finished and
unschedulable pods, pods on a node that is not there, a PodDisruptionBudget and pod
anti-affinity.

Upstream: informers start with a List and then Watch (client-go tools/cache reflector.go,
ListAndWatch); a component that reads the initial list at once must end where hearing each
object's ADDED would leave it."""

from __future__ import annotations

import random

import pytest

from ksandbox import session as session_module
from ksandbox.api.codec import encode
from ksandbox.session import Session

EFFECTS = ("NoSchedule", "NoExecute", "PreferNoSchedule")


def _uid(r: random.Random) -> str:
    h = f"{r.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _cluster(seed: int) -> str:
    r = random.Random(seed)
    docs: list[str] = []
    nodes = [f"node-{i}" for i in range(r.randint(3, 8))]
    for i, name in enumerate(nodes):
        taints = ""
        if r.random() < 0.4:
            taints = (f"  taints: [{{key: dedicated, value: x{i % 2}, "
                      f"effect: {r.choice(EFFECTS)}}}]\n")
        cordon = "  unschedulable: true\n" if r.random() < 0.15 else ""
        spec = f"spec:\n{taints}{cordon}" if taints or cordon else ""
        docs.append(f"apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: "
                    f"{{topology.kubernetes.io/zone: z{i % 3}, kubernetes.io/hostname: {name}}}\n"
                    f"{spec}status:\n  capacity: {{cpu: '{r.choice([2, 4])}', memory: 8Gi, "
                    f"pods: '{r.choice([4, 110])}'}}\n")
    docs.append("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\n"
                "spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}\n")
    d_uid, rs_uid = _uid(r), _uid(r)
    replicas = r.randint(2, 6)
    template = ("    metadata: {labels: {app: web, pod-template-hash: abc}}\n"
                "    spec: {containers: [{name: c, image: nginx, resources: "
                "{requests: {cpu: 100m, memory: 64Mi}}}]}\n")
    docs.append(f"apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, uid: {d_uid}}}\n"
                f"spec:\n  replicas: {replicas}\n  selector: {{matchLabels: {{app: web}}}}\n"
                f"  template:\n{template}")
    docs.append(f"apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-abc\n"
                f"  uid: {rs_uid}\n  labels: {{app: web, pod-template-hash: abc}}\n"
                f"  ownerReferences: [{{apiVersion: apps/v1, kind: Deployment, name: web, "
                f"uid: {d_uid}, controller: true}}]\nspec:\n  replicas: {replicas}\n"
                f"  selector: {{matchLabels: {{app: web, pod-template-hash: abc}}}}\n"
                f"  template:\n{template}")
    for i in range(r.randint(5, 25)):
        owned = r.random() < 0.4
        labels = "{app: web, pod-template-hash: abc}" if owned or r.random() < 0.1 \
            else f"{{app: a{i % 3}}}"
        owner = (f"  ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, "
                 f"uid: {rs_uid}, controller: true}}]\n") if owned else ""
        where = r.random()
        node = "" if where < 0.35 else f"  nodeName: {r.choice(nodes + ['gone-node'])}\n"
        tolerations = ("  tolerations: [{key: dedicated, operator: Exists}]\n"
                       if r.random() < 0.3 else "")
        affinity = ("  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
                    " [{topologyKey: kubernetes.io/hostname, labelSelector: "
                    f"{{matchLabels: {{app: a{i % 3}}}}}}}]}}}}\n" if r.random() < 0.2 else "")
        cpu = r.choice(["100m", "500m", "1500m", "3"])
        status = ""
        if node and r.random() < 0.2:
            status = "status: {phase: Succeeded}\n"
        elif node and r.random() < 0.3:   # an export's running pod: adopted as it is
            status = (f"status: {{phase: Running, podIP: 10.9.0.{i}, conditions: "
                      f"[{{type: Ready, status: '{r.choice(['True', 'False'])}'}}]}}\n")
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  labels: {labels}\n"
                    f"{owner}spec:\n{node}{tolerations}{affinity}  containers: [{{name: c, "
                    f"image: nginx, resources: {{requests: {{cpu: {cpu}, memory: 64Mi}}}}}}]\n"
                    f"{status}")
    return "---\n".join(docs)


def _with_claims(seed: int) -> str:
    """The cluster with pods that name claims (some of them loaded, some not) and pods with
    volumes that name none: the persistent volume controller hears the load's pods then."""
    r = random.Random(seed)
    docs = [_cluster(seed)]
    if r.random() < 0.5:
        docs.append("apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data-0}\n"
                    "spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n")
    for i in range(r.randint(1, 4)):
        volume = r.choice([f"{{name: v, persistentVolumeClaim: {{claimName: data-{i % 2}}}}}",
                           "{name: v, configMap: {name: settings}}"])
        docs.append(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: vol-{i}}}\nspec:\n"
                    f"  nodeName: node-0\n  volumes: [{volume}]\n"
                    f"  containers: [{{name: c, image: nginx}}]\n")
    return "---\n".join(docs)


def _components(s: Session) -> dict:
    """What the components that catch up keep (beyond what the store and view show)."""
    cp = s.cp
    sched = cp.scheduler
    podgc = cp.components["podgc"]
    informers = cp.informers
    return {
        # the shared indexes, in their order (controllers read them in it)
        "informers": [([(u, list(t)) for u, t in index._by_owner.items()],
                       [(ns, list(t)) for ns, t in index._orphans.items()])
                      for index in (informers.pods, informers.replicasets)],
        "persistentvolume queue": list(cp.components["persistentvolume"].queue._pending),
        "cache": {n: list(ni.pods) for n, ni in sched.cache.node_infos.items()},
        "cache orphans": {n: list(p) for n, p in sched.cache._orphans.items()},
        "queue": list(sched.queue._infos),
        "kubelets": {n: (list(k.pod_workers.pods), dict(k.pod_workers.used),
                         list(k.pod_workers._queue),
                         sorted(k.pod_workers.adopted_ips)) for n, k in cp.kubelets.kubelets.items()},
        "metrics": (dict(cp.metrics._serving), {ns: dict(c) for ns, c in cp.metrics._counted.items()}),
        "podgc": (list(podgc.terminated), list(podgc.terminating), list(podgc.bound_nodes)),
        "queues": {c.name: [list(q._pending) for q in c.worker.queues]
                   for c in (cp.components["nodelifecycle"], cp.tainteviction)},
        # the node each queued pod key counts as on (a loaded one's is read, not recorded)
        "taint eviction nodes": {k: cp.tainteviction.queued_node(k)
                                 for k in cp.tainteviction.pod_queue._pending},
        "taint eviction records": {k: n for k, n in cp.tainteviction._pod_nodes.items()
                                   if k not in cp.tainteviction.pod_queue._pending},
    }


def _state(s: Session) -> dict:
    store = s.store
    return {
        "components": _components(s),
        "objects": {kind: [(key, encode(o)) for key, o in store.items(kind)]
                    for kind in sorted(store._objects)},
        "events": [encode(e) for e in store.events],
        "resource_version": store.resource_version,
        "now": s.clock.now,
        "events_run": s.clock.events_run,
        "pending": s.clock.pending(),
        "view": s.view(),
    }


def _session(text: str, bulk: bool, monkeypatch) -> Session:
    with monkeypatch.context() as m:
        m.setattr(session_module, "BULK_START", bulk)
        return Session.from_text(text, seed=3)


@pytest.mark.parametrize("make", [_cluster, _with_claims], ids=["cluster", "with claims"])
@pytest.mark.parametrize("seed", range(12))
def test_a_bulk_start_equals_the_one_by_one_start(make, seed, monkeypatch):
    text = make(seed)
    bulk, plain = _session(text, True, monkeypatch), _session(text, False, monkeypatch)
    cache_b, cache_p = bulk.cp.scheduler.cache, plain.cp.scheduler.cache
    assert {n: list(ni.pods) for n, ni in cache_b.node_infos.items()} == \
        {n: list(ni.pods) for n, ni in cache_p.node_infos.items()}
    assert _state(bulk) == _state(plain)
    for t in (5, 60, 400):
        bulk.run_until(t)
        plain.run_until(t)
        assert _state(bulk) == _state(plain), t
    assert bulk.submit("kubectl scale deployment web --replicas=9").error == ""
    assert plain.submit("kubectl scale deployment web --replicas=9").error == ""
    bulk.run_until(600)
    plain.run_until(600)
    assert _state(bulk) == _state(plain)


def _timers(s: Session) -> list:
    """The clock's live timers in the order they will run (their sequence numbers may
    differ; their order may not)."""
    return s.clock.scheduled()


def _nodeless(seed: int) -> str:
    """The cluster without its nodes: pods bound to nodes that are not there, so the node
    lifecycle and taint eviction controllers hear the pods one by one."""
    return "---\n".join(d for d in _cluster(seed).split("---\n") if "kind: Node\n" not in d)


@pytest.mark.parametrize("make", [_cluster, _nodeless, _with_claims],
                         ids=["with nodes", "without nodes", "with claims"])
@pytest.mark.parametrize("seed", range(4))
def test_before_t0_the_clock_holds_the_same_timers_in_the_same_order(make, seed, monkeypatch):
    """Before the control plane runs at all (t=0 not yet run): every component's state and
    the clock's timers in run order are the same — what makes every later step the same."""
    monkeypatch.setattr(Session, "_run_clock", lambda self, t: None)
    text = make(seed)
    bulk, plain = _session(text, True, monkeypatch), _session(text, False, monkeypatch)
    assert _timers(bulk) == _timers(plain)
    assert _components(bulk) == _components(plain)


def test_the_components_hear_nothing_of_the_load_and_catch_up(monkeypatch):
    """What the bulk start is: the muted watch handlers hear none of the load's writes (and
    are back in their places after it); each component then catches up from the store."""
    from ksandbox.controllers.podgc import PodGCController
    from ksandbox.kubelet.manager import KubeletManager
    from ksandbox.scheduler.scheduler import Scheduler

    heard: list[str] = []
    at_catch_up: list[int] = []
    for cls, handler in ((Scheduler, "_on_pod"), (Scheduler, "_on_node"),
                         (KubeletManager, "_on_pod"), (KubeletManager, "_on_node"),
                         (PodGCController, "_on_pod")):
        real = getattr(cls, handler)
        monkeypatch.setattr(cls, handler, lambda self, ev, real=real, what=cls.__name__:
                            (heard.append(what), real(self, ev))[1])
        real_done = cls.load_done
        monkeypatch.setattr(cls, "load_done", lambda self, real_done=real_done:
                            (at_catch_up.append(len(heard)), real_done(self))[1])
    text = _cluster(1)
    s = _session(text, True, monkeypatch)
    assert at_catch_up and at_catch_up[0] == 0   # nothing heard before the first catch-up
    assert s.cp.scheduler.cache.node_infos and s.cp.kubelets.kubelets
    plain = _session(text, False, monkeypatch)
    assert _state(s) == _state(plain)
    for kind in ("Pod", "Node", "Namespace", "Lease"):
        assert [_describe(h) for h in s.store._handlers[kind]] == \
            [_describe(h) for h in plain.store._handlers[kind]]


def test_a_loads_pods_are_heard_by_nobody_when_no_handler_needs_them(monkeypatch):
    """Nodes and orphan pods without claims (what an export of a big cluster mostly is):
    every pod handler is muted for the load (the components', the shared pod index's, the
    persistent volume controller's), so the store builds no watch event for the pods; a pod
    that names a claim keeps the volume controller's watch (its create is heard)."""
    from ksandbox.apiserver import store as store_mod

    built: list[str] = []

    made: list = []   # every WatchEvent _notify builds (object.__new__, its fields set after)
    real_new = store_mod._new_event

    def counted(cls):
        made.append(real_new(cls))
        return made[-1]

    monkeypatch.setattr(store_mod, "_new_event", counted)
    monkeypatch.setattr(Session, "_run_clock", lambda self, t: None)
    nodes = "".join(f"apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}\n---\n"
                    for i in range(3))
    pods = "---\n".join(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec:\n"
                        f"  nodeName: n{i % 3}\n  containers: [{{name: c, image: nginx}}]\n"
                        for i in range(6))
    s = Session.from_text(nodes + pods, seed=1)
    built[:] = [ev.obj.kind for ev in made]
    assert s.store.count("Pod") == 6 and "Pod" not in built
    assert len(s.cp.informers.pods.orphans("default")) == 6   # caught up
    claim = ("---\napiVersion: v1\nkind: Pod\nmetadata: {name: v}\nspec:\n  nodeName: n0\n"
             "  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]\n"
             "  containers: [{name: c, image: nginx}]\n")
    Session.from_text(nodes + pods + claim, seed=1)
    built[:] = [ev.obj.kind for ev in made]
    assert built.count("Pod") == 7


def _describe(handler) -> tuple[str, str]:
    owner = getattr(handler, "__self__", None)
    return (type(owner if owner is not None else handler).__name__,
            getattr(handler, "__qualname__", getattr(handler, "owner_kind", "")))


def test_a_muted_handler_is_back_in_its_place():
    from ksandbox.apiserver.store import Store
    from ksandbox.sim.clock import Clock
    from ksandbox.sim.rand import SimRandom

    clock = Clock()
    store = Store(lambda: clock.now, SimRandom(1))
    calls: list[str] = []
    hs = [lambda ev, n=n: calls.append(n) for n in "abcd"]
    for h in hs:
        store.subscribe("Namespace", h)
    with store.muted([("Namespace", hs[3]), ("Namespace", hs[1])]):
        assert store._handlers["Namespace"] == [hs[0], hs[2]]
    assert store._handlers["Namespace"] == hs


def test_the_generated_clusters_hold_every_case():
    """The clusters above do exercise what they claim (over the seeds used)."""
    seen = {"pending": 0, "bound": 0, "owned": 0, "finished": 0,
            "orphaned on a missing node": 0, "tainted nodes": 0, "unschedulable": 0}
    for seed in range(12):
        s = Session.from_text(_cluster(seed), seed=3)
        nodes = {n.metadata.name for n in s.store.nodes()}
        for p in s.store.list("Pod"):
            seen["pending"] += not p.spec.node_name
            seen["bound"] += bool(p.spec.node_name)
            seen["owned"] += bool(p.metadata.owner_references)
            seen["finished"] += p.status.phase == "Succeeded"
            seen["orphaned on a missing node"] += bool(p.spec.node_name) and \
                p.spec.node_name not in nodes
        seen["tainted nodes"] += sum(1 for n in s.store.nodes() if n.spec.taints)
        s.run_until(60)
        seen["unschedulable"] += sum(1 for p in s.store.list("Pod") if not p.spec.node_name)
    assert all(seen.values()), seen
