"""The cluster autoscaler's scale-up: which node group grows for the pods that fit nowhere, and
the nodes it requests from the (simulated) cloud until they register.

Ported in our own words from ``cluster-autoscaler`` ``core/scaleup/orchestrator`` (options per
group, skip reasons), ``estimator/binpacking`` (first-fit of the pods, largest first, onto new
template nodes), ``clusterstate`` (upcoming nodes, the back-off after a failed scale-up) and
``processors/status/eventing_scale_up_processor.go`` (``TriggeredScaleUp`` /
``NotTriggerScaleUp``, an identical event not repeated within 5 minutes). The group is picked
by the :class:`~.expander.Expander`; template nodes come from :class:`~.templates.TemplateNodes`.
"""

from __future__ import annotations

import math
from typing import Any

import attrs

from ...api.evolve import evolve
from ...sim.clock import PRIORITY_CONTROLLER
from .expander import Expander, Option
from .scale_down import COMPONENT
from .templates import TemplateNodes

# processors/status: the skip reasons of scale-up (core/scaleup/orchestrator/skippedreasons.go).
MAX_LIMIT_REACHED = "max node group size reached"
BACKOFF = "in backoff after failed scale-up"
NOT_READY = "not ready for scale-up"
# config: --initial-node-group-backoff-duration 5m; the event recorder's 5-minute dedup window.
INITIAL_NODE_GROUP_BACKOFF = 300.0
EVENT_DEDUP_WINDOW = 300.0


@attrs.define
class Upcoming:
    """A node requested from the (simulated) cloud that has not registered yet."""

    name: str
    group: str
    requested_at: float
    ready_at: float
    template: Any
    timer: Any = None


def equivalence(pod: Any) -> tuple:
    """equivalence.BuildPodGroups: pods of one controller with one spec behave alike."""
    ref = pod.metadata.controller_ref()
    return (pod.metadata.namespace, ref.uid if ref else pod.metadata.uid, id(pod.spec),
            pod.metadata.labels)


class ScaleUp:
    """The scale-up orchestrator and the upcoming nodes (``upcoming`` by group, ``backoff``
    by group, ``last_scale_up``). It checks pods against template nodes with ``scheduler``'s
    filters and registers a provisioned node through ``kubelets``."""

    def __init__(self, store: Any, clock: Any, rand: Any, config: Any, scheduler: Any,
                 kubelets: Any, templates: TemplateNodes, expander: Expander) -> None:
        self.store = store
        self.clock = clock
        self.rand = rand
        self.config = config
        self.scheduler = scheduler
        self.kubelets = kubelets
        self.templates = templates
        self.expander = expander
        self.upcoming: dict[str, list[Upcoming]] = {g.name: [] for g in config.node_groups}
        self.backoff: dict[str, float] = {}
        self.last_scale_up = -math.inf
        self._emitted: dict[tuple, float] = {}

    def target_size(self, group: Any, members: dict[str, list[Any]]) -> int:
        return len(members[group.name]) + len(self.upcoming[group.name])

    def in_progress(self) -> bool:
        return any(self.upcoming.values())

    def ready_times(self) -> list[float]:
        """When each upcoming node registers."""
        return [u.ready_at for ups in self.upcoming.values() for u in ups]

    def backoff_until(self, group: str) -> float | None:
        t = self.backoff.get(group, -math.inf)
        return t if t > self.clock.now else None

    # -- pods a node on its way will take --------------------------------------------------
    def filter_upcoming(self, pods: list[Any], deleting: Any,
                        startup_time: float, group_label: str) -> list[Any]:
        """Pods a node still on its way will take — requested and not registered, or registered
        and not Ready yet (clusterstate's NotStarted) — trigger no new request."""
        now = self.clock.now
        coming = [u.template for g in self.config.node_groups for u in self.upcoming[g.name]]
        groups = {g.name for g in self.config.node_groups}
        coming += [n for n in sorted(self.store.nodes(), key=lambda n: n.name)
                   if n.metadata.labels.get(group_label) in groups and n.ready != "True"
                   and n.name not in deleting
                   and now - (n.metadata.creation_timestamp or 0.0) < startup_time]
        if not pods or not coming:
            return pods
        loads: list[list[Any]] = [self.templates.daemon_pods(n) for n in coming]
        out = []
        for pod in pods:
            for node, load in zip(coming, loads):
                if self.scheduler.would_fit(pod, node, load):
                    load.append(pod)
                    break
            else:
                out.append(pod)
        return out

    # -- scale-up ----------------------------------------------------------------------------
    def run(self, pods: list[Any], members: dict[str, list[Any]]) -> bool:
        """Grow one node group for ``pods`` (True), or say why none would help (False)."""
        sched = self.scheduler
        templates = self.templates
        now = self.clock.now
        rejected: dict[str, dict[str, tuple[str, ...]]] = {p.key: {} for p in pods}
        options: list[Option] = []
        for g in self.config.node_groups:
            size = self.target_size(g, members)
            skip = None
            if self.backoff.get(g.name, -math.inf) > now:
                skip = BACKOFF
            elif size >= g.max_size:
                skip = MAX_LIMIT_REACHED
            template = templates.template(g, members[g.name]) if skip is None else None
            if skip is None and template is None:
                skip = NOT_READY
            if skip is not None:
                for p in pods:
                    rejected[p.key][g.name] = (skip,)
                continue
            base = templates.daemon_pods(template)
            fitting = []
            verdicts: dict[tuple, tuple[str, ...]] = {}
            for p in pods:
                key = equivalence(p)
                if key not in verdicts:
                    verdicts[key] = sched.fit_reasons(p, template, base)
                if verdicts[key]:
                    rejected[p.key][g.name] = verdicts[key]
                else:
                    fitting.append(p)
            if not fitting:
                continue
            count, packed = self._estimate(g, members[g.name], fitting, g.max_size - size)
            if count and packed:
                options.append(Option(g, count, packed, template))
        best = self.expander.best_option(options)
        if best is None:
            for p in pods:
                self._event(p, "Normal", "NotTriggerScaleUp",
                            "pod didn't trigger scale-up: " + _reasons_message(rejected[p.key]))
            return False
        g = best.group
        current = self.target_size(g, members)
        new = min(best.node_count, g.max_size - current)
        for _ in range(new):
            self._request_node(g, members[g.name])
        info = f"[{{{g.name} {current}->{current + new} (max: {g.max_size})}}]"
        for p in best.pods:
            self._event(p, "Normal", "TriggeredScaleUp", f"pod triggered scale-up: {info}")
        self.last_scale_up = now
        return True

    def _estimate(self, group: Any, members: list[Any], pods: list[Any],
                  limit: int) -> tuple[int, list[Any]]:
        """BinpackingNodeEstimator: pods (largest first) onto new template nodes, first fit."""
        sched = self.scheduler
        probe = self.templates.template(group, members, 0)
        assert probe is not None    # the group made an option: it has a template
        alloc = probe.allocatable_amounts

        def score(p: Any) -> float:
            r = p.spec.requests
            s = 0.0
            for name in ("cpu", "memory"):
                if alloc.get(name):
                    s += r.get(name, 0) / alloc[name]
            return s

        ordered = sorted(pods, key=lambda p: -score(p))
        nodes: list[tuple[Any, list[Any]]] = []
        placed = []
        for pod in ordered:
            for node, load in reversed(nodes):
                if sched.would_fit(pod, node, load):
                    load.append(pod)
                    placed.append(pod)
                    break
            else:
                if len(nodes) >= limit:
                    continue
                node = self.templates.template(group, members, len(nodes))
                load = self.templates.daemon_pods(node)
                if sched.would_fit(pod, node, load):
                    load.append(pod)
                    nodes.append((node, load))
                    placed.append(pod)
        placed.sort(key=lambda p: (p.metadata.namespace, p.metadata.name))
        return len(nodes), placed

    # -- provisioning ------------------------------------------------------------------------
    def _request_node(self, group: Any, members: list[Any]) -> None:
        now = self.clock.now
        taken = {n.name for n in self.store.nodes()} | {
            u.name for ups in self.upcoming.values() for u in ups}
        name = f"{group.name}-{self.rand.name_suffix(5)}"
        while name in taken:
            name = f"{group.name}-{self.rand.name_suffix(5)}"
        template = self.templates.template(group, members)
        assert template is not None    # the group made an option: it has a template
        shaped = evolve(template, metadata=evolve(
            template.metadata, name=name,
            labels=template.metadata.labels.set("kubernetes.io/hostname", name)))
        up = Upcoming(name=name, group=group.name, requested_at=now,
                      ready_at=now + group.provision_seconds, template=shaped)
        self.upcoming[group.name].append(up)
        if group.provision_seconds > self.config.max_node_provision_time:
            up.timer = self.clock.call_at(now + self.config.max_node_provision_time,
                                          lambda: self._provision_timeout(up),
                                          PRIORITY_CONTROLLER, f"cluster-autoscaler/{name}")
        else:
            up.timer = self.clock.call_at(up.ready_at, lambda: self._provisioned(up),
                                          PRIORITY_CONTROLLER, f"cluster-autoscaler/{name}")

    def _provisioned(self, up: Upcoming) -> None:
        ups = self.upcoming.get(up.group, [])
        if up in ups:
            ups.remove(up)
        if self.store.get("Node", up.name) is not None:
            return
        self.kubelets.add_node(up.name, template=up.template)

    def _provision_timeout(self, up: Upcoming) -> None:
        """The node did not register within maxNodeProvisionTime: give up and back off."""
        ups = self.upcoming.get(up.group, [])
        if up in ups:
            ups.remove(up)
        self.backoff[up.group] = self.clock.now + INITIAL_NODE_GROUP_BACKOFF

    # -- events ------------------------------------------------------------------------------
    def _event(self, obj: Any, type_: str, reason: str, message: str) -> None:
        now = self.clock.now
        key = (obj.kind, obj.metadata.namespace, obj.metadata.name, obj.metadata.uid, reason,
               message)
        last = self._emitted.get(key)
        if last is not None and now - last < EVENT_DEDUP_WINDOW:
            return
        if len(self._emitted) > 10_000:
            self._emitted = {k: t for k, t in self._emitted.items()
                             if now - t < EVENT_DEDUP_WINDOW}
        self._emitted[key] = now
        self.store.record_event(obj, type_, reason, message, COMPONENT)


def _reasons_message(per_group: dict[str, tuple[str, ...]]) -> str:
    """ReasonsMessage: how many node groups each reason held for, sorted."""
    counts: dict[str, int] = {}
    for reasons in per_group.values():
        for r in reasons:
            counts[r] = counts.get(r, 0) + 1
    return ", ".join(sorted(f"{n} {r}" for r, n in counts.items()))
