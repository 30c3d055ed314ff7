"""``kubectl drain`` as a process on the simulated clock.

Why a process: a real ``kubectl drain`` blocks until every pod is gone, retrying evictions a
PodDisruptionBudget refuses every 5 s. The sandbox's clock only moves when its caller runs it,
so a drain cannot loop inside the command. Instead :func:`run_drain` does what kubectl does in
its first instant — cordon, list and filter the pods, print the warnings, issue the first
evictions — and returns that transcript; a :class:`Drain` then carries on on the clock,
retrying refused evictions every 5 s (``EvictErrorRetryDelay``), noticing deletions on
kubectl's 1-second poll (``waitForDelete``), draining the next node, and finishing with
``node/x drained``. A node that cannot be drained is reported (``error: unable to drain node
"x" due to error: ..., continuing command...``) and the drain goes on with the next node, as
current kubectl's RunDrain does; at the end the failed nodes are listed (``There are pending
nodes to be drained:``) and kubectl's CheckErr prints the collected errors. Every line,
immediate or later, is kept in :attr:`Drain.log` with its simulated time; the ``drain``
component (:class:`DrainRunner`) holds the drains so the TUI can show a live one.

Behaviour and messages follow ``kubernetes/kubectl`` ``pkg/cmd/drain/drain.go`` (RunDrain,
deleteOrEvictPodsSimple), ``pkg/drain/drain.go`` (evictPods, deletePods, waitForDelete) and
``pkg/drain/filters.go`` (the filters in their order: deleted-too-long, DaemonSet, mirror,
local storage, unreplicated; only the last filter's verdict is kept, as upstream). Evictions
go through the Eviction API (``ksandbox.apiserver.eviction``), as kubectl's do.

Transcript: :class:`~ksandbox.commands.result.CommandResult` ``output`` holds what kubectl prints,
stdout and its non-fatal stderr lines in order; ``error`` holds the failure lines (each
``unable to drain node`` line, the pending nodes and the final errors) when the drain has
failed by the time the command returns (the filters refuse a pod); an unknown node fails the
command before anything happens.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Collection, Sequence

import attrs

from ..api.core import FAILED, SUCCEEDED
from ..api.errors import ApiError
from ..api.selector_parser import parse_selector
from ..apiserver.eviction import EvictionAPI
from ..apiserver.store import DELETED, WatchEvent
from ..sim.clock import PRIORITY_DEFAULT
from .parse import dry_run_suffix
from .result import CommandResult

if TYPE_CHECKING:
    from ..api.core import Pod
    from ..apiserver.store import Store
    from ..session import Session

# kubectl pkg/cmd/drain: EvictErrorRetryDelay.
EVICT_ERROR_RETRY_DELAY = 5.0
# kubectl pkg/drain/drain.go: waitForDelete polls every second.
POLL_INTERVAL = 1.0
# pkg/drain/filters.go: the blocking and warning texts.
DAEMONSET_FATAL = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_FATAL = "Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_FATAL = "cannot delete Pods that declare no controller (use --force to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"
OK, SKIP, WARNING, ERROR = "Okay", "Skip", "Warning", "Error"


# -- the Eviction API -----------------------------------------------------------------------

# -- the filters ----------------------------------------------------------------------------

def _filter_pods(store: Store, node_name: str, options: Any, now: float
                 ) -> tuple[list[Any], str, list[str]]:
    """GetPodsForDeletion: (pods to evict, the warnings line, the errors)."""
    pods = sorted(store.pods_on_node(node_name),
                  key=lambda p: (p.metadata.namespace, p.metadata.name))
    if options.pod_selector:
        sel = parse_selector(options.pod_selector)
        pods = [p for p in pods if sel.matches(p.metadata.labels)]
    filters: list[Callable[[Any], tuple[bool, str, str]]] = [
        lambda p: _skip_deleted(p, options, now),
        lambda p: _daemonset(store, p, options),
        _mirror,
        lambda p: _local_storage(p, options),
        lambda p: _unreplicated(p, options),
    ]
    keep, warnings, errors = [], {}, {}
    for pod in pods:
        status = (True, OK, "")
        for f in filters:
            status = f(pod)
            if not status[0]:
                break
        delete, reason, message = status
        ident = f"{pod.metadata.namespace}/{pod.metadata.name}"
        if delete:
            keep.append(pod)
        if reason == WARNING:
            warnings.setdefault(message, []).append(ident)
        elif reason == ERROR:
            errors.setdefault(message or "unexpected error", []).append(ident)
    warning = "; ".join(f"{m}: {', '.join(ps)}" for m, ps in warnings.items())
    errs = []
    for msg, ps in errors.items():
        prefix = "" if msg.lower().startswith("cannot delete") else "cannot delete "
        errs.append(f"{prefix}{msg}: {', '.join(ps)}")
    return keep, warning, errs


def _finished(pod: Pod) -> bool:
    return pod.status.phase in (SUCCEEDED, FAILED)


def _skip_deleted(pod: Pod, options: Any, now: float) -> tuple[bool, str, str]:
    if _should_skip(pod, options.skip_wait_for_delete_timeout, now):
        return False, SKIP, ""
    return True, OK, ""


def _should_skip(pod: Pod, seconds: int, now: float) -> bool:
    ts = pod.metadata.deletion_timestamp
    return seconds > 0 and ts is not None and int(now - ts) > seconds


def _daemonset(store: Store, pod: Pod, options: Any) -> tuple[bool, str, str]:
    ref = pod.metadata.controller_ref()
    if ref is None or ref.kind != "DaemonSet" or _finished(pod):
        return True, OK, ""
    if store.get("DaemonSet", ref.name, pod.metadata.namespace) is None:
        message = f'daemonsets.apps "{ref.name}" not found'
        if options.force:
            return True, WARNING, message
        return False, ERROR, message
    if not options.ignore_daemonsets:
        return False, ERROR, DAEMONSET_FATAL
    return False, WARNING, DAEMONSET_WARNING


def _mirror(pod: Pod) -> tuple[bool, str, str]:
    return (False, SKIP, "") if pod.is_mirror else (True, OK, "")


def _local_storage(pod: Pod, options: Any) -> tuple[bool, str, str]:
    if not any(v.is_empty_dir for v in pod.spec.volumes) or _finished(pod):
        return True, OK, ""
    if not options.delete_emptydir_data:
        return False, ERROR, LOCAL_STORAGE_FATAL
    return True, WARNING, LOCAL_STORAGE_WARNING


def _unreplicated(pod: Pod, options: Any) -> tuple[bool, str, str]:
    if _finished(pod) or pod.metadata.controller_ref() is not None:
        return True, OK, ""
    if options.force:
        return True, WARNING, UNMANAGED_WARNING
    return False, ERROR, UNMANAGED_FATAL


def _aggregate(errors: list[str]) -> str:
    """utilerrors.NewAggregate(...).Error()."""
    return errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"


def go_duration(seconds: float) -> str:
    """Go's time.Duration String for whole and fractional seconds (``1m0s``, ``30s``)."""
    if seconds == 0:
        return "0s"
    total = seconds
    h = int(total // 3600)
    m = int((total - h * 3600) // 60)
    s = total - h * 3600 - m * 60
    s_text = f"{s:g}s"
    if h:
        return f"{h}h{m}m{s_text}"
    if m:
        return f"{m}m{s_text}"
    return s_text


# -- the process ----------------------------------------------------------------------------

@attrs.frozen
class LogLine:
    """One line kubectl printed: when, on which stream, what."""

    time: float
    stream: str          # "out" | "err"
    text: str
    fatal: bool = False  # part of the failure report (CommandResult.error)


class _PodWork:
    """One pod's eviction (or deletion) goroutine."""

    __slots__ = ("namespace", "name", "uid", "done", "error", "waiting_since", "timer")

    def __init__(self, pod: Pod) -> None:
        self.namespace = pod.metadata.namespace
        self.name = pod.metadata.name
        self.uid = pod.metadata.uid
        self.done = False
        self.error = ""
        self.waiting_since: float | None = None
        self.timer: Any = None


class Drain:
    """One ``kubectl drain`` run: its nodes, options, transcript and progress."""

    def __init__(self, runner: "DrainRunner", nodes: list[str], options: Any) -> None:
        self.runner = runner
        self.store = runner.store
        self.clock = runner.clock
        self.nodes = list(nodes)
        self.options = options
        self.started_at = self.clock.now
        self.log: list[LogLine] = []
        self.error = ""
        self.state = "running"        # running | drained | failed
        self.drained: list[str] = []
        # Nodes that could not be drained: (name, errors, whether the error is an aggregate).
        self.failures: list[tuple[str, list[str], bool]] = []
        self._index = 0
        self._works: list[_PodWork] = []
        self._deadline = math.inf
        self._timeout_timer: Any = None

    # -- output --------------------------------------------------------------------------
    def _out(self, text: str) -> None:
        self.log.append(LogLine(self.clock.now, "out", text))

    def _err(self, text: str) -> None:
        self.log.append(LogLine(self.clock.now, "err", text))

    def _fatal(self, text: str) -> None:
        self.log.append(LogLine(self.clock.now, "err", text, fatal=True))

    @property
    def done(self) -> bool:
        return self.state != "running"

    @property
    def suffix(self) -> str:
        return dry_run_suffix(self.options.dry_run)

    def transcript(self) -> str:
        return "".join(line.text + "\n" for line in self.log)

    # -- steps ---------------------------------------------------------------------------
    def begin(self) -> None:
        """RunCordonOrUncordon(true), then the first node."""
        for name in self.nodes:
            node = self.store.get("Node", name)
            if node.spec.unschedulable:
                self._out(f"node/{name} already cordoned{self.suffix}")
                continue
            if self.options.dry_run == "none":
                self.store.update(attrs.evolve(node, spec=attrs.evolve(node.spec,
                                                                       unschedulable=True)))
            self._out(f"node/{name} cordoned{self.suffix}")
        self._next_node()

    def _next_node(self) -> None:
        """Drain the nodes in turn (a loop, not recursion: a thousand refused nodes are a
        thousand turns) until one has to wait for its evictions, or the end."""
        while self._index < len(self.nodes):
            if not self._drain_node(self.nodes[self._index]):
                return
        self._end()

    def _drain_node(self, name: str) -> bool:
        """deleteOrEvictPodsSimple for one node; True when the node is done at once."""
        pods, warning, errors = _filter_pods(self.store, name, self.options, self.clock.now)
        if errors:
            self._node_error(name, errors, aggregate=True)
            return True
        if warning:
            self._err(f"Warning: {warning}")
        if self.options.dry_run == "client":
            for p in pods:
                self._out(f"evicting pod {p.metadata.namespace}/{p.metadata.name} (dry run)")
            self._node_drained(name)
            return True
        self._works = [_PodWork(p) for p in pods]
        self._deadline = self.clock.now + self.options.timeout if self.options.timeout > 0 \
            else math.inf
        if not self._works:
            self._node_drained(name)
            return True
        if self._deadline < math.inf:
            self._timeout_timer = self.clock.call_at(self._deadline, self._on_timeout,
                                                     PRIORITY_DEFAULT, "drain/timeout")
        if self.options.disable_eviction:
            self._delete_all()
        else:
            for w in self._works:
                self._attempt(w)
        return self._check_node_done()

    def _after_wait(self) -> None:
        """A pod's eviction moved on the clock: if that ended the node, drain the next."""
        if self._check_node_done():
            self._next_node()

    def _node_drained(self, name: str) -> None:
        self.drained.append(name)
        self._out(f"node/{name} drained{self.suffix}")
        self._index += 1

    def _node_error(self, name: str, errors: list[str], aggregate: bool,
                    pending: list[str] | None = None) -> None:
        """RunDrain when deleteOrEvictPodsSimple fails: report, remember, go on."""
        text = _aggregate(errors) if aggregate else errors[0]
        if pending:
            self._err(f'There are pending pods in node "{name}" when an error occurred: '
                      f"{text}")
            for p in pending:
                self._err(f"pod/{p}")
        self._fatal(f'error: unable to drain node "{name}" due to error: {text}, '
                    "continuing command...")
        self.failures.append((name, list(errors), aggregate))
        self._index += 1

    def _end(self) -> None:
        """The end of RunDrain: the nodes left undrained, then CheckErr's text for
        ``utilerrors.NewAggregate(fatal)`` — one node's aggregate is unwrapped and printed one
        error a line; a single plain error gets ``error: ``; several nodes' errors are printed
        one node a line, without a prefix."""
        if not self.failures:
            self.state = "drained"
            self.runner.finished(self)
            return
        self._fatal("There are pending nodes to be drained:")
        for name, _errors, _agg in self.failures:
            self._fatal(f" {name}")
        if len(self.failures) == 1:
            _name, errors, aggregate = self.failures[0]
            tail = list(errors) if aggregate else [f"error: {errors[0]}"]
        else:
            tail = [_aggregate(errors) if aggregate else errors[0]
                    for _name, errors, aggregate in self.failures]
        for text in tail:
            self._fatal(text)
        self.error = "".join(line.text + "\n" for line in self.log if line.fatal)
        self.state = "failed"
        self.runner.finished(self)

    # -- eviction ------------------------------------------------------------------------
    def _attempt(self, w: _PodWork) -> None:
        """One turn of evictPods' loop for a pod."""
        w.timer = None
        if self.options.dry_run == "server":
            self._out(f"evicting pod {w.namespace}/{w.name} (server dry run)")
        else:
            self._out(f"evicting pod {w.namespace}/{w.name}")
        if self.clock.now >= self._deadline:
            self._finish(w, f'error when evicting pods/"{w.name}" -n "{w.namespace}": global '
                            f"timeout reached: {go_duration(self.options.timeout)}")
            return
        result = self.runner.eviction.evict(w.namespace, w.name, self.options.grace_period,
                                            dry_run=self.options.dry_run == "server")
        if result.code == 201:
            if self.options.dry_run == "server":
                self._finish(w, "")
                return
            self._wait_for_delete(w)
        elif result.code == 404:
            self._finish(w, "")
        elif result.code == 429:
            self._err(f'error when evicting pods/"{w.name}" -n "{w.namespace}" (will retry '
                      f'after {go_duration(EVICT_ERROR_RETRY_DELAY)}): {result.message}')
            w.timer = self.clock.call_later(EVICT_ERROR_RETRY_DELAY, lambda: self._retry(w),
                                            PRIORITY_DEFAULT, "drain/retry")
        else:
            self._finish(w, f'error when evicting pods/"{w.name}" -n "{w.namespace}": '
                            f"{result.message}")

    def _retry(self, w: _PodWork) -> None:
        fresh = self.store.get("Pod", w.name, w.namespace)
        if fresh is not None:
            w.uid = fresh.metadata.uid
        self._attempt(w)
        self._after_wait()

    def _delete_all(self) -> None:
        """deletePods: delete each (with the grace period asked for), then wait for all."""
        grace = self.options.grace_period if self.options.grace_period >= 0 else None
        for w in self._works:
            if self.options.dry_run != "server" and \
                    self.store.get("Pod", w.name, w.namespace) is not None:
                self.store.delete("Pod", w.name, w.namespace, grace_period=grace)
        if self.options.dry_run == "server":
            for w in self._works:
                self._finish(w, "")
            return
        for w in self._works:
            self._wait_for_delete(w)

    def _wait_for_delete(self, w: _PodWork) -> None:
        """waitForDelete: an immediate poll, then one a second until the pod is gone."""
        w.waiting_since = self.clock.now
        pod = self.store.get("Pod", w.name, w.namespace)
        if pod is None or pod.metadata.uid != w.uid:
            self._deleted(w)
            return
        if _should_skip(pod, self.options.skip_wait_for_delete_timeout, self.clock.now):
            self._out(f'pod "{w.name}" has DeletionTimestamp older than '
                      f"{self.options.skip_wait_for_delete_timeout} seconds, skipping")
            self._finish(w, "")
            return
        self.runner.wait(w.namespace, w.name, w.uid, lambda: self._on_gone(w))

    def _on_gone(self, w: _PodWork) -> None:
        """The pod left the API: the next one-second poll sees it."""
        if w.done or w.waiting_since is None:
            return
        elapsed = self.clock.now - w.waiting_since
        at = w.waiting_since + math.ceil(elapsed / POLL_INTERVAL - 1e-9) * POLL_INTERVAL
        if at >= self._deadline:
            return
        w.timer = self.clock.call_at(at, lambda: (self._deleted(w), self._after_wait()),
                                     PRIORITY_DEFAULT, "drain/poll")

    def _deleted(self, w: _PodWork) -> None:
        verb = "deleted" if self.options.disable_eviction else "evicted"
        self._out(f"pod/{w.name} {verb}{self.suffix}")
        self._finish(w, "")

    def _finish(self, w: _PodWork, error: str) -> None:
        w.done = True
        w.error = error
        if w.timer is not None:
            w.timer.cancel()
        w.timer = None

    def _on_timeout(self) -> None:
        self._timeout_timer = None
        for w in self._works:
            if w.done or w.waiting_since is None:
                continue   # one waiting to retry finds the deadline on its next turn
            if self.options.disable_eviction:
                continue
            self._finish(w, f'error when waiting for pod "{w.name}" in namespace '
                            f'"{w.namespace}" to terminate: context deadline exceeded')
        if self.options.disable_eviction and any(not w.done for w in self._works):
            for w in self._works:
                if not w.done:
                    self._finish(w, "")
            self._node_failed(["context deadline exceeded"], aggregate=False)
            self._next_node()
            return
        self._after_wait()

    def _check_node_done(self) -> bool:
        """When every pod of the current node is done: the node is drained or failed (True)."""
        if self.done or not self._works or any(not w.done for w in self._works):
            return False
        errors = [w.error for w in self._works if w.error]
        self._works = []
        if self._timeout_timer is not None:
            self._timeout_timer.cancel()
            self._timeout_timer = None
        name = self.nodes[self._index]
        if errors:
            self._node_failed(errors, aggregate=True)
        else:
            self._node_drained(name)
        return True

    def _node_failed(self, errors: list[str], aggregate: bool) -> None:
        name = self.nodes[self._index]
        pending, _w, _e = _filter_pods(self.store, name, self.options, self.clock.now)
        self._works = []
        self._node_error(name, errors, aggregate, [p.metadata.name for p in pending])


class DrainRunner:
    """The ``drain`` component: every drain run in this sandbox, the live ones on the clock."""

    name = "drain"

    def __init__(self, eviction: EvictionAPI) -> None:
        self.eviction = eviction
        self.drains: list[Drain] = []
        self._waiters: dict[tuple[str, str], list[tuple[str, Callable[[], None]]]] = {}

    def start(self, cp: Any) -> None:
        self.store = cp.store
        self.clock = cp.clock
        # _on_pod waits for deletions only
        self.store.subscribe("Pod", self._on_pod, types=(DELETED,))

    def muted_for_load(self, kinds: Collection[str] = (), objects: Sequence[Any] = ()
                       ) -> list[tuple[str, Any]]:
        """The pod watch hears deletions only: a load (creates) has nothing for it."""
        return [("Pod", self._on_pod)]

    def load_done(self) -> None:
        pass

    def _on_pod(self, ev: WatchEvent) -> None:
        if ev.type != DELETED or not self._waiters:
            return
        key = (ev.obj.metadata.namespace, ev.obj.metadata.name)
        waiting = self._waiters.pop(key, None)
        if not waiting:
            return
        keep = []
        for uid, fn in waiting:
            if uid == ev.obj.metadata.uid:
                self.clock.call_soon(fn, PRIORITY_DEFAULT, "drain/gone")
            else:
                keep.append((uid, fn))
        if keep:
            self._waiters[key] = keep

    def wait(self, namespace: str, name: str, uid: str, fn: Callable[[], None]) -> None:
        self._waiters.setdefault((namespace, name), []).append((uid, fn))

    def finished(self, drain: Drain) -> None:
        """A drain ended (drained or failed); nothing else to do but keep its log."""

    def run(self, nodes: list[str], options: Any) -> Drain:
        drain = Drain(self, nodes, options)
        self.drains.append(drain)
        drain.begin()
        return drain

    def active(self) -> list[Drain]:
        return [d for d in self.drains if not d.done]

    def log(self) -> list[LogLine]:
        """The transcript of the most recent drain (what the TUI shows while it runs)."""
        return list(self.drains[-1].log) if self.drains else []


def run_drain(session: Session, node_names: list[str], options: Any) -> Any:
    """Start ``kubectl drain`` on ``node_names``; the CommandResult is what it printed so far."""
    for name in node_names:
        if session.store.get("Node", name) is None:
            raise ApiError.not_found("nodes", name)
    drain = session.cp.drain.run(list(node_names), options)
    if drain.state == "failed":
        output = "".join(line.text + "\n" for line in drain.log if not line.fatal)
        return CommandResult("", output, drain.error)
    return CommandResult("", "".join(line.text + "\n" for line in drain.log), "")
