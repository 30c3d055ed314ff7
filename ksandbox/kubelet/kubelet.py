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
  until it recovers, when it renews, re-posts its status and resynchronizes its pods. A kubelet
  whose container runtime is down (``fail node --not-ready``) stays alive: it keeps renewing
  its Lease and posting status, but reports Ready=False (``KubeletNotReady``, "container runtime
  is down", as ``ReadyCondition`` with ``runtimeState.runtimeErrors``) and starts and stops no
  pods until the runtime is back.

Store watches only enqueue pod keys; :meth:`Kubelet.sync` reads the current objects and acts.
"""

from __future__ import annotations

import math
from typing import Any

from . import eviction as ev
from .config import KubeletConfig
from .eviction_manager import EvictionManagerMixin
from .node_status import COMPONENT, KUBELET_VERSION, NodeStatusMixin
from .pod_completion import PodCompletionMixin
from .pod_workers import PodWorkersMixin, _PodState, _ready_status
from .static import build_static_pod, mirror_key

__all__ = ["Kubelet", "COMPONENT", "KUBELET_VERSION"]


class Kubelet(NodeStatusMixin, PodWorkersMixin, EvictionManagerMixin, PodCompletionMixin):
    """One node's kubelet. Its methods live by concept, as upstream's do across files:
    ``node_status.py`` (status, lease), ``pod_workers.py`` (pods, static pods) and
    ``eviction_manager.py`` (node pressure); this module holds its life: register, fail,
    recover, stop."""

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
        self.runtime_down = False
        self.started_at = 0.0
        self.pods: dict[tuple[str, str], _PodState] = {}
        self.used: dict[str, int] = {}
        self.static_pods: dict[tuple[str, str], Any] = {}
        self.faults: set[str] = set()
        self.last_observed: dict[str, float] = {}
        self.held: set[str] = set()
        self.last_report = -math.inf
        self._queue: dict[tuple[str, str], None] = {}
        self._exit_timers: dict[tuple[str, str], Any] = {}
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

    @property
    def halted(self) -> bool:
        """No pod can be started, stopped or evicted: the kubelet is silent or its runtime down."""
        return self.failed or self.runtime_down

    def fail(self, not_ready: bool = False) -> None:
        """Go silent: the node died or was cut off. Running containers are left as they are.

        With ``not_ready`` the kubelet stays alive and only its container runtime goes down: the
        Lease is still renewed and the next status check posts Ready=False; pods are frozen."""
        if not_ready:
            self.runtime_down = True
            self._posted = None   # the next status check compares conditions: Ready changes
        else:
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
        """Reconnect: renew the lease, post status, resynchronize every pod. A kubelet whose
        runtime was down (its lease never lapsed) just posts Ready=True and resynchronizes."""
        silent = self.failed
        self.failed = False
        self.runtime_down = False
        if not self.registered:
            self.register()
            return
        if silent:
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

