"""The ``kubelets`` component: one :class:`Kubelet` per Node, and the sandbox's node faults.

Every Node that appears gets a kubelet (registered at that simulated instant); a deleted Node's
kubelet stops and its Lease goes (as the garbage collector would remove it, the Node being its
owner). Pod writes are routed to the kubelet of the pod's node, which only queues the key.

The sandbox verbs call in here (``ksandbox fail node``, ``recover node``, ``pressure node``,
``add node``): :meth:`fail_node`, :meth:`recover_node`, :meth:`set_pressure`, :meth:`add_node`
(which the cluster autoscaler also calls, with a node group's template).
They raise :class:`ApiError` (unknown node) or :class:`CommandError` (a fault that is already in
the requested state, an unknown pressure kind).
"""

from __future__ import annotations

from typing import Any, Collection, Sequence

from ..api.codec import FrozenDict
from ..api.coordination import NAMESPACE_NODE_LEASE
from ..api.core import TERMINATED_PHASES, Node, NodeCondition, NodeSpec, NodeStatus
from ..api.errors import ApiError, CommandError
from ..api.evolve import evolve
from ..api.meta import ObjectMeta
from ..api.quantity import Quantity
from ..api.taints import (
    TAINT_NODE_DISK_PRESSURE,
    TAINT_NODE_MEMORY_PRESSURE,
    TAINT_NODE_NETWORK_UNAVAILABLE,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_OUT_OF_SERVICE,
    TAINT_NODE_PID_PRESSURE,
    TAINT_NODE_UNREACHABLE,
    TAINT_NODE_UNSCHEDULABLE,
)
from ..apiserver.store import ADDED, DELETED, WatchEvent
from ..sim.clock import PRIORITY_KUBELET, PRIORITY_NODE_REGISTRATION
from .config import KubeletConfig, config_for, read_configs
from .container_restart import changed_images
from .eviction import PRESSURE_KINDS
from .kubelet import Kubelet
from .node_status import reported_resources

# Taints the control plane manages; a node added "like" another does not inherit them.
_CONTROLLER_TAINTS = frozenset((
    TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE,
    TAINT_NODE_MEMORY_PRESSURE, TAINT_NODE_DISK_PRESSURE, TAINT_NODE_PID_PRESSURE,
    TAINT_NODE_NETWORK_UNAVAILABLE, TAINT_NODE_OUT_OF_SERVICE))
# The shape of a node added without --like.
DEFAULT_NODE_CAPACITY = {"cpu": "4", "memory": "8Gi", "pods": "110",
                         "ephemeral-storage": "100Gi"}
# Labels that name a particular machine; not copied by --like.
_UNIQUE_LABELS = ("kubernetes.io/hostname",)


class KubeletManager:
    name = "kubelets"

    def __init__(self) -> None:
        self.kubelets: dict[str, Kubelet] = {}
        self.configs: list[KubeletConfig] = []
        self._index = 0
        # Periodic kubelet loops, grouped by (period, phase): one clock timer per group fires
        # every member due, instead of one timer per kubelet and loop.
        self._groups: dict[tuple[float, float], dict[tuple[str, str], tuple[float, Any]]] = {}

    def start(self, cp: Any) -> None:
        self.cp = cp
        self.store = cp.store
        self.clock = cp.clock
        self.rand = cp.rand.child("kubelet")
        self.configs = read_configs(cp.configs_of("KubeletConfiguration"))
        # _on_node acts on a node's creation and deletion only
        self.store.subscribe("Node", self._on_node, types=(ADDED, DELETED))
        self.store.subscribe("Pod", self._on_pod)

    # -- a Session's load (bulk start: session.py) ---------------------------------------------
    def muted_for_load(self, kinds: Collection[str] = (), objects: Sequence[Any] = ()
                       ) -> list[tuple[str, Any]]:
        """Mute the node and pod watches for a load when nothing is stored yet: every timer
        they make is a kubelet's own (registration, pod sync), so catching up afterwards in
        the order the objects were written (every node before any pod) leaves the kubelets,
        and the clock, as hearing each write would; nothing reads the kubelets during a
        load."""
        if self.kubelets or self.store.count("Node") or self.store.count("Pod"):
            return []
        return [("Node", self._on_node), ("Pod", self._on_pod)]

    def load_done(self) -> None:
        for node in self.store.nodes():
            self._on_node(WatchEvent(ADDED, node))
        # _on_pod of each ADDED pod (the store's (namespace, name) key is the same tuple),
        # gathered per kubelet in the order written: each kubelet then takes its keys at once
        # (PodWorkers.enqueue_all), in the order of its first pod, so the sync timers are
        # made in the order hearing each pod makes them (enqueue makes no other timer).
        kubelets = self.kubelets
        keys: dict[str, list[tuple[str, str]]] = {}
        for key, pod in self.store.items("Pod"):
            node = pod.spec.node_name
            if node and node in kubelets:
                keys.setdefault(node, []).append(key)
        for node, node_keys in keys.items():
            kubelets[node].pod_workers.enqueue_all(node_keys)

    # -- watches --------------------------------------------------------------------------
    def _on_node(self, ev: WatchEvent) -> None:
        name = ev.obj.metadata.name
        if ev.type == ADDED:
            old = self.kubelets.pop(name, None)
            if old is not None:
                old.stop()
            kubelet = Kubelet(self, name, config_for(self.configs, ev.obj.metadata.labels),
                              self._index)
            self._index += 1
            self.kubelets[name] = kubelet
            self.clock.call_soon(kubelet.register, PRIORITY_NODE_REGISTRATION,
                                 f"kubelet/{name}/register")
        elif ev.type == DELETED:
            gone = self.kubelets.get(name)
            if gone is not None:
                del self.kubelets[name]
                gone.stop()
            self.clock.call_soon(lambda: self._remove_lease(name), PRIORITY_KUBELET,
                                 f"kubelet/{name}/lease-gc")

    def _remove_lease(self, name: str) -> None:
        if name not in self.kubelets and \
                self.store.get("Lease", name, NAMESPACE_NODE_LEASE) is not None:
            self.store.remove("Lease", name, NAMESPACE_NODE_LEASE)

    def _on_pod(self, ev: WatchEvent) -> None:
        pod, old = ev.obj, ev.old
        node = pod.spec.node_name
        if old is None:
            # A create (no old version): its node's kubelet, if it names one (a pod the
            # scheduler has yet to place names none: nothing to do)
            if node:
                kubelet = self.kubelets.get(node)
                if kubelet is not None:
                    kubelet.pod_workers.enqueue((pod.metadata.namespace, pod.metadata.name))
            return
        old_node = old.spec.node_name
        type_ = ev.type
        if type_ != DELETED and type_ != ADDED and old_node == node:
            # Skip the kubelet's own status writes; react to what changes its work.
            # (is_terminated on each side, read as its phases: a property is a call from C)
            old_meta, meta = old.metadata, pod.metadata
            if old_meta.deletion_timestamp == meta.deletion_timestamp \
                    and old_meta.generation == meta.generation \
                    and (old.status.phase in TERMINATED_PHASES) \
                    == (pod.status.phase in TERMINATED_PHASES) \
                    and old_meta.uid == meta.uid:
                return
        key = (pod.metadata.namespace, pod.metadata.name)
        if node:
            kubelet = self.kubelets.get(node)
            if kubelet is not None:
                if old.spec.containers is not pod.spec.containers and type_ != DELETED:
                    # an update of the containers (only their images may change): the pod
                    # worker restarts the changed ones of a running pod (container_restart)
                    names = changed_images(old, pod)
                    if names:
                        kubelet.pod_workers.restarts.flag(key, names)
                kubelet.pod_workers.enqueue(key)   # (Kubelet.enqueue's, without its frame)
        if old_node and old_node != node:
            kubelet = self.kubelets.get(old_node)
            if kubelet is not None:
                kubelet.pod_workers.enqueue(key)

    # -- periodic loops -------------------------------------------------------------------
    def every(self, kubelet: Kubelet, period: float, fn: Any) -> None:
        """Call ``fn`` every ``period`` seconds from now, while ``kubelet`` runs (background:
        heartbeats never end)."""
        now = self.clock.now
        key = (period, round(now % period, 6))
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = {}
            self.clock.call_later(period, lambda: self._fire(key), PRIORITY_KUBELET,
                                  f"kubelets/every-{period:g}s", background=True)
        group[(kubelet.name, fn.__name__)] = (now + period, fn)

    def leave(self, kubelet: Kubelet) -> None:
        for group in self._groups.values():
            for k in [k for k in group if k[0] == kubelet.name]:
                del group[k]

    def _fire(self, key: tuple[float, float]) -> None:
        group = self._groups.get(key)
        if not group:
            self._groups.pop(key, None)
            return
        due_by = self.clock.now + 1e-9   # (once: ~1,000 loops a simulated second at 500 nodes)
        for due, fn in list(group.values()):
            if due <= due_by:
                fn()
        self.clock.call_later(key[0], lambda: self._fire(key), PRIORITY_KUBELET,
                              f"kubelets/every-{key[0]:g}s", background=True)

    # -- queries --------------------------------------------------------------------------
    def kubelet(self, name: str) -> Kubelet:
        k = self.kubelets.get(name)
        if k is None or self.store.get("Node", name) is None:
            raise ApiError.not_found("nodes", name)
        return k

    def is_failed(self, name: str) -> bool:
        k = self.kubelets.get(name)
        return k is not None and (k.failed or k.runtime_down)

    def pressures(self, name: str) -> tuple[str, ...]:
        """The pressure faults switched on for a node (``memory``, ``disk``, ``pid``)."""
        k = self.kubelets.get(name)
        return tuple(sorted(k.faults)) if k is not None else ()

    def allocatable_breakdown(self, name: str) -> dict[str, dict[str, Quantity]]:
        """Per resource: capacity, kubeReserved, systemReserved, evictionHard, allocatable —
        the formula behind the node's allocatable (empty when no KubeletConfiguration applies
        and the manifest's allocatable is used as given)."""
        k = self.kubelet(name)
        if not k.config.explicit:
            return {}
        node = self.store.get("Node", name)
        return k.config.breakdown(node.status.capacity)

    def config_of(self, name: str) -> KubeletConfig:
        return self.kubelet(name).config

    # -- faults ---------------------------------------------------------------------------
    def fail_node(self, name: str, not_ready: bool = False) -> None:
        """Silence the kubelet, or (``not_ready``) take its container runtime down."""
        k = self.kubelet(name)
        if k.failed or k.runtime_down:
            raise CommandError(f'node "{name}" has already failed')
        k.fail(not_ready=not_ready)

    def recover_node(self, name: str) -> str:
        """Undo ``fail node``: the kubelet (``"kubelet"``), or else a failed network
        (``"network"``)."""
        k = self.kubelet(name)
        if not (k.failed or k.runtime_down):
            if self.network_failed(name):
                self.set_network(name, available=True)
                return "network"
            raise CommandError(f'node "{name}" has not failed')
        k.recover()
        return "kubelet"

    def set_network(self, name: str, available: bool) -> None:
        """The node's network goes down or comes back: the NetworkUnavailable condition, as
        the route controller (``pkg/controller/route``: NoRouteCreated / RouteCreated) or a
        CNI agent on the node writes it. The kubelet keeps posting its own conditions and
        leaves this one alone; the node lifecycle controller turns it into the
        ``node.kubernetes.io/network-unavailable`` NoSchedule taint."""
        self.kubelet(name)
        node = self.store.get("Node", name)
        now = self.clock.now
        old = next((c for c in node.status.conditions if c.type == "NetworkUnavailable"), None)
        down = old is not None and old.status == "True"
        if not available and down:
            raise CommandError(f'node "{name}" network has already failed')
        if available and not down:
            raise CommandError(f'node "{name}" network has not failed')
        cond = NodeCondition(
            type="NetworkUnavailable", status="False" if available else "True",
            reason="RouteCreated" if available else "NoRouteCreated",
            message="RouteController created a route" if available
            else "RouteController failed to create a route",
            last_heartbeat_time=now, last_transition_time=now)
        conditions = tuple(c for c in node.status.conditions if c.type != "NetworkUnavailable")
        # SetNodeCondition puts a new condition last; an existing one keeps its place.
        if old is not None:
            conditions = tuple(cond if c.type == "NetworkUnavailable" else c
                               for c in node.status.conditions)
        else:
            conditions = conditions + (cond,)
        self.store.update_status(evolve(node, status=evolve(
            node.status, conditions=conditions)))

    def network_failed(self, name: str) -> bool:
        node = self.store.get("Node", name)
        return node is not None and any(c.type == "NetworkUnavailable" and c.status == "True"
                                        for c in node.status.conditions)

    def put_static_pod(self, name: str, manifest: Any) -> tuple[tuple[str, str], str]:
        """Write a manifest into the node's staticPodPath; its kubelet picks it up at once."""
        k = self._running(name)
        key, change = k.static_pods.put(manifest)
        if change != "unchanged":
            k.pod_workers.static_pod_changed(key, replaced=change == "configured")
        return key, change

    def remove_static_pod(self, name: str, pod_name: str) -> tuple[str, str]:
        """Remove a manifest (by its name, or its mirror pod's ``NAME-NODE``) from the node's
        staticPodPath; its kubelet stops the pod and deletes the mirror."""
        k = self._running(name)
        for key in list(k.static_pods):
            base = k.static_pods[key].metadata.name
            if key[1] == pod_name or base == f"{pod_name}-{name.lower()}":
                k.static_pods.remove(key)
                k.pod_workers.static_pod_removed(key)
                return key
        raise CommandError(f'node "{name}" has no static pod "{pod_name}" (its manifests: '
                           f'{", ".join(sorted(key[1] for key in k.static_pods)) or "none"})')

    def _running(self, name: str) -> Kubelet:
        k = self.kubelet(name)
        if k.failed or k.runtime_down:
            raise CommandError(f'node "{name}" has failed: its kubelet cannot read its static '
                               'pod manifests until it recovers')
        return k

    def set_pressure(self, name: str, kind: str, on: bool) -> None:
        if kind not in PRESSURE_KINDS:
            raise CommandError(f'unknown pressure "{kind}": must be one of memory, disk, pid')
        k = self.kubelet(name)
        if on and kind in k.faults:
            raise CommandError(f'node "{name}" is already under {kind} pressure')
        if not on and kind not in k.faults:
            raise CommandError(f'node "{name}" is not under {kind} pressure')
        k.set_pressure(kind, on)

    def add_node(self, name: str, like: str | None = None, template: Any = None) -> Any:
        """Create a Node shaped like ``like`` (labels, capacity, its own taints), like the
        ``template`` Node (a node group's shape, as a cluster autoscaler's cloud provider
        builds a new instance from it), or a default 4-CPU / 8Gi node; its kubelet registers it
        at once."""
        if self.store.get("Node", name) is not None:
            raise ApiError.already_exists("nodes", name)
        if like is not None:
            template = self.store.get("Node", like)
            if template is None:
                raise ApiError.not_found("nodes", like)
        if template is not None:
            src = template
            labels = {k: v for k, v in src.metadata.labels.items() if k not in _UNIQUE_LABELS}
            taints = tuple(evolve(t, time_added=None) for t in src.spec.taints
                           if t.key not in _CONTROLLER_TAINTS)
            status = NodeStatus(capacity=src.status.capacity,
                                allocatable=src.status.allocatable,
                                node_info=src.status.node_info)
        else:
            labels = {}
            taints = ()
            cap = FrozenDict({k: Quantity.parse(v) for k, v in DEFAULT_NODE_CAPACITY.items()})
            status = NodeStatus(capacity=cap, allocatable=cap)
        labels["kubernetes.io/hostname"] = name
        node = Node(metadata=ObjectMeta(name=name, labels=FrozenDict(labels)),
                    spec=NodeSpec(taints=taints), status=status)
        return self.store.create(node)

    def registered_status(self, labels: Any, status: Any) -> Any:
        """The capacity and allocatable a kubelet would post for a node with these labels and
        this manifest status (its KubeletConfiguration applied): what a simulator should assume
        of a node that does not exist yet."""
        capacity, allocatable = reported_resources(config_for(self.configs, labels), status)
        return evolve(status, capacity=capacity, allocatable=allocatable)

    # -- headless runs --------------------------------------------------------------------
    def busy_until(self) -> float | None:
        """A pressure condition still held after its fault ended clears later: wait for it."""
        latest = None
        for k in self.kubelets.values():
            t = k.pressure_clears_at()
            if t is not None and (latest is None or t > latest):
                latest = t
        return latest
