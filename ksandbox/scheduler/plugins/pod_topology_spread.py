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

Each extension point has a numpy twin (``*_vec``) for the fast path; the twins gather the same
counts from arrays and apply the same rule functions (``pod_topology_spread_common``), and
``tests/scheduler/test_plugin_twins.py`` holds every twin to its plain method node by node.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ...api.codec import decode
from ...api.core import TopologySpreadConstraint
from ...api.evolve import by_identity
from ..framework.interface import (
    ASSIGNED_POD,
    MAX_NODE_SCORE,
    NODE,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Status,
)
from ..framework.node_info import LABEL_HOSTNAME, LABEL_ZONE
from . import names
from .args import ArgsError, as_list, as_mapping
from .helper import go_round, go_round_vec
from .pod_topology_spread_common import (
    Constraint,
    PreFilterState,
    PreScoreState,
    _merge_match_label_keys,
    constraint_score,
    count_pods_match,
    known_counts,
    node_has_keys,
    reversed_score,
    skew_exceeded,
    topology_normalizing_weight,
)

if TYPE_CHECKING:
    import numpy as np

    from ...api.core import Pod
else:
    from ..framework.lazy_numpy import np

NAME = names.POD_TOPOLOGY_SPREAD
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints"
ERR_REASON_NODE_LABEL_NOT_MATCH = ERR_REASON_CONSTRAINTS_NOT_MATCH + " (missing required label)"
DO_NOT_SCHEDULE, SCHEDULE_ANYWAY = "DoNotSchedule", "ScheduleAnyway"
SYSTEM, LIST = "System", "List"

# pkg/scheduler/framework/plugins/podtopologyspread/plugin.go: systemDefaultConstraints.
SYSTEM_DEFAULT_CONSTRAINTS = (
    TopologySpreadConstraint(max_skew=3, topology_key=LABEL_HOSTNAME,
                             when_unsatisfiable=SCHEDULE_ANYWAY),
    TopologySpreadConstraint(max_skew=5, topology_key=LABEL_ZONE,
                             when_unsatisfiable=SCHEDULE_ANYWAY),
)


# known_counts' "count node by node", unpacked like its answer.
_UNKNOWN: Any = (None, None)

class PodTopologySpread:
    name = NAME

    def __init__(self, handle: Any, default_constraints: tuple, system_defaulted: bool) -> None:
        self.handle = handle
        self.default_constraints = default_constraints
        self.system_defaulted = system_defaulted
        # What get_constraints asks of the defaults for every pod, answered once.
        self._default_actions = frozenset(c.when_unsatisfiable for c in default_constraints)
        self._defaults_need_labels = _any_match_label_keys(default_constraints)
        # get_constraints' answers: (action, id(constraints), id(labels or None)) and
        # (action, id(default selector), id(labels or None)) -> (constraints, labels,
        # selector, the parsed list).
        self._constraints: dict[tuple, tuple] = {}
        self._defaults: dict[tuple, tuple] = {}
        # score_vec's tables of rounded scores by matching-pod counts: (weight, maxSkew) per
        # constraint -> the table (see _score_table).
        self._score_tables: dict[tuple, np.ndarray] = {}
        # _score_sources' answers: (id(constraints), id(spec)) -> (constraints, spec, the
        # fast path, its epoch, namespace, the answer).
        self._sources: dict[tuple, tuple] = {}

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(ASSIGNED_POD, ActionType.ADD | ActionType.DELETE
                                                  | ActionType.UPDATE_POD_LABEL)),
                ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD | ActionType.DELETE
                                                  | ActionType.UPDATE_NODE_LABEL
                                                  | ActionType.UPDATE_NODE_TAINT))]

    # -- constraints --
    def _filter_constraints(self, raw: Any, pod: Pod, action: str) -> list[Constraint]:
        labels = pod.metadata.labels
        return [Constraint(c, _merge_match_label_keys(c.label_selector, c.match_label_keys,
                                                      labels))
                for c in raw if c.when_unsatisfiable == action]

    def get_constraints(self, pod: Pod, action: str) -> list[Constraint]:
        """The pod's parsed constraints for ``action`` (its own, else the defaults with the
        default selector). Shared between the pods of a template (read-only): remembered by
        the identity of what they are built from — the constraints tuple, the default
        selector, and the pod's labels when a constraint has matchLabelKeys."""
        raw = pod.spec.topology_spread_constraints
        if raw:
            labels = pod.metadata.labels if _needs_labels(raw) else None
            key: tuple = (action, id(raw), id(labels))
            hit = self._constraints.get(key)
            if hit is not None and hit[0] is raw and hit[1] is labels:
                return hit[3]
            constraints = self._filter_constraints(raw, pod, action)
            return self._remember(key, raw, labels, None, constraints)
        # The defaults apply only with a selector ("pods like this one"): a pod no Service
        # or controller selects gets none, and is answered before any Constraint is built.
        if action not in self._default_actions:
            return []
        selector = self.handle.default_selector(pod)
        if selector is None or selector.empty:
            return []
        raw = self.default_constraints
        labels = pod.metadata.labels if self._defaults_need_labels else None
        key = (action, id(selector), id(labels))
        hit = self._defaults.get(key)
        if hit is not None and hit[1] is labels and hit[2] is selector:
            return hit[3]
        constraints = self._filter_constraints(raw, pod, action)
        for c in constraints:
            c.selector = selector
        return self._remember(key, raw, labels, selector, constraints, self._defaults)

    CONSTRAINTS_KEPT = 512

    def _remember(self, key: tuple, raw: Any, labels: Any, selector: Any,
                  constraints: list[Constraint], memo: dict | None = None) -> list[Constraint]:
        memo = self._constraints if memo is None else memo
        if len(memo) >= self.CONSTRAINTS_KEPT:
            memo.clear()
        # The entry keeps what the key's ids name alive, so no id is reused while it stands.
        memo[key] = (raw, labels, selector, constraints)
        return constraints

    # -- PreFilter / Filter --
    def pre_filter(self, state: Any, pod: Pod, nodes: list):
        constraints = self.get_constraints(pod, DO_NOT_SCHEDULE)
        if not constraints:
            return None, Status.skip()
        s = PreFilterState(constraints)
        ns = pod.metadata.namespace
        known = [known_counts(self.handle, c, ns) or _UNKNOWN for c in constraints]
        for ni in nodes:
            labels = ni.labels
            if not node_has_keys(labels, constraints):
                continue
            at = ni.index
            for i, c in enumerate(constraints):
                if not c.includes_node(pod, ni.node):
                    continue
                v = labels[c.topology_key]
                d = s.value_counts[i]
                infos, col = known[i]
                d[v] = d.get(v, 0) + (col[at] if infos is not None and infos[at] is ni
                                      else count_pods_match(ni, c, ns))
        s.min_paths  # noqa: B018 - build the critical paths now, as upstream's PreFilter does
        state.write(PRE_FILTER_STATE_KEY, s)
        return None, None

    def pre_filter_vec(self, state: Any, pod: Pod, ctx: Any):
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
            key = c.topology_key
            _ids, values, _ = ctx.topology(key)
            incl = ctx.inclusion_mask(pod, c.affinity_honor, c.taints_honor)
            # The nodes with every key that the policies let count, and their domains' pod
            # counts, kept current by the fast path (a copy: the state is this cycle's).
            per = ctx.domain_counts(ns, c.selector, key, incl, keys).copy()
            s.arrays.append((per, ctx.domains_present(key, incl, keys), values))
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

    def add_pod(self, state: Any, pod: Pod, pi: Any, node_info: Any) -> None:
        self._update_with_pod(state, pod, pi, node_info, 1)

    def remove_pod(self, state: Any, pod: Pod, pi: Any, node_info: Any) -> None:
        self._update_with_pod(state, pod, pi, node_info, -1)

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        s = state.read(PRE_FILTER_STATE_KEY)
        labels = node_info.labels
        pod_labels = pod.metadata.labels
        for i, c in enumerate(s.constraints):
            v = labels.get(c.topology_key)
            if v is None:
                return Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH)
            self_match = 1 if c.matches(pod_labels) else 0
            if skew_exceeded(s.value_counts[i].get(v, 0), self_match, s.min_match(i),
                             c.max_skew):
                return Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)
        return None

    def filter_vec(self, state: Any, pod: Pod, ctx: Any):
        s = state.read(PRE_FILTER_STATE_KEY)
        codes = np.zeros(ctx.n, dtype=np.int32)
        decided = np.zeros(ctx.n, dtype=bool)
        pod_labels = pod.metadata.labels
        for i, c in enumerate(s.constraints):
            ids, values, has = ctx.topology(c.topology_key)
            per_value = s.arrays[i][0] if s.arrays is not None else \
                _per_value(ctx, c.topology_key, s.value_counts[i])
            self_match = 1 if c.matches(pod_labels) else 0
            missing = ~has & ~decided
            codes[missing] = 1
            decided |= missing
            bad = skew_exceeded(per_value[ids], self_match, s.min_match(i), c.max_skew) & \
                ~decided
            codes[bad] = 2
            decided |= bad
        return codes, {1: Status.unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH),
                       2: Status.unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH)}

    # -- PreScore / Score --
    def pre_score(self, state: Any, pod: Pod, nodes: list) -> Status | None:
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
        s.known = [known_counts(self.handle, c, ns) for c in constraints]
        # One constraint at a time (sums of ints: the order does not matter). A domain no
        # candidate node is in is not counted — so a constraint without one (the hostname
        # constraint's never are: they are counted per node in Score) walks no node — and
        # the domain is asked before the inclusion policies, which only decide whether to
        # count; a pod they cannot exclude a node for asks them of no node.
        counted: Any = None   # the nodes with every constraint's key, once one is walked
        for i, c in enumerate(constraints):
            counts = s.value_counts[i]
            if not counts:
                continue
            if counted is None:
                counted = [ni for ni in all_nodes if node_has_keys(ni.labels, constraints)] \
                    if require_all else all_nodes
            key = c.topology_key
            every = c.includes_every_node(pod)
            infos, col = s.known[i] or _UNKNOWN
            for ni in counted:
                v = ni.labels.get(key, "")
                if v not in counts or not (every or c.includes_node(pod, ni.node)):
                    continue
                at = ni.index
                counts[v] += col[at] if infos is not None and infos[at] is ni else \
                    count_pods_match(ni, c, ns)
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    def pre_score_vec(self, state: Any, pod: Pod, ctx: Any, idx: np.ndarray) -> Status | None:
        """pre_score over arrays: the same weights and per-domain counts."""
        if len(idx) == 0 or ctx.n == 0:
            return Status.skip()
        constraints = self.get_constraints(pod, SCHEDULE_ANYWAY)
        if not constraints:
            return Status.skip()
        require_all, keys, sources, complete, keyed = self._score_sources(pod, ctx, constraints)
        s = PreScoreState()
        s.constraints = constraints
        s._counts = None
        arrays: list = []
        s.arrays = arrays
        weights = s.weights
        kept = idx
        if require_all:
            bad = ~keys[idx]
            if bad.any():
                s.ignored = {ctx.infos[j].name for j in idx[bad]}
                kept = idx[~bad]
        reads: list = []
        for src in sources:
            if src[0] is None:
                # hostname: Score's per-node counts (the live counter: nothing moves it
                # within a cycle)
                arrays.append(None)
                weights.append(topology_normalizing_weight(len(idx) - len(s.ignored)))
                reads.append(src[1])
                continue
            ids, values, per = src
            at = ctx.gather(ids, idx)   # (static: a view of a run of nodes stays right)
            if kept is idx:
                # (kept by the fast path for a rotation of every node: read-only)
                present, domains = ctx.candidate_domains(ids, len(values), idx)
            else:
                present = np.zeros(len(values), dtype=bool)
                present[ids[kept]] = True
                domains = int(np.count_nonzero(present))
            # Matching pods per domain over the nodes that count (kept current by the fast
            # path, not summed over every node per pod); only the candidates' domains count
            # (zeros elsewhere; a copy: the state is this cycle's).
            per = per.copy() if domains == len(per) else per * present
            arrays.append((per, present, values))
            weights.append(topology_normalizing_weight(domains))
            reads.append(at)
        s.reads = (idx, reads, complete, keyed)
        state.write(PRE_SCORE_STATE_KEY, s)
        return None

    SCORE_SOURCES_KEPT = 512

    def _score_sources(self, pod: Pod, ctx: Any, constraints: list) -> tuple:
        """What pre_score_vec reads for ``constraints`` of a pod of this spec and namespace,
        apart from the candidates: (whether every constraint's key is required, the nodes
        with every key or None, per constraint (None, the live per-node matching counts)
        for hostname or (domain id per node, domain values, the live matching counts per
        domain over the nodes that count) for another key, whether every node has every
        key, and for a hostname constraint with one of another key the fast path's live class
        keys of the two (``class_keys``) or None). The arrays are the fast path's, kept current
        by it: remembered per
        constraints list and spec object (the pods of a template) while the fast path's
        ``epoch`` says it still keeps them current and the nodes' static parts stand."""
        spec = pod.spec
        ns = pod.metadata.namespace
        mkey = (id(constraints), id(spec))
        hit = self._sources.get(mkey)
        if hit is not None and hit[0] is constraints and hit[1] is spec and hit[2] is ctx \
                and hit[3] == ctx.epoch and hit[4] == ns:
            return hit[5]
        epoch = ctx.epoch
        require_all = bool(spec.topology_spread_constraints) or not self.system_defaulted
        # the nodes with every constraint's key: asked only when it matters
        keys = ctx.has_keys(tuple(c.topology_key for c in constraints)) if require_all \
            else None
        sources: list[tuple] = []
        for c in constraints:
            key = c.topology_key
            if key == LABEL_HOSTNAME:
                sources.append((None, ctx.match_counts(ns, c.selector)))
                continue
            ids, values, _ = ctx.topology(key)
            incl = ctx.inclusion_mask(pod, c.affinity_honor, c.taints_honor)
            sources.append((ids, values, ctx.domain_counts(ns, c.selector, key, incl, keys)))
        # (whether every node has every key: asked once per constraints list and node set)
        complete = ctx.static_of(constraints, "every node has every key", lambda: all(
            ctx.topology_complete(c.topology_key) for c in constraints))
        keyed = None
        if len(sources) == 2 and (sources[0][0] is None) != (sources[1][0] is None):
            # hostname and another key: _weighted_by_class's classes, the hostname count high
            h = 0 if sources[0][0] is None else 1
            ids, values = sources[1 - h][0], sources[1 - h][1]
            if constraints[h].selector is not None:
                keyed = ctx.class_keys(ns, constraints[h].selector, ids, len(values))
        out = (require_all, keys, sources, complete, keyed)
        if ctx.epoch != epoch:
            # Asking made a counter or domain sums that dropped others, maybe one asked for
            # above: right for this cycle (nothing moves within it), not to be kept.
            return out
        if len(self._sources) >= self.SCORE_SOURCES_KEPT:
            self._sources.clear()
        # The entry holds the constraints and the spec, so their ids are not reused while
        # it stands.
        self._sources[mkey] = (constraints, spec, ctx, epoch, ns, out)
        return out

    def score(self, state: Any, pod: Pod, node_info: Any) -> int:
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
                known = s.known[i] if s.known is not None else None
                at = node_info.index
                cnt = known[1][at] if known is not None and known[0][at] is node_info else \
                    count_pods_match(node_info, c, pod.metadata.namespace)
            else:
                cnt = s.value_counts[i][v]
            total += constraint_score(cnt, s.weights[i], c.max_skew)
        return go_round(total)

    def normalize_score(self, state: Any, pod: Pod, scores: list[int], nodes: list) -> None:
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
                scores[k] = reversed_score(sc, lo, hi)

    def score_vec(self, state: Any, pod: Pod, ctx: Any, idx: np.ndarray) -> np.ndarray:
        s = state.read(PRE_SCORE_STATE_KEY)
        total = None
        ns = pod.metadata.namespace
        # pre_score_vec's reads for these very nodes, else read here
        reads = s.reads[1] if s.reads is not None and s.reads[0] is idx else None
        if reads is not None and s.reads[2] and not s.ignored and len(reads) in (1, 2):
            # Every candidate has every key (no contribution is left out): a score is the
            # rounded sum of at most two contributions, each a function of one count.
            out = self._scores_by_count(s, reads, idx)
            if out is not None:
                return out
        for i, c in enumerate(s.constraints):
            key = c.topology_key
            if key == LABEL_HOSTNAME:
                counts = reads[i] if reads is not None else ctx.match_counts(ns, c.selector)
                contrib = constraint_score(counts[idx], s.weights[i], c.max_skew)
            else:
                per = s.arrays[i][0] if s.arrays is not None else \
                    _per_value(ctx, key, s.value_counts[i])
                at = reads[i] if reads is not None else ctx.topology(key)[0][idx]
                # Scored once per domain, then gathered per node (the same numbers).
                contrib = constraint_score(per, s.weights[i], c.max_skew)[at]
            if not ctx.topology_complete(key):
                contrib = np.where(ctx.topology(key)[2][idx], contrib, 0.0)
            # The first sum is 0.0 + contrib: contrib itself (no contribution is -0.0).
            total = contrib if total is None else total + contrib
        if total is None:
            total = np.zeros(len(idx), dtype=np.float64)
        out = go_round_vec(total)
        if s.ignored:
            out[ctx.name_mask(s.ignored)[idx]] = 0
        return out

    MAX_SCORE_TABLE = 1 << 16   # entries (512 kB); past it the sums are made per node
    SCORE_TABLES_KEPT = 16

    def _scores_by_count(self, s: Any, reads: list, idx: np.ndarray) -> np.ndarray | None:
        """score_vec's scores read from a table, or None when the table would be too big.

        Each constraint's contribution is ``constraint_score(count, weight, maxSkew)`` of
        one count — the node's matching pods (hostname) or its domain's — and the score the
        rounded sum of the contributions in constraint order. So one table, indexed by the
        counts, holds the score of every pair of counts up to the largest seen (see
        ``_score_table``). A node's score is then one lookup: not a product, two sums and a
        rounding per node for every pod."""
        constraints = s.constraints
        counts = [reads[i][idx] if c.topology_key == LABEL_HOSTNAME else s.arrays[i][0][reads[i]]
                  for i, c in enumerate(constraints)]
        key = tuple((s.weights[i], c.max_skew) for i, c in enumerate(constraints))
        table = self._score_tables.get(key)
        if table is not None:
            try:
                return table[counts[0]] if len(counts) == 1 else table[counts[0], counts[1]]
            except IndexError:   # a count past the table's end (counts are never negative)
                pass
        table = self._score_table(key, [int(k.max()) for k in counts])
        if table is None:
            return None
        return table[counts[0]] if len(counts) == 1 else table[counts[0], counts[1]]

    def _score_table(self, key: tuple, largest: list[int]) -> np.ndarray | None:
        """The table of rounded scores for the (weight, maxSkew) of each constraint (``key``)
        with room for the counts ``largest`` (per constraint), or None when it would be too
        big. Made by the same rule functions over the counts 0..K (the same float operations
        on the same numbers as per node), kept for the weights and skews it was made for (the
        pods of a template, while the number of candidate domains stays), and grown when a
        count passes its end."""
        table = self._score_tables.get(key)
        if table is not None and all(k < n for k, n in zip(largest, table.shape)):
            return table
        # Room to grow (a count rises by one per pod of the template placed), and no less
        # than the table had along any count, while it stays within bounds.
        sizes = [2 * k + 2 for k in largest]
        if table is not None:
            grown = [max(a, b) for a, b in zip(sizes, table.shape)]
            if math.prod(grown) <= self.MAX_SCORE_TABLE:
                sizes = grown
        if math.prod(sizes) > self.MAX_SCORE_TABLE:
            return None
        parts = [constraint_score(np.arange(n, dtype=np.int64), w, skew)
                 for n, (w, skew) in zip(sizes, key)]
        total = parts[0] if len(parts) == 1 else parts[0][:, None] + parts[1][None, :]
        table = go_round_vec(total)
        self._score_tables.pop(key, None)
        if len(self._score_tables) >= self.SCORE_TABLES_KEPT:
            self._score_tables.pop(next(iter(self._score_tables)))
        self._score_tables[key] = table
        return table

    def weighted_score_vec(self, state: Any, pod: Pod, ctx: Any, idx: np.ndarray,
                           weight: int, offset: int = 0) -> np.ndarray | None:
        """``weight * normalize_vec(score_vec(...)) + offset`` for the candidates ``idx`` as
        a new array, or None: then the caller runs the two (the scheduler's own cycle asks
        this when no one reads the per-plugin scores; explain reads them from the two).
        ``offset``: a number the caller adds to every candidate (its constant scores), added
        to the few classes' scores instead of by an array operation."""
        s = state.read(PRE_SCORE_STATE_KEY)
        reads = s.reads
        if reads is None or reads[0] is not idx or not reads[2] or s.ignored or \
                len(reads[1]) not in (1, 2):
            return None
        return self._weighted_by_class(s, reads[1], idx, weight, ctx.gather, reads[3], offset)

    def _weighted_by_class(self, s: Any, reads: list, idx: np.ndarray, weight: int,
                           gather: Any = None, keyed: Any = None,
                           offset: int = 0) -> np.ndarray | None:
        """Score and NormalizeScore over classes of candidates instead of per candidate.

        A candidate's score is a function of its counts (one per constraint: the node's own
        matching pods for hostname, its domain's for another key), so candidates with the
        same counts score alike. Each candidate gets a class number standing for its counts
        (the hostname count and the domain id, or two domain ids, as one integer), the few
        classes present are scored in Python by the same table and the same
        ``reversed_score`` as per candidate (the minimum and maximum over the candidates are
        those over the classes present), and every candidate reads its class's weighted
        score: a handful of array operations instead of gathers of each count, a 2-D lookup,
        a minimum, a maximum and the normalization over every candidate. ``keyed``: for a
        hostname constraint with one of another key, the fast path's per-node class keys
        (``class_keys``: the same numbers), gathered instead of made per pod."""
        constraints = s.constraints
        weights = s.weights
        c0 = constraints[0]
        # a node's count of the candidates: ``values[idx]`` (the fast path's gather: one
        # slice for a run of nodes)
        if gather is None:
            gather = _take
        host0 = c0.topology_key == LABEL_HOSTNAME
        # Per class present, its counts in constraint order, and the largest count of each
        # constraint (the table's room): one pass over the classes, no per-class calls.
        counts: list[tuple]
        if len(constraints) == 1:
            # One constraint: the class is the hostname count itself, or the domain id.
            key = gather(reads[0], idx) if host0 else reads[0]
            present = np.bincount(key).nonzero()[0].tolist()
            if host0:
                counts = [(k,) for k in present]
                largest = [present[-1]]
            else:
                per = s.arrays[0][0].tolist()
                counts = [(per[k],) for k in present]
                largest = [max(per[k] for k in present)]
            tkey: tuple = ((weights[0], c0.max_skew),)
        else:
            # Two: the class is high * (domains of the low one) + the low one's domain id,
            # the low one a domain constraint (a domain id has a bound, a count has none).
            c1 = constraints[1]
            if c1.topology_key == LABEL_HOSTNAME:
                if host0:
                    return None
                lo_i, hi_i, host_hi = 0, 1, True
            else:
                lo_i, hi_i, host_hi = 1, 0, host0
            low_per = s.arrays[lo_i][0]
            low = len(low_per)
            if host_hi and keyed is not None:
                key = gather(keyed, idx)
            else:
                key = (gather(reads[hi_i], idx) if host_hi else reads[hi_i]) * low
                key += reads[lo_i]
            present = np.bincount(key).nonzero()[0].tolist()
            lows = low_per.tolist()
            highs = None if host_hi else s.arrays[hi_i][0].tolist()
            counts = []
            append = counts.append
            m_lo = m_hi = 0
            for k in present:
                h, d = divmod(k, low)
                a = h if highs is None else highs[h]
                b = lows[d]
                if a > m_hi:
                    m_hi = a
                if b > m_lo:
                    m_lo = b
                append((b, a) if lo_i == 0 else (a, b))
            largest = [m_lo, m_hi] if lo_i == 0 else [m_hi, m_lo]
            tkey = ((weights[0], c0.max_skew), (weights[1], c1.max_skew))
        table = self._score_tables.get(tkey)
        if table is None or largest[0] >= table.shape[0] or \
                (len(largest) == 2 and largest[1] >= table.shape[1]):
            table = self._score_table(tkey, largest)
            if table is None:
                return None
        item = table.item
        raw = [item(*cnt) for cnt in counts]
        lo, hi = min(raw), max(raw)
        lookup = [0] * (present[-1] + 1)
        if hi <= 0:   # max(max, 0) == 0: every candidate scores MAX_NODE_SCORE
            full = weight * MAX_NODE_SCORE + offset
            for k in present:
                lookup[k] = full
        else:
            # reversed_score(r, lo, hi) per class, inline (the same integer arithmetic)
            top = hi + lo
            for k, r in zip(present, raw):
                lookup[k] = weight * (MAX_NODE_SCORE * (top - r) // hi) + offset
        return np.array(lookup, dtype=np.int64)[key]

    def normalize_vec(self, state: Any, pod: Pod, scores: np.ndarray, ctx: Any,
                      idx: np.ndarray) -> np.ndarray:
        s = state.get(PRE_SCORE_STATE_KEY)
        if s is None:
            return scores
        if s.ignored:
            ign = ctx.name_mask(s.ignored)[idx]
            keep = ~ign
            if not keep.any():
                return np.zeros(len(scores), dtype=np.int64)
            kept = scores[keep]
        else:
            ign = None
            kept = scores          # every node counts (no mask, no copies)
            if not len(kept):
                return np.zeros(0, dtype=np.int64)
        lo = int(kept.min())
        hi = int(max(kept.max(), 0))
        if hi == 0:
            out = np.full(len(scores), MAX_NODE_SCORE, dtype=np.int64)
        else:
            out = reversed_score(scores, lo, hi)
        if ign is not None:
            out[ign] = 0
        return out


def _take(values: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return values[idx]


def _needs_labels(raw: Any) -> bool:
    """Whether any constraint's selector takes values from the pod's labels (matchLabelKeys)."""
    return by_identity(_any_match_label_keys, raw)


def _any_match_label_keys(raw: Any) -> bool:
    return any(c.match_label_keys for c in raw)


def _per_value(ctx: Any, key: str, value_counts: dict[str, int]) -> np.ndarray:
    """A dict of counts per domain value (a state preemption has edited) as the fast path's
    array over the topology's value ids."""
    _ids, values, _has = ctx.topology(key)
    per_value = np.zeros(len(values), dtype=np.int64)
    for v, num in value_counts.items():
        j = ctx.topology_value_id(key, v)
        if j is not None:
            per_value[j] = num
    return per_value


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
