"""PodTopologySpread's shared pieces: parsed constraints and the per-cycle states.

Upstream ``plugins/podtopologyspread/common.go`` plus the state types of ``filtering.go``
and ``scoring.go``: a constraint with its selector (``matchLabelKeys`` merged) and node
inclusion policies; matching-pod counting; the PreFilter state (counts per domain and the two
smallest, "critical paths") and the PreScore state (counts per domain of the candidate nodes
and the log(domains + 2) weights). Either can be filled from dicts (the reference path) or
from numpy arrays (the fast path), and reads the same. The filter and score rules
(``skew_exceeded``, ``constraint_score``, ``reversed_score``) are written once, for numbers and
arrays alike, so the two paths cannot drift apart.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ...api.selectors import IN, LabelSelector, LabelSelectorRequirement
from ...api.taints import NO_EXECUTE, NO_SCHEDULE, find_untolerated_taint
from ..framework.interface import MAX_NODE_SCORE
from .node_affinity import required_node_affinity_matches

if TYPE_CHECKING:
    import numpy as np

    from ...api.core import Node, Pod
else:
    from ..framework.lazy_numpy import np

HONOR, IGNORE = "Honor", "Ignore"
_INT32_MAX = (1 << 31) - 1


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

    def includes_every_node(self, pod: Pod) -> bool:
        """``includes_node`` is true of every node for this pod: taints are ignored, and
        node affinity either is or asks nothing (no nodeSelector, no required affinity)."""
        if self.taints_honor:
            return False
        if not self.affinity_honor:
            return True
        spec = pod.spec
        aff = spec.affinity
        return not spec.node_selector and (aff is None or aff.node_affinity is None
                                           or aff.node_affinity.required is None)

    def includes_node(self, pod: Pod, node: Node) -> bool:
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
    return node_info.count_matching(namespace, c.selector)


def known_counts(handle: Any, c: Constraint, namespace: str) -> tuple[list, list] | None:
    """``count_pods_match`` of every node of the cycle's node list at once, when the
    handle's cache keeps them (explain's shadow cache reads the fast path's per-node counters:
    the same rule over the same pods): (that node list, the counts by node index). A caller
    reads a node's count from it only when the node is the list's node at its index — a clone
    (preemption's, spread_facts') is counted by ``count_pods_match``. None: count node by
    node."""
    if c.selector is None:
        return None
    return handle.matching_counts(namespace, c.selector)


def topology_normalizing_weight(size: int) -> float:
    return math.log(size + 2)


# -- the rules, once: each takes plain numbers (the reference path) or numpy arrays (the fast
# path, one element per node) and means the same for both. ----------------------------------

def skew_exceeded(count: Any, self_match: int, min_match: int, max_skew: int) -> Any:
    """filtering.go: placing the pod in a domain with ``count`` matching pods would leave it
    more than ``max_skew`` above the global minimum."""
    return count + self_match - min_match > max_skew


def constraint_score(count: Any, weight: float, max_skew: int) -> Any:
    """scoring.go scoreForCount: matching pods in the node's domain, weighted by the number of
    domains, plus ``maxSkew - 1`` so that a bigger skew allowance flattens the differences."""
    return count * weight + float(max_skew - 1)


def reversed_score(score: Any, lo: int, hi: int) -> Any:
    """scoring.go NormalizeScore for a nonzero maximum: fewer matching pods score higher."""
    return MAX_NODE_SCORE * (hi + lo - score) // hi


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
    __slots__ = ("constraints", "ignored", "_counts", "weights", "arrays", "known", "reads")

    def __init__(self) -> None:
        self.constraints: list = []
        self.ignored: set[str] = set()
        self._counts: list[dict[str, int]] | None = []
        self.weights: list[float] = []
        # Per constraint (count per value id, value present, values) or None for hostname.
        self.arrays: list | None = None
        # Per constraint, known_counts' answer (the plain PreScore's), for Score's hostname
        # counts; None: count each node.
        self.known: list | None = None
        # What the vectorized PreScore read for its candidate nodes, for the vectorized Score
        # of the same nodes: (the candidates' index array, per constraint its per-node
        # matching counts (hostname) or its candidates' domain ids). None: Score reads them.
        self.reads: tuple | None = None

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
