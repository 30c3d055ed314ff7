"""The cluster autoscaler's scale-down: which nodes are unneeded, and removing them.

Ported in our own words from ``cluster-autoscaler/core/scaledown`` (planner, unneeded,
eligibility, actuation) and ``simulator`` (``drainability/rules``, ``utilization``, the removal
simulation), following ``FAQ.md`` "How does scale-down work?":

* **Eligible**: a node of a node group whose utilization — the larger of its pods' summed CPU
  and memory requests over allocatable, DaemonSet and mirror pods included — is below
  ``scaleDownUtilizationThreshold`` (0.5), and that has no
  ``cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"`` annotation. An unready node
  is eligible whatever its utilization (and waits ``scaleDownUnreadyTime``).
* **Drainable**: every pod that would have to move may move. Mirror pods, DaemonSet pods and
  finished pods stay; a pod blocks the node when it has ``safe-to-evict: "false"``; when it
  declares no controller (``NotReplicated``) or its controller is gone
  (``ControllerNotFound``), runs in kube-system without a PodDisruptionBudget
  (``UnmovableKubeSystemPod``) or uses local storage — an emptyDir not in memory, or a
  hostPath — not listed in ``safe-to-evict-local-volumes`` (``LocalStorageRequested``), unless
  it has ``safe-to-evict: "true"``; and when a PodDisruptionBudget allows fewer disruptions than
  the node's pods it selects (``NotEnoughPdb``).
* **Placeable**: each pod that moves fits on another node (the scheduler's filters, via
  ``scheduler.first_fit``), counting the pods already moved there in this simulation; a node
  found unneeded is not a destination for the next ones (``NoPlaceToMovePods`` otherwise).
* **Unneeded long enough**: ``scaleDownUnneededTime`` (10 min) in that state, outside the
  cool-downs (10 min after a scale-up, 3 min after a failed scale-down), and never below the
  group's ``minSize`` (``NodeGroupMinSizeReached``).

Unneeded nodes carry the soft taint ``DeletionCandidateOfClusterAutoscaler:PreferNoSchedule``.
Removal: empty nodes (nothing to move) go together, up to ``maxEmptyBulkDelete``; otherwise one
node at a time: tainted ``ToBeDeletedByClusterAutoscaler:NoSchedule`` (event ``ScaleDown``
"marked the node as toBeDeleted/unschedulable"), its pods — DaemonSet pods too — evicted
through the Eviction API with at most ``maxGracefulTerminationSec`` of grace (event
``ScaleDown`` "deleting pod for node scale down" on each; a refused eviction is retried every
10 s for ``maxPodEvictionTime``, then the scale-down is abandoned with ``ScaleDownFailed``),
then, once the pods are gone (checked every 5 s), the Node is deleted (event ``ScaleDown``
"node removed by cluster autoscaler"). Upstream terminates the cloud instance and leaves the
Node object to the cloud node controller; the sandbox deletes the Node itself.
"""

from __future__ import annotations

import math
from typing import Any

from ...api.evolve import evolve
from ...api.taints import NO_SCHEDULE, PREFER_NO_SCHEDULE, Taint
from ...sim.clock import PRIORITY_CONTROLLER
from .drainability import drain_plan, pod_gone, unbound, utilization

# utils/taints: the taints the autoscaler puts on nodes.
TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler"
DELETION_CANDIDATE_TAINT = "DeletionCandidateOfClusterAutoscaler"
# The annotation of FAQ.md that a node carries.
SCALE_DOWN_DISABLED = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
# simulator: UnremovableReason.
NOT_UNDERUTILIZED = "NotUnderutilized"
SCALE_DOWN_DISABLED_ANNOTATION = "ScaleDownDisabledAnnotation"
NO_PLACE_TO_MOVE_PODS = "NoPlaceToMovePods"
BLOCKED_BY_POD = "BlockedByPod"
NODE_GROUP_MIN_SIZE_REACHED = "NodeGroupMinSizeReached"
NOT_UNNEEDED_LONG_ENOUGH = "NotUnneededLongEnough"
NOT_UNREADY_LONG_ENOUGH = "NotUnreadyLongEnough"
RECENTLY_UNREMOVABLE = "RecentlyUnremovable"
CURRENTLY_BEING_DELETED = "CurrentlyBeingDeleted"
SCALE_DOWN_IN_COOLDOWN = "ScaleDownInCooldown"
# core/scaledown/actuation: how often a refused eviction is retried (EvictionRetryTime), how
# often the drained node is checked for remaining pods, and the headroom over the grace period.
EVICTION_RETRY_TIME = 10.0
POD_GONE_POLL = 5.0
POD_EVICTION_HEADROOM = 30.0
COMPONENT = "cluster-autoscaler"
# --unremovable-node-recheck-timeout 5m: a node whose removal failed is left alone this long.
UNREMOVABLE_RECHECK = 300.0


def with_taint(node: Any, taint: Taint) -> Any:
    taints = tuple(t for t in node.spec.taints if t.key != taint.key) + (taint,)
    return evolve(node, spec=evolve(node.spec, taints=taints))


def without_taint(node: Any, key: str) -> Any:
    taints = tuple(t for t in node.spec.taints if t.key != key)
    return evolve(node, spec=evolve(node.spec, taints=taints))


def to_be_deleted_taint(now: float) -> Taint:
    return Taint(key=TO_BE_DELETED_TAINT, value=str(int(now)), effect=NO_SCHEDULE)


def deletion_candidate_taint(now: float) -> Taint:
    return Taint(key=DELETION_CANDIDATE_TAINT, value=str(int(now)), effect=PREFER_NO_SCHEDULE)


class NodeDeletion:
    """One node being drained and removed, on the clock, for the scale-down ``ca``."""

    def __init__(self, ca: ScaleDown, node_name: str, pods: list[Any],
                 daemons: list[Any]) -> None:
        self.ca = ca
        self.node = node_name
        self.pods = pods
        self.daemons = daemons
        self.started = ca.clock.now
        self.pending: list[Any] = []
        self.timer: Any = None
        self.done = False

    def begin(self) -> None:
        ca = self.ca
        store = ca.store
        for pod in self.pods + self.daemons:
            store.record_event(pod, "Normal", "ScaleDown", "deleting pod for node scale down",
                               COMPONENT)
        self.pending = list(self.pods)
        self._evict_round()
        for pod in self.daemons:     # best effort, as upstream: failures are ignored
            self._evict(pod)

    def _grace(self, pod: Any) -> int:
        grace = pod.spec.termination_grace_period_seconds
        grace = 30 if grace is None else grace
        return min(grace, self.ca.config.max_graceful_termination_sec)

    def _evict(self, pod: Any) -> bool:
        cur = self.ca.store.get("Pod", pod.metadata.name, pod.metadata.namespace)
        if cur is None or cur.metadata.uid != pod.metadata.uid or cur.spec.node_name != self.node:
            return True
        return self.ca.eviction.evict(pod.metadata.namespace, pod.metadata.name,
                                         self._grace(pod)).code in (201, 404)

    def _evict_round(self) -> None:
        self.pending = [p for p in self.pending if not self._evict(p)]
        clock = self.ca.clock
        if not self.pending:
            self._wait_gone()
            return
        if clock.now + EVICTION_RETRY_TIME > self.started + self.ca.config.max_pod_eviction_time:
            self.ca.deletion_failed(self, "failed to drain the node, aborting ScaleDown")
            return
        self.timer = clock.call_later(EVICTION_RETRY_TIME, self._evict_round,
                                      PRIORITY_CONTROLLER, f"cluster-autoscaler/drain {self.node}")

    def _left(self) -> list[Any]:
        uids = {p.metadata.uid for p in self.pods}
        return [p for p in self.ca.store.pods_on_node(self.node)
                if p.metadata.uid in uids and not pod_gone(p)]

    def _wait_gone(self) -> None:
        clock = self.ca.clock
        deadline = self.started + self.ca.config.max_graceful_termination_sec + \
            POD_EVICTION_HEADROOM
        if not self._left() or clock.now >= deadline:
            self.ca.delete_node(self)
            return
        self.timer = clock.call_later(POD_GONE_POLL, self._wait_gone, PRIORITY_CONTROLLER,
                                      f"cluster-autoscaler/wait {self.node}")

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.done = True


class ScaleDown:
    """The planner and actuator of scale-down (``core/scaledown``): which nodes are unneeded
    and since when, why the others are kept, the nodes being deleted, and the last scale-down
    (and failure) times. It simulates moves with ``scheduler``'s fit checks and drains through
    the Eviction API ``eviction``."""

    def __init__(self, store: Any, clock: Any, config: Any, scheduler: Any,
                 eviction: Any) -> None:
        self.store = store
        self.clock = clock
        self.config = config
        self.scheduler = scheduler
        self.eviction = eviction
        self.unneeded: dict[str, float] = {}
        self.unremovable: dict[str, float] = {}
        self.reasons: dict[str, str] = {}
        self.deleting: dict[str, NodeDeletion] = {}
        self.removable_at: dict[str, float] = {}
        self.last_scale_down = -math.inf
        self.last_scale_down_fail = -math.inf

    # -- scale-down ----------------------------------------------------------------------------
    def run(self, members: dict[str, list[Any]], last_scale_up: float) -> None:
        """One planning pass (a loop without a scale-up): update the unneeded nodes, remove
        what may go."""
        sched = self.scheduler
        now = self.clock.now
        cfg = self.config
        group_of = {n.name: g for g, nodes in members.items() for n in nodes}
        candidates = sorted(n for n in group_of if n not in self.deleting)
        destinations = sorted(n.name for n in self.store.nodes()
                              if n.ready == "True" and n.name not in self.deleting)
        moved: dict[str, list[Any]] = {}
        found: dict[str, tuple[list[Any], list[Any]]] = {}
        reasons: dict[str, str] = {}
        for name in candidates:
            node = self.store.get("Node", name)
            ready = node.ready == "True"
            if node.metadata.annotations.get(SCALE_DOWN_DISABLED) == "true":
                reasons[name] = SCALE_DOWN_DISABLED_ANNOTATION
                continue
            if self.unremovable.get(name, -math.inf) > now:
                reasons[name] = RECENTLY_UNREMOVABLE
                continue
            if ready and utilization(self.store, node) >= cfg.scale_down_utilization_threshold:
                reasons[name] = NOT_UNDERUTILIZED
                continue
            move, daemons, block = drain_plan(self.store, cfg, self.store.pods_on_node(name))
            if block is not None:
                reasons[name] = f"{BLOCKED_BY_POD} ({block[1]}: {block[0]})"
                continue
            dests = [d for d in destinations if d != name and d not in found]
            placed: dict[str, list[Any]] = {}
            ok = True
            for pod in move:
                extra = {d: moved.get(d, []) + placed.get(d, []) for d in dests}
                hit = sched.first_fit(unbound(pod), dests, extra)
                if hit is None:
                    ok = False
                    break
                placed.setdefault(hit, []).append(unbound(pod))
            if not ok:
                reasons[name] = NO_PLACE_TO_MOVE_PODS
                continue
            for d, ps in placed.items():
                moved.setdefault(d, []).extend(ps)
            found[name] = (move, daemons)
        self.unneeded = {n: self.unneeded.get(n, now) for n in found}
        self._soft_taints(found, group_of)
        self.removable_at = {}
        cool_until = self.cooldown_until(last_scale_up)
        sizes = {g: sum(1 for n in nodes if n.name not in self.deleting)
                 for g, nodes in members.items()}
        empty: list[str] = []
        drain: list[str] = []
        for name in sorted(found):
            node = self.store.get("Node", name)
            ready = node.ready == "True"
            wait = cfg.scale_down_unneeded_time if ready else cfg.scale_down_unready_time
            group = cfg.group(group_of[name])
            if sizes[group.name] - 1 < group.min_size:
                reasons[name] = NODE_GROUP_MIN_SIZE_REACHED
                continue
            self.removable_at[name] = max(self.unneeded[name] + wait, cool_until)
            if now - self.unneeded[name] < wait:
                reasons[name] = NOT_UNNEEDED_LONG_ENOUGH if ready else NOT_UNREADY_LONG_ENOUGH
                continue
            if now < cool_until:
                reasons[name] = SCALE_DOWN_IN_COOLDOWN
                continue
            if found[name][0]:
                drain.append(name)
            elif len(empty) < cfg.max_empty_bulk_delete:
                empty.append(name)
                sizes[group.name] -= 1
        self.reasons = reasons
        for name in empty:
            self._delete_empty(name)
        if drain and not self.deleting:
            name = drain[0]
            move, daemons = found[name]
            self.start_drain(name, move, daemons)

    def cooldown_until(self, last_scale_up: float) -> float:
        cfg = self.config
        return max(last_scale_up + cfg.scale_down_delay_after_add,
                   self.last_scale_down + cfg.scale_down_delay_after_delete,
                   self.last_scale_down_fail + cfg.scale_down_delay_after_failure)

    def _soft_taints(self, found: dict[str, Any], group_of: dict[str, str]) -> None:
        """Unneeded nodes carry DeletionCandidateOfClusterAutoscaler:PreferNoSchedule."""
        now = self.clock.now
        for name in sorted(group_of):
            if name in self.deleting:
                continue
            node = self.store.get("Node", name)
            has = any(t.key == DELETION_CANDIDATE_TAINT for t in node.spec.taints)
            if name in found and not has:
                self.store.update(with_taint(node, deletion_candidate_taint(now)))
            elif name not in found and has:
                self.store.update(without_taint(node, DELETION_CANDIDATE_TAINT))

    def _mark(self, name: str) -> Any:
        node = self.store.get("Node", name)
        node = without_taint(node, DELETION_CANDIDATE_TAINT)
        node = self.store.update(with_taint(node, to_be_deleted_taint(self.clock.now)))
        self.store.record_event(node, "Normal", "ScaleDown",
                                "marked the node as toBeDeleted/unschedulable", COMPONENT)
        return node

    def _delete_empty(self, name: str) -> None:
        self._mark(name)
        deletion = NodeDeletion(self, name, [], [])
        self.deleting[name] = deletion
        self.delete_node(deletion)

    def start_drain(self, name: str, move: list[Any], daemons: list[Any]) -> None:
        self._mark(name)
        deletion = NodeDeletion(self, name, move, daemons)
        self.deleting[name] = deletion
        deletion.begin()

    def delete_node(self, deletion: NodeDeletion) -> None:
        """The node's pods are gone: remove it (the cloud instance and its Node)."""
        name = deletion.node
        deletion.done = True
        node = self.store.get("Node", name)
        if node is not None:
            self.store.delete("Node", name)
            self.store.record_event(node, "Normal", "ScaleDown",
                                    "node removed by cluster autoscaler", COMPONENT)
        self.deleting.pop(name, None)
        self.unneeded.pop(name, None)
        self.last_scale_down = self.clock.now

    def deletion_failed(self, deletion: NodeDeletion, message: str) -> None:
        name = deletion.node
        deletion.cancel()
        self.deleting.pop(name, None)
        self.unneeded.pop(name, None)
        now = self.clock.now
        self.last_scale_down_fail = now
        self.unremovable[name] = now + UNREMOVABLE_RECHECK
        node = self.store.get("Node", name)
        if node is not None:
            node = self.store.update(without_taint(node, TO_BE_DELETED_TAINT))
            self.store.record_event(node, "Warning", "ScaleDownFailed", message, COMPONENT)
