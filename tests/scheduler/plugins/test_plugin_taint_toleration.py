"""TaintToleration: upstream's taint_toleration_test.go tables."""

import pytest
from schedtest import code_name, node, pod, run_filter, run_scores

from ksandbox.scheduler.plugins import taint_toleration as tt

NS, PNS = "NoSchedule", "PreferNoSchedule"
UNTOLERATED = "node(s) had untolerated taint(s)"

FILTER_CASES = [
    ("A pod having no tolerations can't be scheduled onto a node with nonempty taints",
     [], [{"key": "dedicated", "value": "user1", "effect": NS}],
     "node(s) had untolerated taint {dedicated: user1}"),
    ("A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
     [{"key": "dedicated", "value": "user1", "effect": NS}],
     [{"key": "dedicated", "value": "user1", "effect": NS}], None),
    ("A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
     [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": NS}],
     [{"key": "dedicated", "value": "user1", "effect": NS}],
     "node(s) had untolerated taint {dedicated: user1}"),
    ("A pod can be scheduled onto the node, with a toleration uses operator Exists that "
     "tolerates the taints on the node",
     [{"key": "foo", "operator": "Exists", "effect": NS}],
     [{"key": "foo", "value": "bar", "effect": NS}], None),
    ("A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, "
     "pod can be scheduled onto the node",
     [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": NS},
      {"key": "foo", "operator": "Exists", "effect": NS}],
     [{"key": "dedicated", "value": "user2", "effect": NS},
      {"key": "foo", "value": "bar", "effect": NS}], None),
    ("A pod has a toleration that keys and values match the taint on the node, but (non-empty) "
     "effect doesn't match, can't be scheduled onto the node",
     [{"key": "foo", "operator": "Equal", "value": "bar", "effect": PNS}],
     [{"key": "foo", "value": "bar", "effect": NS}],
     "node(s) had untolerated taint {foo: bar}"),
    ("The pod has a toleration that keys and values match the taint on the node, the effect of "
     "toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the "
     "node",
     [{"key": "foo", "operator": "Equal", "value": "bar"}],
     [{"key": "foo", "value": "bar", "effect": NS}], None),
    ("The pod has a toleration that key and value don't match the taint on the node, but the "
     "effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
     [{"key": "dedicated", "operator": "Equal", "value": "user2", "effect": NS}],
     [{"key": "dedicated", "value": "user1", "effect": PNS}], None),
    ("The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be "
     "scheduled onto the node",
     [], [{"key": "dedicated", "value": "user1", "effect": PNS}], None),
    ("A NoExecute taint repels a pod that does not tolerate it",
     [], [{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}],
     "node(s) had untolerated taint {node.kubernetes.io/unreachable: }"),
]


@pytest.mark.parametrize("name,tolerations,taints,want", FILTER_CASES,
                         ids=[c[0] for c in FILTER_CASES])
def test_filter(name, tolerations, taints, want):
    st = run_filter(tt.new, pod(tolerations=tolerations), [node("nodeA", taints=taints)])["nodeA"]
    if want is None:
        assert st is None
    else:
        assert code_name(st) == "UnschedulableAndUnresolvable"
        assert st.reasons == (UNTOLERATED,)
        assert st.detail == want


def _t(key, value, effect=PNS):
    return {"key": key, "value": value, "effect": effect}


SCORE_CASES = [
    ("node with taints tolerated by the pod, gets a higher score than those node with "
     "intolerable taints",
     [{"key": "foo", "operator": "Equal", "value": "bar", "effect": PNS}],
     {"nodeA": [_t("foo", "bar")], "nodeB": [_t("foo", "blah")]},
     {"nodeA": 100, "nodeB": 0}),
    ("the nodes that all of their taints are tolerated by the pod, get the same score, no matter "
     "how many tolerable taints a node has",
     [{"key": "cpu-type", "operator": "Equal", "value": "arm64", "effect": PNS},
      {"key": "disk-type", "operator": "Equal", "value": "ssd", "effect": PNS}],
     {"nodeA": [], "nodeB": [_t("cpu-type", "arm64")],
      "nodeC": [_t("cpu-type", "arm64"), _t("disk-type", "ssd")]},
     {"nodeA": 100, "nodeB": 100, "nodeC": 100}),
    ("the more intolerable taints a node has, the lower score it gets.",
     [{"key": "foo", "operator": "Equal", "value": "bar", "effect": PNS}],
     {"nodeA": [], "nodeB": [_t("cpu-type", "arm64")],
      "nodeC": [_t("cpu-type", "arm64"), _t("disk-type", "ssd")]},
     {"nodeA": 100, "nodeB": 50, "nodeC": 0}),
    ("only taints and tolerations that have effect PreferNoSchedule are checked by "
     "taints-tolerations priority function",
     [{"key": "cpu-type", "operator": "Equal", "value": "arm64", "effect": NS},
      {"key": "disk-type", "operator": "Equal", "value": "ssd", "effect": NS}],
     {"nodeA": [], "nodeB": [_t("cpu-type", "arm64", NS)],
      "nodeC": [_t("cpu-type", "arm64"), _t("disk-type", "ssd")]},
     {"nodeA": 100, "nodeB": 100, "nodeC": 0}),
    ("Default behaviour No taints and tolerations, lands on node with no taints",
     [], {"nodeA": [], "nodeB": [_t("cpu-type", "arm64")]}, {"nodeA": 100, "nodeB": 0}),
]


@pytest.mark.parametrize("name,tolerations,taints,want", SCORE_CASES,
                         ids=[c[0] for c in SCORE_CASES])
def test_score(name, tolerations, taints, want):
    nodes = [node(n, taints=t) for n, t in taints.items()]
    assert run_scores(tt.new, pod(tolerations=tolerations), nodes) == want


def test_hint_queues_only_when_a_taint_stops_repelling_the_pod():
    p = pod(tolerations=[{"key": "dedicated", "operator": "Equal", "value": "user2",
                          "effect": NS}])
    pl = tt.new(None, None)
    bad = node("a", taints=[{"key": "dedicated", "value": "user1", "effect": NS}])
    good = node("a", taints=[{"key": "dedicated", "value": "user2", "effect": NS}])
    assert pl._hint(p, None, bad) == 0
    assert pl._hint(p, None, good) == 1
    assert pl._hint(p, bad, good) == 1
    assert pl._hint(p, good, good) == 0
