"""InterPodAffinity: cases in the spirit of upstream's filtering_test.go / scoring_test.go."""

import pytest
from schedtest import code_name, node, pod, run_filter, run_scores

from ksandbox.scheduler.plugins import inter_pod_affinity as ipa

AFF = "node(s) didn't match pod affinity rules"
ANTI = "node(s) didn't match pod anti-affinity rules"
EXISTING = "node(s) didn't satisfy existing pods anti-affinity rules"
SEC = {"service": "securityscan"}


def term(key, op, values, topology="region"):
    e = {"key": key, "operator": op}
    if values:
        e["values"] = values
    return {"labelSelector": {"matchExpressions": [e]}, "topologyKey": topology}


def affinity(required=(), anti=(), preferred=(), preferred_anti=()):
    out = {}
    if required or preferred:
        out["podAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(required),
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": w, "podAffinityTerm": t} for w, t in preferred]}
    if anti or preferred_anti:
        out["podAntiAffinity"] = {
            "requiredDuringSchedulingIgnoredDuringExecution": list(anti),
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": w, "podAffinityTerm": t} for w, t in preferred_anti]}
    return out


R1 = {"region": "r1", "zone": "z11", "kubernetes.io/hostname": "node1"}
R2 = {"region": "r2", "zone": "z21", "kubernetes.io/hostname": "node2"}

FILTER_CASES = [
    ("A pod that has no required pod affinity scheduling rules can schedule onto a node with "
     "no existing pods", {}, {}, [], None),
    ("satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In "
     "operator that matches the existing pod", {},
     affinity([term("service", "In", ["securityscan", "value2"])]),
     [pod("e", labels=SEC, node_name="node1")], None),
    ("satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity "
     "using not in operator in labelSelector that matches the existing pod", {},
     affinity([term("service", "NotIn", ["securityscan3", "value3"])]),
     [pod("e", labels=SEC, node_name="node1")], None),
    ("Does not satisfy the PodAffinity with labelSelector because of diff Namespace", {},
     affinity([{**term("service", "In", ["securityscan", "value2"]), "namespaces": ["DiffNS"]}]),
     [pod("e", labels=SEC, node_name="node1")], AFF),
    ("Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing "
     "pod", {}, affinity([term("service", "In", ["antivirusscan", "value2"])]),
     [pod("e", labels=SEC, node_name="node1")], AFF),
    ("satisfies the PodAffinity and PodAntiAffinity with the existing pod", {},
     affinity([term("service", "In", ["securityscan"])],
              [term("service", "In", ["antivirusscan"], "zone")]),
     [pod("e", labels=SEC, node_name="node1")], None),
    ("satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
     {}, affinity([term("service", "In", ["securityscan"])],
                  [term("service", "In", ["securityscan"], "zone")]),
     [pod("e", labels=SEC, node_name="node1")], ANTI),
    ("satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity of "
     "the existing pod", SEC, affinity([term("service", "In", ["securityscan"])]),
     [pod("e", labels=SEC, node_name="node1",
          affinity=affinity(anti=[term("service", "In", ["securityscan"], "zone")]))],
     EXISTING),
    ("pod matches its own Label in PodAffinity and that matches the existing pod Labels, "
     "and is the first of its kind: it may go anywhere", SEC,
     affinity([term("service", "In", ["securityscan"])]), [], None),
    ("pod with affinity to other pods that don't exist anywhere cannot schedule", {},
     affinity([term("service", "In", ["securityscan"])]), [], AFF),
    ("a node without the topology label fails the affinity", SEC,
     affinity([term("service", "In", ["securityscan"], "rack")]), [], AFF),
]


@pytest.mark.parametrize("name,labels,aff,existing,want", FILTER_CASES,
                         ids=[c[0] for c in FILTER_CASES])
def test_filter(name, labels, aff, existing, want):
    p = pod(labels=labels, affinity=aff)
    st = run_filter(ipa.new, p, [node("node1", labels=R1)], existing)["node1"]
    assert (st.reasons[0] if st else None) == want
    if st:
        assert code_name(st) == ("UnschedulableAndUnresolvable" if want == AFF
                                 else "Unschedulable")


def test_anti_affinity_by_hostname_spreads_pods_one_per_node():
    p = pod(labels={"app": "web"},
            affinity=affinity(anti=[term("app", "In", ["web"], "kubernetes.io/hostname")]))
    existing = [pod("w1", labels={"app": "web"}, node_name="node1")]
    got = run_filter(ipa.new, p, [node("node1", labels=R1), node("node2", labels=R2)], existing)
    assert got["node1"].reasons == (ANTI,) and got["node2"] is None


SCORE_CASES = [
    ("all nodes have same priority as the pod has no affinity", {}, [], [0, 0]),
    ("Affinity: pod that matches topology key & pods in nodes will get high score comparing "
     "to others", affinity(preferred=[(5, term("service", "In", ["securityscan"]))]),
     [pod("e", labels=SEC, node_name="node1")], [100, 0]),
    ("Anti Affinity: pod that does not match existing pods in node will get high score",
     affinity(preferred_anti=[(5, term("service", "In", ["securityscan"]))]),
     [pod("e", labels=SEC, node_name="node1")], [0, 100]),
    ("Affinity symmetry: an existing pod's required affinity to the incoming pod attracts it",
     {}, [pod("e", node_name="node2",
              affinity=affinity([term("app", "In", ["web"])]))], [0, 100]),
]


@pytest.mark.parametrize("name,aff,existing,want", SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_score(name, aff, existing, want):
    nodes = [node("node1", labels=R1), node("node2", labels=R2)]
    got = run_scores(ipa.new, pod(labels={"app": "web"}, affinity=aff), nodes, existing)
    assert [got["node1"], got["node2"]] == want


def test_hard_pod_affinity_weight_zero_ignores_existing_required_terms():
    nodes = [node("node1", labels=R1), node("node2", labels=R2)]
    existing = [pod("e", node_name="node2", affinity=affinity([term("app", "In", ["web"])]))]
    got = run_scores(ipa.new, pod(labels={"app": "web"}), nodes, existing,
                     args={"hardPodAffinityWeight": 0})
    assert got == {"node1": 0, "node2": 0}
