"""The VPA recommender's loop part (``pkg/recommender/logic`` and ``model/vpa.go``): feed each
VPA's pods' usage into its containers' histograms (``model.py``) and write
``status.recommendation`` and the ``RecommendationProvided`` / ``NoPodsMatched`` conditions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ...api.evolve import evolve
from ...api.vpa import (
    NO_PODS_MATCHED,
    RECOMMENDATION_PROVIDED,
    RecommendedContainerResources,
    RecommendedPodResources,
    VerticalPodAutoscalerCondition,
)
from .model import AggregateContainerState, as_resource_list, cap, estimate

if TYPE_CHECKING:
    from ...apiserver.store import Store

COMPONENT_RECOMMENDER = "vpa-recommender"
# recommender --recommender-interval (and updater --updater-interval): 1 minute each.
RECOMMENDER_INTERVAL = 60.0


class Recommender:
    """Per VPA, per container name: the aggregate usage state (``states_of``). It samples
    ``metrics`` and tells ``hold_until`` when the first sample of a pod is still coming."""

    def __init__(self, store: Store, clock: Any, metrics: Any,
                 hold_until: Callable[[float], None]) -> None:
        self.store = store
        self.clock = clock
        self.metrics = metrics
        self.hold_until = hold_until
        self._states: dict[tuple[str, str], dict[str, AggregateContainerState]] = {}

    def states_of(self, key: tuple[str, str]) -> dict[str, AggregateContainerState]:
        return self._states.get(key) or {}

    def forget(self, key: tuple[str, str]) -> None:
        self._states.pop(key, None)

    def recommend(self, vpa: Any, pods: list[Any]) -> None:
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
            # pods exist but none is Running yet: the first sample is coming
            self.hold_until(self.clock.now + RECOMMENDER_INTERVAL)
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
        new = evolve(st, recommendation=rec, conditions=tuple(conditions))
        if new == st:
            return
        meaningful = _targets_of(st.recommendation) != _targets_of(rec) or \
            [(c.type, c.status) for c in st.conditions] != [(c.type, c.status) for c in conditions]
        self.store.update_status(evolve(fresh, status=new), quiet=not meaningful)


def _request(container: Any, res: str) -> int:
    q = container.resources.requests.get(res)
    if q is None:
        return 0
    return q.milli_value() if res == "cpu" else q.value()


def _targets_of(rec: Any) -> Any:
    if rec is None:
        return None
    return tuple((r.container_name, r.target) for r in rec.container_recommendations)
