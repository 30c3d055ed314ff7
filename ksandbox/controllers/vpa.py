"""The Vertical Pod Autoscaler: recommender, updater and admission controller in one component.

Upstream runs three programs (``vertical-pod-autoscaler/pkg/{recommender,updater,
admission-controller}``); the sandbox runs them as one component ``"vpa"`` on the simulated
clock:

* **Recommender** — every minute (``--recommender-interval``) it samples the CPU and memory
  usage of the Running pods of each VPA's target (from the ``metrics`` component; a pod's
  usage is split over its containers in proportion to their requests), feeds the decaying
  histograms of ``vpa_recommender.py``, and writes ``status.recommendation`` (target,
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

Not here: checkpoints, OOM handling, in-place resize, LimitRange capping, the ``recommenders``
field (one default recommender).
"""

from __future__ import annotations

import math
from typing import Any

import attrs

from ..api.codec import FrozenDict
from ..api.quantity import Quantity
from ..api.vpa import (
    NO_PODS_MATCHED,
    RECOMMENDATION_PROVIDED,
    RecommendedContainerResources,
    RecommendedPodResources,
    VerticalPodAutoscalerCondition,
)
from ..apiserver import admission
from ..apiserver.store import DELETED, WatchEvent
from ..sim.clock import PRIORITY_CONTROLLER
from .base import Controller, WorkQueue
from .controller_utils import pod_active
from .vpa_recommender import (
    AggregateContainerState,
    as_resource_list,
    cap,
    crossing_confidence,
    estimate,
)

COMPONENT_RECOMMENDER = "vpa-recommender"
COMPONENT_UPDATER = "vpa-updater"
# recommender --recommender-interval and updater --updater-interval: 1 minute each.
RECOMMENDER_INTERVAL = 60.0
# updater flags: --min-replicas 2, --eviction-tolerance 0.5; priority: PodLifetimeUpdateThreshold
# 12 h, MinChangePriority 0.1 (updater/priority/update_priority_calculator.go).
MIN_REPLICAS = 2
EVICTION_TOLERANCE = 0.5
POD_LIFETIME_UPDATE_THRESHOLD = 12 * 3600.0
MIN_CHANGE_PRIORITY = 0.1
EVICTING_MODES = ("Recreate", "Auto", "InPlaceOrRecreate")
ADMITTING_MODES = ("Initial",) + EVICTING_MODES
# updater/logic/updater.go: the events of an eviction.
EVICTED_BY_VPA = "Pod was evicted by VPA Updater to apply resource recommendation."
# utils/annotations: what the admission controller leaves on a pod.
VPA_UPDATES_ANNOTATION = "vpaUpdates"
VPA_OBSERVED_CONTAINERS_ANNOTATION = "vpaObservedContainers"
TARGET_KINDS = ("Deployment", "ReplicaSet", "ReplicationController", "DaemonSet")


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
        self._states: dict[tuple[str, str], dict[str, AggregateContainerState]] = {}
        self._specs: dict[tuple, Any] = {}
        self._busy: float | None = None
        self._timer: Any = None
        self.watch()

    def watch(self) -> None:
        self.store.subscribe("VerticalPodAutoscaler", self._vpa_event)
        admission.add_mutator(self.store, "Pod", self.admit_pod)

    def busy_until(self) -> float | None:
        return self._busy

    # -- the loop ------------------------------------------------------------------------------
    def _vpa_event(self, ev: WatchEvent) -> None:
        key = (ev.obj.metadata.namespace, ev.obj.metadata.name)
        if ev.type == DELETED:
            self._states.pop(key, None)
            return
        if self._timer is None:
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
        self._timer = self.clock.call_later(RECOMMENDER_INTERVAL, self._tick,
                                            PRIORITY_CONTROLLER, "vpa", background=True)

    def _recommend_vpa(self, key: tuple[str, str]) -> None:
        vpa = self.store.get("VerticalPodAutoscaler", key[1], key[0])
        if vpa is not None:
            self._recommend(vpa, self.pods_of(vpa))

    def _update_vpa(self, key: tuple[str, str]) -> None:
        fresh = self.store.get("VerticalPodAutoscaler", key[1], key[0])
        if fresh is not None and fresh.update_mode in EVICTING_MODES:
            self._update(fresh, self.pods_of(fresh))

    def _wake(self) -> None:
        nxt = self.clock.now + RECOMMENDER_INTERVAL
        self._busy = nxt if self._busy is None else min(self._busy, nxt)

    # -- which pods ----------------------------------------------------------------------------
    def _top_controller(self, pod: Any) -> tuple[str, str] | None:
        """(kind, name) of the top of the pod's controller chain (a Deployment over its
        ReplicaSet)."""
        ref = pod.metadata.controller_ref()
        if ref is None:
            return None
        top = (ref.kind, ref.name)
        if ref.kind == "ReplicaSet":
            rs = self.store.get("ReplicaSet", ref.name, pod.metadata.namespace)
            parent = rs.metadata.controller_ref() if rs is not None else None
            if parent is not None and parent.kind == "Deployment":
                top = (parent.kind, parent.name)
        return top

    def _targets(self, vpa: Any, pod: Any) -> bool:
        ref = vpa.spec.target_ref
        return ref is not None and self._top_controller(pod) == (ref.kind, ref.name)

    def pods_of(self, vpa: Any) -> list[Any]:
        """The live pods the VPA controls, by name."""
        ref = vpa.spec.target_ref
        if ref is None or ref.kind not in TARGET_KINDS:
            return []
        ns = vpa.metadata.namespace
        pods = [p for p in self.store.list("Pod", ns)
                if pod_active(p) and self._top_controller(p) == (ref.kind, ref.name)]
        return sorted(pods, key=lambda p: p.metadata.name)

    def vpa_for(self, pod: Any) -> Any | None:
        """GetControllingVPAForPod: the oldest VPA in the pod's namespace targeting it."""
        ns = pod.metadata.namespace
        matches = [v for v in self.store.list("VerticalPodAutoscaler", ns) if self._targets(v, pod)]
        if not matches:
            return None
        return min(matches, key=lambda v: (v.metadata.creation_timestamp or 0, v.metadata.name))

    # -- recommender ---------------------------------------------------------------------------
    def _recommend(self, vpa: Any, pods: list[Any]) -> None:
        key = (vpa.metadata.namespace, vpa.metadata.name)
        states = self._states.setdefault(key, {})
        metrics = self.metrics
        now = self.clock.now
        for pod in pods:
            cpu_m = metrics.cpu_usage_millis(pod)
            mem_b = metrics.memory_usage(pod)
            if cpu_m is None or mem_b is None:
                continue
            containers = pod.spec.containers
            cpu_total = sum(_request(c, "cpu") for c in containers)
            mem_total = sum(_request(c, "memory") for c in containers)
            for c in containers:
                st = states.get(c.name)
                if st is None:
                    st = states[c.name] = AggregateContainerState()
                req_cpu = _request(c, "cpu")
                share_cpu = req_cpu / cpu_total if cpu_total else 1.0 / len(containers)
                share_mem = _request(c, "memory") / mem_total if mem_total \
                    else 1.0 / len(containers)
                st.add_cpu_sample(cpu_m * share_cpu / 1000.0, req_cpu / 1000.0, now)
                st.add_memory_sample((pod.metadata.uid, c.name), mem_b * share_mem, now)
        if pods and not states:
            self._wake()   # pods exist but none is Running yet: the first sample is coming
        recommendation = self._recommendation(vpa, states) if states else None
        self._write_status(vpa, recommendation, bool(pods))

    def _recommendation(self, vpa: Any, states: dict[str, AggregateContainerState]) -> Any:
        out = []
        per_pod = len(states)
        for name in sorted(states):
            policy = vpa.container_policy(name)
            if policy is not None and policy.mode == "Off":
                continue
            controlled = tuple(policy.controlled_resources) \
                if policy is not None and policy.controlled_resources is not None \
                else ("cpu", "memory")
            est = estimate(states[name], per_pod)
            capped = {k: {r: cap(v, r, policy) for r, v in amounts.items()}
                      for k, amounts in est.items()}
            out.append(RecommendedContainerResources(
                container_name=name,
                target=as_resource_list(capped["target"], controlled),
                lower_bound=as_resource_list(capped["lowerBound"], controlled),
                upper_bound=as_resource_list(capped["upperBound"], controlled),
                uncapped_target=as_resource_list(est["target"], controlled)))
        return RecommendedPodResources(container_recommendations=tuple(out)) if out else None

    def _write_status(self, vpa: Any, rec: Any, pods_matched: bool) -> None:
        now = self.clock.now
        fresh = self.store.get("VerticalPodAutoscaler", vpa.metadata.name, vpa.metadata.namespace)
        if fresh is None:
            return
        st = fresh.status
        # model/vpa.go UpdateConditions.
        wanted: dict[str, tuple[str, str, str]] = {}
        no_pods = ("NoPodsMatched", "No pods match this VPA object")
        if not pods_matched:
            wanted[NO_PODS_MATCHED] = ("True",) + no_pods
        if rec is not None:
            wanted[RECOMMENDATION_PROVIDED] = ("True", "", "")
        else:
            wanted[RECOMMENDATION_PROVIDED] = ("False",) + (no_pods if not pods_matched
                                                            else ("", ""))
        conditions = []
        old = {c.type: c for c in st.conditions}
        for type_ in (RECOMMENDATION_PROVIDED, NO_PODS_MATCHED):
            if type_ not in wanted:
                continue
            status, reason, message = wanted[type_]
            prev = old.get(type_)
            since = prev.last_transition_time if prev is not None and prev.status == status \
                else now
            conditions.append(VerticalPodAutoscalerCondition(
                type=type_, status=status, last_transition_time=since, reason=reason,
                message=message))
        new = attrs.evolve(st, recommendation=rec, conditions=tuple(conditions))
        if new == st:
            return
        meaningful = _targets_of(st.recommendation) != _targets_of(rec) or \
            [(c.type, c.status) for c in st.conditions] != [(c.type, c.status) for c in conditions]
        self.store.update_status(attrs.evolve(fresh, status=new), quiet=not meaningful)

    # -- updater -------------------------------------------------------------------------------
    def _update(self, vpa: Any, pods: list[Any]) -> None:
        rec = vpa.status.recommendation
        if rec is None or not rec.container_recommendations:
            return
        now = self.clock.now
        required = MIN_REPLICAS
        up = vpa.spec.update_policy
        if up is not None and up.min_replicas is not None:
            required = up.min_replicas
        groups: dict[tuple[str, str], list[Any]] = {}
        for p in pods:
            ref = p.metadata.controller_ref()
            if ref is not None:
                groups.setdefault((ref.kind, ref.name), []).append(p)
        stats: dict[tuple[str, str], list[int]] = {}
        for creator, members in groups.items():
            if len(members) < required:
                continue
            configured = self._replicas(vpa.metadata.namespace, creator)
            if not configured:
                continue
            pending = sum(1 for p in members if (p.status.phase or "Pending") == "Pending")
            # [configured, tolerance, running, evicted]
            stats[creator] = [configured, int(configured * EVICTION_TOLERANCE),
                              len(members) - pending, 0]
        candidates = []
        for p in pods:
            ref = p.metadata.controller_ref()
            creator = (ref.kind, ref.name) if ref is not None else None
            if creator not in stats:
                continue
            prio = self._priority(vpa, p, now)
            if prio is not None:
                candidates.append((prio, p, creator))
            else:
                self._expect_eviction(vpa, p)
        candidates.sort(key=lambda c: (not c[0][0], -c[0][1], c[1].metadata.name))
        for _, pod, creator in candidates:
            s = stats[creator]
            configured, tolerance, running, evicted = s
            disruptable = running - evicted > configured - tolerance or (
                configured == running and tolerance == 0 and evicted == 0)
            if not disruptable:
                self._wake()   # tolerance holds the rest back until the next loop
                continue
            result = self.eviction.evict(pod.metadata.namespace, pod.metadata.name)
            if result.code != 201:
                continue
            s[3] += 1
            self.store.record_event(pod, "Normal", "EvictedByVPA", EVICTED_BY_VPA,
                                    COMPONENT_UPDATER)
            self.store.record_event(vpa, "Normal", "EvictedPod",
                                    f"VPA Updater evicted Pod {pod.metadata.name} to apply "
                                    "resource recommendation.", COMPONENT_UPDATER)
            self._wake()

    def _expect_eviction(self, vpa: Any, pod: Any) -> None:
        """A pod inside its bounds now may fall out as the history grows and the bounds narrow
        (the lower one rises towards the 50th percentile, the upper one falls towards the
        95th): keep a headless run going until the updater loop that will evict it."""
        states = self._states.get((vpa.metadata.namespace, vpa.metadata.name)) or {}
        when = None
        for c in pod.spec.containers:
            st = states.get(c.name)
            rec = vpa.recommendation_for(c.name)
            if st is None or rec is None or st.first_sample_start is None:
                continue
            policy = vpa.container_policy(c.name)
            limits = estimate(st, len(states), confidence=math.inf)
            for res in rec.target:
                q = c.resources.requests.get(res)
                if q is None:
                    continue
                have = q.milli_value() if res == "cpu" else q.value()
                conf = crossing_confidence(have, cap(limits["lowerBound"][res], res, policy),
                                           cap(limits["upperBound"][res], res, policy))
                if conf is not None:
                    t = st.first_sample_start + conf * 86400.0
                    when = t if when is None else min(when, t)
        if when is not None:
            tick = max(self.clock.now + RECOMMENDER_INTERVAL,
                       math.ceil(when / RECOMMENDER_INTERVAL) * RECOMMENDER_INTERVAL)
            self._busy = tick if self._busy is None else min(self._busy, tick)

    def _replicas(self, namespace: str, creator: tuple[str, str]) -> int:
        kind, name = creator
        obj = self.store.get(kind, name, namespace) if kind in TARGET_KINDS else None
        if obj is None:
            return 0
        if kind == "DaemonSet":
            return obj.status.number_ready
        return obj.spec.replicas or 0

    def _priority(self, vpa: Any, pod: Any, now: float) -> tuple[bool, float] | None:
        """GetUpdatePriority + AddPod: (scaleUp, resourceDiff) when the pod should be updated."""
        outside = scale_up = False
        total_req: dict[str, int] = {}
        total_rec: dict[str, int] = {}
        for c in pod.spec.containers + pod.spec.init_containers:
            rec = vpa.recommendation_for(c.name)
            if rec is None:
                continue
            for res, target in rec.target.items():
                want = _milli(target)
                total_rec[res] = total_rec.get(res, 0) + want
                q = c.resources.requests.get(res)
                if q is None:
                    scale_up = outside = True
                    continue
                have = q.milli_value()
                total_req[res] = total_req.get(res, 0) + have
                if want > have:
                    scale_up = True
                lo, hi = rec.lower_bound.get(res), rec.upper_bound.get(res)
                if (lo is not None and have < _milli(lo)) or (hi is not None and have > _milli(hi)):
                    outside = True
        diff = 0.0
        for res, want in total_rec.items():
            have = max(float(total_req.get(res, 0)), 1.0)
            diff += abs(have - want) / have
        if not outside:
            started = pod.status.start_time
            if not isinstance(started, (int, float)):
                return None
            if now < started + POD_LIFETIME_UPDATE_THRESHOLD or diff < MIN_CHANGE_PRIORITY:
                return None
        return scale_up, diff

    # -- admission controller ------------------------------------------------------------------
    def admit_pod(self, pod: Any) -> Any:
        """The mutating hook: recommended requests for a new pod of an admitting VPA."""
        if pod.metadata.controller_ref() is None or \
                not self.store.list("VerticalPodAutoscaler", pod.metadata.namespace):
            return pod
        vpa = self.vpa_for(pod)
        if vpa is None or vpa.update_mode not in ADMITTING_MODES or \
                vpa.status.recommendation is None:
            return pod
        key = (id(pod.spec), vpa.metadata.uid, vpa.metadata.resource_version)
        hit = self._specs.get(key)
        if hit is None or hit[0] is not pod.spec:
            spec, updates, observed = self._patched(vpa, pod.spec)
            if len(self._specs) > 1024:
                self._specs.clear()
            hit = self._specs[key] = (pod.spec, spec, updates, observed)
        _, spec, updates, observed = hit
        annotations = dict(pod.metadata.annotations)
        annotations[VPA_OBSERVED_CONTAINERS_ANNOTATION] = observed
        if updates:
            annotations[VPA_UPDATES_ANNOTATION] = (f"Pod resources updated by "
                                                   f"{vpa.metadata.name}: " + "; ".join(updates))
        meta = attrs.evolve(pod.metadata, annotations=FrozenDict(annotations))
        return attrs.evolve(pod, metadata=meta, spec=spec)

    def _patched(self, vpa: Any, spec: Any) -> tuple[Any, list[str], str]:
        containers = []
        updates = []
        for i, c in enumerate(spec.containers):
            rec = vpa.recommendation_for(c.name)
            policy = vpa.container_policy(c.name)
            if rec is None or (policy is not None and policy.mode == "Off"):
                containers.append(c)
                continue
            requests = dict(c.resources.requests)
            limits = dict(c.resources.limits)
            changed = []
            limits_only = policy is not None and policy.controlled_values == "RequestsOnly"
            for res, target in sorted(rec.target.items()):
                old_req = requests.get(res)
                requests[res] = target
                changed.append(f"{res} request")
                old_lim = limits.get(res)
                if old_lim is not None and not limits_only:
                    base = old_req if old_req is not None and not old_req.is_zero() else old_lim
                    limits[res] = _proportional(old_lim, base, target, res)
                    changed.append(f"{res} limit")
            if changed:
                updates.append(f"container {i}: " + ", ".join(changed))
            res_req = attrs.evolve(c.resources, requests=FrozenDict(requests),
                                   limits=FrozenDict(limits) if limits else c.resources.limits)
            containers.append(attrs.evolve(c, resources=res_req))
        observed = ", ".join(c.name for c in spec.containers)
        return attrs.evolve(spec, containers=tuple(containers)), updates, observed


def _loop_driven() -> None:
    """The VPA's queues are worked through by its loop, not on their own."""


def _request(container: Any, res: str) -> int:
    q = container.resources.requests.get(res)
    if q is None:
        return 0
    return q.milli_value() if res == "cpu" else q.value()


def _milli(q: Quantity) -> int:
    return q.milli_value()


def _proportional(limit: Quantity, request: Quantity, recommended: Quantity, res: str) -> Quantity:
    """getProportionalResourceLimit: keep the limit/request ratio of the original container."""
    if res == "cpu":
        lim, req, rec = limit.milli_value(), request.milli_value(), recommended.milli_value()
        return Quantity.from_scaled(-(-lim * rec // max(1, req)), -3)
    lim, req, rec = limit.value(), request.value(), recommended.value()
    return Quantity.from_scaled(-(-lim * rec // max(1, req)), 0)


def _targets_of(rec: Any) -> Any:
    if rec is None:
        return None
    return tuple((r.container_name, r.target) for r in rec.container_recommendations)
