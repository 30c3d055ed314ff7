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

import attrs

from ..api.core import FAILED, SUCCEEDED
from ..api.taints import NO_SCHEDULE, PREFER_NO_SCHEDULE, Taint
from ..sim.clock import PRIORITY_CONTROLLER

# utils/taints: the taints the autoscaler puts on nodes.
TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler"
DELETION_CANDIDATE_TAINT = "DeletionCandidateOfClusterAutoscaler"
# The annotations of FAQ.md.
SCALE_DOWN_DISABLED = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
SAFE_TO_EVICT_LOCAL_VOLUMES = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"
ENABLE_DS_EVICTION = "cluster-autoscaler.kubernetes.io/enable-ds-eviction"
# simulator/drain: BlockingPodReason; simulator: UnremovableReason.
NOT_REPLICATED = "NotReplicated"
CONTROLLER_NOT_FOUND = "ControllerNotFound"
LOCAL_STORAGE_REQUESTED = "LocalStorageRequested"
NOT_SAFE_TO_EVICT = "NotSafeToEvictAnnotation"
UNMOVABLE_KUBE_SYSTEM_POD = "UnmovableKubeSystemPod"
NOT_ENOUGH_PDB = "NotEnoughPdb"
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


def is_daemonset_pod(pod: Any) -> bool:
    ref = pod.metadata.controller_ref()
    return ref is not None and ref.kind == "DaemonSet"


def pod_gone(pod: Any) -> bool:
    return pod.status.phase in (SUCCEEDED, FAILED)


def utilization(store: Any, node: Any) -> float:
    """utilization.Calculate: max(cpu, memory) requested / allocatable (all pods counted)."""
    alloc = node.allocatable_amounts
    cpu = mem = 0
    for p in store.pods_on_node(node.name):
        if pod_gone(p):
            continue
        r = p.spec.requests
        cpu += r.get("cpu", 0)
        mem += r.get("memory", 0)
    shares = []
    for used, have in ((cpu, alloc.get("cpu", 0)), (mem, alloc.get("memory", 0))):
        if have > 0:
            shares.append(used / have)
    return max(shares) if shares else 0.0


def _pdb_selects(pdb: Any, pod: Any) -> bool:
    sel = pdb.spec.selector
    if sel is None or (not sel.match_labels and not sel.match_expressions):
        return False
    return sel.matches(pod.metadata.labels)


def drain_plan(store: Any, config: Any, pods: list[Any]) -> tuple[list[Any], list[Any],
                                                                  tuple[str, str] | None]:
    """(pods to move, DaemonSet pods to evict, the first blocking (pod, reason) or None)."""
    move: list[Any] = []
    daemons: list[Any] = []
    pdbs_by_ns: dict[str, list[Any]] = {}
    for pod in sorted(pods, key=lambda p: (p.metadata.namespace, p.metadata.name)):
        ann = pod.metadata.annotations
        if pod.is_mirror or pod_gone(pod):
            continue
        if pod.metadata.deletion_timestamp is not None:
            continue    # already going
        if is_daemonset_pod(pod):
            if ann.get(ENABLE_DS_EVICTION) != "false":
                daemons.append(pod)
            continue
        safe = ann.get(SAFE_TO_EVICT)
        if safe == "false":
            return move, daemons, (pod.key, NOT_SAFE_TO_EVICT)
        ns = pod.metadata.namespace
        if ns not in pdbs_by_ns:
            pdbs_by_ns[ns] = store.list("PodDisruptionBudget", ns)
        if safe != "true":
            ref = pod.metadata.controller_ref()
            if ref is None:
                return move, daemons, (pod.key, NOT_REPLICATED)
            if ref.kind in ("ReplicaSet", "ReplicationController", "Deployment") and \
                    store.get(ref.kind, ref.name, ns) is None:
                return move, daemons, (pod.key, CONTROLLER_NOT_FOUND)
            if config.skip_nodes_with_system_pods and ns == "kube-system" and \
                    not any(_pdb_selects(b, pod) for b in pdbs_by_ns[ns]):
                return move, daemons, (pod.key, UNMOVABLE_KUBE_SYSTEM_POD)
            if config.skip_nodes_with_local_storage and _local_storage_blocks(pod):
                return move, daemons, (pod.key, LOCAL_STORAGE_REQUESTED)
        move.append(pod)
    # PDBs: the budget must allow every pod of the node it selects to go.
    for ns, pdbs in pdbs_by_ns.items():
        for pdb in pdbs:
            selected = [p for p in move if p.metadata.namespace == ns and _pdb_selects(pdb, p)]
            if selected and pdb.status.disruptions_allowed < len(selected):
                return move, daemons, (selected[0].key, NOT_ENOUGH_PDB)
    return move, daemons, None


def _local_storage_blocks(pod: Any) -> bool:
    allowed = {v.strip() for v in pod.metadata.annotations.get(SAFE_TO_EVICT_LOCAL_VOLUMES,
                                                               "").split(",") if v.strip()}
    for vol in pod.spec.volumes:
        local = vol.host_path is not None or (
            vol.empty_dir is not None and
            (vol.empty_dir.get("medium") if hasattr(vol.empty_dir, "get") else "") != "Memory")
        if local and vol.name not in allowed:
            return True
    return False


def unbound(pod: Any) -> Any:
    """The pod as the simulation reschedules it: not bound to any node."""
    return attrs.evolve(pod, spec=attrs.evolve(pod.spec, node_name=""))


def with_taint(node: Any, taint: Taint) -> Any:
    taints = tuple(t for t in node.spec.taints if t.key != taint.key) + (taint,)
    return attrs.evolve(node, spec=attrs.evolve(node.spec, taints=taints))


def without_taint(node: Any, key: str) -> Any:
    taints = tuple(t for t in node.spec.taints if t.key != key)
    return attrs.evolve(node, spec=attrs.evolve(node.spec, taints=taints))


def to_be_deleted_taint(now: float) -> Taint:
    return Taint(key=TO_BE_DELETED_TAINT, value=str(int(now)), effect=NO_SCHEDULE)


def deletion_candidate_taint(now: float) -> Taint:
    return Taint(key=DELETION_CANDIDATE_TAINT, value=str(int(now)), effect=PREFER_NO_SCHEDULE)


class NodeDeletion:
    """One node being drained and removed, on the clock."""

    def __init__(self, ca: Any, node_name: str, pods: list[Any], daemons: list[Any]) -> None:
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


class ScaleDownMixin:
    """The planner and actuator of scale-down, as methods of the ClusterAutoscaler (which
    provides ``store``, ``clock``, ``config``, ``cp``, ``unneeded``, ``deleting``,
    ``unremovable``, ``reasons``, ``_removable_at`` and the last scale-up/down times)."""

    # -- scale-down ----------------------------------------------------------------------------
    def _scale_down(self, sched: Any, members: dict[str, list[Any]]) -> None:
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
        self._removable_at = {}
        cool_until = self._cooldown_until()
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
            self._removable_at[name] = max(self.unneeded[name] + wait, cool_until)
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
            self._start_drain(name, move, daemons)

    def _cooldown_until(self) -> float:
        cfg = self.config
        return max(self.last_scale_up + cfg.scale_down_delay_after_add,
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

    def _start_drain(self, name: str, move: list[Any], daemons: list[Any]) -> None:
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
