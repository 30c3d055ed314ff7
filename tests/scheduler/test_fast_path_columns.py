"""The fast path's per-pod-shape columns and its node search equal a fresh evaluation.

NodeTable.column keeps NodeResourcesFit's verdicts and the resource scores of one pod shape
across cycles, recomputing only the nodes whose totals changed; search_from replaces the
rotated running count upstream's sequential search is. Both are checked against the plain
computation, and pods of a few repeated templates that fill their nodes are placed by the
fast path exactly as by the reference path (upstream: schedule_one.go findNodesThatPassFilters,
noderesources/fit.go, least_allocated.go, balanced_allocation.go).
"""

import hashlib

import attrs
import numpy as np

from ksandbox.api.codec import decode
from ksandbox.api.core import Namespace, Node, Pod
from ksandbox.api.meta import ObjectMeta
from ksandbox.apiserver.store import Store
from ksandbox.controlplane import ControlPlane
from ksandbox.scheduler.framework.fast import rotation, search_from
from ksandbox.scheduler.scheduler import Scheduler
from ksandbox.sim.clock import Clock
from ksandbox.sim.rand import SimRandom


def build(use_fast, seed=7):
    clock = Clock()
    rand = SimRandom(seed)
    store = Store(lambda: clock.now, rand.child("apiserver"))
    cp = ControlPlane(store, clock, rand, [])
    sched = Scheduler(use_fast=use_fast)
    cp.scheduler = sched
    sched.start(cp)
    store.create(Namespace(metadata=ObjectMeta(name="default")))
    return store, clock, sched


def _rotated_search(fail_plugin, start, to_find):
    """The obvious formulation: walk the nodes from start round the list, count passes."""
    m = len(fail_plugin)
    order = (start + np.arange(m)) % m
    passing = fail_plugin[order] == 0
    cum = np.cumsum(passing)
    processed = int(np.searchsorted(cum, to_find)) + 1 if len(cum) and cum[-1] >= to_find else m
    seen, ok = order[:processed], passing[:processed]
    return seen[ok], seen[~ok]


def test_search_from_equals_the_rotated_walk():
    rng = np.random.default_rng(5)
    for m in (1, 2, 7, 100, 1000):
        for density in (0.0, 0.05, 0.5, 1.0):
            fail = np.where(rng.random(m) < density, 0, rng.integers(1, 5, m)).astype(np.int16)
            for start in {0, m // 3, m - 1}:
                for to_find in {1, 3, max(1, m // 10), m}:
                    got = search_from(fail, start, to_find)
                    want = _rotated_search(fail, start, to_find)
                    assert got[0].tolist() == want[0].tolist(), (m, density, start, to_find)
                    assert got[1].tolist() == want[1].tolist(), (m, density, start, to_find)
                    if density == 1.0:   # every node passes: the shortcut find_nodes_that_fit takes
                        assert rotation(np.arange(m), start, to_find).tolist() == \
                            want[0].tolist() and not len(want[1]), (m, start, to_find)


def _node(i):
    cap = {"cpu": str(1 + i % 3), "memory": f"{2 + i % 2}Gi", "pods": "12"}
    return decode(Node, {"metadata": {"name": f"node-{i:03d}"},
                         "status": {"capacity": cap, "allocatable": cap}})


def _pod(i):
    cpu, mem = (("300m", "256Mi"), ("500m", "1Gi"), ("100m", "64Mi"))[i % 3]
    return decode(Pod, {"metadata": {"name": f"pod-{i:04d}", "namespace": "default"},
                        "spec": {"containers": [{"name": "c", "image": "x", "resources": {
                            "requests": {"cpu": cpu, "memory": mem}}}]}})


def _run(use_fast):
    store, clock, sched = build(use_fast)
    for i in range(60):
        store.create(_node(i))
    log = []
    store.subscribe("Event", lambda ev: log.append(
        (clock.now, ev.obj.reason, ev.obj.involved_object.name, ev.obj.message)))
    for step in range(8):
        for i in range(step * 60, step * 60 + 60):
            store.create(_pod(i))
        clock.run_until(clock.now + 2)
        if step == 3:   # a node grows (a static change) and pods leave another
            node = store.get("Node", "node-007")
            cap = {"cpu": "8", "memory": "16Gi", "pods": "30"}
            grown = decode(Node, {"status": {"capacity": cap, "allocatable": cap}}).status
            store.update_status(attrs.evolve(node, status=grown))
            for p in store.pods_on_node("node-011"):
                store.remove("Pod", p.metadata.name, "default")
    return hashlib.sha256(repr(log).encode()).hexdigest(), log, sched


def test_repeated_templates_filling_their_nodes_place_as_the_reference_path():
    fast, fast_log, sched = _run(True)
    ref, ref_log, _ = _run(False)
    for a, b in zip(fast_log, ref_log):
        assert a == b
    assert fast == ref
    assert any(e[1] == "FailedScheduling" and "Insufficient" in e[3] for e in fast_log)
    assert sum(e[1] == "Scheduled" for e in fast_log) > 300
    assert sched.cache._table._columns   # the columns were in use


def test_a_column_follows_the_rows_that_changed():
    """A column read, then a pod bound to one node: the next read has that node's new value
    (without the row update it would keep the old one), equal to computing every row anew."""
    store, clock, sched = build(True)
    for i in range(6):
        store.create(_node(i))
    store.create(_pod(0))
    clock.run_until(clock.now + 1)
    table = sched.cache._table
    fwk = sched.profiles["default-scheduler"]
    fit = next(p for p in fwk.filter_plugins if p.name == "NodeResourcesFit")
    scorer = next(p for p in fwk.score_plugins if p.name == "NodeResourcesFit").scorer
    request = (500, 1 << 30, 0, [])
    from ksandbox.scheduler.plugins.node_resources_fit import fit_code

    def codes():
        return table.column("fit", lambda rows: fit._codes(table, rows, request),
                            lambda ni: fit_code(request, ni))

    def scores():
        return table.column("score", lambda r: scorer.score_vec(sched.fast_for(fwk), r,
                                                                (500, 1 << 30)),
                            lambda ni: scorer.score(ni, (500, 1 << 30)))

    before, scores_before = codes().copy(), scores().copy()
    r = SimRandom(1)
    every = np.arange(table.n)
    for i in range(1, 40):          # fill the nodes
        store.create(_pod(3 * i + 1))
        clock.run_until(clock.now + 0.5 + r.random())
        if i < 20 or i == 39:       # read after each bind (one row), then after many rows
            after, scores_after = codes(), scores()
            table.refresh()   # the totals columns, read here outside a column's compute
            assert after.tolist() == fit._codes(table, every, request).tolist()
            assert scores_after.tolist() == scorer.score_vec(sched.fast_for(fwk), every,
                                                             (500, 1 << 30)).tolist()
    assert after.tolist() != before.tolist() and scores_after.tolist() != scores_before.tolist()


def test_verdicts_count_the_failing_nodes_as_their_rows_change():
    """NodeTable.verdicts' count of failing nodes (Fit's shortcut for a pod that fits
    everywhere) equals counting a fresh column's non-zero codes after every read: rows
    recomputed one by one (a bind, a pod removed: failures come and go) or many at once."""
    store, clock, sched = build(True)
    for i in range(6):
        store.create(_node(i))
    store.create(_pod(0))
    clock.run_until(clock.now + 1)
    table = sched.cache._table
    fwk = sched.profiles["default-scheduler"]
    fit = next(p for p in fwk.filter_plugins if p.name == "NodeResourcesFit")
    request = (500, 1 << 30, 0, [])
    from ksandbox.scheduler.plugins.node_resources_fit import fit_code

    every = np.arange(table.n)
    r = SimRandom(4)
    seen = []
    for i in range(1, 120):
        if r.random() < 0.3:
            bound = [p for p in store.list("Pod") if p.spec.node_name]
            if bound:
                store.remove("Pod", bound[r.randrange(len(bound))].metadata.name, "default")
        else:
            store.create(_pod(3 * i + 1))
        clock.run_until(clock.now + 0.5 + r.random())
        if i % 20 < 6 or i % 20 == 19:   # after each change; or after 13 rows (at once)
            codes, failing = table.verdicts("fit", lambda rows: fit._codes(table, rows,
                                                                           request),
                                            lambda ni: fit_code(request, ni))
            table.refresh()   # the totals columns, read here outside a column's compute
            fresh = fit._codes(table, every, request)
            assert codes.tolist() == fresh.tolist()
            assert failing == int(np.count_nonzero(fresh)), i
            seen.append(failing)
    assert 0 in seen and max(seen) > 1
    assert any(b < a for a, b in zip(seen, seen[1:]))   # failures went away too
