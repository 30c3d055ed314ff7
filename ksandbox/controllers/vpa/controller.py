"""The Vertical Pod Autoscaler: recommender, updater and admission controller in one component.

Upstream runs three programs (``vertical-pod-autoscaler/pkg/{recommender,updater,
admission-controller}``); the sandbox runs them as one component ``"vpa"`` on the simulated
clock:

* **Recommender** — every minute (``--recommender-interval``) it samples the CPU and memory
  usage of the Running pods of each VPA's target (from the ``metrics`` component; a pod's
  usage is split over its containers in proportion to their requests), feeds the decaying
  histograms of ``model.py``, and writes ``status.recommendation`` (target,
  lowerBound, upperBound, uncappedTarget per container, capped by the container policies) and
  the ``RecommendationProvided`` / ``NoPodsMatched`` conditions.
* **Updater** — right after, in ``Recreate`` / ``Auto`` (and ``InPlaceOrRecreate``, which the
  sandbox treats as Recreate: it has no in-place resize) it evicts, through the Eviction API
  (so PodDisruptionBudgets hold), pods whose requests are outside [lowerBound, upperBound] —
  or, for pods running over 12 h, that differ from the target by 10 % or more — highest
  priority first (a pod that must grow before one that may shrink, then by relative
  difference). Per controller it needs at least ``minReplicas`` (2) live pods and evicts no
  more than ``int(0.5 × replicas)`` at a time (``--eviction-tolerance``). Events as upstream:
  ``EvictedByVPA`` on the pod, ``EvictedPod`` on the VPA.
* **Admission controller** — a mutating admission hook (``apiserver.admission.add_mutator``)
  on pod creation: a pod of a VPA's target in ``Initial``, ``Recreate`` or ``Auto`` mode gets the
  recommended requests (limits scaled in proportion, unless ``controlledValues:
  RequestsOnly``) and the ``vpaUpdates`` / ``vpaObservedContainers`` annotations.

A VPA targets a Deployment, ReplicaSet, ReplicationController or DaemonSet (or a bare Pod's
controller chain ending there): a pod belongs to it when the top of the pod's controller chain
is the target. Status writes that only move the bounds (they drift every minute as confidence
grows) are quiet: they do not keep a headless run alive.

The component is composed of its parts, each in its own module and handed what it uses:
``targets`` (:class:`~.targets.Targets`: which pods a VPA controls), ``recommender``
(:class:`~.recommender.Recommender`), ``updater`` (:class:`~.updater.Updater`) and
``admission`` (:class:`~.admission.AdmissionController`); this module holds the loop, and
makes the parts when the first VPA arrives.

Not here: checkpoints, OOM handling, in-place resize, LimitRange capping, the ``recommenders``
field (one default recommender).
"""

from __future__ import annotations

from typing import Any

from ...apiserver import admission as api_admission
from ...apiserver.store import DELETED, WatchEvent
from ...sim.clock import PRIORITY_CONTROLLER
from ..base import Controller, WorkQueue

# The parts' modules (the recommender's histograms, the updater, the admission controller and
# with them api/vpa.py and api/policy.py) are imported when the sandbox's first VPA arrives
# (_parts): most sandboxes hold none, and the admission hook needs only the store to know
# that (issue 11 item 5: ~35 M instructions of every start).


class VerticalPodAutoscalerController(Controller):
    name = "vpa"

    def __init__(self, metrics: Any, eviction: Any) -> None:
        self.metrics = metrics     # the metrics server's pod usage (the recommender's input)
        self.eviction = eviction   # the Eviction API (the updater evicts through it)

    def start(self, cp: Any) -> None:
        self.cp = cp
        self.store = cp.store
        self.clock = cp.clock
        # The recommender and the updater are loops over every VPA, not reactions to watch
        # events (recommender.RunOnce, updater.RunOnce): each loop queues every VPA and works
        # through them at once. A VPA whose work fails is left for the next loop (no requeue).
        self.recommend_queue = WorkQueue(cp.clock, self._recommend_vpa, "vpa/recommender",
                                         wake=_loop_driven, max_retries=0)
        self.update_queue = WorkQueue(cp.clock, self._update_vpa, "vpa/updater",
                                      wake=_loop_driven, max_retries=0)
        self.targets: Any = None        # the parts: made with the first VPA (_parts)
        self.recommender: Any = None
        self.updater: Any = None
        self.admission: Any = None
        self._busy: float | None = None
        self._timer: Any = None
        self.watch()

    def watch(self) -> None:
        self.store.subscribe("VerticalPodAutoscaler", self._vpa_event)
        api_admission.add_mutator(self.store, "Pod", self._admit_pod)

    def _parts(self) -> None:
        """Make the recommender, the updater and the admission controller (pure
        constructors: made now or at start, they are the same parts)."""
        if self.admission is not None:
            return
        from .admission import AdmissionController
        from .recommender import Recommender
        from .targets import Targets
        from .updater import Updater

        self.targets = Targets(self.store)
        self.recommender = Recommender(self.store, self.clock, self.metrics, self.hold_until)
        self.updater = Updater(self.store, self.clock, self.eviction, self.recommender,
                               self.hold_until)
        self.admission = AdmissionController(self.store, self.targets)

    def _admit_pod(self, pod: Any) -> Any:
        """The mutating hook. A pod without a controller, or in a namespace with no VPA, is
        left as it is (AdmissionController.admit_pod's own first test): the parts are not
        needed for it."""
        if pod.metadata.controller_ref() is None or \
                not self.store.list("VerticalPodAutoscaler", pod.metadata.namespace):
            return pod
        self._parts()
        return self.admission.admit_pod(pod)

    def busy_until(self) -> float | None:
        return self._busy

    def hold_until(self, t: float) -> None:
        """A part expects to act at ``t`` (a loop that will evict, a first sample coming): a
        headless run goes on until then."""
        self._busy = t if self._busy is None else min(self._busy, t)

    # -- the loop ------------------------------------------------------------------------------
    def _vpa_event(self, ev: WatchEvent) -> None:
        key = (ev.obj.metadata.namespace, ev.obj.metadata.name)
        self._parts()
        if ev.type == DELETED:
            self.recommender.forget(key)
            return
        if self._timer is None:
            from .recommender import RECOMMENDER_INTERVAL

            # The first loop at the next whole interval; later ones every interval.
            now = self.clock.now
            first = -(-now // RECOMMENDER_INTERVAL) * RECOMMENDER_INTERVAL
            self._timer = self.clock.call_at(first, self._tick, PRIORITY_CONTROLLER,
                                             "vpa", background=True)

    def _tick(self) -> None:
        self._busy = None
        vpas = sorted(self.store.list("VerticalPodAutoscaler"),
                      key=lambda v: (v.metadata.namespace, v.metadata.name))
        if not vpas:
            self._timer = None
            return
        for vpa in vpas:
            self.recommend_queue.add((vpa.metadata.namespace, vpa.metadata.name))
        while self.recommend_queue.process_next():
            pass
        for vpa in vpas:
            self.update_queue.add((vpa.metadata.namespace, vpa.metadata.name))
        while self.update_queue.process_next():
            pass
        from .recommender import RECOMMENDER_INTERVAL

        self._timer = self.clock.call_later(RECOMMENDER_INTERVAL, self._tick,
                                            PRIORITY_CONTROLLER, "vpa", background=True)

    def _recommend_vpa(self, key: tuple[str, str]) -> None:
        vpa = self.store.get("VerticalPodAutoscaler", key[1], key[0])
        if vpa is not None:
            self.recommender.recommend(vpa, self.targets.pods_of(vpa))

    def _update_vpa(self, key: tuple[str, str]) -> None:
        from .updater import EVICTING_MODES

        fresh = self.store.get("VerticalPodAutoscaler", key[1], key[0])
        if fresh is not None and fresh.update_mode in EVICTING_MODES:
            self.updater.update(fresh, self.targets.pods_of(fresh))


def _loop_driven() -> None:
    """The VPA's queues are worked through by its loop, not on their own."""
