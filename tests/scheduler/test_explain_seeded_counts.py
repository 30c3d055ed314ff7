"""Explain of a bound pod reads PodTopologySpread's per-node counts from the fast path.

Explain re-runs a bound pod's cycle on the plain path over a cache without the pod
(``explain.py``). PodTopologySpread's PreFilter and PreScore then count, on every node, the
pods the pod's spread selectors match (upstream ``podtopologyspread/common.go``
countPodsMatchSelector). Where the scheduler runs the fast path, explain first hands every
node the count from the fast path's counters (``_seed_spread_counts``). These tests hold the
explanation to the one computed with every pod matched afresh, for explicit constraints and
the system-default spreading (a Service), after churn.
"""

from ksandbox.api.codec import decode
from ksandbox.api.core import Namespace, Node, Pod
from ksandbox.api.core_objects import Service
from ksandbox.api.meta import ObjectMeta
from ksandbox.apiserver.store import Store
from ksandbox.controlplane import ControlPlane
from ksandbox.scheduler import explain
from ksandbox.scheduler.scheduler import Scheduler
from ksandbox.sim.clock import Clock
from ksandbox.sim.rand import SimRandom

ZONE = "topology.kubernetes.io/zone"


def _cluster():
    clock = Clock()
    rand = SimRandom(4)
    store = Store(lambda: clock.now, rand.child("apiserver"))
    cp = ControlPlane(store, clock, rand, [])
    sched = Scheduler()
    cp.scheduler = sched
    sched.start(cp)
    store.create(Namespace(metadata=ObjectMeta(name="default")))
    for i in range(60):
        cap = {"cpu": "8", "memory": "32Gi", "pods": "30"}
        store.create(decode(Node, {"metadata": {"name": f"node-{i:02d}", "labels": {
            ZONE: "zone-" + "abc"[i % 3]}}, "status": {"capacity": cap, "allocatable": cap}}))
    store.create(decode(Service, {"metadata": {"name": "web", "namespace": "default"},
                                  "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}))
    for i in range(400):
        spec = {"containers": [{"name": "c", "image": "nginx",
                                "resources": {"requests": {"cpu": "100m"}}}]}
        app = ("web", "db", "cache")[i % 3]
        if app == "db":
            spec["topologySpreadConstraints"] = [{
                "maxSkew": 2, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "db"}}}]
        store.create(decode(Pod, {"metadata": {"name": f"p-{i:03d}", "namespace": "default",
                                               "labels": {"app": app}}, "spec": spec}))
    clock.run_until(clock.now + 5)
    for i in range(0, 400, 7):
        store.delete("Pod", f"p-{i:03d}", "default")     # terminating: counted by nobody
    clock.run_until(clock.now + 1)
    return store, sched


def _unseeded(sched, pod, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(explain, "_seed_spread_counts", lambda *a: None)
        for ni in sched.cache.node_list():
            ni._matching = None
        return explain.explain_pod(sched, pod).to_dict()


def test_explaining_a_bound_pod_with_seeded_counts_gives_the_plain_answer(monkeypatch):
    store, sched = _cluster()
    assert sched._fast, "the fast path runs here"
    seeded = 0
    for i in range(1, 400, 10):
        pod = store.get("Pod", f"p-{i:03d}", "default")
        assert pod is not None and pod.spec.node_name
        want = _unseeded(sched, pod, monkeypatch)
        for ni in sched.cache.node_list():
            ni._matching = None
        got = explain.explain_pod(sched, pod).to_dict()
        assert got == want, pod.metadata.name
        seeded += sum(1 for ni in sched.cache.node_list() if ni._matching and ni._matching[1])
    assert seeded > 1000
