"""What-if in the TUI: `w` forks the present into a named branch, `W` lists branches and
switches, `D` shows the active branch and another side by side, `ctrl+z` undoes the last
command (a fork of the past, replayed).

The branches themselves are ``ksandbox.recording.branches.BranchSet`` (no Textual); the diff
is ``ksandbox.recording.diff.diff_sessions`` — the same dict ``ksandbox diff -o json`` prints,
drawn by ``tui/screens/diff.py``. :class:`WhatIf` is the App's part: it swaps the App's
session, model, playback and board when the branch on show changes, and keeps the hidden
branches on the same clock after every tick.

The App makes its WhatIf before the board's first frame, and a session mostly never forks:
the branch set, the dialogs (``tui/dialogs/branches.py``) and the diff view are imported
when a what-if key is first pressed (issue 11 item 5: ~9 M instructions of every start).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .widgets.header import sim_time_text

if TYPE_CHECKING:
    from ..recording.branches import Branch, BranchSet
    from .app import KsandboxApp


class WhatIf:
    """The App's branches: which one is on show, and its UI model."""

    def __init__(self, app: KsandboxApp) -> None:
        self.app = app
        self._set: BranchSet | None = None
        self._opened_at = app.playback.session.now
        self._recording = app.recording_script

    @property
    def set(self) -> BranchSet:
        """The branches, made when first asked for (a key of what-if, a test): ``main`` is
        the App's playback then — what it would be after ``_adopt`` had the set been made
        with the App — and it was opened when the App was."""
        if self._set is None:
            from ..recording.branches import BranchSet

            self._set = BranchSet(self.app.playback, opened_at=self._opened_at)
        return self._set

    @property
    def branching(self) -> bool:
        return self._set is not None and len(self._set.branches) > 1

    @property
    def label(self) -> str:
        """The header's branch (the one whose session the App shows), once there are two."""
        if not self.branching:
            return ""
        return next((b.name for b in self.set.branches if b.session is self.app.session), "")

    def sync(self, budget: float | None = None) -> bool:
        """Hidden branches to the clock of the one on show (True if one moved)."""
        if not self.branching:
            return False
        self._adopt()
        try:
            return self.set.sync(budget)
        except Exception as exc:  # a control-plane bug in a hidden branch pauses, never crashes
            self.app.pacer.paused = True
            self.app.notify(f"a hidden branch stopped: {exc!r}; clock paused",
                            severity="error", markup=False)
            return True

    # -- actions ----------------------------------------------------------------------------
    def fork(self, name: str | None) -> Branch | None:
        from ..recording.branches import BranchError

        app = self.app
        self._adopt()
        parent = self.set.active.name
        try:
            branch = self.set.fork(name)
        except BranchError as exc:
            app.notify(f"error: {exc}", severity="error", markup=False)
            return None
        self._show(branch)
        app.notify(f"Branch {branch.name}: a fork of {parent} at "
                   f"{sim_time_text(branch.forked_at)}. Both run on one clock; W switches, "
                   f"D compares", title="what-if", markup=False)
        return branch

    def switch(self, name: str | None) -> None:
        from ..recording.branches import BranchError

        if not name or name == self.set.active.name:
            return
        self._adopt()
        try:
            branch = self.set.switch(name)
        except BranchError as exc:
            self.app.notify(f"error: {exc}", severity="error", markup=False)
            return
        self.set.sync()
        self._show(branch)
        self.app.notify(f"On branch {branch.name}", title="what-if", timeout=3)

    def undo(self) -> None:
        from ..recording.branches import BranchError

        app = self.app
        self._adopt()
        try:
            undone = self.set.undo()
        except BranchError as exc:
            app.notify(str(exc), severity="warning", markup=False)
            return
        except Exception as exc:  # a replay that fails must not take the UI down
            app.notify(f"error: undo failed: {exc!r}", severity="error", markup=False)
            return
        app.pacer.paused = True
        self._show(self.set.active)
        app.notify(f"Undid `{undone.command}` (at {undone.at:g}s): back to the moment "
                   f"before it; the clock is paused", title="undo", markup=False)

    def choose(self) -> None:
        from .dialogs.branches import BranchListScreen

        self.app.push_screen(BranchListScreen(self.set), self.switch)

    def ask_fork(self) -> None:
        from .dialogs.branches import BranchNameDialog

        self.app.push_screen(BranchNameDialog(self.set.next_name()), self._forked)

    def _forked(self, name: str | None) -> None:
        if name:
            self.fork(name)

    def open_diff(self) -> None:
        if not self.branching:
            self.app.notify("Nothing to compare yet: press w to fork a branch", timeout=4)
            return
        from .screens.diff import DiffScreen

        self.app.go_board()
        self.app.push_screen(DiffScreen(self))

    # -- the App's objects follow the branch on show ----------------------------------------
    def _adopt(self) -> None:
        """The App's playback is the truth for the branch on show: taking over a recording
        (tui/player.py) or seeking replaces it, and the branch follows."""
        if self.app.playback is not self.set.active.playback:
            self.set.active.playback = self.app.playback

    def _show(self, branch: Branch) -> None:
        """Put the branch on show: its playback drives the clock, every pane draws its
        session (``App.use_session``: the screens stay where they are)."""
        from ..recording.player import Player

        app = self.app
        playback = branch.playback
        player = playback if isinstance(playback, Player) else None
        app.playback = playback
        app.pacer.playback = playback
        app.player = player
        app.pacer.limit = player.end if player is not None else None
        app.recording_script = self._recording if player is not None else None
        app.use_session(branch.session)
