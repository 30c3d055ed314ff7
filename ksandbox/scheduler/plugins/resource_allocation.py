"""Resource scoring strategies shared by NodeResourcesFit and BalancedAllocation.

Upstream ``plugins/noderesources/resource_allocation.go``, ``least_allocated.go``,
``most_allocated.go``, ``requested_to_capacity_ratio.go`` and ``balanced_allocation.go``.
A scorer sees, per configured resource, the node's allocatable and what would be requested
with the pod on it. Fit scores with the *non-zero* requests (a container without a cpu or
memory request counts as 100m / 200Mi) so empty pods still spread; BalancedAllocation uses
the real requests. An extended resource the pod does not request is left out, as is any
resource the node does not have. Integer math is Go's (truncating division); each scalar
function has a numpy twin that must give the same numbers.
"""

from __future__ import annotations

import math
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Sequence

from ..framework.interface import MAX_CUSTOM_PRIORITY_SCORE, MAX_NODE_SCORE
from ..framework.node_info import CPU, EPHEMERAL_STORAGE, MEMORY, is_scalar_resource
from .helper import FunctionShapePoint, broken_linear, go_round, go_round_vec

if TYPE_CHECKING:
    import numpy as np
else:
    from ..framework.lazy_numpy import np

LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO = "RequestedToCapacityRatio"
BALANCED = "Balanced"
MAX_UTILIZATION = 100


class ResourceSpec:
    __slots__ = ("name", "weight")

    def __init__(self, name: str, weight: int = 1) -> None:
        self.name = name
        self.weight = weight

    def __repr__(self) -> str:
        return f"{self.name}:{self.weight}"


DEFAULT_RESOURCES = (ResourceSpec(CPU, 1), ResourceSpec(MEMORY, 1))


def pod_request_list(pi: Any, resources: Sequence[ResourceSpec], use_requested: bool) -> tuple:
    """The pod's request for each configured resource (non-zero cpu/memory unless
    ``use_requested``)."""
    out = []
    for r in resources:
        if not use_requested and r.name == CPU:
            out.append(pi.non_zero_cpu)
        elif not use_requested and r.name == MEMORY:
            out.append(pi.non_zero_mem)
        else:
            out.append(pi.requests.get(r.name, 0))
    return tuple(out)


def allocatable_and_requested(ni: Any, name: str, pod_request: int,
                              use_requested: bool) -> tuple[int, int]:
    """calculateResourceAllocatableRequest: (allocatable, requested incl. the pod); (0, 0)
    means "leave this resource out"."""
    if pod_request == 0 and is_scalar_resource(name):
        return 0, 0
    if name == CPU:
        return ni.alloc_cpu, (ni.req_cpu if use_requested else ni.nz_cpu) + pod_request
    if name == MEMORY:
        return ni.alloc_mem, (ni.req_mem if use_requested else ni.nz_mem) + pod_request
    if name == EPHEMERAL_STORAGE:
        return ni.alloc_eph, ni.req_eph + pod_request
    if is_scalar_resource(name) and name in ni.alloc_scalar:
        return ni.alloc_scalar[name], ni.req_scalar.get(name, 0) + pod_request
    return 0, 0


def node_vectors(ni: Any, resources: Sequence[ResourceSpec], pod_requests: tuple,
                 use_requested: bool) -> tuple[list[int], list[int]]:
    requested, allocatable = [], []
    for r, pr in zip(resources, pod_requests):
        a, q = allocatable_and_requested(ni, r.name, pr, use_requested)
        if a == 0:
            a = q = 0
        allocatable.append(a)
        requested.append(q)
    return requested, allocatable


# -- the rules, once: for one node (ints, ``minimum=min``) or for every node at once (numpy
# arrays, ``minimum=np.minimum``). ``capacity`` is > 0: a resource the node lacks is left out
# before a rule is applied. The numpy twin (``Scorer.score_vec``) calls these same functions.

def least_requested(requested: Any, capacity: Any, minimum: Any = min) -> Any:
    """leastRequestedScore: the share left free after the pod, 0 when it does not fit."""
    return (capacity - minimum(requested, capacity)) * MAX_NODE_SCORE // capacity


def most_requested(requested: Any, capacity: Any, minimum: Any = min) -> Any:
    """mostRequestedScore: the share in use with the pod, at most all of it."""
    return minimum(requested, capacity) * MAX_NODE_SCORE // capacity


def utilization(requested: Any, capacity: Any, minimum: Any = min) -> Any:
    """requested_to_capacity_ratio.go: the percentage used with the pod, at most 100."""
    return minimum(requested, capacity) * MAX_UTILIZATION // capacity


# -- scalar scorers ----------------------------------------------------------------------------

def least_requested_score(requested: int, capacity: int) -> int:
    return 0 if capacity == 0 else least_requested(requested, capacity)


def most_requested_score(requested: int, capacity: int) -> int:
    return 0 if capacity == 0 else most_requested(requested, capacity)


def _weighted(resources: Sequence[ResourceSpec], requested: list[int], allocatable: list[int],
              fn: Any) -> int:
    node_score = weight_sum = 0
    for r, q, a in zip(resources, requested, allocatable):
        if a == 0:
            continue
        node_score += fn(q, a) * r.weight
        weight_sum += r.weight
    return 0 if weight_sum == 0 else node_score // weight_sum


def scaled_shape(shape: Sequence[tuple[int, int]]) -> tuple[FunctionShapePoint, ...]:
    """Shape points from config (score 0..10) scaled to 0..100."""
    factor = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    return tuple(FunctionShapePoint(u, s * factor) for u, s in shape)


def rtc_score(resources: Sequence[ResourceSpec], shape: Sequence[FunctionShapePoint],
              requested: list[int], allocatable: list[int]) -> int:
    node_score = weight_sum = 0
    for r, q, a in zip(resources, requested, allocatable):
        if a == 0:
            continue
        s = broken_linear(shape, utilization(q, a))
        if s > 0:
            node_score += s * r.weight
            weight_sum += r.weight
    return 0 if weight_sum == 0 else go_round(node_score / weight_sum)


def balanced_score(requested: list[int], allocatable: list[int]) -> int:
    fractions = []
    total = 0.0
    for q, a in zip(requested, allocatable):
        if a == 0:
            continue
        f = q / a
        if f > 1:
            f = 1.0
        total += f
        fractions.append(f)
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = total / len(fractions)
        s = 0.0
        for f in fractions:
            s = s + (f - mean) * (f - mean)
        std = math.sqrt(s / len(fractions))
    return int((1 - std) * float(MAX_NODE_SCORE))


class Scorer:
    """A strategy bound to its resources: ``score(ni, pod_requests)`` and ``score_vec``."""

    def __init__(self, kind: str, resources: Sequence[ResourceSpec], use_requested: bool,
                 shape: Sequence[FunctionShapePoint] = ()) -> None:
        self.kind = kind
        self.resources = tuple(resources)
        self.use_requested = use_requested
        self.shape = tuple(shape)
        # score_row's memo: (pod requests, the node fields score reads) -> score.
        self._row = _row_fields(self.resources, use_requested)
        self._memo: dict = {}

    MEMO_KEPT = 4096

    def score_row(self, ni: Any, pod_requests: tuple) -> int:
        """``score(ni, pod_requests)``, remembered by the node fields it reads (allocatable
        and requested cpu, memory, ephemeral storage): the fast path's column asks it again
        for each node a pod event changed, and nodes alike (same allocatable, same pods'
        requests) give the same answer. Not remembered when an extended resource is scored
        (its fields are dicts)."""
        row = self._row
        if row is None:
            return self.score(ni, pod_requests)
        key = (pod_requests, row(ni))
        v = self._memo.get(key)
        if v is None:
            if len(self._memo) >= self.MEMO_KEPT:
                self._memo.clear()
            v = self._memo[key] = self.score(ni, pod_requests)
        return v

    def score(self, ni: Any, pod_requests: tuple) -> int:
        q, a = node_vectors(ni, self.resources, pod_requests, self.use_requested)
        if self.kind == LEAST_ALLOCATED:
            return _weighted(self.resources, q, a, least_requested_score)
        if self.kind == MOST_ALLOCATED:
            return _weighted(self.resources, q, a, most_requested_score)
        if self.kind == REQUESTED_TO_CAPACITY_RATIO:
            return rtc_score(self.resources, self.shape, q, a)
        return balanced_score(q, a)

    # -- numpy twin --
    def _arrays(self, ctx: Any, idx: np.ndarray, pod_requests: tuple):
        out = []
        t = ctx.table
        for r, pr in zip(self.resources, pod_requests):
            name = r.name
            if pr == 0 and is_scalar_resource(name):
                z = np.zeros(len(idx), dtype=np.int64)
                out.append((z, z))
                continue
            if name == CPU:
                a = t.alloc_cpu[idx]
                q = (t.req_cpu if self.use_requested else t.nz_cpu)[idx] + pr
            elif name == MEMORY:
                a = t.alloc_mem[idx]
                q = (t.req_mem if self.use_requested else t.nz_mem)[idx] + pr
            elif name == EPHEMERAL_STORAGE:
                a = t.alloc_eph[idx]
                q = t.req_eph[idx] + pr
            elif is_scalar_resource(name):
                a = t.scalar_alloc(name)[idx]
                q = t.scalar_req(name)[idx] + pr
            else:
                a = np.zeros(len(idx), dtype=np.int64)
                q = a
            q = np.where(a == 0, 0, q)
            out.append((q, a))
        return out

    def column(self, ctx: Any, pod_requests: tuple) -> np.ndarray:
        """Every node's score for a pod requesting ``pod_requests`` (read-only), kept by the
        fast path's table and recomputed only for nodes whose totals changed (each score reads
        only its own node's row)."""
        table = ctx.table
        key = (self, pod_requests)
        # (the column kept for these requests: its compute and one were made for equal ones)
        values = table.current(key)
        if values is not None:
            return values
        return table.column(key, lambda rows: self.score_vec(ctx, rows, pod_requests),
                            lambda ni: self.score_row(ni, pod_requests))

    def score_vec(self, ctx: Any, idx: np.ndarray, pod_requests: tuple) -> np.ndarray:
        cols = self._arrays(ctx, idx, pod_requests)
        n = len(idx)
        if self.kind in (LEAST_ALLOCATED, MOST_ALLOCATED):
            node_score = np.zeros(n, dtype=np.int64)
            weight_sum = np.zeros(n, dtype=np.int64)
            for r, (q, a) in zip(self.resources, cols):
                ok = a != 0
                safe = np.where(ok, a, 1)
                rule = least_requested if self.kind == LEAST_ALLOCATED else most_requested
                s = rule(q, safe, np.minimum)
                node_score += np.where(ok, s * r.weight, 0)
                weight_sum += np.where(ok, r.weight, 0)
            return np.where(weight_sum == 0, 0, node_score // np.maximum(weight_sum, 1))
        if self.kind == REQUESTED_TO_CAPACITY_RATIO:
            node_score = np.zeros(n, dtype=np.int64)
            weight_sum = np.zeros(n, dtype=np.int64)
            for r, (q, a) in zip(self.resources, cols):
                ok = a != 0
                util = utilization(q, np.where(ok, a, 1), np.minimum)
                s = _broken_linear_vec(self.shape, util)
                use = ok & (s > 0)
                node_score += np.where(use, s * r.weight, 0)
                weight_sum += np.where(use, r.weight, 0)
            ratio = node_score / np.maximum(weight_sum, 1)
            return np.where(weight_sum == 0, 0, go_round_vec(ratio))
        return _balanced_vec(cols, n)


def _row_fields(resources: Sequence[ResourceSpec], use_requested: bool) -> Any:
    """A getter of the NodeInfo fields ``Scorer.score`` reads for ``resources`` (as one
    value), or None when one of them is an extended resource."""
    fields: list[str] = []
    for r in resources:
        if r.name == CPU:
            fields += ["alloc_cpu", "req_cpu" if use_requested else "nz_cpu"]
        elif r.name == MEMORY:
            fields += ["alloc_mem", "req_mem" if use_requested else "nz_mem"]
        elif r.name == EPHEMERAL_STORAGE:
            fields += ["alloc_eph", "req_eph"]
        elif is_scalar_resource(r.name):
            return None
    if not fields:
        return lambda ni: ()
    return attrgetter(*fields)


def _broken_linear_vec(shape: Sequence[FunctionShapePoint], p: np.ndarray) -> np.ndarray:
    out = np.full(len(p), shape[-1].score, dtype=np.int64)
    done = np.zeros(len(p), dtype=bool)
    for i, pt in enumerate(shape):
        hit = (~done) & (p <= pt.utilization)
        if i == 0:
            val = np.full(len(p), shape[0].score, dtype=np.int64)
        else:
            prev = shape[i - 1]
            num = (pt.score - prev.score) * (p - prev.utilization)
            den = pt.utilization - prev.utilization
            val = prev.score + np.sign(num) * (np.abs(num) // abs(den)) * (1 if den > 0 else -1)
        out = np.where(hit, val, out)
        done |= hit
    return out


def _balanced_vec(cols: list, n: int) -> np.ndarray:
    fracs = []
    valid = []
    for q, a in cols:
        ok = a != 0
        f = q.astype(np.float64) / np.where(ok, a, 1).astype(np.float64)
        fracs.append(np.minimum(f, 1.0))
        valid.append(ok)
    if not fracs:
        return np.full(n, MAX_NODE_SCORE, dtype=np.int64)
    allvalid = np.logical_and.reduce(valid)
    k = len(fracs)
    if k == 2:
        std = np.abs((fracs[0] - fracs[1]) / 2)
    elif k > 2:
        total = fracs[0].copy()
        for f in fracs[1:]:
            total = total + f
        mean = total / k
        s = np.zeros(n)
        for f in fracs:
            s = s + (f - mean) * (f - mean)
        std = np.sqrt(s / k)
    else:
        std = np.zeros(n)
    out = ((1 - std) * float(MAX_NODE_SCORE)).astype(np.int64)
    if not allvalid.all():
        # Nodes lacking some resource: use the scalar rule on what they have.
        for j in np.flatnonzero(~allvalid):
            out[j] = balanced_score([int(q[j]) for q, _ in cols], [int(a[j]) for _, a in cols])
    return out
