"""Explain of a bound pod reads PodTopologySpread's per-node counts from the fast path.

Explain re-runs a bound pod's cycle on the plain path over a cache without the pod
(``explain.py``). PodTopologySpread's PreFilter, PreScore and Score then count, on every node,
the pods the pod's spread selectors match (upstream ``podtopologyspread/common.go``
countPodsMatchSelector). Where the scheduler runs the fast path, the shadow cache answers
those counts for every node at once from the fast path's counters (``matching_counts``), and
explain seeds the real nodes with the DoNotSchedule selectors' counts for ``spread_facts``
(``_seed_spread_counts``). These tests hold the explanation to the one computed with every
pod matched afresh, for explicit constraints and the system-default spreading (a Service),
after churn, and each shadow-cache count to a count over the node's pods.
"""

from schedtest import store_cluster

from ksandbox.api.codec import decode
from ksandbox.api.core import Pod
from ksandbox.api.core_objects import Service
from ksandbox.scheduler import explain

ZONE = "topology.kubernetes.io/zone"


def _cluster():
    store, clock, sched = store_cluster(
        60, seed=4, namespaces=("default",), capacity={"cpu": "8", "memory": "32Gi", "pods": "30"},
        labels_of=lambda i: {ZONE: "zone-" + "abc"[i % 3]})
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
        m.setattr(explain._ShadowCache, "count_from", lambda self, fast: None)
        for ni in sched.cache.node_list():
            ni._matching = None
        return explain.explain_pod(sched, pod).to_dict()


def test_explaining_a_bound_pod_with_known_counts_gives_the_plain_answer(monkeypatch):
    store, sched = _cluster()
    assert sched._fast, "the fast path runs here"
    answered = []
    real = explain._ShadowCache.matching_counts

    def spy(self, namespace, selector):
        out = real(self, namespace, selector)
        if out is not None:
            answered.append(selector)
            infos, counts = out
            assert infos is self.node_list()
            assert counts == [ni.count_matching(namespace, selector) for ni in infos]
        return out

    monkeypatch.setattr(explain._ShadowCache, "matching_counts", spy)
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
    # Counts were asked for two selectors at least (web: the Service's, for the default
    # spreading; db: its DoNotSchedule constraint's; cache pods have no spreading), and the db
    # pods' DoNotSchedule counts were seeded on the real nodes.
    assert len({id(s) for s in answered}) >= 2
    assert seeded > 500
