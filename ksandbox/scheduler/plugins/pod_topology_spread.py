"""PodTopologySpread: spread matching pods across topology domains.

Upstream ``plugins/podtopologyspread/{common,filtering,scoring,plugin}.go``.

Filter (``whenUnsatisfiable: DoNotSchedule``): for each constraint, placing the pod in the
node's domain must keep ``matching pods in that domain + self - global minimum`` within
``maxSkew``; the global minimum is 0 while fewer than ``minDomains`` domains exist. A node
without the topology label fails as unresolvable. Which nodes count follows
``nodeAffinityPolicy`` (Honor by default: only nodes the pod could go to) and
``nodeTaintsPolicy`` (Ignore by default). ``matchLabelKeys`` narrow the selector with the
pod's own label values.

Score (``ScheduleAnyway``, or the default system constraints — hostname maxSkew 3 and zone
maxSkew 5 — for pods owned by a ReplicaSet or ReplicationController that set none): fewer
matching pods in the node's domains is better, weighted by log(domains + 2).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...api.codec import decode
from ...api.core import TopologySpreadConstraint
from ...api.selectors import IN, LabelSelector, LabelSelectorRequirement
from ...api.taints import NO_EXECUTE, NO_SCHEDULE, find_untolerated_taint
from ..framework.interface import (MAX_NODE_SCORE, ActionType, ASSIGNED_POD, ClusterEvent,
                                   ClusterEventWithHint, NODE, Status)
from ..framework.node_info import LABEL_HOSTNAME, LABEL_ZONE
from . import names
from .args import ArgsError, as_list, as_mapping
from .helper import go_round, go_round_vec
from .node_affinity import required_node_affinity_matches

NAME = names.POD_TOPOLOGY_SPREAD
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
DO_NOT_SCHEDULE, SCHEDULE_ANYWAY = "DoNotSchedule", "ScheduleAnyway"
HONOR, IGNORE = "Honor", "Ignore"
SYSTEM, LIST = "System", "List"
_INT32_MAX = (1 << 31) - 1

# pkg/scheduler/framework/plugins/podtopologyspread/plugin.go: systemDefaultConstraints.
SYSTEM_DEFAULT_CONSTRAINTS = (
    TopologySpreadConstraint(max_skew=3, topology_key=LABEL_HOSTNAME,
                             when_unsatisfiable=SCHEDULE_ANYWAY),
    TopologySpreadConstraint(max_skew=5, topology_key=LABEL_ZONE,
                             when_unsatisfiable=SCHEDULE_ANYWAY),
)


class Constraint:
    """A parsed topologySpreadConstraint (upstream topologySpreadConstraint)."""

    __slots__ = ("max_skew", "topology_key", "selector", "min_domains", "affinity_honor",
                 "taints_honor")

    def __init__(self, c: Any, selector: LabelSelector | None) -> None:
        self.max_skew = c.max_skew
        self.topology_key = c.topology_key
        self.selector = selector
        self.min_domains = c.min_domains if c.min_domains is not None else 1
        self.affinity_honor = (c.node_affinity_policy or HONOR) == HONOR
        self.taints_honor = (c.node_taints_policy or IGNORE) == HONOR

    def matches(self, labels: Any) -> bool:
        return self.selector is not None and self.selector.matches(labels)

    def includes_node(self, pod: Any, node: Any) -> bool:
        """matchNodeInclusionPolicies."""
        if self.affinity_honor and not required_node_affinity_matches(pod, node):
            return False
        if self.taints_honor and find_untolerated_taint(
                node.spec.taints, pod.spec.tolerations, (NO_SCHEDULE, NO_EXECUTE)) is not None:
            return False
        return True


def _merge_match_label_keys(selector: LabelSelector | None, keys: tuple, labels: Any):
    if selector is None or not keys:
        return selector
    extra = tuple(LabelSelectorRequirement(k, IN, (labels[k],)) for k in keys if k in labels)
    if not extra:
        return selector
    return LabelSelector(match_labels=selector.match_labels,
                         match_expressions=selector.match_expressions + extra)


def node_has_keys(labels: Any, constraints: list) -> bool:
    return all(c.topology_key in labels for c in constraints)


def count_pods_match(node_info: Any, c: Constraint, namespace: str) -> int:
    """countPodsMatchSelector: same namespace, not terminating, selector matches."""
    if c.selector is None:
        return 0
    n = 0
    for pi in node_info.pods.values():
        if pi.terminating or pi.namespace != namespace:
            continue
        if c.selector.matches(pi.labels):
            n += 1
    return n


def topology_normalizing_weight(size: int) -> float:
    return math.log(size + 2)


class PreFilterState:
    """Matching-pod counts per constraint and domain value, and the smallest ones.

    Built either by the scalar PreFilter (dicts) or by the vectorized one (per-value arrays,
    turned into dicts only if someone asks — preemption's add/remove, explain)."""

    __slots__ = ("constraints", "_counts", "_paths", "arrays")

    def __init__(self, constraints: list) -> None:
        self.constraints = constraints
        self._counts: list[dict[str, int]] | None = [{} for _ in constraints]
        self._paths: list[list] | None = None
        # Per constraint: (count per value id, value present, values), from filter_vec.
        self.arrays: list | None = None

    @property
    def value_counts(self) -> list[dict[str, int]]:
        if self._counts is None:
            self._counts = [{values[j]: int(per[j]) for j in np.flatnonzero(present)}
                            for per, present, values in self.arrays]
            self.arrays = None
        return self._counts

    @property
    def min_paths(self) -> list[list]:
        if self._paths is None:
            self._paths = [[["", _INT32_MAX], ["", _INT32_MAX]] for _ in self.constraints]
            for i, d in enumerate(self.value_counts):
                for v, num in d.items():
                    self.update_path(i, v, num)
        return self._paths

    def clone(self) -> "PreFilterState":
        c = PreFilterState.__new__(PreFilterState)
        c.constraints = self.constraints
        c._counts = [dict(d) for d in self.value_counts]
        c._paths = [[list(p[0]), list(p[1])] for p in self.min_paths]
        c.arrays = None
        return c

    def update_path(self, i: int, value: str, num: int) -> None:
        """criticalPaths.update, as upstream (an approximation kept on purpose)."""
        p = self.min_paths[i] if self._paths is not None else self._paths_init()[i]
        j = 0 if value == p[0][0] else 1 if value == p[1][0] else -1
        if j >= 0:
            p[j][1] = num
            if p[0][1] > p[1][1]:
                p[0], p[1] = p[1], p[0]
        elif num < p[0][1]:
            p[1] = p[0]
            p[0] = [value, num]
        elif num < p[1][1]:
            p[1] = [value, num]

    def _paths_init(self) -> list:
        self._paths = [[["", _INT32_MAX], ["", _INT32_MAX]] for _ in self.constraints]
        return self._paths

    def min_match(self, i: int) -> int:
        c = self.constraints[i]
        if self.arrays is not None:
            per, present, _ = self.arrays[i]
            if int(present.sum()) < c.min_domains:
                return 0
            return int(per[present].min()) if present.any() else _INT32_MAX
        if len(self.value_counts[i]) < c.min_domains:
            return 0
        return self.min_paths[i][0][1]


class PreScoreState:
    __slots__ = ("constraints", "ignored", "_counts", "weights", "arrays")

    def __init__(self) -> None:
        self.constraints: list = []
        self.ignored: set[str] = set()
        self._counts: list[dict[str, int]] | None = []
        self.weights: list[float] = []
        # Per constraint (count per value id, value present, values) or None for hostname.
        self.arrays: list | None = None

    @property
    def value_counts(self) -> list[dict[str, int]]:
        if self._counts is None:
            self._counts = [{} if a is None else
                            {a[2][j]: int(a[0][j]) for j in np.flatnonzero(a[1])}
                            for a in self.arrays]
        return self._counts

    @value_counts.setter
    def value_counts(self, v: list) -> None:
        self._counts = v


class PodTopologySpread:
    name = NAME

    def __init__(self, handle: Any, default_constraints: tuple, system_defaulted: bool) -> None:
        self.handle = handle
        self.default_constraints = default_constraints
        self.system_defaulted = system_defaulted

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(ASSIGNED_POD, ActionType.ADD | ActionType.DELETE
                                                  | ActionType.UPDATE_POD_LABEL)),
                ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD | ActionType.DELETE
                                                  | ActionType.UPDATE_NODE_LABEL
                                                  | ActionType.UPDATE_NODE_TAINT))]

    # -- constraints --
    def _filter_constraints(self, raw: Any, pod: Any, action: str) -> list[Constraint]:
        labels = pod.metadata.labels
        return [Constraint(c, _merge_match_label_keys(c.label_selector, c.match_label_keys,
                                                      labels))
                for c in raw if c.when_unsatisfiable == action]

    def get_constraints(self, pod: Any, action: str) -> list[Constraint]:
        if pod.spec.topology_spread_constraints:
            return self._filter_constraints(pod.spec.topology_spread_constraints, pod, action)
        constraints = self._filter_constraints(self.default_constraints, pod, action)
        if not constraints:
            return []
        selector = self.handle.default_selector(pod)
        if selector is None or selector.empty:
            return []
        for c in constraints:
            c.selector = selector
        return constraints

    # -- PreFilter / Filter --
    def pre_filter(self, state: Any, pod: Any, nodes: list):
        constraints = self.get_constraints(pod, DO_NOT_SCHEDULE)
        if not constraints:
            return None, Status.skip()
        s = PreFilterState(constraints)
        ns = pod.metadata.namespace
        for ni in nodes:
            labels = ni.labels
            if not node_has_keys(labels, constraints):
                continue
            for i, c in enumerate(constraints):
                if not c.includes_node(pod, ni.node):
                    continue
                v = labels[c.topology_key]
                d = s.value_counts[i]
                d[v] = d.get(v, 0) + count_pods_match(ni, c, ns)
        s.min_paths  # noqa: B018 - build the critical paths now, as upstream's PreFilter does
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_vec(self, state: Any, pod: Any, ctx: Any):
        """The same state as pre_filter, from per-node arrays and incremental counters."""
        constraints = self.get_constraints(pod, DO_NOT_SCHEDULE)
        if not constraints:
            return None, Status.skip()
        s = PreFilterState(constraints)
        s._counts = None
        s.arrays = []
        keys = ctx.has_keys(tuple(c.topology_key for c in constraints))
        ns = pod.metadata.namespace
        for c in constraints:
            ids, values, _ = ctx.topology(c.topology_key)
            incl = keys & ctx.inclusion_mask(pod, c.affinity_honor, c.taints_honor)
            counts = ctx.match_counts(ns, c.selector)
            sel = ids[incl]
            per = np.bincount(sel, weights=counts[incl], minlength=len(values)).astype(np.int64)
            present = np.bincount(sel, minlength=len(values)) > 0
            s.arrays.append((per, present, values))
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def _update_with_pod(self, state: Any, preemptor: Any, pi: Any, node_info: Any,
                         delta: int) -> None:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None or pi.namespace != preemptor.metadata.namespace:
            return
        labels = node_info.labels
        if not node_has_keys(labels, s.constraints):
            return
        for i, c in enumerate(s.constraints):
            if not c.matches(pi.labels) or not c.includes_node(preemptor, node_info.node):
                continue
            v = labels[c.topology_key]
            s.value_counts[i][v] = s.value_counts[i].get(v, 0) + delta
            s.update_path(i, v, s.value_counts[i][v])

    def add_pod(self, state: Any, pod: Any, pi: Any, node_info: Any) -> None:
        self._update_with_pod(state, pod, pi, node_info, 1)

    def remove_pod(self, state: Any, pod: Any, pi: Any, node_info: Any) -> None:
        self._update_with_pod(state, pod, pi, node_info, -1)

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status | None:
        s = state.read(PRE_FILTER_STATE_KEY)
        labels = node_info.labels
        pod_labels = pod.metadata.labels
        for i, c in enumerate(s.constraints):
            v = labels.get(c.topology_key)
            if v is None:
                return Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
            self_match = 1 if c.matches(pod_labels) else 0
            skew = s.value_counts[i].get(v, 0) + self_match - s.min_match(i)
            if skew > c.max_skew:
                return Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return None

    def filter_vec(self, state: Any, pod: Any, ctx: Any):
        s = state.read(PRE_FILTER_STATE_KEY)
        codes = np.zeros(ctx.n, dtype=np.int32)
        decided = np.zeros(ctx.n, dtype=bool)
        pod_labels = pod.metadata.labels
        for i, c in enumerate(s.constraints):
            ids, values, has = ctx.topology(c.topology_key)
            if s.arrays is not None:
                per_value = s.arrays[i][0]
            else:
                per_value = np.zeros(len(values), dtype=np.int64)
                for v, num in s.value_counts[i].items():
                    j = ctx.topology_value_id(c.topology_key, v)
                    if j is not None:
                        per_value[j] = num
            self_match = 1 if c.matches(pod_labels) else 0
            skew = per_value[ids] + self_match - s.min_match(i)
            missing = ~has & ~decided
            codes[missing] = 1
            decided |= missing
            bad = (skew > c.max_skew) & ~decided
            codes[bad] = 2
            decided |= bad
        return codes, {1: Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH),
                       2: Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)}

    # -- PreScore / Score --
    def pre_score(self, state: Any, pod: Any, nodes: list) -> Status | None:
        all_nodes = self.handle.node_list()
        if not nodes or not all_nodes:
            return Status.skip()
        constraints = self.get_constraints(pod, SCHEDULE_ANYWAY)
        if not constraints:
            return Status.skip()
        require_all = bool(pod.spec.topology_spread_constraints) or not self.system_defaulted
        s = PreScoreState()
        s.constraints = constraints
        s.value_counts = [{} for _ in constraints]
        topo_size = [0] * len(constraints)
        for ni in nodes:
            labels = ni.labels
            if require_all and not node_has_keys(labels, constraints):
                s.ignored.add(ni.name)
                continue
            for i, c in enumerate(constraints):
                if c.topology_key == LABEL_HOSTNAME:
                    continue
                v = labels.get(c.topology_key, "")
                if v not in s.value_counts[i]:
                    s.value_counts[i][v] = 0
                    topo_size[i] += 1
        for i, c in enumerate(constraints):
            size = topo_size[i]
            if c.topology_key == LABEL_HOSTNAME:
                size = len(nodes) - len(s.ignored)
            s.weights.append(topology_normalizing_weight(size))
        ns = pod.metadata.namespace
        for ni in all_nodes:
            labels = ni.labels
            if require_all and not node_has_keys(labels, constraints):
                continue
            for i, c in enumerate(constraints):
                if not c.includes_node(pod, ni.node):
                    continue
                v = labels.get(c.topology_key, "")
                counts = s.value_counts[i]
                if v not in counts:
                    continue
                counts[v] += count_pods_match(ni, c, ns)
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def pre_score_vec(self, state: Any, pod: Any, ctx: Any, idx: np.ndarray) -> Status | None:
        """pre_score over arrays: the same weights and per-domain counts."""
        if len(idx) == 0 or ctx.n == 0:
            return Status.skip()
        constraints = self.get_constraints(pod, SCHEDULE_ANYWAY)
        if not constraints:
            return Status.skip()
        require_all = bool(pod.spec.topology_spread_constraints) or not self.system_defaulted
        s = PreScoreState()
        s.constraints = constraints
        s._counts = None
        s.arrays = []
        keys = ctx.has_keys(tuple(c.topology_key for c in constraints))
        kept = idx
        if require_all:
            bad = ~keys[idx]
            if bad.any():
                s.ignored = {ctx.infos[j].name for j in idx[bad]}
                kept = idx[~bad]
        ns = pod.metadata.namespace
        for c in constraints:
            if c.topology_key == LABEL_HOSTNAME:
                s.arrays.append(None)
                s.weights.append(topology_normalizing_weight(len(idx) - len(s.ignored)))
                continue
            ids, values, _ = ctx.topology(c.topology_key)
            present = np.zeros(len(values), dtype=bool)
            present[ids[kept]] = True
            incl = ctx.inclusion_mask(pod, c.affinity_honor, c.taints_honor)
            if require_all:
                incl = incl & keys
            counts = ctx.match_counts(ns, c.selector)
            per = np.bincount(ids[incl], weights=counts[incl], minlength=len(values))
            per = np.where(present, per, 0).astype(np.int64)
            s.arrays.append((per, present, values))
            s.weights.append(topology_normalizing_weight(int(present.sum())))
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def score(self, state: Any, pod: Any, node_info: Any) -> int:
        s = state.read(PRE_SCORE_STATE_KEY)
        if node_info.name in s.ignored:
            return 0
        labels = node_info.labels
        total = 0.0
        for i, c in enumerate(s.constraints):
            v = labels.get(c.topology_key)
            if v is None:
                continue
            if c.topology_key == LABEL_HOSTNAME:
                cnt = count_pods_match(node_info, c, pod.metadata.namespace)
            else:
                cnt = s.value_counts[i][v]
            total += cnt * s.weights[i] + float(c.max_skew - 1)
        return go_round(total)

    def normalize_score(self, state: Any, pod: Any, scores: list[int], nodes: list) -> None:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return
        names = [ni.name for ni in nodes]
        lo, hi = None, 0
        for name, sc in zip(names, scores):
            if name in s.ignored:
                continue
            lo = sc if lo is None or sc < lo else lo
            hi = max(hi, sc)
        lo = lo if lo is not None else 0
        for k, (name, sc) in enumerate(zip(names, scores)):
            if name in s.ignored:
                scores[k] = 0
            elif hi == 0:
                scores[k] = MAX_NODE_SCORE
            else:
                scores[k] = MAX_NODE_SCORE * (hi + lo - sc) // hi

    def score_vec(self, state: Any, pod: Any, ctx: Any, idx: np.ndarray) -> np.ndarray:
        s = state.read(PRE_SCORE_STATE_KEY)
        total = np.zeros(len(idx), dtype=np.float64)
        ns = pod.metadata.namespace
        for i, c in enumerate(s.constraints):
            ids, values, has = ctx.topology(c.topology_key)
            if c.topology_key == LABEL_HOSTNAME:
                cnt = ctx.match_counts(ns, c.selector)[idx]
            elif s.arrays is not None:
                cnt = s.arrays[i][0][ids[idx]]
            else:
                per_value = np.zeros(len(values), dtype=np.int64)
                for v, num in s.value_counts[i].items():
                    j = ctx.topology_value_id(c.topology_key, v)
                    if j is not None:
                        per_value[j] = num
                cnt = per_value[ids[idx]]
            contrib = cnt * s.weights[i] + float(c.max_skew - 1)
            total = total + np.where(has[idx], contrib, 0.0)
        out = go_round_vec(total)
        if s.ignored:
            out[ctx.name_mask(s.ignored)[idx]] = 0
        return out

    def normalize_vec(self, state: Any, pod: Any, scores: np.ndarray, ctx: Any,
                      idx: np.ndarray) -> np.ndarray:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return scores
        if s.ignored:
            ign = ctx.name_mask(s.ignored)[idx]
            keep = ~ign
        else:
            ign = None
            keep = np.ones(len(scores), dtype=bool)
        if not keep.any():
            return np.zeros(len(scores), dtype=np.int64)
        lo = int(scores[keep].min())
        hi = int(max(scores[keep].max(), 0))
        if hi == 0:
            out = np.full(len(scores), MAX_NODE_SCORE, dtype=np.int64)
        else:
            out = MAX_NODE_SCORE * (hi + lo - scores) // hi
        if ign is not None:
            out[ign] = 0
        return out


def new(args: Any, handle: Any) -> PodTopologySpread:
    """PodTopologySpreadArgs: ``defaultingType`` (System | List) and ``defaultConstraints``."""
    args = as_mapping(args or {}, "args")
    kind = args.get("defaultingType", SYSTEM)
    raw = args.get("defaultConstraints")
    if kind not in (SYSTEM, LIST):
        raise ArgsError("defaultingType", f'Unsupported value: "{kind}": supported values: '
                                          '"System", "List"')
    if kind == SYSTEM:
        if raw:
            raise ArgsError("defaultConstraints", "Invalid value: when .defaultingType is "
                                                  '"System", defaultConstraints must be empty')
        return PodTopologySpread(handle, SYSTEM_DEFAULT_CONSTRAINTS, True)
    constraints = []
    for i, item in enumerate(as_list(raw or [], "defaultConstraints")):
        c = decode(TopologySpreadConstraint, item, f"defaultConstraints[{i}]")
        if c.label_selector is not None:
            raise ArgsError(f"defaultConstraints[{i}].labelSelector",
                            "Forbidden: constraint must not define a selector, as they deduced "
                            "for each pod")
        if c.max_skew <= 0:
            raise ArgsError(f"defaultConstraints[{i}].maxSkew",
                            f"Invalid value: {c.max_skew}: must be greater than zero")
        constraints.append(c)
    return PodTopologySpread(handle, tuple(constraints), False)
