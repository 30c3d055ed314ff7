"""The node lifecycle controller: node health, condition taints, and taint-based eviction's trigger.

A port of ``pkg/controller/nodelifecycle/node_lifecycle_controller.go`` on the simulated clock:

* **Health** (``monitorNodeHealth`` every node-monitor-period, 5 s): a node's *probe timestamp*
  is the controller's own clock reading when it last saw the kubelet's Ready heartbeat or its
  Lease renewal change. Once ``now > probe + node-monitor-grace-period`` (50 s; 60 s for a node
  that never posted status), the controller sets Ready, MemoryPressure, DiskPressure and
  PIDPressure to ``Unknown`` ("Kubelet stopped posting node status."), records ``NodeNotReady``
  on the node and on each of its pods, and marks the pods' Ready condition False
  (``MarkPodsNotReady``).
* **NoExecute taints** (``processTaintBaseEviction``): a node observed NotReady/Unknown is queued
  for the ``not-ready`` / ``unreachable`` NoExecute taint; the queue is rate limited per zone
  (``--node-eviction-rate`` 0.1 node/s, burst 1) and stops entirely when a zone is fully or
  mostly disrupted, as upstream's ``handleDisruption``. Because the decision uses the Ready
  condition as observed *before* this pass's update, the NoExecute taint lands one monitor
  period after the node turned Unknown — as upstream. A Ready node loses both taints at once.
* **NoSchedule condition taints** (``doNoScheduleTaintingPass``, on every node change):
  ``not-ready``/``unreachable`` from Ready, ``memory-pressure``, ``disk-pressure``,
  ``pid-pressure``, ``network-unavailable`` from their conditions, ``unschedulable`` for cordoned
  nodes; each added with ``timeAdded`` and removed when its cause goes.

Not here: evicting pods from NoExecute-tainted nodes (``tainteviction``), the legacy
``DeletePods`` path, label reconciliation, CIDR allocation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Collection, Sequence

import attrs

from ..api.core import Node, NodeCondition
from ..api.evolve import evolve
from ..api.meta import ObjectMeta
from ..api.taints import (
    NO_EXECUTE,
    NO_SCHEDULE,
    TAINT_NODE_DISK_PRESSURE,
    TAINT_NODE_MEMORY_PRESSURE,
    TAINT_NODE_NETWORK_UNAVAILABLE,
    TAINT_NODE_NOT_READY,
    TAINT_NODE_PID_PRESSURE,
    TAINT_NODE_UNREACHABLE,
    TAINT_NODE_UNSCHEDULABLE,
    Taint,
)
from ..apiserver.store import ADDED, DELETED, MODIFIED, WatchEvent
from ..sim.clock import PRIORITY_CONTROLLER
from .base import Controller, Worker
from .nodelifecycle_steady import SteadyNodes
from .rate_limited_queue import RateLimitedQueue

if TYPE_CHECKING:
    from ..api.core import Pod

COMPONENT = "node-controller"

# pkg/controller/nodelifecycle/config/v1alpha1/defaults.go and kube-controller-manager flags:
NODE_MONITOR_PERIOD = 5.0           # --node-monitor-period 5s
NODE_MONITOR_GRACE_PERIOD = 50.0    # --node-monitor-grace-period 50s since v1.32 (PR #126287)
NODE_STARTUP_GRACE_PERIOD = 60.0    # --node-startup-grace-period 60s
NODE_EVICTION_RATE = 0.1            # --node-eviction-rate 0.1 nodes/s per zone
SECONDARY_NODE_EVICTION_RATE = 0.01  # --secondary-node-eviction-rate
LARGE_CLUSTER_SIZE_THRESHOLD = 50   # --large-cluster-size-threshold
UNHEALTHY_ZONE_THRESHOLD = 0.55     # --unhealthy-zone-threshold
# pkg/controller/nodelifecycle: labelNodeDisruptionExclusion.
LABEL_EXCLUDE_DISRUPTION = "node.kubernetes.io/exclude-disruption"

UNREACHABLE_NO_EXECUTE = Taint(key=TAINT_NODE_UNREACHABLE, effect=NO_EXECUTE)
NOT_READY_NO_EXECUTE = Taint(key=TAINT_NODE_NOT_READY, effect=NO_EXECUTE)

# nodeConditionToTaintKeyStatusMap: condition → {status: taint key} (NoSchedule taints).
CONDITION_TAINTS = {
    "Ready": {"False": TAINT_NODE_NOT_READY, "Unknown": TAINT_NODE_UNREACHABLE},
    "MemoryPressure": {"True": TAINT_NODE_MEMORY_PRESSURE},
    "DiskPressure": {"True": TAINT_NODE_DISK_PRESSURE},
    "NetworkUnavailable": {"True": TAINT_NODE_NETWORK_UNAVAILABLE},
    "PIDPressure": {"True": TAINT_NODE_PID_PRESSURE},
}
_CONDITION_TAINT_KEYS = frozenset(k for m in CONDITION_TAINTS.values() for k in m.values())
# The conditions the controller sets to Unknown when the kubelet goes silent
# (NetworkUnavailable is managed elsewhere and left alone).
_UNKNOWN_ON_SILENCE = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")

STATE_INITIAL, STATE_NORMAL = "Initial", "Normal"
STATE_FULL_DISRUPTION, STATE_PARTIAL_DISRUPTION = "FullDisruption", "PartialDisruption"


def zone_name(key: str) -> str:
    """A zone key as a person reads it: ``zone-a``, or ``region/zone-a`` when a region is set
    (the key's NUL separator is not for display)."""
    region, _, zone = key.partition(":\x00:")
    if not key:
        return "<no zone>"
    return f"{region}/{zone}" if region and zone else (zone or region)


def zone_key(node: Node) -> str:
    """nodetopology.GetZoneKey: region and zone labels (stable, else beta), "" if neither."""
    labels = node.metadata.labels
    region = labels.get("topology.kubernetes.io/region") or \
        labels.get("failure-domain.beta.kubernetes.io/region", "")
    zone = labels.get("topology.kubernetes.io/zone") or \
        labels.get("failure-domain.beta.kubernetes.io/zone", "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


@attrs.define
class _Health:
    """nodeHealthData: the last observed Ready condition and when we saw it change."""

    probe: float
    ready_transition: float
    ready: tuple | None = None      # (status, heartbeat, transition) of the observed Ready
    lease_renew: float | None = None


def _node_name(node: Node) -> str:
    return node.metadata.name


def _ready_tuple(cond: Any) -> tuple | None:
    if cond is None:
        return None
    return (cond.status, cond.last_heartbeat_time, cond.last_transition_time)


class NodeLifecycleController(Controller):
    name = "nodelifecycle"

    def __init__(self, monitor_period: float = NODE_MONITOR_PERIOD,
                 grace_period: float = NODE_MONITOR_GRACE_PERIOD,
                 startup_grace_period: float = NODE_STARTUP_GRACE_PERIOD) -> None:
        self.monitor_period = monitor_period
        self.grace_period = grace_period
        self.startup_grace_period = startup_grace_period
        self.health: dict[str, _Health] = {}
        # Whether some node's observed Ready is there and not True (None: to be worked out
        # again, after a write of ``health`` or of a record's ``ready``): while none is, no
        # newly bound pod has anything to be marked for, and _process_pod need not read it.
        self._unready: bool | None = None
        self.known: dict[str, str] = {}          # node name → uid
        self.zone_states: dict[str, str] = {}
        self.tainters: dict[str, RateLimitedQueue] = {}
        self._taint_timer: Any = None
        self._zones: dict[str, tuple[Any, str]] = {}
        # The lease informer: node name → last seen spec.renewTime (kube-node-lease).
        self._renewals: dict[str, float] = {}
        # node name → (node object, zone key, counts for disruption) as the last health pass
        # saw it Ready and untainted (its ``entries``): the next pass takes the short way for
        # the same object, and looks only at the nodes that may need more
        # (nodelifecycle_steady.py).
        self._steady = SteadyNodes()
        self._renewed = self._steady.renewed
        # Node adds and deletes heard, and the count the last registration pass saw; _order is
        # that pass's name-sorting permutation of the store's node table (None: already sorted).
        self._members = 1
        self._members_seen = 0
        self._order: list[int] | None = None

    def start(self, cp: Any) -> None:
        self.cp = cp
        self.store = cp.store
        self.clock = cp.clock
        # One worker: changed nodes (their NoSchedule condition taints) before newly bound pods.
        self.worker = Worker(cp.clock, "nodelifecycle/sync")
        self.node_queue = self.worker.queue(self._no_schedule_tainting_pass)
        self.pod_queue = self.worker.queue(self._process_pod)
        self.watch()
        self.clock.call_soon(self._monitor_loop, PRIORITY_CONTROLLER, "nodelifecycle/monitor")

    # -- watches: only enqueue ------------------------------------------------------------
    def watch(self) -> None:
        self.store.subscribe("Node", self._on_node)
        # _on_pod returns at once for a deletion, and for a status write (the node is the
        # spec's, kept)
        self.store.subscribe("Pod", self._on_pod, types=(ADDED, MODIFIED), status=False)
        self.store.subscribe("Lease", self._on_lease)

    def _on_node(self, ev: WatchEvent) -> None:
        self._steady.written(ev.obj.metadata.name)
        if ev.type == DELETED or ev.type == ADDED:
            self._members += 1
        if ev.type == DELETED:
            return
        old = ev.old
        node = ev.obj
        if old is not None and old.spec is node.spec and \
                old.status.conditions is node.status.conditions:
            return
        self.node_queue.add(node.metadata.name)

    def _on_lease(self, ev: WatchEvent) -> None:
        lease = ev.obj
        if lease.metadata.namespace != "kube-node-lease":
            return
        if ev.type == DELETED:
            self._renewals.pop(lease.metadata.name, None)
            return
        renew = lease.spec.renew_time
        if isinstance(renew, (int, float)):
            self._renewals[lease.metadata.name] = renew
            self._renewed[lease.metadata.name] = None

    # -- a Session's load (bulk start: session.py) ---------------------------------------------
    def muted_for_load(self, kinds: Collection[str] = (), objects: Sequence[Any] = ()
                       ) -> list[tuple[str, Any]]:
        """The pod watch, for a load with nodes and no pod stored yet: the load writes every
        node before any pod (Session._order) and each new node is queued, so the worker's
        timer is waiting before the first pod comes and queuing the pods makes none; the
        pod queue's order is the pods' write order, which load_done keeps."""
        if "Node" not in kinds or self.store.count("Pod"):
            return []
        return [("Pod", self._on_pod)]

    def load_done(self) -> None:
        # _on_pod of each ADDED pod
        self.pod_queue.add_all([key for key, pod in self.store.items("Pod")
                                if pod.spec.node_name])

    def _on_pod(self, ev: WatchEvent) -> None:
        pod, old = ev.obj, ev.old
        if ev.type == DELETED or not pod.spec.node_name:
            return
        if ev.type == ADDED or old is None or old.spec.node_name != pod.spec.node_name:
            self.pod_queue.add((pod.metadata.namespace, pod.metadata.name))

    # -- NoSchedule condition taints ------------------------------------------------------
    def _no_schedule_tainting_pass(self, name: str) -> None:
        node = self.store.get("Node", name)
        if node is None:
            return
        want = []
        for c in node.status.conditions:
            key = CONDITION_TAINTS.get(c.type, {}).get(c.status)
            if key is not None:
                want.append(Taint(key=key, effect=NO_SCHEDULE))
        if node.spec.unschedulable:
            want.append(Taint(key=TAINT_NODE_UNSCHEDULABLE, effect=NO_SCHEDULE))
        have = [t for t in node.spec.taints if t.effect == NO_SCHEDULE and
                (t.key == TAINT_NODE_UNSCHEDULABLE or t.key in _CONDITION_TAINT_KEYS)]
        add = [t for t in want if not any(t.matches(h) for h in have)]
        remove = [h for h in have if not any(h.matches(t) for t in want)]
        if add or remove:
            self._swap_taints(node, add, remove)

    def _swap_taints(self, node: Node, add: list[Taint], remove: list[Taint]) -> Any:
        """SwapNodeControllerTaint: add (stamped with timeAdded = now), then remove."""
        now = self.clock.now
        taints = list(node.spec.taints)
        for t in add:
            t = evolve(t, time_added=now)
            for i, old in enumerate(taints):
                if old.matches(t):
                    taints[i] = t
                    break
            else:
                taints.append(t)
        taints = [t for t in taints if not any(t.matches(r) for r in remove)]
        if tuple(taints) == node.spec.taints:
            return node
        return self.store.update(evolve(node, spec=evolve(node.spec,
                                                                      taints=tuple(taints))))

    # -- health monitoring ----------------------------------------------------------------
    def _monitor_loop(self) -> None:
        self.monitor_node_health()
        self.clock.call_later(self.monitor_period, self._monitor_loop, PRIORITY_CONTROLLER,
                              "nodelifecycle/monitor", background=True)

    def monitor_node_health(self) -> None:
        now = self.clock.now
        store = self.store
        nodes = store.nodes()
        if self._members_seen == self._members and len(nodes) == len(self.known):
            # No node was added or deleted since the last pass: every node is known, none is
            # gone, and the store's table keeps its order (an update keeps a key's place), so
            # last pass's sorting permutation still applies.
            if self._order is not None:
                nodes = [nodes[i] for i in self._order]
            if not self._changed_pass(nodes, now):
                self._health_pass(nodes, now)
            return
        self._members_seen = self._members
        nodes.sort(key=_node_name)
        wrote = False
        for node in nodes:
            name = node.metadata.name
            if name not in self.known:
                self._event(node, "RegisteredNode", f"Registered Node {name} in Controller")
                self.known[name] = node.metadata.uid
                self._add_zone(node)
                wrote = self._mark_reachable(node) is not node or wrote
        if len(self.known) != len(nodes):
            names = {n.metadata.name for n in nodes}
            for name in [n for n in self.known if n not in names]:
                gone = Node(metadata=ObjectMeta(name=name, uid=self.known.pop(name)))
                self._event(gone, "RemovingNode", f"Removing Node {name} from Controller")
                self.health.pop(name, None)
                self._unready = None
                self._zones.pop(name, None)
                self._steady.drop(name)
        if wrote:
            nodes = store.nodes()
            nodes.sort(key=_node_name)
        place = {n.metadata.name: i for i, n in enumerate(store.nodes())}
        order = [place[n.metadata.name] for n in nodes]
        self._order = None if order == list(range(len(order))) else order
        self._health_pass(nodes, now)

    def _health_pass(self, nodes: list[Node], now: float) -> None:
        """Every node's health, in name order, then the zones' disruption states."""
        zone_conditions: dict[str, list[str | None]] = {}
        zone_states = self.zone_states
        self._steady.full_pass_starts()
        steady = self._steady.entries
        health_of = self.health
        renewals = self._renewals
        grace = self.grace_period
        tainters = self.tainters
        for node in nodes:
            name = node.metadata.name
            seen = steady.get(name)
            if seen is not None and seen[0] is node:
                # The node object this pass saw last time, when it was Ready and untainted:
                # its Ready condition, labels and taints are the same, so all that can change
                # is a lease renewal and the grace deadline. Inside it, the pass's outcome is
                # the same as then (what _try_update_node_health and the branches below do
                # for such a node, without rebuilding it); past it, the full path runs.
                health = health_of.get(name)
                if health is not None:
                    renew = renewals.get(name)
                    if renew is not None and (health.lease_renew is None
                                              or health.lease_renew < renew):
                        health.lease_renew = renew
                        health.probe = now
                    if now <= health.probe + grace:
                        zone = seen[1]
                        if zone not in zone_states:
                            self._add_zone(node)
                        if seen[2]:
                            conds = zone_conditions.get(zone)
                            if conds is None:
                                conds = zone_conditions[zone] = []
                            conds.append("True")
                        queue = tainters.get(zone)
                        if queue is not None and name in queue.members:
                            queue.remove(name)
                        continue
            self._look_at(node, now, zone_conditions)
        self._handle_disruption(zone_conditions, nodes, now)
        self._schedule_taint_pass()
        self._steady.full_pass_done(health_of)

    def _changed_pass(self, nodes: list[Node], now: float) -> bool:
        """The health pass over the nodes that may need more than the short way (see
        nodelifecycle_steady.py): each of them as _health_pass looks at it, in name order,
        every other node counted Ready in its zone, as the short way counts it; then the
        zones' disruption states. False, having done nothing, when the steady bookkeeping
        cannot tell (_health_pass runs instead): after a full disruption's handling, or
        for a zone of a steady node that is gone from the zone states (the short way would
        add it again)."""
        steady = self._steady
        zone_states = self.zone_states
        if not steady.exact or any(zone not in zone_states for zone in steady.zones()):
            return False
        names, counted = steady.to_look_at(self.known, self.health, self._renewals, now,
                                           self.grace_period)
        zone_conditions: dict[str, list[str | None]] = {}
        get = self.store.get
        for name in names:
            self._look_at(get("Node", name), now, zone_conditions)
        # (only each zone's count of "True" matters to the disruption states, not the order)
        for zone, n in counted.items():
            if n:
                conds: list[str | None] = ["True"] * n
                conds.extend(zone_conditions.get(zone, ()))
                zone_conditions[zone] = conds
        self._handle_disruption(zone_conditions, nodes, now)
        self._schedule_taint_pass()
        return True

    def _look_at(self, node: Node, now: float,
                 zone_conditions: dict[str, list[str | None]]) -> None:
        """One node's full health check in a pass (tryUpdateNodeHealth and what follows);
        its Ready status goes to its zone's list in ``zone_conditions``."""
        name = node.metadata.name
        given = node
        observed, current, node = self._try_update_node_health(node, now)
        zone = self._zone(node)
        if zone not in self.zone_states:
            self._add_zone(node)
        if LABEL_EXCLUDE_DISRUPTION not in node.metadata.labels:
            conds = zone_conditions.get(zone)
            if conds is None:
                conds = zone_conditions[zone] = []
            conds.append(current[0] if current is not None else None)
        steady = self._steady
        if current is None:
            steady.drop(name)
            return
        if node is given and current[0] == "True" and not node.spec.taints:
            steady.keep(name, (node, zone, LABEL_EXCLUDE_DISRUPTION not in node.metadata.labels),
                        self.health[name].probe)
        else:
            steady.drop(name)
        if observed[0] == "True" and not node.spec.taints:
            # The common case, cheaply: nothing to untaint; just forget queued tainting.
            queue = self.tainters.get(zone)
            if queue is not None and name in queue.members:
                queue.remove(name)
        else:
            self._process_taint_based_eviction(node, observed[0])
        if current[0] != "True" and observed[0] == "True":
            self._event(node, "NodeNotReady", f"Node {name} status is now: NodeNotReady",
                        record_status=True)
            self._mark_pods_not_ready(name)

    def _zone(self, node: Node) -> str:
        """zone_key, cached per node while its labels object is the same."""
        cached = self._zones.get(node.metadata.name)
        labels = node.metadata.labels
        if cached is not None and cached[0] is labels:
            return cached[1]
        zone = zone_key(node)
        self._zones[node.metadata.name] = (labels, zone)
        return zone

    def _try_update_node_health(self, node: Node, now: float
                                ) -> tuple[tuple, tuple | None, Any]:
        """tryUpdateNodeHealth: (observed Ready, current Ready, the node as it is now)."""
        name = node.metadata.name
        health = self.health.get(name)
        cond = node.status.condition("Ready")
        current = _ready_tuple(cond)
        created = node.metadata.creation_timestamp or 0.0
        if current is None:
            observed = ("Unknown", created, created)
            grace = self.startup_grace_period
            if health is None:
                health = _Health(probe=created, ready_transition=created)
        else:
            observed = current
            grace = self.grace_period
            saved = health.ready if health is not None else None
            if health is None or saved is None:
                health = _Health(probe=now, ready_transition=now, ready=current)
            elif saved[1] != current[1]:
                transition = now if saved[2] != current[2] else health.ready_transition
                health = _Health(probe=now, ready_transition=transition, ready=current,
                                 lease_renew=health.lease_renew)
        renew = self._renewals.get(name)
        if renew is not None and (health.lease_renew is None or health.lease_renew < renew):
            health.lease_renew = renew
            health.probe = now
        self.health[name] = health
        self._unready = None   # (also for the ready this call may set below: no pod between)
        if now > health.probe + grace:
            conditions = list(node.status.conditions)
            changed = False
            for type_ in _UNKNOWN_ON_SILENCE:
                for i, c in enumerate(conditions):
                    if c.type == type_:
                        if c.status != "Unknown":
                            conditions[i] = evolve(
                                c, status="Unknown", reason="NodeStatusUnknown",
                                message="Kubelet stopped posting node status.",
                                last_transition_time=now)
                            changed = True
                        break
                else:
                    conditions.append(NodeCondition(
                        type=type_, status="Unknown", reason="NodeStatusNeverUpdated",
                        message="Kubelet never posted node status.",
                        last_heartbeat_time=created, last_transition_time=now))
                    changed = True
            new_ready = next(_ready_tuple(c) for c in conditions if c.type == "Ready")
            if changed and new_ready != observed:
                updated = self.store.update_status(
                    evolve(node, status=evolve(node.status,
                                                           conditions=tuple(conditions))))
                health.ready = _ready_tuple(updated.status.condition("Ready"))
                health.ready_transition = now
                return observed, new_ready, updated
        return observed, current, node

    def _mark_pods_not_ready(self, node_name: str) -> None:
        """MarkPodsNotReady: Ready=False on each pod of the node, with a NodeNotReady event."""
        now = self.clock.now
        for pod in sorted(self.store.pods_on_node(node_name),
                          key=lambda p: (p.metadata.namespace, p.metadata.name)):
            self._mark_pod_not_ready(pod, now)

    def _mark_pod_not_ready(self, pod: Pod, now: float) -> None:
        conds = list(pod.status.conditions)
        for i, c in enumerate(conds):
            if c.type != "Ready":
                continue
            if c.status == "False":
                return
            conds[i] = evolve(c, status="False", last_transition_time=now)
            updated = self.store.update_status(evolve(pod, status=evolve(
                pod.status, conditions=tuple(conds))))
            self.store.record_event(updated, "Warning", "NodeNotReady", "Node is not ready",
                                    COMPONENT)
            return

    def _process_pod(self, key: tuple[str, str]) -> None:
        """processPod: a pod bound to a node that is not Ready is marked NotReady too."""
        # every node Ready (a load's 150,000 pods at t=0): no pod to read (the test of each
        # pod's node below answers the same for every pod)
        if not self._some_node_not_ready():
            return
        pod = self.store.get("Pod", key[1], key[0])
        if pod is None or not pod.spec.node_name:
            return
        health = self.health.get(pod.spec.node_name)
        # a Ready node is the common case: answered before the node's read, which only
        # tells whether the node is still there
        if health is None or health.ready is None or health.ready[0] == "True" or \
                self.store.get("Node", pod.spec.node_name) is None:
            return
        self._mark_pod_not_ready(pod, self.clock.now)

    def _some_node_not_ready(self) -> bool:
        unready = self._unready
        if unready is None:
            unready = self._unready = any(
                h.ready is not None and h.ready[0] != "True" for h in self.health.values())
        return unready

    # -- NoExecute tainting ---------------------------------------------------------------
    def _process_taint_based_eviction(self, node: Node, observed: str) -> None:
        taints = node.spec.taints
        has_unreachable = any(t.matches(UNREACHABLE_NO_EXECUTE) for t in taints)
        has_not_ready = any(t.matches(NOT_READY_NO_EXECUTE) for t in taints)
        if observed == "False":
            if has_unreachable:
                self._swap_taints(node, [NOT_READY_NO_EXECUTE], [UNREACHABLE_NO_EXECUTE])
            else:
                self._mark_for_tainting(node, has_not_ready)
        elif observed == "Unknown":
            if has_not_ready:
                self._swap_taints(node, [UNREACHABLE_NO_EXECUTE], [NOT_READY_NO_EXECUTE])
            else:
                self._mark_for_tainting(node, has_unreachable)
        elif observed == "True":
            self._mark_reachable(node)

    def _mark_for_tainting(self, node: Node, already_tainted: bool) -> None:
        queue = self.tainters[self._zone(node)]
        if not already_tainted:
            queue.remove(node.metadata.name)
        queue.add(node.metadata.name, node.metadata.uid)

    def _mark_reachable(self, node: Node) -> Any:
        """markNodeAsReachable: drop both NoExecute taints and any queued tainting."""
        remove = [t for t in (UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE)
                  if any(t.matches(x) for x in node.spec.taints)]
        if remove:
            node = self._swap_taints(node, [], remove)
        queue = self.tainters.get(self._zone(node))
        if queue is not None:
            queue.remove(node.metadata.name)
        return node

    def _schedule_taint_pass(self) -> None:
        if self._taint_timer is not None:
            self._taint_timer.cancel()
            self._taint_timer = None
        if any(q.items for q in self.tainters.values()):
            self._taint_timer = self.clock.call_soon(self._no_execute_tainting_pass,
                                                     PRIORITY_CONTROLLER,
                                                     "nodelifecycle/noexecute")

    def _no_execute_tainting_pass(self) -> None:
        """doNoExecuteTaintingPass: taint queued nodes as fast as each zone's limiter allows."""
        self._taint_timer = None
        now = self.clock.now
        retry_at = None
        for zone in sorted(self.tainters):
            queue = self.tainters[zone]
            for name in list(queue.items):
                if not queue.limiter.try_accept(now):
                    t = queue.limiter.next_token_at(now)
                    if t is not None and (retry_at is None or t < retry_at):
                        retry_at = t
                    break
                node = self.store.get("Node", name)
                if node is None:
                    queue.done(name)
                    continue
                cond = node.status.condition("Ready")
                if cond is None:
                    continue   # retried on the next pass
                queue.done(name)
                if cond.status == "False":
                    self._swap_taints(node, [NOT_READY_NO_EXECUTE], [UNREACHABLE_NO_EXECUTE])
                elif cond.status == "Unknown":
                    self._swap_taints(node, [UNREACHABLE_NO_EXECUTE], [NOT_READY_NO_EXECUTE])
        if retry_at is not None:
            self._taint_timer = self.clock.call_at(retry_at, self._no_execute_tainting_pass,
                                                   PRIORITY_CONTROLLER,
                                                   "nodelifecycle/noexecute")

    # -- zones and disruption -------------------------------------------------------------
    def _add_zone(self, node: Node) -> None:
        zone = self._zone(node)
        if zone not in self.zone_states:
            self.zone_states[zone] = STATE_INITIAL
            self.tainters[zone] = RateLimitedQueue(NODE_EVICTION_RATE, self.clock.now)

    def _zone_state(self, ready: list[str | None]) -> str:
        """ComputeZoneState."""
        ready_n = ready.count("True")
        not_ready = len(ready) - ready_n
        if ready_n == 0 and not_ready > 0:
            return STATE_FULL_DISRUPTION
        if not_ready > 2 and not_ready / (not_ready + ready_n) >= UNHEALTHY_ZONE_THRESHOLD:
            return STATE_PARTIAL_DISRUPTION
        return STATE_NORMAL

    def _set_limiter(self, zone: str, size: int, state: str, now: float) -> None:
        if state == STATE_NORMAL:
            qps = NODE_EVICTION_RATE
        elif state == STATE_PARTIAL_DISRUPTION:
            qps = SECONDARY_NODE_EVICTION_RATE if size > LARGE_CLUSTER_SIZE_THRESHOLD else 0.0
        else:
            qps = NODE_EVICTION_RATE
        self.tainters[zone].swap_limiter(qps, now)

    def _handle_disruption(self, zone_conditions: dict[str, list], nodes: list[Any],
                           now: float) -> None:
        new_states = {}
        all_are_full = True
        for zone, conds in zone_conditions.items():
            state = self._zone_state(conds)
            if state != STATE_FULL_DISRUPTION:
                all_are_full = False
            new_states[zone] = state
            self.zone_states.setdefault(zone, STATE_INITIAL)
        all_were_full = True
        for zone in list(self.zone_states):
            if zone not in zone_conditions:
                del self.zone_states[zone]
                continue
            if self.zone_states[zone] != STATE_FULL_DISRUPTION:
                all_were_full = False
                break
        if all_are_full and all_were_full:
            return
        if all_are_full or all_were_full:
            # (both ways below write every node or move every probe time: the next health
            # pass looks at every node)
            self._steady.exact = False
        if all_are_full:
            # Every node is down: assume the control plane is the problem; evict nobody.
            for node in nodes:
                current = self.store.get("Node", node.metadata.name)
                if current is not None:
                    self._mark_reachable(current)
            for zone in self.zone_states:
                self.tainters[zone].swap_limiter(0.0, now)
                self.zone_states[zone] = STATE_FULL_DISRUPTION
            return
        if all_were_full:
            for node in nodes:
                h = self.health.get(node.metadata.name)
                if h is not None:
                    h.probe = now
                    h.ready_transition = now
            for zone in self.zone_states:
                self._set_limiter(zone, len(zone_conditions.get(zone, ())),
                                  new_states.get(zone, STATE_NORMAL), now)
                self.zone_states[zone] = new_states.get(zone, STATE_NORMAL)
            return
        for zone, state in list(self.zone_states.items()):
            new = new_states.get(zone, state)
            if new == state:
                continue
            self._set_limiter(zone, len(zone_conditions.get(zone, ())), new, now)
            self.zone_states[zone] = new

    # -- helpers --------------------------------------------------------------------------
    def _event(self, node: Node, reason: str, message: str, record_status: bool = False) -> None:
        """RecordNodeEvent ("Node x event: ...") or RecordNodeStatusChange (as given)."""
        text = message if record_status else \
            f"Node {node.metadata.name} event: {message}"
        self.store.record_event(node, "Normal", reason, text, COMPONENT)

    def busy_until(self) -> float | None:
        """While a node that still looks Ready has gone silent, a verdict is coming: wait."""
        now = self.clock.now
        latest = None
        for _name, h in self.health.items():
            if h.ready is None or h.ready[0] == "Unknown":
                continue
            if now - h.probe > 3 * self.monitor_period:
                t = h.probe + self.grace_period + 2 * self.monitor_period
                if latest is None or t > latest:
                    latest = t
        return latest
