"""PodTopologySpread's per-domain counts, kept incrementally by the fast path, equal a count
over every node, however the pods and nodes changed.

Upstream counts afresh per pod (``podtopologyspread/filtering.go`` calPreFilterState and
``scoring.go`` initPreScoreState: for each node that has the constraints' keys and that the
inclusion policies admit, countPodsMatchSelector — same namespace, not terminating, the
selector matches — added to the node's domain). The fast path keeps those sums per (selector,
topology key, node mask) and moves them on every bind, delete and status swap
(``FastPath.domain_counts``). These tests drive random binds, terminations, removals,
rebinds, pod relabels and node additions, removals and relabels, and hold every sum — those
asked before the changes and kept current, and those asked after — to the plain count, and the
plugin's vectorized PreFilter/PreScore states to its plain ones.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schedtest import bound_pod, store_cluster

from ksandbox.api.codec import FrozenDict, decode
from ksandbox.api.core import Node, Pod
from ksandbox.api.evolve import evolve
from ksandbox.api.selectors import LabelSelector
from ksandbox.scheduler.framework.cycle_state import CycleState
from ksandbox.scheduler.plugins.pod_topology_spread import (
    PRE_FILTER_STATE_KEY,
    PRE_SCORE_STATE_KEY,
)

ZONE = "topology.kubernetes.io/zone"
RACK = "rack"
NODES = 9


def _labels(i: int) -> dict:
    labels = {"disk": "ssd" if i % 2 else "hdd", RACK: f"r{i % 2}"}
    if i % 5 != 4:                       # a few nodes have no zone
        labels[ZONE] = f"zone-{i % 3}"
    return labels


def _sel(**labels) -> LabelSelector:
    return LabelSelector(match_labels=FrozenDict(labels))


def _incoming(store, spec_extra: dict) -> Pod:
    spec = {"containers": [{"name": "c", "image": "nginx"}], **spec_extra}
    return store.admit(decode(Pod, {"metadata": {"name": "incoming", "namespace": "default",
                                                 "labels": {"app": "a0"}}, "spec": spec}))


CONSTRAINTS = [
    {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
     "labelSelector": {"matchLabels": {"app": "a0"}}},
    {"maxSkew": 2, "topologyKey": RACK, "whenUnsatisfiable": "DoNotSchedule",
     "minDomains": 3, "labelSelector": {"matchLabels": {"app": "a1"}}},
    {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway",
     "labelSelector": {"matchLabels": {"app": "a0"}}},
    {"maxSkew": 3, "topologyKey": RACK, "whenUnsatisfiable": "ScheduleAnyway",
     "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In",
                                             "values": ["a1", "a2"]}]}},
]
# The incoming pods: every node counts; a node selector (nodeAffinityPolicy Honor); taints
# honored.
INCOMING = [{"topologySpreadConstraints": CONSTRAINTS},
            {"nodeSelector": {"disk": "ssd"}, "topologySpreadConstraints": CONSTRAINTS},
            {"topologySpreadConstraints": [dict(c, nodeTaintsPolicy="Honor")
                                           for c in CONSTRAINTS]}]
SELECTORS = [("default", _sel(app="a0")), ("default", _sel(app="a1")),
             ("other", _sel(app="a0")), ("default", _sel(app="a2", tier="web"))]


def _plain_domains(fp, ns, sel, key, mask):
    ids, values, _ = fp.topology(key)
    per = np.zeros(len(values), dtype=np.int64)
    for i, ni in enumerate(fp.infos):
        if mask[i]:
            per[ids[i]] += sum(1 for pi in ni.pods.values() if not pi.terminating
                               and pi.namespace == ns and sel.matches(pi.labels))
    return per


def _check(fp, pl, pods):
    fp.sync()
    keys = fp.has_keys((ZONE,))
    for pod in pods:
        for honor in ((True, False), (False, False), (True, True)):
            incl = fp.inclusion_mask(pod, *honor)
            for ns, sel in SELECTORS:
                for key, k in ((ZONE, keys), (ZONE, None), (RACK, None)):
                    mask = incl if k is None else incl & k
                    got = fp.domain_counts(ns, sel, key, incl, k)
                    assert (got == _plain_domains(fp, ns, sel, key, mask)).all(), (ns, sel, key)
                    ids, values, _ = fp.topology(key)
                    present = np.bincount(ids[mask], minlength=len(values)) > 0
                    assert (fp.domains_present(key, incl, k) == present).all()
                    # the class keys of the hostname counts over these domains (asked
                    # before the changes too: kept current with the counts)
                    low = len(values)
                    assert (fp.class_keys(ns, sel, ids, low)
                            == fp.match_counts(ns, sel) * low + ids).all(), (ns, sel, key)
        # The plugin's states from those counts read as the plain ones.
        nodes = fp.infos
        plain, fast = CycleState(), CycleState()
        assert pl.pre_filter(plain, pod, nodes)[1] is None
        assert pl.pre_filter_vec(fast, pod, fp)[1] is None
        a, b = plain.read(PRE_FILTER_STATE_KEY), fast.read(PRE_FILTER_STATE_KEY)
        assert [b.min_match(i) for i in range(2)] == [a.min_match(i) for i in range(2)]
        assert b.value_counts == a.value_counts
        idx = np.arange(fp.n, dtype=np.int64)[::2]        # some nodes are candidates
        cand = [nodes[int(i)] for i in idx]
        plain, fast = CycleState(), CycleState()
        assert pl.pre_score(plain, pod, cand) is None
        assert pl.pre_score_vec(fast, pod, fp, idx) is None
        a, b = plain.read(PRE_SCORE_STATE_KEY), fast.read(PRE_SCORE_STATE_KEY)
        assert (b.value_counts, b.weights, b.ignored) == (a.value_counts, a.weights, a.ignored)
        raw = [pl.score(plain, pod, ni) for ni in cand]
        assert pl.score_vec(fast, pod, fp, idx).tolist() == raw


OPS = st.lists(st.tuples(st.sampled_from(["bind", "bind", "bind", "terminate", "remove",
                                          "rebind", "relabel", "add_node", "remove_node",
                                          "relabel_node", "check"]),
                         st.integers(0, 29), st.integers(0, 40)),
               min_size=1, max_size=40)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
def test_domain_counts_kept_current_equal_a_count_over_every_node(ops):
    store, clock, sched = store_cluster(NODES, seed=3, use_fast=True, name="n{:02d}",
                                        labels_of=_labels)
    fwk = sched.profiles["default-scheduler"]
    pl = next(p for p in fwk.score_plugins if p.name == "PodTopologySpread")
    fp = sched.fast_for(fwk)
    for i in range(12):
        store.create(bound_pod(f"p{i:02d}", "default", {"app": f"a{i % 3}"}, f"n{i % NODES:02d}"))
    fp.sync()
    pods = [_incoming(store, extra) for extra in INCOMING]
    _check(fp, pl, pods)                       # the sums exist before the changes
    extra_nodes = 0
    for op, i, j in ops:
        name, ns = f"p{i:02d}", "other" if i % 7 == 6 else "default"
        node_names = sorted(n.metadata.name for n in store.list("Node"))
        node = node_names[j % len(node_names)]
        cur = store.get("Pod", name, ns)
        if op == "bind" and cur is None:
            store.create(bound_pod(name, ns, {"app": f"a{j % 3}", "tier": "web"}, node))
        elif op == "terminate" and cur is not None:
            store.delete("Pod", name, ns)
        elif op == "remove" and cur is not None:
            store.remove("Pod", name, ns)
        elif op == "rebind" and cur is not None:
            store.remove("Pod", name, ns)
            store.create(bound_pod(name, ns, dict(cur.metadata.labels), node))
        elif op == "relabel" and cur is not None and cur.metadata.deletion_timestamp is None:
            store.update(evolve(cur, metadata=evolve(cur.metadata, labels=FrozenDict(
                {**cur.metadata.labels, "app": f"a{j % 3}"}))))
        elif op == "add_node":
            extra_nodes += 1
            labels = _labels(j)
            store.create(decode(Node, {"metadata": {"name": f"x{extra_nodes:02d}",
                                                    "labels": labels},
                                       "status": {"capacity": {"cpu": "8", "pods": "110"}}}))
        elif op == "remove_node" and len(node_names) > 2:
            store.remove("Node", node)
        elif op == "relabel_node":
            n = store.get("Node", node)
            if n is not None:
                labels = dict(n.metadata.labels)
                labels[RACK if j % 2 else ZONE] = f"v{j % 4}"
                if j % 5 == 0:
                    labels.pop(ZONE, None)
                store.update(evolve(n, metadata=evolve(n.metadata, labels=FrozenDict(labels))))
        elif op == "check":
            _check(fp, pl, pods)
    clock.run_until(clock.now + 1)
    _check(fp, pl, pods)


def test_a_stale_sum_is_caught():
    """The check above can fail: a sum moved by hand no longer equals the plain count."""
    store, clock, sched = store_cluster(NODES, seed=3, use_fast=True, name="n{:02d}",
                                        labels_of=_labels)
    fwk = sched.profiles["default-scheduler"]
    fp = sched.fast_for(fwk)
    for i in range(12):
        store.create(bound_pod(f"p{i:02d}", "default", {"app": "a0"}, f"n{i % NODES:02d}"))
    fp.sync()
    pod = _incoming(store, INCOMING[0])
    incl = fp.inclusion_mask(pod, True, False)
    per = fp.domain_counts("default", _sel(app="a0"), ZONE, incl)
    per[0] += 1
    try:
        _check(fp, next(p for p in fwk.score_plugins if p.name == "PodTopologySpread"), [pod])
    except AssertionError:
        pass
    else:
        raise AssertionError("a wrong sum passed the check")
    # and a class key moved by hand
    per[0] -= 1
    ids, values, _ = fp.topology(RACK)
    fp.class_keys("default", _sel(app="a0"), ids, len(values))[1] += 1
    try:
        _check(fp, next(p for p in fwk.score_plugins if p.name == "PodTopologySpread"), [pod])
    except AssertionError:
        return
    raise AssertionError("a wrong class key passed the check")
