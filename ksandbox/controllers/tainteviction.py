"""The taint eviction controller: deletes pods from nodes with NoExecute taints they do not tolerate.

A port of ``pkg/controller/tainteviction/taint_eviction.go`` and ``timed_workers.go``:

* a pod on a node whose NoExecute taints it does not all tolerate is deleted **at once**;
* a pod that tolerates them all, with ``tolerationSeconds`` on the tolerations used, is deleted
  at ``now + min(tolerationSeconds)`` — the *first* toleration matching each taint counts
  (``GetMatchingTolerations``), and a value ≤ 0 means at once (``getMinTolerationTime``);
* a pod whose matching tolerations have no ``tolerationSeconds`` stays forever;
* a pending deletion whose taints go away (or whose pod goes, or whose tolerations become
  unlimited) is cancelled with a ``Cancelling deletion of Pod ns/name`` event; a pending
  deletion is kept as scheduled when later updates would fire it no earlier;
* at the deadline the controller records ``Marking for deletion Pod ns/name``
  (reason ``TaintManagerEviction``), adds the ``DisruptionTarget`` condition
  (``DeletionByTaintManager``) and deletes the pod with its own grace period.

Each pending deletion is a countdown: :meth:`TaintEvictionController.deadline` gives its
simulated deadline (``evictionAt`` in ``sim -o json``), :meth:`countdowns` all of them.

Handlers only queue node names and pod keys; node updates are handled before pod updates, as
upstream's workers prefer them.
"""

from __future__ import annotations

from typing import Any, Collection, Iterable, Sequence

from ..api.core import Pod, pod_condition
from ..api.evolve import evolve
from ..api.meta import ObjectMeta
from ..api.taints import NO_EXECUTE, Taint, Toleration
from ..apiserver.store import DELETED, WatchEvent
from ..sim.clock import PRIORITY_CONTROLLER
from .base import Controller, Worker

COMPONENT = "taint-eviction-controller"
REASON = "TaintManagerEviction"
# taint_eviction.go (addConditionAndDeletePod): the condition put on the pods it deletes.
DISRUPTION_TARGET = "DisruptionTarget"
DISRUPTION_REASON = "DeletionByTaintManager"
DISRUPTION_MESSAGE = "Taint manager: deleting due to NoExecute taint"


def no_execute_taints(taints: Iterable[Taint]) -> tuple[Taint, ...]:
    return tuple(t for t in taints if t.effect == NO_EXECUTE)


def matching_tolerations(taints: Sequence[Taint], tolerations: Sequence[Toleration]
                         ) -> tuple[bool, list[Toleration]]:
    """v1helper.GetMatchingTolerations: the first toleration of each taint, or (False, [])."""
    if not taints:
        return True, []
    used: list[Toleration] = []
    for taint in taints:
        for t in tolerations:
            if t.tolerates(taint):
                used.append(t)
                break
        else:
            return False, []
    return True, used


def min_toleration_time(tolerations: Sequence[Toleration]) -> float:
    """getMinTolerationTime: seconds; 0 when none or any is ≤ 0; -1 when all are unlimited."""
    if not tolerations:
        return 0.0
    least = None
    for t in tolerations:
        if t.toleration_seconds is not None:
            if t.toleration_seconds <= 0:
                return 0.0
            if least is None or t.toleration_seconds < least:
                least = t.toleration_seconds
    return -1.0 if least is None else float(least)


class _Work:
    """A TimedWorker: delete the pod no earlier than ``fire_at``."""

    __slots__ = ("created_at", "fire_at", "timer")

    def __init__(self, created_at: float, fire_at: float, timer: Any) -> None:
        self.created_at = created_at
        self.fire_at = fire_at
        self.timer = timer


class TaintEvictionController(Controller):
    name = "tainteviction"

    def __init__(self) -> None:
        self.tainted_nodes: dict[str, tuple[Taint, ...]] = {}
        # "ns/name" → pending work; None once it fired (kept so it is not added again until
        # the pod is gone, as the TimedWorkerQueue does).
        self.workers: dict[str, _Work | None] = {}
        # The node a queued pod key was last seen on (podUpdateItem's nodeName; the latest
        # update wins while the key waits): see queued_node.
        self._pod_nodes: dict[tuple[str, str], str] = {}

    def start(self, cp: Any) -> None:
        self.cp = cp
        self.store = cp.store
        self.clock = cp.clock
        # One worker, two queues: node updates first, as upstream's worker prefers them.
        self.worker = Worker(cp.clock, "tainteviction/sync")
        self.node_queue = self.worker.queue(self._handle_node)
        self.pod_queue = self.worker.queue(self._handle_pod)
        self.watch()

    def watch(self) -> None:
        # Both act on the spec only (a node's taints; a pod's tolerations and node): a status
        # write (a heartbeat, a pod's kubelet report) keeps it and returns at once there.
        self.store.subscribe("Node", self._on_node, status=False)
        self.store.subscribe("Pod", self._on_pod, status=False)

    # -- watches --------------------------------------------------------------------------
    def _on_node(self, ev: WatchEvent) -> None:
        """NodeUpdated: only a change of the NoExecute taints matters."""
        node, old = ev.obj, ev.old
        if ev.type != DELETED and old is not None and old is not node and \
                no_execute_taints(old.spec.taints) == no_execute_taints(node.spec.taints):
            return
        self.node_queue.add(node.metadata.name)

    # -- a Session's load (bulk start: session.py) ---------------------------------------------
    def muted_for_load(self, kinds: Collection[str] = (), objects: Sequence[Any] = ()
                       ) -> list[tuple[str, Any]]:
        """The pod watch, for a load with nodes and no pod stored yet (as the node lifecycle
        controller's: every node is written, and queued, before any pod, so the worker's
        timer is waiting before the first pod comes)."""
        if "Node" not in kinds or self.store.count("Pod"):
            return []
        return [("Pod", self._on_pod)]

    def load_done(self) -> None:
        # _on_pod of each ADDED pod; its node is not recorded: queued_node reads it from the
        # store
        self.pod_queue.add_all([key for key, _pod in self.store.items("Pod")])

    def queued_node(self, key: tuple[str, str]) -> str:
        """The node a queued pod key was last seen on. _on_pod records it; a key the load
        queued (load_done) has no record, and its node is the one it was loaded on: any later
        event of that pod (a bind, its deletion, a new pod of that name) goes through _on_pod,
        which records one — so, with no record, it is the stored pod's. (A record per loaded
        pod was a 150,000-entry dict, 5 MB, held through the t=0 run.)"""
        node = self._pod_nodes.get(key)
        if node is None:
            pod = self.store.get("Pod", key[1], key[0])
            node = pod.spec.node_name if pod is not None else ""
        return node

    def _on_pod(self, ev: WatchEvent) -> None:
        """PodUpdated: only a change of tolerations or node matters."""
        pod, old = ev.obj, ev.old
        if ev.type != DELETED and old is not None and old is not pod and \
                old.spec.tolerations == pod.spec.tolerations and \
                old.spec.node_name == pod.spec.node_name:
            return
        key = (pod.metadata.namespace, pod.metadata.name)
        self._pod_nodes[key] = pod.spec.node_name
        self.pod_queue.add(key)

    # -- sync -----------------------------------------------------------------------------
    def _handle_node(self, name: str) -> None:
        node = self.store.get("Node", name)
        if node is None:
            self.tainted_nodes.pop(name, None)
            return
        taints = no_execute_taints(node.spec.taints)
        if taints:
            self.tainted_nodes[name] = taints
        else:
            self.tainted_nodes.pop(name, None)
            if not self.workers:
                # no deletion counting down anywhere: cancelling the node's pods' is nothing
                # to do (every node of a load comes here at t=0, ~30 pods each)
                return
        pods = sorted(self.store.pods_on_node(name),
                      key=lambda p: (p.metadata.namespace, p.metadata.name))
        if not taints:
            for pod in pods:
                self._cancel_with_event(pod.metadata.namespace, pod.metadata.name)
            return
        now = self.clock.now
        for pod in pods:
            self._process_pod_on_node(pod.metadata.namespace, pod.metadata.name,
                                      pod.spec.tolerations, taints, now)

    def _handle_pod(self, key: tuple[str, str]) -> None:
        # Nothing counting down and no node tainted (a healthy cluster: every pod's every
        # event comes here): _sync_pod changes nothing whatever the pod and its node are —
        # a cancel finds no work, and every other branch needs its node tainted — so its
        # reads (the pod, and queued_node's for a loaded pod) are skipped.
        idle = not self.workers and not self.tainted_nodes
        node_name = "" if idle else self.queued_node(key)
        if self._pod_nodes.pop(key, None) is not None and not self._pod_nodes:
            self._pod_nodes.clear()   # its table back once empty (WorkQueue.process_next)
        if idle:
            return
        try:
            self._sync_pod(key, node_name)
        except Exception:
            self._pod_nodes.setdefault(key, node_name)   # the retry needs it again
            raise

    def _sync_pod(self, key: tuple[str, str], node_name: str) -> None:
        pod = self.store.get("Pod", key[1], key[0])
        if pod is None:
            self._cancel_with_event(*key)
            return
        if pod.spec.node_name != node_name or not node_name:
            return
        taints = self.tainted_nodes.get(node_name)
        if taints is None:
            return
        self._process_pod_on_node(key[0], key[1], pod.spec.tolerations, taints, self.clock.now)

    def _process_pod_on_node(self, ns: str, name: str, tolerations: Sequence[Toleration],
                             taints: Sequence[Taint], now: float) -> None:
        if not taints:
            self._cancel_with_event(ns, name)
            return
        tolerated, used = matching_tolerations(taints, tolerations)
        if not tolerated:
            self._cancel_with_event(ns, name)
            self._add_work(ns, name, now, now)
            return
        least = min_toleration_time(used)
        if least < 0:
            self._cancel_with_event(ns, name)
            return
        key = f"{ns}/{name}"
        existing = self.workers.get(key)
        if least == 0:
            if existing is not None and existing.fire_at > now:
                self._cancel_with_event(ns, name)
            self._add_work(ns, name, now, now)
            return
        if existing is not None:
            # Created earlier than now (even within this simulated second): it fires no
            # later than a fresh countdown would, so it stands.
            return
        self._add_work(ns, name, now, now + least)

    def _add_work(self, ns: str, name: str, created_at: float, fire_at: float) -> None:
        key = f"{ns}/{name}"
        if key in self.workers:
            return
        timer = self.clock.call_at(fire_at, lambda: self._fire(ns, name), PRIORITY_CONTROLLER,
                                   f"tainteviction/{key}")
        self.workers[key] = _Work(created_at, fire_at, timer)

    def _cancel_with_event(self, ns: str, name: str) -> None:
        key = f"{ns}/{name}"
        if key not in self.workers:
            return
        work = self.workers.pop(key)
        if work is None:
            return
        work.timer.cancel()
        self._event(ns, name, f"Cancelling deletion of Pod {key}")

    def _fire(self, ns: str, name: str) -> None:
        """deletePodHandler: the event, the DisruptionTarget condition, the deletion."""
        key = f"{ns}/{name}"
        if self.workers.get(key) is None:
            return
        self.workers[key] = None
        self._event(ns, name, f"Marking for deletion Pod {key}")
        pod = self.store.get("Pod", name, ns)
        if pod is None:
            del self.workers[key]
            return
        if pod.status.condition(DISRUPTION_TARGET) is None:
            cond = pod_condition(pod, DISRUPTION_TARGET, "True", DISRUPTION_REASON,
                                 DISRUPTION_MESSAGE, self.clock.now)
            pod = self.store.update_status(evolve(pod, status=evolve(
                pod.status, conditions=pod.status.conditions + (cond,))))
        self.store.delete("Pod", name, ns)

    def _event(self, ns: str, name: str, message: str) -> None:
        pod = self.store.get("Pod", name, ns)
        if pod is None:
            pod = Pod(metadata=ObjectMeta(name=name, namespace=ns))
        self.store.record_event(pod, "Normal", REASON, message, COMPONENT)

    # -- the countdowns -------------------------------------------------------------------
    def deadline(self, pod: Pod) -> float | None:
        """When ``pod``'s pending NoExecute deletion fires (None if none is pending)."""
        work = self.workers.get(f"{pod.metadata.namespace}/{pod.metadata.name}")
        return work.fire_at if work is not None else None

    def countdowns(self) -> dict[str, float]:
        """Every pending deletion: ``"ns/name"`` → simulated deadline."""
        return {k: w.fire_at for k, w in self.workers.items() if w is not None}
