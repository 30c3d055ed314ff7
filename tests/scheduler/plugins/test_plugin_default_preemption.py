"""DefaultPreemption: victim selection and candidate choice, as upstream's tables."""

from schedtest import cache_of, node, pod

from ksandbox.scheduler.framework.config import default_profile
from ksandbox.scheduler.framework.interface import Code
from ksandbox.scheduler.framework.runtime import Handle, build_framework
from ksandbox.scheduler.plugins.default_preemption import PDBView, pick_one_node_for_preemption
from ksandbox.scheduler.schedule_one import find_nodes_that_fit, new_cycle_state
from ksandbox.api.selectors import LabelSelector
from ksandbox.sim.rand import SimRandom


class Ctx:
    def __init__(self, cache, fwk, pdbs=()):
        self.cache = cache
        self.fwk = fwk
        self.nodes = cache.node_list()
        self.rand = SimRandom(1)
        self.next_start_node_index = 0
        self.percentage_of_nodes_to_score = None
        self.use_fast = False
        self._pdbs = list(pdbs)
        self.chosen = None

    def pdbs(self):
        return self._pdbs

    def prepare_candidate(self, c, p):
        self.chosen = c


def preempt(nodes, pods, preemptor, pdbs=()):
    cache = cache_of(nodes, pods)
    fwk = build_framework(default_profile(), Handle(cache))
    ctx = Ctx(cache, fwk, pdbs)
    state, _ = new_cycle_state(preemptor)
    feasible, diagnosis = find_nodes_that_fit(ctx, fwk, state, preemptor)
    assert not feasible
    name, st = fwk.run_post_filter(state, preemptor, diagnosis.node_to_status, ctx)
    return name, st, ctx.chosen


def big(name, node_name, prio, cpu="1", start=0.0, labels=None):
    return pod(name, requests=[{"cpu": cpu}], node_name=node_name, priority=prio,
               start_time=start, labels=labels)


def test_a_node_whose_victims_have_the_lowest_priority_is_chosen():
    nodes = [node("node1", capacity={"cpu": "2", "memory": "8Gi"}),
             node("node2", capacity={"cpu": "2", "memory": "8Gi"})]
    pods = [big("a", "node1", 10, "2"), big("b", "node2", 5, "2")]
    name, st, c = preempt(nodes, pods, pod("p", requests=[{"cpu": "2"}], priority=100))
    assert name == "node2" and st.code == Code.SUCCESS
    assert [v.pod.metadata.name for v in c.victims] == ["b"]


def test_the_fewest_victims_win_and_higher_priority_pods_are_reprieved_first():
    nodes = [node("node1", capacity={"cpu": "3", "memory": "8Gi"}),
             node("node2", capacity={"cpu": "3", "memory": "8Gi"})]
    pods = [big("a1", "node1", 1), big("a2", "node1", 1), big("a3", "node1", 1),
            big("b1", "node2", 1, "2"), big("b2", "node2", 9)]
    name, _, c = preempt(nodes, pods, pod("p", requests=[{"cpu": "2"}], priority=100))
    # node1 needs two of its three 1-cpu pods; node2 only its 2-cpu pod (b2 is reprieved).
    assert name == "node2" and [v.pod.metadata.name for v in c.victims] == ["b1"]


def test_pod_disruption_budgets_are_respected_where_possible():
    nodes = [node("node1", capacity={"cpu": "2", "memory": "8Gi"}),
             node("node2", capacity={"cpu": "2", "memory": "8Gi"})]
    pods = [big("a", "node1", 1, "2", labels={"app": "db"}), big("b", "node2", 1, "2")]
    pdb = PDBView("default", LabelSelector(match_labels={"app": "db"}), 0)
    name, _, c = preempt(nodes, pods, pod("p", requests=[{"cpu": "2"}], priority=100), [pdb])
    assert name == "node2" and c.num_pdb_violations == 0


def test_no_lower_priority_pods_means_preemption_is_not_helpful():
    nodes = [node("node1", capacity={"cpu": "1", "memory": "8Gi"})]
    name, st, _ = preempt(nodes, [big("a", "node1", 100)],
                          pod("p", requests=[{"cpu": "1"}], priority=100))
    assert name == "" and st.message() == (
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")


def test_ties_go_to_the_latest_start_of_the_highest_priority_victims():
    from ksandbox.scheduler.plugins.default_preemption import Candidate
    from ksandbox.scheduler.framework.node_info import PodInfo

    old = Candidate("old", [PodInfo(big("x", "old", 1, start=10.0))], 0)
    new = Candidate("new", [PodInfo(big("y", "new", 1, start=50.0))], 0)
    assert pick_one_node_for_preemption([old, new]).name == "new"
