"""The kubelet's pod workers: ``pkg/kubelet/kubelet.go`` (HandlePodAdditions, syncPod,
killPod), ``pkg/kubelet/lifecycle/predicate.go`` (admission) and
``pkg/kubelet/pod_workers.go``: the :class:`PodWorkers` a
:class:`~ksandbox.kubelet.kubelet.Kubelet` owns.

A queued pod key is reconciled with the API: admitted (or rejected with upstream's reason),
started after a seeded delay, stopped with its grace period when deleted; a static pod runs
here too, its mirror kept in the API by the kubelet's :class:`~.static.StaticPods`. The pod
workers own the pods' exits (:class:`~.pod_completion.PodCompletion`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, AbstractSet, Any, Callable

from ..api.codec import FrozenDict
from ..api.core import (
    FAILED,
    MIRROR_ANNOTATION,
    RUNNING,
    TERMINATED_PHASES,
    PodCondition,
    PodStatus,
    node_allocatable_amounts,
    spec_host_ports,
    spec_requests,
)
from ..api.evolve import by_identity, evolve, replacer
from ..sim.clock import PRIORITY_KUBELET, Wakeup
from . import eviction as ev
from .container_restart import ContainerRestarts, kept_instances
from .generation import kubelet_generation, post_status
from .images import ImageManager
from .pod_completion import PodCompletion, running_since, waiting_containers
from .predicates import fit_failures, fit_order, spec_failures
from .static import mirror_key

if TYPE_CHECKING:
    from ..api.core import Node, Pod
    from .kubelet import Kubelet
    from .node_status import NodeStatusManager
    from .static import StaticPods

COMPONENT = "kubelet"
# Start delay bounds (seconds): pulling a cached image and starting containers.
START_DELAY = (1.0, 3.0)
_PRESSURE_CONDITION = {kind: cond for kind, (cond, _s, _r) in ev.PRESSURE_KINDS.items()}


# start time -> the one float object used for it (PodWorkers.schedule_start); floats are
# immutable and equal values compare equal, so sharing them changes nothing but memory
_START_TIMES: dict[float, float] = {}


class _PodState:
    """What the kubelet knows of one pod it runs.

    One per pod a kubelet holds (150,000 after a big load), so what most pods never have —
    host ports, a stop timer, an eviction in progress — lives in a :class:`_Rare` made when
    the first of them is set (the properties below), not in three slots of every pod (96
    bytes a pod instead of 120 with the unused ``static`` flag)."""

    __slots__ = ("uid", "admitted_at", "started", "start_timer", "requests", "pod_ip",
                 "running_since", "_rare")

    def __init__(self, uid: str, admitted_at: float, requests: Any,
                 host_ports: tuple = ()) -> None:
        self._rare: _Rare | None = _Rare(host_ports) if host_ports else None
        self.uid = uid
        self.admitted_at = admitted_at
        self.started = False
        self.start_timer: Any = None
        self.requests = requests
        # The pod's sandbox IP and when its containers started: a static pod's mirror that
        # is deleted and recreated shows the same running pod (its IP, its times).
        self.pod_ip = ""
        # A float (simulated seconds), or an adopted pod's exported RFC 3339 string.
        self.running_since: float | str | None = None

    def _more(self) -> _Rare:
        rare = self._rare
        if rare is None:
            rare = self._rare = _Rare(())
        return rare

    @property
    def host_ports(self) -> tuple:
        rare = self._rare
        return rare.host_ports if rare is not None else ()

    @property
    def stop_timer(self) -> Any:
        rare = self._rare
        return rare.stop_timer if rare is not None else None

    @stop_timer.setter
    def stop_timer(self, timer: Any) -> None:
        if timer is not None or self._rare is not None:
            self._more().stop_timer = timer

    @property
    def pulls(self) -> tuple[str, ...]:
        """The containers whose image pull began at admission (Pulling recorded then)."""
        rare = self._rare
        return rare.pulls if rare is not None else ()

    @pulls.setter
    def pulls(self, names: tuple[str, ...]) -> None:
        rare = self._rare
        if names:
            self._more().pulls = names
        elif rare is not None:
            rare.pulls = ()
            if not rare.host_ports and rare.stop_timer is None and not rare.evicting:
                self._rare = None   # a pull's names were all it held

    @property
    def evicting(self) -> bool:
        rare = self._rare
        return rare.evicting if rare is not None else False

    @evicting.setter
    def evicting(self, value: bool) -> None:
        if value or self._rare is not None:
            self._more().evicting = value


class _Rare:
    """A _PodState's seldom-set part."""

    __slots__ = ("host_ports", "stop_timer", "evicting", "pulls")

    def __init__(self, host_ports: tuple) -> None:
        self.host_ports = host_ports
        self.stop_timer: Any = None
        self.evicting = False
        self.pulls: tuple[str, ...] = ()


# What admitting a pod reads of its spec in a pass, given the pass's Node (PodWorkers.sync):
# (the spec, its requests, its host ports, their fit_order, the Node's allocatable amounts,
# its spec_failures on the Node — None when it asks for host ports: those depend on the pods
# held — or when the Node is gone).
_SpecFacts = tuple[Any, Any, tuple, tuple, Any, "tuple[tuple[str, str], ...] | None"]


def _spec_facts(spec: Any, node: Node | None, specs: dict[int, _SpecFacts]) -> _SpecFacts:
    """``spec``'s facts, remembered in ``specs`` (one pass's) by its identity (the entry
    holds the spec: its id is not reused while the pass runs)."""
    facts = specs.get(id(spec))
    if facts is not None and facts[0] is spec:
        return facts
    requests, host_ports = spec_requests(spec), spec_host_ports(spec)
    if node is None:
        alloc, asks = None, None
    else:
        alloc = node_allocatable_amounts(node)
        asks = None if host_ports else tuple(spec_failures(spec, node, ()))
    facts = specs[id(spec)] = (spec, requests, host_ports, by_identity(fit_order, requests),
                               alloc, asks)
    return facts


# evolve(status, phase=..., ..., extra=...) of a PodStatus, built once: every pod's Running
# status (evolve's keyword dict and key cost about as much as the build).
_RUNNING_STATUS: Any = replacer(PodStatus, ("observed_generation", "phase", "conditions",
                                            "start_time", "host_ip", "pod_ip", "reason",
                                            "message", "extra"))
assert _RUNNING_STATUS is not None

class PodWorkers:
    """The pods ``kubelet`` runs: their states, the resources they hold, the sync queue.
    ``held`` tells which pressure conditions the eviction manager holds (its admit handler)."""

    start_delay = START_DELAY

    def __init__(self, kubelet: Kubelet, node_status: NodeStatusManager,
                 static_pods: StaticPods, held: Callable[[], AbstractSet[str]]) -> None:
        self.kubelet = kubelet
        self.store = kubelet.store
        self.clock = kubelet.clock
        self.rand = kubelet.rand
        self.name = kubelet.name
        self.node_status = node_status
        self.static_pods = static_pods
        self.held = held
        self.pods: dict[tuple[str, str], _PodState] = {}
        self.used: dict[str, int] = {}
        self.completion = PodCompletion(kubelet, self)
        self.restarts = ContainerRestarts(self)   # containers whose definition changed
        self.images = ImageManager()   # images this node has pulled (image_manager.go)
        self._queue: dict[tuple[str, str], None] = {}
        self._sync_timer: Any = None
        # the pass, while scheduled: one Wakeup scheduled again each time (no Timer and no
        # label string built for each of the ~3 passes a rolling pod's life brings); stop()
        # cancels it, and a stopped kubelet never schedules it again
        self._sync_wakeup = Wakeup(self.sync, f"kubelet/{self.name}/sync", self.clock)
        # The IPs adopted pods hold (an export's): the node's allocator skips them.
        # (the empty frozenset until one is: ImageManager.pulled)
        self.adopted_ips: AbstractSet[str] = frozenset()
        # one label string per kubelet, not one per pod start timer (150,000 loaded pods)
        self._start_label = f"kubelet/{self.name}/start"
        # ... and one bound method: a start timer calls it with the pod's key (clock arg)
        self._start_pod = self._start
        # ... and for the stop timers, called with (key, uid) (no closure a kill)
        self._kill_label = f"kubelet/{self.name}/kill"
        self._finish_kill_arg = self._finish_kill
        # The store's live Pod and Node tables (Store.table: the same dicts for the store's
        # life) and this node's key in the Node table: store.get's lookups without its frame
        # (a pod key is the Pod table's (namespace, name) key itself), ~5 a pod's life
        self._pod_table = self.store.table("Pod")
        self._node_table = self.store.table("Node")
        self._node_key = ("", self.name)

    def enqueue(self, key: tuple[str, str]) -> None:
        kl = self.kubelet
        if kl.failed or kl.runtime_down or kl.stopped:   # (kl.halted, without its frame)
            return
        self._queue[key] = None
        if self._sync_timer is None:   # schedule_sync's (the queue holds the key)
            clock = self.clock
            self._sync_timer = clock.wake(self._sync_wakeup, clock.now, PRIORITY_KUBELET)

    def enqueue_all(self, keys: list[tuple[str, str]]) -> None:
        """``enqueue(key)`` of each key in turn (a load's pods of this node): the first
        settles whether this kubelet takes keys (halted or stopped: none) and schedules the
        sync; the others, with nothing run in between, only join the queue."""
        if not keys:
            return
        self.enqueue(keys[0])
        if self._sync_timer is not None:
            self._queue.update(dict.fromkeys(keys))
        else:
            for key in keys[1:]:
                self.enqueue(key)

    def queue(self, key: tuple[str, str]) -> None:
        """Queue ``key`` for the next sync, without scheduling it (register, recover)."""
        self._queue[key] = None

    def schedule_sync(self) -> None:
        if self._sync_timer is None and self._queue:
            clock = self.clock
            self._sync_timer = clock.wake(self._sync_wakeup, clock.now, PRIORITY_KUBELET)

    def sync(self) -> None:
        """The pod workers: reconcile every queued pod with what the API holds now."""
        self._sync_timer = None
        kl = self.kubelet
        if kl.failed or kl.runtime_down or kl.stopped or not kl.registered:   # (halted: inline)
            return
        # What admitting a pod reads, read once for the whole pass (a load's first pass
        # admits the node's every pod): the Node and the pressure conditions held. Nothing a
        # pass does writes a Node or changes what the eviction manager holds — it writes
        # pods and records events, and watch handlers never write (test_pod_workers_pass).
        node = self._node_table.get(self._node_key)   # (store.get's)
        held = self.held()
        now = self.clock.now
        # ... and what it reads of each pod spec (_spec_facts): pods of one template on one
        # node share their spec (the API server's admitted_spec)
        specs: dict[int, _SpecFacts] = {}
        while self._queue:
            key = next(iter(self._queue))
            del self._queue[key]
            self._sync_pod(key, node, held, now, specs)
        # emptied, the dict keeps its table (1.2 KB for a node's 30 loaded pods) until it
        # grows again: clear() gives it back (WorkQueue.process_next)
        self._queue.clear()

    def stop(self) -> None:
        """The node is gone: cancel every pod timer and the pending sync."""
        for key, st in self.pods.items():
            if st.start_timer is not None:
                st.start_timer.cancel(self._start_pod, key)
            if st.stop_timer is not None:
                st.stop_timer.cancel()
        if self._sync_timer is not None:
            self._sync_timer.cancel()
        self.restarts.freeze()

    def freeze(self) -> None:
        """The kubelet went silent or its runtime down: no pod starts or stops until it
        recovers (running containers stay as they are)."""
        for key, st in self.pods.items():
            if st.start_timer is not None:
                st.start_timer.cancel(self._start_pod, key)
                st.start_timer = None
            if st.stop_timer is not None:
                st.stop_timer.cancel()
                st.stop_timer = None
        self.restarts.freeze()

    def resync(self) -> None:
        """After a recovery: re-post what drifted, restart what never started, stop what was
        deleted meanwhile (with its full grace), and queue every pod of the node."""
        now = self.clock.now
        self.completion.resume()   # the exits and back-off ends that came meanwhile
        for key, st in list(self.pods.items()):
            pod = self.store.get("Pod", key[1], key[0])
            if pod is None:
                continue
            if st.started and not pod.is_terminated and pod.metadata.deletion_timestamp is None:
                if _ready_status(pod) != "True" and not waiting_containers(pod):
                    self.write_running(pod, st)
            elif not st.started and pod.metadata.deletion_timestamp is None:
                self.schedule_start(key, st)
        for pod in self.store.pods_on_node(self.name):
            key = mirror_key(pod)
            state = self.pods.get(key)
            if pod.metadata.deletion_timestamp is not None and state is not None:
                # The deletion happened while we were away: stop it now, with its full grace.
                grace = pod.metadata.deletion_grace_period_seconds or 0
                self.kill(key, pod, state, now + grace)
            else:
                self._queue[key] = None
        for key in self.static_pods:
            self._queue[key] = None
        self.schedule_sync()

    def _sync_pod(self, key: tuple[str, str], node: Node | None, held: AbstractSet[str],
                  now: float, specs: dict[int, _SpecFacts]) -> None:
        """Reconcile one queued pod; ``node``, ``held``, ``now``, ``specs``: the pass's
        (sync)."""
        pod = self._pod_table.get(key)   # (store.get's)
        st = self.pods.get(key)
        if key in self.static_pods.pods:
            self.sync_mirror(key, pod)
            if st is None:
                self._admit(key, self.static_pods[key], True, node, held, now, specs)
            if self.restarts.flagged:
                # a static pod runs its manifest: an update of its mirror changes nothing
                self.restarts.flagged.pop(key, None)
            return
        if pod is None or pod.spec.node_name != self.name:
            if st is not None:
                self.forget(key, st)
            return
        if st is not None and st.uid != pod.metadata.uid:
            self.forget(key, st)
            st = None
        if pod.is_mirror and st is None:
            # A mirror pod in the API with no manifest here (a loaded export): run it as ours.
            static = self.static_pods.adopt(key, pod)
            if pod.status.phase == RUNNING:
                self._adopt(key, pod)   # and its containers are running here
            else:
                self._admit(key, static, True, node, held, now, specs)
            self.sync_mirror(key, pod)
            return
        if pod.status.phase in TERMINATED_PHASES:   # (is_terminated: a property is a call from C)
            if st is not None:
                self.forget(key, st)
            if pod.metadata.deletion_timestamp is not None:
                self.store.remove("Pod", key[1], key[0])
            return
        if pod.metadata.deletion_timestamp is not None:
            if st is None:
                self.store.remove("Pod", key[1], key[0])
            else:
                rare = st._rare
                if rare is None or rare.stop_timer is None:   # (st.stop_timer is None)
                    self.kill(key, pod, st, pod.metadata.deletion_timestamp)
            return
        if st is None:
            if pod.status.phase == RUNNING:
                self._adopt(key, pod)
            else:
                self._admit(key, pod, False, node, held, now, specs)
        elif st.started:
            # A spec update moved the generation of a running pod: the next status the kubelet
            # posts says it saw it (not that it acted on it: the KEP's note). Posted when
            # the generation moved past what the status holds: a pod loaded Running from an
            # older cluster's export (no observedGeneration, generation 1) is not written
            # for that alone; a mirror pod's generation for the kubelet is 0.
            posted, gen = pod.status.observed_generation, kubelet_generation(pod)
            if posted != gen and (posted or gen > 1):
                pod = post_status(self.store, pod, pod.status)
            if key in self.restarts.flagged:
                # an update changed a container's image: it is restarted (container_restart)
                self.restarts.sync(key, pod)

    def forget(self, key: tuple[str, str], st: _PodState) -> None:
        self.completion.cancel_exit(key)
        restarts = self.restarts
        if restarts.flagged or restarts.under_way:
            restarts.forget(key)
        if st.start_timer is not None:
            st.start_timer.cancel(self._start_pod, key)
        rare = st._rare
        if rare is not None and rare.stop_timer is not None:   # (st.stop_timer)
            rare.stop_timer.cancel()
        del self.pods[key]
        if isinstance(self.adopted_ips, set):
            self.adopted_ips.discard(st.pod_ip)
        self._release(st)

    def _release(self, st: _PodState) -> None:
        for name, amount in st.requests.items():
            self.used[name] = self.used.get(name, 0) - amount
        self.used["pods"] = self.used.get("pods", 0) - 1

    # -- static pods ----------------------------------------------------------------------
    def static_pod_changed(self, key: tuple[str, str], replaced: bool) -> None:
        """A manifest was put (``replaced``: over an older one): the old pod's containers go
        and its mirror with them; the new manifest is admitted and started afresh."""
        st = self.pods.get(key)
        if replaced and st is not None:
            self.forget(key, st)
            if self.store.get("Pod", key[1], key[0]) is not None:
                self.store.remove("Pod", key[1], key[0])
        self._queue[key] = None
        self.schedule_sync()

    def static_pod_removed(self, key: tuple[str, str]) -> None:
        """A manifest was removed: the mirror is deleted (gracefully: the worker stops the
        containers within the pod's grace period, then the mirror goes)."""
        mirror = self.store.get("Pod", key[1], key[0])
        if mirror is not None and mirror.metadata.deletion_timestamp is None:
            self.store.delete("Pod", key[1], key[0])
        elif mirror is None and key in self.pods:
            self.forget(key, self.pods[key])
        self._queue[key] = None
        self.schedule_sync()

    def sync_mirror(self, key: tuple[str, str], pod: Pod) -> None:
        """Keep a static pod's mirror in the API; a fresh mirror of a running static pod gets
        its status at once (the static pod never stopped)."""
        st = self.pods.get(key)
        created = self.static_pods.sync_mirror(key, pod)
        if created is not None and st is not None:
            st.uid = created.metadata.uid
            if st.started:
                self.write_running(created, st)

    # -- admission and start --------------------------------------------------------------
    def _admit(self, key: tuple[str, str], pod: Pod, static: bool, node: Node | None,
               held: AbstractSet[str], now: float, specs: dict[int, _SpecFacts]) -> None:
        facts = _spec_facts(pod.spec, node, specs)
        reason, message = self._admission_failure(pod, node, held, facts) \
            if not static else ("", "")
        if reason:
            self._reject(pod, reason, message)
            return
        st = _PodState(pod.metadata.uid, now, facts[1], facts[2])
        if static:
            api_pod = self.store.get("Pod", key[1], key[0])
            st.uid = api_pod.metadata.uid if api_pod is not None else ""
        self._hold(key, st)
        self._begin_pulls(pod, st, node, self.schedule_start(key, st))

    def _begin_pulls(self, pod: Pod, st: _PodState, node: Node | None, start_at: float
                     ) -> None:
        """The pulls begin with the pod's worker: ``Pulling`` is recorded now, at admission,
        and ``Pulled`` at the start, ``start_at`` (image_manager.go records one as the pull
        begins and the other as it ends)."""
        images = self.images
        pulls = [c for c in pod.spec.containers if images.must_pull(c, node, start_at)]
        if pulls:
            # st.pulls = the names (its setter's, inline: most pods of a rollout pull)
            rare = st._rare
            if rare is None:
                rare = st._rare = _Rare(())
            rare.pulls = (pulls[0].name,) if len(pulls) == 1 else tuple(c.name for c in pulls)
            for c in pulls:
                images.begin_pull(c, start_at)
                type_, reason, message = images.pulling(c)
                self.store.record_event(pod, type_, reason, message, COMPONENT)

    def _hold(self, key: tuple[str, str], st: _PodState) -> None:
        self.pods[key] = st
        for name, amount in st.requests.items():
            self.used[name] = self.used.get(name, 0) + amount
        self.used["pods"] = self.used.get("pods", 0) + 1

    def _adopt(self, key: tuple[str, str], pod: Pod) -> None:
        """A pod the API shows Running on this node when the kubelet first sees it (a loaded
        export): its containers are already running here, so the pod worker takes it as it
        is — no admission, no image pull, no Created/Started events, the status untouched
        (its IP, start times, readiness, restart counts). Upstream: a restarted kubelet's
        syncPod finds the pod's sandbox and containers in the runtime and starts nothing."""
        st = _PodState(pod.metadata.uid, self.clock.now, pod.spec.requests,
                       pod.spec.host_ports)
        st.started = True
        st.pod_ip = pod.status.pod_ip
        st.running_since = _started_at(pod)
        if st.pod_ip and not pod.spec.host_network:
            if not isinstance(self.adopted_ips, set):
                self.adopted_ips = set(self.adopted_ips)
            self.adopted_ips.add(st.pod_ip)
        self._hold(key, st)
        # The images the containers run are on the node (the image store outlived the
        # kubelet): a later start with IfNotPresent finds them.
        self.images.mark_pulled(c.image for c in pod.spec.containers)
        self.completion.schedule_exit(key, pod)

    def _admission_failure(self, pod: Pod, node: Node | None, held: AbstractSet[str],
                           facts: _SpecFacts) -> tuple[str, str]:
        """canAdmitPod: the eviction manager's pressure check (``held``: the conditions it
        holds), then GeneralPredicates (``predicates.py``) against ``node`` (this kubelet's
        Node as stored); the first failure is the rejection. A critical pod short only of
        resources is admitted (upstream's critical-pod admission makes room by preemption)."""
        if held:   # no pressure held: the eviction manager admits every pod
            msg = ev.admission_rejection({_PRESSURE_CONDITION[k] for k in held}, pod)
            if msg is not None:
                return ev.REASON_EVICTED, msg
        if node is None:
            return "", ""
        # generalFilter: the resources, then what the spec asks of the node — the same for
        # every pod of the spec in this pass (_spec_facts) unless it asks for host ports,
        # which fit only what the others hold (ports_fit): their ports are gathered then
        # (every pod of the node, for each pod)
        _spec, requests, _host_ports, order, alloc, asks = facts
        failures = fit_failures(requests, order, alloc, self.used)
        if asks is None:
            used_ports = [hp for st in self.pods.values() for hp in st.host_ports]
            failures.extend(spec_failures(pod.spec, node, used_ports))
        elif asks:
            failures.extend(asks)
        if not failures:
            return "", ""
        if ev.is_critical(pod):
            failures = [f for f in failures if not f[0].startswith("OutOf")]
        return failures[0] if failures else ("", "")

    def _reject(self, pod: Pod, reason: str, message: str) -> None:
        """rejectPod: a Warning event and the pod Failed with "Pod was rejected: …"."""
        self.store.record_event(pod, "Warning", reason, message, COMPONENT)
        status = evolve(pod.status, phase=FAILED, reason=reason,
                        message=f"Pod was rejected: {message}")
        post_status(self.store, pod, status)

    def schedule_start(self, key: tuple[str, str], st: _PodState) -> float:
        """Arm the pod's start after the seeded start delay; returns when it starts."""
        lo, hi = START_DELAY
        delay = round(self.rand.uniform(lo, hi), 1)
        # call_later's time (now + delay), as one float per value: delays are tenths of a
        # second, so the 150,000 pods a load starts share ~20 start times (24 bytes per pod
        # waiting to start)
        when = self.clock.now + delay
        when = _START_TIMES.setdefault(when, when)
        if len(_START_TIMES) > 4096:
            _START_TIMES.clear()
        # one entry of the clock's batch of starts due then (24 bytes, not a Timer, a heap
        # entry and a sequence number: ~208), run exactly where call_at's timer would run;
        # start_timer is the batch, cancelled per (callback, key)
        st.start_timer = self.clock.call_batched(when, self._start_pod, key, PRIORITY_KUBELET,
                                                 self._start_label)
        return when

    def _start(self, key: tuple[str, str]) -> None:
        st = self.pods.get(key)
        kl = self.kubelet
        if st is None or kl.failed or kl.runtime_down:   # (kl.halted)
            return
        st.start_timer = None
        st.started = True
        pod = self._pod_table.get(key)   # (store.get's)
        if pod is None or pod.metadata.uid != st.uid or pod.metadata.deletion_timestamp is not None:
            return
        node = self._node_table.get(self._node_key)
        took = round(self.clock.now - st.admitted_at, 3)
        rare = st._rare
        pulls = rare.pulls if rare is not None else ()   # (st.pulls)
        for c in pod.spec.containers:
            # a pull that began at admission ends now, "in <took>": the sandbox's pull is the
            # start delay
            events, ok = self.images.ensure(c, node, took, c.name in pulls)
            for type_, reason, message in events:
                self.store.record_event(pod, type_, reason, message, COMPONENT)
            if not ok:
                return   # ErrImageNeverPull: the container waits (the pod stays Pending)
            self.store.record_event(pod, "Normal", "Created", f"Created container: {c.name}",
                                    COMPONENT)
            self.store.record_event(pod, "Normal", "Started", f"Started container {c.name}",
                                    COMPONENT)
        if pulls:
            # st.pulls = () (its setter's, inline): the _Rare goes when the names were all
            # it held
            rare = st._rare
            assert rare is not None   # (it holds the pulls)
            rare.pulls = ()
            if not rare.host_ports and rare.stop_timer is None and not rare.evicting:
                st._rare = None
        # the node read above is the stored one still: image checks and event records write
        # no Node (and watch handlers never write)
        self._write_running(pod, st, node)
        self.completion.schedule_exit(key, pod)

    def _running_status(self, pod: Pod, st: _PodState, node: Node | None) -> Any:
        """The running status of ``pod``; ``node``: this kubelet's Node as the store holds
        it now (None when gone), for its addresses."""
        now = self.clock.now
        old = pod.status
        if st.running_since is None:
            st.running_since = now
        # A fresh mirror of a pod that kept running: the status manager's cached status.
        since = st.running_since if not old.conditions else now
        meta = pod.metadata   # kubelet_generation(pod), inline (it and is_mirror: two frames)
        gen = 0 if MIRROR_ANNOTATION in meta.annotations else meta.generation
        conds, statuses = _running_parts(old, pod.spec.containers, since, st.running_since, gen)
        olds = old.extra.get("containerStatuses")
        if olds:
            # a pod re-posted Running (resync): its containers kept running as they were —
            # their images, restarts and last states (a fresh start has none)
            statuses = kept_instances(olds, statuses)
        extra = old.extra.set("containerStatuses", statuses)
        ip = old.pod_ip or st.pod_ip or (
            self.node_status.host_ip(node) if pod.spec.host_network
            else self.node_status.pod_ip(node, self.adopted_ips))
        st.pod_ip = ip
        start = st.admitted_at if old.start_time is None else old.start_time
        host_ip = old.host_ip or self.node_status.host_ip(node)
        if type(old) is PodStatus:
            return _RUNNING_STATUS(old, gen, RUNNING, conds, start, host_ip, ip, "", "", extra)
        return evolve(old, observed_generation=gen, phase=RUNNING, conditions=conds,
                      start_time=start, host_ip=host_ip, pod_ip=ip, reason="", message="",
                      extra=extra)

    def write_running(self, pod: Pod, st: _PodState) -> None:
        self._write_running(pod, st, self.store.get("Node", self.name))

    def _write_running(self, pod: Pod, st: _PodState, node: Node | None) -> None:
        self.store.write_status(pod, self._running_status(pod, st, node))

    # -- stop -----------------------------------------------------------------------------
    def kill(self, key: tuple[str, str], pod: Pod, st: _PodState, at: float) -> None:
        if st.start_timer is not None:
            st.start_timer.cancel(self._start_pod, key)
            st.start_timer = None
        if not st.started:
            at = self.clock.now
        else:
            # syncTerminatingPod posts the status of the pod it now syncs first: the graceful
            # deletion moved the generation one up, and observedGeneration follows (KEP 5067)
            pod = post_status(self.store, pod, pod.status)
            # (killContainersWithSyncResult stops the containers the runtime runs: one that
            # waits out a crash-loop back-off has nothing to stop, and a pod with none running
            # is stopped at once)
            waiting = waiting_containers(pod)
            for c in pod.spec.containers:
                if c.name not in waiting:
                    self.store.record_event(pod, "Normal", "Killing",
                                            f"Stopping container {c.name}", COMPONENT)
            if waiting and len(waiting) >= len(pod.spec.containers):
                at = self.clock.now
        timer = self.clock.call_at(max(at, self.clock.now), self._finish_kill_arg,
                                   PRIORITY_KUBELET, self._kill_label, arg=(key, st.uid))
        rare = st._rare   # st.stop_timer = timer (its setter's, inline)
        if rare is None:
            rare = st._rare = _Rare(())
        rare.stop_timer = timer

    def _finish_kill(self, arg: tuple[tuple[str, str], str]) -> None:
        """The stop timer's call, with the pod's (key, uid) as the kill armed it."""
        key, uid = arg
        st = self.pods.get(key)
        if st is not None and st.uid == uid:
            rare = st._rare   # st.stop_timer = None (its setter's, inline)
            if rare is not None:
                rare.stop_timer = None
            self.forget(key, st)
        kl = self.kubelet
        if kl.failed or kl.runtime_down:   # (kl.halted)
            return
        pod = self._pod_table.get(key)   # (store.get's)
        if pod is not None and pod.metadata.uid == uid and \
                pod.metadata.deletion_timestamp is not None:
            self.store.remove("Pod", key[1], key[0])


# Pods that start at the same simulated instant carry equal True conditions and equal
# running container statuses: one immutable value each is shared (keyed with the time's type,
# so 5 and 5.0 stay apart), instead of five conditions and three maps built for every pod.
# Bounded: each table starts over when full.
_SHARED_LIMIT = 4096
_CONDITIONS: dict[tuple[str, Any, type, int], PodCondition] = {}
_CONTAINER_STATUSES: dict[tuple[str, str, Any, type], FrozenDict] = {}


# _running_parts' answers by the identity of the old conditions and the containers (the pods
# bound at one instant share their conditions, a template's pods their containers) and the
# times: entry -> (old conditions, containers, answer), holding what its ids name.
_RUNNING_PARTS: dict[tuple, tuple[tuple, tuple, tuple]] = {}


def _running_parts(old: Any, containers: tuple, since: Any, running_since: Any,
                   gen: int) -> tuple[tuple, tuple]:
    """A running pod's conditions as of the kubelet's generation ``gen`` — of the five, each
    True one of the old status ``old`` kept (its transition time kept), the others True since
    ``since`` — and its containers' running statuses (since ``running_since``). Remembered by
    the old conditions' identity: the pods of one template bound at one instant and starting
    at one instant get the same two tuples."""
    conditions = old.conditions
    key = (id(conditions), id(containers), since, type(since), running_since,
           type(running_since), gen)
    try:
        hit = _RUNNING_PARTS.get(key)
    except TypeError:   # an unhashable time from a loaded file's status: not remembered
        return _running_parts_of(old, containers, since, running_since, gen)
    if hit is not None and hit[0] is conditions and hit[1] is containers:
        return hit[2]
    out = _running_parts_of(old, containers, since, running_since, gen)
    if len(_RUNNING_PARTS) >= _SHARED_LIMIT:
        _RUNNING_PARTS.clear()
    _RUNNING_PARTS[key] = (conditions, containers, out)
    return out


_RUNNING_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                       "PodScheduled")


def _running_parts_of(old: Any, containers: tuple, since: Any, running_since: Any,
                      gen: int) -> tuple[tuple, tuple]:
    # each type's first condition (old.condition(t) of each), in one pass
    first: dict[str, PodCondition] = {}
    for c in old.conditions:
        if c.type not in first:
            first[c.type] = c
    conds = []
    for t in _RUNNING_CONDITIONS:
        prev = first.get(t)
        if prev is None or prev.status != "True":
            conds.append(_true_condition(t, since, gen))
        elif prev.observed_generation == gen:
            conds.append(prev)
        else:   # True still, rebuilt as of this generation (the binding's PodScheduled has none)
            conds.append(_true_condition(t, prev.last_transition_time, gen))
    statuses = tuple(_running_container_status(c.name, c.image, running_since)
                     for c in containers)
    return tuple(conds), statuses


def _true_condition(t: str, since: Any, gen: int) -> PodCondition:
    """PodCondition(type=t, observed_generation=gen, status="True",
    last_transition_time=since), shared."""
    key = (t, since, type(since), gen)
    try:
        c = _CONDITIONS.get(key)
    except TypeError:   # an unhashable time from a loaded file's status: not shared
        return PodCondition(type=t, observed_generation=gen, status="True",
                            last_transition_time=since)
    if c is None:
        if len(_CONDITIONS) >= _SHARED_LIMIT:
            _CONDITIONS.clear()
        c = _CONDITIONS[key] = _TRUE_CONDITION(_BLANK_CONDITION, t, gen, "True", since)
    return c


# PodCondition(type=t, observed_generation=gen, status="True", last_transition_time=since) as
# evolve(PodCondition(), ...) built once: the blank condition's other fields are the class's
# defaults (reason and message "", the shared empty extra), so the two are the same value;
# a keyword class call cost ~6k instructions where the replacer's build costs ~3k (four new
# conditions a pod start, most starts at an instant no other pod starts at)
_BLANK_CONDITION = PodCondition()
_TRUE_CONDITION: Any = replacer(PodCondition, ("type", "observed_generation", "status",
                                               "last_transition_time"))
assert _TRUE_CONDITION is not None


def _running_container_status(name: str, image: str, started: Any) -> FrozenDict:
    """A running, ready container's status (no restarts, started at ``started``), shared."""
    key = (name, image, started, type(started))
    try:
        cs = _CONTAINER_STATUSES.get(key)
    except TypeError:   # an unhashable time from a loaded file's status: not shared
        return _container_status(name, image, started)
    if cs is None:
        if len(_CONTAINER_STATUSES) >= _SHARED_LIMIT:
            _CONTAINER_STATUSES.clear()
        cs = _CONTAINER_STATUSES[key] = _container_status(name, image, started)
    return cs


def _container_status(name: str, image: str, started: Any) -> FrozenDict:
    return FrozenDict({
        "name": name, "image": image, "ready": True, "started": True, "restartCount": 0,
        "state": FrozenDict({"running": FrozenDict({"startedAt": started})}),
    })


def _started_at(pod: Pod) -> Any:
    """When the pod's first container started, as its status says (an export's RFC 3339
    string is kept as it is), or None."""
    for cs in pod.status.extra.get("containerStatuses") or ():
        started = running_since(cs)
        if started is not None:
            return started
    return None


def _ready_status(pod: Pod) -> str:
    c = pod.status.condition("Ready")
    return c.status if c is not None else ""
