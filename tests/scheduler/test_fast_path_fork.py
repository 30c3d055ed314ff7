"""A fork of the sandbox (sim/snapshot.fork_graph: what-if branches, undo points, playback
checkpoints) copies the fast path's counters, per-domain sums and columns with their own
buffers: pods placed in the copy move the copy's counts only, and the original's stay.

The counters and columns write single elements through memoryviews of their arrays (cheaper
than numpy scalar writes); a memoryview cannot be copied, and one left pointing at the
original's array would move the original from the copy.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from schedtest import bound_pod, store_cluster

from ksandbox.api.codec import FrozenDict, decode
from ksandbox.api.core import Pod
from ksandbox.api.selectors import LabelSelector
from ksandbox.sim.snapshot import fork_graph

ZONE = "topology.kubernetes.io/zone"


def _pending(name: str) -> Pod:
    return decode(Pod, {"metadata": {"name": name, "namespace": "default",
                                     "labels": {"app": "a"}},
                        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {
                            "requests": {"cpu": "500m", "memory": "1Gi"}}}]}})


def _state(sched):
    fp = sched.fast_for(sched.profiles["default-scheduler"])
    fp.sync()
    sel = LabelSelector(match_labels=FrozenDict({"app": "a"}))
    incl = fp.inclusion_mask(_pending("probe"), True, False)
    table = sched.cache._table
    columns = sorted((repr(k), e[0].tolist()) for k, e in table._columns.items())
    return (fp.match_counts("default", sel).tolist(),
            fp.domain_counts("default", sel, ZONE, incl).tolist(), columns)


def test_a_fork_moves_its_own_counters_and_columns():
    store, clock, sched = store_cluster(40, seed=3, use_fast=True, name="n{:02d}",
                                        labels_of=lambda i: {ZONE: f"z{i % 3}"})
    for j in range(12):
        store.create(bound_pod(f"p{j:02d}", "default", {"app": "a"}, f"n{j % 40:02d}"))
    store.create(_pending("first"))
    clock.run_until(clock.now + 1)     # a cycle: columns and counters exist
    before = _state(sched)
    assert sum(before[0]) == 13 and sched.cache._table._columns

    store2, clock2, sched2 = fork_graph((store, clock, sched))
    for j in range(20):
        store2.create(_pending(f"more-{j}"))
    store2.delete("Pod", "p00", "default", grace_period=30)
    clock2.run_until(clock2.now + 1)
    after = _state(sched2)
    assert sum(after[0]) == 13 + 20 - 1
    assert _state(sched) == before     # the original did not move

    # ... and the copy's counters equal a count of its own pods
    fp2 = sched2.fast_for(sched2.profiles["default-scheduler"])
    plain = np.array([sum(1 for pi in ni.pods.values() if not pi.terminating
                          and pi.labels.get("app") == "a") for ni in fp2.infos])
    assert after[0] == plain.tolist()


@pytest.mark.parametrize("copier", [fork_graph, copy.deepcopy])
def test_a_forks_columns_catch_up_from_its_own_nodes(copier):
    """A column is caught up by the compute and one it was made with (NodeTable.current):
    closures over the table they were made for. A copy's columns get the copy's own from
    their first reader there (deepcopy shares a closure: it would read the original's
    table), so a catch-up of many rows (compute) after the fork reads the copy's totals, not
    the original's."""
    # (small nodes: a pod's default requests move their scores)
    store, clock, sched = store_cluster(40, seed=3, use_fast=True, name="n{:02d}",
                                        labels_of=lambda i: {ZONE: f"z{i % 3}"},
                                        capacity={"cpu": "4", "memory": "8Gi", "pods": "110"})
    store.create(_pending("first"))
    clock.run_until(clock.now + 1)
    assert sched.cache._table._columns

    store2, clock2, sched2 = copier((store, clock, sched))
    # pods bound straight onto twelve nodes (more rows than a row-by-row catch-up), then a
    # cycle that reads every column
    for j in range(12):
        store2.create(bound_pod(f"b{j:02d}", "default", {"app": "b"}, f"n{j:02d}"))
    store2.create(_pending("second"))
    clock2.run_until(clock2.now + 1)
    table2 = sched2.cache._table
    infos = table2.list_id
    for key, entry in table2._columns.items():
        one = entry[5]
        assert one is not None
        # (caught up with the last cycle's bind first)
        assert table2.current(key).tolist() == [one(ni) for ni in infos]
