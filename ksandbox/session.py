"""The Session: the one object the CLI, the TUI, playback and tests talk to.

A session owns a store, a clock, the seeded random source and the control-plane components.
``submit(text)`` runs one command (kubectl syntax or a sandbox verb) at the current simulated
time and records it; ``run_until(t)`` advances the clock; ``settle()`` runs until nothing is
left to do; ``fork()`` gives an independent what-if copy; ``view()`` is the state in the JSON
contract of ``ksandbox sim -o json``.

Nothing here draws or prints: presenters live in ``ksandbox.views``, the UI in ``ksandbox.tui``.
"""

from __future__ import annotations

import threading
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

import attrs

from . import gcpolicy
from .api.core import Namespace
from .api.errors import ApiError, CommandError
from .api.kinds import BY_KIND
from .api.manifest import ConfigDocument, SourceTexts, load_files_with_sources, load_manifests
from .api.meta import ObjectMeta
from .api.scheduling import PriorityClass
from .apiserver.store import Store, apply_all
from .commands.result import CommandResult
from .controlplane import ControlPlane, build_components
from .scheduler.explain import explain_pod
from .sim import limits
from .sim.clock import Clock
from .sim.rand import SimRandom

if TYPE_CHECKING:
    from .api.core import Pod

# A headless run has settled when no foreground work is scheduled and nothing has changed for
# this long. It must exceed node-monitor-grace-period (50 s) plus node-monitor-period (5 s), so
# that a silent node is still noticed; components can ask for longer with busy_until().
QUIET_SECONDS = 60.0
DEFAULT_LIMIT = 3600.0
# Callbacks run between two calls of a progress hook (Session.progress).
PROGRESS_SLICE = 256
CHANGE_LOG_SIZE = 50_000
# Namespaces every cluster starts with.
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
# The PriorityClasses every API server creates at start-up (pkg/apis/scheduling
# SystemPriorityClasses, made by the scheduling REST storage's post-start hook).
SYSTEM_PRIORITY_CLASSES = (
    ("system-node-critical", 2_000_001_000,
     "Used for system critical pods that must not be moved from their current node."),
    ("system-cluster-critical", 2_000_000_000,
     "Used for system critical pods that must run in the cluster, but can be moved to another "
     "node if necessary."),
)


@attrs.frozen
class Step:
    """One recorded command: what was typed, at which simulated second."""

    at: float
    command: str
    stdin: str | None = None


class SessionLock:
    """One session's lock: held while anything runs the sandbox (the clock, a command, a
    fork) and while a reader on another thread computes from it (the TUI's explain worker),
    so the reader sees one consistent moment — explain swaps the scheduler's cache for a
    shadow one and updates the fast path's tables while it runs. Re-entrant: a command that
    runs the clock takes it twice. A fork gets a lock of its own."""

    __slots__ = ("_lock",)

    def __init__(self) -> None:
        self._lock = threading.RLock()

    def acquire(self, blocking: bool = True) -> bool:
        return self._lock.acquire(blocking)

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> "SessionLock":
        self._lock.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.release()

    def __deepcopy__(self, memo: Any) -> "SessionLock":
        return SessionLock()


# Components that can catch up from the loaded store do, instead of hearing every write of
# the load (False: every component hears every write, as for any later write — the tests
# compare the two).
BULK_START = True


class Session:
    def __init__(self, objects: Iterable[Any] = (), *, seed: int = 0,
                 configs: Iterable[ConfigDocument] = (), name: str = "sandbox",
                 origins: list[Any] | None = None,
                 progress: Callable[[float], None] | None = None,
                 source: SourceTexts | None = None, take: bool = False,
                 keep_start: bool = True) -> None:
        """``source``: the texts ``objects`` were decoded from (all of them, configuration
        documents aside): the session keeps those instead of the objects (initial_objects).
        ``keep_start=False``: the session keeps neither (a one-shot run that never replays,
        forks for a replay nor records: ``ksandbox sim``, ``explain``); initial_objects then
        raises. ``take`` (with ``source`` or not ``keep_start``; ``objects`` and ``origins``
        lists): the caller hands the decoded objects over — the lists are emptied, and each
        object goes as soon as it is stored (apply_all's ``take``)."""
        gcpolicy.tune()  # a cluster is many long-lived objects: see gcpolicy.py
        self.name = name
        self.seed = seed
        self.lock = SessionLock()
        self.clock = Clock()
        self.rand = SimRandom(seed)
        self.store = Store(self.clock.read, self.rand.child("apiserver"))
        self.cp = ControlPlane(self.store, self.clock, self.rand, list(configs))
        self.history: list[Step] = []
        # Called with the simulated time between slices of a long run (a progress display
        # outside the simulation; it never changes what runs): see _run_clock.
        self.progress = progress
        # Watch handlers from outside the simulation (a UI's model): forks leave them out.
        self._observers: list[Any] = []
        # (resourceVersion, kind, namespace, name) of recent writes, for changes_since(); None
        # until its first call starts it (a run nobody asks stays off every write's path).
        self._changes: deque[tuple[int, str, str, str]] | None = None
        self.components = build_components(self.cp)
        for c in self.components:
            self.cp.components[c.name] = c
        for c in self.components:
            c.start(self.cp)
        if not keep_start:
            source = None
        take = take and (source is not None or not keep_start)
        given, given_origins = objects, origins
        objects = list(objects)
        if take:
            # The session holds the only references from here on (the caller keeps none:
            # cli._load_session), so each decoded object can go once its stored copy is made.
            # Held to the end, 150,000 decoded pods (~500 bytes each with their origins) were
            # freed after the stored objects were made around them: ~50 MB of freed memory
            # the process kept. Going one by one, their memory holds the next stored ones.
            assert isinstance(given, list)
            given.clear()
            if given_origins is not None:
                origins = list(given_origins)
                given_origins.clear()
        # A `kind: List` export (kubectl get all -A -o yaml) names namespaces it does not list:
        # the cluster it came from had them, so they are made here — and kept with the
        # session's objects, so a replay builds the same cluster.
        self.implied_namespaces = implied_namespaces(objects, origins)
        if self.implied_namespaces:
            made = [Namespace(metadata=ObjectMeta(name=ns)) for ns in self.implied_namespaces]
            objects = made + objects
            origins = [None] * len(made) + list(origins) if origins is not None else None
            del made
        # What the session started from (with cp.configs): replay and recordings rebuild it
        # — the objects themselves, or the texts they were decoded from (initial_objects).
        self._initial_objects: list[Any] | None = \
            objects if source is None and keep_start else None
        self._initial_source = source
        for ns in SYSTEM_NAMESPACES:
            self.store.create(Namespace(metadata=ObjectMeta(name=ns)))
        for name, value, description in SYSTEM_PRIORITY_CLASSES:
            self.store.create(PriorityClass(metadata=ObjectMeta(name=name), value=value,
                                            description=description,
                                            preemption_policy="PreemptLowerPriority"))
        # A big load handed over (the process's own load: the CLI, from_files, bench/load.py)
        # builds its cluster without the collector and freezes it (gcpolicy.bulk_load). Not
        # a replay's (fresh_start): a frozen session that is discarded is never reclaimed.
        with gcpolicy.bulk_load(len(objects) if take else 0):
            if objects:
                order = _order(objects)
                # The bulk start: a component that can catch up from the store once the objects
                # are written (muted_for_load(kinds loaded) / load_done) hears none of the
                # writes, and ends exactly as if it had heard each (tests/test_bulk_start.py).
                # The shared informers' indexes first: they catch up before any component's
                # load_done, which may read them.
                bulk = [self.cp.informers,
                        *(c for c in self.components if hasattr(c, "muted_for_load"))] \
                    if BULK_START else []
                kinds = {o.kind for o in objects}
                muted = [c.muted_for_load(kinds, objects) for c in bulk]
                with self.store.muted([pair for pairs in muted for pair in pairs]):
                    # atomic=False: a refused object refuses the whole session (nothing is kept),
                    # so the objects need no staging copy before they are written (apply_all)
                    ordered = list(map(objects.__getitem__, order))
                    ordered_origins = list(map(origins.__getitem__, order)) \
                        if origins is not None else None
                    if take:
                        objects.clear()
                        origins = None
                    apply_all(self.store, ordered, ordered_origins, atomic=False, take=take)
                    del ordered, ordered_origins
                for c, pairs in zip(bulk, muted):
                    if pairs:
                        c.load_done()
            # Let the control plane react to the initial objects at t=0.
            self._run_clock(0.0)

    @property
    def initial_objects(self) -> list[Any]:
        """The objects the session started from, in order (the namespaces it made for an
        export first): kept, or decoded again from the texts they came from — equal objects
        either way, for replays, undo and recordings."""
        if self._initial_objects is not None:
            return self._initial_objects
        if self._initial_source is None:
            raise RuntimeError("this session was built without keeping what it started from "
                               "(keep_start=False): it cannot be replayed or recorded")
        made = [Namespace(metadata=ObjectMeta(name=ns)) for ns in self.implied_namespaces]
        return made + self._initial_source.objects()

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def from_documents(cls, docs: Iterable[Any], *, seed: int = 0, name: str = "sandbox",
                       origins: list[Any] | None = None,
                       progress: Callable[[float], None] | None = None,
                       source: SourceTexts | None = None, take: bool = False,
                       keep_start: bool = True) -> "Session":
        """A session from loaded documents; ``origins`` (parallel to ``docs``) lets a refusal
        name the file and document it came from; ``source``: the texts ``docs`` are all the
        documents of (the session keeps them instead of the objects); ``take``: the caller
        hands ``docs`` and ``origins`` (lists) over and keeps no other reference to their
        objects — the lists are emptied (see __init__); ``keep_start``: see __init__."""
        if not isinstance(docs, list):
            docs = list(docs)   # read twice below
        configs = [d for d in docs if isinstance(d, ConfigDocument)]
        if not configs:   # a load's 150,000 objects copied at once, not one by one
            objects = list(docs)
            object_origins = list(origins) if origins is not None else []
        else:
            objects, object_origins = [], []
            for i, d in enumerate(docs):
                if isinstance(d, ConfigDocument):
                    continue
                objects.append(d)
                object_origins.append(origins[i] if origins is not None else None)
        if take and (source is not None or not keep_start):
            assert isinstance(docs, list)
            docs.clear()
            if origins is not None:
                origins.clear()
        return cls(objects, seed=seed, configs=configs, name=name,
                   origins=object_origins if origins is not None else None, progress=progress,
                   source=source, take=take, keep_start=keep_start)

    @classmethod
    def from_files(cls, paths: Iterable[str | Path], *, seed: int = 0) -> "Session":
        paths = list(paths)
        loaded, texts = load_files_with_sources(paths)
        names = [Path(p).name.split(".")[0] for p in paths]
        docs, origins = [o for o, _ in loaded], [o for _, o in loaded]
        del loaded   # handed over (take): see __init__
        return cls.from_documents(docs, seed=seed, name=",".join(names) or "sandbox",
                                  origins=origins, source=texts, take=True)

    @classmethod
    def from_text(cls, text: str, *, seed: int = 0, source: str = "<input>") -> "Session":
        return cls.from_documents(load_manifests(text, source), seed=seed)

    # -- time -------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self.clock.now

    def _run_clock(self, t: float) -> None:
        """clock.run_until(t); with a progress hook, in slices with the hook called between."""
        progress = self.progress
        with self.lock:
            if progress is None:
                self.clock.run_until(t)
                return
            while not self.clock.run_until(t, budget=PROGRESS_SLICE):
                progress(self.clock.now)
        progress(self.clock.now)

    def run_until(self, t: float) -> None:
        """Advance to simulated second ``t``, never past the horizon (sim/limits.py): the
        CLI and the script loader refuse a later time with an error; here, a caller that
        asks for more (a UI left playing for a month) stops at the horizon. A time that is
        not a finite number is a CommandError, before anything runs."""
        if t != t or t in (float("inf"), float("-inf")):
            raise CommandError(f"cannot run to {t!r}: "
                               f"{limits.time_problem(float('nan'))}")
        self._run_clock(min(t, max(limits.LIMITS.horizon, self.clock.now)))

    def run_for(self, seconds: float) -> None:
        self.run_until(self.clock.now + seconds)

    def run_next(self) -> bool:
        """Run the next scheduled callback only (a paced UI spreads a burst over frames)."""
        with self.lock:
            return self.clock.step()

    def step(self) -> bool:
        """Jump to the next scheduled callback and run everything due then."""
        t = self.clock.next_event_time()
        if t is None:
            return False
        self._run_clock(t)
        return True

    def busy_until(self) -> float:
        """The simulated time until which the sandbox expects activity."""
        t = self.store.last_change_time + QUIET_SECONDS
        for c in self.components:
            hint = getattr(c, "busy_until", None)
            if hint is not None:
                h = hint()
                if h is not None and h > t:
                    t = h
        return t

    def settle(self, limit: float | None = None) -> None:
        """Run until nothing is left to do (no foreground work, quiet for a while)."""
        limit = self.clock.now + DEFAULT_LIMIT if limit is None else limit
        limit = min(limit, limits.LIMITS.horizon)
        clock = self.clock
        while clock.now < limit:
            if clock.foreground_pending:
                nxt = clock.next_event_time()
                if nxt is None or nxt > limit:
                    break
                self._run_clock(nxt)
                continue
            quiet_end = self.busy_until()
            if quiet_end <= clock.now:
                return
            nxt = clock.next_event_time()
            if nxt is None:
                return
            self._run_clock(min(max(nxt, clock.now), limit))
            if nxt > quiet_end:
                return
        if clock.now < limit and clock.next_event_time() is None:
            return

    # -- commands ---------------------------------------------------------------------------
    def submit(self, text: str, stdin: str | None = None, *, record: bool = True) -> CommandResult:
        """Run one command now; never raises for bad input (the error is in the result)."""
        with self.lock:
            return self._submit(text, stdin, record)

    def _submit(self, text: str, stdin: str | None, record: bool) -> CommandResult:
        from .commands import execute

        text = text.strip()
        if record:
            # Recordings keep times to the millisecond: a command runs at a whole millisecond
            # (the clock moves on by less than 1 ms first), so replaying it at the time written
            # down meets exactly the state it met here.
            aligned = ceil_ms(self.clock.now)
            if aligned > self.clock.now:
                self.clock.run_until(aligned)
        before = self.store.resource_version
        result = execute(self, text, stdin)
        # A command that reported an error may still have changed objects (kubectl taint and
        # label go on past a failing object, drain cordons first): record it too, so that a
        # replay (fork) repeats the change.
        changed = result.ok or self.store.resource_version != before
        if record and changed:
            self.history.append(Step(self.clock.now, text, stdin))
        if changed:
            self.store.last_change_time = self.clock.now
        return result

    def apply_objects(self, objects: Iterable[Any],
                      origins: list[Any] | None = None) -> list[tuple[Any, str]]:
        """kubectl apply of several objects: all or nothing, results in input order."""
        objects = list(objects)
        order = _order(objects)
        with self.lock:
            results = apply_all(self.store, [objects[i] for i in order],
                                [origins[i] for i in order] if origins is not None else None)
        out: list[Any] = [None] * len(objects)
        for i, r in zip(order, results):
            out[i] = r
        return out

    # -- what-if ----------------------------------------------------------------------------
    def observe(self, handler: Any) -> None:
        """Hear every store write, as a watcher outside the simulation (the TUI's model).

        Unlike a component's subscription, an observer is not part of the sandbox: a fork
        does not copy it.
        """
        self._observers.append(handler)
        self.store.subscribe(None, handler)

    def fork(self) -> "Session":
        """An independent copy at this moment: same objects, same pending timers and queues,
        same random streams — it goes on exactly as this session would.

        The live object graph is copied in one pass and the cluster's immutable objects are
        shared (``ksandbox.sim.snapshot``), so a fork costs a fraction of replaying the
        history (``replay`` does that, and gives the same result: the run is deterministic).
        Observers (a UI) and the progress hook are not copied.
        """
        from .sim.snapshot import fork_graph

        observers, self._observers = self._observers, []
        progress, self.progress = self.progress, None
        for h in observers:
            self.store.unsubscribe(None, h)
        try:
            with self.lock:  # a worker's explain must not be mid-way (its shadow cache)
                other = fork_graph(self)
        finally:
            for h in observers:
                self.store.subscribe(None, h)
            self._observers = observers
            self.progress = progress
        return other

    def fresh_start(self) -> "Session":
        """A new session from the same start (objects, configurations, seed, name), at t=0
        with nothing run on it: what a replay runs the history on. It keeps the texts this
        one keeps (initial_objects), not the decoded objects."""
        objects = self.initial_objects
        other = Session(objects, seed=self.seed, configs=self.cp.configs, name=self.name,
                        source=self._initial_source)
        if self._initial_source is not None:
            # the namespaces this session made are among ``objects`` (other made none):
            # other's initial_objects makes them again before the texts' objects
            other.implied_namespaces = self.implied_namespaces
        return other

    def replay(self, until: float | None = None) -> "Session":
        """A fresh session from the same start, with this one's history replayed up to
        ``until`` (default: the last step). The honest, slow fork."""
        from .recording.playback import Playback

        other = self.fresh_start()
        steps = [s for s in self.history if until is None or s.at <= until]
        pb = Playback(other, steps, check_expectations=False)
        end = until if until is not None else (steps[-1].at if steps else other.now)
        pb.advance_to(end)
        return other

    # -- reading ----------------------------------------------------------------------------
    def _note_change(self, ev: Any) -> None:
        meta = ev.obj.metadata
        assert self._changes is not None  # subscribed by changes_since, which makes the log
        self._changes.append((self.store.resource_version, ev.obj.kind, meta.namespace,
                              meta.name))

    @property
    def resource_version(self) -> int:
        return self.store.resource_version

    def changes_since(self, resource_version: int) -> set[tuple[str, str, str]] | None:
        """(kind, namespace, name) of every object written after ``resource_version``.

        None when the log no longer reaches back that far: the caller should redraw all.
        The log starts with the first call (nothing before it is known: None unless
        ``resource_version`` is the current one), so writes made while nobody asked cost it
        nothing — every write of a headless run used to be logged for no reader.
        """
        log = self._changes
        if log is None:
            self._changes = log = deque(maxlen=CHANGE_LOG_SIZE)
            self.store.subscribe(None, self._note_change)
            return set() if resource_version >= self.store.resource_version else None
        if resource_version >= self.store.resource_version:
            return set()
        if not log or log[0][0] > resource_version + 1:
            return None
        out: set[tuple[str, str, str]] = set()
        for rv, kind, ns, name in reversed(log):
            if rv <= resource_version:
                break
            out.add((kind, ns, name))
        return out

    def view(self) -> dict:
        """The state as ``ksandbox sim -o json`` prints it (DESIGN.md §3)."""
        from .views.state import state_dict

        return state_dict(self)

    def eviction_deadline(self, pod: Pod) -> float | None:
        """When a pod marked for NoExecute eviction will be deleted (None if not marked)."""
        return self.cp.tainteviction.deadline(pod)

    def explain(self, namespace: str, name: str) -> Any:
        """The scheduler's decision for one pod now (``ksandbox explain``; DESIGN.md §3)."""
        with self.lock:
            pod = self.store.get("Pod", name, namespace)
            if pod is None:
                raise ApiError.not_found("pods", name)
            return explain_pod(self.cp.scheduler, pod)


def ceil_ms(t: float) -> float:
    """``t`` rounded up to a whole millisecond (as a float that prints exactly)."""
    r = round(t, 3)
    if r < t:
        r = round(r + 0.001, 3)
    return r


def implied_namespaces(objects: list[Any], origins: list[Any] | None) -> list[str]:
    """The namespaces that objects read from a ``kind: List`` (an export: their origin is
    ``items[N]``) are in, when the input defines no such Namespace. A single manifest in a
    namespace that does not exist stays the API's NotFound."""
    if origins is None:
        return []
    defined = set(SYSTEM_NAMESPACES) | {o.metadata.name for o in objects if o.kind == "Namespace"}
    # one comprehension over a load's 150,000 objects (a loop with a lookup of each kind's
    # info was ~45 bytecodes an object)
    named = {obj.metadata.namespace or "default" for obj, origin in zip(objects, origins)
             if getattr(obj, "kind", "") in _IMPLYING_KINDS
             and getattr(origin, "item", None) is not None}
    return sorted(named - defined)


# The kinds whose objects are in a namespace that must exist (an Event is stored whatever its
# namespace: Store.check_namespace).
_IMPLYING_KINDS = frozenset(kind for kind, info in BY_KIND.items()
                            if info.namespaced and kind != "Event")


_CREATE_RANK = {"Namespace": 0, "PriorityClass": 1, "StorageClass": 1, "Node": 2,
                "PersistentVolume": 2, "PodDisruptionBudget": 3, "Service": 3,
                "PersistentVolumeClaim": 3, "Deployment": 4, "ReplicaSet": 5,
                "ReplicationController": 5, "DaemonSet": 6, "StatefulSet": 6, "CronJob": 6,
                "Job": 6, "HorizontalPodAutoscaler": 7, "Pod": 8}


def _order(objects: list[Any]) -> list[int]:
    """Indexes in a create order that never trips admission: namespaces and priority classes
    first, nodes next, workloads, then pods (stable within a kind)."""
    ranks = [_CREATE_RANK.get(o.kind, 9) for o in objects]
    return sorted(range(len(objects)), key=ranks.__getitem__)   # no Python call per object
