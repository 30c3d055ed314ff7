"""NodeAffinity: nodeSelector and required node affinity filter; preferred terms score.

Upstream ``plugins/nodeaffinity/node_affinity.go`` and component-helpers'
``scheduling/corev1/nodeaffinity``: the pod's ``nodeSelector`` (every label equal) AND its
required terms (ORed; within a term every expression and field ANDed; an empty term selects
nothing; a term that does not parse selects nothing). ``matchFields`` knows ``metadata.name``
with In/NotIn and one value. PreFilter narrows the nodes to those named by ``metadata.name``
In-fields when every term has one. The score sums the weights of matching preferred terms,
normalized so the best node gets 100. ``addedAffinity`` (plugin args) applies to every pod.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...api.node_affinity import (  # noqa: F401 - re-exported: the plugin's helpers
    OBJECT_NAME_FIELD,
    node_selector_matches,
    preferred_score,
    required_node_affinity_matches,
    term_is_empty,
    term_matches,
)
from ...api.selectors import IN
from ..framework.interface import (
    MAX_NODE_SCORE,
    NODE,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    PreFilterResult,
    QueueingHint,
    Status,
)
from . import names
from .helper import default_normalize_score, default_normalize_vec

if TYPE_CHECKING:
    import numpy as np

    from ...api.core import Pod
else:
    from ..framework.lazy_numpy import np

NAME = names.NODE_AFFINITY
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
ERR_REASON_CONFLICT = "pod affinity terms conflict"


def _required(pod: Pod) -> Any:
    aff = pod.spec.affinity
    if aff is None or aff.node_affinity is None:
        return None
    return aff.node_affinity.required


def _preferred(pod: Pod) -> tuple:
    aff = pod.spec.affinity
    if aff is None or aff.node_affinity is None:
        return ()
    return aff.node_affinity.preferred


class NodeAffinity:
    name = NAME
    filter_reads_one_node = True   # its verdicts may come from its column: explain._column_passes

    def __init__(self, added_required: Any = None, added_preferred: tuple = ()) -> None:
        self.added_required = added_required
        self.added_preferred = added_preferred

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(
            ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL), self._hint)]

    def _hint(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        if self.added_required is not None and not node_selector_matches(self.added_required, new):
            return QueueingHint.QUEUE_SKIP
        if not required_node_affinity_matches(pod, new):
            return QueueingHint.QUEUE_SKIP
        if old is not None and required_node_affinity_matches(pod, old) and (
                self.added_required is None or node_selector_matches(self.added_required, old)):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def spec_only(self, pod: Pod) -> tuple[str, ...]:
        """PreFilter and PreScore read only the pod's node selector and affinity, and this
        plugin's added affinity (pod_plan.py)."""
        return ("pre_filter", "pre_score")

    # -- PreFilter / Filter --
    def pre_filter(self, state: Any, pod: Pod, nodes: list):
        req = _required(pod)
        if req is None and self.added_required is None and not pod.spec.node_selector:
            return None, Status.skip()
        if req is None or self.added_required is not None:
            return None, None
        node_names: set[str] | None = None
        for term in req.node_selector_terms:
            term_names: set[str] | None = None
            for r in term.match_fields:
                if r.key == OBJECT_NAME_FIELD and r.operator == IN:
                    s = set(r.values)
                    term_names = s if term_names is None else term_names & s
            if term_names is None:
                return None, None  # a term without a name restriction: every node may do
            node_names = term_names if node_names is None else node_names | term_names
        if node_names is not None and not node_names:
            return None, Status.unresolvable(ERR_REASON_CONFLICT)
        if node_names:
            return PreFilterResult(node_names), None
        return None, None

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        node = node_info.node
        if self.added_required is not None and not node_selector_matches(self.added_required,
                                                                         node):
            return Status.unresolvable(ERR_REASON_ENFORCED)
        if not required_node_affinity_matches(pod, node):
            return Status.unresolvable(ERR_REASON_POD)
        return None

    def filter_vec(self, state: Any, pod: Pod, ctx: Any):
        key = (NAME, "filter", pod.spec.node_selector, _required(pod))

        def compute() -> np.ndarray:
            out = np.zeros(ctx.n, dtype=np.int32)
            for i, ni in enumerate(ctx.infos):
                st = self.filter(state, pod, ni)
                if st is not None:
                    out[i] = 1 if st.reasons[0] == ERR_REASON_ENFORCED else 2
            return out

        codes = ctx.static(key, compute)
        return codes, {1: Status.unresolvable(ERR_REASON_ENFORCED),
                       2: Status.unresolvable(ERR_REASON_POD)}

    # -- PreScore / Score --
    def pre_score(self, state: Any, pod: Pod, nodes: list) -> Status | None:
        preferred = _preferred(pod)
        if not preferred and not self.added_preferred:
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, preferred)
        return None

    def score(self, state: Any, pod: Pod, node_info: Any) -> int:
        count = preferred_score(self.added_preferred, node_info.node) if self.added_preferred else 0
        return count + preferred_score(state.read(PRE_SCORE_STATE_KEY), node_info.node)

    def normalize_score(self, state: Any, pod: Pod, scores: list[int], nodes: list) -> None:
        default_normalize_score(MAX_NODE_SCORE, False, scores)

    def score_vec(self, state: Any, pod: Pod, ctx: Any, idx: np.ndarray) -> np.ndarray:
        preferred = state.read(PRE_SCORE_STATE_KEY)
        full = ctx.static((NAME, "score", preferred), lambda: np.array(
            [self.score(state, pod, ni) for ni in ctx.infos], dtype=np.int64))
        return ctx.gather(full, idx)

    def normalize_vec(self, state: Any, pod: Pod, scores: np.ndarray, ctx: Any,
                      idx: np.ndarray) -> np.ndarray:
        return default_normalize_vec(MAX_NODE_SCORE, False, scores)


def new(args: Any, handle: Any) -> NodeAffinity:
    """NodeAffinityArgs: ``addedAffinity`` (a NodeAffinity applied to every pod)."""
    added = (args or {}).get("addedAffinity")
    if not added:
        return NodeAffinity()
    from ...api.codec import decode
    from ...api.core import NodeAffinity as NodeAffinityType

    na = decode(NodeAffinityType, added, "addedAffinity")
    return NodeAffinity(na.required, na.preferred)
