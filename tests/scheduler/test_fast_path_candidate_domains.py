"""Which topology domains the candidates are in (PodTopologySpread's PreScore weights and
masks), kept by the fast path per rotation of every node.

When every node passes, a cycle's candidates are the node list's rotation from the start
index (``FastPath._rot``): ``candidate_domains`` keeps its answer per (topology ids, start,
count) until the nodes' static parts change. Here random rotations, other index arrays and
node relabels (static changes: new ids) are held to the plain answer — a domain is present
when a candidate's id is its — and the scheduler's own cycles read the kept answers.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schedtest import store_cluster

from ksandbox.api.codec import FrozenDict
from ksandbox.api.evolve import evolve
from ksandbox.scheduler.framework.fast import FastPath, rotation

ZONE = "topology.kubernetes.io/zone"
NODES = 12


def _plain(ids, domains, idx):
    present = np.bincount(ids[idx], minlength=domains) > 0
    return present.tolist(), int(present.sum())


OPS = st.lists(st.tuples(st.sampled_from(["rotation", "rotation", "rotation", "other",
                                          "relabel"]),
                         st.integers(0, NODES - 1), st.integers(1, NODES)),
               min_size=1, max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
def test_the_kept_domains_of_a_rotation_are_the_candidates_domains(ops):
    store, _clock, sched = store_cluster(NODES, seed=5, use_fast=True, name="n{:02d}",
                                         labels_of=lambda i: {ZONE: f"z{i % 4}"})
    fp = sched.fast_for(sched.profiles["default-scheduler"])
    fp.sync()
    for op, start, count in ops:
        fp.sync()
        ids, values, _ = fp.topology(ZONE)
        if op == "relabel":
            n = store.get("Node", f"n{start:02d}")
            store.update(evolve(n, metadata=evolve(n.metadata, labels=FrozenDict(
                {ZONE: f"z{count % 6}"}))))
            continue
        if op == "rotation":
            idx = rotation(fp._all_idx, start, count)
            fp._rot = (idx, start)
        else:   # not this cycle's rotation (a restricted or a filtered set): not kept
            idx = np.arange(start, NODES, 2, dtype=np.int64)
            fp._rot = (np.arange(NODES, dtype=np.int64), start)
        present, got = fp.candidate_domains(ids, len(values), idx)
        assert (present.tolist(), got) == _plain(ids, len(values), idx), (op, start, count)


def _placed(use_fast: bool) -> list:
    from ksandbox.api.codec import decode
    from ksandbox.api.core import Pod
    from ksandbox.api.core_objects import Service

    store, clock, _sched = store_cluster(150, seed=5, use_fast=use_fast, name="n{:03d}",
                                         labels_of=lambda i: {ZONE: f"z{i % 3}"})
    # a Service selecting the pods: the system-default spreading scores them
    store.create(decode(Service, {"metadata": {"name": "web", "namespace": "default"},
                                  "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}))
    for i in range(60):
        store.create(decode(Pod, {"metadata": {"name": f"w{i}", "namespace": "default",
                                               "labels": {"app": "web"}},
                                  "spec": {"containers": [{"name": "c", "image": "nginx"}]}}))
        clock.run_until(clock.now + 1)
    return sorted((p.metadata.name, p.spec.node_name) for p in store.list("Pod"))


def test_a_roomy_clusters_cycles_read_the_kept_domains(monkeypatch):
    # 150 nodes: 73 candidates a pod from a start that moves round the list, so the
    # rotations both run straight and wrap round; placed as by the plain path
    hits = {"kept": 0, "made": 0}
    real = FastPath.candidate_domains

    def counted(self, ids, domains, idx):
        key = ("candidate_domains", id(ids), self._rot[1], len(idx)) \
            if self._rot is not None and self._rot[0] is idx else None
        hits["kept" if key in self._static else "made"] += 1
        return real(self, ids, domains, idx)
    monkeypatch.setattr(FastPath, "candidate_domains", counted)
    fast = _placed(True)
    assert hits["kept"] > 10 and hits["made"] > 0, hits
    assert all(node for _, node in fast) and fast == _placed(False)
