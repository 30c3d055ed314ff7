"""The scheduler's own cycle asks the fast path for the weighted totals alone.

``FastPath.prioritize(..., keep_scores=False)`` (``_totals``) adds a plugin's one score for
every node once (``constant_score``: TaintToleration when no node has a PreferNoSchedule taint
the pod minds, ImageLocality for an image no node has) and takes PodTopologySpread's weighted
normalized scores in one step (``weighted_score_vec``). Explain keeps the per-plugin scores and
runs the plugins one by one (tests/scheduler/test_scheduler_fast_path.py holds those to the
plain path's). Here: the totals alone equal the totals of prioritize with its per-plugin scores,
for each kind of pod of the mixed workload, on a cluster where nodes fill up between pods; and
on a roomy cluster, where the totals' scores are gathered as one slice of each column when the
candidates are an unbroken run of nodes (FastPath.gather), the kept scores by index.
"""

from __future__ import annotations

import attrs
import numpy as np

from ksandbox.api.codec import decode
from ksandbox.api.core import Node, Pod, Toleration
from ksandbox.scheduler.framework.fast import FastPath
from ksandbox.scheduler.plugins import image_locality, pod_topology_spread, taint_toleration
from ksandbox.scheduler.schedule_one import new_cycle_state

from test_scheduler_fast_path import _scored_cluster, pod


def _count_answers(monkeypatch, cls, method: str, tally: dict) -> None:
    real = getattr(cls, method)

    def counted(self, *args):
        got = real(self, *args)
        tally[(cls.__name__, got is not None)] = tally.get((cls.__name__, got is not None),
                                                           0) + 1
        return got
    monkeypatch.setattr(cls, method, counted)


def test_the_totals_alone_are_the_totals_with_every_plugins_scores(monkeypatch):
    sched, r = _scored_cluster(True)
    fwk = sched.profiles["default-scheduler"]
    fast = sched.fast_for(fwk)
    tally: dict = {}
    _count_answers(monkeypatch, taint_toleration.TaintToleration, "constant_score", tally)
    _count_answers(monkeypatch, image_locality.ImageLocality, "constant_score", tally)
    _count_answers(monkeypatch, pod_topology_spread.PodTopologySpread, "weighted_score_vec",
                   tally)
    fast._plan = None   # the score plan looks its methods up again (the counted ones)
    compared = 0
    for i in range(1000, 1090):
        p = pod(i, r)
        if i % 6 == 5:
            p = attrs.evolve(p, spec=attrs.evolve(p.spec, tolerations=(
                Toleration(operator="Exists"),)))
        p = sched.store.create(p)
        state, _ = new_cycle_state(p)
        try:
            feasible, _diag = fast.find_nodes_that_fit(sched, fwk, state, p)
        except Exception:   # preemption cases and the like: nothing to score
            continue
        if len(feasible) < 2:
            continue
        names, per_plugin, want = fast.prioritize(fwk, state, p, feasible, True)
        _, _, got = fast.prioritize(fwk, state, p, feasible, False)
        assert got.dtype == np.int64
        assert got.tolist() == want.tolist(), (p.metadata.name, names)
        compared += 1
        if i % 3 == 0:
            # Bind it, so that nodes fill and spreading counts move between pods.
            sched.clock.run_until(sched.clock.now + 1)
    assert compared > 60
    # Each constant both answered and declined, spreading answered (else this test could
    # not fail for them); test_spread_score_table holds the spreading classes to the
    # candidates' scores in more shapes.
    for cls in ("TaintToleration", "ImageLocality"):
        assert tally.get((cls, True)) and tally.get((cls, False)), (cls, tally)
    assert tally.get(("PodTopologySpread", True), 0) > 30, tally


def test_a_roomy_clusters_totals_gather_one_run_of_nodes_as_a_slice(monkeypatch):
    # SchedulingBasic's shape at 400 nodes: every node passes, 148 are scored from the start
    # index round the list, so the candidates are an unbroken run except when they wrap
    # round. Both kinds of cycle: the totals of the slices equal those of the index, and the
    # placements those of the plain path.
    from test_scheduler_fast_path import build

    def roomy(use_fast):
        store, clock, sched = build(use_fast)
        for i in range(400):
            cap = {"cpu": "4", "memory": "32Gi", "pods": "110"}
            store.create(decode(Node, {"metadata": {"name": f"node-{i}"},
                                       "status": {"capacity": cap, "allocatable": cap}}))
        return store, clock, sched

    def basic(i):
        res = {"cpu": "100m", "memory": f"{500 + i % 7}Mi"}
        return decode(Pod, {"metadata": {"name": f"p-{i}", "namespace": "default"},
                            "spec": {"containers": [{"name": "c", "image": "pause", "resources": {
                                "requests": res, "limits": res}}]}})

    tally: dict = {}
    fast_path = FastPath
    real_gather = fast_path.gather

    def gather(self, values, idx):
        sliced = self._run is not None and self._run[0] is idx
        tally[sliced] = tally.get(sliced, 0) + 1
        return real_gather(self, values, idx)
    monkeypatch.setattr(fast_path, "gather", gather)
    store, clock, sched = roomy(True)
    fwk = sched.profiles["default-scheduler"]
    fast = sched.fast_for(fwk)
    for i in range(60):
        p = store.create(basic(i))
        state, _ = new_cycle_state(p)
        feasible, _diag = fast.find_nodes_that_fit(sched, fwk, state, p)
        _, _, got = fast.prioritize(fwk, state, p, feasible, False)
        _, _, want = fast.prioritize(fwk, state, p, feasible, True)
        assert got.tolist() == want.tolist(), p.metadata.name
        clock.run_until(clock.now + 1)   # bound: its node's columns change
    assert tally.get(True, 0) > 40 and tally.get(False, 0) > 40, tally
    placed = []
    for use_fast in (True, False):
        store, clock, sched = roomy(use_fast)
        for i in range(200):
            store.create(basic(i))
        clock.run_until(clock.now + 5)
        placed.append(sorted((p.metadata.name, p.spec.node_name) for p in store.list("Pod")))
    assert all(n for _, n in placed[0]) and placed[0] == placed[1]
