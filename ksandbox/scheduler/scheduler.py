"""The scheduler component: watches, queue, cycles on the clock, binding and failure.

Upstream ``pkg/scheduler/scheduler.go``, ``eventhandlers.go`` and the binding / failure
halves of ``schedule_one.go``. Watch handlers keep the cache (NodeInfos) current and turn
changes into cluster events for the queue; they never write the store. Pending pods whose
``schedulerName`` matches a profile are queued; others are left alone (as upstream: no event,
no condition — explain says why). One clock callback drains activeQ; backoff expiries arm a
timer; the 5-minute leftover flush recurs in the background.

Binding sets ``spec.nodeName`` and ``PodScheduled=True`` and records ``Scheduled``. A failure
records ``FailedScheduling`` with the FitError text, sets ``PodScheduled=False`` (reason
Unschedulable, or SchedulerError), and the nominated node preemption chose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Collection, Sequence

from ..api.core import TERMINATED_PHASES, PodCondition, PodStatus, pod_condition
from ..api.evolve import evolve, replacer
from ..apiserver.store import ADDED, DELETED, WatchEvent
from ..sim.clock import PRIORITY_SCHEDULER
from .framework.cache import SchedulerCache
from .framework.config import load_config
from .framework.interface import (
    ASSIGNED_POD,
    NODE,
    PERSISTENT_VOLUME,
    PERSISTENT_VOLUME_CLAIM,
    STORAGE_CLASS,
    ActionType,
    ClusterEvent,
)
from .framework.node_info import PodInfo, has_pod_affinity, spec_parts
from .framework.runtime import Framework, Handle, build_framework
from .framework.types import FitError
from .plugins.default_preemption import REASON_PREEMPTION_BY_SCHEDULER, pdb_views
from .queue import UNSCHEDULABLE_FLUSH_PERIOD, QueuedPodInfo, SchedulingQueue
from .schedule_one import NoNodesAvailable, SchedulingError, new_cycle_state, schedule_pod

if TYPE_CHECKING:
    from ..api.core import Node, Pod

COMPONENT = "scheduler"
POD_SCHEDULED = "PodScheduled"
REASON_UNSCHEDULABLE = "Unschedulable"
REASON_SCHEDULER_ERROR = "SchedulerError"
_new_object = object.__new__
# How many scheduling cycles one clock callback runs before yielding (see Scheduler._run).
CYCLES_PER_CALLBACK = 16
# pkg/apis/core/validation: NoteLengthLimit, the longest event message.
NOTE_LENGTH_LIMIT = 1024


def truncate_message(msg: str) -> str:
    if len(msg) <= NOTE_LENGTH_LIMIT:
        return msg
    return msg[:NOTE_LENGTH_LIMIT - 4] + " ..."


def _node_update_action(old: Any, new: Any) -> ActionType:
    """nodeSchedulingPropertiesChange: which scheduling-relevant parts of a node changed."""
    a = ActionType(0)
    if old.status.allocatable != new.status.allocatable:
        a |= ActionType.UPDATE_NODE_ALLOCATABLE
    if old.metadata.labels != new.metadata.labels:
        a |= ActionType.UPDATE_NODE_LABEL
    if old.spec.taints != new.spec.taints or old.spec.unschedulable != new.spec.unschedulable:
        a |= ActionType.UPDATE_NODE_TAINT
    if [(c.type, c.status) for c in old.status.conditions] != \
            [(c.type, c.status) for c in new.status.conditions]:
        a |= ActionType.UPDATE_NODE_CONDITION
    if old.metadata.annotations != new.metadata.annotations:
        a |= ActionType.UPDATE_NODE_ANNOTATION
    return a


def _pod_update_action(old: Any, new: Any) -> ActionType:
    a = ActionType(0)
    if old.metadata.labels != new.metadata.labels:
        a |= ActionType.UPDATE_POD_LABEL
    if old.spec.tolerations != new.spec.tolerations:
        a |= ActionType.UPDATE_POD_TOLERATION
    if any(v < old.spec.requests.get(k, 0) for k, v in new.spec.requests.items()):
        a |= ActionType.UPDATE_POD_SCALE_DOWN
    return a or ActionType.UPDATE_POD_OTHER


# evolve(status, nominated_node_name=..., conditions=...) of a PodStatus, built once: the
# status of every bind (evolve's keyword dict and key cost about as much as the build).
_BOUND_STATUS: Any = replacer(PodStatus, ("nominated_node_name", "conditions"))
assert _BOUND_STATUS is not None

class Scheduler:
    name = COMPONENT

    def __init__(self, use_fast: bool | None = None) -> None:
        self.use_fast = use_fast
        """The fast path: True always, False never (the plain reference path), None from
        ``schedule_one.FAST_PATH_MIN_NODES`` nodes up."""
        self.cp: Any = None
        self.profiles: dict[str, Framework] = {}
        self.warnings: list[str] = []
        self.next_start_node_index = 0
        self.percentage_of_nodes_to_score: int | None = None
        self._run_timer: Any = None
        self._backoff_timer: Any = None
        self._fast: dict[str, Any] = {}
        # PodScheduled=True of the pods bound at one instant (immutable: they share it), and
        # the conditions of such a pod that had none before (shared too)
        self._scheduled: PodCondition | None = None
        self._scheduled_only: tuple[PodCondition, ...] = ()
        # _pod_info's spec_parts by spec object: id -> (spec, parts, or None for a spec with
        # pod (anti-)affinity)
        self._spec_parts: dict[int, tuple[Any, Any]] = {}

    # -- wiring -------------------------------------------------------------------------------
    def start(self, cp: Any) -> None:
        self.cp = cp
        self.store = cp.store
        self.clock = cp.clock
        self.rand = cp.rand.child("scheduler")
        config = load_config(cp.configs_of("KubeSchedulerConfiguration"),
                             cp.configs_of("Policy"))
        self.warnings = list(config.warnings)
        self.percentage_of_nodes_to_score = config.percentage_of_nodes_to_score
        self.cache = SchedulerCache()
        self.handle = Handle(self.cache, self.store)
        self.profiles = {spec.scheduler_name: build_framework(spec, self.handle)
                         for spec in config.profiles}
        self.queue = SchedulingQueue(self.clock.read, config.pod_initial_backoff,
                                     config.pod_max_backoff)
        self.queue.events = {name: fwk.events() for name, fwk in self.profiles.items()}
        self._subscriptions: list[tuple[str, Callable[[WatchEvent], None]]] = [
            ("Node", self._on_node), ("Pod", self._on_pod), ("Namespace", self._on_namespace)]
        for kind, resource in (("PersistentVolumeClaim", PERSISTENT_VOLUME_CLAIM),
                               ("PersistentVolume", PERSISTENT_VOLUME),
                               ("StorageClass", STORAGE_CLASS)):
            self._subscriptions.append((kind, self._storage_handler(resource)))
        for kind, handler in self._subscriptions:
            self.store.subscribe(kind, handler)
        for node in self.store.nodes():
            self._on_node(WatchEvent(ADDED, node))
        for pod in self.store.list("Pod"):
            self._on_pod(WatchEvent(ADDED, pod))
        self.clock.call_later(UNSCHEDULABLE_FLUSH_PERIOD, self._flush_leftover,
                              PRIORITY_SCHEDULER, "scheduler-flush", background=True)

    # -- a Session's load (bulk start) ---------------------------------------------------------
    def muted_for_load(self, kinds: Collection[str] = (), objects: Sequence[Any] = ()
                       ) -> list[tuple[str, Callable[[WatchEvent], None]]]:
        """The subscriptions a Session may mute while it writes its loaded objects, when
        :meth:`load_done` afterwards leaves the scheduler exactly as hearing every write
        would: before any node or pod is stored and before any cycle ran. Then the only
        writes with an effect are nodes and pods (a namespace only drops fast paths' counts,
        and there are none yet; a volume, claim, class or node event only moves pods that
        failed a cycle or are in one, and none has run), and the load writes every node
        before any pod (Session._order), each once."""
        q = self.queue
        if self.store.count("Node") or self.store.count("Pod") or self._fast or \
                q.unschedulable or q.in_flight or q._infos or self.handle.nominated:
            return []
        return list(self._subscriptions)

    def load_done(self) -> None:
        """Catch up with the loaded nodes and pods, in the order they were written (see
        :meth:`muted_for_load`)."""
        for node in self.store.nodes():
            self._on_node(WatchEvent(ADDED, node))
        on_pod = self._on_pod
        assigned: list[Any] = []
        for pod in self.store.list("Pod"):
            if pod.spec.node_name:
                # what _on_pod does for an assigned pod's ADDED here: no queued pod has its
                # key, no nomination names it, the cluster event moves nothing (no cycle ran);
                # a terminated one is nothing to the cache (add_pods hands it to add_pod,
                # which drops it)
                assigned.append(pod)
            else:
                # the assigned pods before it are in the cache first, as one by one
                self.cache.add_pods(assigned)
                assigned.clear()
                on_pod(WatchEvent(ADDED, pod))
        self.cache.add_pods(assigned)

    def add_profiles(self, config_doc: Any = None, name: str | None = None) -> list[str]:
        """Start serving more scheduler names while the sandbox runs — what deploying a second
        scheduler (``my-scheduler``) does in a real cluster. ``config_doc`` is a
        KubeSchedulerConfiguration ConfigDocument; without one, ``name`` gets the default
        plugins. Pods already waiting for those names are queued at once. Returns the names.
        """
        from ..api.errors import KsandboxError
        from .framework.config import default_profile

        if config_doc is not None:
            specs = load_config([config_doc], []).profiles
            if name is not None and name not in {p.scheduler_name for p in specs}:
                raise KsandboxError(f'the configuration has no profile named "{name}" '
                                    f'(it has {", ".join(p.scheduler_name for p in specs)})')
        else:
            specs = [default_profile(name or "")]
        taken = [p.scheduler_name for p in specs if p.scheduler_name in self.profiles]
        if taken:
            raise KsandboxError(f'a scheduler named "{taken[0]}" is already running')
        for spec in specs:
            fwk = build_framework(spec, self.handle)
            self.profiles[spec.scheduler_name] = fwk
            self.queue.events[spec.scheduler_name] = fwk.events()
        names = [p.scheduler_name for p in specs]
        for pod in self.store.list("Pod"):
            if not pod.spec.node_name and pod.spec.scheduler_name in names:
                self._on_pod(WatchEvent(ADDED, pod))
        return names

    def fast_for(self, fwk: Framework) -> Any:
        fp = self._fast.get(fwk.scheduler_name)
        if fp is None:
            from .framework.fast import FastPath

            fp = self._fast[fwk.scheduler_name] = FastPath(self.cache, fwk)
        return fp

    # -- watch handlers -----------------------------------------------------------------------
    def _on_namespace(self, ev: WatchEvent) -> None:
        for fp in self._fast.values():
            fp.invalidate_counters()

    def _storage_handler(self, resource: str) -> Callable[[WatchEvent], None]:
        """PVC, PV and StorageClass watches: a claim bound or a volume made may let a pod
        VolumeBinding/VolumeZone turned away fit now."""
        def handle(ev: WatchEvent) -> None:
            if ev.type == DELETED:
                self._event(ClusterEvent(resource, ActionType.DELETE), ev.obj, None)
            else:
                action = ActionType.ADD if ev.type == ADDED else ActionType.UPDATE
                self._event(ClusterEvent(resource, action), ev.old, ev.obj)
        return handle

    def _on_node(self, ev: WatchEvent) -> None:
        node = ev.obj
        if ev.type == ADDED:
            self.cache.add_node(node)
            self._event(ClusterEvent(NODE, ActionType.ADD), None, node)
        elif ev.type == DELETED:
            self.cache.remove_node(node)
            self._event(ClusterEvent(NODE, ActionType.DELETE), node, None)
        else:
            old = ev.old
            self.cache.update_node(old, node)
            # What changed matters only to pods waiting on an event (_event's test): most
            # node writes are a kubelet's status posts while none waits.
            q = self.queue
            if q.unschedulable or q.in_flight:
                action = _node_update_action(old, node)
                if action:
                    self._event(ClusterEvent(NODE, action), old, node)

    def _on_pod(self, ev: WatchEvent) -> None:
        pod, old = ev.obj, ev.old
        key = f"{pod.metadata.namespace}/{pod.metadata.name}"
        if ev.type == DELETED:
            self._forget_nomination(key)
            self.queue.delete(key)
            if pod.spec.node_name:
                self.cache.remove_pod(pod, key)
                self._event(ClusterEvent(ASSIGNED_POD, ActionType.DELETE), pod, None)
            return
        if pod.spec.node_name:
            # (is_terminated, read as its phases: a property is a call from C per write)
            was_assigned = old is not None and bool(old.spec.node_name) and \
                old.status.phase not in TERMINATED_PHASES
            q = self.queue._infos.get(key)
            # The queue's PodInfo of the pod just bound: the cache reuses its parsed terms.
            parsed = q.pi if q is not None and not was_assigned else None
            if q is not None and key not in self.queue.in_flight:
                self.queue.done(key)
            if self.handle.nominated:   # (else nothing to forget: no call)
                self._forget_nomination(key)
            if pod.status.phase in TERMINATED_PHASES:
                if was_assigned:
                    self.cache.remove_pod(pod, key)
                    self._event(ClusterEvent(ASSIGNED_POD, ActionType.DELETE), old, None)
                return
            self.cache.add_pod(pod, parsed, key)
            if not was_assigned:
                if not self._own_bind_unheard(key):
                    self._event(ClusterEvent(ASSIGNED_POD, ActionType.ADD), None, pod)
            elif old.spec is not pod.spec or (old.metadata.labels is not pod.metadata.labels
                                              and old.metadata.labels != pod.metadata.labels):
                self._event(ClusterEvent(ASSIGNED_POD, _pod_update_action(old, pod)), old, pod)
            return
        # An unscheduled pod.
        if pod.status.phase in TERMINATED_PHASES or pod.metadata.deletion_timestamp is not None:
            self.queue.delete(key)
            self._forget_nomination(key)
            return
        profile = pod.spec.scheduler_name
        if profile not in self.profiles:
            return
        if ev.type == ADDED or key not in self.queue._infos and key not in self.queue.in_flight:
            pi = self._pod_info(pod, key)
            self._track_nomination(pi)
            self.queue.add(pi, profile)
            self._kick()
        elif old.spec is not pod.spec and old.spec != pod.spec or \
                old.metadata.labels != pod.metadata.labels:
            pi = PodInfo(pod)
            self._track_nomination(pi)
            self.queue.update(pi)
            self._kick()
        else:
            # A status write (the scheduler's own PodScheduled=False, a nomination): the
            # parsed spec is the queued one's.
            pi = self._status_only(key, old, pod)
            self._track_nomination(pi)
            self.queue.update_info(pi)

    SPEC_PARTS_KEPT = 256

    def _pod_info(self, pod: Pod, key: str) -> PodInfo:
        """``PodInfo(pod, key)``, its spec's parts worked out once per spec object (the
        pending pods of a template share their spec; the parts are immutable and shared, as
        the cache's add_pods shares them)."""
        spec = pod.spec
        hit = self._spec_parts.get(id(spec))
        if hit is None or hit[0] is not spec:
            if len(self._spec_parts) >= self.SPEC_PARTS_KEPT:
                self._spec_parts.clear()
            # The entry holds the spec, so its id is not reused while the entry stands.
            hit = self._spec_parts[id(spec)] = (
                spec, None if has_pod_affinity(spec) else spec_parts(spec))
        parts = hit[1]
        if parts is None:
            return PodInfo(pod, key)
        # PodInfo.plain written out (a staticmethod's lookup and frame less a pod)
        pi = _new_object(PodInfo)
        pi._fill(pod, key, parts)
        return pi

    def _own_bind_unheard(self, key: str) -> bool:
        """Whether the assignment of pod ``key`` is this cycle's own bind and no one would hear
        its AssignedPod/Add event: the one pod in flight is this one (schedule_one is not
        re-entered) and no pod is parked waiting on an event. The event would then only be
        kept among the events seen while this pod was in flight, which its ``queue.done``
        right after the bind drops, unread (a bound pod is never requeued)."""
        q = self.queue
        return not q.unschedulable and len(q.in_flight) == 1 and key in q.in_flight

    def _status_only(self, key: str, old: Pod, pod: Pod) -> PodInfo:
        """The PodInfo of ``pod`` after a write that changed neither its spec nor its labels
        (nor its deletion): the queued PodInfo's parsed terms are shared when it was read
        from ``old``; else it is parsed afresh."""
        q = self.queue._infos.get(key)
        if q is not None and q.pi.pod is old and \
                old.metadata.deletion_timestamp == pod.metadata.deletion_timestamp:
            return q.pi.with_pod(pod)
        return PodInfo(pod)

    def _event(self, ev: ClusterEvent, old: Any, new: Any) -> None:
        if self.queue.unschedulable or self.queue.in_flight:
            if self.queue.move_on_event(ev, old, new):
                self._kick()
                self._arm_backoff()

    # -- nominations --------------------------------------------------------------------------
    def _track_nomination(self, pi: PodInfo) -> None:
        self._forget_nomination(pi.key)
        nnn = pi.pod.status.nominated_node_name
        if nnn:
            self.handle.nominated.setdefault(nnn, {})[pi.key] = pi

    def _forget_nomination(self, key: str) -> None:
        if not self.handle.nominated:
            return   # nothing nominated (most pods' every write: no copy of an empty table)
        for node, pods in list(self.handle.nominated.items()):
            if pods.pop(key, None) is not None and not pods:
                del self.handle.nominated[node]

    # -- the loop -----------------------------------------------------------------------------
    def _kick(self) -> None:
        if self._run_timer is None and self.queue.has_active():
            self._run_timer = self.clock.call_soon(self._run, PRIORITY_SCHEDULER,
                                                   "scheduler-cycle")

    def _run(self) -> None:
        """Schedule up to CYCLES_PER_CALLBACK pods, then yield to the clock.

        Upstream's scheduleOne loop takes one pod at a time while everything else keeps
        running; bounding the work per callback keeps that interleaving (a controller's sync
        triggered by a bind runs between batches) and keeps one clock callback short, so the
        TUI's pacer never stalls behind a burst of hundreds of pods.
        """
        self._run_timer = None
        self.queue.flush_backoff_completed()
        for _ in range(CYCLES_PER_CALLBACK):
            q = self.queue.pop()
            if q is None:
                break
            self.schedule_one(q)
        else:
            self._kick()
        self._arm_backoff()

    def _arm_backoff(self) -> None:
        t = self.queue.next_backoff_expiry()
        if t is None:
            return
        timer = self._backoff_timer
        if timer is not None and not timer.done and not timer.cancelled and timer.when <= t:
            return
        if timer is not None:
            timer.cancel()
        self._backoff_timer = self.clock.call_at(t, self._on_backoff, PRIORITY_SCHEDULER,
                                                 "scheduler-backoff")

    def _on_backoff(self) -> None:
        self._backoff_timer = None
        self.queue.flush_backoff_completed()
        self._kick()
        self._arm_backoff()

    def _flush_leftover(self) -> None:
        self.queue.flush_unschedulable_leftover()
        self._kick()
        self._arm_backoff()
        self.clock.call_later(UNSCHEDULABLE_FLUSH_PERIOD, self._flush_leftover,
                              PRIORITY_SCHEDULER, "scheduler-flush", background=True)

    # -- one pod ------------------------------------------------------------------------------
    def schedule_one(self, q: QueuedPodInfo) -> None:
        pod = self.store.get("Pod", q.pi.pod.metadata.name, q.pi.namespace)
        if pod is None or pod.spec.node_name or pod.metadata.deletion_timestamp is not None:
            self.queue.done(q.key)
            return
        fwk = self.profiles.get(pod.spec.scheduler_name)
        if fwk is None:
            self.queue.done(q.key)
            return
        state, _ = new_cycle_state(pod, q.pi if q.pi.pod is pod else None)
        try:
            res = schedule_pod(self, fwk, state, pod)
        except FitError as fe:
            nominated = None
            if fwk.post_filter_plugins:
                result, st = fwk.run_post_filter(state, pod, fe.diagnosis.node_to_status,
                                                 PreemptionContext(self, fwk, dry_run=False))
                fe.diagnosis.post_filter_msg = st.message() if st is not None else ""
                nominated = result
            self._fail(q, pod, fwk, str(fe), True, fe.diagnosis.unschedulable_plugins,
                       nominated)
            return
        except NoNodesAvailable as exc:
            self._fail(q, pod, fwk, str(exc), True, set(), "")
            return
        except SchedulingError as exc:
            self._fail(q, pod, fwk, str(exc), False, set(), "")
            return
        if fwk.pre_bind_plugins:
            st = fwk.run_pre_bind(state, pod, res.host)
            if st is not None:
                self._fail(q, pod, fwk, st.message(), False, {st.plugin}, "")
                return
            pod = self.store.get("Pod", pod.metadata.name, pod.metadata.namespace) or pod
        self._bind(q, pod, fwk, res.host)

    def _bind(self, q: QueuedPodInfo, pod: Pod, fwk: Framework, host: str) -> None:
        now = self.clock.now
        cond = self._scheduled
        if cond is None or cond.last_transition_time is not now:
            cond = self._scheduled = PodCondition(type=POD_SCHEDULED, status="True",
                                                  last_transition_time=now)
            self._scheduled_only = (cond,)
        old = pod.status
        conditions = old.conditions
        # a pod with no condition yet (most): the shared tuple _set_condition would build
        conditions = _set_condition(conditions, cond, now) if conditions \
            else self._scheduled_only
        status = _BOUND_STATUS(old, "", conditions) if type(old) is PodStatus \
            else evolve(old, nominated_node_name="", conditions=conditions)
        # The binding subresource: only nodeName and the condition change.
        bound = self.store.bind(pod, host, status)
        self.queue.done(q.key)
        self.store.record_event(bound, "Normal", "Scheduled",
                                f"Successfully assigned {pod.metadata.namespace}/"
                                f"{pod.metadata.name} to {host}", fwk.scheduler_name)

    def _fail(self, q: QueuedPodInfo, pod: Pod, fwk: Framework, message: str, rejected: bool,
              plugins: set[str], nominated: str | None) -> None:
        q.unschedulable_plugins = set(plugins)
        self.queue.add_unschedulable_if_not_present(q, rejected)
        self._arm_backoff()
        now = self.clock.now
        msg = truncate_message(message)
        reason = REASON_UNSCHEDULABLE if rejected else REASON_SCHEDULER_ERROR
        self.store.record_event(pod, "Warning", "FailedScheduling", msg, fwk.scheduler_name)
        cond = pod_condition(pod, POD_SCHEDULED, "False", reason, message)
        conditions = _set_condition(pod.status.conditions, cond, now)
        nnn = pod.status.nominated_node_name if nominated is None else nominated
        if conditions is pod.status.conditions and nnn == pod.status.nominated_node_name:
            return
        updated = self.store.update_status(evolve(pod, status=evolve(
            pod.status, conditions=conditions, nominated_node_name=nnn)))
        self._track_nomination(q.pi if q.pi.pod is updated else PodInfo(updated))

    # -- preemption ---------------------------------------------------------------------------
    def preempt_victim(self, victim: Any, preemptor: Any, node: str, fwk: Framework) -> None:
        cur = self.store.get("Pod", victim.metadata.name, victim.metadata.namespace)
        if cur is None:
            return
        cond = pod_condition(cur, "DisruptionTarget", "True", REASON_PREEMPTION_BY_SCHEDULER,
                             f"{fwk.scheduler_name}: preempting to accommodate a higher "
                             "priority pod")
        now = self.clock.now
        cur = self.store.update_status(evolve(cur, status=evolve(
            cur.status, conditions=_set_condition(cur.status.conditions, cond, now))))
        self.store.delete("Pod", cur.metadata.name, cur.metadata.namespace)
        self.store.record_event(cur, "Normal", "Preempted",
                                f"Preempted by pod {preemptor.metadata.uid} on node {node}",
                                fwk.scheduler_name)

    def clear_lower_nominations(self, pod: Pod, node: str) -> None:
        prio = pod.spec.priority or 0
        for pi in self.handle.nominated_pods_for(node):
            if pi.priority >= prio:
                continue
            cur = self.store.get("Pod", pi.pod.metadata.name, pi.namespace)
            self._forget_nomination(pi.key)
            if cur is not None and cur.status.nominated_node_name:
                self.store.update_status(evolve(cur, status=evolve(
                    cur.status, nominated_node_name="")))
            q = self.queue._infos.get(pi.key)
            if q is not None and pi.key in self.queue.unschedulable:
                self.queue._to_active(q)
        self._kick()

    # -- fit checks for simulators (the cluster autoscaler) ----------------------------------
    def fit_reasons(self, pod: Pod, node: Node, extra_pods: Any = ()) -> tuple[str, ...]:
        """Why ``pod`` would not pass the PreFilter/Filter plugins of its profile on ``node``
        (a node name, or a template Node object not in the cluster) with ``extra_pods`` placed
        there too; ``()`` when it fits. Read-only (see ``fit_check.py``)."""
        from .fit_check import fit_reasons

        return fit_reasons(self, pod, node, extra_pods)

    def would_fit(self, pod: Pod, node: Node, extra_pods: Any = ()) -> bool:
        return not self.fit_reasons(pod, node, extra_pods)

    def first_fit(self, pod: Pod, node_names: Any, extra_pods: Any = None) -> str | None:
        """The first of ``node_names`` the pod would fit on (``extra_pods``: name -> pods the
        simulation has placed there), or None. Read-only."""
        from .fit_check import first_fit

        return first_fit(self, pod, node_names, extra_pods)


class PreemptionContext:
    """What DefaultPreemption needs from the scheduler; a dry run evicts nothing and draws
    from a copy of the random source."""

    def __init__(self, sched: Scheduler, fwk: Framework, dry_run: bool, rand: Any = None) -> None:
        self.sched = sched
        self.fwk = fwk
        self.dry_run = dry_run
        self.nodes = sched.cache.node_list()
        self.rand = rand if rand is not None else sched.rand
        self.chosen: Any = None

    def pdbs(self) -> list:
        return pdb_views(self.sched.store)

    def prepare_candidate(self, candidate: Any, pod: Pod) -> None:
        self.chosen = candidate
        if self.dry_run:
            return
        for v in candidate.victims:
            self.sched.preempt_victim(v.pod, pod, candidate.name, self.fwk)
        self.sched.clear_lower_nominations(pod, candidate.name)


def _set_condition(conditions: tuple, cond: PodCondition, now: float) -> tuple:
    """podutil.UpdatePodCondition: replace the condition of that type; keep the transition
    time when the status did not change; the same tuple back when nothing changed."""
    out = []
    found = False
    for c in conditions:
        if c.type != cond.type:
            out.append(c)
            continue
        found = True
        if (c.status, c.reason, c.message, c.observed_generation) == \
                (cond.status, cond.reason, cond.message, cond.observed_generation):
            return conditions
        t = c.last_transition_time if c.status == cond.status else now
        out.append(_at(cond, t))
    if not found:
        out.append(_at(cond, now))
    return tuple(out)


def _at(cond: PodCondition, t: Any) -> PodCondition:
    """evolve(cond, last_transition_time=t); ``cond`` itself when it holds that very time
    already (the bind's condition is made at ``now``: no second copy of it)."""
    return cond if cond.last_transition_time is t else evolve(cond, last_transition_time=t)
