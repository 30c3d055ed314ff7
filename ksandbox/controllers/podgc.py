"""The pod garbage collector: terminated pods past the threshold, and pods whose node is gone.

A port of ``pkg/controller/podgc/gc_controller.go``, one pass every 20 s (gcCheckPeriod):

* ``gcTerminated``: when more than ``--terminated-pod-gc-threshold`` (12,500) pods have
  finished (Succeeded or Failed), delete the oldest surplus — evicted pods first;
* ``gcTerminating``: force-delete terminating pods on a NotReady node carrying the
  ``node.kubernetes.io/out-of-service`` taint;
* ``gcOrphaned``: pods bound to a node that does not exist are quarantined for 40 s
  (quarantineTime, in case the node is only late to appear), then marked Failed with a
  ``DisruptionTarget`` condition (``DeletionByPodGC``) and force-deleted;
* ``gcUnscheduledTerminating``: terminating pods never bound to a node are force-deleted.

Force deletion is a grace period of 0: the pod leaves the API at once. The controller keeps
indexes from the pod watch (finished pods, terminating pods, nodes with pods) so a pass costs
what is to be collected, not the whole cluster.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Collection, Sequence

from ..api.core import FAILED, SUCCEEDED, PodCondition, pod_condition
from ..api.evolve import evolve
from ..api.taints import TAINT_NODE_OUT_OF_SERVICE
from ..apiserver.store import DELETED, WatchEvent
from ..sim.clock import PRIORITY_CONTROLLER
from .base import run_pass

if TYPE_CHECKING:
    from ..api.core import Pod

# pkg/controller/podgc/gc_controller.go.
GC_CHECK_PERIOD = 20.0      # gcCheckPeriod
QUARANTINE_TIME = 40.0      # quarantineTime
# kube-controller-manager --terminated-pod-gc-threshold (PodGCControllerConfiguration default).
TERMINATED_POD_GC_THRESHOLD = 12500
DISRUPTION_TARGET = "DisruptionTarget"


class PodGCController:
    name = "podgc"

    def __init__(self, terminated_threshold: int = TERMINATED_POD_GC_THRESHOLD) -> None:
        self.terminated_threshold = terminated_threshold
        self.terminated: dict[tuple[str, str], None] = {}
        self.terminating: dict[tuple[str, str], None] = {}
        self.bound_nodes: dict[str, None] = {}
        self.quarantine: dict[str, float] = {}   # node name → when it may be declared gone

    def start(self, cp: Any) -> None:
        self.store = cp.store
        self.clock = cp.clock
        self.store.subscribe("Pod", self._on_pod)
        self.clock.call_soon(self._loop, PRIORITY_CONTROLLER, "podgc")

    # -- a Session's load (bulk start: session.py) ---------------------------------------------
    def muted_for_load(self, kinds: Collection[str] = (), objects: Sequence[Any] = ()
                       ) -> list[tuple[str, Any]]:
        """The pod watch only fills this controller's own indexes: a load may be read from
        the store once instead (load_done), in the order it was written."""
        return [] if self.store.count("Pod") else [("Pod", self._on_pod)]

    def load_done(self) -> None:
        terminated, terminating, bound = self.terminated, self.terminating, self.bound_nodes
        for key, pod in self.store.items("Pod"):   # _on_pod of each ADDED pod
            if pod.status.phase in (SUCCEEDED, FAILED):
                terminated[key] = None
            if pod.metadata.deletion_timestamp is not None:
                terminating[key] = None
            if pod.spec.node_name:
                bound[pod.spec.node_name] = None

    def _on_pod(self, ev: WatchEvent) -> None:
        pod = ev.obj
        key = (pod.metadata.namespace, pod.metadata.name)
        if ev.type == DELETED:
            self.terminated.pop(key, None)
            self.terminating.pop(key, None)
            return
        if pod.status.phase in (SUCCEEDED, FAILED):
            self.terminated[key] = None
        else:
            self.terminated.pop(key, None)
        if pod.metadata.deletion_timestamp is not None:
            self.terminating[key] = None
        if pod.spec.node_name:
            self.bound_nodes[pod.spec.node_name] = None

    def _loop(self) -> None:
        run_pass(self.clock, "podgc", self.gc)
        self.clock.call_later(GC_CHECK_PERIOD, self._loop, PRIORITY_CONTROLLER, "podgc",
                              background=True)

    def gc(self) -> None:
        if self.terminated_threshold > 0:
            self._gc_terminated()
        self._gc_terminating()
        self._gc_orphaned()
        self._gc_unscheduled_terminating()

    def _pods(self, keys: dict[tuple[str, str], None]) -> list[Any]:
        out = []
        for key in list(keys):
            pod = self.store.get("Pod", key[1], key[0])
            if pod is None:
                keys.pop(key, None)
            else:
                out.append(pod)
        return out

    def _gc_terminated(self) -> None:
        surplus = len(self.terminated) - self.terminated_threshold
        if surplus <= 0:
            return
        pods = [p for p in self._pods(self.terminated) if p.is_terminated]
        surplus = len(pods) - self.terminated_threshold
        pods.sort(key=lambda p: (p.status.reason != "Evicted",
                                 p.metadata.creation_timestamp or 0.0, p.metadata.name))
        for pod in pods[:max(0, surplus)]:
            self._mark_failed_and_delete(pod)

    def _gc_terminating(self) -> None:
        for pod in self._pods(self.terminating):
            if pod.metadata.deletion_timestamp is None:
                self.terminating.pop((pod.metadata.namespace, pod.metadata.name), None)
                continue
            node = self.store.get("Node", pod.spec.node_name) if pod.spec.node_name else None
            if node is None:
                continue
            if node.ready != "True" and any(t.key == TAINT_NODE_OUT_OF_SERVICE
                                            for t in node.spec.taints):
                self._mark_failed_and_delete(pod)

    def _gc_orphaned(self) -> None:
        now = self.clock.now
        for name in list(self.bound_nodes):
            if self.store.get("Node", name) is not None:
                self.quarantine.pop(name, None)
                continue
            if not self.store.pods_on_node(name):
                del self.bound_nodes[name]
                self.quarantine.pop(name, None)
                continue
            self.quarantine.setdefault(name, now + QUARANTINE_TIME)
        gone = [n for n, t in self.quarantine.items() if t <= now
                and self.store.get("Node", n) is None]
        for name in sorted(gone):
            del self.quarantine[name]
            for pod in sorted(self.store.pods_on_node(name),
                              key=lambda p: (p.metadata.namespace, p.metadata.name)):
                cond = pod_condition(pod, DISRUPTION_TARGET, "True", "DeletionByPodGC",
                                     "PodGC: node no longer exists", now)
                self._mark_failed_and_delete(pod, cond)

    def _gc_unscheduled_terminating(self) -> None:
        for pod in self._pods(self.terminating):
            if pod.metadata.deletion_timestamp is not None and not pod.spec.node_name:
                self._mark_failed_and_delete(pod)

    def _mark_failed_and_delete(self, pod: Pod, condition: PodCondition | None = None) -> None:
        """markFailedAndDeletePodWithCondition: Failed first (no kubelet will do it), then gone."""
        if pod.status.phase not in (SUCCEEDED, FAILED):
            conds = pod.status.conditions
            if condition is not None:
                conds = tuple(c for c in conds if c.type != condition.type) + (condition,)
            pod = self.store.update_status(evolve(pod, status=evolve(
                pod.status, phase=FAILED, conditions=conds)))
        self.store.remove("Pod", pod.metadata.name, pod.metadata.namespace)

    def busy_until(self) -> float | None:
        """Pods of a deleted node are collected once their quarantine ends."""
        if not self.quarantine:
            return None
        return max(self.quarantine.values()) + GC_CHECK_PERIOD
