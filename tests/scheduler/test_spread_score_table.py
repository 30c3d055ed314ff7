"""PodTopologySpread's Score twin reads a node's score from a table by its counts.

``PodTopologySpread._scores_by_count`` keeps, per (weight, maxSkew) of each constraint, a table
of the rounded sums of the constraints' contributions for every pair of counts up to the
largest seen, grown when a count passes its end. This holds it to the sum made node by node
(``constraint_score`` of each count, added in constraint order, ``go_round_vec``), through
sequences of cycles whose counts rise past the table's end, whose weights change and come
back, and whose tables fill the cache.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.core import TopologySpreadConstraint
from ksandbox.scheduler.plugins import pod_topology_spread as pts
from ksandbox.scheduler.plugins.helper import go_round_vec
from ksandbox.scheduler.plugins.pod_topology_spread_common import (
    Constraint,
    PreScoreState,
    constraint_score,
    topology_normalizing_weight,
)

HOST, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"


def _per_node(state: PreScoreState, reads: list, idx: np.ndarray) -> np.ndarray:
    """The sum node by node, as score_vec's general path makes it."""
    total = None
    for i, c in enumerate(state.constraints):
        if c.topology_key == HOST:
            contrib = constraint_score(reads[i][idx], state.weights[i], c.max_skew)
        else:
            contrib = constraint_score(state.arrays[i][0], state.weights[i], c.max_skew)[reads[i]]
        total = contrib if total is None else total + contrib
    return go_round_vec(total)


def _spread_state(keys, skews, candidates, host, domains):
    """A PreScoreState of ScheduleAnyway constraints on ``keys`` and the reads that go with
    it: a hostname constraint reads ``host`` (weight by ``candidates``); a domain key's
    ``domains[key]`` is its counts per domain and each node's domain."""
    s = PreScoreState()
    s.arrays, reads = [], []
    for key, skew in zip(keys, skews):
        s.constraints.append(Constraint(TopologySpreadConstraint(
            max_skew=skew, topology_key=key, when_unsatisfiable="ScheduleAnyway"), None))
        if key == HOST:
            s.weights.append(topology_normalizing_weight(candidates))
            s.arrays.append(None)
            reads.append(host)
        else:
            per, read = domains[key]
            s.weights.append(topology_normalizing_weight(len(per)))
            s.arrays.append((per, np.ones(len(per), dtype=bool), [f"d{j}" for j in
                                                                  range(len(per))]))
            reads.append(read)
    return s, reads


cycle = st.fixed_dictionaries({
    "host_counts": st.lists(st.integers(0, 60), min_size=1, max_size=30),
    "zone_counts": st.lists(st.integers(0, 400), min_size=1, max_size=4),
    "candidates": st.integers(1, 600),       # the hostname weight's node count
    "skews": st.tuples(st.integers(1, 6), st.integers(1, 6)),
    "shape": st.sampled_from(["host+zone", "zone+host", "host", "zone"]),
})


@settings(max_examples=60, deadline=None)
@given(st.lists(cycle, min_size=1, max_size=25), st.integers(0, 2 ** 32 - 1))
def test_the_table_gives_the_sum_made_node_by_node(cycles, seed):
    plugin = pts.PodTopologySpread(None, pts.SYSTEM_DEFAULT_CONSTRAINTS, True)
    plugin.SCORE_TABLES_KEPT = 3          # the cache fills and drops its oldest table
    rng = np.random.default_rng(seed)
    for cyc in cycles:
        n = len(cyc["host_counts"])
        zones = len(cyc["zone_counts"])
        host = np.array(cyc["host_counts"], dtype=np.int64)
        per = np.array(cyc["zone_counts"], dtype=np.int64)
        idx = rng.permutation(n)[: max(1, n - 2)].astype(np.int64)
        zone_of = rng.integers(0, zones, n).astype(np.int64)
        keys = {"host+zone": (HOST, ZONE), "zone+host": (ZONE, HOST), "host": (HOST,),
                "zone": (ZONE,)}[cyc["shape"]]
        s, reads = _spread_state(keys, cyc["skews"], cyc["candidates"], host,
                                 {ZONE: (per, zone_of[idx])})
        want = _per_node(s, reads, idx)
        got = plugin._scores_by_count(s, reads, idx)
        if got is None:   # too big a table: the caller sums node by node
            assert np.prod([2 * int(r.max()) + 2 for r in
                            [host[idx] if k == HOST else per[zone_of[idx]]
                             for k in keys]]) > plugin.MAX_SCORE_TABLE
            continue
        assert got.dtype == want.dtype
        assert got.tolist() == want.tolist()
    assert len(plugin._score_tables) <= 3


REGION = "topology.kubernetes.io/region"

class_cycle = st.fixed_dictionaries({
    "host_counts": st.lists(st.integers(0, 60), min_size=1, max_size=30),
    "zone_counts": st.lists(st.integers(0, 400), min_size=1, max_size=4),
    "region_counts": st.lists(st.integers(0, 900), min_size=1, max_size=3),
    "candidates": st.integers(1, 600),
    "skews": st.tuples(st.integers(1, 6), st.integers(1, 6)),
    "shape": st.sampled_from(["host+zone", "zone+host", "host", "zone", "zone+region",
                              "host+host"]),
    "weight": st.integers(1, 3),
})


@settings(max_examples=80, deadline=None)
@given(st.lists(class_cycle, min_size=1, max_size=12), st.integers(0, 2 ** 32 - 1))
def test_the_classes_give_the_weighted_normalized_scores_of_every_candidate(cycles, seed):
    """``_weighted_by_class`` (the scheduler's own cycle: Score and NormalizeScore over the
    classes of candidates with the same counts) against NormalizeScore's twin over the scores
    made node by node, times the plugin's weight — for hostname and domain constraints in
    either order, two domain keys, one constraint, a table grown or too big."""
    from ksandbox.scheduler.framework.cycle_state import CycleState

    plugin = pts.PodTopologySpread(None, pts.SYSTEM_DEFAULT_CONSTRAINTS, True)
    plugin.SCORE_TABLES_KEPT = 3
    rng = np.random.default_rng(seed)
    for cyc in cycles:
        n = len(cyc["host_counts"])
        host = np.array(cyc["host_counts"], dtype=np.int64)
        idx = rng.permutation(n)[: max(1, n - 2)].astype(np.int64)
        keys = {"host+zone": (HOST, ZONE), "zone+host": (ZONE, HOST), "host": (HOST,),
                "zone": (ZONE,), "zone+region": (ZONE, REGION),
                "host+host": (HOST, HOST)}[cyc["shape"]]
        domains = {}
        for key in keys:
            if key != HOST:
                per = np.array(cyc["zone_counts" if key == ZONE else "region_counts"],
                               dtype=np.int64)
                domains[key] = per, rng.integers(0, len(per), n).astype(np.int64)[idx]
        s, reads = _spread_state(keys, cyc["skews"], cyc["candidates"], host, domains)
        state = CycleState()
        state.write(pts.PRE_SCORE_STATE_KEY, s)
        want = cyc["weight"] * plugin.normalize_vec(state, None, _per_node(s, reads, idx),
                                                    None, idx)
        got = plugin._weighted_by_class(s, reads, idx, cyc["weight"])
        if got is None:   # two hostname counts, or too big a table: the caller goes per node
            assert cyc["shape"] == "host+host" or plugin._scores_by_count(s, reads, idx) is None
            continue
        assert got.dtype == np.int64
        assert got.tolist() == want.tolist()
        # a caller's constant scores taken into the classes' scores
        got = plugin._weighted_by_class(s, reads, idx, cyc["weight"], offset=cyc["weight"] * 7)
        assert got is not None and got.tolist() == (want + cyc["weight"] * 7).tolist()
        if cyc["shape"] in ("host+zone", "zone+host"):
            # the fast path's live class keys (FastPath.class_keys): the hostname count times
            # the zone's domains plus the zone id, per node (garbage off the candidates)
            per, at = domains[ZONE]
            keyed = rng.integers(0, 99, n).astype(np.int64)
            keyed[idx] = host[idx] * len(per) + at
            got = plugin._weighted_by_class(s, reads, idx, cyc["weight"], keyed=keyed)
            assert got is not None and got.tolist() == want.tolist()
