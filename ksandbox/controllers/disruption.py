"""The disruption controller: keeps each PodDisruptionBudget's status current.

A port of the status computation of ``pkg/controller/disruption/disruption.go`` (trySync,
getExpectedPodCount, countHealthyPods, updatePdbStatus):

* ``minAvailable: N`` — expected pods = the pods the selector matches, desired healthy = N;
* ``minAvailable: P%`` or ``maxUnavailable`` — expected pods = the scale of the pods'
  controllers (a ReplicaSet owned by a Deployment counts the Deployment's replicas), desired
  healthy = ⌈P% of expected⌉ or expected − maxUnavailable (a percentage rounded up). A matched
  pod without a controller makes the count impossible: the budget then allows no disruption
  and a ``CalculateExpectedPodCountFailed`` warning is recorded;
* healthy pods = matched pods that are Ready and not being deleted;
* ``disruptionsAllowed`` = healthy − desired, never below 0 (0 when nothing is expected).

An empty or missing selector matches nothing, as upstream. The Eviction API
(``ksandbox.apiserver.eviction``, used by ``kubectl drain``, the VPA and the autoscaler) reads ``disruptionsAllowed`` and decrements it.

Not here: the ``disruptedPods`` map (an eviction deletes the pod at once, so the pod's
``deletionTimestamp`` already keeps it out of the healthy count) and stale-disruption cleanup.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..api.codec import FrozenDict
from ..api.evolve import evolve
from ..api.selectors import atoi_clamped
from ..apiserver.store import DELETED, MODIFIED, WatchEvent
from .base import Controller, Worker

if TYPE_CHECKING:
    from ..api.core import Pod

COMPONENT = "controllermanager"
# pkg/apis/policy: the PDB condition the controller maintains.
DISRUPTION_ALLOWED = "DisruptionAllowed"


def scaled_value(value: int | str, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent."""
    if isinstance(value, int):
        return value
    pct = atoi_clamped(value.rstrip("%")) or 0   # validation let only [0-9]+% through
    exact = pct * total / 100
    return math.ceil(exact) if round_up else math.floor(exact)


def is_pod_ready(pod: Pod) -> bool:
    cond = pod.status.condition("Ready")
    return cond is not None and cond.status == "True"


# The workload kinds whose scale changes a budget's expected count (_on_workload).
_WORKLOADS = ("ReplicaSet", "Deployment", "ReplicationController")


class DisruptionController(Controller):
    name = "disruption"

    def start(self, cp: Any) -> None:
        self.cp = cp
        self.store = cp.store
        self.clock = cp.clock
        # One worker draining until empty, at the instant the first key arrives.
        self.worker = Worker(cp.clock, self.name)
        self.queue = self.worker.queue(self.sync)
        self.watch()

    def watch(self) -> None:
        self.store.subscribe("PodDisruptionBudget", self._on_pdb)
        self.store.subscribe("Pod", self._on_pod)
        for kind in _WORKLOADS:
            self.store.subscribe(kind, self._on_workload)
        # _on_pod returns at once and _on_workload loops over no budget while no budget
        # exists: they hear no pod and no workload meanwhile
        self._pods_heard = True
        self._hear_pods()

    # -- watches --------------------------------------------------------------------------
    def _on_pdb(self, ev: WatchEvent) -> None:
        if ev.type != MODIFIED:
            self._hear_pods()
        if ev.type == DELETED:
            return
        if ev.old is not None and ev.old.spec is ev.obj.spec and \
                ev.old.metadata.generation == ev.obj.metadata.generation:
            return
        self._enqueue((ev.obj.metadata.namespace, ev.obj.metadata.name))

    def _hear_pods(self) -> None:
        """Pods' writes reach _on_pod (its first line), and workloads' _on_workload (its
        loop over the namespace's budgets), only while a PodDisruptionBudget exists."""
        heard = self.store.count("PodDisruptionBudget") > 0
        if heard != self._pods_heard:
            self._pods_heard = heard
            types = None if heard else ()
            self.store.refilter("Pod", self._on_pod, types=types)
            for kind in _WORKLOADS:
                self.store.refilter(kind, self._on_workload, types=types)

    def _on_pod(self, ev: WatchEvent) -> None:
        if not self.store.count("PodDisruptionBudget"):
            return  # no budget to enqueue (what the loop below finds), without the readiness checks
        pod, old = ev.obj, ev.old
        if ev.type not in (DELETED,) and old is not None and old is not pod and \
                old.metadata.labels == pod.metadata.labels and \
                is_pod_ready(old) == is_pod_ready(pod) and \
                old.metadata.deletion_timestamp == pod.metadata.deletion_timestamp:
            return
        ns = pod.metadata.namespace
        for pdb in self.store.list("PodDisruptionBudget", ns):
            sel = pdb.spec.selector
            if sel is None or (not sel.match_labels and not sel.match_expressions):
                continue
            if sel.matches(pod.metadata.labels) or \
                    (old is not None and sel.matches(old.metadata.labels)):
                self._enqueue((ns, pdb.metadata.name))

    def _on_workload(self, ev: WatchEvent) -> None:
        old, obj = ev.old, ev.obj
        if old is not None and ev.type != DELETED and old.spec.replicas == obj.spec.replicas:
            return
        for pdb in self.store.list("PodDisruptionBudget", obj.metadata.namespace):
            self._enqueue((obj.metadata.namespace, pdb.metadata.name))

    def _enqueue(self, key: tuple[str, str]) -> None:
        self.queue.add(key)

    # -- sync -----------------------------------------------------------------------------
    def sync(self, key: tuple[str, str]) -> None:
        pdb = self.store.get("PodDisruptionBudget", key[1], key[0])
        if pdb is None:
            return
        pods = self.matching_pods(pdb)
        expected, desired, error = self.expected_count(pdb, pods)
        if error:
            self.store.record_event(pdb, "Warning", "CalculateExpectedPodCountFailed",
                                    f"Failed to calculate the number of expected pods: {error}",
                                    COMPONENT)
            self._write(pdb, expected=0, desired=0, healthy=0, allowed=0, pods=pods)
            return
        healthy = sum(1 for p in pods
                      if p.metadata.deletion_timestamp is None and is_pod_ready(p))
        allowed = healthy - desired
        if expected <= 0 or allowed <= 0:
            allowed = 0
        self._write(pdb, expected=expected, desired=desired, healthy=healthy, allowed=allowed,
                    pods=pods)

    def matching_pods(self, pdb: Any) -> list[Any]:
        sel = pdb.spec.selector
        if sel is None or (not sel.match_labels and not sel.match_expressions):
            return []
        return [p for p in self.store.list("Pod", pdb.metadata.namespace)
                if sel.matches(p.metadata.labels)]

    def expected_count(self, pdb: Any, pods: list[Any]) -> tuple[int, int, str]:
        """getExpectedPodCount: (expected, desired healthy, error)."""
        spec = pdb.spec
        if spec.max_unavailable is not None:
            expected, error = self._expected_scale(pods)
            if error:
                return 0, 0, error
            unavailable = scaled_value(spec.max_unavailable, expected, True)
            return expected, max(0, expected - unavailable), ""
        if spec.min_available is not None:
            if isinstance(spec.min_available, int):
                return len(pods), spec.min_available, ""
            expected, error = self._expected_scale(pods)
            if error:
                return 0, 0, error
            return expected, scaled_value(spec.min_available, expected, True), ""
        return len(pods), 0, ""

    def _expected_scale(self, pods: list[Any]) -> tuple[int, str]:
        """getExpectedScale: the summed scale of the pods' controllers (each counted once)."""
        scales: dict[str, int] = {}
        for pod in pods:
            ref = pod.metadata.controller_ref()
            if ref is None:
                return 0, f'found no controller ref for pod "{pod.metadata.name}"'
            ns = pod.metadata.namespace
            owner = self.store.get(ref.kind, ref.name, ns) if ref.kind in (
                "ReplicaSet", "ReplicationController") else None
            if owner is None:
                return 0, f'found no controllers for pod "{pod.metadata.name}"'
            if ref.kind == "ReplicaSet":
                dref = owner.metadata.controller_ref()
                if dref is not None and dref.kind == "Deployment":
                    dep = self.store.get("Deployment", dref.name, ns)
                    if dep is not None:
                        scales[dep.metadata.uid] = dep.spec.replicas or 0
                        continue
            scales[owner.metadata.uid] = owner.spec.replicas or 0
        return sum(scales.values()), ""

    def _write(self, pdb: Any, *, expected: int, desired: int, healthy: int, allowed: int,
               pods: list[Any]) -> None:
        now = self.clock.now
        old = pdb.status
        allowed_status = "True" if allowed > 0 else "False"
        old_cond = next((c for c in old.extra.get("conditions", ())
                         if c.get("type") == DISRUPTION_ALLOWED), None)
        if old_cond is not None and old_cond.get("status") == allowed_status:
            cond = old_cond
        else:
            cond = FrozenDict({
                "type": DISRUPTION_ALLOWED, "status": allowed_status,
                "reason": "SufficientPods" if allowed > 0 else "InsufficientPods",
                "message": "", "observedGeneration": pdb.metadata.generation,
                "lastTransitionTime": now})
        extra = old.extra.set("observedGeneration", pdb.metadata.generation) \
            .set("conditions", (cond,))
        status = evolve(old, current_healthy=healthy, desired_healthy=desired,
                        disruptions_allowed=allowed, expected_pods=expected, extra=extra)
        if status == old and status.extra == old.extra:
            return
        self.store.update_status(evolve(pdb, status=status))
