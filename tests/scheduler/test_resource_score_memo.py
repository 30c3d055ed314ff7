"""A resource scorer's remembered scores equal the scores computed afresh.

``Scorer.score_row`` (the fast path's column catch-up asks it for every node a pod event
changed) remembers each score by the pod's requests and the node fields the score reads. If
the memo's key left out a field a strategy reads, two nodes that differ only there would get
one answer; this test scores many nodes with few distinct values per field (so keys collide
often) through one scorer and holds every answer to a fresh scorer's ``score``
(upstream ``plugins/noderesources/resource_allocation.go`` score,
``least_allocated.go``, ``most_allocated.go``, ``requested_to_capacity_ratio.go``,
``balanced_allocation.go``).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from schedtest import node, pod

from ksandbox.scheduler.framework.node_info import NodeInfo, PodInfo
from ksandbox.scheduler.plugins.resource_allocation import (
    BALANCED,
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    ResourceSpec,
    Scorer,
    scaled_shape,
)

GPU = "example.com/gpu"
RESOURCE_SETS = [
    (ResourceSpec("cpu", 1), ResourceSpec("memory", 1)),
    (ResourceSpec("cpu", 3), ResourceSpec("memory", 1), ResourceSpec("ephemeral-storage", 2)),
    (ResourceSpec("memory", 1), ResourceSpec("pods", 1)),
    (ResourceSpec("cpu", 1), ResourceSpec(GPU, 2)),
]
SHAPE = scaled_shape([(0, 0), (50, 7), (100, 10)])

_node = st.tuples(st.sampled_from(["2", "4"]), st.sampled_from(["4Gi", "8Gi"]),
                  st.sampled_from(["10Gi", "20Gi"]), st.sampled_from(["0", "2"]))
_pod = st.tuples(st.sampled_from([None, "100m", "500m"]), st.sampled_from([None, "1Gi"]),
                 st.sampled_from([None, "1Gi"]), st.sampled_from([None, "1"]))


def _node_info(i: int, spec: tuple, pods: list) -> NodeInfo:
    cpu, mem, eph, gpu = spec
    ni = NodeInfo(node(f"n{i}", capacity={"cpu": cpu, "memory": mem,
                                          "ephemeral-storage": eph, GPU: gpu}))
    for j, (pcpu, pmem, peph, pgpu) in enumerate(pods):
        req = {k: v for k, v in (("cpu", pcpu), ("memory", pmem), ("ephemeral-storage", peph),
                                 (GPU, pgpu)) if v is not None}
        p = pod(f"p{i}-{j}", requests=[req], node_name=f"n{i}")
        ni.add_pod(PodInfo(p, f"default/p{i}-{j}"))
    return ni


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_node, st.lists(_pod, max_size=4)), min_size=1, max_size=12),
       st.lists(st.tuples(st.sampled_from([0, 100, 500]), st.sampled_from([0, 1 << 30]),
                          st.sampled_from([0, 1 << 30]), st.sampled_from([0, 1])),
                min_size=1, max_size=3))
def test_remembered_scores_equal_fresh_scores(nodes, requests):
    infos = [_node_info(i, spec, pods) for i, (spec, pods) in enumerate(nodes)]
    for kind in (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO, BALANCED):
        for resources in RESOURCE_SETS:
            for use_requested in (False, True):
                shape = SHAPE if kind == REQUESTED_TO_CAPACITY_RATIO else ()
                kept = Scorer(kind, resources, use_requested, shape)
                for req in requests:
                    pod_requests = tuple(req[("cpu", "memory", "ephemeral-storage",
                                              GPU, "pods").index(r.name)]
                                         if r.name != "pods" else 0 for r in resources)
                    for _ in range(2):          # the second round reads the memo
                        for ni in infos:
                            fresh = Scorer(kind, resources, use_requested, shape)
                            assert kept.score_row(ni, pod_requests) == \
                                fresh.score(ni, pod_requests), (kind, resources, ni.name)


def test_the_memo_is_in_use_and_a_wrong_key_would_be_caught():
    """Nodes alike share one entry; a key without the requested cpu would answer a busier
    node with an idle one's score (which the test above would catch)."""
    idle = _node_info(0, ("4", "8Gi", "10Gi", "0"), [])
    busy = _node_info(1, ("4", "8Gi", "10Gi", "0"), [("500m", "1Gi", None, None)] * 4)
    twin = _node_info(2, ("4", "8Gi", "10Gi", "0"), [])
    s = Scorer(LEAST_ALLOCATED, RESOURCE_SETS[0], False)
    req = (100, 1 << 30)
    assert s.score_row(idle, req) == s.score_row(twin, req)
    assert len(s._memo) == 1
    assert s.score_row(busy, req) != s.score_row(idle, req)
    s._row = lambda ni: ni.alloc_cpu       # a key that leaves out what is requested
    s._memo.clear()
    s.score_row(idle, req)
    assert s.score_row(busy, req) != s.score(busy, req)
