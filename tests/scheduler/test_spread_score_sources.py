"""PodTopologySpread's vectorized PreScore remembers, per constraints list and spec, the fast
path's live arrays it reads (``_score_sources``: a counter's per-node counts, a counter's sums
per domain, the topology) and reads them again only when the fast path's ``epoch`` says one of
them may no longer be kept current: a counter dropped for room, a counter's domain sums
dropped for room, the node list or the nodes' static parts changed.

These tests keep few counters and few domain sums, so the pods below drop each other's, and
hold the vectorized PreScore and Score, cycle after cycle between random pod and node changes,
to the plain ones (which count every node afresh).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schedtest import bound_pod, store_cluster
# the same nine-node cluster shape as the domain-count test
from test_fast_path_domain_counts import NODES, RACK, ZONE, _labels

from ksandbox.api.codec import FrozenDict, decode
from ksandbox.api.core import Namespace, Node, Pod
from ksandbox.api.evolve import evolve
from ksandbox.scheduler.framework.cycle_state import CycleState
from ksandbox.scheduler.framework.fast import FastPath
from ksandbox.scheduler.plugins.pod_topology_spread import PRE_SCORE_STATE_KEY


def _spread(key: str, app: str, skew: int = 1) -> dict:
    return {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": app}}}


# One ScheduleAnyway constraint each (so that each pod's counters fit in the room and its
# sources are remembered), with selectors and inclusion masks that differ: with room for two
# counters and one domain sum per counter, asking for one pod's drops another's.
INCOMING = [
    {"topologySpreadConstraints": [_spread(ZONE, "a0")]},
    {"topologySpreadConstraints": [_spread(ZONE, "a1", 2)]},
    {"topologySpreadConstraints": [_spread(RACK, "a2")]},
    {"nodeSelector": {"disk": "ssd"}, "topologySpreadConstraints": [_spread(ZONE, "a0")]},
    {"topologySpreadConstraints": [_spread("kubernetes.io/hostname", "a1"),
                                   _spread(ZONE, "a1")]},
]


def _incoming(store, i: int, extra: dict) -> Pod:
    spec = {"containers": [{"name": "c", "image": "nginx"}], **extra}
    return store.admit(decode(Pod, {"metadata": {"name": f"incoming-{i}",
                                                 "namespace": "default",
                                                 "labels": {"app": "a0"}}, "spec": spec}))


def _check(fp, pl, pod) -> None:
    fp.sync()
    nodes = fp.infos
    import numpy as np

    idx = np.arange(fp.n, dtype=np.int64)[::2]
    cand = [nodes[int(i)] for i in idx]
    plain, fast = CycleState(), CycleState()
    assert pl.pre_score(plain, pod, cand) is None
    assert pl.pre_score_vec(fast, pod, fp, idx) is None
    a, b = plain.read(PRE_SCORE_STATE_KEY), fast.read(PRE_SCORE_STATE_KEY)
    assert (b.value_counts, b.weights, b.ignored) == (a.value_counts, a.weights, a.ignored)
    assert pl.score_vec(fast, pod, fp, idx).tolist() == [pl.score(plain, pod, ni)
                                                          for ni in cand]


OPS = st.lists(st.tuples(st.sampled_from(["bind", "bind", "bind", "terminate", "remove",
                                          "relabel", "add_node", "relabel_node", "namespace",
                                          "check",
                                          "check", "check"]),
                         st.integers(0, 29), st.integers(0, 40)),
               min_size=1, max_size=50)


def _run(ops, monkeypatch, counters: int, sums: int) -> None:
    monkeypatch.setattr(FastPath, "MAX_COUNTERS", counters)
    monkeypatch.setattr(FastPath, "MAX_DOMAIN_SUMS", sums)
    store, clock, sched = store_cluster(NODES, seed=3, use_fast=True, name="n{:02d}",
                                        labels_of=_labels)
    fwk = sched.profiles["default-scheduler"]
    pl = next(p for p in fwk.score_plugins if p.name == "PodTopologySpread")
    fp = sched.fast_for(fwk)
    for i in range(12):
        store.create(bound_pod(f"p{i:02d}", "default", {"app": f"a{i % 3}"}, f"n{i % NODES:02d}"))
    pods = [_incoming(store, i, extra) for i, extra in enumerate(INCOMING)]
    for pod in pods:
        _check(fp, pl, pod)
    extra_nodes = 0   # (also names new namespaces)
    for op, i, j in ops:
        name = f"p{i:02d}"
        node_names = sorted(n.metadata.name for n in store.list("Node"))
        node = node_names[j % len(node_names)]
        cur = store.get("Pod", name, "default")
        if op == "bind" and cur is None:
            store.create(bound_pod(name, "default", {"app": f"a{j % 3}"}, node))
        elif op == "terminate" and cur is not None:
            store.delete("Pod", name, "default")
        elif op == "remove" and cur is not None:
            store.remove("Pod", name, "default")
        elif op == "relabel" and cur is not None and cur.metadata.deletion_timestamp is None:
            store.update(evolve(cur, metadata=evolve(cur.metadata, labels=FrozenDict(
                {**cur.metadata.labels, "app": f"a{j % 3}"}))))
        elif op == "add_node":
            extra_nodes += 1
            store.create(decode(Node, {"metadata": {"name": f"x{extra_nodes:02d}",
                                                    "labels": _labels(j)},
                                       "status": {"capacity": {"cpu": "8", "pods": "110"}}}))
        elif op == "relabel_node":
            n = store.get("Node", node)
            if n is not None:
                labels = dict(n.metadata.labels)
                labels[RACK if j % 2 else ZONE] = f"v{j % 4}"
                store.update(evolve(n, metadata=evolve(n.metadata, labels=FrozenDict(labels))))
        elif op == "namespace":
            extra_nodes += 1
            store.create(decode(Namespace, {"metadata": {"name": f"ns-{extra_nodes}"}}))
        elif op == "check":
            _check(fp, pl, pods[j % len(pods)])
    for pod in pods:
        _check(fp, pl, pod)


@pytest.mark.parametrize("counters,sums", [(2, 1), (3, 1), (64, 1), (2, 8)])
@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_remembered_sources_score_as_the_plain_pre_score(ops, monkeypatch, counters, sums):
    _run(ops, monkeypatch, counters, sums)


def test_a_dropped_counter_is_not_read_again(monkeypatch):
    """Two pods whose counters take each other's room: the first pod's remembered counter is
    dropped when the second's is made, and the binds after it move only the new one — a memo
    that outlived the drop (the epoch not moved) would score the first pod from stale counts
    (this sequence fails the check then)."""
    ops = [("check", 0, 0), ("check", 0, 1), ("bind", 20, 0), ("bind", 21, 3),
           ("bind", 22, 6), ("check", 0, 0)]
    _run(ops, monkeypatch, 1, 8)


def test_a_relabelled_node_is_read_again(monkeypatch):
    """A node's rack changes (a static part, not the node list): the rack topology and its
    sums are read again — a memo kept across it would count n02's app=a2 pods in its old
    rack."""
    ops = [("check", 0, 2), ("relabel_node", 0, 11), ("check", 0, 2)]
    _run(ops, monkeypatch, 64, 8)


def test_counters_dropped_by_a_namespace_event_are_not_read_again(monkeypatch):
    """A namespace write drops every counter (Scheduler._on_namespace): the binds after it
    move only counters made afresh."""
    ops = [("check", 0, 0), ("namespace", 0, 0), ("bind", 20, 0), ("bind", 23, 3),
           ("check", 0, 0)]
    _run(ops, monkeypatch, 64, 8)
