"""The scheduler's own cycle asks the fast path for the weighted totals alone.

``FastPath.prioritize(..., keep_scores=False)`` (``_totals``) adds a plugin's one score for
every node once (``constant_score``: TaintToleration when no node has a PreferNoSchedule taint
the pod minds, ImageLocality for an image no node has) and takes PodTopologySpread's weighted
normalized scores in one step (``weighted_score_vec``). Explain keeps the per-plugin scores and
runs the plugins one by one (tests/scheduler/test_scheduler_fast_path.py holds those to the
plain path's). Here: the totals alone equal the totals of prioritize with its per-plugin scores,
for each kind of pod of the mixed workload, on a cluster where nodes fill up between pods.
"""

from __future__ import annotations

import attrs
import numpy as np

from ksandbox.api.core import Toleration
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
