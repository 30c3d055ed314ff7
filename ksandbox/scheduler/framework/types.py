"""FitError and Diagnosis: why a pod fits no node, in upstream's words.

Upstream ``framework/types.go``: ``0/N nodes are available: <count reason>, ... .`` with each
node's reasons counted and the "count reason" strings sorted, then the PreFilter message (if
PreFilter rejected the pod, instead of the per-node counts) and the PostFilter (preemption)
message, each as `` <msg>.``.
"""

from __future__ import annotations

from collections import Counter
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Sequence

from .interface import Code, Status

if TYPE_CHECKING:
    import numpy as np

    from ...api.core import Pod
else:
    from .lazy_numpy import np

NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"


_NAME = attrgetter("name")


class NodeToStatus:
    """Per-node rejection statuses, plus one status standing for every node not listed.

    Two ways in, one meaning. ``set(name, status)`` lists one node (the reference path, a
    nominated node, a node preemption tried). ``set_group(status, idx, infos)`` lists every
    ``infos[i]`` for ``i`` in ``idx`` with one shared Status: the fast path's diagnosis and
    preemption's "no victims" answer, where a pod that fits nowhere fails alike on thousands
    of nodes. While only groups are listed, counting (``len``, ``status_counts``) and
    selecting by code (``indices_for_code``) cost O(groups), not O(nodes); the per-name dict
    is built only when someone asks per node (``get``, ``in``, ``statuses``: explain, the
    tests), and from then on it is the one record. Writes keep upstream's map semantics: a
    later write for a node replaces an earlier one.
    """

    __slots__ = ("_by_name", "_groups", "_grouped", "_listed", "absent")

    def __init__(self) -> None:
        self._by_name: dict[str, Status] = {}
        # (shared status, node indices, the node list they index): pairwise disjoint, over
        # one node list, and only while ``_by_name`` is empty (any other write folds the
        # groups into the dict). ``_listed`` marks the nodes the groups hold (from the
        # second group on).
        self._groups: list[tuple[Status, np.ndarray, Sequence[Any]]] = []
        self._grouped = 0
        self._listed: Any = None
        self.absent: Status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    # -- writes -------------------------------------------------------------------------------
    def set(self, name: str, status: Status) -> None:
        if self._groups:
            self._materialize()
        self._by_name[name] = status

    def set_group(self, status: Status, idx: np.ndarray, infos: Sequence[Any]) -> None:
        """Every ``infos[i]`` for ``i`` in ``idx`` (distinct indices) gets ``status``."""
        if not len(idx):
            return
        groups = self._groups
        if groups:
            listed = self._listed
            if listed is None and groups[0][2] is infos:
                listed = self._listed = np.zeros(len(infos), dtype=bool)
                for g in groups:
                    listed[g[1]] = True
            if groups[0][2] is not infos or listed[idx].any():
                # Another node list, or a node listed again: keep one record (the dict).
                self._materialize()
            else:
                listed[idx] = True
        if self._by_name:
            self._by_name.update(dict.fromkeys(
                map(_NAME, map(infos.__getitem__, idx.tolist())), status))
            return
        self._groups.append((status, idx, infos))
        self._grouped += len(idx)

    def _materialize(self) -> None:
        by_name = self._by_name
        for st, idx, infos in self._groups:
            by_name.update(dict.fromkeys(map(_NAME, map(infos.__getitem__, idx.tolist())), st))
        self._groups = []
        self._grouped = 0
        self._listed = None

    # -- per node -----------------------------------------------------------------------------
    @property
    def statuses(self) -> dict[str, Status]:
        """Node name -> status for every listed node (built on first use)."""
        if self._groups:
            self._materialize()
        return self._by_name

    def get(self, name: str) -> Status:
        return self.statuses.get(name, self.absent)

    def __contains__(self, name: object) -> bool:
        return name in self.statuses

    def __len__(self) -> int:
        return len(self._by_name) + self._grouped

    # -- in bulk ------------------------------------------------------------------------------
    def status_counts(self) -> list[tuple[Status, int]]:
        """(status, how many listed nodes have it), one entry per distinct Status object."""
        if self._groups:
            return [(st, len(idx)) for st, idx, _ in self._groups]
        # Counted by object at C speed: the statuses are a handful of shared objects.
        statuses = list(self._by_name.values())
        ids = list(map(id, statuses))
        by_id = dict(zip(ids, statuses))
        return [(by_id[i], n) for i, n in Counter(ids).items()]

    def indices_for_code(self, infos: Sequence[Any], code: Code) -> np.ndarray | list[int]:
        """Indices into ``infos`` of the nodes whose status has ``code`` (nodes not listed use
        the absent status), ascending: a numpy array while groups are listed (the fast path),
        else a list — the plain path of a small cluster never imports numpy."""
        n = len(infos)
        if self._groups and self._groups[0][2] is infos:
            mask = np.full(n, self.absent.code == code, dtype=bool)
            for st, idx, _ in self._groups:
                mask[idx] = st.code == code
            return np.flatnonzero(mask)
        got = list(map(self.statuses.get, map(_NAME, infos)))
        distinct = dict(zip(map(id, got), got))
        good = {i for i, st in distinct.items()
                if (st if st is not None else self.absent).code == code}
        return list(compress(range(n), map(good.__contains__, map(id, got))))

    def nodes_for_code(self, infos: Sequence[Any], code: Code) -> list:
        """The nodes of ``infos`` whose status has ``code``, in ``infos`` order."""
        idx = self.indices_for_code(infos, code)
        return [infos[i] for i in (idx if isinstance(idx, list) else idx.tolist())]


class Diagnosis:
    def __init__(self) -> None:
        self.node_to_status = NodeToStatus()
        self.unschedulable_plugins: set[str] = set()
        self.pre_filter_msg = ""
        self.post_filter_msg = ""

    def add_plugin_status(self, status: Status) -> None:
        if status.plugin:
            self.unschedulable_plugins.add(status.plugin)


class FitError(Exception):
    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis
        self._counted: str | None = None

    def reason_histogram(self) -> dict[str, int]:
        nts = self.diagnosis.node_to_status
        reasons: dict[str, int] = {}
        for st, n in nts.status_counts():
            for r in st.reasons:
                reasons[r] = reasons.get(r, 0) + n
        missing = self.num_all_nodes - len(nts)
        if missing > 0:
            for r in nts.absent.reasons:
                reasons[r] = reasons.get(r, 0) + missing
        return reasons

    def _counts(self) -> str:
        """The sorted "count reason" list (computed once: the statuses are final when the
        error is raised)."""
        if self._counted is None:
            self._counted = ", ".join(sorted(f"{v} {k}"
                                             for k, v in self.reason_histogram().items()))
        return self._counted

    def __str__(self) -> str:
        msg = NO_NODE_AVAILABLE_MSG.format(self.num_all_nodes) + ":"
        d = self.diagnosis
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            counts = self._counts()
            if counts:
                msg += f" {counts}."
        if d.post_filter_msg:
            msg += f" {d.post_filter_msg}"
        return msg
