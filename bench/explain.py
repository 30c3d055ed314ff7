"""Explain of a pod at 5,000 nodes: a pending pod and an already-bound one (issue 11 item 6).

    .venv/bin/python bench/explain.py [--nodes 5000] [--pods 1000] [--owned 5000] [--repeat 5]

The SchedulingBasic cluster of bench/scheduler.py (nodes, pods placed by the real scheduler),
then ``explain_pod`` of one bound pod and one new pending pod, each first time and again
(the fast path caches per-template columns). Then a second cluster: the same nodes in 3 zones
and ``--owned`` pods of one ReplicaSet (a Deployment's pods), so PodTopologySpread's
system-default spreading counts and scores every node, and the explain of one bound pod of
it. Wall and CPU milliseconds (median); the goal for a bound pod is ≤ 50 ms.

The collector runs as in the product: the thresholds every Session sets (gcpolicy.tune), and
the garbage of building each cluster collected before anything is timed (the TUI collects and
freezes the loaded heap after its first frame). Without that, the first explain after a build
paid a collection the build owed (8-27 ms at 5,000 nodes: explain turns the collector back on
when it is done, and the next allocation set it off) and every explain a young collection
the product's thresholds make rare; ``--default-gc`` measures that way.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scheduler import SEED, make_node, make_pod  # noqa: E402
from ksandbox import gcpolicy  # noqa: E402
from ksandbox.api.apps import ReplicaSet  # noqa: E402
from ksandbox.api.codec import decode  # noqa: E402
from ksandbox.api.core import Namespace, Pod  # noqa: E402
from ksandbox.api.meta import ObjectMeta  # noqa: E402
from ksandbox.apiserver.store import Store  # noqa: E402
from ksandbox.controlplane import ControlPlane  # noqa: E402
from ksandbox.scheduler.explain import explain_pod  # noqa: E402
from ksandbox.scheduler.scheduler import Scheduler  # noqa: E402
from ksandbox.sim.clock import Clock  # noqa: E402
from ksandbox.sim.rand import SimRandom  # noqa: E402


def build(n_nodes: int, n_pods: int, owned: bool = False):
    clock = Clock()
    rand = SimRandom(SEED)
    store = Store(lambda: clock.now, rand.child("apiserver"))
    cp = ControlPlane(store, clock, rand, [])
    sched = Scheduler()
    cp.scheduler = sched
    sched.start(cp)
    store.create(Namespace(metadata=ObjectMeta(name="default")))
    if owned:
        # No controllers run: the ReplicaSet is there for the scheduler's default selector.
        store.create(decode(ReplicaSet, {
            "metadata": {"name": "web-5d4f8", "namespace": "default"},
            "spec": {"replicas": n_pods, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "pause", "image": "pause"}]}}}}))
    for i in range(n_nodes):
        store.create(make_node(i, {"zones": 3} if owned else {}))
    for i in range(n_pods):
        store.create(owned_pod(f"web-5d4f8-{i}") if owned else
                     make_pod(f"init-{i}", "default"))
    clock.run_until(clock.now + 1)
    return store, sched


def owned_pod(name: str) -> Pod:
    """A pod of the ReplicaSet: bench/scheduler.py's pod with its labels and owner."""
    res = {"cpu": "100m", "memory": "500Mi"}
    return decode(Pod, {
        "metadata": {"name": name, "namespace": "default", "labels": {"app": "web"},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                          "name": "web-5d4f8", "uid": "web-5d4f8",
                                          "controller": True}]},
        "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"requests": res, "limits": res}}]}})


def timed(fn, repeat: int) -> tuple[str, float, float]:
    """(first call "wall ms (CPU ms)", median wall ms of the repeats, median CPU ms of the
    repeats)"""
    t, c = time.perf_counter(), time.process_time()
    fn()
    first = f"{(time.perf_counter() - t) * 1000:7.1f} ms (CPU {(time.process_time() - c) * 1000:.1f})"
    walls, cpus = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        walls.append((time.perf_counter() - t) * 1000)
        cpus.append((time.process_time() - c) * 1000)
    return first, statistics.median(walls), statistics.median(cpus)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=1000)
    ap.add_argument("--owned", type=int, default=5000,
                    help="pods of the ReplicaSet in the second cluster (0: skip it)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--default-gc", action="store_true",
                    help="CPython's collector thresholds, no collection after each build")
    a = ap.parse_args()
    if not a.default_gc:
        gcpolicy.tune()
    store, sched = build(a.nodes, a.pods)
    if not a.default_gc:
        gc.collect()
    bound = store.get("Pod", "init-0", "default")
    assert bound.spec.node_name, "init-0 should be bound"
    pending = make_pod("explain-me", "default")
    print(f"{a.nodes} nodes, {a.pods} pods; load {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores; gc thresholds {gc.get_threshold()}")
    for what, pod, goal in (("bound pod", bound, 50), ("pending pod", pending, None)):
        first, wall, cpu = timed(lambda p=pod: explain_pod(sched, p), a.repeat)
        g = f" (goal ≤ {goal} ms: {'met' if cpu <= goal else 'NOT met'} by CPU)" if goal else ""
        print(f"explain {what:12} first {first}; again: wall {wall:7.1f} ms, "
              f"CPU {cpu:7.1f} ms{g}")
    if a.owned <= 0:
        return
    del store, sched, bound
    store, sched = build(a.nodes, a.owned, owned=True)
    if not a.default_gc:
        gc.collect()
    bound = store.get("Pod", "web-5d4f8-0", "default")
    assert bound.spec.node_name, "web-5d4f8-0 should be bound"
    print(f"{a.nodes} nodes in 3 zones, {a.owned} pods of one ReplicaSet (default spreading)")
    first, wall, cpu = timed(lambda: explain_pod(sched, bound), a.repeat)
    print(f"explain {'owned bound':12} first {first}; again: wall {wall:7.1f} ms, "
          f"CPU {cpu:7.1f} ms (goal ≤ 50 ms: {'met' if cpu <= 50 else 'NOT met'} by CPU)")


if __name__ == "__main__":
    main()
