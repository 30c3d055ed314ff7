"""InterPodAffinity: required and preferred pod affinity and anti-affinity.

Upstream ``plugins/interpodaffinity/{plugin,filtering,scoring}.go``.

Filter, in upstream's order: (1) the pod's required affinity — every term's topology domain
on the node must already hold a pod matching *all* the terms (unless no such pod exists
anywhere and the pod matches its own terms: the first of a group may go anywhere with the
labels); (2) the pod's required anti-affinity — no matching pod in the node's domain; (3)
existing pods' required anti-affinity — no pod already placed forbids this pod in any domain
the node belongs to.

Score: the weights of matching preferred terms (the pod's own, counted over existing pods, and
existing pods' terms that match the pod, with ``hardPodAffinityWeight`` for their required
affinity), summed per topology domain, then scaled min..max onto 0..100.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..framework.interface import (
    ASSIGNED_POD,
    MAX_NODE_SCORE,
    NODE,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Status,
)
from ..framework.node_info import PodInfo
from . import names
from .args import ArgsError, as_bool, as_int, as_mapping

if TYPE_CHECKING:
    import numpy as np

    from ...api.core import Pod
else:
    from ..framework.lazy_numpy import np

NAME = names.INTER_POD_AFFINITY
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules"
ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
DEFAULT_HARD_POD_AFFINITY_WEIGHT = 1


def _update(counts: dict, labels: Any, key: str, value: int) -> None:
    v = labels.get(key)
    if v is None:
        return
    pair = (key, v)
    n = counts.get(pair, 0) + value
    if n == 0:
        counts.pop(pair, None)
    else:
        counts[pair] = n


def matches_all(terms: tuple, pod: Pod, ns_labels: Any) -> bool:
    if not terms:
        return False
    return all(t.matches(pod, ns_labels) for t in terms)


class PreFilterState:
    __slots__ = ("pi", "ns_labels", "existing_anti", "affinity", "anti")

    def __init__(self, pi: PodInfo, ns_labels: Any) -> None:
        self.pi = pi
        self.ns_labels = ns_labels
        self.existing_anti: dict = {}
        self.affinity: dict = {}
        self.anti: dict = {}

    def clone(self) -> "PreFilterState":
        c = PreFilterState(self.pi, self.ns_labels)
        c.existing_anti, c.affinity, c.anti = (dict(self.existing_anti), dict(self.affinity),
                                                dict(self.anti))
        return c


class PreScoreState:
    __slots__ = ("topology_score",)

    def __init__(self) -> None:
        self.topology_score: dict[str, dict[str, int]] = {}


class InterPodAffinity:
    name = NAME

    def __init__(self, handle: Any, hard_weight: int, ignore_existing_preferred: bool) -> None:
        self.handle = handle
        self.hard_weight = hard_weight
        self.ignore_existing_preferred = ignore_existing_preferred

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(ASSIGNED_POD, ActionType.ADD | ActionType.DELETE
                                                  | ActionType.UPDATE_POD_LABEL)),
                ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD
                                                  | ActionType.UPDATE_NODE_LABEL))]

    def _nsl(self) -> Any:
        """Namespace labels, memoized for one cycle."""
        memo: dict = {}
        lookup = self.handle.namespace_labels

        def get(ns: str) -> Any:
            v = memo.get(ns)
            if v is None:
                v = memo[ns] = lookup(ns)
            return v
        return get

    def _pod_info(self, state: Any, pod: Pod) -> PodInfo:
        pi = state.get("PodInfo")
        return pi if pi is not None and pi.pod is pod else PodInfo(pod)

    # -- PreFilter --
    def pre_filter(self, state: Any, pod: Pod, nodes: list):
        pi = self._pod_info(state, pod)
        nsl = self._nsl()
        s = self._existing_anti(pi, pod, nsl)
        if pi.required_affinity or pi.required_anti_affinity:
            for ni in nodes:
                for existing in ni.pods.values():
                    self._count_incoming(s, existing, ni, nsl, 1)
        if not s.existing_anti and not pi.required_affinity and not pi.required_anti_affinity:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def _existing_anti(self, pi: PodInfo, pod: Pod, nsl: Any, ctx: Any = None) -> PreFilterState:
        ns_labels = nsl(pod.metadata.namespace)
        s = PreFilterState(pi, ns_labels)

        def compute() -> dict:
            counts: dict = {}
            for ni in self.handle.have_pods_with_required_anti_affinity():
                for existing in ni.pods_with_required_anti_affinity.values():
                    for t in existing.required_anti_affinity:
                        if t.matches(pod, ns_labels):
                            _update(counts, ni.labels, t.topology_key, 1)
            return counts
        if ctx is None:
            s.existing_anti = compute()
        else:
            s.existing_anti = dict(ctx.existing_anti_pairs(pod, ns_labels, compute))
        return s

    def pre_filter_vec(self, state: Any, pod: Pod, ctx: Any):
        """pre_filter with the incoming pod's term counts from incremental per-node counters."""
        pi = self._pod_info(state, pod)
        if not pi.required_affinity and not pi.required_anti_affinity and \
                not self.handle.have_pods_with_required_anti_affinity():
            # No term of the pod's and no existing pod's anti-affinity to count: the Skip the
            # end of this method gives, without building the empty state.
            return None, Status.skip()
        nsl = self._nsl()
        s = self._existing_anti(pi, pod, nsl, ctx)
        lookup = self.handle.namespace_labels
        if pi.required_affinity:
            terms = pi.required_affinity
            counts = ctx.pod_counts(("ipa-all", tuple(_term_key(t) for t in terms)),
                                    lambda p: matches_all(terms, p.pod, lookup(p.namespace)))
            for t in terms:
                _add_counts(s.affinity, t.topology_key, counts, ctx)
        for t in pi.required_anti_affinity:
            counts = ctx.pod_counts(("ipa-one", _term_key(t)),
                                    lambda p, t=t: t.matches(p.pod, lookup(p.namespace)))
            _add_counts(s.anti, t.topology_key, counts, ctx)
        if not s.existing_anti and not pi.required_affinity and not pi.required_anti_affinity:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def _count_incoming(self, s: PreFilterState, existing: PodInfo, ni: Any, nsl: Any,
                        value: int) -> None:
        pi = s.pi
        ep = existing.pod
        if pi.required_affinity and matches_all(pi.required_affinity, ep,
                                                nsl(existing.namespace)):
            for t in pi.required_affinity:
                _update(s.affinity, ni.labels, t.topology_key, value)
        for t in pi.required_anti_affinity:
            if t.matches(ep, nsl(existing.namespace)):
                _update(s.anti, ni.labels, t.topology_key, value)

    def _update_with_pod(self, state: Any, pod: Pod, existing: PodInfo, ni: Any,
                         value: int) -> None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            return
        for t in existing.required_anti_affinity:
            if t.matches(pod, s.ns_labels):
                _update(s.existing_anti, ni.labels, t.topology_key, value)
        self._count_incoming(s, existing, ni, self._nsl(), value)

    def add_pod(self, state: Any, pod: Pod, pi: Any, node_info: Any) -> None:
        self._update_with_pod(state, pod, pi, node_info, 1)

    def remove_pod(self, state: Any, pod: Pod, pi: Any, node_info: Any) -> None:
        self._update_with_pod(state, pod, pi, node_info, -1)

    # -- Filter --
    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        s = state.read(PRE_FILTER_STATE_KEY)
        labels = node_info.labels
        if not _satisfy_affinity(s, labels, self.handle):
            return Status.unresolvable(ERR_REASON_AFFINITY)
        if s.anti:
            for t in s.pi.required_anti_affinity:
                v = labels.get(t.topology_key)
                if v is not None and s.anti.get((t.topology_key, v), 0) > 0:
                    return Status.unschedulable(ERR_REASON_ANTI_AFFINITY)
        if s.existing_anti:
            for k, v in labels.items():
                if s.existing_anti.get((k, v), 0) > 0:
                    return Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY)
        return None

    def filter_vec(self, state: Any, pod: Pod, ctx: Any):
        s = state.read(PRE_FILTER_STATE_KEY)
        codes = np.zeros(ctx.n, dtype=np.int32)
        terms = s.pi.required_affinity
        if terms:
            ok = np.ones(ctx.n, dtype=bool)
            exist = np.ones(ctx.n, dtype=bool)
            for t in terms:
                ids, values, has = ctx.topology(t.topology_key)
                ok &= has
                exist &= _pair_array(s.affinity, t.topology_key, ids, values, ctx) > 0
            if not (not s.affinity and matches_all(terms, pod, self.handle.namespace_labels(
                    pod.metadata.namespace))):
                ok &= exist
            codes[~ok] = 1
        if s.anti:
            bad = np.zeros(ctx.n, dtype=bool)
            for t in s.pi.required_anti_affinity:
                ids, values, has = ctx.topology(t.topology_key)
                bad |= has & (_pair_array(s.anti, t.topology_key, ids, values, ctx) > 0)
            codes[(codes == 0) & bad] = 2
        if s.existing_anti:
            bad = np.zeros(ctx.n, dtype=bool)
            for k in {k for k, _ in s.existing_anti}:
                ids, values, has = ctx.topology(k)
                bad |= has & (_pair_array(s.existing_anti, k, ids, values, ctx) > 0)
            codes[(codes == 0) & bad] = 3
        return codes, {1: Status.unresolvable(ERR_REASON_AFFINITY),
                       2: Status.unschedulable(ERR_REASON_ANTI_AFFINITY),
                       3: Status.unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY)}

    # -- PreScore / Score --
    def pre_score(self, state: Any, pod: Pod, nodes: list) -> Status | None:
        if not nodes:
            return None
        pi = self._pod_info(state, pod)
        has_constraints = bool(pi.preferred_affinity or pi.preferred_anti_affinity)
        if self.ignore_existing_preferred and not has_constraints:
            return Status.skip()
        scoring = self.handle.pods_with_scoring_affinity() if not has_constraints else ()
        if not has_constraints and not scoring:
            return Status.skip()   # nothing can add to a topology score (the end's Skip)
        s = PreScoreState()
        nsl = self._nsl()
        ns_labels = nsl(pod.metadata.namespace)
        if has_constraints:
            for ni in self.handle.node_list():
                if ni.labels:
                    for existing in ni.pods.values():
                        self._process_existing(s, existing, ni, pi, ns_labels, nsl)
        else:
            # Only existing pods with required affinity or preferred terms can add anything.
            for ni, existing in scoring:
                if ni.labels:
                    self._process_existing(s, existing, ni, pi, ns_labels, nsl)
        if not s.topology_score:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def _process_existing(self, s: PreScoreState, existing: PodInfo, ni: Any, pi: PodInfo,
                          ns_labels: Any, nsl: Any) -> None:
        labels = ni.labels
        ts = s.topology_score
        ep_ns = nsl(existing.namespace)
        for terms, mult in ((pi.preferred_affinity, 1), (pi.preferred_anti_affinity, -1)):
            for t in terms:
                if t.matches(existing.pod, ep_ns):
                    _add_topo(ts, labels, t.topology_key, t.weight * mult)
        if self.hard_weight > 0:
            for t in existing.required_affinity:
                if t.matches(pi.pod, ns_labels):
                    _add_topo(ts, labels, t.topology_key, self.hard_weight)
        for terms, mult in ((existing.preferred_affinity, 1),
                            (existing.preferred_anti_affinity, -1)):
            for t in terms:
                if t.matches(pi.pod, ns_labels):
                    _add_topo(ts, labels, t.topology_key, t.weight * mult)

    def score(self, state: Any, pod: Pod, node_info: Any) -> int:
        s = state.read(PRE_SCORE_STATE_KEY)
        labels = node_info.labels
        total = 0
        for key, values in s.topology_score.items():
            v = labels.get(key)
            if v is not None:
                total += values.get(v, 0)
        return total

    def normalize_score(self, state: Any, pod: Pod, scores: list[int], nodes: list) -> None:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None or not s.topology_score or not scores:
            return
        lo, hi = min(scores), max(scores)
        diff = hi - lo
        for i, sc in enumerate(scores):
            scores[i] = int(_normalized(sc, lo, diff)) if diff > 0 else 0

    def score_vec(self, state: Any, pod: Pod, ctx: Any, idx: np.ndarray) -> np.ndarray:
        s = state.read(PRE_SCORE_STATE_KEY)
        total = np.zeros(len(idx), dtype=np.int64)
        for key, values in s.topology_score.items():
            ids, vals, has = ctx.topology(key)
            per = np.zeros(len(vals), dtype=np.int64)
            for v, sc in values.items():
                j = ctx.topology_value_id(key, v)
                if j is not None:
                    per[j] = sc
            total += np.where(has[idx], per[ids[idx]], 0)
        return total

    def normalize_vec(self, state: Any, pod: Pod, scores: np.ndarray, ctx: Any,
                      idx: np.ndarray) -> np.ndarray:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None or not s.topology_score or not len(scores):
            return scores
        lo, hi = int(scores.min()), int(scores.max())
        diff = hi - lo
        if diff <= 0:
            return np.zeros(len(scores), dtype=np.int64)
        return _normalized(scores, lo, diff).astype(np.int64)


def _normalized(score: Any, lo: int, diff: int) -> Any:
    """NormalizeScore: the score's place between the lowest and the highest (``diff`` > 0), out
    of MAX_NODE_SCORE, truncated by the caller. A number or an array of them."""
    return float(MAX_NODE_SCORE) * ((score - lo) / diff)


def _add_topo(ts: dict, labels: Any, key: str, value: int) -> None:
    v = labels.get(key)
    if v is None:
        return
    d = ts.setdefault(key, {})
    d[v] = d.get(v, 0) + value


def _pair_array(counts: dict, key: str, ids: np.ndarray, values: list, ctx: Any) -> np.ndarray:
    """A (key, value) -> count map as a per-node array for one topology key."""
    per = np.zeros(len(values), dtype=np.int64)
    index = ctx.value_index(key)
    for (k, v), n in counts.items():
        if k == key:
            j = index.get(v)
            if j is not None:
                per[j] = n
    return per[ids]


def _term_key(t: Any) -> tuple:
    return (t.namespaces, t.namespace_selector, t.selector)


def _add_counts(target: dict, key: str, counts: np.ndarray, ctx: Any) -> None:
    """Add per-node matching-pod counts into (key, value) pairs, as upd. per pod would."""
    ids, values, has = ctx.topology(key)
    sel = has & (counts != 0)
    if not sel.any():
        return
    per = np.bincount(ids[sel], weights=counts[sel], minlength=len(values)).astype(np.int64)
    for j in np.flatnonzero(per).tolist():
        pair = (key, values[j])
        n = target.get(pair, 0) + int(per[j])
        if n == 0:
            target.pop(pair, None)
        else:
            target[pair] = n


def _satisfy_affinity(s: PreFilterState, labels: Any, handle: Any) -> bool:
    pods_exist = True
    for t in s.pi.required_affinity:
        v = labels.get(t.topology_key)
        if v is None:
            return False
        if s.affinity.get((t.topology_key, v), 0) <= 0:
            pods_exist = False
    if not pods_exist:
        # The first pod of a group that has affinity to itself may go anywhere that has the
        # topology labels, as long as no other pod matches.
        return not s.affinity and matches_all(
            s.pi.required_affinity, s.pi.pod, handle.namespace_labels(s.pi.namespace))
    return True


def new(args: Any, handle: Any) -> InterPodAffinity:
    """InterPodAffinityArgs: hardPodAffinityWeight (0..100, default 1),
    ignorePreferredTermsOfExistingPods."""
    args = as_mapping(args or {}, "args")
    w = as_int(args.get("hardPodAffinityWeight", DEFAULT_HARD_POD_AFFINITY_WEIGHT),
               "hardPodAffinityWeight")
    if not 0 <= w <= 100:
        raise ArgsError("hardPodAffinityWeight", f"Invalid value: {w}: not in valid range [0, 100]")
    ignore = as_bool(args.get("ignorePreferredTermsOfExistingPods", False),
                     "ignorePreferredTermsOfExistingPods")
    return InterPodAffinity(handle, w, ignore)
