"""The `.` key: run the clock to the next change a person can *see*, and say what it was.

The clock's next callback is usually invisible — a heartbeat, a 5 s controller pass — so
stepping callback by callback took ~45 presses to reach a 300 s eviction. A visible change is
one the screens draw: a new event (or a repeat of one), a node's readiness, taints or
cordon changing, a node added or removed, a pod created, bound, marked for deletion, changing
phase or gone, or a recorded step of a playback. :class:`Stepper` watches the store for those
and runs the clock until one happens; changes that follow each other within
:data:`CLUSTER_GAP` simulated seconds (a node's kubelet starting five pods, an eviction and its
replacement being scheduled) are one step, so each press is one thing that happened.

Also here: :func:`next_up`, what is due next (an eviction countdown, a recorded step), for the
header while the clock is paused. No Textual here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from ..api.core import Node
    from ..session import Session


def clock_text(seconds: float) -> str:
    """``00:06:15`` (the event log's time column)."""
    s = int(seconds)
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"

# Visible changes closer together than this (simulated seconds) are one step.
CLUSTER_GAP = 2.0
# A press never runs further than this without a visible change (then it says so).
HORIZON = 3600.0
# Nor more callbacks than this (a cluster that changes invisibly forever).
MAX_CALLBACKS = 200_000


@attrs.frozen
class StepReport:
    time: float
    changes: tuple[str, ...]
    """What was seen, in order (kubectl's words: ``NodeNotReady node/node-2: …``)."""
    idle: bool = False
    """Nothing is scheduled at all."""

    def summary(self, limit: int = 2, width: int = 90) -> str:
        if self.idle:
            return "Nothing is scheduled: the cluster is idle"
        if not self.changes:
            return f"Nothing visible happened up to {clock_text(self.time)}"
        head = "; ".join(c if len(c) <= width else c[:width - 1] + "…"
                         for c in self.changes[:limit])
        more = len(self.changes) - limit
        return f"{clock_text(self.time)} {head}" + (f" (+{more} more)" if more > 0 else "")


def _taints(node: Node) -> tuple[Any, ...]:
    return tuple((t.key, t.value, t.effect) for t in node.spec.taints)


def describe_change(ev: Any) -> str | None:
    """What a watch event shows a person, or None when it changes nothing they see."""
    obj, old, kind = ev.obj, ev.old, ev.obj.kind
    if kind == "Event":
        if ev.type == "DELETED":
            return None
        if ev.type == "MODIFIED" and old is not None and old.count == obj.count:
            return None
        o = obj.involved_object
        return f"{obj.reason} {o.kind.lower()}/{o.name}: {obj.message.strip()}"
    if kind == "Node":
        name = obj.metadata.name
        if ev.type == "ADDED":
            return f"node/{name} added"
        if ev.type == "DELETED":
            return f"node/{name} deleted"
        if old is None:
            return None
        if old.ready != obj.ready:
            return f"node/{name} Ready={obj.ready}"
        if _taints(old) != _taints(obj):
            added = [f"{k}{'=' + v if v else ''}:{e}" for k, v, e in _taints(obj)
                     if (k, v, e) not in _taints(old)]
            return (f"node/{name} tainted {', '.join(added)}" if added
                    else f"node/{name} taint removed")
        if bool(old.spec.unschedulable) != bool(obj.spec.unschedulable):
            return f"node/{name} {'cordoned' if obj.spec.unschedulable else 'uncordoned'}"
        return None
    if kind == "Pod":
        ref = f"pod/{obj.metadata.name}"
        if ev.type == "ADDED":
            return f"{ref} created"
        if ev.type == "DELETED":
            return f"{ref} deleted"
        if old is None:
            return None
        if not old.spec.node_name and obj.spec.node_name:
            return f"{ref} bound to {obj.spec.node_name}"
        if old.metadata.deletion_timestamp is None and obj.metadata.deletion_timestamp is not None:
            return f"{ref} terminating"
        if old.status.phase != obj.status.phase:
            return f"{ref} {obj.status.phase}"
        return None
    return None


class Stepper:
    """Runs the clock of a :class:`~ksandbox.recording.playback.Playback` (and its recorded
    steps) to the next visible change."""

    def __init__(self, playback: Any) -> None:
        self.playback = playback
        self.session = playback.session
        self._seen: list[str] | None = None
        # An observer, not a store subscriber: a fork (a player checkpoint) leaves it out.
        self.session.observe(self._on_watch)

    def _on_watch(self, ev: Any) -> None:
        if self._seen is not None:
            text = describe_change(ev)
            if text is not None:
                self._seen.append(text)

    def _run_instant(self, t: float, seen: list[str]) -> None:
        """Everything due at ``t``: every callback of that instant, then the recorded steps
        (the playback loop's own order)."""
        pb = self.playback
        first = pb.index
        pb.advance_to(t)
        for step in pb.steps[first:pb.index]:
            what = step.command or (f"“{step.caption}”" if step.caption else "")
            if what:
                seen.append(f"step: {what}")

    def step(self) -> StepReport:
        """Run to the next visible change (and the ones right after it); what was seen."""
        pb = self.playback
        start = float(self.session.now)
        if pb.next_change_time() is None:
            return StepReport(start, (), idle=True)
        seen: list[str] = []
        self._seen = seen
        last_visible: float | None = None
        first_visible: float | None = None
        try:
            for _ in range(MAX_CALLBACKS):
                t = pb.next_change_time()
                if t is None:
                    break
                if last_visible is not None and t > last_visible + CLUSTER_GAP:
                    break
                if last_visible is None and t > start + HORIZON:
                    pb.advance_to(start + HORIZON)
                    break
                before = len(seen)
                self._run_instant(t, seen)
                if len(seen) > before:
                    last_visible = t
                    if first_visible is None:
                        first_visible = t
        finally:
            self._seen = None
        # The report is dated by the first change (the one the press was for).
        return StepReport(first_visible if first_visible is not None
                          else float(self.session.now), tuple(seen))


def next_up(session: Session, playback: Any = None) -> str:
    """What is due next, for a paused clock: the earliest eviction countdown, or the next
    recorded step if it comes first (``next: evict web-1 in 4:12``); "" when nothing is."""
    now = float(session.now)
    best: tuple[float, str] | None = None
    for key, at in session.cp.tainteviction.countdowns().items():
        ns, _, name = key.partition("/")
        who = name if ns == "default" else key
        if best is None or (at, who) < best:
            best = (at, f"evict {who}")
    if playback is not None:
        step = next((s for s in playback.steps[playback.index:] if s.command), None)
        if step is not None and (best is None or step.at < best[0]):
            best = (step.at, step.command)
    if best is None:
        return ""
    left = max(0, int(best[0] - now + 0.999))
    return f"next: {best[1]} in {left // 60}:{left % 60:02d}"
