"""A pod turning terminating is swapped in its node's place in the scheduler cache, and the
cache, the fast path's counters and table, and the placements that follow are those of the
full remove + add.

Upstream's cache (``backend/cache/cache.go`` updatePod) removes and adds the pod again on any
update; a terminating pod keeps its requests on its node (``framework/types.go`` NodeInfo
counts it until it is gone), and PodTopologySpread's counting skips it
(``podtopologyspread/common.go`` countPodsMatchSelector). The sandbox swaps the PodInfo in
place when only the deletion state moved (``SchedulerCache._replace_status_only``): the pod
listeners hear it, the node listeners do not (the totals are unchanged). This test runs the
same random churn twice — once with the swap, once forcing the full remove + add — and
compares everything the scheduler reads.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from schedtest import bound_pod, store_cluster

from ksandbox.api.codec import FrozenDict, decode
from ksandbox.api.core import Pod
from ksandbox.api.selectors import LabelSelector

ZONE = "topology.kubernetes.io/zone"
NODES = 8


def _cluster(swap: bool):
    store, clock, sched = store_cluster(NODES, seed=9, use_fast=True, name="n{:02d}",
                                        labels_of=lambda i: {ZONE: f"z{i % 3}"})
    cache = sched.cache
    seen = {"swaps": 0}
    original = cache._replace_status_only

    def replace(key, pod):
        ni = cache.node_infos.get(pod.spec.node_name)
        old = ni.pods.get(key) if ni is not None else None
        flips = old is not None and old.terminating != (pod.metadata.deletion_timestamp
                                                        is not None)
        if flips and not swap:
            return False                   # the full remove + add
        done = original(key, pod)
        seen["swaps"] += done and flips
        return done
    cache._replace_status_only = replace
    return store, clock, sched, seen


def _pending(i: int, app: str) -> Pod:
    return decode(Pod, {"metadata": {"name": f"new-{i}", "namespace": "default",
                                     "labels": {"app": app}},
                        "spec": {"containers": [{"name": "c", "image": "nginx", "resources": {
                            "requests": {"cpu": "500m", "memory": "1Gi"}}}]}})


def _snapshot(store, clock, sched):
    fwk = sched.profiles["default-scheduler"]
    fp = sched.fast_for(fwk)
    fp.sync()
    table = sched.cache._table
    table.refresh()   # the totals columns are written lazily (NodeTable.refresh)
    nodes = [(ni.name, list(ni.pods), [pi.terminating for pi in ni.pods.values()],
              ni.req_cpu, ni.req_mem, ni.nz_cpu, ni.nz_mem, ni.generation)
             for ni in fp.infos]
    cols = [getattr(table, c).tolist() for c in ("req_cpu", "req_mem", "nz_cpu", "nz_mem",
                                                "npods")]
    incl = fp.inclusion_mask(_pending(0, "a0"), True, False)
    counts = []
    for app in ("a0", "a1"):
        sel = LabelSelector(match_labels=FrozenDict({"app": app}))
        counts.append((fp.match_counts("default", sel).tolist(),
                       fp.domain_counts("default", sel, ZONE, incl).tolist()))
    return nodes, cols, counts


OPS = st.lists(st.tuples(st.sampled_from(["bind", "terminate", "terminate", "remove",
                                          "schedule"]),
                         st.integers(0, 19), st.integers(0, 30)), min_size=1, max_size=40)


@settings(max_examples=20, deadline=None)
@given(OPS)
def test_the_swap_leaves_what_the_full_remove_and_add_leaves(ops):
    runs = []
    for swap in (True, False):
        store, clock, sched, seen = _cluster(swap)
        fwk = sched.profiles["default-scheduler"]
        sched.fast_for(fwk).sync()
        for j in range(6):
            store.create(bound_pod(f"p{j:02d}", "default", {"app": f"a{j % 2}"},
                                   f"n{j % NODES:02d}"))
        # The counters and the columns exist before the churn (so they are kept current).
        _snapshot(store, clock, sched)
        placed = []
        for n, (op, i, j) in enumerate(ops):
            name = f"p{i:02d}"
            cur = store.get("Pod", name, "default")
            if op == "bind" and cur is None:
                store.create(bound_pod(name, "default", {"app": f"a{j % 2}"},
                                       f"n{j % NODES:02d}"))
            elif op == "terminate" and cur is not None:
                store.delete("Pod", name, "default", grace_period=30)
            elif op == "remove" and cur is not None:
                store.remove("Pod", name, "default")
            elif op == "schedule":
                store.create(_pending(n, f"a{j % 2}"))
                clock.run_until(clock.now + 1)
                p = store.get("Pod", f"new-{n}", "default")
                placed.append(p.spec.node_name)
        runs.append((_snapshot(store, clock, sched), placed, seen["swaps"]))
    (a, placed_a, _swaps), (b, placed_b, none) = runs
    assert none == 0
    assert a == b
    assert placed_a == placed_b


def test_a_terminating_pod_is_swapped_and_leaves_the_spread_counts():
    store, clock, sched, seen = _cluster(True)
    fwk = sched.profiles["default-scheduler"]
    fp = sched.fast_for(fwk)
    fp.sync()
    store.create(bound_pod("p", "default", {"app": "a0"}, "n01"))
    sel = LabelSelector(match_labels=FrozenDict({"app": "a0"}))
    before = fp.match_counts("default", sel)[1]
    ni = sched.cache.node_infos["n01"]
    cpu = ni.nz_cpu
    store.delete("Pod", "p", "default", grace_period=30)
    assert seen["swaps"] == 1
    assert ni.pods["default/p"].terminating
    assert ni.nz_cpu == cpu                       # still on the node
    assert fp.match_counts("default", sel)[1] == before - 1
