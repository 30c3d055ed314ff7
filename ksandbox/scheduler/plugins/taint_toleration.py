"""TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints score.

Upstream ``plugins/tainttoleration/taint_toleration.go``. The filter fails on the first taint
with effect NoSchedule or NoExecute that no toleration tolerates; the reason is upstream's
current generic ``node(s) had untolerated taint(s)`` (v1.35), and the status ``detail`` names
the taint as older releases printed it (``{dedicated: gpu}``) for explain's wide form. The
score counts PreferNoSchedule taints the pod does not tolerate (only its tolerations with
effect PreferNoSchedule or empty count), normalized in reverse: fewer is better.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...api.taints import (
    NO_EXECUTE,
    NO_SCHEDULE,
    PREFER_NO_SCHEDULE,
    find_untolerated_taint,
    tolerations_tolerate_taint,
)
from ..framework.interface import (
    MAX_NODE_SCORE,
    NODE,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
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

NAME = names.TAINT_TOLERATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_NOT_MATCH = "node(s) had untolerated taint(s)"
_DO_NOT_SCHEDULE = (NO_SCHEDULE, NO_EXECUTE)


def untolerated_reason(taint: Any) -> str:
    """The older per-taint wording: ``node(s) had untolerated taint {key: value}``."""
    return f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}"


def _prefer_no_schedule_tolerations(pod: Pod) -> tuple:
    return tuple(t for t in pod.spec.tolerations
                 if not t.effect or t.effect == PREFER_NO_SCHEDULE)


def count_intolerable_prefer_no_schedule(taints: Any, tolerations: tuple) -> int:
    return sum(1 for t in taints if t.effect == PREFER_NO_SCHEDULE
               and not tolerations_tolerate_taint(tolerations, t))


class TaintToleration:
    name = NAME
    filter_reads_one_node = True   # its verdicts may come from its column: explain._column_passes
    # filter_vec reads only the pod's spec and the nodes' static parts: the fast path asks it
    # once per spec object while those stand when it lets every node pass (FastPath._filter)
    filter_vec_static = True
    # Its scalar filter names the taint (Status.detail); explain asks for it per failing node.
    has_detail = True

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(
            ClusterEvent(NODE, ActionType.ADD | ActionType.UPDATE_NODE_TAINT), self._hint)]

    def _hint(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Queue when the node went from untolerated (or absent) to tolerated."""
        tol = pod.spec.tolerations
        was = old is None or find_untolerated_taint(old.spec.taints, tol, _DO_NOT_SCHEDULE)
        now = find_untolerated_taint(new.spec.taints, tol, _DO_NOT_SCHEDULE)
        return QueueingHint.QUEUE if was and now is None else QueueingHint.QUEUE_SKIP

    # -- Filter --
    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        taint = find_untolerated_taint(node_info.node.spec.taints, pod.spec.tolerations,
                                       _DO_NOT_SCHEDULE)
        if taint is None:
            return None
        return Status.unresolvable(ERR_REASON_NOT_MATCH, detail=untolerated_reason(taint))

    def filter_vec(self, state: Any, pod: Pod, ctx: Any):
        tol = pod.spec.tolerations

        def compute() -> tuple[np.ndarray, bool]:
            out = np.zeros(ctx.n, dtype=np.int32)
            for i, ni in enumerate(ctx.infos):
                taints = ni.node.spec.taints
                if taints and find_untolerated_taint(taints, tol, _DO_NOT_SCHEDULE) is not None:
                    out[i] = 1
            # and whether any node has a taint these tolerations miss (as static as the
            # codes): when none, no failure, without every pod comparing 5,000 zero codes
            return out, bool(out.any())

        codes, failing = ctx.static_of(tol, (NAME, "filter"), compute)
        if not failing:
            return None
        return codes, {1: Status.unresolvable(ERR_REASON_NOT_MATCH)}

    # -- PreScore / Score --
    def spec_only(self, pod: Pod) -> tuple[str, ...]:
        """PreScore reads only the pod's tolerations (pod_plan.py)."""
        return ("pre_score",)

    def pre_score(self, state: Any, pod: Pod, nodes: list) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY, _prefer_no_schedule_tolerations(pod))
        return None

    def score(self, state: Any, pod: Pod, node_info: Any) -> int:
        tolerations = state.read(PRE_SCORE_STATE_KEY)
        return count_intolerable_prefer_no_schedule(node_info.node.spec.taints, tolerations)

    def normalize_score(self, state: Any, pod: Pod, scores: list[int], nodes: list) -> None:
        default_normalize_score(MAX_NODE_SCORE, True, scores)

    def _counts(self, ctx: Any, tolerations: Any) -> tuple[np.ndarray, bool]:
        """Every node's intolerable PreferNoSchedule taints, and whether there are none at
        all (the usual cluster): both as static as the nodes' taints, kept as one entry
        (Score and NormalizeScore each ask, for every pod)."""
        return ctx.static((NAME, "score", tolerations), lambda: _with_none(np.array(
            [count_intolerable_prefer_no_schedule(ni.node.spec.taints, tolerations)
             for ni in ctx.infos], dtype=np.int64)))

    def score_vec(self, state: Any, pod: Pod, ctx: Any, idx: np.ndarray) -> np.ndarray:
        full, none = self._counts(ctx, state.read(PRE_SCORE_STATE_KEY))
        return _constant(ctx, 0, len(idx)) if none else ctx.gather(full, idx)

    def constant_score(self, state: Any, pod: Pod, ctx: Any) -> int | None:
        """The normalized score of every node when it is one number, else None: with no
        PreferNoSchedule taint the pod minds on any node, every score is 0 and normalizes to
        the maximum (what normalize_vec returns then)."""
        return MAX_NODE_SCORE if self._counts(ctx, state.read(PRE_SCORE_STATE_KEY))[1] else None

    def normalize_vec(self, state: Any, pod: Pod, scores: np.ndarray, ctx: Any,
                      idx: np.ndarray) -> np.ndarray:
        if self._counts(ctx, state.read(PRE_SCORE_STATE_KEY))[1]:
            # Every score is 0: what default_normalize_vec gives for them, without the scan.
            return _constant(ctx, MAX_NODE_SCORE, len(scores))
        return default_normalize_vec(MAX_NODE_SCORE, True, scores)


def _with_none(full: np.ndarray) -> tuple[np.ndarray, bool]:
    return full, not full.any()


def _constant(ctx: Any, value: int, length: int) -> np.ndarray:
    """``length`` scores of ``value``: a read-only view of one array kept per node list (not
    a new array per pod)."""
    def compute() -> np.ndarray:
        a = np.full(ctx.n, value, dtype=np.int64)
        a.flags.writeable = False
        return a
    return ctx.static((NAME, "constant", value), compute)[:length]


def new(args: Any, handle: Any) -> TaintToleration:
    return TaintToleration()
