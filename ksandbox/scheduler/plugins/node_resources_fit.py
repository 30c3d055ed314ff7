"""NodeResourcesFit: the pod's requests must fit the node's allocatable; score by strategy.

Upstream ``plugins/noderesources/fit.go``. Requests are the pod's effective requests (sum of
containers, raised to the largest init container, sidecars and overhead included); the node
must have room for each requested resource and for one more pod. Every failing resource is a
reason (``Too many pods``, ``Insufficient cpu``, ``Insufficient nvidia.com/gpu``, ...).
Extended resources listed in ``ignoredResources`` (or whose group is in
``ignoredResourceGroups``) are not checked. Scoring: LeastAllocated (default),
MostAllocated or RequestedToCapacityRatio over ``scoringStrategy.resources``.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from ..framework.interface import (
    ASSIGNED_POD,
    NODE,
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    QueueingHint,
    Status,
)
from ..framework.node_info import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, PodInfo
from . import names
from .args import ArgsError, as_int, as_list, as_mapping
from .resource_allocation import (
    DEFAULT_RESOURCES,
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    REQUESTED_TO_CAPACITY_RATIO,
    ResourceSpec,
    Scorer,
    pod_request_list,
    scaled_shape,
)

if TYPE_CHECKING:
    import numpy as np

    from ...api.core import Pod
else:
    from ..framework.lazy_numpy import np

NAME = names.NODE_RESOURCES_FIT
PRE_FILTER_STATE_KEY = "PreFilter" + NAME
PRE_SCORE_STATE_KEY = "PreScore" + NAME
ERR_REASON_TOO_MANY_PODS = "Too many pods"
SPEC_ONLY = ("pre_filter", "pre_score")


def insufficient(name: str) -> str:
    return f"Insufficient {name}"


def is_extended_resource(name: str) -> bool:
    """v1helper.IsExtendedResourceName: domain-qualified, outside kubernetes.io."""
    return "/" in name and not name.startswith("kubernetes.io/") and \
        not name.startswith("requests.")


class Fit:
    name = NAME
    filter_reads_one_node = True   # its verdicts may come from its column: explain._column_passes

    def __init__(self, scorer: Scorer, ignored: frozenset = frozenset(),
                 ignored_groups: frozenset = frozenset()) -> None:
        self.scorer = scorer
        self.ignored = ignored
        self.ignored_groups = ignored_groups

    def events_to_register(self) -> list[ClusterEventWithHint]:
        return [ClusterEventWithHint(ClusterEvent(ASSIGNED_POD, ActionType.DELETE)),
                ClusterEventWithHint(ClusterEvent(NODE, ActionType.ADD
                                                  | ActionType.UPDATE_NODE_ALLOCATABLE),
                                     self._node_hint)]

    def _node_hint(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """Queue when the node is new or gained allocatable the pod asks for."""
        if old is None:
            return QueueingHint.QUEUE
        req = pod.spec.requests
        oa, na = old.allocatable_amounts, new.allocatable_amounts
        if na.get(PODS, 0) > oa.get(PODS, 0):
            return QueueingHint.QUEUE
        for name, v in req.items():
            if v > 0 and na.get(name, 0) > oa.get(name, 0):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def _checked_scalars(self, requests: Any) -> list[tuple[str, int]]:
        out = []
        for name in sorted(requests):
            v = requests[name]
            if name in (CPU, MEMORY, EPHEMERAL_STORAGE, PODS) or v == 0:
                continue
            if is_extended_resource(name) and (
                    name in self.ignored or name.split("/")[0] in self.ignored_groups):
                continue
            out.append((name, v))
        return out

    def spec_only(self, pod: Pod) -> tuple[str, ...]:
        """PreFilter and PreScore read only the pod's requests (pod_plan.py)."""
        return SPEC_ONLY

    # -- PreFilter / Filter --
    def pre_filter(self, state: Any, pod: Pod, nodes: list):
        req = pod.spec.requests
        state.write(PRE_FILTER_STATE_KEY, (req.get(CPU, 0), req.get(MEMORY, 0),
                                           req.get(EPHEMERAL_STORAGE, 0),
                                           self._checked_scalars(req)))
        return None, None

    def _request(self, state: Any, pod: Pod) -> tuple:
        s = state.get(PRE_FILTER_STATE_KEY)
        if s is None:
            req = pod.spec.requests
            s = (req.get(CPU, 0), req.get(MEMORY, 0), req.get(EPHEMERAL_STORAGE, 0),
                 self._checked_scalars(req))
        return s

    def filter(self, state: Any, pod: Pod, node_info: Any) -> Status | None:
        # The PreFilter state read inline: explain runs this once per node of the cluster.
        s = state.get(PRE_FILTER_STATE_KEY)
        reasons = fits_request(s if s is not None else self._request(state, pod), node_info)
        if reasons:
            return Status.unschedulable(*reasons)
        return None

    def filter_vec(self, state: Any, pod: Pod, ctx: Any):
        request = self._request(state, pod)
        cpu, mem, eph, scalars = request
        key = (self, cpu, mem, eph, tuple(scalars))
        table = ctx.table
        # (the column kept for this request: its compute and one were made for an equal one)
        got = table.current_verdicts(key)
        codes, failing = got if got is not None else table.verdicts(
            key, lambda rows: self._codes(table, rows, request), partial(fit_code, request))
        if not failing:
            return None   # the pod fits every node (as codes of zeros, without the scan)
        return codes, _FitStatuses(scalars)

    def _codes(self, t: Any, rows: np.ndarray, request: tuple) -> np.ndarray:
        """The verdict bits of the nodes ``rows`` (too many pods, then each insufficient
        resource), from the table's totals of those rows only."""
        cpu, mem, eph, scalars = request
        npods, alloc_pods = t.npods[rows], t.alloc_pods[rows]
        codes = (npods + 1 > alloc_pods).astype(np.int32)
        if cpu or mem or eph or scalars:
            if cpu > 0:
                codes |= (cpu > t.alloc_cpu[rows] - t.req_cpu[rows]).astype(np.int32) << 1
            if mem > 0:
                codes |= (mem > t.alloc_mem[rows] - t.req_mem[rows]).astype(np.int32) << 2
            if eph > 0:
                codes |= (eph > t.alloc_eph[rows] - t.req_eph[rows]).astype(np.int32) << 3
            for j, (name, v) in enumerate(scalars):
                free = t.scalar_alloc(name)[rows] - t.scalar_req(name)[rows]
                codes |= (v > free).astype(np.int32) << (4 + j)
        return codes

    # -- PreScore / Score --
    def pre_score(self, state: Any, pod: Pod, nodes: list) -> Status | None:
        state.write(PRE_SCORE_STATE_KEY, pod_request_list(
            _pod_info(state, pod), self.scorer.resources, self.scorer.use_requested))
        return None

    def score(self, state: Any, pod: Pod, node_info: Any) -> int:
        return self.scorer.score(node_info, state.read(PRE_SCORE_STATE_KEY))

    def score_vec(self, state: Any, pod: Pod, ctx: Any, idx: np.ndarray) -> np.ndarray:
        return ctx.gather(self.scorer.column(ctx, state.read(PRE_SCORE_STATE_KEY)), idx)


def _pod_info(state: Any, pod: Pod) -> PodInfo:
    pi = state.get("PodInfo")
    return pi if pi is not None and pi.pod is pod else PodInfo(pod)


def fits_request(request: tuple, ni: Any) -> list[str]:
    """fitsRequest: every reason the node cannot take the pod, in upstream's order."""
    cpu, mem, eph, scalars = request
    reasons = []
    if len(ni.pods) + 1 > ni.alloc_pods:
        reasons.append(ERR_REASON_TOO_MANY_PODS)
    if not (cpu or mem or eph or scalars):
        return reasons
    if cpu > 0 and cpu > ni.alloc_cpu - ni.req_cpu:
        reasons.append(insufficient(CPU))
    if mem > 0 and mem > ni.alloc_mem - ni.req_mem:
        reasons.append(insufficient(MEMORY))
    if eph > 0 and eph > ni.alloc_eph - ni.req_eph:
        reasons.append(insufficient(EPHEMERAL_STORAGE))
    for name, v in scalars:
        if v > ni.alloc_scalar.get(name, 0) - ni.req_scalar.get(name, 0):
            reasons.append(insufficient(name))
    return reasons


def fit_code(request: tuple, ni: Any) -> int:
    """fits_request as the reason bits ``filter_vec`` gives (1 too many pods, 2 cpu, 4 memory,
    8 ephemeral storage, 16 << j the j-th checked extended resource) for one node."""
    cpu, mem, eph, scalars = request
    code = 1 if len(ni.pods) + 1 > ni.alloc_pods else 0
    if not (cpu or mem or eph or scalars):
        return code
    if cpu > 0 and cpu > ni.alloc_cpu - ni.req_cpu:
        code |= 2
    if mem > 0 and mem > ni.alloc_mem - ni.req_mem:
        code |= 4
    if eph > 0 and eph > ni.alloc_eph - ni.req_eph:
        code |= 8
    for j, (name, v) in enumerate(scalars):
        if v > ni.alloc_scalar.get(name, 0) - ni.req_scalar.get(name, 0):
            code |= 1 << (4 + j)
    return code


class _FitStatuses:
    """Maps a reason bitmask from ``filter_vec`` to its Status (built on demand)."""

    def __init__(self, scalars: list) -> None:
        self.scalars = scalars
        self._memo: dict[int, Status] = {}

    def __getitem__(self, code: int) -> Status:
        st = self._memo.get(code)
        if st is None:
            reasons = []
            for bit, reason in ((1, ERR_REASON_TOO_MANY_PODS), (2, insufficient(CPU)),
                                (4, insufficient(MEMORY)), (8, insufficient(EPHEMERAL_STORAGE))):
                if code & bit:
                    reasons.append(reason)
            for j, (name, _) in enumerate(self.scalars):
                if code & (1 << (4 + j)):
                    reasons.append(insufficient(name))
            st = self._memo[code] = Status.unschedulable(*reasons)
        return st


def parse_resources(raw: Any, path: str, default: tuple = DEFAULT_RESOURCES) -> tuple:
    if raw is None:
        return default
    out = []
    for i, item in enumerate(as_list(raw, path)):
        p = f"{path}[{i}]"
        m = as_mapping(item, p)
        name = m.get("name")
        if not isinstance(name, str) or not name:
            raise ArgsError(f"{p}.name", "Required value")
        weight = as_int(m.get("weight", 1), f"{p}.weight")
        if not 1 <= weight <= 100:
            raise ArgsError(f"{p}.weight", f"Invalid value: {weight}: resource weight of {name} "
                                           "should be in range [1, 100]")
        out.append(ResourceSpec(name, weight))
    return tuple(out)


def new(args: Any, handle: Any) -> Fit:
    """NodeResourcesFitArgs: ignoredResources, ignoredResourceGroups, scoringStrategy."""
    args = as_mapping(args or {}, "args")
    ignored = frozenset(as_list(args.get("ignoredResources") or [], "ignoredResources"))
    groups = frozenset(as_list(args.get("ignoredResourceGroups") or [], "ignoredResourceGroups"))
    strategy = as_mapping(args.get("scoringStrategy") or {}, "scoringStrategy")
    kind = strategy.get("type", LEAST_ALLOCATED)
    if kind not in (LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO):
        raise ArgsError("scoringStrategy.type", f'Unsupported value: "{kind}": supported '
                        'values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"')
    resources = parse_resources(strategy.get("resources"), "scoringStrategy.resources")
    shape: tuple = ()
    if kind == REQUESTED_TO_CAPACITY_RATIO:
        rtc = as_mapping(strategy.get("requestedToCapacityRatio") or {},
                         "scoringStrategy.requestedToCapacityRatio")
        shape = scaled_shape(parse_shape(rtc.get("shape"),
                                         "scoringStrategy.requestedToCapacityRatio.shape"))
    return Fit(Scorer(kind, resources, use_requested=False, shape=shape), ignored, groups)


def parse_shape(raw: Any, path: str) -> list[tuple[int, int]]:
    """UtilizationShapePoints: utilization 0..100 strictly increasing, score 0..10."""
    points = as_list(raw, path) if raw is not None else []
    if not points:
        raise ArgsError(path, "Required value: at least one point must be specified")
    out: list[tuple[int, int]] = []
    for i, item in enumerate(points):
        p = f"{path}[{i}]"
        m = as_mapping(item, p)
        u = as_int(m.get("utilization", 0), f"{p}.utilization")
        s = as_int(m.get("score", 0), f"{p}.score")
        if not 0 <= u <= 100:
            raise ArgsError(f"{p}.utilization", f"Invalid value: {u}: not in valid range [0, 100]")
        if out and u <= out[-1][0]:
            raise ArgsError(f"{p}.utilization", f"Invalid value: {u}: utilization values must "
                                                "be sorted in increasing order")
        if not 0 <= s <= 10:
            raise ArgsError(f"{p}.score", f"Invalid value: {s}: not in valid range [0, 10]")
        out.append((u, s))
    return out
