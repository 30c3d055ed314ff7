"""The fast path's per-node pod counters equal a plain count, however they were built.

A new counter (PodTopologySpread's per-selector "pods like this one" counts, one per new
ReplicaSet in a rolling update) is counted from the pods carrying its route's label once a
label key is indexed, instead of from every pod. These tests churn pods (binds, deletes,
terminating pods, relabels, a node leaving) and hold every counter — those made before the
churn and kept current, and those made after from the index — to a count over every pod of
every node, which is what upstream's PreScore does (``podtopologyspread/scoring.go``
initPreScoreState: countPodsMatchSelector over each node's pods).
"""

import numpy as np
from schedtest import bound_pod, store_cluster

from ksandbox.api.codec import FrozenDict
from ksandbox.api.evolve import evolve
from ksandbox.api.selectors import LabelSelector
from ksandbox.sim.rand import SimRandom


def _cluster(nodes=120):
    return store_cluster(nodes, seed=5, use_fast=True, name="node-{:03d}",
                         labels_of=lambda i: {"topology.kubernetes.io/zone": f"zone-{i % 3}"})


def _plain(fp, ns, selector):
    return np.array([sum(1 for pi in ni.pods.values() if not pi.terminating
                         and pi.namespace == ns and selector.matches(pi.labels))
                     for ni in fp.infos], dtype=np.int64)


def _sel(**labels):
    return LabelSelector(match_labels=FrozenDict(labels))


def test_counters_from_the_label_index_equal_a_count_over_every_pod():
    store, clock, sched = _cluster()
    r = SimRandom(11)
    for i in range(900):
        ns = "other" if i % 7 == 0 else "default"
        labels = {"app": f"app-{i % 5}", "hash": f"h{i % 3}"}
        if i % 11 == 0:
            labels = {"tier": "x"}           # no "app" label: never in the app index
        store.create(bound_pod(f"p-{i:04d}", ns, labels, f"node-{r.randrange(120):03d}"))
    store.delete("Node", "node-017")      # a new node list starts the counters afresh
    clock.run_until(clock.now + 1)
    fp = sched.fast_for(sched.profiles["default-scheduler"])
    fp.sync()
    early = [("default", _sel(app="app-1")), ("default", _sel(app="app-2", hash="h1")),
             ("other", _sel(app="app-0"))]
    for ns, sel in early:
        assert (fp.match_counts(ns, sel) == _plain(fp, ns, sel)).all()
    assert "app" in fp._label_index

    # Churn: deletes (terminating first, then gone), new pods, relabels.
    for i in range(0, 900, 4):
        name, ns = f"p-{i:04d}", "other" if i % 7 == 0 else "default"
        store.delete("Pod", name, ns)
        if i % 8 == 0:
            store.remove("Pod", name, ns)
    for i in range(900, 1300):
        store.create(bound_pod(f"p-{i:04d}", "default", {"app": f"app-{i % 6}", "hash": "h9"},
                               f"node-{r.randrange(120):03d}"))
    for i in range(1, 900, 9):
        p = store.get("Pod", f"p-{i:04d}", "other" if i % 7 == 0 else "default")
        if p is not None and p.metadata.deletion_timestamp is None:
            store.update(evolve(p, metadata=evolve(p.metadata, labels=FrozenDict(
                {**p.metadata.labels, "app": "app-moved"}))))
    clock.run_until(clock.now + 1)
    fp.sync()
    built = len(fp._counters)
    late = [("default", _sel(app="app-5", hash="h9")), ("default", _sel(app="app-moved")),
            ("default", _sel(app="app-3")), ("other", _sel(app="app-moved")),
            ("default", _sel(tier="x")), ("default", _sel(app="nothing"))]
    for ns, sel in early + late:
        assert (fp.match_counts(ns, sel) == _plain(fp, ns, sel)).all(), (ns, sel)
    assert len(fp._counters) == built + len(late)   # the late ones are new counters
    # The index holds exactly the pods carrying the label, each on its node.
    want = {}
    for ni in fp.infos:
        for key, pi in ni.pods.items():
            if "app" in pi.labels:
                want.setdefault((pi.namespace, pi.labels["app"]), {})[key] = ni.index
    assert fp._label_index["app"] == want
    # More churn after the late counters exist: kept current from the pod events.
    for i in range(1300, 1500):
        store.create(bound_pod(f"p-{i:04d}", "default", {"app": "app-5", "hash": "h9"},
                               f"node-{r.randrange(120):03d}"))
    for i in range(900, 1000):
        store.delete("Pod", f"p-{i:04d}", "default")
    clock.run_until(clock.now + 1)
    fp.sync()
    for ns, sel in early + late + [("default", _sel(hash="h9"))]:
        assert (fp.match_counts(ns, sel) == _plain(fp, ns, sel)).all(), (ns, sel)


def test_a_counter_is_routed_by_its_narrowest_label_and_still_counts_every_match():
    # A ReplicaSet's selector: its Deployment's label (every pod of the Deployment) and the
    # pod-template-hash (its own pods). The counter starts from the hash's pods and hears only
    # their events; it must still equal a count over every pod, through churn.
    store, clock, sched = _cluster(60)
    r = SimRandom(3)
    for i in range(600):
        labels = {"app": f"app-{i % 2}", "hash": f"h{i % 12}"}
        store.create(bound_pod(f"p-{i:04d}", "default", labels, f"node-{r.randrange(60):03d}"))
    clock.run_until(clock.now + 1)
    fp = sched.fast_for(sched.profiles["default-scheduler"])
    fp.sync()
    wide, narrow = _sel(app="app-1"), _sel(app="app-1", hash="h5")
    lone = _sel(hash="h7", app="app-1")     # the narrow key first: the same route
    assert (fp.match_counts("default", wide) == _plain(fp, "default", wide)).all()
    for sel in (narrow, lone):
        assert (fp.match_counts("default", sel) == _plain(fp, "default", sel)).all(), sel
    routes = {sel: fp._counters[("pts", "default", sel)].route for sel in (wide, narrow, lone)}
    assert routes == {wide: ("default", "app", "app-1"), narrow: ("default", "hash", "h5"),
                      lone: ("default", "hash", "h7")}
    # Churn: the narrow counters hear their own pods' events only.
    for i in range(600, 800):
        labels = {"app": f"app-{i % 2}", "hash": "h5" if i % 3 else "h7"}
        store.create(bound_pod(f"p-{i:04d}", "default", labels, f"node-{r.randrange(60):03d}"))
    for i in range(0, 600, 5):
        store.delete("Pod", f"p-{i:04d}", "default")
        if i % 10 == 0:
            store.remove("Pod", f"p-{i:04d}", "default")
    for i in range(1, 600, 7):
        p = store.get("Pod", f"p-{i:04d}", "default")
        if p is not None and p.metadata.deletion_timestamp is None:
            store.update(evolve(p, metadata=evolve(p.metadata, labels=FrozenDict(
                {**p.metadata.labels, "hash": "h5"}))))
    clock.run_until(clock.now + 1)
    fp.sync()
    for sel in (wide, narrow, lone, _sel(app="app-0", hash="h5")):
        assert (fp.match_counts("default", sel) == _plain(fp, "default", sel)).all(), sel
    want = {}
    for ni in fp.infos:
        for key, pi in ni.pods.items():
            want.setdefault((pi.namespace, pi.labels["hash"]), {})[key] = ni.index
    assert fp._label_index["hash"] == want
