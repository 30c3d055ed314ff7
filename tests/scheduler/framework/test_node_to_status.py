"""NodeToStatus kept as groups means what the per-node map means.

Upstream ``framework/types.go`` (NodeToStatus, FitError.Error) and ``preemption.go``
(findCandidates / dryRunPreemption) are the reference: a map from node name to status, a
histogram of reasons over every node, the nodes whose code is Unschedulable, and candidates
tried from a random offset. ksandbox lists nodes that failed alike as one shared Status over
an index array (the fast path's diagnosis, preemption's "no victims"); these tests hold the
grouped form to the per-node one:

* random assignments written both ways (groups, one by one, mixed, overwritten) agree on
  every question: length, per-node status, the per-node dict, reason counts, nodes per code
  and FitError's message;
* the fast path's diagnosis over nodes that fail for different reasons equals the plain
  path's, node by node, and so do the FitError messages;
* preemption's candidates, its statuses and the random source after it are those of the
  one-by-one walk upstream does (every potential node cloned and tried), on clusters with and
  without possible victims, for both diagnoses.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs
from schedtest import cache_of, node, pod

from ksandbox.scheduler.framework.config import default_profile
from ksandbox.scheduler.framework.fast import FastPath
from ksandbox.scheduler.framework.interface import Code, Status
from ksandbox.scheduler.framework.runtime import Handle, build_framework
from ksandbox.scheduler.framework.types import Diagnosis, FitError, NodeToStatus
from ksandbox.scheduler.plugins.default_preemption import Candidate
from ksandbox.scheduler.schedule_one import find_nodes_that_fit, new_cycle_state
from ksandbox.sim.rand import SimRandom


class _Info:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


POOL = [Status.unschedulable("Insufficient cpu"),
        Status.unschedulable("Insufficient cpu", "Insufficient memory"),
        Status.unresolvable("node(s) had untolerated taint {a: b}"),
        Status.unresolvable("node(s) didn't match Pod's node affinity/selector"),
        Status.unschedulable("Too many pods"),
        Status(Code.UNSCHEDULABLE, "Insufficient cpu")]   # equal to POOL[0], another object

# One write: ("one", node, status) or ("group", [nodes], status).
_write = hs.one_of(
    hs.tuples(hs.just("one"), hs.integers(0, 29), hs.integers(0, len(POOL) - 1)),
    hs.tuples(hs.just("group"), hs.lists(hs.integers(0, 29), unique=True, max_size=30),
              hs.integers(0, len(POOL) - 1)))


def _written(writes: list, infos: list, grouped: bool) -> NodeToStatus:
    m = NodeToStatus()
    for kind, which, k in writes:
        if kind == "one":
            m.set(infos[which].name, POOL[k])
        elif grouped:
            m.set_group(POOL[k], np.array(which, dtype=np.int64), infos)
        else:
            for i in which:
                m.set(infos[i].name, POOL[k])
    return m


@settings(max_examples=200, deadline=None)
@given(writes=hs.lists(_write, max_size=6), n=hs.integers(1, 30),
       absent=hs.integers(0, len(POOL) - 1), extra=hs.integers(0, 5),
       grouped_first=hs.booleans())
def test_grouped_statuses_answer_as_the_per_node_map(writes, n, absent, extra, grouped_first):
    infos = [_Info(f"node-{i}") for i in range(30)]
    writes = [(kind, [i for i in which if i < n] if kind == "group" else which, k)
              for kind, which, k in writes if kind == "group" or which < n]
    infos = infos[:n]
    plain = _written(writes, infos, grouped=False)
    grouped = _written(writes, infos, grouped=True)
    for m in (plain, grouped):
        m.absent = POOL[absent]
    # Ask in bulk before the per-node dict exists (grouped_first) or after it.
    if not grouped_first:
        assert grouped.statuses == plain.statuses
    assert len(grouped) == len(plain)
    for code in Code:
        assert list(grouped.indices_for_code(infos, code)) == \
            list(plain.indices_for_code(infos, code))
        assert grouped.nodes_for_code(infos, code) == plain.nodes_for_code(infos, code)
    errors = []
    for m in (plain, grouped):
        d = Diagnosis()
        d.node_to_status = m
        errors.append(FitError(pod("p"), n + extra, d))
    assert errors[0].reason_histogram() == errors[1].reason_histogram()
    assert str(errors[0]) == str(errors[1])
    # Per node, the same status object (a later write replaced an earlier one).
    for ni in infos:
        assert grouped.get(ni.name) is plain.get(ni.name)
        assert (ni.name in grouped) == (ni.name in plain)
    assert grouped.statuses == plain.statuses
    assert len(grouped) == len(plain)


def test_the_message_counts_every_node_of_a_group():
    infos = [_Info(f"node-{i}") for i in range(2000)]
    m = NodeToStatus()
    m.set_group(POOL[0], np.arange(1500), infos)
    m.set_group(POOL[2], np.arange(1500, 2000), infos)
    d = Diagnosis()
    d.node_to_status = m
    d.post_filter_msg = "preemption: not helpful."
    assert str(FitError(pod("p"), 2000, d)) == (
        "0/2000 nodes are available: 1500 Insufficient cpu, 500 node(s) had untolerated "
        "taint {a: b}. preemption: not helpful.")
    assert [ni.name for ni in m.nodes_for_code(infos, Code.UNSCHEDULABLE)][-1] == "node-1499"


# -- the fast path's diagnosis against the plain one ------------------------------------------

class Ctx:
    """The scheduler's side of a cycle, for find_nodes_that_fit and preemption."""

    def __init__(self, cache, fwk, use_fast, seed=1, pdbs=()):
        self.cache = cache
        self.fwk = fwk
        self.nodes = cache.node_list()
        self.rand = SimRandom(seed)
        self.next_start_node_index = 0
        self.percentage_of_nodes_to_score = None
        self.use_fast = use_fast
        self._fast = FastPath(cache, fwk) if use_fast else None
        self._pdbs = list(pdbs)
        self.chosen = None

    def fast_for(self, fwk):
        return self._fast

    def pdbs(self):
        return self._pdbs

    def prepare_candidate(self, c, p):
        self.chosen = c


def mixed_nodes(n):
    """Nodes that turn a 3-cpu pod away for different reasons."""
    out = []
    for i in range(n):
        kind = i % 7
        if kind == 0:
            out.append(node(f"n{i:03d}", taints=[{"key": "a", "value": "b",
                                                  "effect": "NoSchedule"}]))
        elif kind == 1:
            out.append(node(f"n{i:03d}", unschedulable=True))
        elif kind == 2:
            out.append(node(f"n{i:03d}", capacity={"cpu": "2", "memory": "1Gi"}))
        elif kind == 3:
            out.append(node(f"n{i:03d}", labels={"disk": "hdd"},
                            capacity={"cpu": "2", "memory": "8Gi"}))
        elif kind == 4:
            out.append(node(f"n{i:03d}", pods="0"))
        else:
            out.append(node(f"n{i:03d}", capacity={"cpu": "2", "memory": "8Gi"}))
    return out


def diagnose(nodes, pods, p, use_fast, seed=1):
    cache = cache_of(nodes, pods)
    fwk = build_framework(default_profile(), Handle(cache))
    ctx = Ctx(cache, fwk, use_fast, seed)
    state, _ = new_cycle_state(p)
    if use_fast:
        feasible, d = ctx.fast_for(fwk).find_nodes_that_fit(ctx, fwk, state, p)
    else:
        feasible, d = find_nodes_that_fit(ctx, fwk, state, p)
    return cache, fwk, ctx, state, list(feasible), d


def _view(m):
    return {name: (st.code, st.reasons, st.plugin) for name, st in m.statuses.items()}


def test_the_fast_diagnosis_lists_every_node_as_the_plain_one():
    nodes = mixed_nodes(140)
    for selector in (None, {"disk": "hdd"}):
        q = pod("p", requests=[{"cpu": "3", "memory": "2Gi"}], node_selector=selector)
        *_, f_feasible, fast = diagnose(nodes, [], q, True)
        *_, p_feasible, plain = diagnose(nodes, [], q, False)
        assert not f_feasible and not p_feasible
        f_nts, p_nts = fast.node_to_status, plain.node_to_status
        assert len(f_nts) == len(p_nts) == 140
        infos = cache_of(nodes).node_list()
        # Bulk answers first, while the fast one is still grouped.
        assert [ni.name for ni in f_nts.nodes_for_code(infos, Code.UNSCHEDULABLE)] == \
            [ni.name for ni in p_nts.nodes_for_code(infos, Code.UNSCHEDULABLE)]
        assert str(FitError(q, 140, fast)) == str(FitError(q, 140, plain))
        assert fast.unschedulable_plugins == plain.unschedulable_plugins
        assert _view(f_nts) == _view(p_nts)
        assert len({st.reasons for st in f_nts.statuses.values()}) >= (5 if selector is None
                                                                        else 2)


# -- preemption's candidates against the one-by-one walk --------------------------------------

def walk_candidates(pl, state, p, m, ctx):
    """Upstream's dryRunPreemption over every potential node, one clone each (no shortcut)."""
    statuses = {}
    potential = [ni for ni in ctx.nodes if m.get(ni.name).code == Code.UNSCHEDULABLE]
    if not potential:
        return [], statuses
    pdbs = ctx.pdbs()
    offset = ctx.rand.randrange(len(potential))
    want = pl.num_candidates(len(potential))
    non_violating, violating = [], []
    for i in range(len(potential)):
        ni = potential[(offset + i) % len(potential)].clone()
        victims, nviol, st = pl.select_victims_on_node(state.clone(), p, ni, pdbs, ctx)
        if st is None and victims:
            (non_violating if nviol == 0 else violating).append(Candidate(ni.name, victims,
                                                                          nviol))
            if non_violating and len(non_violating) + len(violating) >= want:
                break
            continue
        statuses[ni.name] = st
    return non_violating + violating, statuses


def _cands(cs):
    return [(c.name, [v.key for v in c.victims], c.num_pdb_violations) for c in cs]


def _sv(statuses):
    return {k: (st.code, st.reasons) for k, st in statuses.items()}


@settings(max_examples=60, deadline=None)
@given(n=hs.integers(1, 40), seed=hs.integers(0, 10**6), min_abs=hs.integers(1, 6),
       prios=hs.lists(hs.one_of(hs.none(), hs.integers(-5, 20)), min_size=40, max_size=40),
       preemptor=hs.integers(0, 15), use_fast=hs.booleans())
def test_preemption_candidates_are_the_one_by_one_walks(n, seed, min_abs, prios, preemptor,
                                                        use_fast):
    # Each node holds one 2-cpu pod of the drawn priority, or (None) is a 1-cpu node with
    # nothing to evict; every ninth is tainted (UnschedulableAndUnresolvable: not tried).
    nodes = [node(f"n{i:02d}", capacity={"cpu": "2" if prios[i] is not None else "1",
                                         "memory": "8Gi"},
                  taints=[{"key": "a", "value": "b", "effect": "NoSchedule"}] if i % 9 == 8
                  else None) for i in range(n)]
    pods = [pod(f"v{i:02d}", requests=[{"cpu": "2"}], node_name=f"n{i:02d}", priority=pr,
                start_time=float(i)) for i, pr in enumerate(prios[:n]) if pr is not None]
    p = pod("p", requests=[{"cpu": "2"}], priority=preemptor)
    cache, fwk, ctx, state, feasible, d = diagnose(nodes, pods, p, use_fast, seed)
    assert not feasible
    pl = fwk.post_filter_plugins[0]
    pl.min_abs, pl.min_pct = min_abs, 10
    got, got_st = pl.find_candidates(state, p, d.node_to_status, ctx)
    # The reference on a cluster of its own, from the same seed and the plain diagnosis.
    _, fwk2, ctx2, state2, _, d2 = diagnose(nodes, pods, p, False, seed)
    pl2 = fwk2.post_filter_plugins[0]
    pl2.min_abs, pl2.min_pct = min_abs, 10
    want, want_st = walk_candidates(pl2, state2, p, d2.node_to_status, ctx2)
    assert _cands(got) == _cands(want)
    assert _sv(got_st.statuses) == _sv(want_st)
    assert ctx.rand.random() == ctx2.rand.random()


def test_a_repeated_question_is_answered_anew_once_a_node_changed():
    """NodeResourcesFit's vectorized verdicts are kept per pod shape and brought up to date
    row by row; a pod added, removed or a node changed between two pods asking alike must
    give the new answer (the plain path's)."""
    nodes = [node(f"n{i}", capacity={"cpu": "4", "memory": "8Gi"}) for i in range(40)]
    cache = cache_of(nodes)
    fwk = build_framework(default_profile(), Handle(cache))
    ctx = Ctx(cache, fwk, True)
    fast = ctx.fast_for(fwk)

    def fits(name):
        p = pod(name, requests=[{"cpu": "3"}])
        state, _ = new_cycle_state(p)
        feasible, _ = fast.find_nodes_that_fit(ctx, fwk, state, p)
        plain_state, _ = new_cycle_state(p)
        plain, _ = find_nodes_that_fit(Ctx(cache, fwk, False), fwk, plain_state, p)
        assert sorted(ni.name for ni in feasible) == sorted(ni.name for ni in plain)
        return {ni.name for ni in feasible}

    assert "n7" in fits("a") and "n7" in fits("b")
    cache.add_pod(pod("big", requests=[{"cpu": "2"}], node_name="n7"))
    assert "n7" not in fits("c")
    cache.remove_pod(pod("big", requests=[{"cpu": "2"}], node_name="n7"))
    assert "n7" in fits("d")
    cache.update_node(nodes[7], node("n7", capacity={"cpu": "2", "memory": "8Gi"}))
    assert "n7" not in fits("e")
