"""Pods that finish: a run time for containers that exit, and the terminal status the kubelet
posts when they do.

A simulated container has no process, so a pod whose ``restartPolicy`` is ``Never`` or
``OnFailure`` runs for a simulated time taken from, in order: the pod's annotation
``ksandbox.io/run-seconds`` (:data:`RUN_SECONDS_ANNOTATION`), a ``sleep N`` in the first
container's ``command``/``args`` (``sh -c "sleep 30; ..."`` too), or — for a pod a Job owns —
:data:`DEFAULT_RUN_SECONDS`. Any other pod (``restartPolicy: Always``, or no hint) runs until
it is deleted, as a server does. The exit code is 0 unless the annotation
``ksandbox.io/exit-code`` says otherwise.

On exit the kubelet posts what ``pkg/kubelet/kubelet_pods.go`` (getPhase, convertToAPIContainer
Statuses) would: phase Succeeded (every container exited 0) or Failed, each container
``terminated`` with ``exitCode`` and reason ``Completed``/``Error``, Ready False with reason
``PodCompleted``. Under ``OnFailure`` a failed container is restarted in place after the
kubelet's crash-loop back-off (10 s doubling to 300 s, ``pkg/kubelet/kubelet.go``
MaxContainerBackOff), its ``restartCount`` growing — the Job controller counts those restarts
against ``backoffLimit``. While the back-off lasts the container waits in ``CrashLoopBackOff``
("back-off 10s restarting failed container=…"), not ready (Ready and ContainersReady False,
``ContainersNotReady``), the failed instance its ``lastState``; the restart makes it running
and ready again.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Mapping

from ..api.codec import FrozenDict
from ..api.core import FAILED, SUCCEEDED, PodCondition
from ..api.evolve import evolve
from ..sim.clock import PRIORITY_KUBELET
from .generation import post_status

if TYPE_CHECKING:
    from ..api.core import Pod
    from .kubelet import Kubelet
    from .pod_workers import PodWorkers

# The sandbox's annotation for a pod's simulated run time (a pod that finishes succeeds after
# this many seconds of Running). `ksandbox.io/exit-code: "1"` makes it fail instead.
RUN_SECONDS_ANNOTATION = "ksandbox.io/run-seconds"
EXIT_CODE_ANNOTATION = "ksandbox.io/exit-code"
DEFAULT_RUN_SECONDS = 10.0
# pkg/kubelet: the crash-loop back-off starts at 10 s and doubles up to 5 minutes.
BACKOFF_BASE, BACKOFF_MAX = 10.0, 300.0
_SLEEP_RE = re.compile(r"(?:^|[\s;&|(])sleep\s+([0-9]+(?:\.[0-9]+)?)\b")


def run_seconds(pod: Pod) -> float | None:
    """How long the pod's containers run before they exit (None: they never do)."""
    if (pod.spec.restart_policy or "Always") == "Always":
        return None
    ann = pod.metadata.annotations.get(RUN_SECONDS_ANNOTATION)
    if ann is not None:
        try:
            value = float(ann)
        except ValueError:
            value = -1.0
        if value >= 0:
            return value
    if pod.spec.containers:
        c = pod.spec.containers[0]
        words = " ".join(str(w) for w in tuple(c.extra.get("command") or ())
                         + tuple(c.extra.get("args") or ()))
        m = _SLEEP_RE.search(words)
        if m:
            return float(m.group(1))
    ref = pod.metadata.controller_ref()
    if ref is not None and ref.kind == "Job":
        return DEFAULT_RUN_SECONDS
    return None


def exit_code(pod: Pod) -> int:
    try:
        return int(pod.metadata.annotations.get(EXIT_CODE_ANNOTATION, "0"))
    except ValueError:
        return 1



def container_state(s: Any) -> Mapping:
    """A container status's state, ``{}`` when it has none (or a loaded export's status of
    another shape gives one that is not a mapping)."""
    state = s.get("state") if isinstance(s, Mapping) else None
    return state if isinstance(state, Mapping) else {}


def running_since(s: Any) -> Any:
    """When a container status says its container started running (None: not running, or a
    loaded export's status of another shape)."""
    running = container_state(s).get("running")
    return running.get("startedAt") if isinstance(running, Mapping) else None


def restarts_of(s: Any) -> int:
    """A container status's restartCount (0 when it has none it can say)."""
    try:
        return int(s.get("restartCount") or 0) if isinstance(s, Mapping) else 0
    except (TypeError, ValueError):
        return 0


def restart_count(pod: Pod) -> int:
    return sum(restarts_of(s) for s in pod.status.extra.get("containerStatuses") or ())



def backoff(restarts: int) -> float:
    """The crash-loop back-off before a failed container's next start, ``restarts`` the
    restarts it had so far: none before the first restart (doBackOff finds no back-off entry
    for the container yet and starts it at once), then 10 s, doubling, at most 5 minutes."""
    if restarts <= 0:
        return 0.0
    return min(BACKOFF_BASE * (2 ** (restarts - 1)), BACKOFF_MAX)


def waiting_containers(pod: Pod) -> tuple[str, ...]:
    """The containers of ``pod`` whose status says they wait (a crash-loop back-off, an image
    it may not pull): nothing of them runs, the pod is not ready for them, and no re-post
    makes it Running."""
    return tuple(str(s.get("name")) for s in pod.status.extra.get("containerStatuses") or ()
                 if container_state(s).get("waiting") is not None)


def terminated_status(pod: Pod, now: float, code: int) -> Any:
    """The status of a pod whose containers all exited with ``code``."""
    old = pod.status
    conds = []
    for c in old.conditions:
        if c.type in ("Ready", "ContainersReady"):
            conds.append(PodCondition(type=c.type, status="False", reason="PodCompleted",
                                      last_transition_time=now))
        else:
            conds.append(c)
    statuses = []
    for s in old.extra.get("containerStatuses") or ():
        if not isinstance(s, Mapping):
            continue   # (a loaded export's status of another shape)
        started = running_since(s)
        statuses.append(FrozenDict({**s, "ready": False, "started": False,
                                    "state": FrozenDict({"terminated": FrozenDict({
                                        "exitCode": code,
                                        "reason": "Completed" if code == 0 else "Error",
                                        "startedAt": started, "finishedAt": now})})}))
    phase = SUCCEEDED if code == 0 else FAILED
    return evolve(old, phase=phase, conditions=tuple(conds),
                  extra=old.extra.set("containerStatuses", tuple(statuses)))


def go_duration(seconds: float) -> str:
    """Go's time.Duration String for whole seconds: ``10s``, ``1m20s``, ``5m0s``."""
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m}m{s}s"
    h, m = divmod(m, 60)
    return f"{h}h{m}m{s}s"


def readiness(pod: Pod, status: str, now: float, reason: str = "", message: str = ""
               ) -> tuple:
    """The pod's conditions with Ready and ContainersReady set to ``status`` (their
    transition time ``now`` when it changes)."""
    conds = []
    for c in pod.status.conditions:
        if c.type in ("Ready", "ContainersReady") and \
                (c.status, c.reason, c.message) != (status, reason, message):
            since = c.last_transition_time if c.status == status else now
            conds.append(PodCondition(type=c.type, status=status, reason=reason,
                                      message=message, last_transition_time=since))
        else:
            conds.append(c)
    return tuple(conds)


def crash_loop_status(pod: Pod, now: float, code: int, delay: float) -> Any:
    """A failed container waiting out its restart back-off (OnFailure): ``CrashLoopBackOff``,
    not ready, the instance that exited with ``code`` now as its last state (the status
    kubelet_pods.go convertToAPIContainerStatuses posts while the back-off lasts)."""
    statuses = []
    names = []
    meta = pod.metadata
    for s in pod.status.extra.get("containerStatuses") or ():
        if not isinstance(s, Mapping):
            continue   # (a loaded export's status of another shape)
        name = s.get("name")
        names.append(str(name))
        started = running_since(s)
        message = (f"back-off {go_duration(delay)} restarting failed container={name} "
                   f"pod={meta.name}_{meta.namespace}({meta.uid})")
        statuses.append(FrozenDict({
            **s, "ready": False, "started": False,
            "state": FrozenDict({"waiting": FrozenDict({"reason": "CrashLoopBackOff",
                                                         "message": message})}),
            "lastState": FrozenDict({"terminated": FrozenDict({
                "exitCode": code, "reason": "Error", "startedAt": started,
                "finishedAt": now})})}))
    unready = f"containers with unready status: [{' '.join(names)}]"
    return evolve(pod.status, conditions=readiness(pod, "False", now, "ContainersNotReady",
                                                    unready),
                  extra=pod.status.extra.set("containerStatuses", tuple(statuses)))


def restarted_status(pod: Pod, now: float, exited: tuple[int, float] | None = None) -> Any:
    """A container restarted in place (OnFailure): running and ready again since ``now``, one
    more restart, the image its spec names now. Its last state: the instance that exited
    with ``exited`` = (exit code, when), for a restart without a back-off; else the failed
    instance the back-off's status holds already."""
    images = {c.name: c.image for c in pod.spec.containers}
    statuses = []
    for s in pod.status.extra.get("containerStatuses") or ():
        if not isinstance(s, Mapping):
            continue   # (a loaded export's status of another shape)
        new = {**s, "ready": True, "started": True,
               "restartCount": restarts_of(s) + 1,
               "state": FrozenDict({"running": FrozenDict({"startedAt": now})})}
        name = s.get("name")
        if isinstance(name, str) and name in images:
            new["image"] = images[name]
        if exited is not None:
            started = running_since(s)
            new["lastState"] = FrozenDict({"terminated": FrozenDict({
                "exitCode": exited[0], "reason": "Error", "startedAt": started,
                "finishedAt": exited[1]})})
        statuses.append(FrozenDict(new))
    return evolve(pod.status, conditions=readiness(pod, "True", now),
                  extra=pod.status.extra.set("containerStatuses", tuple(statuses)))


class PodCompletion:
    """The pod workers' side of exits: schedule each started pod's exit and post it, restart
    an ``OnFailure`` container after its back-off, and hand a finished pod back to ``workers``
    (which frees what it held)."""

    def __init__(self, kubelet: Kubelet, workers: PodWorkers) -> None:
        self.kubelet = kubelet
        self.store = kubelet.store
        self.clock = kubelet.clock
        self.name = kubelet.name
        self.workers = workers
        self._exit_timers: dict[tuple[str, str], Any] = {}
        # what came due while the kubelet was silent or its runtime down: the container exited
        # (or its back-off ended) all the same, and the kubelet acts on it when it is back
        self._due: dict[tuple[str, str], tuple[Any, ...]] = {}

    def schedule_exit(self, key: tuple[str, str], pod: Pod) -> None:
        seconds = run_seconds(pod)
        if seconds is None:
            return
        uid = pod.metadata.uid
        timers = self._exit_timers
        old = timers.pop(key, None)
        if old is not None:
            old.cancel()
        timers[key] = self.clock.call_later(seconds, lambda: self._exit(key, uid),
                                            PRIORITY_KUBELET, f"kubelet/{self.name}/exit")

    def cancel_exit(self, key: tuple[str, str]) -> None:
        timer = self._exit_timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        if self._due:
            self._due.pop(key, None)

    def resume(self) -> None:
        """The kubelet is back: act on the exits and back-off ends that came meanwhile."""
        due, self._due = self._due, {}
        for fn, *args in due.values():
            fn(*args)

    def _live(self, key: tuple[str, str], uid: str) -> Pod | None:
        """The pod while it still runs here (not deleted, not finished), else None."""
        pod = self.store.get("Pod", key[1], key[0])
        if pod is None or pod.metadata.uid != uid or pod.is_terminated or \
                pod.metadata.deletion_timestamp is not None or key not in self.workers.pods:
            return None
        return pod

    def _exit(self, key: tuple[str, str], uid: str, at: float | None = None) -> None:
        """The containers exit (at ``at``: when they did, if the kubelet hears it later)."""
        self._exit_timers.pop(key, None)
        now = self.clock.now if at is None else at
        if self.kubelet.halted:
            self._due[key] = (self._exit, key, uid, now)
            return
        pod = self._live(key, uid)
        if pod is None:
            return
        code = exit_code(pod)
        if code != 0 and pod.spec.restart_policy == "OnFailure":
            delay = backoff(restart_count(pod))
            if not delay:   # the first restart: at once
                self._start_again(key, pod, restarted_status(pod, self.clock.now, (code, now)))
                return
            self.store.record_event(pod, "Warning", "BackOff",
                                    "Back-off restarting failed container "
                                    f"{pod.spec.containers[0].name} in pod "
                                    f"{pod.metadata.name}_{pod.metadata.namespace}({uid})",
                                    "kubelet")
            post_status(self.store, pod, crash_loop_status(pod, now, code, delay))
            self._exit_timers[key] = self.clock.call_later(
                max(0.0, now + delay - self.clock.now), lambda: self._back_off_ended(key, uid),
                PRIORITY_KUBELET, f"kubelet/{self.name}/restart")
            return
        post_status(self.store, pod, terminated_status(pod, now, code))
        cur = self.workers.pods.get(key)
        if cur is not None:
            self.workers.forget(key, cur)

    def _back_off_ended(self, key: tuple[str, str], uid: str) -> None:
        self._exit_timers.pop(key, None)
        if self.kubelet.halted:
            self._due[key] = (self._back_off_ended, key, uid)
            return
        pod = self._live(key, uid)
        if pod is not None:
            self._start_again(key, pod, restarted_status(pod, self.clock.now))

    def _start_again(self, key: tuple[str, str], pod: Pod, status: Any) -> None:
        """The failed container starts again: its events (the image as its policy finds it
        on the node, Created, Started), the status, its next exit."""
        node = self.store.get("Node", self.name)
        images = self.workers.images
        for c in pod.spec.containers:
            if not images.must_pull(c, node) and images.present(c.image, node):
                self.store.record_event(pod, "Normal", "Pulled",
                                        f'Container image "{c.image}" already present on '
                                        "machine", "kubelet")
            self.store.record_event(pod, "Normal", "Created", f"Created container: {c.name}",
                                    "kubelet")
            self.store.record_event(pod, "Normal", "Started", f"Started container {c.name}",
                                    "kubelet")
        self.schedule_exit(key, post_status(self.store, pod, status))
