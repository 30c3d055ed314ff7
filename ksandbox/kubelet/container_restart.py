"""A running container whose definition changed is restarted: ``kubectl set image pod/web
c=nginx:1.26`` on a running pod.

Upstream (``pkg/kubelet/kuberuntime/kuberuntime_manager.go``): computePodActions finds the
running container's hash differs from its spec's ("Container c definition changed"), and
restarts it whatever the pod's restartPolicy; SyncPod kills it (a ``Killing`` event, "Container
c definition changed, will be restarted", then the pod's termination grace period), then starts
it again in the same sync from the spec as it is then: the image pulled by its pull policy
(``Pulling``/``Pulled``), ``Created``, ``Started``. The next status the kubelet posts shows the
new container: its image, ``restartCount`` one up, ``lastState.terminated`` the old instance's.
The only field of a pod's containers an update may change is the image, so an image is what
changes here.

In the sandbox a container has no process, and one that is stopped takes its whole grace period,
as a deleted pod's do (pod_workers.kill): it exits then as a process killed at the end of the
grace period does, with exit code 137 and reason ``Error``. The new container starts after the
kubelet's seeded start delay (the pull's time when it pulls), and the status is posted then, as
upstream's next sync posts it: during the stop and the pull the stored status still shows the
old container running, as a real kubelet busy in that sync leaves it.

The kubelet's watch (:meth:`ContainerRestarts.flag`, from ``manager._on_pod``) notes which
containers' images an update changed; the pod worker's next sync of the running pod starts
their restart. A restart cut short (the node failed, the runtime went down) is begun again at
the resync that follows the recovery; a deleted pod's restart ends with the pod.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ..api.codec import FrozenDict
from ..api.evolve import evolve
from ..sim.clock import PRIORITY_KUBELET
from .generation import post_status
from .pod_completion import container_state, readiness, restarts_of, running_since

if TYPE_CHECKING:
    from ..api.core import Pod
    from ..apiserver.store import Store
    from ..sim.clock import Clock
    from .kubelet import Kubelet
    from .pod_workers import PodWorkers

COMPONENT = "kubelet"
# A process killed when its grace period ends: 128 + SIGKILL.
KILLED_EXIT_CODE = 137
DEFAULT_GRACE_SECONDS = 30


def changed_images(old: Pod, new: Pod) -> tuple[str, ...]:
    """The containers of ``new`` whose image differs from the same-named one in ``old``."""
    before = {c.name: c.image for c in old.spec.containers}
    return tuple(c.name for c in new.spec.containers
                 if c.name in before and before[c.name] != c.image)


def _statuses(pod: Pod) -> dict[Any, Any]:
    return {s.get("name"): s for s in pod.status.extra.get("containerStatuses") or ()
            if isinstance(s, Mapping)}


def _is_running(status: Any) -> bool:
    return bool(container_state(status).get("running"))


def _running_image(status: Any) -> str | None:
    """The image a container status says runs, or None when it is not running."""
    return status.get("image") if _is_running(status) else None


class _Restart:
    """One pod's restart under way: the containers being restarted, when they stopped (None
    while they are stopping) and the timer of the next step."""

    __slots__ = ("uid", "names", "stopped_at", "started", "pulls", "timer")

    def __init__(self, uid: str, names: tuple[str, ...], started: dict[str, Any]) -> None:
        self.uid = uid
        self.names = names
        self.started: dict[Any, Any] = started   # name -> startedAt of the stopped instance
        self.stopped_at: float | None = None
        self.pulls: tuple[str, ...] = ()
        self.timer: Any = None


class ContainerRestarts:
    """The pod workers' restarts of changed containers (one per kubelet)."""

    def __init__(self, workers: PodWorkers) -> None:
        self.workers = workers
        self.kubelet: Kubelet = workers.kubelet
        self.store: Store = workers.kubelet.store
        self.clock: Clock = workers.kubelet.clock
        # pod key -> the containers an update changed, not yet restarted
        self.flagged: dict[tuple[str, str], tuple[str, ...]] = {}
        self.under_way: dict[tuple[str, str], _Restart] = {}

    def flag(self, key: tuple[str, str], names: tuple[str, ...]) -> None:
        """An update changed these containers' images (the pod worker acts at its sync)."""
        held = self.flagged.get(key, ())
        self.flagged[key] = held + tuple(n for n in names if n not in held)

    def forget(self, key: tuple[str, str]) -> None:
        """The pod is gone from this kubelet: nothing of it restarts."""
        self.flagged.pop(key, None)
        r = self.under_way.pop(key, None)
        if r is not None and r.timer is not None:
            r.timer.cancel()

    def freeze(self) -> None:
        """The kubelet went silent or its runtime down: each restart under way stops where it
        is, flagged again for the resync after the recovery: one still stopping its old
        containers begins anew, one whose old containers are gone starts the new ones."""
        for key, r in list(self.under_way.items()):
            if r.timer is not None:
                r.timer.cancel()
                r.timer = None
            if r.stopped_at is None:
                del self.under_way[key]
            self.flag(key, r.names)

    def sync(self, key: tuple[str, str], pod: Pod) -> None:
        """The pod worker's sync of a running pod: begin restarting the flagged containers
        whose running image is not the spec's (computePodActions' containerChanged)."""
        names = self.flagged.pop(key, ())
        under_way = self.under_way.get(key)
        if under_way is not None:
            if under_way.timer is None and under_way.stopped_at is not None:
                self._stopped(key, under_way)   # cut short after the stop: start them now
            elif names:
                self.flagged[key] = names   # the restart under way starts them as they are
            return
        if not names:
            return
        statuses = _statuses(pod)
        spec = {c.name: c.image for c in pod.spec.containers}
        changed = tuple(n for n in names if n in spec
                        and _running_image(statuses.get(n)) not in (None, spec[n]))
        if not changed:
            return
        r = _Restart(pod.metadata.uid, changed, {
            n: running_since(statuses[n])
            for n in changed})
        self.under_way[key] = r
        # the new instance runs its own time (pod_completion): the old one's exit is off
        self.workers.completion.cancel_exit(key)
        for name in changed:
            self.store.record_event(pod, "Normal", "Killing",
                                    f"Container {name} definition changed, will be restarted",
                                    COMPONENT)
        grace = pod.spec.termination_grace_period_seconds
        grace = DEFAULT_GRACE_SECONDS if grace is None else max(0, grace)
        r.timer = self.clock.call_later(grace, lambda: self._stopped(key, r), PRIORITY_KUBELET,
                                        f"kubelet/{self.workers.name}/restart-stop")

    def _current(self, key: tuple[str, str], r: _Restart) -> Pod | None:
        """The pod, while its restart ``r`` still goes on (None: it ended)."""
        if self.under_way.get(key) is not r or self.kubelet.halted:
            return None
        pod = self.store.get("Pod", key[1], key[0])
        if pod is None or pod.metadata.uid != r.uid or \
                pod.metadata.deletion_timestamp is not None or pod.is_terminated:
            self.under_way.pop(key, None)
            return None
        return pod

    def _stopped(self, key: tuple[str, str], r: _Restart) -> None:
        """The old containers exited: the new ones' images are pulled as their policy says
        (``Pulling`` now), and they start after the kubelet's start delay."""
        r.timer = None
        pod = self._current(key, r)
        if pod is None:
            return
        workers = self.workers
        now = self.clock.now
        if r.stopped_at is None:
            r.stopped_at = now
        lo, hi = workers.start_delay
        when = now + round(workers.rand.uniform(lo, hi), 1)
        node = self.store.get("Node", workers.name)
        images = workers.images
        pulls = []
        for c in pod.spec.containers:
            if c.name in r.names and images.must_pull(c, node, when):
                images.begin_pull(c, when)
                pulls.append(c.name)
                type_, reason, message = images.pulling(c)
                self.store.record_event(pod, type_, reason, message, COMPONENT)
        r.pulls = tuple(pulls)
        r.timer = self.clock.call_at(when, lambda: self._start(key, r), PRIORITY_KUBELET,
                                     f"kubelet/{workers.name}/restart-start")

    def _start(self, key: tuple[str, str], r: _Restart) -> None:
        """The new containers start: their events, and the status the kubelet posts."""
        r.timer = None
        pod = self._current(key, r)
        if pod is None:
            return
        del self.under_way[key]
        workers = self.workers
        node = self.store.get("Node", workers.name)
        took = round(self.clock.now - (r.stopped_at or self.clock.now), 3)
        started = []
        waiting: dict[str, tuple[str, str]] = {}
        for c in pod.spec.containers:
            if c.name not in r.names:
                continue
            events, ok = workers.images.ensure(c, node, took, c.name in r.pulls)
            for type_, reason, message in events:
                self.store.record_event(pod, type_, reason, message, COMPONENT)
            if not ok:
                # ErrImageNeverPull: this container does not start; it waits, not ready
                type_, reason, message = events[-1]
                waiting[c.name] = (reason, message)
                continue
            self.store.record_event(pod, "Normal", "Created", f"Created container: {c.name}",
                                    COMPONENT)
            self.store.record_event(pod, "Normal", "Started", f"Started container {c.name}",
                                    COMPONENT)
            started.append(c)
        pod = post_status(self.store, pod, new_instance_status(pod, started, waiting, r,
                                                               self.clock.now))
        if started and not waiting:
            workers.completion.schedule_exit(key, pod)


def new_instance_status(pod: Pod, started: list[Any], waiting: dict[str, tuple[str, str]],
                        r: _Restart, now: float) -> Any:
    """``pod``'s status with each container of ``started`` running anew (its image, one more
    restart) and each of ``waiting`` (name -> (reason, message)) waiting, not ready; the
    stopped instance the last state of each. A container waiting makes the pod not ready."""
    images = {c.name: c.image for c in started}
    out = []
    for s in pod.status.extra.get("containerStatuses") or ():
        name = s.get("name") if isinstance(s, Mapping) else None
        if name is None or name not in images and name not in waiting:
            out.append(s)
            continue
        last = {"lastState": FrozenDict({"terminated": FrozenDict({
            "exitCode": KILLED_EXIT_CODE, "reason": "Error",
            "startedAt": r.started.get(name), "finishedAt": r.stopped_at})})}
        if name in images:
            out.append(FrozenDict({
                **s, **last, "image": images[name], "ready": True, "started": True,
                "restartCount": restarts_of(s) + 1,
                "state": FrozenDict({"running": FrozenDict({"startedAt": now})})}))
        else:
            reason, message = waiting[str(name)]
            out.append(FrozenDict({
                **s, **last, "ready": False, "started": False,
                "state": FrozenDict({"waiting": FrozenDict({"reason": reason,
                                                             "message": message})})}))
    status = evolve(pod.status, extra=pod.status.extra.set("containerStatuses", tuple(out)))
    if waiting:
        unready = f"containers with unready status: [{' '.join(sorted(waiting))}]"
        status = evolve(status, conditions=readiness(pod, "False", now, "ContainersNotReady",
                                                     unready))
    return status


def kept_instances(olds: Any, statuses: tuple) -> tuple:
    """A running pod's container ``statuses`` as the kubelet builds them from the spec, with
    each container that ran before (``olds``: the stored statuses) as it was: the image it
    runs, its restarts, its last state, since when it runs. A pod re-posted Running after a
    recovery kept its containers; one whose image changed meanwhile restarts after (sync)."""
    before: dict[Any, Any] = {s.get("name"): s for s in olds if hasattr(s, "get")}
    out = []
    changed = False
    for s in statuses:
        old = before.get(s.get("name"))   # (statuses: the kubelet's own, all mappings)
        if old is None or not _is_running(old):
            out.append(s)
            continue
        kept = FrozenDict({**s, **{k: old[k] for k in ("image", "restartCount", "lastState",
                                                         "state") if k in old}})
        changed = changed or kept != s
        out.append(kept if kept != s else s)
    return tuple(out) if changed else statuses
