"""The fast path: the same scheduling cycle over numpy arrays, one row per node.

A ``NodeTable`` holds each node's allocatable and requested totals as int64 columns in node
order, updated one row at a time from the cache's pod events. ``FastPath`` runs a profile's
plugins through their vectorized twins (``filter_vec``, ``pre_filter_vec``, ``score_vec``,
``normalize_vec``) where they have them and through the scalar methods elsewhere, then
replays upstream's sequential search (start index, stop after enough feasible nodes) on the
result, so the feasible set, the diagnosis, the start index and the random draws are exactly
the reference path's. Per-template work is cached: node-static filter and score columns (keyed
by the pod fields they depend on, dropped when nodes change), topology-domain ids per label
key, and per-selector matching-pod counts per node kept current incrementally, with their
sums per topology domain (PodTopologySpread's counts, moved by one per pod event).

A test hashes the placements of both paths on a mixed workload; they must be identical.
"""

from __future__ import annotations

from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..schedule_one import (
    SchedulingError,
    num_feasible_nodes_to_find,
    percentage_for,
    pre_filter_and_nominated,
    prefilter_absent_status,
    restrict_nodes,
)
from .interface import Code, Status
from .node_info import NodeInfo, PodInfo
from .pod_plan import (
    FILTERS_SEEN,
    FILTERS_UNSEEN,
    PodPlan,
    merged,
    pre_filter_steps,
    pre_score_steps,
    replay,
)
from .types import Diagnosis

if TYPE_CHECKING:
    from ...api.core import Pod

_I64 = np.int64
_PODS = attrgetter("pods")


class NodeTable:
    """Struct-of-arrays of the resource totals of every node, in node-list order.

    Also per-pod-shape *columns* (:meth:`column`): a plugin's value for every node given one
    pod shape — NodeResourcesFit's verdict codes, a resource scorer's scores — computed once
    over every row and then kept current by recomputing only the rows whose totals changed
    since the column was last read (a bind changes one node). Pods of one template then cost
    no O(nodes) array work in those plugins.

    The totals columns (``alloc_cpu`` ... ``npods``, the scalar resources) are written
    lazily: a node change only notes the row (``_stale``), and the rows are written when a
    column is next computed from them (:meth:`refresh`, called by :meth:`column`) — the
    plugins read them only from a column's ``compute``; any other reader calls
    :meth:`refresh` first. A bind used to write ten numpy scalars (~300 instructions each)
    that, with every column caught up row by row through its scalar twin, nothing read."""

    _TOTALS = ("alloc_cpu", "alloc_mem", "alloc_eph", "alloc_pods", "req_cpu", "req_mem",
               "req_eph", "nz_cpu", "nz_mem")

    MAX_COLUMNS = 32

    def __init__(self, cache: Any) -> None:
        self.cache = cache
        self.list_id: Any = None
        self.n = 0
        self._scalar_alloc: dict[str, np.ndarray] = {}
        self._scalar_req: dict[str, np.ndarray] = {}
        # key -> [values, position in the change log up to which they are current, ...]
        # (see column)
        self._columns: dict[Any, list] = {}
        # Rows changed since the log was last cleared (only kept while columns exist), and
        # the log position of its first entry.
        self._changed: list[int] = []
        self._log_base = 0
        # Rows whose totals columns are behind their NodeInfo (written by refresh).
        self._stale: set[int] = set()
        cache.on_node_changed.append(self._node_changed)

    def __getstate__(self) -> dict:
        # A copy (sim/snapshot's fork, deepcopy) takes each column without its memoryview (a
        # memoryview cannot be copied; the copy's must be of the copied values) and without
        # its compute and one (closures over the original's table: the copy's first reader
        # of the column gives its own, see column).
        state = dict(self.__dict__)
        state["_columns"] = {k: e[:3] for k, e in self._columns.items()}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for e in self._columns.values():
            e += (_view(e[0]), None, None)

    def sync(self) -> list[NodeInfo]:
        infos = self.cache.node_list()
        if infos is not self.list_id:
            self._build(infos)
        return infos

    def _build(self, infos: list[NodeInfo]) -> None:
        self.list_id = infos
        self.n = n = len(infos)
        for c in self._TOTALS:
            setattr(self, c, np.fromiter((getattr(ni, c) for ni in infos), _I64, n))
        self.npods = np.fromiter((len(ni.pods) for ni in infos), _I64, n)
        self._scalar_alloc.clear()
        self._scalar_req.clear()
        self._stale.clear()
        self._drop_columns()

    def _drop_columns(self) -> None:
        self._columns.clear()
        self._log_base += len(self._changed)
        self._changed.clear()

    def _node_changed(self, ni: NodeInfo) -> None:
        if self.list_id is None or self.cache._node_list is not self.list_id:
            return
        i = ni.index
        if i < 0 or i >= self.n or self.list_id[i] is not ni:
            return
        self._stale.add(i)
        if self._columns:
            self._changed.append(i)
            if len(self._changed) > max(1024, self.n):
                # A column this far behind is cheaper to compute again than to catch up.
                self._drop_columns()

    def refresh(self) -> None:
        """Write the stale rows' totals (see the class docstring): a reader of the totals
        columns outside a column's ``compute`` calls this first."""
        stale = self._stale
        if not stale:
            return
        infos = self.list_id
        rows = sorted(stale)
        stale.clear()
        nis = list(map(infos.__getitem__, rows))
        idx = np.array(rows, dtype=_I64)
        k = len(rows)
        # map and attrgetter: no Python frame per row (a first registration's thousands)
        for c in self._TOTALS:
            getattr(self, c)[idx] = np.fromiter(map(attrgetter(c), nis), _I64, k)
        self.npods[idx] = np.fromiter(map(len, map(_PODS, nis)), _I64, k)
        for name, arr in self._scalar_alloc.items():
            arr[idx] = np.fromiter((ni.alloc_scalar.get(name, 0) for ni in nis), _I64, k)
        for name, arr in self._scalar_req.items():
            arr[idx] = np.fromiter((ni.req_scalar.get(name, 0) for ni in nis), _I64, k)

    def column(self, key: Any, compute: Callable[[np.ndarray], np.ndarray],
               one: Callable[[NodeInfo], int]) -> np.ndarray:
        """Every node's value of ``compute`` (read-only for the caller): ``compute(rows)``
        returns the values of the rows ``rows`` (an index array) and must be row-wise — a
        row's value reads only that row of this table and what ``key`` stands for;
        ``one(node_info)`` is its scalar twin for one node (the same number: numpy calls on a
        one-row array cost more than the plain arithmetic). Computed in full once, then only
        for the rows changed since the last read (:meth:`current`: a caller that asks that
        first makes no ``compute`` and ``one`` for a column kept, and the ones kept with it
        serve, as they stand for the same ``key``)."""
        entry = self._columns.get(key)
        if entry is not None:
            if entry[4] is None:   # a copy's (__setstate__)
                entry[4], entry[5] = compute, one
            return self.current(key)   # type: ignore[return-value]
        if len(self._columns) >= self.MAX_COLUMNS:
            self._columns.pop(next(iter(self._columns)))
        if self._stale:
            self.refresh()
        values = np.array(compute(np.arange(self.n, dtype=_I64)))
        # [values, log position, how many values are not 0 (verdicts' count) or None,
        #  the values as a memoryview: a row caught up below is one Python-int write,
        #  not a numpy scalar's (~4x the instructions), compute, one]
        self._columns[key] = [values, self._log_base + len(self._changed), None,
                              _view(values), compute, one]
        return values

    def current(self, key: Any) -> np.ndarray | None:
        """The column kept for ``key`` caught up with the rows changed since its last read
        (by the ``compute`` and ``one`` it was made with), or None when none is kept."""
        entry = self._columns.get(key)
        if entry is None:
            return None
        values, seen, nonzero, view, compute, one = entry
        if compute is None:   # a copy's, not read since (column gives it its own)
            return None
        now = self._log_base + len(self._changed)
        if seen != now:
            rows = self._changed[seen - self._log_base:]
            if len(rows) <= 8:
                infos = self.list_id
                if nonzero is None:
                    for i in rows:
                        view[i] = one(infos[i])
                else:
                    for i in rows:
                        v = one(infos[i])
                        if v:
                            if not view[i]:
                                nonzero += 1
                        elif view[i]:
                            nonzero -= 1
                        view[i] = v
                    entry[2] = nonzero
            else:
                if self._stale:
                    self.refresh()
                idx = np.array(sorted(set(rows)), dtype=_I64)
                values[idx] = compute(idx)
                if nonzero is not None:
                    entry[2] = int(np.count_nonzero(values))
            entry[1] = now
        return values

    def verdicts(self, key: Any, compute: Callable[[np.ndarray], np.ndarray],
                 one: Callable[[NodeInfo], int]) -> tuple[np.ndarray, int]:
        """:meth:`column` of a Filter twin's verdict codes (0: the node passes), and how
        many nodes fail (values not 0): counted once, then kept with the column as its rows
        are recomputed, so a pod that fits everywhere (most pods of a roomy cluster) learns
        it without a count over every node."""
        values = self.column(key, compute, one)
        return values, self._failing(key, values)

    def current_verdicts(self, key: Any) -> tuple[np.ndarray, int] | None:
        """:meth:`verdicts` of a column kept (:meth:`current`), or None."""
        values = self.current(key)
        if values is None:
            return None
        return values, self._failing(key, values)

    def _failing(self, key: Any, values: np.ndarray) -> int:
        entry = self._columns[key]
        failing = entry[2]
        if failing is None:
            failing = entry[2] = int(np.count_nonzero(values))
        return failing

    def scalar_alloc(self, name: str) -> np.ndarray:
        arr = self._scalar_alloc.get(name)
        if arr is None:
            arr = self._scalar_alloc[name] = np.fromiter(
                (ni.alloc_scalar.get(name, 0) for ni in self.list_id), _I64, self.n)
        return arr

    def scalar_req(self, name: str) -> np.ndarray:
        arr = self._scalar_req.get(name)
        if arr is None:
            arr = self._scalar_req[name] = np.fromiter(
                (ni.req_scalar.get(name, 0) for ni in self.list_id), _I64, self.n)
        return arr


def _view(a: Any) -> memoryview:
    """``a``'s buffer as a memoryview: its one-element reads and writes take and give Python
    numbers (a numpy scalar index costs ~4x the instructions)."""
    return memoryview(a)


def rotation(all_idx: np.ndarray, start: int, to_find: int) -> np.ndarray:
    """search_from's passing nodes when every node passes: the ``to_find`` (at most every)
    node indices from ``start`` round the node list, in visiting order."""
    m = len(all_idx)
    end = start + min(to_find, m)
    if end <= m:
        return all_idx[start:end]
    return np.concatenate((all_idx[start:], all_idx[:end - m]))


def search_from(fail_plugin: np.ndarray, start: int, to_find: int,
                ok: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Upstream's sequential search over every node: from ``start`` round the node list,
    stop once ``to_find`` nodes passed (``fail_plugin`` 0). Returns (passing nodes, failed
    nodes) among those visited, each in visiting order — what walking the rotated order and
    counting would give, from the passing nodes' sorted positions instead of a running count
    over every node."""
    m = len(fail_plugin)
    if ok is None:
        ok = np.flatnonzero(fail_plugin == 0)
    split = int(np.searchsorted(ok, start))
    feasible = ok[split:split + to_find]
    if len(feasible) < to_find:
        feasible = np.concatenate((feasible, ok[:min(split, to_find - len(feasible))]))
    if len(feasible) == to_find:
        processed = (int(feasible[-1]) - start) % m + 1
    else:
        processed = m
    end = start + processed
    failed = start + np.flatnonzero(fail_plugin[start:min(end, m)])
    if end > m:
        failed = np.concatenate((failed, np.flatnonzero(fail_plugin[:end - m])))
    return feasible, failed


class IndexedNodes:
    """The feasible NodeInfos as a lazy sequence over an index array (no list of thousands
    of objects per pod)."""

    __slots__ = ("infos", "idx")

    def __init__(self, infos: list[NodeInfo], idx: np.ndarray) -> None:
        self.infos = infos
        self.idx = idx

    def __len__(self) -> int:
        return len(self.idx)

    def __getitem__(self, i: int) -> NodeInfo:
        return self.infos[int(self.idx[i])]

    def __iter__(self):
        infos = self.infos
        return (infos[i] for i in self.idx.tolist())

    def __bool__(self) -> bool:
        return len(self.idx) > 0


class _Counter:
    __slots__ = ("pred", "counts", "route", "domains", "keyed", "_counts")

    def __init__(self, pred: Callable[[Any], bool], counts: np.ndarray,
                 route: tuple[str, str, str] | None) -> None:
        self.pred = pred
        self.counts = counts
        # The same buffer as a memoryview: move's one-element writes take Python ints (a
        # numpy scalar read and write cost ~4x as much)
        self._counts = _view(counts)
        # (namespace, label key, label value) every pod ``pred`` accepts has, or None.
        self.route = route
        # The same counts summed per topology domain over the nodes a mask admits
        # (FastPath.domain_counts): (topology key, id(incl), id(keys)) -> _Domains. None
        # until asked; dropped whenever the nodes' static parts change (the domain ids and
        # the masks are static), kept current from the same pod events as ``counts``.
        self.domains: dict | None = None
        # The counts as class keys over a topology's domain ids (FastPath.class_keys):
        # id(ids) -> _Keyed. None until asked; dropped with ``domains``, kept current alike.
        self.keyed: dict | None = None

    def __getstate__(self) -> dict:
        # a copy (sim/snapshot's fork, deepcopy) takes the arrays; a memoryview cannot be
        # copied, and the copy's must be of the copied arrays
        return {"pred": self.pred, "counts": self.counts, "route": self.route,
                "domains": self.domains, "keyed": self.keyed}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["pred"], state["counts"], state["route"])  # type: ignore[misc]
        self.domains = state["domains"]
        self.keyed = state.get("keyed")

    def move(self, idx: int, sign: int) -> None:
        """One accepted pod came to (sign 1) or left (-1) node ``idx``."""
        self._counts[idx] += sign
        if self.domains is not None:
            for d in self.domains.values():
                if d._mask[idx]:
                    d._per[d._ids[idx]] += sign
        if self.keyed is not None:
            for k in self.keyed.values():
                k._keys[idx] += sign * k.low


def _swap(c: _Counter, idx: int, old: Any, new: Any) -> None:
    """Counter ``c`` of a pod swapped on node ``idx`` (FastPath._pod_swapped)."""
    if c.pred(old):
        if not c.pred(new):
            c.move(idx, -1)
    elif c.pred(new):
        c.move(idx, 1)


class _Domains:
    """A counter's counts summed per domain of one topology key, over the nodes ``mask``
    admits. ``incl`` and ``keys`` are the masks it was built from (held so that the ids in
    its key stay theirs). ``_mask``, ``_ids``, ``_per``: memoryviews of the arrays, for
    _Counter.move's one-element reads and writes."""

    __slots__ = ("incl", "keys", "mask", "ids", "per", "_mask", "_ids", "_per")

    def __init__(self, incl: np.ndarray, keys: np.ndarray | None, ids: np.ndarray,
                 counts: np.ndarray, domains: int) -> None:
        self.incl = incl
        self.keys = keys
        self.mask = mask = incl if keys is None else incl & keys
        self.ids = ids
        self.per = np.bincount(ids[mask], weights=counts[mask],
                               minlength=domains).astype(_I64)
        self._views()

    def _views(self) -> None:
        self._mask = _view(self.mask)
        self._ids = _view(self.ids)
        self._per = _view(self.per)

    def __getstate__(self) -> dict:
        # (see _Counter.__getstate__)
        return {"incl": self.incl, "keys": self.keys, "mask": self.mask, "ids": self.ids,
                "per": self.per}

    def __setstate__(self, state: dict) -> None:
        for k, v in state.items():
            setattr(self, k, v)
        self._views()


class _Keyed:
    """A counter's counts as class keys over one topology's domain ids: per node,
    ``counts * low + ids`` (``low``: how many domains the topology has), kept current with the
    counts (a pod event moves its node's key by ``low``). ``_keys``: a memoryview of the
    array, for _Counter.move's one-element writes."""

    __slots__ = ("ids", "low", "keys", "_keys")

    def __init__(self, ids: np.ndarray, counts: np.ndarray, low: int) -> None:
        self.ids = ids
        self.low = low
        self.keys = counts * low + ids
        self._keys = _view(self.keys)

    def __getstate__(self) -> dict:
        # (see _Counter.__getstate__)
        return {"ids": self.ids, "low": self.low, "keys": self.keys}

    def __setstate__(self, state: dict) -> None:
        self.ids, self.low, self.keys = state["ids"], state["low"], state["keys"]
        self._keys = _view(self.keys)


class FastPath:
    """The vectorized evaluation of one profile (the ``ctx`` plugins' ``*_vec`` methods see)."""

    MAX_COUNTERS = 64
    # The last search's feasible nodes and their indices (find_nodes_that_fit), and the
    # Score plan by profile (_score_plan): none until the first pod.
    _last: Any = None
    _plan: Any = None
    # (index array, slice) when the candidates are one unbroken run of the node list (every
    # node passed and the search did not wrap round): gather() then slices, no fancy index.
    _run: Any = None
    # (index array, start) when the candidates are every node's rotation from ``start`` (every
    # node passed): candidate_domains then answers from what it kept for that start and count.
    _rot: Any = None

    def __init__(self, cache: Any, fwk: Any) -> None:
        self.cache = cache
        self.fwk = fwk
        table = getattr(cache, "_table", None)
        if table is None:
            table = cache._table = NodeTable(cache)
        self.table = table
        self.infos: list[NodeInfo] = []
        self.n = 0
        self._static: dict = {}
        self._incl: dict = {}   # inclusion_mask by spec object (cleared with _static)
        self._static_version = -1
        self._list_id: Any = None
        self._topology: dict = {}
        self._counters: dict = {}
        # Moves whenever a counter, a counter's domain sums or the topology a plugin may
        # have kept (live arrays, by reference) stops being kept current: a plugin's memo of
        # them (PodTopologySpread's score reads) holds only while this stays the same.
        self.epoch = 0
        # The counters by route, so a pod change evaluates only the predicates that can
        # accept it (with one counter per Deployment selector, checking all 64 on every pod
        # write dominated churn); rebuilt lazily whenever the counter set changes.
        self._routes: dict | None = None
        self._unrouted: list = []
        # Label key -> (namespace, value) -> pod key -> node index, for the label keys new
        # counters were routed by: a new counter (each new ReplicaSet's selector, for the
        # system-default spreading) counts only the pods carrying its route's label instead
        # of every pod; built by the first counter routed by that key, kept current below.
        self._label_index: dict[str, dict[tuple[str, str], dict[str, int]]] = {}
        self._name_index: dict[str, int] = {}
        # Existing pods' required anti-affinity against a pod signature -> (key, value) counts.
        self._anti: dict = {}
        # pod_plan's answers by spec object (they read only the spec: never dropped but for
        # room)
        self._plans: dict[int, PodPlan] = {}
        # Moves whenever the nodes' static parts or the node list change: the Filter steps a
        # spec's PodPlan keeps (PodPlan.filters) hold only while it stands.
        self._static_gen = 0
        # _filter's steps by skip set: (k, plugin, filter_vec, filter_vec_static) of
        # each filter plugin not skipped, for the profile's list _fsteps_of.
        self._fsteps: dict[frozenset, list] = {}
        self._fsteps_of: Any = None
        # (the profile's list, skip set, steps) of the last pod that read _fsteps: the next
        # pod's skip set is most often the same (one set comparison, no frozenset made)
        self._fsteps_last: tuple = (None, None, None)
        # The same for _totals: its steps by skip_score set, for the score plan _tsteps_of,
        # and the last pod's (plan, set, steps).
        self._tsteps: dict[frozenset, list] = {}
        self._tsteps_of: Any = None
        self._tsteps_last: tuple = (None, None, None, False)
        # The PodPlan find_nodes_that_fit used, for prioritize of the same pod.
        self._cycle_plan: PodPlan | None = None
        cache.on_pod_added.append(self._pod_added)
        cache.on_pod_removed.append(self._pod_removed)
        cache.on_pod_swapped.append(self._pod_swapped)

    # -- keeping caches current ---------------------------------------------------------------
    def sync(self) -> None:
        infos = self.table.sync()
        if infos is not self._list_id:
            self._list_id = infos
            self.infos = infos
            self.n = len(infos)
            self._name_index = {ni.name: i for i, ni in enumerate(infos)}
            self._names = [ni.name for ni in infos]
            self._all_idx = np.arange(self.n, dtype=_I64)
            self._all_idx.flags.writeable = False  # shared by diagnoses
            # _filter's verdicts when no node failed (read-only: shared by those cycles)
            self._no_failure = (np.zeros(self.n, dtype=np.int16),
                                np.zeros(self.n, dtype=np.int64))
            for a in self._no_failure:
                a.flags.writeable = False
            self._counters.clear()
            self.epoch += 1
            self._routes = None
            self._label_index.clear()
            self._static.clear()
            self._static_gen += 1
            self._incl.clear()
            self._topology.clear()
            self._anti.clear()
        if self.cache.static_version != self._static_version:
            self._static_version = self.cache.static_version
            self.epoch += 1
            self._static.clear()
            self._static_gen += 1
            self._incl.clear()
            self._topology.clear()
            self._anti.clear()
            for c in self._counters.values():
                c.domains = None
                c.keyed = None

    def invalidate_counters(self) -> None:
        self._counters.clear()
        self.epoch += 1
        self._routes = None
        self._anti.clear()

    def _pod_added(self, ni: NodeInfo, pi: Any) -> None:
        self._pod_changed(ni, pi, 1)

    def _pod_removed(self, ni: NodeInfo, pi: Any) -> None:
        self._pod_changed(ni, pi, -1)

    def _pod_changed(self, ni: NodeInfo, pi: Any, sign: int) -> None:
        if self.cache._node_list is not self._list_id or ni.index < 0:
            return
        routes = self._routes
        if routes is None:
            routes = self._build_routes()
        idx = ni.index
        if self._label_index:
            self._index_pod(pi, idx, sign)
        for c in self._unrouted:
            if c.pred(pi):
                c.move(idx, sign)
        if routes:
            ns = pi.namespace
            for k, v in pi.labels.items():
                routed = routes.get((ns, k, v))
                if routed is not None:
                    for c in routed:
                        if c.pred(pi):
                            c.move(idx, sign)
        if self._anti and pi.required_anti_affinity:
            from ..plugins.inter_pod_affinity import _update

            for rep, ns_labels, pairs in self._anti.values():
                for t in pi.required_anti_affinity:
                    if t.matches(rep, ns_labels):
                        _update(pairs, ni.labels, t.topology_key, sign)

    def _pod_swapped(self, ni: NodeInfo, old: Any, new: Any) -> None:
        """``_pod_changed(ni, old, -1)`` then ``_pod_changed(ni, new, 1)`` for a pod that
        turned terminating (or back) in place: the same key, namespace, labels and node, and
        no required anti-affinity (SchedulerCache._replace_status_only swaps no other). The
        label index keeps its entry (the pair would take it out and put it back), and a
        counter moves by what its verdicts on the two differ — once, not twice."""
        if self.cache._node_list is not self._list_id or ni.index < 0:
            return
        routes = self._routes
        if routes is None:
            routes = self._build_routes()
        idx = ni.index
        for c in self._unrouted:
            _swap(c, idx, old, new)
        if routes:
            ns = new.namespace
            for k, v in new.labels.items():
                routed = routes.get((ns, k, v))
                if routed is not None:
                    for c in routed:
                        _swap(c, idx, old, new)

    def _index_pod(self, pi: Any, idx: int, sign: int) -> None:
        labels, ns, key = pi.labels, pi.namespace, pi.key
        for k, buckets in self._label_index.items():
            v = labels.get(k)
            if v is None:
                continue
            bucket = buckets.get((ns, v))
            if sign > 0:
                if bucket is None:
                    bucket = buckets[(ns, v)] = {}
                bucket[key] = idx
            elif bucket is not None and bucket.get(key) == idx:
                del bucket[key]
                if not bucket:
                    del buckets[(ns, v)]

    def _build_routes(self) -> dict:
        routes: dict = {}
        self._unrouted = []
        for c in self._counters.values():
            if c.route is None:
                self._unrouted.append(c)
            else:
                routes.setdefault(c.route, []).append(c)
        self._routes = routes
        return routes

    def existing_anti_pairs(self, pod: Pod, ns_labels: Any, compute: Callable[[], dict]) -> dict:
        """(topology key, value) -> how many existing pods' required anti-affinity terms
        forbid a pod with this namespace and these labels there; kept current."""
        key = (pod.metadata.namespace, pod.metadata.labels)
        entry = self._anti.get(key)
        if entry is None:
            if len(self._anti) >= self.MAX_COUNTERS:
                self._anti.pop(next(iter(self._anti)))
            entry = self._anti[key] = (pod, ns_labels, compute())
        return entry[2]

    # -- what vectorized plugins ask for ------------------------------------------------------
    def static(self, key: Any, compute: Callable[[], Any]) -> Any:
        """A value that depends only on the nodes' static parts and ``key``."""
        v = self._static.get(key)
        if v is None:
            v = self._static[key] = compute()
        return v

    def static_of(self, obj: Any, tag: Any, compute: Callable[[], Any]) -> Any:
        """:meth:`static` keyed by the identity of ``obj`` (an immutable part of a pod's
        spec, shared by the pods of its template) and ``tag``: for a value that depends only
        on the nodes' static parts and ``obj``, without hashing ``obj`` by value for every
        pod (a tolerations tuple hashes each Toleration in Python)."""
        key = (tag, id(obj))
        hit = self._static.get(key)
        if hit is not None and hit[0] is obj:
            return hit[1]
        v = compute()
        # The entry holds obj, so its id is not reused while the entry stands.
        self._static[key] = (obj, v)
        return v

    def topology(self, key: str) -> tuple[np.ndarray, list[str], np.ndarray]:
        """(domain id per node, domain values, has-label mask); a node without the label
        gets the id of "" (as Go's map lookup gives "")."""
        t = self._topology.get(key)
        if t is None:
            values: list[str] = []
            index: dict[str, int] = {}
            ids = np.empty(self.n, dtype=np.int64)
            has = np.empty(self.n, dtype=bool)
            for i, ni in enumerate(self.infos):
                v = ni.labels.get(key)
                has[i] = v is not None
                if v is None:
                    v = ""
                j = index.get(v)
                if j is None:
                    j = index[v] = len(values)
                    values.append(v)
                ids[i] = j
            t = self._topology[key] = (ids, values, has, index, bool(has.all()))
        return t[0], t[1], t[2]

    def topology_complete(self, key: str) -> bool:
        """Whether every node has the label ``key``."""
        self.topology(key)
        return self._topology[key][4]

    def topology_value_id(self, key: str, value: str) -> int | None:
        self.topology(key)
        return self._topology[key][3].get(value)

    def has_keys(self, keys: tuple) -> np.ndarray:
        hit = self._static.get(("has_keys", keys))
        if hit is not None:
            return hit

        def compute() -> np.ndarray:
            m = np.ones(self.n, dtype=bool)
            for k in keys:
                m &= self.topology(k)[2]
            return m
        return self.static(("has_keys", keys), compute)

    def inclusion_mask(self, pod: Pod, affinity_honor: bool, taints_honor: bool) -> np.ndarray:
        """Per node: whether PodTopologySpread counts it for ``pod`` (nodeAffinityPolicy /
        nodeTaintsPolicy Honor). Read-only; the same array for every pod sharing the spec
        object (the pods of one template share it) until the nodes' static parts change."""
        spec = pod.spec
        key = (id(spec), affinity_honor, taints_honor)
        memo = self._incl.get(key)
        if memo is not None and memo[0] is spec:
            return memo[1]
        m = self._inclusion_mask(pod, affinity_honor, taints_honor)
        m.flags.writeable = False
        if len(self._incl) >= self.MAX_COUNTERS:
            self._incl.clear()
        self._incl[key] = (spec, m)
        return m

    def _inclusion_mask(self, pod: Pod, affinity_honor: bool, taints_honor: bool) -> np.ndarray:
        from ...api.taints import NO_EXECUTE, NO_SCHEDULE, find_untolerated_taint
        from ..plugins.node_affinity import required_node_affinity_matches

        aff = pod.spec.affinity
        req = aff.node_affinity.required if aff is not None and aff.node_affinity else None
        if not taints_honor and (not affinity_honor or (req is None
                                                        and not pod.spec.node_selector)):
            # Every node counts: one shared mask for every such pod (so what is kept per
            # mask, e.g. domain_counts, is shared by their templates too).
            return self.static(("incl_every",), lambda: np.ones(self.n, dtype=bool))
        m = np.ones(self.n, dtype=bool)
        if affinity_honor:
            if req is not None or pod.spec.node_selector:
                m &= self.static(("incl_aff", pod.spec.node_selector, req), lambda: np.array(
                    [required_node_affinity_matches(pod, ni.node) for ni in self.infos],
                    dtype=bool))
        if taints_honor:
            tol = pod.spec.tolerations
            m &= self.static(("incl_taint", tol), lambda: np.array(
                [find_untolerated_taint(ni.node.spec.taints, tol, (NO_SCHEDULE, NO_EXECUTE))
                 is None for ni in self.infos], dtype=bool))
        return m

    def match_counts(self, namespace: str, selector: Any) -> np.ndarray:
        """Per node: non-terminating pods in ``namespace`` whose labels ``selector`` matches."""
        if selector is None:
            return np.zeros(self.n, dtype=_I64)
        return self._match_counter(namespace, selector).counts

    def _match_counter(self, namespace: str, selector: Any) -> _Counter:
        c = self._counters.get(("pts", namespace, selector))
        if c is not None:
            return c

        def pred(pi: Any) -> bool:
            return (not pi.terminating and pi.namespace == namespace
                    and selector.matches(pi.labels))
        return self._counter(("pts", namespace, selector), pred,
                             self._narrowest_route(namespace, selector.equality_requirements()))

    def _narrowest_route(self, namespace: str,
                         eqs: tuple[tuple[str, str], ...]) -> tuple[str, str, str] | None:
        """A counter's route among the ``key=value`` labels ``eqs`` every pod it accepts
        carries: the one fewest pods of ``namespace`` carry (the first of equals), its key
        indexed first when it is not yet and there is room. A new ReplicaSet's selector is
        its Deployment's plus pod-template-hash: routed by the hash, its counter starts from
        the few pods of that ReplicaSet, not from every pod of the Deployment (each through
        the selector: ~300 at 500 nodes / 15,000 pods, for every rollout's new ReplicaSet),
        and a pod event is offered to the counter of its own ReplicaSet only, not to those of
        all the Deployment's ReplicaSets."""
        best: tuple[int, str, str] | None = None
        index = self._label_index
        for k, v in eqs:
            buckets = index.get(k)
            if buckets is None:
                if len(index) >= self.MAX_LABEL_KEYS:
                    continue
                buckets = self._index_key(k)
            n = len(buckets.get((namespace, v), ()))
            if best is None or n < best[0]:
                best = (n, k, v)
        if best is not None:
            return namespace, best[1], best[2]
        return (namespace, eqs[0][0], eqs[0][1]) if eqs else None

    MAX_DOMAIN_SUMS = 8   # per counter (a few masks: one per pod spec that narrows the nodes)

    def domain_counts(self, namespace: str, selector: Any, key: str, incl: np.ndarray,
                      keys: np.ndarray | None = None) -> np.ndarray:
        """Per domain of topology ``key`` (``topology(key)``'s value ids): the pods
        ``match_counts`` counts, summed over the nodes ``incl`` (and ``keys``, when given)
        admit — ``np.bincount(ids[mask], weights=match_counts(...)[mask])`` — counted once,
        then kept current from the cache's pod events with the per-node counts (a pod bound
        or gone moves one domain by one), so a template's pods read their domains' counts
        without summing every node's. ``incl`` and ``keys`` must be arrays that stay the same
        objects while the nodes' static parts do (``inclusion_mask``'s, ``has_keys``'). The
        answer is read-only for the caller (it moves with the next pod event: copy to keep)."""
        ids, values, _has = self.topology(key)
        if selector is None:
            return np.zeros(len(values), dtype=_I64)
        c = self._match_counter(namespace, selector)
        dkey = (key, id(incl), id(keys))
        doms = c.domains
        if doms is None:
            doms = c.domains = {}
        d = doms.get(dkey)
        if d is not None and d.incl is incl and d.keys is keys:
            return d.per
        if len(doms) >= self.MAX_DOMAIN_SUMS:
            doms.clear()
            self.epoch += 1
        d = doms[dkey] = _Domains(incl, keys, ids, c.counts, len(values))
        return d.per

    def class_keys(self, namespace: str, selector: Any, ids: np.ndarray, low: int) -> np.ndarray:
        """Per node: ``match_counts(namespace, selector) * low + ids`` — the node's matching
        pods and its domain id (``ids``: a topology's ids, ``low``: its number of domains) as
        one class key (PodTopologySpread's classes of candidates, hostname over a domain) —
        made once, then kept current from the cache's pod events with the counts, so a
        template's pods gather their candidates' keys without a product and a sum over them.
        ``ids`` must stay the same object while the nodes' static parts do (``topology``'s).
        Read-only for the caller (it moves with the next pod event)."""
        c = self._match_counter(namespace, selector)
        keyed = c.keyed
        if keyed is None:
            keyed = c.keyed = {}
        k = keyed.get(id(ids))
        if k is not None and k.ids is ids and k.low == low:
            return k.keys
        if len(keyed) >= self.MAX_DOMAIN_SUMS:
            keyed.clear()
            self.epoch += 1
        k = keyed[id(ids)] = _Keyed(ids, c.counts, low)
        return k.keys

    def domains_present(self, key: str, incl: np.ndarray,
                        keys: np.ndarray | None = None) -> np.ndarray:
        """Per domain of topology ``key``: whether any node ``incl`` (and ``keys``) admits is
        in it (read-only; static: kept until the nodes' static parts change)."""
        skey = ("domains_present", key, id(incl), id(keys))
        hit = self._static.get(skey)
        if hit is not None and hit[0] is incl and hit[1] is keys:
            return hit[2]
        ids, values, _has = self.topology(key)
        mask = incl if keys is None else incl & keys
        present = np.bincount(ids[mask], minlength=len(values)) > 0
        present.flags.writeable = False
        self._static[skey] = (incl, keys, present)
        return present

    def pod_counts(self, key: Any, pred: Callable[[Any], bool],
                   route: tuple[str, str, str] | None = None) -> np.ndarray:
        """Per node: how many of its pods satisfy ``pred`` — counted once, then kept current
        from the cache's pod events. ``key`` must identify ``pred``; ``route``, when given, is
        (namespace, label key, value) that every pod ``pred`` accepts has (pods without it
        are not offered to ``pred``)."""
        return self._counter(key, pred, route).counts

    def _counter(self, key: Any, pred: Callable[[Any], bool],
                 route: tuple[str, str, str] | None) -> _Counter:
        c = self._counters.get(key)
        if c is None:
            counts = self._count(pred, route)
            if len(self._counters) >= self.MAX_COUNTERS:
                self._counters.pop(next(iter(self._counters)))
                self.epoch += 1
            c = self._counters[key] = _Counter(pred, counts, route)
            self._routes = None
        return c

    MAX_LABEL_KEYS = 8

    def _count(self, pred: Callable[[Any], bool],
               route: tuple[str, str, str] | None) -> np.ndarray:
        """Per node: how many of its pods satisfy ``pred`` (a new counter's start)."""
        if route is None or (route[1] not in self._label_index
                             and len(self._label_index) >= self.MAX_LABEL_KEYS):
            return np.fromiter((sum(1 for pi in ni.pods.values() if pred(pi))
                                for ni in self.infos), _I64, self.n)
        ns, k, v = route
        buckets = self._label_index.get(k)
        if buckets is None:
            buckets = self._index_key(k)
        counts = np.zeros(self.n, dtype=_I64)
        bucket = buckets.get((ns, v))
        if bucket:
            infos = self.infos
            for pkey, i in bucket.items():
                cur = infos[i].pods.get(pkey)
                if cur is not None and pred(cur):
                    counts[i] += 1
        return counts

    def _index_key(self, k: str) -> dict[tuple[str, str], dict[str, int]]:
        """Index label key ``k`` (one pass over every pod; kept current by ``_index_pod``
        after)."""
        buckets: dict[tuple[str, str], dict[str, int]] = {}
        self._label_index[k] = buckets
        for ni in self.infos:
            i = ni.index
            for pkey, pi in ni.pods.items():
                lv = pi.labels.get(k)
                if lv is None:
                    continue
                bucket = buckets.get((pi.namespace, lv))
                if bucket is None:
                    bucket = buckets[(pi.namespace, lv)] = {}
                bucket[pkey] = i
        return buckets

    def value_index(self, key: str) -> dict:
        """The topology key's value -> domain id map."""
        self.topology(key)
        return self._topology[key][3]

    def name_mask(self, names: Any) -> np.ndarray:
        m = np.zeros(self.n, dtype=bool)
        for name in names:
            i = self._name_index.get(name)
            if i is not None:
                m[i] = True
        return m

    # -- the cycle ----------------------------------------------------------------------------
    MAX_PLANS = 512

    def pod_plan(self, fwk: Any, state: Any, pod: Pod) -> PodPlan:
        """The PreFilter steps of ``pod``'s spec object with its spec-only answers recorded
        (pod_plan.py), made at the first pod of the spec."""
        spec = pod.spec
        plan = self._plans.get(id(spec))
        if plan is not None and plan.spec is spec and \
                plan.plugins[0] is fwk.pre_filter_plugins and \
                plan.plugins[1] is fwk.pre_score_plugins:
            return plan
        if len(self._plans) >= self.MAX_PLANS:
            self._plans.clear()
        steps = merged(pre_filter_steps(fwk.pre_filter_steps(True), pod,
                                        _pod_info(state, pod), self, self.infos))
        # The entry holds the spec, so no other object takes its id while it stands.
        plan = self._plans[id(spec)] = PodPlan(spec, steps, (fwk.pre_filter_plugins,
                                                             fwk.pre_score_plugins))
        return plan

    def find_nodes_that_fit(self, ctx: Any, fwk: Any, state: Any,
                            pod: Pod) -> tuple[list[NodeInfo], Diagnosis]:
        self.sync()
        diagnosis = Diagnosis()
        infos = self.infos
        plan = self._cycle_plan = self.pod_plan(fwk, state, pod)
        result, plugins, early = pre_filter_and_nominated(ctx, fwk, state, pod, infos,
                                                          diagnosis, vec_ctx=self,
                                                          steps=plan.pre_filter)
        if early is not None:
            return early, diagnosis
        if result is not None and not result.all_nodes():
            cand = np.fromiter((ni.index for ni in restrict_nodes(ctx, result.node_names)), _I64)
            diagnosis.node_to_status.absent = prefilter_absent_status(plugins)
        else:
            cand = None
        m = self.n if cand is None else len(cand)
        if m == 0:
            return [], diagnosis
        fail_plugin, fail_code, scalar = self._filter(state, pod, fwk, cand, plan)
        # Kept for explain, which shows every node's verdict from the same evaluation.
        self.last_filter = (state, fail_plugin, fail_code, scalar, self._status_maps)
        to_find = num_feasible_nodes_to_find(percentage_for(ctx, fwk), m)
        if not fwk.has_score_plugins():
            to_find = 1
        if cand is None and fwk.has_filter_plugins():
            if not self._any_failed:
                # Every node passed (a roomy cluster): the search visits to_find nodes from
                # the start, all passing — search_from's answer without scanning the verdicts.
                start = ctx.next_start_node_index % m
                feasible_idx = rotation(self._all_idx, start, to_find)
                found = self._found(ctx, fwk, infos, feasible_idx, self._all_idx[:0],
                                    fail_plugin, fail_code, scalar, diagnosis)
                if start + len(feasible_idx) <= m:
                    self._run = (feasible_idx, slice(start, start + len(feasible_idx)))
                self._rot = (feasible_idx, start)
                return found
            ok = np.flatnonzero(fail_plugin == 0)
            if not len(ok):
                # Fits nowhere (a backlog pod): every node was seen and failed, whatever the
                # start (the diagnosis lists nodes as a set).
                feasible_idx, failed_idx = self._all_idx[:0], self._all_idx
            else:
                feasible_idx, failed_idx = search_from(
                    fail_plugin, ctx.next_start_node_index % m, to_find, ok)
            return self._found(ctx, fwk, infos, feasible_idx, failed_idx, fail_plugin,
                               fail_code, scalar, diagnosis)
        order = (ctx.next_start_node_index + np.arange(m)) % m
        if cand is not None:
            order = cand[order]
        passing = fail_plugin[order] == 0
        if not fwk.has_filter_plugins():
            passing = np.ones(m, dtype=bool)
        if not passing.any():
            feasible_idx, failed_idx = order[:0], order
        else:
            cum = np.cumsum(passing)
            if cum[-1] >= to_find:
                processed = int(np.searchsorted(cum, to_find)) + 1
            else:
                processed = m
            seen = order[:processed]
            ok = passing[:processed]
            feasible_idx = seen[ok]
            failed_idx = seen[~ok]
        return self._found(ctx, fwk, infos, feasible_idx, failed_idx, fail_plugin,
                           fail_code, scalar, diagnosis)

    def _found(self, ctx: Any, fwk: Any, infos: list[NodeInfo],
               feasible_idx: np.ndarray, failed_idx: np.ndarray, fail_plugin: np.ndarray,
               fail_code: np.ndarray, scalar: dict, diagnosis: Diagnosis):
        if len(failed_idx):
            self._diagnose(failed_idx, fail_plugin, fail_code, scalar, fwk, diagnosis)
        n_all = self.n
        ctx.next_start_node_index = (ctx.next_start_node_index + len(feasible_idx)
                                     + len(diagnosis.node_to_status)) % n_all
        feasible = IndexedNodes(infos, feasible_idx)
        self._last = (feasible, feasible_idx)
        self._run = None
        self._rot = None
        return feasible, diagnosis

    def candidate_domains(self, ids: np.ndarray, domains: int,
                          idx: np.ndarray) -> tuple[np.ndarray, int]:
        """Per domain of ``ids`` (a topology's ids, ``domains`` of them): whether a candidate
        of ``idx`` is in it (read-only), and how many are. When ``idx`` is this cycle's
        rotation of every node (every node passed: ``_rot``) the answer is a function of the
        static ids, the start and the count: kept per (ids, start, count) until the nodes'
        static parts change, where each pod of a roomy cluster made it with four array
        calls (PodTopologySpread's PreScore, per domain constraint)."""
        rot = self._rot
        key = None
        if rot is not None and rot[0] is idx:
            key = ("candidate_domains", id(ids), rot[1], len(idx))
            hit = self._static.get(key)
            if hit is not None and hit[0] is ids:
                return hit[1], hit[2]
        present = np.zeros(domains, dtype=bool)
        present[self.gather(ids, idx)] = True
        count = int(np.count_nonzero(present))
        if key is not None:
            present.flags.writeable = False
            # The entry holds ids, so its id is not reused while the entry stands.
            self._static[key] = (ids, present, count)
        return present, count

    def gather(self, values: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """``values[idx]`` (read-only for the caller, and only until ``values`` next
        changes: a score plugin's array is summed into the totals at once): a view of one
        slice when ``idx`` is this cycle's unbroken run of nodes (``_run``), ~1 µs against ~5
        for the fancy index of the hundreds of candidates a cycle scores."""
        run = self._run
        if run is not None and run[0] is idx:
            return values[run[1]]
        return values[idx]

    def _filter(self, state: Any, pod: Pod, fwk: Any, cand: Any, plan: PodPlan):
        """Per node: the first failing filter plugin (its index + 1; -1 outside ``cand``, 0
        passing) and its reason code. The arrays are made at the first failure: when no node
        fails (most pods of a roomy cluster) both are the shared read-only zeros.

        Only the plugins the pod does not skip are walked: the steps are kept by skip set (a
        skipped plugin costs nothing, where testing each of the dozen plugins' names cost
        every pod). A plugin whose filter_vec reads only the spec and the nodes' static parts
        (``filter_vec_static``) and let every node pass a pod of ``plan``'s spec is left out
        of the steps the spec keeps (``plan.filters``) for its later pods with the same skip
        set, until the nodes' static parts change. They are recorded from the spec's second
        pod: a spec seen once (every pod of its own spec, as scheduler_perf decodes them)
        pays only for marking it seen."""
        n = self.n
        fail_plugin: Any = None
        fail_code: Any = None
        if cand is not None:
            fail_plugin, fail_code = _fail_arrays(n)
            outside = np.ones(n, dtype=bool)
            outside[cand] = False
            fail_plugin[outside] = -1
        scalar: dict[int, Status] = {}
        skip = state.skip_filter
        plugins = fwk.filter_plugins
        self._status_maps: list = [None] * len(plugins)
        gen = self._static_gen
        kept = plan.filters
        passed: list | None = None
        if kept[1] == gen and kept[2] is plugins and kept[0] == skip:
            steps = kept[3]
        else:
            last = self._fsteps_last
            if last[0] is plugins and last[1] == skip:
                key, steps = last[1], last[2]
            else:
                key = frozenset(skip)
                if self._fsteps_of is not plugins:
                    self._fsteps = {}
                    self._fsteps_of = plugins
                steps = self._fsteps.get(key)
                if steps is None:
                    if len(self._fsteps) >= self.MAX_PLANS:
                        self._fsteps.clear()
                    steps = self._fsteps[key] = [
                        (k, pl, getattr(pl, "filter_vec", None),
                         getattr(pl, "filter_vec_static", False))
                        for k, pl in enumerate(plugins) if pl.name not in skip]
                self._fsteps_last = (plugins, key, steps)
            if kept is FILTERS_UNSEEN:
                plan.filters = FILTERS_SEEN
            else:
                passed = []
        # Whether any node is out already (else a plugin's failures are all first failures).
        failed_any = cand is not None
        for k, pl, vec, static in steps:
            if vec is not None:
                res = vec(state, pod, self)
                if res is None:
                    if static and passed is not None:
                        passed.append(k)
                    continue
                codes, statuses = res
                self._status_maps[k] = statuses
                if not np.count_nonzero(codes):   # every node passes it: no mask built
                    continue
                if fail_plugin is None:
                    fail_plugin, fail_code = _fail_arrays(n)
                newly = codes != 0
                if failed_any:
                    newly &= fail_plugin == 0
                fail_plugin[newly] = k + 1
                fail_code[newly] = codes[newly]
                failed_any = True
            else:
                if fail_plugin is None:
                    fail_plugin, fail_code = _fail_arrays(n)
                for i in np.flatnonzero(fail_plugin == 0).tolist():
                    st = pl.filter(state, pod, self.infos[i])
                    if st is not None and st.code != Code.SUCCESS:
                        fail_plugin[i] = k + 1
                        scalar[i] = st
                        failed_any = True
        if passed is not None:
            plan.filters = (key, gen, plugins,
                            [st for st in steps if st[0] not in passed] if passed else steps)
        nominated = fwk.handle.nominated
        if nominated:
            if fail_plugin is None:
                fail_plugin, fail_code = _fail_arrays(n)
            prio = pod.spec.priority or 0
            key = f"{pod.metadata.namespace}/{pod.metadata.name}"
            for name, pods in nominated.items():
                i = self._name_index.get(name)
                if i is None or fail_plugin[i] < 0:
                    continue
                if any(p.priority >= prio and p.key != key for p in pods.values()):
                    # The node is judged with those pods on it (and, if that passes, without).
                    st = fwk.run_filter_with_nominated(state, pod, self.infos[i], prio, key)
                    scalar.pop(i, None)
                    if st is None:
                        fail_plugin[i] = 0
                    else:
                        fail_plugin[i] = 1 + next(j for j, p in enumerate(fwk.filter_plugins)
                                                  if p.name == st.plugin)
                        scalar[i] = st
                        failed_any = True
        # False only when no node failed (every verdict 0): find_nodes_that_fit's shortcut.
        self._any_failed = failed_any
        if fail_plugin is None:
            fail_plugin, fail_code = self._no_failure
        return fail_plugin, fail_code, scalar

    def _diagnose(self, failed_idx: np.ndarray, fail_plugin: np.ndarray, fail_code: np.ndarray,
                  scalar: dict, fwk: Any, diagnosis: Diagnosis) -> None:
        """Every failed node's status: one shared Status per plugin and reason set, listed as
        a group of node indices (no per-node dict for a pod that fails on every node)."""
        nts = diagnosis.node_to_status
        infos = self.infos
        plugins = fwk.filter_plugins
        if scalar:
            in_scalar = np.fromiter((i in scalar for i in failed_idx.tolist()), bool,
                                    len(failed_idx))
            names = self._names
            for i in failed_idx[in_scalar].tolist():
                st = scalar[i]
                if st.code == Code.ERROR:
                    raise SchedulingError(st.message())
                st = Status(st.code, *st.reasons, detail=st.detail,
                            plugin=plugins[int(fail_plugin[i]) - 1].name)
                nts.set(names[i], st)
                diagnosis.unschedulable_plugins.add(st.plugin)
            failed_idx = failed_idx[~in_scalar]
        if not len(failed_idx):
            return
        if len(failed_idx) == self.n:   # every node (no need to gather them)
            fp, fc = fail_plugin, fail_code
        else:
            fp, fc = fail_plugin[failed_idx], fail_code[failed_idx]
        if fp.min() == fp.max() and fc.min() == fc.max():
            groups: Any = (failed_idx,)  # every node failed alike (a backlog pod)
        else:
            keys = fail_plugin[failed_idx].astype(np.int64) * (1 << 40) + fail_code[failed_idx]
            order = np.argsort(keys, kind="stable")
            bounds = np.flatnonzero(np.diff(keys[order])) + 1
            groups = (failed_idx[g] for g in np.split(order, bounds))
        for idx in groups:
            i0 = int(idx[0])
            k, c = int(fail_plugin[i0]) - 1, int(fail_code[i0])
            tmpl = self._status_maps[k][c]
            st = Status(tmpl.code, *tmpl.reasons, plugin=plugins[k].name)
            nts.set_group(st, idx, infos)
            diagnosis.unschedulable_plugins.add(st.plugin)

    def _score_plan(self, fwk: Any) -> list:
        """The profile's Score plugins with their vectorized methods and weights looked up
        once (not three getattr calls per plugin and pod); prioritize reads the kept plan
        inline, this makes it."""
        plan = self._plan
        if plan is not None and plan[0] is fwk and plan[1] is fwk.score_plugins:
            return plan[2]
        score = [(pl.name, pl, getattr(pl, "score_vec", None), getattr(pl, "normalize_vec", None),
                  getattr(pl, "normalize_score", None), fwk.weights[pl.name],
                  getattr(pl, "constant_score", None), getattr(pl, "weighted_score_vec", None))
                 for pl in fwk.score_plugins]
        self._plan = (fwk, fwk.score_plugins, score)
        return score

    def prioritize(self, fwk: Any, state: Any, pod: Pod, feasible: list[NodeInfo],
                   keep_scores: bool = True) -> tuple[list[str], list, np.ndarray]:
        """(plugin names, normalized scores per plugin, weighted totals) of the candidates
        ``feasible``, as the plain path's prioritize; without ``keep_scores`` only the
        totals (the names and scores are empty), made by :meth:`_totals`."""
        plan = self._plan
        if plan is not None and plan[0] is fwk and plan[1] is fwk.score_plugins:
            score = plan[2]
        else:
            score = self._score_plan(fwk)
        if not score:   # fwk.has_score_plugins()
            return [], [], np.ones(len(feasible), dtype=_I64)
        last = self._last
        if last is not None and last[0] is feasible:
            idx = last[1]
        else:
            idx = np.fromiter((ni.index for ni in feasible), _I64, len(feasible))
        pod_plan = self._cycle_plan   # find_nodes_that_fit's, when it is this pod's spec's
        if pod_plan is None or pod_plan.spec is not pod.spec or \
                pod_plan.plugins[0] is not fwk.pre_filter_plugins or \
                pod_plan.plugins[1] is not fwk.pre_score_plugins:
            pod_plan = self.pod_plan(fwk, state, pod)
        pre = pod_plan.pre_score
        if pre is None:
            pre = pod_plan.pre_score = merged(pre_score_steps(
                fwk.pre_score_plugins, pod, _pod_info(state, pod),
                lambda fn, with_ctx, st: fn(st, pod, self, idx) if with_ctx else
                fn(st, pod, feasible)))
        skip_score = state.skip_score
        for pl, fn, with_ctx, memo in pre:
            if memo is not None:
                replay(state, memo, skip_score)  # the answers for every pod of this spec
                continue
            st = fn(state, pod, self, idx) if with_ctx else fn(state, pod, feasible)
            if st is not None:
                if st.code == Code.SKIP:
                    skip_score.add(pl.name)
                elif st.code != Code.SUCCESS:
                    raise SchedulingError(st.message())
        if not keep_scores:
            return [], [], self._totals(score, state, pod, feasible, idx)
        # the per-plugin scores are kept (explain shows them): copies, not views of columns
        # that the next bind changes (gather); the run stands for a later call on these nodes
        run, self._run = self._run, None
        names: list[str] = []
        per_plugin: list = []
        totals = None
        for name, pl, vec, nv, ns, weight, _c, _w in score:
            if name in skip_score:
                continue
            s = _normalized(pl, vec, nv, ns, state, pod, self, idx, feasible)
            # A plugin's array may be shared (read-only): totals is always a new array.
            if totals is None:
                totals = s.astype(_I64)
                if weight != 1:
                    totals *= weight
            elif weight == 1:
                totals += s
            else:
                totals += s * weight
            names.append(name)
            per_plugin.append(s)
        if totals is None:
            totals = np.zeros(len(feasible), dtype=_I64)
        self._run = run
        return names, per_plugin, totals

    def _totals(self, score: list, state: Any, pod: Pod, feasible: list[NodeInfo],
                idx: np.ndarray) -> np.ndarray:
        """prioritize's weighted totals alone, when no one reads the per-plugin scores (the
        scheduler's own cycle: only the winner and its ties matter, drawn from the totals).
        The same sums of the same integers, in fewer array operations: a plugin whose scores
        are one number for every node (``constant_score``) adds that number once, and a
        plugin that can give its weighted normalized scores at once
        (``weighted_score_vec``) is not scored, normalized and multiplied in three steps.
        tests/scheduler/test_prioritize_totals.py holds them to prioritize's."""
        skip_score = state.skip_score
        last = self._tsteps_last
        if last[0] is not score or last[1] != skip_score:
            last = self._totals_steps(score, skip_score)
        steps, folds = last[2], last[3]
        const = 0
        totals = None
        for pl, vec, nv, ns, weight, constant, weighted in steps:
            if constant is not None:
                c = constant(state, pod, self)
                if c is not None:
                    const += c * weight
                    continue
            if weighted is not None:
                # the constants so far go into its scores (a number per class), not into
                # every candidate by an array operation
                s = weighted(state, pod, self, idx, weight, const)
                if s is not None:   # a new array: added to, or kept as the totals
                    const = 0
                    if totals is None:
                        totals = s
                    else:
                        totals += s
                    continue
            s = _normalized(pl, vec, nv, ns, state, pod, self, idx, feasible)
            # A plugin's array may be shared (read-only): totals is always a new array.
            if totals is None:   # a new int64 array (the constants so far folded in,
                # unless a weighted step to come takes them: a copy, not a sum with a number)
                if weight != 1:
                    totals = np.multiply(s, weight, dtype=_I64)
                elif folds:
                    totals = s.astype(_I64)
                else:
                    totals = np.add(s, const, dtype=_I64)
                    const = 0
            elif weight == 1:
                totals += s
            else:
                totals += s * weight
        if totals is None:
            return np.full(len(feasible), const, dtype=_I64)
        if const:
            totals += const
        return totals

    def _totals_steps(self, score: list, skip: set) -> tuple:
        """_totals' steps for the skip set ``skip``: the score plan's plugins not skipped,
        without their names (kept by skip set: a skipped plugin costs a pod nothing), and
        whether one of them has ``weighted_score_vec`` (which takes the constants into its
        scores); kept as ``_tsteps_last``, which it returns."""
        if self._tsteps_of is not score:
            self._tsteps = {}
            self._tsteps_of = score
        key = frozenset(skip)
        steps = self._tsteps.get(key)
        if steps is None:
            if len(self._tsteps) >= self.MAX_PLANS:
                self._tsteps.clear()
            steps = self._tsteps[key] = [step[1:] for step in score if step[0] not in skip]
        folds = any(step[6] is not None for step in steps)
        self._tsteps_last = (score, key, steps, folds)
        return self._tsteps_last


def _normalized(pl: Any, vec: Any, nv: Any, ns: Any, state: Any, pod: Pod, ctx: FastPath,
                idx: np.ndarray, feasible: list[NodeInfo]) -> np.ndarray:
    """One plugin's normalized scores of the candidates: its numpy twins where it has them,
    else its plain Score per node and NormalizeScore over the list."""
    if vec is not None:
        s = vec(state, pod, ctx, idx)
    else:
        s = np.array([pl.score(state, pod, ni) for ni in feasible], dtype=_I64)
    if nv is not None:
        s = nv(state, pod, s, ctx, idx)
    elif ns is not None:
        lst = s.tolist()
        ns(state, pod, lst, feasible)
        s = np.array(lst, dtype=_I64)
    return s


def _fail_arrays(n: int) -> tuple[np.ndarray, np.ndarray]:
    """_filter's verdicts, every node passing so far: (failing plugin, reason code)."""
    return np.zeros(n, dtype=np.int16), np.zeros(n, dtype=np.int64)


def _pod_info(state: Any, pod: Pod) -> PodInfo:
    """The cycle's PodInfo of ``pod`` (new_cycle_state wrote it), else a fresh one."""
    pi = state.get("PodInfo")
    return pi if pi is not None and pi.pod is pod else PodInfo(pod)
