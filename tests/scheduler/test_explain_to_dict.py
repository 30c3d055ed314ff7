"""``Explanation.to_dict`` (the ``ksandbox explain -o json`` contract, DESIGN.md §3) shares one
``filters`` list among the nodes with the same verdicts, and the TUI's matrix layout reads
each distinct list once: the JSON and the layout must be exactly what one list per node
gives — pending pods (the fast path's verdicts) and bound pods (explain's passing loop) over
tainted, too-small, cordoned and fitting nodes."""

import json

import attrs
from test_explain_passing_twin import node, pod_yaml, session

from ksandbox.scheduler.explain import explain_pod
from ksandbox.scheduler.schedule_one import FAST_PATH_MIN_NODES
from ksandbox.tui.widgets.explain_matrix import matrix_layout


def _per_node(exp):
    return {"pod": exp.pod, "scheduler": exp.scheduler, "selected": exp.selected,
            "message": exp.message, "nodes": [n.to_dict() for n in exp.nodes]}


def test_shared_filters_lists_give_the_same_json_and_layout():
    taint = "{key: k, value: v, effect: NoSchedule}"
    nodes = [node(f"n-{i:02d}") for i in range(FAST_PATH_MIN_NODES + 2)] + [
        node("small", cpu="200m"), node("tainted", taints=taint),
        node("tainted-2", taints="{key: k2, value: w, effect: NoSchedule}"),
        node("cordoned", cordoned=True), node("tiny", cpu="100m")]
    s = session(*nodes, pod_yaml("placed", cpu="500m"), pod_yaml("huge", cpu="64"))
    sched = s.cp.scheduler
    pending = s.store.get("Pod", "huge", "default")
    bound = s.store.get("Pod", "placed", "default")
    assert not pending.spec.node_name and bound.spec.node_name
    fits = attrs.evolve(bound, metadata=attrs.evolve(bound.metadata, name="fits"),
                        spec=attrs.evolve(bound.spec, node_name=""))
    for pod in (pending, bound, fits):
        exp = explain_pod(sched, pod)
        data = exp.to_dict()
        plain = _per_node(exp)
        assert data == plain
        assert json.dumps(data, sort_keys=True) == json.dumps(plain, sort_keys=True)
        passing = [n for n in data["nodes"] if n["feasible"] and not any(
            f["status"] not in ("Success", "Skip") for f in n["filters"])]
        if passing:
            assert len({id(n["filters"]) for n in passing}) == 1, "one shared list"
        weights = dict(exp.score_plugins)
        for order in (exp.filter_plugins, ()):   # () : the columns come from the nodes
            shared = matrix_layout(data, weights, order)
            unshared = matrix_layout(json.loads(json.dumps(data)), weights, order)
            assert (shared.nodes, shared.filters, shared.scores, shared.name_width,
                    shared.reason_width, shared.filter_widths, shared.score_widths) == \
                (unshared.nodes, unshared.filters, unshared.scores, unshared.name_width,
                 unshared.reason_width, unshared.filter_widths, unshared.score_widths)
            assert set(shared.filters) == {f.plugin for n in exp.nodes for f in n.filters
                                           } | set(order)
        failing = {n["name"]: n["filters"][-1] for n in data["nodes"] if not n["feasible"]}
        assert failing["tainted"]["plugin"] == "TaintToleration"
        assert failing["tainted-2"]["reason"] != failing["tainted"]["reason"]
        assert failing["cordoned"]["plugin"] == "NodeUnschedulable"
        assert failing["tiny"]["plugin"] == "NodeResourcesFit"
