"""What-if branches: several futures of one sandbox, one of them on show, all on one clock.

A :class:`BranchSet` starts with one branch (``main``: the session the user opened). ``fork``
copies the active branch at the present moment (``Session.fork``: same objects, timers,
queues and random streams) into a new named branch and makes it the active one; ``switch``
shows another. ``sync`` keeps every branch on the active one's clock: after the active branch
moves, the others run (their own recorded steps too) up to the same simulated second. A branch
that is ahead — after an undo took the active one back — waits there until the active one
catches up; :meth:`BranchSet.comparable` says when two branches stand at the same second.

``undo`` returns the active branch to the moment before its last command: a fresh session
from the same start, its history but the last step replayed to that step's time (a fork of
the past; the run is deterministic, so it is the state the user saw then).

No Textual here: the TUI (``tui/branches.py``) shows and drives these; tests use them alone.
"""

from __future__ import annotations

from typing import Any

import attrs

from .playback import Playback

MAIN = "main"
MAX_BRANCHES = 9
"""Each branch is a whole sandbox running in step with the others: a few are plenty."""
MAX_NAME = 40


class BranchError(Exception):
    """A fork, switch or undo that cannot be done (the message says why)."""


@attrs.define
class Branch:
    name: str
    playback: Playback
    forked_at: float = 0.0
    parent: str = ""

    @property
    def session(self) -> Any:
        return self.playback.session


def check_name(name: str, taken: list[str]) -> str:
    name = name.strip()
    if not name:
        raise BranchError("a branch needs a name")
    if len(name) > MAX_NAME or not all(c.isalnum() or c in "-_." for c in name):
        raise BranchError(f'invalid branch name "{name[:MAX_NAME]}": letters, digits, '
                          f'"-", "_" and "." only, at most {MAX_NAME} characters')
    if name in taken:
        raise BranchError(f'a branch named "{name}" exists already')
    return name


class BranchSet:
    """The branches of a what-if exploration and which one is on show."""

    def __init__(self, playback: Playback, opened_at: float | None = None) -> None:
        """``opened_at``: when ``main`` was opened, if before ``playback``'s present (the
        TUI makes its set when a what-if key is first pressed)."""
        opened = playback.session.now if opened_at is None else opened_at
        self.branches: list[Branch] = [Branch(MAIN, playback, forked_at=opened)]
        self.active_index = 0

    # -- reading ----------------------------------------------------------------------------
    @property
    def active(self) -> Branch:
        return self.branches[self.active_index]

    @property
    def names(self) -> list[str]:
        return [b.name for b in self.branches]

    def get(self, name: str) -> Branch:
        for b in self.branches:
            if b.name == name:
                return b
        raise BranchError(f'no branch named "{name}"')

    def others(self) -> list[Branch]:
        return [b for b in self.branches if b is not self.active]

    def next_name(self) -> str:
        n = len(self.branches)
        while f"what-if-{n}" in self.names:
            n += 1
        return f"what-if-{n}"

    @staticmethod
    def comparable(a: Branch, b: Branch) -> bool:
        return abs(a.session.now - b.session.now) < 1e-9

    # -- changing ---------------------------------------------------------------------------
    def fork(self, name: str | None = None) -> Branch:
        """The present moment of the active branch as a new branch, which becomes active.

        The new branch is live: it carries none of the recording the parent may be playing
        (the parent goes on with it), so the two futures differ by what the user does next.
        """
        if len(self.branches) >= MAX_BRANCHES:
            raise BranchError(f"at most {MAX_BRANCHES} branches: each one is a whole sandbox "
                              f"running beside the others")
        name = check_name(name if name is not None else self.next_name(), self.names)
        parent = self.active
        session = parent.session.fork()
        branch = Branch(name, Playback(session, (), check_expectations=False),
                        forked_at=session.now, parent=parent.name)
        self.branches.append(branch)
        self.active_index = len(self.branches) - 1
        return branch

    def switch(self, name: str) -> Branch:
        branch = self.get(name)
        self.active_index = self.branches.index(branch)
        return branch

    def sync(self, budget: float | None = None) -> bool:
        """Bring every other branch that is behind up to the active branch's time; True if
        one moved. With ``budget`` (real seconds per branch, as the TUI's pacer gives the
        branch on show), a busy branch may stay behind and catch up on later calls."""
        now = self.active.session.now
        moved = False
        for b in self.others():
            if b.session.now < now:
                b.playback.advance_to(now, budget)
                moved = True
        return moved

    def undo(self) -> Any:
        """Replace the active branch with a replay of its history but the last command, at
        that command's time; the undone step (or BranchError when there is nothing to undo)."""
        branch = self.active
        session = branch.session
        history = list(session.history)
        if not history:
            raise BranchError("nothing to undo: no command has run in this branch")
        last = history[-1]
        replayed = replay_before(session, history[:-1], last.at)
        branch.playback = Playback(replayed, (), check_expectations=False)
        return last


def replay_before(session: Any, steps: list[Any], at: float) -> Any:
    """A fresh session from ``session``'s start with ``steps`` replayed, standing at ``at``."""

    other = session.fresh_start()
    Playback(other, steps, check_expectations=False).advance_to(at)
    return other
