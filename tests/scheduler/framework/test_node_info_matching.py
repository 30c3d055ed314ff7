"""NodeInfo.count_matching remembers its counts, and they always equal a fresh count.

PodTopologySpread's plain path (explain, small clusters, spread_facts) counts on every node
the pods a selector matches — upstream's countPodsMatchSelector
(``pkg/scheduler/framework/plugins/podtopologyspread/common.go``): not terminating, same
namespace, labels matched. ``count_matching`` keeps each answer until the node's pods change.
These tests churn pods (binds, terminating deletes, removals, relabels, status-only writes,
a clone with a pod taken out, as explain of a bound pod does) and hold every node's answer to a
count over its pods at that moment.
"""

from schedtest import bound_pod, store_cluster

from ksandbox.api.codec import FrozenDict
from ksandbox.api.evolve import evolve
from ksandbox.api.selectors import LabelSelector
from ksandbox.scheduler.framework import node_info
from ksandbox.sim.rand import SimRandom


def _cluster(nodes=12):
    return store_cluster(nodes, seed=3, use_fast=False)


def _fresh(ni, ns, selector):
    return sum(1 for pi in ni.pods.values() if not pi.terminating and pi.namespace == ns
               and selector.matches(pi.labels))


SELECTORS = [("default", LabelSelector(match_labels=FrozenDict({"app": "a"}))),
             ("default", LabelSelector(match_labels=FrozenDict({"app": "b", "hash": "1"}))),
             ("other", LabelSelector(match_labels=FrozenDict({"app": "a"}))),
             ("default", LabelSelector())]   # empty: every pod of the namespace


def _check(nodes):
    for ni in nodes:
        for ns, sel in SELECTORS:
            assert ni.count_matching(ns, sel) == _fresh(ni, ns, sel), (ni.name, ns, sel)


def test_remembered_counts_follow_every_change_to_a_nodes_pods():
    store, clock, sched = _cluster()
    r = SimRandom(8)
    names = []
    for i in range(240):
        ns = "other" if i % 5 == 0 else "default"
        labels = {"app": "ab"[i % 2], "hash": str(i % 3)}
        names.append((f"p-{i:03d}", ns))
        store.create(bound_pod(f"p-{i:03d}", ns, labels, f"node-{r.randrange(12):02d}"))
    clock.run_until(clock.now + 1)
    nodes = sched.cache.node_list()
    _check(nodes)
    for round_ in range(4):
        for name, ns in names[round_::7]:
            p = store.get("Pod", name, ns)
            if p is None:
                continue
            k = r.randrange(4)
            if k == 0 and p.metadata.deletion_timestamp is None:
                store.delete("Pod", name, ns)                   # terminating: not counted
            elif k == 1:
                store.remove("Pod", name, ns)
            elif k == 2:
                store.update(evolve(p, metadata=evolve(p.metadata, labels=FrozenDict(
                    {**p.metadata.labels, "app": "ba"[round_ % 2]}))))
            else:
                # A status-only write (the kubelet's): the cache swaps the PodInfo in place.
                store.update_status(evolve(p, status=evolve(p.status, message=f"r{round_}")))
        for i in range(20):
            store.create(bound_pod(f"n-{round_}-{i}", "default", {"app": "a", "hash": "1"},
                                   f"node-{r.randrange(12):02d}"))
        clock.run_until(clock.now + 1)
        _check(sched.cache.node_list())
    # Explain of a bound pod works on a clone without that pod: the clone counts without it,
    # the node itself still counts with it.
    ni = max(sched.cache.node_list(), key=lambda n: len(n.pods))
    _check([ni])
    key, pi = next((k, p) for k, p in ni.pods.items()
                   if not p.terminating and p.namespace == "default")
    shadow = ni.clone()
    shadow.remove_pod(key)
    _check([shadow, ni])
    assert shadow.count_matching("default", SELECTORS[3][1]) == \
        ni.count_matching("default", SELECTORS[3][1]) - 1


def test_an_unchanged_node_answers_from_what_it_remembered():
    """The point of remembering: a second count on an unchanged node does not walk its pods
    (and a changed one does)."""
    store, clock, sched = _cluster(nodes=2)
    for i in range(30):
        store.create(bound_pod(f"p-{i}", "default", {"app": "a"}, f"node-{i % 2:02d}"))
    clock.run_until(clock.now + 1)
    a, b = sched.cache.node_list()
    ns, sel = SELECTORS[0]
    assert a.count_matching(ns, sel) == 15 and b.count_matching(ns, sel) == 15

    calls = []

    class Spy:
        """Matches every pod, and says how often it was asked."""

        def matches(self, labels):
            calls.append(labels)
            return True

    spy = Spy()
    assert a.count_matching(ns, spy) == 15 and len(calls) == 15
    assert a.count_matching(ns, spy) == 15 and len(calls) == 15      # remembered
    store.delete("Pod", "p-0", "default")
    clock.run_until(clock.now + 1)
    assert a.count_matching(ns, spy) == 14                           # p-0 is terminating
    assert len(calls) == 15 + 14
    assert node_info.MATCHING_KEPT >= len(SELECTORS)
