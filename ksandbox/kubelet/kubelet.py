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
from typing import TYPE_CHECKING, AbstractSet

from . import eviction as ev
from .config import KubeletConfig
from .eviction_manager import EvictionManager
from .node_status import COMPONENT, KUBELET_VERSION, NodeStatusManager
from .pod_workers import PodWorkers
from .static import StaticPods, mirror_key

if TYPE_CHECKING:
    from .manager import KubeletManager

__all__ = ["Kubelet", "COMPONENT", "KUBELET_VERSION"]


class Kubelet:
    """One node's kubelet, composed as upstream's ``pkg/kubelet/kubelet.go`` composes it: the
    Kubelet owns its parts and hands each what it uses —

    * ``node_status`` (:class:`~.node_status.NodeStatusManager`): status posts and the Lease;
    * ``static_pods`` (:class:`~.static.StaticPods`): the manifests and their mirror pods;
    * ``pod_workers`` (:class:`~.pod_workers.PodWorkers`): admit, start, stop the pods, and
      their exits (``pod_workers.completion``, :class:`~.pod_completion.PodCompletion`);
    * ``eviction_manager`` (:class:`~.eviction_manager.EvictionManager`): node pressure.

    This module holds its life: register, fail, recover, stop, and the flags every part reads
    (``registered``, ``stopped``, ``failed``, ``runtime_down``, ``halted``)."""

    def __init__(self, manager: KubeletManager, node_name: str, config: KubeletConfig,
                 index: int) -> None:
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
        # The eviction manager is built last (it evicts the workers' pods and posts through the
        # status manager); the others ask it which pressure conditions it holds.
        self.node_status = NodeStatusManager(self, held=self._held)
        self.static_pods = StaticPods(self)
        self.pod_workers = PodWorkers(self, self.node_status, self.static_pods, held=self._held)
        self.eviction_manager = EvictionManager(self, self.pod_workers, self.node_status)

    def _held(self) -> AbstractSet[str]:
        return self.eviction_manager.held

    # -- what the manager calls -----------------------------------------------------------
    def enqueue(self, key: tuple[str, str]) -> None:
        self.pod_workers.enqueue(key)

    def set_pressure(self, kind: str, on: bool) -> None:
        self.eviction_manager.set_pressure(kind, on)

    @property
    def faults(self) -> AbstractSet[str]:
        """The pressure faults switched on (``memory``, ``disk``, ``pid``)."""
        return self.eviction_manager.faults

    def pressure_clears_at(self) -> float | None:
        return self.eviction_manager.pressure_clears_at()

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
        self.node_status.post(node, registering=True)
        self.store.record_event(self.store.get("Node", self.name), "Normal",
                                "NodeAllocatableEnforced",
                                "Updated Node Allocatable limit across pods", COMPONENT)
        self.node_status.renew_lease()
        self.manager.every(self, self.config.lease_renew_interval, self.node_status.renew_lease)
        self.manager.every(self, self.config.node_status_update_frequency, self.node_status.tick)
        workers = self.pod_workers
        for key in self.static_pods.load():
            workers.queue(key)
        for pod in self.store.pods_on_node(self.name):
            workers.queue(mirror_key(pod))
        workers.schedule_sync()
        if self.faults:
            self.eviction_manager.schedule(self.next_grid(ev.EVICTION_MONITORING_PERIOD))

    def stop(self) -> None:
        """The Node is gone: stop every timer (pods left behind are podgc's business)."""
        self.stopped = True
        self.manager.leave(self)
        self.pod_workers.stop()
        self.eviction_manager.cancel()

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
            self.node_status.forget_posted()   # the next status check sees Ready change
        else:
            self.failed = True
        self.pod_workers.freeze()
        self.eviction_manager.cancel()

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
            self.node_status.renew_lease()
        node = self.store.get("Node", self.name)
        if node is not None:
            self.node_status.post(node)
        self.pod_workers.resync()
        if self.faults or self.eviction_manager.held:
            self.eviction_manager.schedule(self.next_grid(ev.EVICTION_MONITORING_PERIOD))

    def next_grid(self, period: float) -> float:
        """The next tick at or after now of a loop started at registration."""
        now = self.clock.now
        k = math.ceil((now - self.started_at) / period - 1e-9)
        return self.started_at + max(0, k) * period
