"""Recordings: write a session's steps as a versioned YAML log; play one back; seek in it.

A recording stores what the user did — commands at simulated seconds — never what the screen
drew, so playback re-runs the control plane and a recording doubles as a regression test
(DESIGN.md §4, docs/recordings.md). The cluster is either the name of a built-in sample or
inline manifests.

Recording from the middle of a session: the file's ``start`` holds the moment recording began
and the commands before it. Playback replays those silently and starts its timeline there, so
the state it shows is the one the user saw, byte for byte — a snapshot of the objects alone
would not be: the components' timers, queues and random streams are part of that state.

:class:`Player` is the headless core of the TUI's player: position, checkpoints taken while
playing (forks of the session, sharing its immutable objects), seek to any time (restore the
nearest checkpoint at or before it and play forward), step to the previous/next step or
marker, and take over (the recording becomes a live session from where it is).
"""

from __future__ import annotations

import bisect
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..api.codec import encode
from ..api.errors import ManifestError
from ..api.manifest import decode_object, load_file
from .playback import Playback
from .script import RECORDING_API_VERSION, Script, load_script, round_ms

if TYPE_CHECKING:
    from ..session import Session


def load_recording_session(path: str | Path, allow_files: tuple[str, ...] = ()
                           ) -> tuple[Script, Session]:
    """Read a recording and build the session it starts from (at its start, nothing of its
    own steps run yet). Its steps may read files only under ``allow_files`` (script.py)."""
    rec = load_script(path, allow_files)
    return rec, session_for(rec)


def session_for(rec: Script) -> Session:
    """A session at the recording's start (its ``start`` steps replayed)."""
    from ..resources import sample_cluster_path
    from ..session import Session

    source = rec.source
    if not rec.is_recording:
        raise ManifestError(source, None, f'kind: expected "Recording" with apiVersion '
                                          f'{RECORDING_API_VERSION}')
    cluster = rec.cluster
    if isinstance(cluster, str):
        try:
            docs = load_file(sample_cluster_path(cluster))
        except ManifestError:
            raise
        except Exception as exc:  # an unknown sample name
            raise ManifestError(source, None, f"cluster: {exc}") from None
        name = cluster
    elif isinstance(cluster, list):
        docs = [decode_object(d, source, None, f"cluster[{i}]") for i, d in enumerate(cluster)]
        name = rec.title or Path(source).stem
    else:
        raise ManifestError(source, None, "cluster: Required value: a sample cluster's name "
                                          "or a list of manifests")
    session = Session.from_documents(docs, seed=rec.seed or 0, name=name)
    if rec.prelude or rec.start:
        Playback(session, rec.prelude, check_expectations=False).advance_to(rec.start)
    return session


def play_headless(session: Session, recording: Script,
                  on_step: Callable[[Any, Any], None] | None = None) -> Playback:
    """Run every step at its time, then to the recording's ``end:`` — where the user stopped
    recording and where the player stops — or, for a recording without one, until the
    cluster settles; the playback (its ``failures`` are the expectations that did not hold).
    A cluster that never settles (a CronJob every minute, churn) ran on to the horizon,
    3,600 s past the end."""
    pb = Playback(session, recording.steps, on_step=on_step)
    if recording.end_at is not None:
        pb.advance_to(recording.end)
        return pb
    pb.run_to_end()
    return pb


def dump_recording(session: Session, *, title: str = "", cluster: str | None = None,
                   terminal: tuple[int, int] | None = None,
                   captions: list[tuple[float, str]] = (),
                   markers: list[tuple[float, str]] = (),
                   start_index: int = 0, start: float | None = None,
                   end: float | None = None) -> str:
    """The YAML text of a recording of ``session``'s steps.

    ``start_index``/``start``: recording began when the history had that many steps, at that
    time (the steps before go to ``start.steps``); ``end``: when it stopped. ``cluster`` names a built-in sample; without
    it the session's initial objects are written inline, so the recording is self-contained.
    """
    def step_item(step: Any) -> dict[str, Any]:
        item: dict[str, Any] = {"at": round_ms(step.at), "command": step.command}
        if step.stdin is not None:
            item["stdin"] = step.stdin
        return item

    history = list(session.history)
    steps: list[dict] = [step_item(s) for s in history[start_index:]]
    for at, text in captions:
        steps.append({"at": round_ms(at), "caption": text})
    for at, text in markers:
        steps.append({"at": round_ms(at), "marker": text})
    # Stable: a caption written at the time of a command stays after it.
    steps.sort(key=lambda s: s["at"])
    doc: dict[str, Any] = {
        "apiVersion": RECORDING_API_VERSION,
        "kind": "Recording",
        "title": title or session.name,
        "seed": session.seed,
        # Inline: the initial objects and the component configurations loaded with them
        # (KubeletConfiguration, KubeSchedulerConfiguration, ...), so a replay starts the same.
        "cluster": cluster if cluster is not None
        else [c.data for c in session.cp.configs] + [encode(o) for o in session.initial_objects],
    }
    if terminal is not None:
        doc["terminal"] = {"cols": terminal[0], "rows": terminal[1]}
    if start_index or start:
        doc["start"] = {"at": round_ms(start if start is not None else session.now),
                        "steps": [step_item(s) for s in history[:start_index]]}
    if end is not None:
        doc["end"] = round_ms(max([end] + [s["at"] for s in steps]))
    doc["steps"] = steps
    import yaml  # on use: PyYAML is not needed to start (api/safeload_pyyaml.py)

    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


# -- the player ------------------------------------------------------------------------------

# Simulated seconds between two checkpoints while playing, at most. Seeking back costs one
# fork of the nearest checkpoint plus the replay from it; each checkpoint costs a fork and
# memory (about 15 MB at 10,000 pods: the objects are shared, the containers are not).
CHECKPOINT_EVERY = 60.0
# ... and clock callbacks between two checkpoints, at most: on a big cluster a minute is many
# thousands of callbacks (500 kubelets' heartbeats), so checkpoints come closer together there
# and a seek replays a bounded amount of work, not a bounded amount of time. bench/seek.py, one
# hour of 500 nodes / 10,000 pods: 4,500 gives 93 checkpoints (1.2 GB peak) and seeks of
# 0.5-0.63 s CPU (a fork ~0.55 s + the replay); 12,000 gave 70 and up to 1.7 s.
CHECKPOINT_WORK = 4_500
# Where the player looks at the work done, in simulated seconds (a checkpoint's time is a
# multiple of it, or the start).
SLICE = 5.0
# The most checkpoints kept: past it every other one is dropped (seeks replay at most twice as
# far), so a long recording of a big cluster does not fill the memory.
MAX_CHECKPOINTS = 240


class Player:
    """Play a recording with a position you can move: the core of the TUI's player.

    ``session`` is always the session at the current position; seeking backwards replaces it
    (with a fork of a checkpoint), so hold the player, not the session.
    """

    def __init__(self, recording: Script, session: Session | None = None, *,
                 on_step: Callable[[Any, Any], None] | None = None,
                 checkpoint_every: float = CHECKPOINT_EVERY,
                 checkpoint_work: int = CHECKPOINT_WORK) -> None:
        self.recording = recording
        self.on_step = on_step
        self.checkpoint_every = checkpoint_every
        self.checkpoint_work = checkpoint_work
        session = session if session is not None else session_for(recording)
        self.start = session.now
        self.steps = recording.steps
        self.end = max(self.start, recording.end)
        # (time, step index, a pristine fork): the timeline's restore points, in time order.
        self._checkpoints: list[tuple[float, int, Any]] = [(session.now, 0, session.fork())]
        self._work_mark = session.clock.events_run
        self.playback = Playback(session, self.steps, on_step=self._step_done)
        self.seeks = 0
        self.last_seek_seconds = 0.0

    # -- position ---------------------------------------------------------------------------
    @property
    def session(self) -> Any:
        return self.playback.session

    @property
    def now(self) -> float:
        return self.session.now

    @property
    def index(self) -> int:
        """How many steps have run."""
        return self.playback.index

    @property
    def caption(self) -> str:
        """The caption in force at the current position (until the next one)."""
        text = ""
        for s in self.steps[:self.playback.index]:
            if s.caption is not None:
                text = s.caption
        return text

    def markers(self) -> list[tuple[float, str]]:
        return [(s.at, s.marker) for s in self.steps if s.marker is not None]

    def captions(self) -> list[tuple[float, str]]:
        return [(s.at, s.caption) for s in self.steps if s.caption is not None]

    # The Playback face the pacer and the `.` stepper use (they drive a Player or a Playback).
    @property
    def lagging(self) -> bool:
        return self.playback.lagging

    @property
    def done(self) -> bool:
        return self.playback.done

    def next_step_time(self) -> float | None:
        return self.playback.next_step_time()

    def next_change_time(self) -> float | None:
        return self.playback.next_change_time()

    def step_next(self) -> float | None:
        return self.playback.step_next()

    @property
    def checkpoints(self) -> list[float]:
        return [t for t, _, _ in self._checkpoints]

    # -- moving -----------------------------------------------------------------------------
    def advance_to(self, target: float, budget: float | None = None,
                   perf_counter: Callable[[], float] = time.perf_counter) -> bool:
        """Play forward to ``target`` (within a budget of real seconds, if given), taking a
        checkpoint on the way each :attr:`checkpoint_every` simulated seconds or
        :attr:`checkpoint_work` clock callbacks, whichever comes first."""
        while True:
            last = self._checkpoints[-1][0]
            if self.now < last:  # behind the last checkpoint (after seeking back)
                if target <= last:
                    break
                if not self.playback.advance_to(last, budget, perf_counter):
                    return False
                self._work_mark = self.session.clock.events_run
                continue
            due = last + self.checkpoint_every
            nxt = min(due, (int(self.now // SLICE) + 1) * SLICE)
            if nxt > target:
                break
            if not self.playback.advance_to(nxt, budget, perf_counter):
                return False
            if self.now >= due or \
                    self.session.clock.events_run - self._work_mark >= self.checkpoint_work:
                self._checkpoint()
        return self.playback.advance_to(target, budget, perf_counter)

    def _checkpoint(self) -> None:
        t = self.now
        self._work_mark = self.session.clock.events_run
        if t <= self._checkpoints[-1][0]:
            return
        self._checkpoints.append((t, self.playback.index, self.session.fork()))
        if len(self._checkpoints) > MAX_CHECKPOINTS:
            # Thin out: the first (the start) and every other one after it.
            self._checkpoints = self._checkpoints[:1] + self._checkpoints[2::2]

    def seek(self, target: float) -> float:
        """Go to ``target`` (clamped to the recording's start): forwards by playing, backwards
        by restoring the nearest checkpoint at or before it and playing forward. The same state
        as playing from the start to ``target``."""
        began = time.perf_counter()
        target = max(self.start, round_ms(target))
        times = self.checkpoints
        i = bisect.bisect_right(times, target) - 1
        # Backwards: the nearest checkpoint at or before the target. Forwards past a
        # checkpoint taken earlier (the user was there and came back): that one too, rather
        # than playing the whole way again.
        if target < self.now or times[i] > self.now:
            t, index, snap = self._checkpoints[i]
            playback = Playback(snap.fork(), self.steps, on_step=self._step_done)
            playback.index = index
            self.playback = playback
            self._work_mark = playback.session.clock.events_run
        self.advance_to(target)
        self.seeks += 1
        self.last_seek_seconds = time.perf_counter() - began
        return self.now

    def restart(self) -> float:
        return self.seek(self.start)

    def step_forward(self) -> float | None:
        """Go to the next step's time and run it (``]``); None at the end."""
        nxt = self.playback.next_step_time()
        if nxt is None:
            return None
        self.advance_to(nxt)
        return self.now

    def step_back(self) -> float:
        """Go to the previous step (``[``): the state right after it ran."""
        done = [s.at for s in self.steps[:self.playback.index] if s.at < self.now]
        return self.seek(done[-1] if done else self.start)

    def next_marker(self) -> float | None:
        later = [t for t, _ in self.markers() if t > self.now]
        return self.seek(later[0]) if later else None

    def previous_marker(self) -> float:
        earlier = [t for t, _ in self.markers() if t < self.now]
        return self.seek(earlier[-1] if earlier else self.start)

    def take_over(self) -> Any:
        """End playback here: the session goes on live (the remaining steps are dropped)."""
        self.playback.steps = self.playback.steps[:self.playback.index]
        return self.session

    def _step_done(self, step: Any, result: Any) -> None:
        if self.on_step is not None:
            self.on_step(step, result)
