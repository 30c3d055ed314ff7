"""One kubelet emulator: a node's heartbeats, conditions, pods and static pods.

What a :class:`Kubelet` does, on the simulated clock, as upstream's kubelet does it:

* **Registers** its node (at the moment the Node appears): posts the four conditions it owns
  (MemoryPressure, DiskPressure, PIDPressure, Ready — reasons and messages from
  ``pkg/kubelet/nodestatus/setters.go``), capacity ``pods`` (maxPods), allocatable from its
  KubeletConfiguration (see ``config.py``), addresses and node info; records ``Starting``,
  ``NodeHas…`` and ``NodeReady`` events; creates its Lease in ``kube-node-lease``.
* **Heartbeats**: renews the Lease every ``nodeLeaseDurationSeconds / 4`` (10 s) and checks its
  node status every ``nodeStatusUpdateFrequency`` (10 s), posting it when something changed or
  ``nodeStatusReportFrequency`` (5 min) has passed. Both are background timers and quiet writes.
* **Runs pods** bound to it: admits them (node-pressure and resource-fit admission, rejected pods
  fail with upstream's reasons), starts them after a short seeded delay (Pending → Running with
  Ready conditions, start time, IPs and Pulled/Created/Started events), and on deletion stops
  them (``Killing``) for the pod's grace period before removing them from the API.
* **Static pods**: runs its configuration's static pod manifests and keeps their mirror pods
  in the API (``static.py``); a deleted mirror is replaced at once.
* **Node-pressure eviction** (``eviction.py``): while a pressure fault is on, reports the
  condition and evicts one pod per pass in upstream's rank order; the condition clears
  ``evictionPressureTransitionPeriod`` (5 min) after the pressure ends.
* **Faults**: a failed kubelet is silent — no heartbeats, no status, no pod starts or stops —
  until it recovers, when it renews, re-posts its status and resynchronizes its pods.

Store watches only enqueue pod keys; :meth:`Kubelet.sync` reads the current objects and acts.
"""

from __future__ import annotations

import math
from typing import Any

import attrs

from ..api.codec import FrozenDict
from ..api.coordination import NAMESPACE_NODE_LEASE, Lease, LeaseSpec
from ..api.core import (FAILED, RUNNING, NodeAddress, NodeCondition, PodCondition)
from ..api.errors import KsandboxError
from ..api.meta import ObjectMeta, OwnerReference
from ..api.quantity import Quantity, resource_amount
from ..sim.clock import PRIORITY_KUBELET
from . import eviction as ev
from .config import DEFAULT_MAX_PODS, KubeletConfig
from .static import adopt_mirror, build_static_pod, mirror_key

COMPONENT = "kubelet"
KUBELET_VERSION = "v1.35.0"
# Start delay bounds (seconds): pulling a cached image and starting containers.
START_DELAY = (1.0, 3.0)

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
}
OWNED_CONDITIONS = ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")
_PRESSURE_CONDITION = {kind: cond for kind, (cond, _s, _r) in ev.PRESSURE_KINDS.items()}
# pkg/kubelet/lifecycle/predicate.go: admission checks resources in this order.
_FIT_ORDER = ("cpu", "memory", "ephemeral-storage")


class _PodState:
    """What the kubelet knows of one pod it runs."""

    __slots__ = ("uid", "admitted_at", "started", "start_timer", "stop_timer", "requests",
                 "evicting", "static")

    def __init__(self, uid: str, admitted_at: float, requests: Any, static: bool) -> None:
        self.uid = uid
        self.admitted_at = admitted_at
        self.started = False
        self.start_timer: Any = None
        self.stop_timer: Any = None
        self.requests = requests
        self.evicting = False
        self.static = static


class Kubelet:
    def __init__(self, manager: Any, node_name: str, config: KubeletConfig, index: int) -> None:
        self.manager = manager
        self.store = manager.store
        self.clock = manager.clock
        self.rand = manager.rand
        self.name = node_name
        self.config = config
        self.index = index
        self.node_uid = ""
        self.registered = False
        self.stopped = False
        self.failed = False
        self.started_at = 0.0
        self.pods: dict[tuple[str, str], _PodState] = {}
        self.used: dict[str, int] = {}
        self.static_pods: dict[tuple[str, str], Any] = {}
        self.faults: set[str] = set()
        self.last_observed: dict[str, float] = {}
        self.held: set[str] = set()
        self.last_report = -math.inf
        self._queue: dict[tuple[str, str], None] = {}
        self._sync_timer: Any = None
        self._posted: Any = None      # the conditions tuple of our last status post
        self._allocatable: Any = None  # the allocatable map of our last status post
        self._lease: Any = None       # the Lease object we last wrote
        self._eviction_timer: Any = None
        self._next_ip = 2

    # -- lifecycle ------------------------------------------------------------------------
    def register(self) -> None:
        node = self.store.get("Node", self.name)
        if node is None or self.stopped or self.failed:
            return   # a kubelet that failed before registering never posts (until recovered)
        now = self.clock.now
        self.node_uid = node.metadata.uid
        self.registered = True
        self.started_at = now
        self.store.record_event(node, "Normal", "Starting", "Starting kubelet.", COMPONENT)
        self._post_status(node, registering=True)
        self.store.record_event(self.store.get("Node", self.name), "Normal",
                                "NodeAllocatableEnforced",
                                "Updated Node Allocatable limit across pods", COMPONENT)
        self._renew_lease()
        self.manager.every(self, self.config.lease_renew_interval, self._renew_lease)
        self.manager.every(self, self.config.node_status_update_frequency, self._status_tick)
        for manifest in self.config.static_pods:
            pod = build_static_pod(manifest, self.name, self.node_uid,
                                   f"{self.config.static_pod_path}/{manifest.metadata.name}.yaml")
            self.static_pods[mirror_key(pod)] = pod
            self._queue[mirror_key(pod)] = None
        for pod in self.store.pods_on_node(self.name):
            self._queue[mirror_key(pod)] = None
        self._schedule_sync()
        if self.faults:
            self._schedule_eviction(self._next_grid(ev.EVICTION_MONITORING_PERIOD))

    def stop(self) -> None:
        """The Node is gone: stop every timer (pods left behind are podgc's business)."""
        self.stopped = True
        self.manager.leave(self)
        for st in self.pods.values():
            for t in (st.start_timer, st.stop_timer):
                if t is not None:
                    t.cancel()
        if self._sync_timer is not None:
            self._sync_timer.cancel()
        if self._eviction_timer is not None:
            self._eviction_timer.cancel()

    def fail(self) -> None:
        """Go silent: the node died or was cut off. Running containers are left as they are."""
        self.failed = True
        for st in self.pods.values():
            for attr in ("start_timer", "stop_timer"):
                t = getattr(st, attr)
                if t is not None:
                    t.cancel()
                    setattr(st, attr, None)
        if self._eviction_timer is not None:
            self._eviction_timer.cancel()
            self._eviction_timer = None

    def recover(self) -> None:
        """Reconnect: renew the lease, post status, resynchronize every pod."""
        self.failed = False
        if not self.registered:
            self.register()
            return
        self._renew_lease()
        node = self.store.get("Node", self.name)
        if node is not None:
            self._post_status(node)
        now = self.clock.now
        for key, st in list(self.pods.items()):
            pod = self.store.get("Pod", key[1], key[0])
            if pod is None:
                continue
            if st.started and not pod.is_terminated and pod.metadata.deletion_timestamp is None:
                if _ready_status(pod) != "True":
                    self._write_running(pod, st)
            elif not st.started and pod.metadata.deletion_timestamp is None:
                self._schedule_start(key, st)
        for pod in self.store.pods_on_node(self.name):
            key = mirror_key(pod)
            st = self.pods.get(key)
            if pod.metadata.deletion_timestamp is not None and st is not None:
                # The deletion happened while we were away: stop it now, with its full grace.
                grace = pod.metadata.deletion_grace_period_seconds or 0
                self._kill(key, pod, st, now + grace)
            else:
                self._queue[key] = None
        for key in self.static_pods:
            self._queue[key] = None
        self._schedule_sync()
        if self.faults or self.held:
            self._schedule_eviction(self._next_grid(ev.EVICTION_MONITORING_PERIOD))

    def _next_grid(self, period: float) -> float:
        """The next tick at or after now of a loop started at registration."""
        now = self.clock.now
        k = math.ceil((now - self.started_at) / period - 1e-9)
        return self.started_at + max(0, k) * period

    # -- heartbeats -----------------------------------------------------------------------
    def _renew_lease(self) -> None:
        if self.failed:
            return
        now = self.clock.now
        lease = self.store.get("Lease", self.name, NAMESPACE_NODE_LEASE)
        if lease is None:
            owner = OwnerReference(api_version="v1", kind="Node", name=self.name,
                                   uid=self.node_uid)
            lease = Lease(metadata=ObjectMeta(name=self.name, namespace=NAMESPACE_NODE_LEASE,
                                              owner_references=(owner,)),
                          spec=LeaseSpec(holder_identity=self.name,
                                         lease_duration_seconds=self.config
                                         .node_lease_duration_seconds, renew_time=now))
            try:
                self._lease = self.store.create(lease)
            except KsandboxError:
                pass
            return
        spec = lease.spec
        self._lease = self.store.update(
            Lease(api_version=lease.api_version, kind=lease.kind, metadata=lease.metadata,
                  spec=LeaseSpec(holder_identity=spec.holder_identity,
                                 lease_duration_seconds=spec.lease_duration_seconds,
                                 acquire_time=spec.acquire_time, renew_time=now,
                                 lease_transitions=spec.lease_transitions, extra=spec.extra),
                  extra=lease.extra),
            validate=False, quiet=True)

    def _status_tick(self) -> None:
        if self.failed:
            return
        node = self.store.get("Node", self.name)
        if node is None:
            return
        # Our last post is still what the API holds: only the report frequency can make us
        # post again (cheap identity check; anything else is compared condition by condition).
        unchanged = node.status.conditions is self._posted or not self._status_changed(node)
        if self.config.explicit and node.status.allocatable is not self._allocatable:
            unchanged = False    # someone rewrote allocatable (an apply): the kubelet restores it
        if not unchanged or \
                self.clock.now - self.last_report >= self.config.node_status_report_frequency:
            self._post_status(node)

    def _desired(self) -> dict[str, str]:
        return {"MemoryPressure": "True" if "memory" in self.held else "False",
                "DiskPressure": "True" if "disk" in self.held else "False",
                "PIDPressure": "True" if "pid" in self.held else "False",
                "Ready": "True"}

    def _status_changed(self, node: Any) -> bool:
        desired = self._desired()
        for c in node.status.conditions:
            if c.type in desired and desired.pop(c.type) != c.status:
                return True
        return bool(desired)

    def _post_status(self, node: Any, registering: bool = False) -> None:
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
        status = attrs.evolve(node.status, conditions=tuple(conditions))
        spec = node.spec
        if registering:
            status, spec = self._registration_fields(node, status)
        elif self.config.explicit:
            capacity, allocatable = self._resources(status)
            if capacity != status.capacity or allocatable != status.allocatable:
                status = attrs.evolve(status, capacity=capacity, allocatable=allocatable)
        updated = attrs.evolve(node, status=status, spec=spec)
        self.last_report = now
        updated = self.store.update(updated, validate=registering,
                                    quiet=not (registering or events))
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
        """Capacity (with ``pods`` = maxPods) and allocatable as this kubelet reports them: by
        the KubeletConfiguration's formula when one applies, else the manifest's."""
        capacity = dict(status.capacity)
        max_pods = self.config.max_pods
        if max_pods is not None or "pods" not in capacity:
            capacity["pods"] = Quantity.from_int(max_pods or DEFAULT_MAX_PODS)
        if self.config.explicit:
            allocatable = self.config.allocatable(capacity)
        else:
            allocatable = dict(status.allocatable or status.capacity)
            allocatable["pods"] = allocatable.get("pods", capacity["pods"])
            if max_pods is not None:
                allocatable["pods"] = capacity["pods"]
        return FrozenDict(capacity), FrozenDict(allocatable)

    def _registration_fields(self, node: Any, status: Any) -> tuple[Any, Any]:
        """What the kubelet fills in when it registers: capacity pods, allocatable, addresses,
        node info; and a pod CIDR standing in for the node IPAM controller's."""
        capacity, allocatable = self._resources(status)
        addresses = status.addresses or (
            NodeAddress(type="InternalIP", address=self.internal_ip()),
            NodeAddress(type="Hostname", address=self.name))
        info = status.node_info
        info = attrs.evolve(
            info, kubelet_version=info.kubelet_version or KUBELET_VERSION,
            os_image=info.os_image or "Ubuntu 24.04.1 LTS",
            kernel_version=info.kernel_version or "6.8.0-45-generic",
            container_runtime_version=info.container_runtime_version or "containerd://2.0.0",
            operating_system=info.operating_system or "linux",
            architecture=info.architecture or "amd64")
        status = attrs.evolve(status, capacity=capacity, allocatable=allocatable,
                              addresses=addresses, node_info=info)
        spec = node.spec
        if not spec.pod_cidr:
            spec = attrs.evolve(spec, pod_cidr=self.pod_cidr())
        return status, spec

    def internal_ip(self) -> str:
        return f"10.0.{self.index // 250}.{self.index % 250 + 2}"

    def pod_cidr(self) -> str:
        return f"10.{244 + self.index // 256}.{self.index % 256}.0/24"

    def _pod_ip(self) -> str:
        node = self.store.get("Node", self.name)
        cidr = node.spec.pod_cidr if node is not None and node.spec.pod_cidr else self.pod_cidr()
        base = cidr.split("/")[0].rsplit(".", 1)[0]
        ip = f"{base}.{self._next_ip}"
        self._next_ip = self._next_ip + 1 if self._next_ip < 254 else 2
        return ip

    def host_ip(self) -> str:
        node = self.store.get("Node", self.name)
        if node is not None:
            for a in node.status.addresses:
                if a.type == "InternalIP":
                    return a.address
        return self.internal_ip()

    # -- pod sync -------------------------------------------------------------------------
    def enqueue(self, key: tuple[str, str]) -> None:
        if self.failed or self.stopped:
            return
        self._queue[key] = None
        self._schedule_sync()

    def _schedule_sync(self) -> None:
        if self._sync_timer is None and self._queue:
            self._sync_timer = self.clock.call_soon(self.sync, PRIORITY_KUBELET,
                                                    f"kubelet/{self.name}/sync")

    def sync(self) -> None:
        """The pod workers: reconcile every queued pod with what the API holds now."""
        self._sync_timer = None
        if self.failed or self.stopped or not self.registered:
            return
        while self._queue:
            key = next(iter(self._queue))
            del self._queue[key]
            self._sync_pod(key)

    def _sync_pod(self, key: tuple[str, str]) -> None:
        pod = self.store.get("Pod", key[1], key[0])
        st = self.pods.get(key)
        if key in self.static_pods:
            self._sync_mirror(key, pod)
            if st is None:
                self._admit(key, self.static_pods[key], static=True)
            return
        if pod is None or pod.spec.node_name != self.name:
            if st is not None:
                self._forget(key, st)
            return
        if st is not None and st.uid != pod.metadata.uid:
            self._forget(key, st)
            st = None
        if pod.is_mirror and st is None:
            # A mirror pod in the API with no manifest here (a loaded export): run it as ours.
            self.static_pods[key] = adopt_mirror(pod)
            self._admit(key, self.static_pods[key], static=True)
            self._sync_mirror(key, pod)
            return
        if pod.is_terminated:
            if st is not None:
                self._forget(key, st)
            if pod.metadata.deletion_timestamp is not None:
                self.store.remove("Pod", key[1], key[0])
            return
        if pod.metadata.deletion_timestamp is not None:
            if st is None:
                self.store.remove("Pod", key[1], key[0])
            elif st.stop_timer is None:
                self._kill(key, pod, st, pod.metadata.deletion_timestamp)
            return
        if st is None:
            self._admit(key, pod, static=False)

    def _forget(self, key: tuple[str, str], st: _PodState) -> None:
        for t in (st.start_timer, st.stop_timer):
            if t is not None:
                t.cancel()
        del self.pods[key]
        self._release(st)

    def _release(self, st: _PodState) -> None:
        for name, amount in st.requests.items():
            self.used[name] = self.used.get(name, 0) - amount
        self.used["pods"] = self.used.get("pods", 0) - 1

    # -- static pods ----------------------------------------------------------------------
    def _sync_mirror(self, key: tuple[str, str], pod: Any) -> None:
        """Keep the mirror of a static pod in the API: replace it when it is deleted."""
        if pod is not None and pod.is_mirror and pod.metadata.deletion_timestamp is not None:
            self.store.remove("Pod", key[1], key[0])
            pod = None
        if pod is not None:
            return
        static = self.static_pods[key]
        st = self.pods.get(key)
        try:
            created = self.store.create(static)
        except KsandboxError as exc:
            node = self.store.get("Node", self.name)
            if node is not None:
                self.store.record_event(node, "Warning", "FailedCreateMirrorPod",
                                        f'Failed creating a mirror pod for "{key[1]}": {exc}',
                                        COMPONENT)
            return
        if st is not None:
            st.uid = created.metadata.uid
            if st.started:
                # The static pod never stopped: its status manager posts it straight away.
                self._write_running(created, st)

    # -- admission and start --------------------------------------------------------------
    def _admit(self, key: tuple[str, str], pod: Any, static: bool) -> None:
        now = self.clock.now
        reason, message = self._admission_failure(pod) if not static else ("", "")
        if reason:
            self._reject(pod, reason, message)
            return
        st = _PodState(pod.metadata.uid, now, pod.spec.requests, static)
        if static:
            api_pod = self.store.get("Pod", key[1], key[0])
            st.uid = api_pod.metadata.uid if api_pod is not None else ""
        self.pods[key] = st
        for name, amount in st.requests.items():
            self.used[name] = self.used.get(name, 0) + amount
        self.used["pods"] = self.used.get("pods", 0) + 1
        self._schedule_start(key, st)

    def _admission_failure(self, pod: Any) -> tuple[str, str]:
        """canAdmitPod: the eviction manager's pressure check, then the resource fit."""
        msg = ev.admission_rejection({_PRESSURE_CONDITION[k] for k in self.held}, pod)
        if msg is not None:
            return ev.REASON_EVICTED, msg
        if ev.is_critical(pod):
            return "", ""
        node = self.store.get("Node", self.name)
        if node is None:
            return "", ""
        alloc = node.allocatable_amounts
        used_pods = self.used.get("pods", 0)
        if "pods" in alloc and used_pods + 1 > alloc["pods"]:
            return "OutOfpods", _insufficient("pods", 1, used_pods, alloc["pods"])
        req = pod.spec.requests
        names = [n for n in _FIT_ORDER if n in req] + sorted(n for n in req if n not in _FIT_ORDER)
        for name in names:
            amount = req[name]
            if amount <= 0:
                continue
            have = alloc.get(name, 0)
            used = self.used.get(name, 0)
            if used + amount > have:
                return f"OutOf{name}", _insufficient(name, amount, used, have)
        return "", ""

    def _reject(self, pod: Any, reason: str, message: str) -> None:
        """rejectPod: a Warning event and the pod Failed with "Pod was rejected: …"."""
        self.store.record_event(pod, "Warning", reason, message, COMPONENT)
        status = attrs.evolve(pod.status, phase=FAILED, reason=reason,
                              message=f"Pod was rejected: {message}")
        self.store.update(attrs.evolve(pod, status=status), validate=False)

    def _schedule_start(self, key: tuple[str, str], st: _PodState) -> None:
        lo, hi = START_DELAY
        delay = round(self.rand.uniform(lo, hi), 1)
        st.start_timer = self.clock.call_later(delay, lambda: self._start(key),
                                               PRIORITY_KUBELET, f"kubelet/{self.name}/start")

    def _start(self, key: tuple[str, str]) -> None:
        st = self.pods.get(key)
        if st is None or self.failed:
            return
        st.start_timer = None
        st.started = True
        pod = self.store.get("Pod", key[1], key[0])
        if pod is None or pod.metadata.uid != st.uid or pod.metadata.deletion_timestamp is not None:
            return
        for c in pod.spec.containers:
            self.store.record_event(pod, "Normal", "Pulled",
                                    f'Container image "{c.image}" already present on machine',
                                    COMPONENT)
            self.store.record_event(pod, "Normal", "Created", f"Created container: {c.name}",
                                    COMPONENT)
            self.store.record_event(pod, "Normal", "Started", f"Started container {c.name}",
                                    COMPONENT)
        self._write_running(pod, st)

    def _running_status(self, pod: Any, st: _PodState) -> Any:
        now = self.clock.now
        old = pod.status
        conds = []
        for t in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                  "PodScheduled"):
            prev = old.condition(t)
            if prev is not None and prev.status == "True":
                conds.append(prev)
            else:
                conds.append(PodCondition(type=t, status="True", last_transition_time=now))
        statuses = tuple(FrozenDict({
            "name": c.name, "image": c.image, "ready": True, "started": True,
            "restartCount": 0, "state": FrozenDict({"running": FrozenDict({"startedAt": now})}),
        }) for c in pod.spec.containers)
        extra = old.extra.set("containerStatuses", statuses)
        return attrs.evolve(old, phase=RUNNING, conditions=tuple(conds),
                            start_time=st.admitted_at if old.start_time is None
                            else old.start_time,
                            host_ip=old.host_ip or self.host_ip(),
                            pod_ip=old.pod_ip or (self.host_ip() if pod.spec.host_network
                                                  else self._pod_ip()),
                            reason="", message="", extra=extra)

    def _write_running(self, pod: Any, st: _PodState) -> None:
        self.store.update(attrs.evolve(pod, status=self._running_status(pod, st)),
                          validate=False)

    # -- stop -----------------------------------------------------------------------------
    def _kill(self, key: tuple[str, str], pod: Any, st: _PodState, at: float) -> None:
        if st.start_timer is not None:
            st.start_timer.cancel()
            st.start_timer = None
        if not st.started:
            at = self.clock.now
        else:
            for c in pod.spec.containers:
                self.store.record_event(pod, "Normal", "Killing", f"Stopping container {c.name}",
                                        COMPONENT)
        uid = st.uid
        st.stop_timer = self.clock.call_at(max(at, self.clock.now),
                                           lambda: self._finish_kill(key, uid),
                                           PRIORITY_KUBELET, f"kubelet/{self.name}/kill")

    def _finish_kill(self, key: tuple[str, str], uid: str) -> None:
        st = self.pods.get(key)
        if st is not None and st.uid == uid:
            st.stop_timer = None
            self._forget(key, st)
        if self.failed:
            return
        pod = self.store.get("Pod", key[1], key[0])
        if pod is not None and pod.metadata.uid == uid and \
                pod.metadata.deletion_timestamp is not None:
            self.store.remove("Pod", key[1], key[0])

    # -- node-pressure eviction -----------------------------------------------------------
    def set_pressure(self, kind: str, on: bool) -> None:
        if on:
            self.faults.add(kind)
        else:
            self.faults.discard(kind)
        if not self.failed and self.registered:
            self._schedule_eviction(self._next_grid(ev.EVICTION_MONITORING_PERIOD))

    def _schedule_eviction(self, at: float, foreground: bool = False) -> None:
        if self._eviction_timer is not None:
            if self._eviction_timer.when <= at and not self._eviction_timer.cancelled:
                return
            self._eviction_timer.cancel()
        self._eviction_timer = self.clock.call_at(at, self._eviction_sync, PRIORITY_KUBELET,
                                                  f"kubelet/{self.name}/eviction",
                                                  background=not foreground)

    def _eviction_sync(self) -> None:
        """synchronize: observe, update conditions, evict at most one pod."""
        self._eviction_timer = None
        if self.failed or self.stopped:
            return
        now = self.clock.now
        observed = [k for k in ev.RECLAIM_ORDER if k in self.faults]
        for k in observed:
            self.last_observed[k] = now
        period = self.config.eviction_pressure_transition_period
        held = {k for k, t in self.last_observed.items() if now - t < period}
        for k in [k for k in self.last_observed if k not in held]:
            del self.last_observed[k]
        if held != self.held:
            self.held = held
            node = self.store.get("Node", self.name)
            if node is not None:
                self._post_status(node)
        next_at = None
        if observed:
            kind = observed[0]
            resource = ev.PRESSURE_KINDS[kind][2]
            node = self.store.get("Node", self.name)
            if node is not None:
                self.store.record_event(node, "Warning", "EvictionThresholdMet",
                                        f"Attempting to reclaim {resource}", COMPONENT)
            if self._evict_one(kind, node):
                next_at = now + ev.IMMEDIATE_EVICTION_GRACE_PERIOD + ev.POD_CLEANUP_POLL
                self._schedule_eviction(next_at, foreground=True)
                return
        if observed or self.held:
            self._schedule_eviction(now + ev.EVICTION_MONITORING_PERIOD)

    def _evict_one(self, kind: str, node: Any) -> bool:
        active = []
        for key, st in self.pods.items():
            if st.evicting or st.stop_timer is not None:
                continue
            pod = self.store.get("Pod", key[1], key[0])
            if pod is None or pod.metadata.uid != st.uid or pod.is_terminated or \
                    pod.metadata.deletion_timestamp is not None:
                continue
            active.append(pod)
        signal = ev.PRESSURE_KINDS[kind][1]
        resource = ev.PRESSURE_KINDS[kind][2]
        capacity = 0
        if node is not None and resource in node.status.capacity:
            capacity = resource_amount(resource, node.status.capacity[resource])
        for pod in ev.rank(active, kind):
            if ev.is_critical(pod):
                continue
            message = ev.eviction_message(kind, self.config.threshold(signal), capacity)
            self.store.record_event(pod, "Warning", ev.REASON_EVICTED, message, COMPONENT)
            key = mirror_key(pod)
            st = self.pods[key]
            st.evicting = True
            uid = pod.metadata.uid
            self.clock.call_later(ev.IMMEDIATE_EVICTION_GRACE_PERIOD,
                                  lambda: self._finish_eviction(key, uid, message),
                                  PRIORITY_KUBELET, f"kubelet/{self.name}/evict")
            return True
        return False

    def _finish_eviction(self, key: tuple[str, str], uid: str, message: str) -> None:
        """The pod's containers are gone: it is Failed/Evicted and its resources are free."""
        st = self.pods.get(key)
        if st is not None and st.uid == uid:
            self._forget(key, st)
        pod = self.store.get("Pod", key[1], key[0])
        if pod is None or pod.metadata.uid != uid or pod.is_terminated:
            return
        now = self.clock.now
        conds = [c for c in pod.status.conditions
                 if c.type not in (ev.DISRUPTION_TARGET, "Ready", "ContainersReady")]
        conds.append(PodCondition(type=ev.DISRUPTION_TARGET, status="True",
                                  reason=ev.REASON_TERMINATION_BY_KUBELET, message=message,
                                  last_transition_time=now))
        conds += [PodCondition(type=t, status="False", reason="PodFailed",
                               last_transition_time=now) for t in ("Ready", "ContainersReady")]
        status = attrs.evolve(pod.status, phase=FAILED, reason=ev.REASON_EVICTED,
                              message=message, conditions=tuple(conds))
        self.store.update(attrs.evolve(pod, status=status), validate=False)

    def pressure_clears_at(self) -> float | None:
        """When the last held pressure condition will clear, if no fault keeps it."""
        if self.faults or not self.last_observed or self.failed:
            return None
        return max(self.last_observed.values()) + self.config.eviction_pressure_transition_period \
            + ev.EVICTION_MONITORING_PERIOD


def _ready_status(pod: Any) -> str:
    c = pod.status.condition("Ready")
    return c.status if c is not None else ""


def _insufficient(name: str, requested: int, used: int, capacity: int) -> str:
    """InsufficientResourceError.Error (cpu in millicores, memory in bytes)."""
    return (f"Node didn't have enough resource: {name}, requested: {requested}, "
            f"used: {used}, capacity: {capacity}")

