"""The scheduler cache: NodeInfos kept current from watch events, and the node order.

Upstream ``backend/cache/cache.go`` + ``snapshot.go`` + ``node_tree.go``. Each assigned,
non-terminal pod is added to its node's NodeInfo once and removed once; a node update swaps
the node object and keeps the pods. Nothing is rebuilt from the store per pod: a scheduling
cycle reads the cache as its snapshot (the sandbox is single-threaded, so nothing changes
under a cycle; binding updates the cache through the same watch events as everything else).

The node list is ordered like upstream's nodeTree: zones in order of appearance, nodes taken
round-robin across zones, so that sampling (percentageOfNodesToScore) spreads over zones.

``static_version`` changes whenever something a per-template cache may depend on changes
(the node set, labels, taints, unschedulable, allocatable, images); ``version`` changes on
every modification.

Not here: scheduling, queueing.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ...api.core import TERMINATED_PHASES
from .node_info import (
    LABEL_REGION,
    LABEL_ZONE,
    NodeInfo,
    PodInfo,
    SpecParts,
    has_pod_affinity,
    spec_parts,
)

if TYPE_CHECKING:
    from ...api.core import Node, Pod


def zone_key(node: Node) -> str:
    """utilnode.GetZoneKey: region and zone labels joined (empty when neither is set)."""
    labels = node.metadata.labels
    region, zone = labels.get(LABEL_REGION, ""), labels.get(LABEL_ZONE, "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


class SchedulerCache:
    def __init__(self) -> None:
        self.node_infos: dict[str, NodeInfo] = {}
        self._zones: dict[str, list[str]] = {}
        self._node_list: list[NodeInfo] | None = []
        self.image_nodes: Counter = Counter()
        self.version = 0
        self.static_version = 0
        self._with_affinity: dict[str, NodeInfo] = {}
        self._with_anti: dict[str, NodeInfo] = {}
        # Pods whose terms InterPodAffinity's score reads: key -> (NodeInfo, PodInfo).
        self._scoring: dict[str, tuple[NodeInfo, PodInfo]] = {}
        # Pods the cache knows, by key -> node name (to find them again on update/delete).
        self._pod_node: dict[str, str] = {}
        # Pods bound to a node the cache does not have (yet, or any more), by node name.
        self._orphans: dict[str, dict[str, Any]] = {}
        # Called with the NodeInfo after its pods changed (the fast path's arrays listen),
        # and with (NodeInfo, PodInfo) when one pod is added or removed (its counters listen).
        self.on_node_changed: list[Callable[[NodeInfo], None]] = []
        self.on_pod_added: list[Callable[[NodeInfo, PodInfo], None]] = []
        self.on_pod_removed: list[Callable[[NodeInfo, PodInfo], None]] = []
        # Called with (NodeInfo, old PodInfo, new PodInfo) when a pod turns terminating (or
        # back) in place (_replace_status_only): what a removal of the old and an addition of
        # the new would tell the pod listeners, in one call (the same key, namespace, labels
        # and node on both sides). A listener here hears those swaps instead of the pair.
        self.on_pod_swapped: list[Callable[[NodeInfo, PodInfo, PodInfo], None]] = []

    # -- reads --------------------------------------------------------------------------------
    def node_list(self) -> list[NodeInfo]:
        """Every NodeInfo in nodeTree order."""
        if self._node_list is None:
            out: list[NodeInfo] = []
            zones = list(self._zones.values())
            i = 0
            remaining = len(self.node_infos)
            while len(out) < remaining:
                for names in zones:
                    if i < len(names):
                        out.append(self.node_infos[names[i]])
                i += 1
            for idx, ni in enumerate(out):
                ni.index = idx
            self._node_list = out
        return self._node_list

    def get(self, name: str) -> NodeInfo | None:
        return self.node_infos.get(name)

    def num_nodes(self) -> int:
        return len(self.node_infos)

    def have_pods_with_affinity(self) -> list[NodeInfo]:
        """Nodes hosting a pod with (anti-)affinity, in node order (kept incrementally)."""
        self.node_list()
        return sorted(self._with_affinity.values(), key=_index)

    def have_pods_with_required_anti_affinity(self) -> list[NodeInfo]:
        self.node_list()
        return sorted(self._with_anti.values(), key=_index)

    def pods_with_scoring_affinity(self) -> list:
        self.node_list()
        return sorted(self._scoring.values(), key=lambda e: (e[0].index, e[1].key))

    def _track(self, ni: NodeInfo) -> None:
        for d, has in ((self._with_affinity, ni.pods_with_affinity),
                       (self._with_anti, ni.pods_with_required_anti_affinity)):
            if has:
                d[ni.name] = ni
            else:
                d.pop(ni.name, None)

    # -- nodes --------------------------------------------------------------------------------
    def add_node(self, node: Node) -> None:
        name = node.metadata.name
        ni = self.node_infos.get(name)
        if ni is not None:
            self.update_node(ni.node, node)
            return
        ni = NodeInfo(node)
        self.node_infos[name] = ni
        self._zones.setdefault(zone_key(node), []).append(name)
        self._add_images(ni, 1)
        self._node_list = None
        self._bump(static=True)
        for pod in self._orphans.pop(name, {}).values():
            self.add_pod(pod)

    def update_node(self, old: Any, node: Node) -> None:
        name = node.metadata.name
        ni = self.node_infos.get(name)
        if ni is None:
            self.add_node(node)
            return
        old_node = ni.node
        old_zone = zone_key(old_node)
        new_zone = zone_key(node)
        if old_zone != new_zone:
            self._remove_from_zone(old_zone, name)
            self._zones.setdefault(new_zone, []).append(name)
            self._node_list = None
        static = _static_changed(old_node, node)
        if static:
            self._add_images(ni, -1)
        ni.set_node(node)
        if static:
            self._add_images(ni, 1)
        self._bump(static=static)
        if not static:
            return
        for fn in self.on_node_changed:
            fn(ni)

    def remove_node(self, node: Node) -> None:
        name = node.metadata.name
        ni = self.node_infos.pop(name, None)
        if ni is None:
            return
        self._remove_from_zone(zone_key(ni.node), name)
        self._add_images(ni, -1)
        self._with_affinity.pop(name, None)
        self._with_anti.pop(name, None)
        # Its pods wait for the node to come back (or for their own deletion).
        orphans = self._orphans.setdefault(name, {})
        for key, pi in ni.pods.items():
            orphans[key] = pi.pod
            self._scoring.pop(key, None)
        self._node_list = None
        self._bump(static=True)

    def _remove_from_zone(self, zone: str, name: str) -> None:
        names = self._zones.get(zone)
        if names is not None and name in names:
            names.remove(name)
            if not names:
                del self._zones[zone]

    def _add_images(self, ni: NodeInfo, sign: int) -> None:
        for name in ni.images:
            self.image_nodes[name] += sign
            if self.image_nodes[name] <= 0:
                del self.image_nodes[name]

    # -- pods ---------------------------------------------------------------------------------
    def add_pod(self, pod: Pod, parsed: PodInfo | None = None, key: str | None = None) -> None:
        """An assigned, non-terminal pod appeared (or changed); others are ignored.
        ``parsed``: a PodInfo of an earlier version of this pod (the scheduling queue's, at
        the bind), reused when its terms still hold (PodInfo.same_terms). ``key``: the pod's
        ``namespace/name`` when the caller has it (the scheduler's watch handler)."""
        if key is None:
            key = f"{pod.metadata.namespace}/{pod.metadata.name}"
        if key in self._pod_node:
            if self._replace_status_only(key, pod):
                return
            removed = self._remove_pod_key(key)
            if removed is not None:
                parsed = removed   # e.g. the pod became terminating: same terms otherwise
        # (is_terminated, read as its phases here and below: a property is a call from C)
        if not pod.spec.node_name or pod.status.phase in TERMINATED_PHASES:
            return
        ni = self.node_infos.get(pod.spec.node_name)
        if ni is None:
            # Upstream keeps such pods in a NodeInfo without a Node until the node appears.
            self._orphans.setdefault(pod.spec.node_name, {})[key] = pod
            self._pod_node[key] = pod.spec.node_name
            return
        if parsed is not None and parsed.key == key and parsed.same_terms(pod):
            pi = parsed.with_pod(pod)
            pi.terminating = pod.metadata.deletion_timestamp is not None
        else:
            pi = PodInfo(pod, key)
        ni.add_pod(pi)
        self._pod_node[key] = ni.name
        for fn in self.on_pod_added:
            fn(ni, pi)
        if pi.has_affinity:
            self._track(ni)
            if pi.required_affinity or pi.preferred_affinity or pi.preferred_anti_affinity:
                self._scoring[key] = (ni, pi)
        self._bump(static=False)
        for fn in self.on_node_changed:
            fn(ni)

    def add_pods(self, pods: Iterable[Pod]) -> None:
        """``add_pod(pod)`` for each pod in turn (a load's assigned pods: the scheduler's
        load_done), each node's totals added once per distinct requests of its new pods
        instead of once per pod (NodeInfo.add_pods).

        Exact while nothing hears a single add (no ``on_*`` listener: before the first
        scheduling cycle makes a fast path): what the adds leave is the same — the NodeInfos'
        pods in the same order, their totals and generations, the cache's version. A pod the
        cache knows already, one with (anti-)affinity or host ports, a terminated one and one
        whose node is not known take ``add_pod`` itself, after the pods before it are in (tests/scheduler/test_cache_add_pods.py)."""
        if self.on_node_changed or self.on_pod_added or self.on_pod_removed or \
                self.on_pod_swapped:
            for pod in pods:
                self.add_pod(pod)
            return
        infos = self.node_infos
        pod_node = self._pod_node
        batch: dict[NodeInfo, list[PodInfo]] = {}
        # a PodInfo's spec_parts, worked out once per spec (a template's pods on one node
        # share their spec: the API server's admitted_spec), by the spec's identity (the
        # entry holds the spec); None for a spec with pod (anti-)affinity or host ports
        specs: dict[int, tuple[Any, SpecParts | None]] = {}
        plain = PodInfo.plain
        for pod in pods:
            meta = pod.metadata
            key = f"{meta.namespace}/{meta.name}"
            spec = pod.spec
            known = specs.get(id(spec))
            if known is not None and known[0] is spec:
                parts = known[1]
            else:
                parts = None if has_pod_affinity(spec) else spec_parts(spec)
                if parts is not None and parts[4]:
                    parts = None
                specs[id(spec)] = (spec, parts)
            ni = infos.get(spec.node_name)
            if ni is None or parts is None or key in pod_node or pod.is_terminated:
                self._add_batch(batch)
                self.add_pod(pod)
                continue
            pi = plain(pod, key, parts)
            group = batch.get(ni)
            if group is None:
                group = batch[ni] = []
            group.append(pi)
            pod_node[key] = ni.name
        self._add_batch(batch)

    def _add_batch(self, batch: dict[NodeInfo, list[PodInfo]]) -> None:
        """add_pods' pods gathered so far into their NodeInfos; ``batch`` is emptied."""
        if not batch:
            return
        n = 0
        for ni, pis in batch.items():
            ni.add_pods(pis)
            n += len(pis)
        batch.clear()
        self.version += n   # add_pod's _bump(static=False) of each

    def _replace_status_only(self, key: str, pod: Pod) -> bool:
        """A pod write that changes nothing the node's totals or the affinity indexes read
        (the kubelet's status posts, and the deletion that makes a pod terminating: same
        node, spec and labels): swap in a PodInfo of the new pod without removing and
        re-adding it, which would cost every listener two updates that cancel out. The key
        still moves to the end of the node's pods, exactly as remove + add leaves it. A pod
        turning terminating leaves the node's totals as they are (upstream keeps its
        requests on the node until it is gone), so only the pod listeners hear it (the
        counters skip terminating pods) — as one swap (``on_pod_swapped``) — not the node
        listeners. False: do the full remove + add."""
        node_name = pod.spec.node_name
        if self._pod_node[key] != node_name or pod.status.phase in TERMINATED_PHASES:
            return False
        ni = self.node_infos.get(node_name)
        old = ni.pods.get(key) if ni is not None else None
        if old is None:
            return False
        op = old.pod
        if (op.spec is not pod.spec or op.metadata.labels is not pod.metadata.labels
                or old.has_affinity or old.required_anti_affinity):
            return False
        pi = old.with_pod(pod)
        del ni.pods[key]
        ni.pods[key] = pi
        ni.generation += 2   # as a remove and an add would
        terminating = pod.metadata.deletion_timestamp is not None
        if old.terminating != terminating:
            pi.terminating = terminating
            for fn in self.on_pod_swapped:
                fn(ni, old, pi)
        self.version += 1   # _bump(static=False)'s, inline (a call more a status write)
        return True

    def remove_pod(self, pod: Pod, key: str | None = None) -> None:
        if key is None:
            key = f"{pod.metadata.namespace}/{pod.metadata.name}"
        if key in self._pod_node:
            self._remove_pod_key(key)
            self._bump(static=False)

    def _remove_pod_key(self, key: str) -> PodInfo | None:
        """Take the pod out; its PodInfo (None when it sat on a node not known yet)."""
        node_name = self._pod_node.pop(key)
        ni = self.node_infos.get(node_name)
        if ni is None or key not in ni.pods:
            orphans = self._orphans.get(node_name)
            if orphans is not None:
                orphans.pop(key, None)
                if not orphans:
                    del self._orphans[node_name]
            return None
        pi = ni.remove_pod(key)
        self._scoring.pop(key, None)
        for fn in self.on_pod_removed:
            fn(ni, pi)
        if pi.has_affinity:
            self._track(ni)
        for fn in self.on_node_changed:
            fn(ni)
        return pi

    def _bump(self, static: bool) -> None:
        self.version += 1
        if static:
            self.static_version += 1


def _index(ni: NodeInfo) -> int:
    return ni.index


def _static_changed(old: Any, new: Any) -> bool:
    """Whether a node update changes anything but status heartbeats (conditions excluded:
    the scheduler does not read them; condition taints arrive as taints)."""
    if old is None:
        return True
    if old.metadata.labels != new.metadata.labels:
        return True
    if old.spec is not new.spec and old.spec != new.spec:
        return True
    if old.status.allocatable != new.status.allocatable or \
            old.status.capacity != new.status.capacity:
        return True
    if old.status.images != new.status.images:
        return True
    return False
