"""NodeResourcesFit (filter; LeastAllocated, MostAllocated, RequestedToCapacityRatio) and
NodeResourcesBalancedAllocation: cases from upstream's noderesources tests."""

import pytest
from schedtest import code_name, node, pod, run_filter, run_scores

from ksandbox.scheduler.plugins import balanced_allocation, node_resources_fit
from ksandbox.scheduler.plugins.args import ArgsError

GPU = "nvidia.com/gpu"


def cap(cpu, mem, pods="32", gpu=None):
    d = {"cpu": cpu, "memory": mem, "pods": pods}
    if gpu is not None:
        d[GPU] = gpu
    return d


FIT_CASES = [
    ("no resources requested always fits", [{}], None, [], []),
    ("too many resources fails", [{"cpu": "1", "memory": "1"}], None,
     [{"cpu": "10", "memory": "20"}], ["Insufficient cpu", "Insufficient memory"]),
    ("too many resources fails due to init container cpu", [{"cpu": "1", "memory": "1"}],
     [{"cpu": "3", "memory": "1"}], [{"cpu": "8", "memory": "19"}], ["Insufficient cpu"]),
    ("too many resources fails due to highest init container cpu", [{"cpu": "1", "memory": "1"}],
     [{"cpu": "3", "memory": "1"}, {"cpu": "2", "memory": "1"}], [{"cpu": "8", "memory": "19"}],
     ["Insufficient cpu"]),
    ("init container fits because it's the max, not sum, of containers and init containers",
     [{"cpu": "1", "memory": "1"}], [{"cpu": "1", "memory": "1"}, {"cpu": "1", "memory": "1"}],
     [{"cpu": "9", "memory": "19"}], []),
    ("both resources fit", [{"cpu": "1", "memory": "1"}], None, [{"cpu": "5", "memory": "5"}], []),
    ("one resource memory fits", [{"cpu": "2", "memory": "1"}], None,
     [{"cpu": "9", "memory": "5"}], ["Insufficient cpu"]),
    ("one resource cpu fits", [{"cpu": "1", "memory": "2"}], None,
     [{"cpu": "5", "memory": "19"}], ["Insufficient memory"]),
    ("equal edge case", [{"cpu": "5", "memory": "1"}], None, [{"cpu": "5", "memory": "19"}], []),
    ("extended resource fits", [{"cpu": "1", "memory": "1", GPU: "1"}], None, [], []),
    ("extended resource capacity enforced", [{GPU: "10"}], None, [], [f"Insufficient {GPU}"]),
    ("extended resource allocatable enforced", [{GPU: "1"}], None, [{GPU: "5"}],
     [f"Insufficient {GPU}"]),
    ("extended resource allocatable enforced for unknown resource", [{"example.com/bbb": "1"}],
     None, [], ["Insufficient example.com/bbb"]),
]


@pytest.mark.parametrize("name,requests,init,existing,want", FIT_CASES,
                         ids=[c[0] for c in FIT_CASES])
def test_fit_filter(name, requests, init, existing, want):
    n = node("n", capacity=cap("10", "20", gpu="5"))
    pods = [pod(f"e{i}", requests=[r], node_name="n") for i, r in enumerate(existing)]
    st = run_filter(node_resources_fit.new, pod(requests=requests, init_requests=init), [n],
                    pods)["n"]
    assert (list(st.reasons) if st else []) == want
    if st:
        assert code_name(st) == "Unschedulable"


def test_fit_counts_pods_and_honours_ignored_resources():
    n = node("n", capacity=cap("10", "20", pods="1"))
    got = run_filter(node_resources_fit.new, pod(requests=[{"cpu": "1"}]), [n],
                     [pod("e", node_name="n")])["n"]
    assert got.reasons == ("Too many pods",)
    p = pod(requests=[{"example.com/aaa": "1"}])
    assert run_filter(node_resources_fit.new, p, [node("n")],
                      args={"ignoredResources": ["example.com/aaa"]})["n"] is None
    assert run_filter(node_resources_fit.new, p, [node("n")],
                      args={"ignoredResourceGroups": ["example.com"]})["n"] is None


def test_fit_includes_pod_overhead():
    p = pod(requests=[{"cpu": "1"}], overhead={"cpu": "1"})
    st = run_filter(node_resources_fit.new, p, [node("n", capacity=cap("1500m", "1Gi"))])["n"]
    assert st.reasons == ("Insufficient cpu",)


TWO = [{"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"}]


def score(strategy, requests, nodes, existing=(), resources=None, shape=None):
    args = {"scoringStrategy": {"type": strategy}}
    if resources:
        args["scoringStrategy"]["resources"] = resources
    if shape:
        args["scoringStrategy"]["requestedToCapacityRatio"] = {"shape": shape}
    nds = [node(f"node{i + 1}", capacity=c) for i, c in enumerate(nodes)]
    pods = [pod(f"e{i}", requests=[r], node_name=nn) for i, (nn, r) in enumerate(existing)]
    got = run_scores(node_resources_fit.new, pod(requests=requests), nds, pods, args=args)
    return [got[n.name] for n in nds]


C4, C6 = cap("4000", "10000"), cap("6000", "10000")
C10, C10B = cap("10000", "20000"), cap("10000", "50000")

LEAST_CASES = [
    ("nothing scheduled, nothing requested", [], [C4, C4], [], None, [100, 100]),
    ("nothing scheduled, resources requested, differently sized nodes", TWO, [C4, C6], [],
     None, [37, 50]),
    ("no resources requested, pods scheduled with resources", [], [C10, C10],
     [("node1", {"cpu": "3000", "memory": "0"}), ("node1", {"cpu": "3000", "memory": "0"}),
      ("node2", {"cpu": "3000", "memory": "0"}), ("node2", {"cpu": "3000", "memory": "5000"})],
     None, [70, 57]),
    ("resources requested, pods scheduled with resources", TWO, [C10, C10],
     [("node1", {"cpu": "3000", "memory": "0"}), ("node2", {"cpu": "3000", "memory": "5000"})],
     None, [57, 45]),
    ("resources requested, pods scheduled with resources, differently sized nodes", TWO,
     [C10, C10B],
     [("node1", {"cpu": "3000", "memory": "0"}), ("node2", {"cpu": "3000", "memory": "5000"})],
     None, [57, 60]),
    ("requested resources exceed node capacity", [{"cpu": "3000", "memory": "0"}], [C4, C4],
     [("node1", {"cpu": "3000", "memory": "0"}), ("node2", {"cpu": "3000", "memory": "5000"})],
     None, [50, 25]),
    ("nothing scheduled, resources requested with different weight on CPU and memory, "
     "differently sized nodes", TWO, [C4, C6], [],
     [{"name": "memory", "weight": 2}, {"name": "cpu", "weight": 1}], [41, 50]),
]


@pytest.mark.parametrize("name,requests,nodes,existing,resources,want", LEAST_CASES,
                         ids=[c[0] for c in LEAST_CASES])
def test_least_allocated(name, requests, nodes, existing, resources, want):
    assert score("LeastAllocated", requests, nodes, existing, resources) == want


def test_least_allocated_bypasses_an_extended_resource_the_pod_does_not_request():
    res = [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1},
           {"name": GPU, "weight": 1}]
    nodes = [cap("6000", "10000"), cap("6000", "10000", gpu="4")]
    assert score("LeastAllocated", TWO, nodes, resources=res) == [50, 50]
    req = [{"cpu": "1000", "memory": "2000", GPU: "2"}, {"cpu": "2000", "memory": "3000"}]
    nodes = [cap("6000", "10000", gpu="4"), cap("6000", "10000", gpu="10")]
    assert score("LeastAllocated", req, nodes, resources=res) == [50, 60]


@pytest.mark.parametrize("weight", [-1, 0, 101])
def test_resource_weight_outside_1_to_100_is_refused(weight):
    with pytest.raises(ArgsError, match=r"scoringStrategy.resources\[1\].weight"):
        node_resources_fit.new({"scoringStrategy": {"resources": [
            {"name": "memory", "weight": 1}, {"name": "cpu", "weight": weight}]}}, None)


MOST_CASES = [
    ("nothing scheduled, nothing requested", [], [C4, C4], [], [0, 0]),
    ("nothing scheduled, resources requested, differently sized nodes", TWO, [C4, C6], [],
     [62, 50]),
    ("no resources requested, pods scheduled with resources", [], [C10, C10],
     [("node1", {"cpu": "3000", "memory": "0"}), ("node1", {"cpu": "3000", "memory": "0"}),
      ("node2", {"cpu": "3000", "memory": "0"}), ("node2", {"cpu": "3000", "memory": "5000"})],
     [30, 42]),
    ("resources requested, pods scheduled with resources", TWO, [C10, C10],
     [("node1", {"cpu": "3000", "memory": "0"}), ("node2", {"cpu": "3000", "memory": "5000"})],
     [42, 55]),
]


@pytest.mark.parametrize("name,requests,nodes,existing,want", MOST_CASES,
                         ids=[c[0] for c in MOST_CASES])
def test_most_allocated(name, requests, nodes, existing, want):
    assert score("MostAllocated", requests, nodes, existing) == want


LEAST_SHAPE = [{"utilization": 0, "score": 10}, {"utilization": 100, "score": 0}]


def test_requested_to_capacity_ratio():
    assert score("RequestedToCapacityRatio", [], [C4, C4], shape=LEAST_SHAPE) == [100, 100]
    assert score("RequestedToCapacityRatio", TWO, [C4, C6], shape=LEAST_SHAPE) == [38, 50]
    most = [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
    assert score("RequestedToCapacityRatio", TWO, [C4, C6], shape=most) == [63, 50]


def test_requested_to_capacity_ratio_shape_is_validated():
    with pytest.raises(ArgsError, match="utilization values must be sorted"):
        node_resources_fit.new({"scoringStrategy": {
            "type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": [
                {"utilization": 50, "score": 1}, {"utilization": 10, "score": 2}]}}}, None)


def balanced(requests, nodes, existing=()):
    nds = [node(f"node{i + 1}", capacity=c) for i, c in enumerate(nodes)]
    pods = [pod(f"e{i}", requests=[r], node_name=nn) for i, (nn, r) in enumerate(existing)]
    got = run_scores(balanced_allocation.new, pod(requests=requests), nds, pods)
    return [got[n.name] for n in nds]


def test_balanced_allocation():
    # cpu 3000/4000 = 0.75, memory 5000/10000 = 0.5: std 0.125 -> 87; 0.5/0.5 -> 100.
    assert balanced(TWO, [C4, C6]) == [87, 100]
    # 6000/10000 = 0.6 vs 5000/20000 = 0.25 -> 82; 0.6 vs 10000/20000 = 0.5 -> 95.
    assert balanced(TWO, [C10, C10], [("node1", {"cpu": "3000", "memory": "0"}),
                                     ("node2", {"cpu": "3000", "memory": "5000"})]) == [82, 95]
    # Fractions are capped at 1: 1.0 vs 0.5.
    assert balanced([{"cpu": "6000", "memory": "5000"}], [C4]) == [75]


def test_balanced_allocation_skips_best_effort_pods():
    assert balanced([], [C4, C6]) == [0, 0]
