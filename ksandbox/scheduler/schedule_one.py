"""One scheduling attempt: filter, score, select — the algorithm of upstream's schedule_one.go.

``schedule_pod`` runs PreFilter; tries the pod's nominated node first; filters nodes starting
where the previous attempt stopped (``next_start_node_index``) until enough feasible nodes are
found (``num_feasible_nodes_to_find``: all below 100 nodes, else an adaptive
``max(50 - nodes/125, 5)`` %, at least 100, unless percentageOfNodesToScore says otherwise);
then PreScore, Score and NormalizeScore; the highest weighted total wins and ties are broken
by the seeded random source (one draw, uniform over the tied nodes in evaluation order).

Both the reference path (``Framework`` per node) and the fast path (``fast.FastPath`` over
arrays) go through here; they must agree exactly, including the random draws.

Not here: binding, events, queueing (``scheduler.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .framework.cycle_state import CycleState
from .framework.interface import Code, Status
from .framework.node_info import NodeInfo, PodInfo
from .framework.types import ERR_NO_NODES_AVAILABLE, Diagnosis, FitError

if TYPE_CHECKING:
    from ..api.core import Pod

# Below this many nodes the plain path runs even with the fast path on: numpy's per-call
# overhead costs more than the per-node loop it replaces (per pod on a mixed workload: plain
# 0.5 ms vs fast 0.7 ms at 5 nodes, about even at 20, fast ahead from ~40), and a small
# sandbox — every shipped sample — then starts without importing numpy (~0.1–0.2 s).
FAST_PATH_MIN_NODES = 32

# schedule_one.go
MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5


class NoNodesAvailable(Exception):
    def __str__(self) -> str:
        return ERR_NO_NODES_AVAILABLE


class ScheduleResult:
    __slots__ = ("host", "evaluated", "feasible", "plugin_names", "per_plugin", "totals")

    def __init__(self, host: str, evaluated: int, feasible: list) -> None:
        self.host = host
        self.evaluated = evaluated
        self.feasible = feasible
        self.plugin_names: list[str] = []
        self.per_plugin: list = []
        self.totals: list[int] = []


def num_feasible_nodes_to_find(percentage: int | None, num_all: int) -> int:
    """numFeasibleNodesToFind (Go int32 arithmetic)."""
    if num_all < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all
    pct = percentage or 0
    if pct == 0:
        pct = 50 - num_all // 125
        if pct < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            pct = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    num = num_all * pct // 100
    return max(num, MIN_FEASIBLE_NODES_TO_FIND)


def fast_path(ctx: Any, fwk: Any) -> Any:
    """The ``FastPath`` this cycle runs on, or None for the plain path. ``ctx.use_fast``:
    True always, False never, None (the scheduler's default) from
    :data:`FAST_PATH_MIN_NODES` nodes up. Both paths give the same placements, diagnoses and
    random draws (tests/scheduler/test_scheduler_fast_path.py), so the switch is free to move
    with the node count."""
    use = ctx.use_fast
    if use is None:
        use = ctx.cache.num_nodes() >= FAST_PATH_MIN_NODES
    return ctx.fast_for(fwk) if use else None


def new_cycle_state(pod: Pod, pi: PodInfo | None = None) -> tuple[CycleState, PodInfo]:
    """A cycle's state holding the pod's PodInfo (``pi`` when the caller has it parsed)."""
    state = CycleState()
    if pi is None:
        pi = PodInfo(pod)
    state.write("PodInfo", pi)
    return state, pi


def percentage_for(ctx: Any, fwk: Any) -> int | None:
    p = fwk.percentage_of_nodes_to_score
    return p if p is not None else ctx.percentage_of_nodes_to_score


def schedule_pod(ctx: Any, fwk: Any, state: CycleState, pod: Pod,
                 keep_scores: bool = False) -> ScheduleResult:
    """SchedulePod: the chosen node, or FitError / NoNodesAvailable."""
    if ctx.cache.num_nodes() == 0:
        raise NoNodesAvailable()
    fast = fast_path(ctx, fwk)
    if fast is not None:
        feasible, diagnosis = fast.find_nodes_that_fit(ctx, fwk, state, pod)
    else:
        feasible, diagnosis = find_nodes_that_fit(ctx, fwk, state, pod)
    if not feasible:
        raise FitError(pod, ctx.cache.num_nodes(), diagnosis)
    evaluated = len(feasible) + len(diagnosis.node_to_status)
    if len(feasible) == 1 and not keep_scores:
        return ScheduleResult(feasible[0].name, evaluated, feasible)
    if fast is not None:
        names, per_plugin, totals = fast.prioritize(fwk, state, pod, feasible, keep_scores)
    else:
        names, per_plugin, totals = prioritize(fwk, state, pod, feasible)
    host = feasible[0].name if len(feasible) == 1 else select_host(feasible, totals, ctx.rand)
    res = ScheduleResult(host, evaluated, feasible)
    res.plugin_names, res.per_plugin, res.totals = names, per_plugin, totals
    return res


def pre_filter_and_nominated(ctx: Any, fwk: Any, state: CycleState, pod: Pod, nodes: Any,
                             diagnosis: Diagnosis, **kwargs: Any) -> tuple[Any, Any, Any]:
    """The start of findNodesThatFitPod, shared by the plain and the vectorised path: run
    PreFilter (a rejection ends the search with no feasible node), then try the nominated node.

    Returns (PreFilterResult, the plugins PreFilter ran, feasible nodes to return at once — or
    None to go on filtering).
    """
    result, st, plugins = fwk.run_pre_filter(state, pod, nodes, **kwargs)
    diagnosis.unschedulable_plugins = set(plugins)
    if st is not None:
        if not st.is_rejected():
            raise SchedulingError(st.message())
        diagnosis.node_to_status.absent = st
        diagnosis.pre_filter_msg = st.message()
        diagnosis.add_plugin_status(st)
        return result, plugins, []
    feasible = evaluate_nominated_node(ctx, fwk, state, pod, diagnosis)
    return result, plugins, (feasible or None)


def find_nodes_that_fit(ctx: Any, fwk: Any, state: CycleState,
                        pod: Pod) -> tuple[list[NodeInfo], Diagnosis]:
    diagnosis = Diagnosis()
    all_nodes = ctx.cache.node_list()
    result, plugins, early = pre_filter_and_nominated(ctx, fwk, state, pod, all_nodes, diagnosis)
    if early is not None:
        return early, diagnosis
    nodes = all_nodes
    if result is not None and not result.all_nodes():
        nodes = restrict_nodes(ctx, result.node_names)
        diagnosis.node_to_status.absent = prefilter_absent_status(plugins)
    feasible = find_nodes_that_pass_filters(ctx, fwk, state, pod, diagnosis, nodes)
    processed = len(feasible) + len(diagnosis.node_to_status)
    ctx.next_start_node_index = (ctx.next_start_node_index + processed) % len(all_nodes)
    return feasible, diagnosis


def restrict_nodes(ctx: Any, names: Any) -> list[NodeInfo]:
    """PreFilterResult's nodes that exist, in node-list order."""
    infos = [ctx.cache.get(n) for n in names]
    return sorted((ni for ni in infos if ni is not None), key=lambda ni: ni.index)


def prefilter_absent_status(plugins: set[str]) -> Status:
    return Status.unresolvable(f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(plugins))}]")


def evaluate_nominated_node(ctx: Any, fwk: Any, state: CycleState, pod: Pod,
                            diagnosis: Diagnosis) -> list[NodeInfo]:
    """A nominated node (set by an earlier preemption) is tried first, alone."""
    nnn = pod.status.nominated_node_name
    if not nnn:
        return []
    ni = ctx.cache.get(nnn)
    if ni is None:
        return []
    prio = pod.spec.priority or 0
    key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    st = fwk.run_filter_with_nominated(state, pod, ni, prio, key) if fwk.filter_plugins else None
    if st is None:
        return [ni]
    diagnosis.node_to_status.set(ni.name, st)
    diagnosis.add_plugin_status(st)
    return []


def find_nodes_that_pass_filters(ctx: Any, fwk: Any, state: CycleState, pod: Pod,
                                 diagnosis: Diagnosis, nodes: list[NodeInfo]) -> list[NodeInfo]:
    n = len(nodes)
    if n == 0:
        return []
    to_find = num_feasible_nodes_to_find(percentage_for(ctx, fwk), n)
    if not fwk.has_score_plugins():
        to_find = 1
    start = ctx.next_start_node_index
    if not fwk.has_filter_plugins():
        return [nodes[(start + i) % n] for i in range(min(to_find, n))]
    prio = pod.spec.priority or 0
    key = f"{pod.metadata.namespace}/{pod.metadata.name}"
    feasible: list[NodeInfo] = []
    nts = diagnosis.node_to_status
    for i in range(n):
        ni = nodes[(start + i) % n]
        st = fwk.run_filter_with_nominated(state, pod, ni, prio, key)
        if st is None:
            feasible.append(ni)
            if len(feasible) >= to_find:
                break
        else:
            if st.code == Code.ERROR:
                raise SchedulingError(st.message())
            nts.set(ni.name, st)
            diagnosis.add_plugin_status(st)
    return feasible


def prioritize(fwk: Any, state: CycleState, pod: Pod,
               nodes: list[NodeInfo]) -> tuple[list[str], list[list[int]], list[int]]:
    if not fwk.has_score_plugins():
        return [], [], [1] * len(nodes)
    st = fwk.run_pre_score(state, pod, nodes)
    if st is not None:
        raise SchedulingError(st.message())
    return fwk.run_score(state, pod, nodes)


def select_host(nodes: list, totals: Any, rand: Any) -> str:
    """The highest total; ties broken uniformly by one draw from the seeded source."""
    ties: Any
    if isinstance(totals, list):            # the plain path's scores
        best = max(totals)
        ties = [i for i, t in enumerate(totals) if t == best]
    else:                                   # the fast path's numpy array (no list of
        # the hundreds of tied positions); the best as the first one's one-element slice
        # (argmax and an array comparison: ~3k instructions less than max and a comparison
        # with its numpy scalar)
        i = int(totals.argmax())
        ties = (totals == totals[i:i + 1]).nonzero()[0]
    if len(ties) == 1:
        return nodes[int(ties[0])].name
    return nodes[int(ties[rand.randrange(len(ties))])].name


class SchedulingError(Exception):
    """An Error status: the attempt aborts and the pod is retried after backoff."""
