"""The kubelet's eviction manager loop: ``pkg/kubelet/eviction/eviction_manager.go``
(synchronize, evictPod): the :class:`EvictionManager` a :class:`~ksandbox.kubelet.kubelet.Kubelet`
owns.

Runs every evictionMonitoringPeriod (10 s) while a pressure fault is on or its condition is
still held; observes the faults, keeps each condition for evictionPressureTransitionPeriod after
the last observation, and evicts at most one pod per pass (the ranking and messages are in
``eviction.py``), passing again once the evicted pod is gone (1 s grace, 1 s poll).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, AbstractSet, Any

from ..api.core import FAILED, PodCondition
from ..api.evolve import evolve
from ..api.quantity import resource_amount
from ..sim.clock import PRIORITY_KUBELET
from . import eviction as ev
from .generation import kubelet_generation, post_status
from .static import mirror_key

if TYPE_CHECKING:
    from ..api.core import Node
    from .kubelet import Kubelet
    from .node_status import NodeStatusManager
    from .pod_workers import PodWorkers

COMPONENT = "kubelet"


class EvictionManager:
    """The pressure faults switched on for ``kubelet``'s node, the conditions held, and the
    loop that evicts one of ``workers``' pods per pass; ``node_status`` posts a held
    condition's change at once."""

    def __init__(self, kubelet: Kubelet, workers: PodWorkers,
                 node_status: NodeStatusManager) -> None:
        self.kubelet = kubelet
        self.store = kubelet.store
        self.clock = kubelet.clock
        self.name = kubelet.name
        self.config = kubelet.config
        self.workers = workers
        self.node_status = node_status
        # both the empty frozenset until a fault is set (ImageManager.pulled)
        self.faults: AbstractSet[str] = frozenset()
        self.last_observed: dict[str, float] = {}
        self.held: AbstractSet[str] = frozenset()
        self._timer: Any = None

    def set_pressure(self, kind: str, on: bool) -> None:
        self.faults = self.faults | {kind} if on else self.faults - {kind}
        if not self.kubelet.halted and self.kubelet.registered:
            self.schedule(self.kubelet.next_grid(ev.EVICTION_MONITORING_PERIOD))

    def schedule(self, at: float, foreground: bool = False) -> None:
        if self._timer is not None:
            if self._timer.when <= at and not self._timer.cancelled:
                return
            self._timer.cancel()
        self._timer = self.clock.call_at(at, self.synchronize, PRIORITY_KUBELET,
                                                  f"kubelet/{self.name}/eviction",
                                                  background=not foreground)

    def synchronize(self) -> None:
        """synchronize: observe, update conditions, evict at most one pod."""
        self._timer = None
        if self.kubelet.halted or self.kubelet.stopped:
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
                self.node_status.post(node)
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
                self.schedule(next_at, foreground=True)
                return
        if observed or self.held:
            self.schedule(now + ev.EVICTION_MONITORING_PERIOD)

    def _evict_one(self, kind: str, node: Node) -> bool:
        active = []
        for key, st in self.workers.pods.items():
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
            st = self.workers.pods[key]
            st.evicting = True
            uid = pod.metadata.uid
            self.clock.call_later(ev.IMMEDIATE_EVICTION_GRACE_PERIOD,
                                  lambda: self._finish_eviction(key, uid, message),  # noqa: B023 - called at once
                                  PRIORITY_KUBELET, f"kubelet/{self.name}/evict")
            return True
        return False

    def _finish_eviction(self, key: tuple[str, str], uid: str, message: str) -> None:
        """The pod's containers are gone: it is Failed/Evicted and its resources are free."""
        st = self.workers.pods.get(key)
        if st is not None and st.uid == uid:
            self.workers.forget(key, st)
        pod = self.store.get("Pod", key[1], key[0])
        if pod is None or pod.metadata.uid != uid or pod.is_terminated:
            return
        now = self.clock.now
        conds = [c for c in pod.status.conditions
                 if c.type not in (ev.DISRUPTION_TARGET, "Ready", "ContainersReady")]
        conds.append(PodCondition(type=ev.DISRUPTION_TARGET,
                                  observed_generation=kubelet_generation(pod), status="True",
                                  reason=ev.REASON_TERMINATION_BY_KUBELET, message=message,
                                  last_transition_time=now))
        conds += [PodCondition(type=t, status="False", reason="PodFailed",
                               last_transition_time=now) for t in ("Ready", "ContainersReady")]
        status = evolve(pod.status, phase=FAILED, reason=ev.REASON_EVICTED,
                        message=message, conditions=tuple(conds))
        post_status(self.store, pod, status)

    def pressure_clears_at(self) -> float | None:
        """When the last held pressure condition will clear, if no fault keeps it."""
        if self.faults or not self.last_observed or self.kubelet.failed:
            return None
        return max(self.last_observed.values()) + self.config.eviction_pressure_transition_period \
            + ev.EVICTION_MONITORING_PERIOD

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
