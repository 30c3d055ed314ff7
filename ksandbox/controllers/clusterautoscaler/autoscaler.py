"""The cluster autoscaler: nodes added for pods that fit nowhere, and removed when unneeded.

Ported in our own words from ``kubernetes/autoscaler`` ``cluster-autoscaler`` (``core/
static_autoscaler.go`` RunOnce, ``core/scaleup/orchestrator``, ``estimator/binpacking``,
``processors/status/eventing_scale_up_processor.go``), as its ``FAQ.md`` describes it. Node
groups and options come from a ``ClusterAutoscalerConfiguration`` document
(``config.py``); a Node is in a group when it has the label
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
   (``expander.py``; ``random`` by default) picks one; the group grows by its
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
4. **Scale-down**, in loops without a scale-up: ``scale_down.py`` (its drain rules in
   ``drainability.py``).

The :class:`ClusterAutoscaler` is composed as upstream's ``StaticAutoscaler``: it owns its
parts and hands each what it uses — ``templates`` (:class:`~.templates.TemplateNodes`),
``expander`` (:class:`~.expander.Expander`), ``scale_up`` (:class:`~.scale_up.ScaleUp`, with the
upcoming nodes and back-offs) and ``scale_down`` (:class:`~.scale_down.ScaleDown`, planner and
actuator); this module holds the loop (RunOnce) and the pod-list processing before it.

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

from ...sim.clock import PRIORITY_CONTROLLER
from ..base import run_pass
from .config import KIND, NODE_GROUP_LABEL, read_config

# The parts (expander, scale-up, scale-down, template nodes) are imported by start() when a
# ClusterAutoscalerConfiguration was loaded: without one the component does nothing, and
# most sandboxes have none (issue 11 item 5).

# clusterstate: MaxNodeStartupTime — a registered node not Ready yet is still "starting".
MAX_NODE_STARTUP_TIME = 900.0


class ClusterAutoscaler:
    name = "clusterautoscaler"

    def __init__(self, scheduler: Any, kubelets: Any, eviction: Any) -> None:
        self.config: Any = None
        self.scheduler = scheduler   # its fit checks simulate scheduling
        self.kubelets = kubelets     # a scale-up registers a node through them
        self.eviction = eviction     # a scale-down drains through the Eviction API

    # -- wiring --------------------------------------------------------------------------------
    def start(self, cp: Any) -> None:
        self.store = cp.store
        self.clock = cp.clock
        self.config = read_config(cp.configs_of(KIND))
        if self.config is None:
            return
        from .expander import Expander
        from .scale_down import ScaleDown
        from .scale_up import ScaleUp
        from .templates import TemplateNodes

        rand = cp.rand.child("clusterautoscaler")
        self.templates = TemplateNodes(self.store, self.kubelets)
        self.expander = Expander(self.config, rand)
        self.scale_up = ScaleUp(self.store, self.clock, rand, self.config, self.scheduler,
                                self.kubelets, self.templates, self.expander)
        self.scale_down = ScaleDown(self.store, self.clock, self.config, self.scheduler,
                                    self.eviction)
        self.last_scan: float | None = None
        self._busy: float | None = None
        self.clock.call_at(self.clock.now, self._tick, PRIORITY_CONTROLLER, "cluster-autoscaler",
                           background=True)

    def busy_until(self) -> float | None:
        return self._busy if self.config is not None else None

    def _tick(self) -> None:
        run_pass(self.clock, "cluster-autoscaler", self.run_once)
        self.clock.call_later(self.config.scan_interval, self._tick, PRIORITY_CONTROLLER,
                              "cluster-autoscaler", background=True)

    # -- one loop (RunOnce) --------------------------------------------------------------------
    def run_once(self) -> None:
        self.last_scan = self.clock.now
        members = self._group_nodes()
        pending = self._unschedulable_pods()
        remaining = self._filter_schedulable(pending)
        remaining = self.scale_up.filter_upcoming(remaining, self.scale_down.deleting,
                                                  MAX_NODE_STARTUP_TIME, NODE_GROUP_LABEL)
        scaled = bool(remaining) and self.scale_up.run(remaining, members)
        if not scaled and self.config.scale_down_enabled:
            self.scale_down.run(members, self.scale_up.last_scale_up)
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

    def _filter_schedulable(self, pods: list[Any]) -> list[Any]:
        """FilterOutSchedulable: pods that fit an existing node are the scheduler's business."""
        if not pods:
            return []
        from .scale_up import equivalence

        deleting = self.scale_down.deleting
        names = sorted(n.name for n in self.store.nodes()
                       if n.ready == "True" and n.name not in deleting)
        placed: dict[str, list[Any]] = {}
        hopeless: set[tuple] = set()
        out = []
        for pod in pods:
            key = equivalence(pod)
            hit = None if key in hopeless else self.scheduler.first_fit(pod, names, placed)
            if hit is None:
                hopeless.add(key)
                out.append(pod)
            else:
                placed.setdefault(hit, []).append(pod)
        return out

    # -- busy, status --------------------------------------------------------------------------
    def _next_scan(self, t: float) -> float:
        step = self.config.scan_interval
        return math.ceil(t / step - 1e-9) * step

    def _update_busy(self, pending: bool) -> None:
        now = self.clock.now
        down = self.scale_down
        times = self.scale_up.ready_times()
        times += [self._next_scan(t) for n, t in down.removable_at.items()
                  if n not in down.deleting and t > now]
        if pending:
            times += [t for t in self.scale_up.backoff.values() if t > now]
        self._busy = min(times) if times else None

    def status(self) -> dict | None:
        """What the autoscaler knows now, as plain data (None without a configuration)."""
        if self.config is None:
            return None
        now = self.clock.now
        up, down = self.scale_up, self.scale_down
        members = self._group_nodes()
        groups = []
        for g in self.config.node_groups:
            nodes = members[g.name]
            ups = up.upcoming[g.name]
            groups.append({
                "name": g.name, "minSize": g.min_size, "maxSize": g.max_size,
                "registered": len(nodes), "ready": sum(1 for n in nodes if n.ready == "True"),
                "targetSize": len(nodes) + len(ups),
                "upcoming": [{"node": u.name, "requestedAt": u.requested_at,
                              "readyAt": u.ready_at} for u in ups],
                "nodes": [n.name for n in nodes],
                "backoffUntil": up.backoff_until(g.name),
            })
        cool = down.cooldown_until(up.last_scale_up)
        return {
            "time": now,
            "lastScanTime": self.last_scan,
            "expander": ",".join(self.config.expander),
            "scaleUp": {"status": "InProgress" if up.in_progress() else "NoActivity",
                        "lastScaleUpTime": _finite(up.last_scale_up)},
            "scaleDown": {"status": "CandidatesPresent" if down.unneeded else "NoCandidates",
                          "lastScaleDownTime": _finite(down.last_scale_down),
                          "cooldownUntil": cool if cool > now else None},
            "nodeGroups": groups,
            "unneeded": [{"node": n, "since": t, "removableAt": down.removable_at.get(n)}
                         for n, t in sorted(down.unneeded.items())],
            "deleting": sorted(down.deleting),
            "unremovable": dict(sorted(down.reasons.items())),
        }


def _finite(t: float) -> float | None:
    return t if math.isfinite(t) else None
