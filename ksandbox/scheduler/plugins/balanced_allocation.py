"""NodeResourcesBalancedAllocation: prefer nodes whose resources would be used evenly.

Upstream ``plugins/noderesources/balanced_allocation.go``: score = (1 - std) * 100 of the
requested/allocatable fractions (capped at 1) over the configured resources, with the pod's
real requests (not the non-zero defaults). A best-effort pod (no requests at all) skips the
plugin, so many such pods do not pile onto one node (kubernetes#129138).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..framework.interface import Status
from . import names
from .args import as_mapping
from .node_resources_fit import _pod_info, parse_resources
from .resource_allocation import BALANCED, Scorer, pod_request_list

if TYPE_CHECKING:
    import numpy as np

    from ...api.core import Pod
else:
    from ..framework.lazy_numpy import np

NAME = names.NODE_RESOURCES_BALANCED_ALLOCATION
PRE_SCORE_STATE_KEY = "PreScore" + NAME


class BalancedAllocation:
    name = NAME

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer

    def spec_only(self, pod: Pod) -> tuple[str, ...]:
        """PreScore reads only the pod's requests (pod_plan.py)."""
        return ("pre_score",)

    def pre_score(self, state: Any, pod: Pod, nodes: list) -> Status | None:
        requests = pod_request_list(_pod_info(state, pod), self.scorer.resources, True)
        if not any(requests):
            return Status.skip()
        state.write(PRE_SCORE_STATE_KEY, requests)
        return None

    def score(self, state: Any, pod: Pod, node_info: Any) -> int:
        return self.scorer.score(node_info, state.read(PRE_SCORE_STATE_KEY))

    def score_vec(self, state: Any, pod: Pod, ctx: Any, idx: np.ndarray) -> np.ndarray:
        return ctx.gather(self.scorer.column(ctx, state.read(PRE_SCORE_STATE_KEY)), idx)


def new(args: Any, handle: Any) -> BalancedAllocation:
    """NodeResourcesBalancedAllocationArgs: ``resources`` (default cpu and memory)."""
    args = as_mapping(args or {}, "args")
    resources = parse_resources(args.get("resources"), "resources")
    return BalancedAllocation(Scorer(BALANCED, resources, use_requested=True))
