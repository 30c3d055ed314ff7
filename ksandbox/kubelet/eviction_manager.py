"""The kubelet's eviction manager loop: ``pkg/kubelet/eviction/eviction_manager.go``
(synchronize, evictPod), as methods of :class:`~ksandbox.kubelet.kubelet.Kubelet`.

Runs every evictionMonitoringPeriod (10 s) while a pressure fault is on or its condition is
still held; observes the faults, keeps each condition for evictionPressureTransitionPeriod after
the last observation, and evicts at most one pod per pass (the ranking and messages are in
``eviction.py``), passing again once the evicted pod is gone (1 s grace, 1 s poll).
"""

from __future__ import annotations

from typing import Any

import attrs

from ..api.core import FAILED, PodCondition
from ..api.quantity import resource_amount
from ..sim.clock import PRIORITY_KUBELET
from . import eviction as ev
from .static import mirror_key

COMPONENT = "kubelet"


class EvictionManagerMixin:
    def set_pressure(self, kind: str, on: bool) -> None:
        if on:
            self.faults.add(kind)
        else:
            self.faults.discard(kind)
        if not self.halted and self.registered:
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
        if self.halted or self.stopped:
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
                                  lambda: self._finish_eviction(key, uid, message),  # noqa: B023 - called at once
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
        self.store.update_status(attrs.evolve(pod, status=status))

    def pressure_clears_at(self) -> float | None:
        """When the last held pressure condition will clear, if no fault keeps it."""
        if self.faults or not self.last_observed or self.failed:
            return None
        return max(self.last_observed.values()) + self.config.eviction_pressure_transition_period \
            + ev.EVICTION_MONITORING_PERIOD


