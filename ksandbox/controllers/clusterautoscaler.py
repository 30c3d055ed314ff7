"""The cluster autoscaler: nodes added for pods that fit nowhere, and removed when unneeded.

Ported in our own words from ``kubernetes/autoscaler`` ``cluster-autoscaler`` (``core/
static_autoscaler.go`` RunOnce, ``core/scaleup/orchestrator``, ``estimator/binpacking``,
``processors/status/eventing_scale_up_processor.go``), as its ``FAQ.md`` describes it. Node
groups and options come from a ``ClusterAutoscalerConfiguration`` document
(``clusterautoscaler_config.py``); a Node is in a group when it has the label
``ksandbox.io/node-group: <group>``. Without that document the component does nothing.

Every ``scanInterval`` (10 s), from t=0:

1. **Unschedulable pods**: pending pods the scheduler marked ``PodScheduled=False`` /
   ``Unschedulable``, not waiting for a preemption (no nominated node) and not below the
   expendable priority cutoff (-10). Pods that now fit an existing node (the scheduler will
   place them) or a node still being provisioned are set aside without an event.
2. **Scale-up**: for each group not at ``maxSize`` (else "max node group size reached") and not
   backing off, the pods that would fit on a *template* node of the group — its labels,
   taints and allocatable, plus the DaemonSet pods that would run there — checked with the
   scheduler's own filters (``scheduler.fit_reasons``); a first-fit binpacking of those pods
   onto as many new template nodes as the group may still add gives an option. The expander
   (``clusterautoscaler_expander.py``; ``random`` by default) picks one; the group grows by its
   node count (capped at maxSize). Each pod it helps gets ``TriggeredScaleUp`` ("pod triggered
   scale-up: [{workers 1->2 (max: 5)}]"). When nothing scales up, each remaining pod gets
   ``NotTriggerScaleUp`` ("pod didn't trigger scale-up: 1 max node group size reached, 1
   node(s) didn't match Pod's node affinity/selector" — per reason, the number of groups it
   held for, sorted). Like upstream's event recorder, an identical event on the same pod is
   not repeated within 5 minutes.
3. **Provisioning**: a requested node appears ``provisionSeconds`` later (default 60 s),
   created through the kubelet emulators (``kubelets.add_node``) with the group's shape; it
   registers and turns Ready at once. Until then it counts as *upcoming* (in the group's target
   size, and as room for pending pods). A group whose ``provisionSeconds`` exceeds
   ``maxNodeProvisionTime`` (15 min) never gets its node: at that deadline the request is
   dropped and the group backs off for 5 minutes ("in backoff after failed scale-up").
4. **Scale-down**, in loops without a scale-up: ``clusterautoscaler_scaledown.py`` (the
   ``ScaleDownMixin`` this class uses).

``status()`` is the state a person wants (upstream's ``cluster-autoscaler-status`` ConfigMap,
which the sandbox does not model as an object): per group min/max/registered/ready/upcoming,
the unneeded nodes and since when, nodes being deleted, why others are kept. ``busy_until()``
keeps a headless run going while a node is provisioning or an unneeded node's time is running.

Not here: cloud quotas and resource limits (``--cores-total``), ``--balance-similar-node-
groups``, scale-up from zero without a template, ``--max-nodes-total``, ProvisioningRequests,
the ``price`` expander.
"""

from __future__ import annotations

import math
from typing import Any

import attrs

from ..api.codec import FrozenDict
from ..api.core import Node, NodeSpec, NodeStatus, Pod
from ..api.meta import ObjectMeta, owner_ref_for
from ..sim.clock import PRIORITY_CONTROLLER
from .clusterautoscaler_config import KIND, NODE_GROUP_LABEL, read_config
from .clusterautoscaler_expander import Option, best_option
from .clusterautoscaler_scaledown import (
    COMPONENT,
    DELETION_CANDIDATE_TAINT,
    TO_BE_DELETED_TAINT,
    NodeDeletion,
    ScaleDownMixin,
)
from .daemonset_util import daemon_tolerations, should_run

# processors/status: the skip reasons of scale-up (core/scaleup/orchestrator/skippedreasons.go).
MAX_LIMIT_REACHED = "max node group size reached"
BACKOFF = "in backoff after failed scale-up"
NOT_READY = "not ready for scale-up"
# config: --initial-node-group-backoff-duration 5m; the event recorder's 5-minute dedup window.
INITIAL_NODE_GROUP_BACKOFF = 300.0
EVENT_DEDUP_WINDOW = 300.0
# clusterstate: MaxNodeStartupTime — a registered node not Ready yet is still "starting".
MAX_NODE_STARTUP_TIME = 900.0
# Taints a template never copies: the condition taints the control plane manages and the
# autoscaler's own (utils/taints SanitizeTaints).
_SANITIZED_PREFIX = "node.kubernetes.io/"
_CA_TAINTS = (TO_BE_DELETED_TAINT, DELETION_CANDIDATE_TAINT)
_UNIQUE_LABELS = ("kubernetes.io/hostname",)


@attrs.define
class Upcoming:
    """A node requested from the (simulated) cloud that has not registered yet."""

    name: str
    group: str
    requested_at: float
    ready_at: float
    template: Any
    timer: Any = None


class ClusterAutoscaler(ScaleDownMixin):
    name = "clusterautoscaler"

    def __init__(self, scheduler: Any, kubelets: Any, eviction: Any) -> None:
        self.config: Any = None
        self.scheduler = scheduler   # its fit checks simulate scheduling
        self.kubelets = kubelets     # a scale-up registers a node through them
        self.eviction = eviction     # a scale-down drains through the Eviction API

    # -- wiring --------------------------------------------------------------------------------
    def start(self, cp: Any) -> None:
        self.cp = cp
        self.store = cp.store
        self.clock = cp.clock
        self.config = read_config(cp.configs_of(KIND))
        if self.config is None:
            return
        self.rand = cp.rand.child("clusterautoscaler")
        self.upcoming: dict[str, list[Upcoming]] = {g.name: [] for g in self.config.node_groups}
        self.unneeded: dict[str, float] = {}
        self.unremovable: dict[str, float] = {}
        self.reasons: dict[str, str] = {}
        self.backoff: dict[str, float] = {}
        self.deleting: dict[str, NodeDeletion] = {}
        self.last_scale_up = -math.inf
        self.last_scale_down = -math.inf
        self.last_scale_down_fail = -math.inf
        self.last_scan: float | None = None
        self._emitted: dict[tuple, float] = {}
        self._busy: float | None = None
        self._removable_at: dict[str, float] = {}
        self.clock.call_at(self.clock.now, self._tick, PRIORITY_CONTROLLER, "cluster-autoscaler",
                           background=True)

    def busy_until(self) -> float | None:
        return self._busy if self.config is not None else None

    def _tick(self) -> None:
        self.run_once()
        self.clock.call_later(self.config.scan_interval, self._tick, PRIORITY_CONTROLLER,
                              "cluster-autoscaler", background=True)

    # -- one loop (RunOnce) --------------------------------------------------------------------
    def run_once(self) -> None:
        now = self.clock.now
        self.last_scan = now
        sched = self.scheduler
        members = self._group_nodes()
        pending = self._unschedulable_pods()
        remaining = self._filter_schedulable(sched, pending)
        remaining = self._filter_upcoming(sched, remaining)
        scaled = bool(remaining) and self._scale_up(sched, remaining, members)
        if scaled:
            self.last_scale_up = now
        elif self.config.scale_down_enabled:
            self._scale_down(sched, members)
        self._update_busy(bool(remaining))

    def _group_nodes(self) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {g.name: [] for g in self.config.node_groups}
        for n in self.store.nodes():
            g = n.metadata.labels.get(NODE_GROUP_LABEL)
            if g in out:
                out[g].append(n)
        for nodes in out.values():
            nodes.sort(key=lambda n: n.name)
        return out

    def _unschedulable_pods(self) -> list[Any]:
        cutoff = self.config.expendable_pods_priority_cutoff
        out = []
        for p in self.store.list("Pod"):
            if p.spec.node_name or p.metadata.deletion_timestamp is not None or p.is_terminated:
                continue
            c = p.status.condition("PodScheduled")
            if c is None or c.status != "False" or c.reason != "Unschedulable":
                continue
            if (p.spec.priority or 0) < cutoff or p.status.nominated_node_name:
                continue
            out.append(p)
        out.sort(key=lambda p: (p.metadata.namespace, p.metadata.name))
        return out

    @staticmethod
    def _equivalence(pod: Any) -> tuple:
        """equivalence.BuildPodGroups: pods of one controller with one spec behave alike."""
        ref = pod.metadata.controller_ref()
        return (pod.metadata.namespace, ref.uid if ref else pod.metadata.uid, id(pod.spec),
                pod.metadata.labels)

    def _filter_schedulable(self, sched: Any, pods: list[Any]) -> list[Any]:
        """FilterOutSchedulable: pods that fit an existing node are the scheduler's business."""
        if not pods:
            return []
        names = sorted(n.name for n in self.store.nodes()
                       if n.ready == "True" and n.name not in self.deleting)
        placed: dict[str, list[Any]] = {}
        hopeless: set[tuple] = set()
        out = []
        for pod in pods:
            key = self._equivalence(pod)
            hit = None if key in hopeless else sched.first_fit(pod, names, placed)
            if hit is None:
                hopeless.add(key)
                out.append(pod)
            else:
                placed.setdefault(hit, []).append(pod)
        return out

    def _filter_upcoming(self, sched: Any, pods: list[Any]) -> list[Any]:
        """Pods a node still on its way will take — requested and not registered, or registered
        and not Ready yet (clusterstate's NotStarted) — trigger no new request."""
        now = self.clock.now
        coming = [u.template for g in self.config.node_groups for u in self.upcoming[g.name]]
        groups = {g.name for g in self.config.node_groups}
        coming += [n for n in sorted(self.store.nodes(), key=lambda n: n.name)
                   if n.metadata.labels.get(NODE_GROUP_LABEL) in groups and n.ready != "True"
                   and n.name not in self.deleting
                   and now - (n.metadata.creation_timestamp or 0.0) < MAX_NODE_STARTUP_TIME]
        if not pods or not coming:
            return pods
        loads: list[list[Any]] = [self._daemon_pods(n) for n in coming]
        out = []
        for pod in pods:
            for node, load in zip(coming, loads):
                if sched.would_fit(pod, node, load):
                    load.append(pod)
                    break
            else:
                out.append(pod)
        return out

    # -- templates -----------------------------------------------------------------------------
    def template(self, group: Any, members: list[Any], index: int = 0) -> Any | None:
        """The Node a new member of ``group`` would be (TemplateNodeInfo, sanitized)."""
        name = f"template-node-for-{group.name}-{index}"
        src = None
        if not group.has_template:
            if group.like is not None:
                src = self.store.get("Node", group.like)
            if src is None and members:
                src = members[0]
            if src is None:
                return None
        if src is not None:
            labels = {k: v for k, v in src.metadata.labels.items() if k not in _UNIQUE_LABELS}
            labels.update(group.labels)
            taints = tuple(attrs.evolve(t, time_added=None) for t in src.spec.taints
                           if not t.key.startswith(_SANITIZED_PREFIX) and t.key not in _CA_TAINTS)
            status = NodeStatus(capacity=src.status.capacity,
                                allocatable=src.status.allocatable or src.status.capacity,
                                node_info=src.status.node_info)
        else:
            labels = dict(group.labels)
            taints = group.taints
            status = NodeStatus(capacity=group.capacity, allocatable=group.capacity)
            status = self.kubelets.registered_status(labels, status)
        # What the API server's node defaulting adds (the kubelet's well-known labels).
        labels.setdefault("kubernetes.io/os", "linux")
        labels.setdefault("kubernetes.io/arch", "amd64")
        labels["kubernetes.io/hostname"] = name
        return Node(metadata=ObjectMeta(name=name, labels=FrozenDict(labels)),
                    spec=NodeSpec(taints=taints), status=status)

    def _daemon_pods(self, node: Any) -> list[Any]:
        """The DaemonSet pods that would run on ``node`` (they come with every new node)."""
        out = []
        for ds in sorted(self.store.list("DaemonSet"),
                         key=lambda d: (d.metadata.namespace, d.metadata.name)):
            spec = ds.spec.template.spec
            dspec = attrs.evolve(spec, tolerations=daemon_tolerations(spec))
            if should_run(node, spec, dspec)[0]:
                out.append(Pod(metadata=ObjectMeta(
                    name=f"{ds.metadata.name}-{node.name}", namespace=ds.metadata.namespace,
                    labels=ds.spec.template.metadata.labels,
                    owner_references=(owner_ref_for(ds, "apps/v1"),)), spec=dspec))
        return out

    # -- scale-up ------------------------------------------------------------------------------
    def _target_size(self, group: Any, members: dict[str, list[Any]]) -> int:
        return len(members[group.name]) + len(self.upcoming[group.name])

    def _scale_up(self, sched: Any, pods: list[Any], members: dict[str, list[Any]]) -> bool:
        now = self.clock.now
        rejected: dict[str, dict[str, tuple[str, ...]]] = {p.key: {} for p in pods}
        options: list[Option] = []
        for g in self.config.node_groups:
            size = self._target_size(g, members)
            skip = None
            if self.backoff.get(g.name, -math.inf) > now:
                skip = BACKOFF
            elif size >= g.max_size:
                skip = MAX_LIMIT_REACHED
            template = self.template(g, members[g.name]) if skip is None else None
            if skip is None and template is None:
                skip = NOT_READY
            if skip is not None:
                for p in pods:
                    rejected[p.key][g.name] = (skip,)
                continue
            base = self._daemon_pods(template)
            fitting = []
            verdicts: dict[tuple, tuple[str, ...]] = {}
            for p in pods:
                key = self._equivalence(p)
                if key not in verdicts:
                    verdicts[key] = sched.fit_reasons(p, template, base)
                if verdicts[key]:
                    rejected[p.key][g.name] = verdicts[key]
                else:
                    fitting.append(p)
            if not fitting:
                continue
            count, packed = self._estimate(sched, g, members[g.name], fitting, g.max_size - size)
            if count and packed:
                options.append(Option(g, count, packed, template))
        best = best_option(options, self.config, self.rand)
        if best is None:
            for p in pods:
                self._event(p, "Normal", "NotTriggerScaleUp",
                            "pod didn't trigger scale-up: " + _reasons_message(rejected[p.key]))
            return False
        g = best.group
        current = self._target_size(g, members)
        new = min(best.node_count, g.max_size - current)
        for _ in range(new):
            self._request_node(g, members[g.name])
        info = f"[{{{g.name} {current}->{current + new} (max: {g.max_size})}}]"
        for p in best.pods:
            self._event(p, "Normal", "TriggeredScaleUp", f"pod triggered scale-up: {info}")
        return True

    def _estimate(self, sched: Any, group: Any, members: list[Any], pods: list[Any],
                  limit: int) -> tuple[int, list[Any]]:
        """BinpackingNodeEstimator: pods (largest first) onto new template nodes, first fit."""
        probe = self.template(group, members, 0)
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
                node = self.template(group, members, len(nodes))
                load = self._daemon_pods(node)
                if sched.would_fit(pod, node, load):
                    load.append(pod)
                    nodes.append((node, load))
                    placed.append(pod)
        placed.sort(key=lambda p: (p.metadata.namespace, p.metadata.name))
        return len(nodes), placed

    def _request_node(self, group: Any, members: list[Any]) -> None:
        now = self.clock.now
        taken = {n.name for n in self.store.nodes()} | {
            u.name for ups in self.upcoming.values() for u in ups}
        name = f"{group.name}-{self.rand.name_suffix(5)}"
        while name in taken:
            name = f"{group.name}-{self.rand.name_suffix(5)}"
        template = self.template(group, members)
        shaped = attrs.evolve(template, metadata=attrs.evolve(
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

    # -- events, busy, status ------------------------------------------------------------------
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

    def _next_scan(self, t: float) -> float:
        step = self.config.scan_interval
        return math.ceil(t / step - 1e-9) * step

    def _update_busy(self, pending: bool) -> None:
        now = self.clock.now
        times = [u.ready_at for ups in self.upcoming.values() for u in ups]
        times += [self._next_scan(t) for n, t in self._removable_at.items()
                  if n not in self.deleting and t > now]
        if pending:
            times += [t for t in self.backoff.values() if t > now]
        self._busy = min(times) if times else None

    def status(self) -> dict | None:
        """What the autoscaler knows now, as plain data (None without a configuration)."""
        if self.config is None:
            return None
        now = self.clock.now
        members = self._group_nodes()
        groups = []
        for g in self.config.node_groups:
            nodes = members[g.name]
            ups = self.upcoming[g.name]
            groups.append({
                "name": g.name, "minSize": g.min_size, "maxSize": g.max_size,
                "registered": len(nodes), "ready": sum(1 for n in nodes if n.ready == "True"),
                "targetSize": len(nodes) + len(ups),
                "upcoming": [{"node": u.name, "requestedAt": u.requested_at,
                              "readyAt": u.ready_at} for u in ups],
                "nodes": [n.name for n in nodes],
                "backoffUntil": self.backoff[g.name]
                if self.backoff.get(g.name, -math.inf) > now else None,
            })
        cool = self._cooldown_until()
        return {
            "time": now,
            "lastScanTime": self.last_scan,
            "expander": ",".join(self.config.expander),
            "scaleUp": {"status": "InProgress" if any(self.upcoming.values()) else "NoActivity",
                        "lastScaleUpTime": _finite(self.last_scale_up)},
            "scaleDown": {"status": "CandidatesPresent" if self.unneeded else "NoCandidates",
                          "lastScaleDownTime": _finite(self.last_scale_down),
                          "cooldownUntil": cool if cool > now else None},
            "nodeGroups": groups,
            "unneeded": [{"node": n, "since": t, "removableAt": self._removable_at.get(n)}
                         for n, t in sorted(self.unneeded.items())],
            "deleting": sorted(self.deleting),
            "unremovable": dict(sorted(self.reasons.items())),
        }


def _finite(t: float) -> float | None:
    return t if math.isfinite(t) else None


def _reasons_message(per_group: dict[str, tuple[str, ...]]) -> str:
    """ReasonsMessage: how many node groups each reason held for, sorted."""
    counts: dict[str, int] = {}
    for reasons in per_group.values():
        for r in reasons:
            counts[r] = counts.get(r, 0) + 1
    return ", ".join(sorted(f"{n} {r}" for r, n in counts.items()))
