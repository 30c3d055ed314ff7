"""DefaultPreemption: when no node fits, evict lower-priority pods to make room.

Upstream ``plugins/defaultpreemption/default_preemption.go`` and
``framework/preemption/preemption.go``. Only nodes that failed with plain Unschedulable are
candidates. On each (a rotating sample of at least 100 nodes or 10 %), every lower-priority
pod is removed; if the pod then fits, victims are reprieved one by one from the most
important down — PDB-violating ones first — keeping those the pod can live with. The best
candidate has the fewest PDB violations, then the lowest highest-victim priority, the lowest
priority sum, the fewest victims, the latest start. The preemptor is nominated to that node;
victims get a DisruptionTarget condition, are deleted and get a ``Preempted`` event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..framework.interface import Code, Status
from ..framework.types import Diagnosis, FitError, NodeToStatus
from . import names
from .args import ArgsError, as_int, as_mapping

if TYPE_CHECKING:
    import numpy as np

    from ...api.core import Pod
    from ...apiserver.store import Store
else:
    from ..framework.lazy_numpy import np

NAME = names.DEFAULT_PREEMPTION
PREEMPT_NEVER = "Never"
MSG_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_TERMINATING = "not eligible due to a terminating pod on the nominated node."
MSG_NO_VICTIMS = "No preemption victims found for incoming pod"
MSG_NOT_HELPFUL = "Preemption is not helpful for scheduling"
REASON_PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
_INF = float("inf")
# Above any pod priority (int32): a node without pods has no victim for anyone.
NO_POD = 1 << 40


class Candidate:
    __slots__ = ("name", "victims", "num_pdb_violations")

    def __init__(self, name: str, victims: list, num_pdb_violations: int) -> None:
        self.name = name
        self.victims = victims          # PodInfos, most important first
        self.num_pdb_violations = num_pdb_violations


def _start(pi: Any) -> float:
    return pi.start_time if pi.start_time is not None else _INF


def _importance_key(pi: Any) -> tuple:
    return (-pi.priority, _start(pi))


def terminating_by_preemption(pod: Pod) -> bool:
    if pod.metadata.deletion_timestamp is None:
        return False
    c = pod.status.condition("DisruptionTarget")
    return c is not None and c.status == "True" and c.reason == REASON_PREEMPTION_BY_SCHEDULER


class DefaultPreemption:
    name = NAME

    def __init__(self, handle: Any, min_pct: int, min_abs: int) -> None:
        self.handle = handle
        self.min_pct = min_pct
        self.min_abs = min_abs
        # Each node's lowest pod priority, and the (cache, version, node list) it was read at.
        self._lowest: Any = None
        self._lowest_anywhere = NO_POD
        self._lowest_key: tuple | None = None

    # -- PostFilter --
    def post_filter(self, state: Any, pod: Pod, m: NodeToStatus, ctx: Any):
        """(nominated node name or None, status); ``ctx`` is the scheduler's preemption
        context (framework, nodes, random source, and how to evict)."""
        ok, msg = self.eligible(pod, m, ctx)
        if not ok:
            return None, Status.unschedulable("preemption: " + msg)
        candidates, statuses = self.find_candidates(state, pod, m, ctx)
        if not candidates:
            d = Diagnosis()
            d.node_to_status = statuses
            statuses.absent = Status.unresolvable(MSG_NOT_HELPFUL)
            fe = FitError(pod, len(ctx.nodes), d)
            return "", Status.unschedulable("preemption: " + str(fe))
        best = self.select_candidate(candidates)
        ctx.prepare_candidate(best, pod)
        return best.name, Status(Code.SUCCESS)

    def eligible(self, pod: Pod, m: NodeToStatus, ctx: Any) -> tuple[bool, str]:
        """PodEligibleToPreemptOthers."""
        if pod.spec.preemption_policy == PREEMPT_NEVER:
            return False, MSG_NEVER
        nom = pod.status.nominated_node_name
        if nom:
            if m.get(nom).code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            ni = ctx.fwk.handle.cache.get(nom)
            prio = pod.spec.priority or 0
            if ni is not None:
                for pi in ni.pods.values():
                    if pi.priority < prio and terminating_by_preemption(pi.pod):
                        return False, MSG_TERMINATING
        return True, ""

    def num_candidates(self, num_nodes: int) -> int:
        n = num_nodes * self.min_pct // 100
        n = max(n, self.min_abs)
        return min(n, num_nodes)

    def find_candidates(self, state: Any, pod: Pod, m: NodeToStatus, ctx: Any):
        statuses = NodeToStatus()
        nodes = ctx.nodes
        found = m.indices_for_code(nodes, Code.UNSCHEDULABLE)
        n = len(found)
        if not n:   # before numpy: a small cluster's pod that fits nowhere never loads it
            return [], statuses
        potential = np.asarray(found, dtype=np.int64)
        offset = ctx.rand.randrange(n)
        want = self.num_candidates(n)
        non_violating: list[Candidate] = []
        violating: list[Candidate] = []
        prio = pod.spec.priority or 0
        no_victims = Status.unresolvable(MSG_NO_VICTIMS)  # read-only, shared by those nodes
        lowest, lowest_anywhere = self._lowest_priorities(ctx)
        if lowest_anywhere >= prio:
            # No pod anywhere has a lower priority: every node answers "no victims", as
            # select_victims_on_node would one by one (the random offset is still drawn).
            statuses.set_group(no_victims, potential, nodes)
            return [], statuses
        order = np.concatenate((potential[offset:], potential[:offset])) if offset else potential
        # Nodes with no pod below the preemptor answer "no victims" without cloning the node
        # and the cycle state first (a backlog of pods that fit nowhere would ask this of
        # every node for every pod); only the others are tried, in the rotated order.
        has_victims = lowest[order] < prio
        pdbs = ctx.pdbs()
        visited = n
        judged: list[tuple[str, Status]] = []
        for j in np.flatnonzero(has_victims).tolist():
            ni = nodes[int(order[j])].clone()
            victims, nviol, st = self.select_victims_on_node(state.clone(), pod, ni, pdbs, ctx)
            if st is None and victims:
                c = Candidate(ni.name, victims, nviol)
                (non_violating if nviol == 0 else violating).append(c)
                if non_violating and len(non_violating) + len(violating) >= want:
                    visited = j + 1
                    break
                continue
            if st is None:
                st = Status(Code.ERROR, f'expected at least one victim pod on node "{ni.name}"')
            judged.append((ni.name, st))
        # The nodes visited before the search stopped, listed as the one-by-one walk did.
        statuses.set_group(no_victims, order[:visited][~has_victims[:visited]], nodes)
        for name, st in judged:
            statuses.set(name, st)
        return non_violating + violating, statuses

    def _lowest_priorities(self, ctx: Any) -> tuple[np.ndarray, int]:
        """Each node's lowest pod priority (``NO_POD`` without pods), in ``ctx.nodes`` order,
        and the lowest of all; read again only when the scheduler cache, its version or the
        node list changed."""
        cache = ctx.fwk.handle.cache
        key = self._lowest_key
        if key is None or key[0] is not cache or key[1] != cache.version \
                or key[2] is not ctx.nodes:
            lows = [ni.lowest_priority() for ni in ctx.nodes]
            self._lowest = np.fromiter((NO_POD if low is None else low for low in lows),
                                       np.int64, len(lows))
            self._lowest_anywhere = int(self._lowest.min()) if len(lows) else NO_POD
            self._lowest_key = (cache, cache.version, ctx.nodes)
        return self._lowest, self._lowest_anywhere

    def select_victims_on_node(self, state: Any, pod: Pod, ni: Any, pdbs: list, ctx: Any):
        fwk = ctx.fwk
        prio = pod.spec.priority or 0
        key = f"{pod.metadata.namespace}/{pod.metadata.name}"
        potential = [pi for pi in ni.pods.values() if pi.priority < prio]
        if not potential:
            return [], 0, Status.unresolvable(MSG_NO_VICTIMS)
        for pi in potential:
            ni.remove_pod(pi.key)
            fwk.run_remove_pod(state, pod, pi, ni)
        st = fwk.run_filter_with_nominated(state, pod, ni, prio, key)
        if st is not None:
            return [], 0, st
        potential.sort(key=_importance_key)
        violating, non_violating = filter_pdb_violation(potential, pdbs)
        victims: list = []

        def reprieve(pi: Any) -> bool:
            ni.add_pod(pi)
            fwk.run_add_pod(state, pod, pi, ni)
            fits = fwk.run_filter_with_nominated(state, pod, ni, prio, key) is None
            if not fits:
                ni.remove_pod(pi.key)
                fwk.run_remove_pod(state, pod, pi, ni)
                victims.append(pi)
            return fits

        nviol = 0
        for pi in violating:
            if not reprieve(pi):
                nviol += 1
        for pi in non_violating:
            reprieve(pi)
        if violating and non_violating:
            victims.sort(key=_importance_key)
        return victims, nviol, None

    def select_candidate(self, candidates: list[Candidate]) -> Candidate:
        if len(candidates) == 1:
            return candidates[0]
        return pick_one_node_for_preemption(candidates)


def filter_pdb_violation(pods: list, pdbs: list) -> tuple[list, list]:
    """Split victims into those whose eviction would break a PodDisruptionBudget and the rest
    (each matching budget's allowance is spent as pods are considered)."""
    allowed = [p.disruptions_allowed for p in pdbs]
    violating, fine = [], []
    for pi in pods:
        broken = False
        if pi.labels:
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pi.namespace or pdb.selector is None \
                        or pdb.selector.empty or not pdb.selector.matches(pi.labels):
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    broken = True
        (violating if broken else fine).append(pi)
    return violating, fine


def pick_one_node_for_preemption(candidates: list[Candidate]) -> Candidate:
    """pickOneNodeForPreemption: apply the criteria in order until one node is left."""
    def earliest_start_of_top(c: Candidate) -> float:
        top = c.victims[0].priority
        return min(_start(v) for v in c.victims if v.priority == top)

    criteria = (
        lambda c: -c.num_pdb_violations,
        lambda c: -c.victims[0].priority,
        lambda c: -sum(v.priority + (1 << 31) for v in c.victims),
        lambda c: -len(c.victims),
        earliest_start_of_top,
    )
    pool = list(candidates)
    for f in criteria:
        best = max(f(c) for c in pool)
        pool = [c for c in pool if f(c) == best]
        if len(pool) == 1:
            return pool[0]
    return pool[0]


class PDBView:
    """A PodDisruptionBudget with its disruptions allowed computed from the current pods."""

    __slots__ = ("namespace", "selector", "disruptions_allowed")

    def __init__(self, namespace: str, selector: Any, allowed: int) -> None:
        self.namespace = namespace
        self.selector = selector
        self.disruptions_allowed = allowed


def pdb_views(store: Store) -> list[PDBView]:
    """The budgets as preemption reads them: ``status.disruptionsAllowed`` as the disruption
    controller last wrote it (0 when no controller keeps it, as upstream)."""
    return [PDBView(p.metadata.namespace, p.spec.selector, p.status.disruptions_allowed)
            for p in store.list("PodDisruptionBudget")]


def new(args: Any, handle: Any) -> DefaultPreemption:
    """DefaultPreemptionArgs: minCandidateNodesPercentage (0..100, default 10),
    minCandidateNodesAbsolute (>= 0, default 100)."""
    args = as_mapping(args or {}, "args")
    pct = as_int(args.get("minCandidateNodesPercentage", 10), "minCandidateNodesPercentage")
    ab = as_int(args.get("minCandidateNodesAbsolute", 100), "minCandidateNodesAbsolute")
    if not 0 <= pct <= 100:
        raise ArgsError("minCandidateNodesPercentage",
                        f"Invalid value: {pct}: not in valid range [0, 100]")
    if ab < 0:
        raise ArgsError("minCandidateNodesAbsolute",
                        f"Invalid value: {ab}: not in valid range [0, inf)")
    if pct == 0 and ab == 0:
        raise ArgsError("minCandidateNodesAbsolute", "Invalid value: 0: cannot be zero at the "
                                                     "same time as minCandidateNodesPercentage")
    return DefaultPreemption(handle, pct, ab)
