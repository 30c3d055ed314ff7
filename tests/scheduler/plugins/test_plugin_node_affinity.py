"""NodeAffinity: cases from upstream's node_affinity_test.go."""

import pytest
from schedtest import code_name, node, pod, run_filter, run_scores

from ksandbox.scheduler.plugins import node_affinity as na

POD_REASON = "node(s) didn't match Pod's node affinity/selector"


def req(*terms):
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                             {"nodeSelectorTerms": list(terms)}}}


def expr(key, op, *values):
    d = {"key": key, "operator": op}
    if values:
        d["values"] = list(values)
    return d


def term(*exprs, fields=()):
    d = {"matchExpressions": list(exprs)}
    if fields:
        d["matchFields"] = list(fields)
    return d


FILTER_CASES = [
    ("no selector", None, None, {}, True),
    ("missing labels", {"foo": "bar"}, None, {}, False),
    ("same labels", {"foo": "bar"}, None, {"foo": "bar"}, True),
    ("node labels are superset", {"foo": "bar"}, None, {"foo": "bar", "baz": "blah"}, True),
    ("node labels are subset", {"foo": "bar", "baz": "blah"}, None, {"foo": "bar"}, False),
    ("Pod with matchExpressions using In operator that matches the existing node", None,
     req(term(expr("foo", "In", "bar", "value2"))), {"foo": "bar"}, True),
    ("Pod with matchExpressions using Gt operator that matches the existing node", None,
     req(term(expr("kernel-version", "Gt", "0204"))), {"kernel-version": "0206"}, True),
    ("Pod with matchExpressions using NotIn operator that matches the existing node", None,
     req(term(expr("mem-type", "NotIn", "DDR", "DDR2"))), {"mem-type": "DDR3"}, True),
    ("Pod with matchExpressions using Exists operator that matches the existing node", None,
     req(term(expr("GPU", "Exists"))), {"GPU": "NVIDIA-GRID-K1"}, True),
    ("Pod with affinity that don't match node's labels won't schedule onto the node", None,
     req(term(expr("foo", "In", "value1", "value2"))), {"foo": "bar"}, False),
    ("Pod with a nil []NodeSelectorTerm in affinity, can't match the node's labels and won't "
     "schedule onto the node", None, req(), {"foo": "bar"}, False),
    ("Pod with an empty []NodeSelectorRequirements in affinity, can't match the node's labels "
     "and won't schedule onto the node", None, req(term()), {"foo": "bar"}, False),
    ("Pod with no Affinity will schedule onto a node", None, None, {"foo": "bar"}, True),
    ("Pod with multiple matchExpressions ANDed that doesn't match the existing node", None,
     req(term(expr("GPU", "Exists"), expr("GPU", "NotIn", "AMD", "INTER"))),
     {"GPU": "AMD"}, False),
    ("Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will "
     "schedule onto the node", None,
     req(term(expr("foo", "In", "bar", "value2")), term(expr("diffkey", "In", "wrong", "value2"))),
     {"foo": "bar"}, True),
    ("Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) "
     "both are satisfied, will schedule onto the node", {"foo": "bar"},
     req(term(expr("foo", "Exists"))), {"foo": "bar"}, True),
    ("Pod with an Affinity matches node's labels but the old pod.Spec.NodeSelector is not "
     "satisfied, won't schedule onto the node", {"foo": "bar"},
     req(term(expr("foo", "Exists"))), {"foo": "barrrrrr"}, False),
    ("Pod with an invalid value in Affinity term won't be scheduled onto the node", None,
     req(term(expr("foo", "NotIn", "invalid value: ___@#$%^")))
     , {"foo": "bar"}, False),
    ("Pod with matchFields using In operator that matches the existing node", None,
     req(term(fields=[expr("metadata.name", "In", "node1")])), {}, True),
    ("Pod with matchFields using In operator that does not match the existing node", None,
     req(term(fields=[expr("metadata.name", "In", "node2")])), {}, False),
    ("Pod with two terms: matchFields does not match, but matchExpressions matches", None,
     req(term(fields=[expr("metadata.name", "In", "node2")]), term(expr("foo", "In", "bar"))),
     {"foo": "bar"}, True),
    ("Pod with one term: matchFields does not match, but matchExpressions matches", None,
     req(term(expr("foo", "In", "bar"), fields=[expr("metadata.name", "In", "node2")])),
     {"foo": "bar"}, False),
]


@pytest.mark.parametrize("name,selector,affinity,labels,fits", FILTER_CASES,
                         ids=[c[0] for c in FILTER_CASES])
def test_filter(name, selector, affinity, labels, fits):
    p = pod(node_selector=selector, affinity=affinity)
    st = run_filter(na.new, p, [node("node1", labels=labels)])["node1"]
    assert (st is None) == fits, st
    if st:
        assert code_name(st) == "UnschedulableAndUnresolvable"


def test_prefilter_narrows_to_named_nodes_and_reports_conflicts():
    from ksandbox.scheduler.framework.cycle_state import CycleState

    pl = na.new(None, None)
    p = pod(affinity=req(term(fields=[expr("metadata.name", "In", "node1", "node2")])))
    res, st = pl.pre_filter(CycleState(), p, [])
    assert st is None and res.node_names == {"node1", "node2"}
    p = pod(affinity=req(term(fields=[expr("metadata.name", "In", "node1"),
                                      expr("metadata.name", "In", "node2")])))
    res, st = pl.pre_filter(CycleState(), p, [])
    assert st.reasons == ("pod affinity terms conflict",)


def test_added_affinity_is_enforced_on_every_pod():
    args = {"addedAffinity": req(term(expr("zone", "In", "a")))["nodeAffinity"]}
    got = run_filter(na.new, pod(), [node("x", labels={"zone": "b"})], args=args)["x"]
    assert got.reasons == ("node(s) didn't match scheduler-enforced node affinity",)


def pref(*weighted):
    return {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": w, "preference": term(*e)} for w, e in weighted]}}


LABEL1 = {"foo": "bar"}
LABEL2 = {"key": "value"}
LABEL5 = {"foo": "bar", "key": "value", "az": "az1"}
AFF1 = pref((2, [expr("foo", "In", "bar")]))
AFF2 = pref((2, [expr("foo", "In", "bar")]), (4, [expr("key", "In", "value")]),
            (5, [expr("foo", "In", "bar"), expr("key", "In", "value"), expr("az", "In", "az1")]))

SCORE_CASES = [
    ("all nodes are same priority as NodeAffinity is nil", None, [LABEL1, LABEL2, {}],
     [0, 0, 0]),
    ("no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' "
     "priority is zero", pref((2, [expr("foo", "In", "x")])), [LABEL1, LABEL2, {}], [0, 0, 0]),
    ("only node1 matches the preferred scheduling requirements of pod", AFF1,
     [LABEL1, LABEL2, {}], [100, 0, 0]),
    ("all nodes matches the preferred scheduling requirements of pod but with different "
     "priorities", AFF2, [LABEL1, LABEL5, LABEL2], [18, 100, 36]),
]


@pytest.mark.parametrize("name,affinity,labels,want", SCORE_CASES,
                         ids=[c[0] for c in SCORE_CASES])
def test_score(name, affinity, labels, want):
    nodes = [node(f"node{i + 1}", labels=lb) for i, lb in enumerate(labels)]
    got = run_scores(na.new, pod(affinity=affinity), nodes)
    assert [got[n.name] for n in nodes] == want
