"""The VPA updater (``pkg/updater/logic/updater.go``, ``priority/``): in ``Recreate`` / ``Auto``
(and ``InPlaceOrRecreate``, treated as Recreate) evict, through the Eviction API, the pods whose
requests are out of the recommendation's bounds — or, after 12 h, 10 % off the target —
highest priority first, within the per-controller ``minReplicas`` and eviction tolerance.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from ...api.quantity import Quantity
from .model import cap, crossing_confidence, estimate
from .recommender import RECOMMENDER_INTERVAL, Recommender
from .targets import TARGET_KINDS

if TYPE_CHECKING:
    from ...api.core import Pod
    from ...apiserver.store import Store

COMPONENT_UPDATER = "vpa-updater"
# updater flags: --min-replicas 2, --eviction-tolerance 0.5; priority: PodLifetimeUpdateThreshold
# 12 h, MinChangePriority 0.1 (updater/priority/update_priority_calculator.go).
MIN_REPLICAS = 2
EVICTION_TOLERANCE = 0.5
POD_LIFETIME_UPDATE_THRESHOLD = 12 * 3600.0
MIN_CHANGE_PRIORITY = 0.1
EVICTING_MODES = ("Recreate", "Auto", "InPlaceOrRecreate")
# updater/logic/updater.go: the events of an eviction.
EVICTED_BY_VPA = "Pod was evicted by VPA Updater to apply resource recommendation."


class Updater:
    """Evicts through ``eviction``; reads the ``recommender``'s states to foresee when a pod
    will fall out of its bounds, and tells ``hold_until`` when it expects to act."""

    def __init__(self, store: Store, clock: Any, eviction: Any, recommender: Recommender,
                 hold_until: Callable[[float], None]) -> None:
        self.store = store
        self.clock = clock
        self.eviction = eviction
        self.recommender = recommender
        self.hold_until = hold_until

    def update(self, vpa: Any, pods: list[Any]) -> None:
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
                # tolerance holds the rest back until the next loop
                self.hold_until(self.clock.now + RECOMMENDER_INTERVAL)
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
            self.hold_until(self.clock.now + RECOMMENDER_INTERVAL)

    def _expect_eviction(self, vpa: Any, pod: Pod) -> None:
        """A pod inside its bounds now may fall out as the history grows and the bounds narrow
        (the lower one rises towards the 50th percentile, the upper one falls towards the
        95th): keep a headless run going until the updater loop that will evict it."""
        states = self.recommender.states_of((vpa.metadata.namespace, vpa.metadata.name))
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
            self.hold_until(tick)

    def _replicas(self, namespace: str, creator: tuple[str, str]) -> int:
        kind, name = creator
        obj = self.store.get(kind, name, namespace) if kind in TARGET_KINDS else None
        if obj is None:
            return 0
        if kind == "DaemonSet":
            return obj.status.number_ready
        return obj.spec.replicas or 0

    def _priority(self, vpa: Any, pod: Pod, now: float) -> tuple[bool, float] | None:
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


def _milli(q: Quantity) -> int:
    return q.milli_value()
