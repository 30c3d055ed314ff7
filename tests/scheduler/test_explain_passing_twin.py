"""Explain's loop for a pod that fits (``_passing_nodes``, used for every bound pod) gives
each node the same verdicts as the general per-node loop (``_filters_for``): tainted,
too-small and fitting nodes, checked one against the other."""

import attrs

from ksandbox.scheduler.explain import (
    FilterVerdict,
    _filters_for,
    _passing_nodes,
    _ShadowCache,
    explain_pod,
)
from ksandbox.scheduler.framework.interface import Code
from ksandbox.scheduler.schedule_one import new_cycle_state
from ksandbox.session import Session


def node(name, cpu="4", taints=""):
    return (f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\nspec: {{taints: [{taints}]}}\n"
            f'status: {{capacity: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}\n')


def pod_yaml(name, cpu, node_name=""):
    where = f"\n  nodeName: {node_name}" if node_name else ""
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\n"
            f"spec:{where}\n  containers: [{{name: c, image: nginx, "
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


def test_bound_pod_verdicts_equal_every_filter_run_on_every_node():
    """Explain's verdicts for a bound pod (the plain cycle on the cache without the pod) equal
    each active filter run on every node of that cache — feasible, failing and unevaluated
    nodes alike, the pod's own node included — stopping at the first failure, in upstream's
    order (schedule_one.go findNodesThatPassFilters / RunFilterPlugins): whatever shortcut
    explain takes per node must keep them."""
    nodes = [node(f"big-{i}") for i in range(6)] + [
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
