"""Explain's loop for a pod that fits (``_passing_nodes``, used for every bound pod) gives
each node the same verdicts as the general per-node loop (``_filters_for``): tainted,
too-small and fitting nodes, checked one against the other."""

import attrs
import pytest

from ksandbox.scheduler import explain as explain_mod
from ksandbox.scheduler.explain import (
    FilterVerdict,
    _filters_for,
    _passing_nodes,
    _ShadowCache,
    explain_pod,
)
from ksandbox.scheduler.framework.interface import Code
from ksandbox.scheduler.schedule_one import FAST_PATH_MIN_NODES, new_cycle_state
from ksandbox.session import Session


def node(name, cpu="4", taints="", labels="", cordoned=False):
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{{labels}}}}}\n"
            f"spec: {{taints: [{taints}], unschedulable: {str(cordoned).lower()}}}\n"
            f'status: {{capacity: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}\n')


def pod_yaml(name, cpu, node_name="", extra=""):
    where = f"\n  nodeName: {node_name}" if node_name else ""
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\n"
            f"spec:{where}{extra}\n  containers: [{{name: c, image: nginx, "
            f'resources: {{requests: {{cpu: "{cpu}"}}}}}}]\n')


def session(*docs):
    s = Session.from_text("---\n".join(docs), seed=1)
    s.settle(120)
    return s


def test_passing_nodes_loop_matches_the_general_per_node_loop():
    s = session(node("big-1"), node("big-2"), node("small", cpu="200m"),
                node("tainted", taints="{key: k, value: v, effect: NoSchedule}"),
                node("full", cpu="1"), pod_yaml("hog", cpu="900m", node_name="full"),
                pod_yaml("p1", cpu="500m"))
    sched = s.cp.scheduler
    bound = s.store.get("Pod", "p1", "default")
    assert bound.spec.node_name
    exp = explain_pod(sched, bound)
    pod = attrs.evolve(bound, spec=attrs.evolve(bound.spec, node_name=""))
    fwk = sched.profiles[bound.spec.scheduler_name]
    state, _ = new_cycle_state(pod)
    fwk.run_pre_filter(state, pod, sched.cache.node_list())
    ordered = [FilterVerdict(p.name, "Skip" if p.name in state.skip_filter else "Success")
               for p in fwk.filter_plugins]
    active = [(i, p) for i, p in enumerate(fwk.filter_plugins)
              if p.name not in state.skip_filter]
    infos = sorted(sched.cache.node_list(), key=lambda n: n.name)
    feasible = {"big-1"}
    fast = _passing_nodes(state, pod, infos, feasible, ordered, active, {}, {}, {})
    for ni, got in zip(infos, fast, strict=True):
        verdicts, ok, evaluated = _filters_for(fwk, state, pod, ni, None, feasible, ordered,
                                               active)
        assert got.filters == tuple(verdicts)
        assert (got.feasible, got.evaluated) == (ni.name in feasible or ok, evaluated)
    by = {n.name: n for n in fast}
    assert by["tainted"].filters[-1].plugin == "TaintToleration"
    assert by["small"].filters[-1].status == "Unschedulable"
    assert by["full"].filters[-1].reason.startswith("Insufficient cpu")
    assert by["big-2"].filters == tuple(ordered) and not by["big-2"].evaluated
    # and explain itself, for the bound pod, took that loop's verdicts
    assert [n.filters for n in exp.nodes] == [n.filters for n in fast]


@pytest.mark.parametrize("bigs", [6, FAST_PATH_MIN_NODES + 8])
def test_bound_pod_verdicts_equal_every_filter_run_on_every_node(bigs):
    """Explain's verdicts for a bound pod (the plain cycle on the cache without the pod) equal
    each active filter run on every node of that cache — feasible, failing and unevaluated
    nodes alike, the pod's own node included — stopping at the first failure, in upstream's
    order (schedule_one.go findNodesThatPassFilters / RunFilterPlugins): whatever shortcut
    explain takes per node must keep them. Also above FAST_PATH_MIN_NODES, where the
    verdicts of the one-node filters come from the fast path's columns."""
    nodes = [node(f"big-{i}") for i in range(bigs)] + [
        node("small", cpu="200m"), node("tainted", taints="{key: k, value: v, effect: NoSchedule}"),
        node("full", cpu="1")]
    s = session(*nodes, pod_yaml("hog", cpu="900m", node_name="full"),
                *(pod_yaml(f"p{i}", cpu="500m") for i in range(4)))
    sched = s.cp.scheduler
    for i in range(4):
        bound = s.store.get("Pod", f"p{i}", "default")
        assert bound.spec.node_name
        exp = explain_pod(sched, bound)
        feasible = {n.name for n in exp.nodes if n.evaluated}
        assert bound.spec.node_name in feasible and len(feasible) >= 6
        pod = attrs.evolve(bound, spec=attrs.evolve(bound.spec, node_name=""))
        fwk = sched.profiles[bound.spec.scheduler_name]
        shadow = _ShadowCache(sched.cache, bound.spec.node_name, f"default/p{i}")
        state, _ = new_cycle_state(pod)
        fwk.run_pre_filter(state, pod, shadow.node_list())
        ordered = [FilterVerdict(p.name, "Skip" if p.name in state.skip_filter else "Success")
                   for p in fwk.filter_plugins]
        active = [(k, p) for k, p in enumerate(fwk.filter_plugins)
                  if p.name not in state.skip_filter]
        by = {n.name: n for n in exp.nodes}
        for ni in shadow.node_list():
            every = []
            for k, pl in active:
                st = pl.filter(state, pod, ni)
                if st is not None and st.code != Code.SUCCESS:
                    every = [*ordered[:k], FilterVerdict(pl.name, str(st.code),
                                                         st.detail or st.message(),
                                                         st.message())]
                    break
            assert by[ni.name].filters == tuple(every or ordered), ni.name
            assert by[ni.name].feasible == (not every), ni.name
        assert by["tainted"].filters[-1].plugin == "TaintToleration"
        assert by["full"].filters[-1].reason.startswith("Insufficient cpu")


def test_column_verdicts_equal_the_plain_loop(monkeypatch):
    """Above FAST_PATH_MIN_NODES, explain of a bound pod takes the one-node filters' verdicts
    (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodeResourcesFit) from the
    fast path's columns over the real cache and filters by hand only the nodes a column
    fails and the node the pod is taken off. The whole explanation must equal the one the
    plain loop gives (every active filter run on every node): pods placed by the scheduler
    and by spec.nodeName (on a node it fills up exactly, so the real cache's row, which holds
    the pod, fails where the cache without it passes), with a nodeSelector, tolerating a
    taint; over cordoned, tainted, too-small, full and labelled nodes."""
    taint = "{key: k, value: v, effect: NoSchedule}"
    nodes = [node(f"big-{i:02d}", labels="disk: ssd" if i % 3 == 0 else "")
             for i in range(FAST_PATH_MIN_NODES + 4)] + [
        node("small", cpu="200m"), node("tainted", taints=taint),
        node("tainted-ssd", taints=taint, labels="disk: ssd"), node("cordoned", cordoned=True),
        node("full", cpu="1"), node("snug", cpu="600m")]
    pods = [pod_yaml("hog", cpu="900m", node_name="full"),
            pod_yaml("pinned", cpu="500m", node_name="snug"),
            pod_yaml("ssd", cpu="500m", extra="\n  nodeSelector: {disk: ssd}"),
            pod_yaml("tolerant", cpu="500m", extra="\n  tolerations: [{key: k, "
                     "operator: Exists, effect: NoSchedule}]"),
            *(pod_yaml(f"p{i}", cpu="500m") for i in range(3))]
    s = session(*nodes, *pods)
    sched = s.cp.scheduler
    passed = []
    column_passes = explain_mod._column_passes
    monkeypatch.setattr(explain_mod, "_column_passes", lambda *a: passed.append(
        column_passes(*a)) or passed[-1])
    for name in ("pinned", "hog", "ssd", "tolerant", "p0", "p1", "p2"):
        bound = s.store.get("Pod", name, "default")
        assert bound.spec.node_name, name
        passed.clear()
        fast = explain_pod(sched, bound)
        with monkeypatch.context() as m:
            m.setattr(explain_mod, "_column_passes", lambda *a: None)
            plain = explain_pod(sched, bound)
        assert fast == plain, name
        assert fast.to_dict() == plain.to_dict(), name
        # The columns were used: every node they pass (all but the pod's own node of those
        # passing every filter: no other filter is active here) skipped the per-node calls.
        (passes, rest), = passed
        assert rest == []
        assert sum(passes) == sum(1 for n in plain.nodes
                                  if n.feasible and n.name != bound.spec.node_name) > 0
    by = {n.name: n for n in explain_pod(sched, s.store.get("Pod", "pinned", "default")).nodes}
    fit = next(f for f in by["snug"].filters if f.plugin == "NodeResourcesFit")
    assert by["snug"].feasible and fit.status == "Success"
    assert by["cordoned"].filters[-1].plugin == "NodeUnschedulable"
    by = {n.name: n for n in explain_pod(sched, s.store.get("Pod", "ssd", "default")).nodes}
    assert by["big-01"].filters[-1].plugin == "NodeAffinity"
    assert by["tainted-ssd"].filters[-1].plugin == "TaintToleration"
    by = {n.name: n for n in explain_pod(sched, s.store.get("Pod", "tolerant", "default")).nodes}
    assert by["tainted"].feasible and by["small"].filters[-1].plugin == "NodeResourcesFit"
