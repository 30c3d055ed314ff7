"""The kubelet's node status and lease: ``pkg/kubelet/kubelet_node_status.go``,
``pkg/kubelet/nodestatus/setters.go`` and ``pkg/kubelet/nodelease``: the
:class:`NodeStatusManager` a :class:`~ksandbox.kubelet.kubelet.Kubelet` owns.

Registration fields (capacity ``pods``, allocatable by the KubeletConfiguration, addresses,
node info, a pod CIDR), the four conditions the kubelet owns with upstream's reasons and
``NodeHas…`` events, the Lease renewal, and the status check that posts when something changed
or ``nodeStatusReportFrequency`` has passed.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, AbstractSet, Any, Callable

from ..api.codec import FrozenDict
from ..api.coordination import NAMESPACE_NODE_LEASE, Lease, LeaseSpec
from ..api.core import NodeAddress, NodeCondition
from ..api.errors import KsandboxError
from ..api.evolve import by_identity, evolve
from ..api.meta import ObjectMeta, OwnerReference
from ..api.quantity import Quantity
from .config import DEFAULT_MAX_PODS

if TYPE_CHECKING:
    from ..api.core import Node
    from .kubelet import Kubelet

COMPONENT = "kubelet"
KUBELET_VERSION = "v1.35.0"

# pkg/kubelet/nodestatus/setters.go: (condition, status) → (reason, message, event reason).
CONDITION_TEXT = {
    ("MemoryPressure", "False"): ("KubeletHasSufficientMemory",
                                  "kubelet has sufficient memory available",
                                  "NodeHasSufficientMemory"),
    ("MemoryPressure", "True"): ("KubeletHasInsufficientMemory",
                                 "kubelet has insufficient memory available",
                                 "NodeHasInsufficientMemory"),
    ("DiskPressure", "False"): ("KubeletHasNoDiskPressure", "kubelet has no disk pressure",
                                "NodeHasNoDiskPressure"),
    ("DiskPressure", "True"): ("KubeletHasDiskPressure", "kubelet has disk pressure",
                               "NodeHasDiskPressure"),
    ("PIDPressure", "False"): ("KubeletHasSufficientPID", "kubelet has sufficient PID available",
                               "NodeHasSufficientPID"),
    ("PIDPressure", "True"): ("KubeletHasInsufficientPID",
                              "kubelet has insufficient PID available",
                              "NodeHasInsufficientPID"),
    ("Ready", "True"): ("KubeletReady", "kubelet is posting ready status", "NodeReady"),
    # ReadyCondition with runtimeErrors() = [errors.New("container runtime is down")]
    # (pkg/kubelet/runtime.go); one error aggregates to its own message.
    ("Ready", "False"): ("KubeletNotReady", "container runtime is down", "NodeNotReady"),
}
OWNED_CONDITIONS = ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")


class NodeStatusManager:
    """The node's status and Lease, posted for ``kubelet``'s node. ``held`` tells which
    pressure conditions the eviction manager holds (upstream's setters ask the eviction
    manager the same question: ``IsUnderMemoryPressure`` and friends)."""

    def __init__(self, kubelet: Kubelet, held: Callable[[], AbstractSet[str]]) -> None:
        self.kubelet = kubelet
        self.store = kubelet.store
        self.clock = kubelet.clock
        self.name = kubelet.name
        self.config = kubelet.config
        self.held = held
        # this node in the store's live Node table (store.get's lookup, without the call:
        # every status check, 500 nodes every 10 simulated seconds)
        self._nodes = self.store.table("Node")
        self._node_key = ("", self.name)
        # the renewal's write (Store.field_writer: write_field's, by the Lease's table key)
        self._renew = self.store.field_writer("Lease", "spec", "renew_time")
        self._lease_key = (NAMESPACE_NODE_LEASE, self.name)
        self.last_report = -math.inf
        self._posted: Any = None      # the conditions tuple of our last status post
        self._allocatable: Any = None  # the allocatable map of our last status post
        self._lease: Any = None       # the Lease object we last wrote
        self._next_ip = 2
        # spec.unschedulable at our last status check: a new kubelet starts from False.
        self._unschedulable = False

    def forget_posted(self) -> None:
        """The next status check compares conditions (Ready is about to change)."""
        self._posted = None

    def renew_lease(self) -> None:
        if self.kubelet.failed:
            return
        now = self.clock.now
        # A renewal changes spec.renewTime only: the store's one-field write of the stored
        # Lease builds it once (the hottest write of an idle cluster), by the Lease's table
        # key (Store.field_writer: write_field's); None when there is none.
        lease = self._renew(self._lease_key, now, True)
        if lease is None:
            owner = OwnerReference(api_version="v1", kind="Node", name=self.name,
                                   uid=self.kubelet.node_uid)
            lease = Lease(metadata=ObjectMeta(name=self.name, namespace=NAMESPACE_NODE_LEASE,
                                              owner_references=(owner,)),
                          spec=LeaseSpec(holder_identity=self.name,
                                         lease_duration_seconds=self.config
                                         .node_lease_duration_seconds, renew_time=now))
            try:
                lease = self.store.create(lease)
            except KsandboxError:
                return
        self._lease = lease

    def tick(self) -> None:
        if self.kubelet.failed:
            return
        node = self._nodes.get(self._node_key)
        if node is None:
            return
        # Our last post is still what the API holds: only the report frequency can make us
        # post again (cheap identity check; anything else is compared condition by condition).
        unchanged = node.status.conditions is self._posted or not self._status_changed(node)
        if self.config.explicit and node.status.allocatable is not self._allocatable:
            unchanged = False    # someone rewrote allocatable (an apply): the kubelet restores it
        if not unchanged or \
                self.clock.now - self.last_report >= self.config.node_status_report_frequency:
            self.post(node)
        # bool(unschedulable) != self._unschedulable, without the call (both sides bools)
        if (not node.spec.unschedulable) is self._unschedulable:
            self._record_schedulable(node)

    def _record_schedulable(self, node: Node) -> None:
        """recordNodeSchedulableEvent (kubelet_node_status.go), the last of the status setters:
        a cordon or an uncordon is told at the kubelet's next status check, every
        nodeStatusUpdateFrequency, whether or not the status is posted."""
        self._unschedulable = bool(node.spec.unschedulable)
        reason = "NodeNotSchedulable" if self._unschedulable else "NodeSchedulable"
        self.store.record_event(node, "Normal", reason,
                                f"Node {self.name} status is now: {reason}", COMPONENT)

    def _desired(self) -> dict[str, str]:
        held = self.held()
        return {"MemoryPressure": "True" if "memory" in held else "False",
                "DiskPressure": "True" if "disk" in held else "False",
                "PIDPressure": "True" if "pid" in held else "False",
                "Ready": "False" if self.kubelet.runtime_down else "True"}

    def _status_changed(self, node: Node) -> bool:
        desired = self._desired()
        for c in node.status.conditions:
            if c.type in desired and desired.pop(c.type) != c.status:
                return True
        return bool(desired)

    def post(self, node: Node, registering: bool = False) -> None:
        """tryUpdateNodeStatus: the setters, one write, and an event per condition change."""
        now = self.clock.now
        desired = self._desired()
        events: list[str] = []
        conditions = []
        seen = set()
        for c in node.status.conditions:
            if c.type in desired:
                conditions.append(self._condition(c.type, desired[c.type], c, now, events))
                seen.add(c.type)
            else:
                conditions.append(c)
        for t in OWNED_CONDITIONS:
            if t not in seen:
                conditions.append(self._condition(t, desired[t], None, now, events))
        status = evolve(node.status, conditions=tuple(conditions))
        spec = node.spec
        if registering:
            status, spec = self._registration_fields(node, status)
        elif self.config.explicit:
            capacity, allocatable = self._resources(status)
            if capacity != status.capacity or allocatable != status.allocatable:
                status = evolve(status, capacity=capacity, allocatable=allocatable)
        updated = evolve(node, status=status, spec=spec)
        self.last_report = now
        quiet = not (registering or events)
        # Registration also sets spec.podCIDR: a full, validated update. Afterwards the
        # kubelet only reports what it observed, through the status subresource.
        updated = self.store.update(updated, quiet=quiet) if registering else \
            self.store.update_status(updated, quiet=quiet)
        self._posted = updated.status.conditions
        self._allocatable = updated.status.allocatable
        for reason in events:
            self.store.record_event(updated, "Normal", reason,
                                    f"Node {self.name} status is now: {reason}", COMPONENT)

    def _condition(self, type_: str, status: str, old: Any, now: float,
                   events: list[str]) -> NodeCondition:
        reason, message, event = CONDITION_TEXT[(type_, status)]
        if old is not None and old.status == status and isinstance(old.last_transition_time,
                                                                   (int, float)):
            transition = old.last_transition_time
        else:
            transition = now
            events.append(event)
        return NodeCondition(type=type_, status=status, reason=reason, message=message,
                             last_heartbeat_time=now, last_transition_time=transition)

    def _resources(self, status: Any) -> tuple[FrozenDict, FrozenDict]:
        return reported_resources(self.config, status)

    def _registration_fields(self, node: Node, status: Any) -> tuple[Any, Any]:
        """What the kubelet fills in when it registers: capacity pods, allocatable, addresses,
        node info; and a pod CIDR standing in for the node IPAM controller's."""
        capacity, allocatable = self._resources(status)
        addresses = status.addresses or (
            NodeAddress(type="InternalIP", address=self.internal_ip()),
            NodeAddress(type="Hostname", address=self.name))
        info = status.node_info
        info = evolve(
            info, kubelet_version=info.kubelet_version or KUBELET_VERSION,
            os_image=info.os_image or "Ubuntu 24.04.1 LTS",
            kernel_version=info.kernel_version or "6.8.0-45-generic",
            container_runtime_version=info.container_runtime_version or "containerd://2.0.0",
            operating_system=info.operating_system or "linux",
            architecture=info.architecture or "amd64")
        status = evolve(status, capacity=capacity, allocatable=allocatable,
                              addresses=addresses, node_info=info)
        spec = node.spec
        if not spec.pod_cidr:
            spec = evolve(spec, pod_cidr=self.pod_cidr())
        return status, spec

    def internal_ip(self) -> str:
        return f"10.0.{self.kubelet.index // 250}.{self.kubelet.index % 250 + 2}"

    def pod_cidr(self) -> str:
        return f"10.{244 + self.kubelet.index // 256}.{self.kubelet.index % 256}.0/24"

    def pod_ip(self, node: Node | None, in_use: AbstractSet[str] = frozenset()) -> str:
        """The next address of the node's pod range, skipping one a pod here still holds (an
        adopted pod's exported IP): host-local IPAM never hands out an address in use.
        ``node``: this kubelet's Node as the store holds it (None when gone)."""
        cidr = node.spec.pod_cidr if node is not None and node.spec.pod_cidr else self.pod_cidr()
        base = cidr.split("/")[0].rsplit(".", 1)[0]
        ip = ""
        for _ in range(253):
            ip = f"{base}.{self._next_ip}"
            self._next_ip = self._next_ip + 1 if self._next_ip < 254 else 2
            if ip not in in_use:
                break
        return ip

    def host_ip(self, node: Node | None) -> str:
        """The node's InternalIP; ``node``: this kubelet's Node as the store holds it (None
        when gone)."""
        if node is not None:
            for a in node.status.addresses:
                if a.type == "InternalIP":
                    return a.address
        return self.internal_ip()


# The root disk a node reports when its manifest gives no ephemeral-storage capacity.
DEFAULT_EPHEMERAL_STORAGE = "100Gi"


def reported_resources(config: Any, status: Any) -> tuple[FrozenDict, FrozenDict]:
    """Capacity (with ``pods`` = maxPods) and allocatable as a kubelet with ``config`` reports
    them: by the KubeletConfiguration's formula when one applies, else the manifest's.
    Remembered by identity (nodes of one shape share their decoded capacity: codec's
    sharing), so 5,000 registrations compute a few: the maps are immutable."""
    return by_identity(_reported_resources, config, status.capacity, status.allocatable)


def _reported_resources(config: Any, capacity_in: Any, allocatable_in: Any
                        ) -> tuple[FrozenDict, FrozenDict]:
    capacity = dict(capacity_in)
    # A real kubelet always reports its root filesystem (cAdvisor) as ephemeral-storage; a
    # manifest that leaves it out must not make every pod that requests disk unschedulable.
    capacity.setdefault("ephemeral-storage", Quantity.parse(DEFAULT_EPHEMERAL_STORAGE))
    max_pods = config.max_pods
    if max_pods is not None or "pods" not in capacity:
        capacity["pods"] = Quantity.from_int(max_pods or DEFAULT_MAX_PODS)
    if config.explicit or not allocatable_in or allocatable_in == capacity_in:
        # A KubeletConfiguration, or none (upstream's defaults: evictionHard memory.available
        # 100Mi and nodefs.available 10 % are held back): the kubelet's own formula.
        allocatable = config.allocatable(capacity)
    else:
        # A manifest that states allocatable (an export: what the real kubelet reported).
        allocatable = dict(allocatable_in or capacity_in)
        allocatable["pods"] = allocatable.get("pods", capacity["pods"])
        allocatable.setdefault("ephemeral-storage", capacity["ephemeral-storage"])
        if max_pods is not None:
            allocatable["pods"] = capacity["pods"]
    return FrozenDict(capacity), FrozenDict(allocatable)
