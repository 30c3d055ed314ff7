"""What-if in the TUI: `w` forks the present into a named branch, `W` lists branches and
switches, `D` shows the active branch and another side by side, `ctrl+z` undoes the last
command (a fork of the past, replayed).

The branches themselves are ``ksandbox.recording.branches.BranchSet`` (no Textual); the diff
is ``ksandbox.recording.diff.diff_sessions`` — the same dict ``ksandbox diff -o json`` prints,
drawn here with the cell texts of ``views/diffwide.py``. :class:`WhatIf` is the App's part:
it swaps the App's session, model, playback and board when the branch on show changes, and
keeps the hidden branches on the same clock after every tick.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from ..recording.branches import Branch, BranchError, BranchSet
from ..recording.diff import diff_sessions
from ..views.diffwide import evictions_cell, node_rows, placement_cell, pod_cell
from .dialogs.base import CommandDialog
from .guard import DismissOnce
from .model import ChangeSet
from .screen_layout import LayoutOnce
from .screens.base import KsScreen
from .tint import QuickTint
from .widgets.header import sim_time_text
from .widgets.keys_in_order import OrderedInput

if TYPE_CHECKING:
    from .app import KsandboxApp

REDRAW_EVERY = 1.0
"""Real seconds between two redraws of the diff view while the clock runs."""


class WhatIf:
    """The App's branches: which one is on show, and its UI model."""

    def __init__(self, app: KsandboxApp) -> None:
        self.app = app
        self.set = BranchSet(app.playback)
        self._recording = app.recording_script

    @property
    def branching(self) -> bool:
        return len(self.set.branches) > 1

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
        self.app.push_screen(BranchListScreen(self.set), self.switch)

    def ask_fork(self) -> None:
        self.app.push_screen(BranchNameDialog(self.set.next_name()), self._forked)

    def _forked(self, name: str | None) -> None:
        if name:
            self.fork(name)

    def open_diff(self) -> None:
        if not self.branching:
            self.app.notify("Nothing to compare yet: press w to fork a branch", timeout=4)
            return
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


# -- fork: the branch's name ----------------------------------------------------------------


class BranchNameDialog(CommandDialog):
    """`w`: name the branch the present moment is forked into."""

    ok_label = "Fork"
    title_text = "Fork the present moment into a branch"

    def __init__(self, suggested: str) -> None:
        super().__init__()
        self.suggested = suggested

    def compose_fields(self) -> ComposeResult:
        yield Label("Both branches run on one clock from here; W switches, D compares.")
        yield OrderedInput(self.suggested, id="branch-name", placeholder="branch name",
                    restrict=r"[A-Za-z0-9._-]*", max_length=40)

    def on_mount(self) -> None:
        super().on_mount()
        # A burst of keys may have closed the dialog before it mounted.
        for field in self.query("#branch-name"):
            field.focus()

    def command(self) -> str | None:
        value = self.query_one("#branch-name", Input).value.strip()
        return value or None

    def update_preview(self) -> None:
        return  # the name is not a command: no "$ ..." preview


# -- W: the list of branches ------------------------------------------------------------------


class BranchListScreen(DismissOnce, QuickTint, LayoutOnce, ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, branches: BranchSet) -> None:
        super().__init__()
        self.branches = branches

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Branches (enter switches)", classes="dialog-title")
            options = []
            for b in self.branches.branches:
                mark = "●" if b is self.branches.active else " "
                origin = f"fork of {b.parent} at {sim_time_text(b.forked_at)}" if b.parent \
                    else "the session you opened"
                options.append(Option(f"{mark} {b.name:<16} {sim_time_text(b.session.now)}  "
                                      f"{origin}", id=b.name))
            yield OptionList(*options, id="branch-list")

    def on_mount(self) -> None:
        # A burst (W then Escape) can dismiss the screen before it mounts: its list is gone.
        found = self.query(OptionList)
        if not found:
            return
        ol = found.first()
        ol.highlighted = self.branches.active_index
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


# -- D: the two branches side by side ---------------------------------------------------------


class DiffScreen(KsScreen):
    """The active branch and another, side by side: only what differs, at the current time.

    ``tab`` picks the other branch when there are more than two. Redrawn as the clock runs.
    """

    DEFAULT_CSS = """
    DiffScreen #diff-scroll { height: 1fr; border: round $primary; }
    DiffScreen #diff-body { padding: 0 1; }
    """
    BINDINGS = [Binding("tab", "other", "Other branch", id="diff.other"),
                Binding("down,j", "scroll(1)", "Down", show=False),
                Binding("up,k", "scroll(-1)", "Up", show=False)]
    view_name = "diff"

    def __init__(self, whatif: WhatIf) -> None:
        super().__init__()
        self.whatif = whatif
        others = whatif.set.others()
        self.other = others[-1].name if others else ""
        self._drawn_at: tuple[float, str, str] | None = None
        self._drawn_real = 0.0
        self._redraw_queued = False

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="diff-scroll"):
            yield Static(id="diff-body")

    def on_mount(self) -> None:
        super().on_mount()
        self.redraw()
        for scroll in self.query("#diff-scroll"):  # gone if a burst closed the view first
            scroll.focus()

    def refresh_view(self, changes: ChangeSet) -> None:
        self.redraw()

    def _queued_redraw(self) -> None:
        self._redraw_queued = False
        self.redraw()

    def action_other(self) -> None:
        names = [b.name for b in self.whatif.set.others()]
        if names:
            i = names.index(self.other) if self.other in names else -1
            self.other = names[(i + 1) % len(names)]
            self._drawn_at = None
            self.redraw()

    def action_scroll(self, lines: int) -> None:
        self.query_one("#diff-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def redraw(self) -> None:
        branches = self.whatif.set
        active = branches.active
        try:
            other = branches.get(self.other)
        except BranchError:
            return
        key = (active.session.now, active.name, other.name)
        if key == self._drawn_at:
            return
        # At most once a real second while the clock runs: the diff reads every pod of both
        # branches (about 0.5 s at 15,000 pods), the key-to-repaint budget is 17 ms.
        now = time.monotonic()
        if self._drawn_at is not None and key[1:] == self._drawn_at[1:] and \
                now - self._drawn_real < REDRAW_EVERY:
            if not self._redraw_queued:
                self._redraw_queued = True
                self.set_timer(REDRAW_EVERY, self._queued_redraw)
            return
        self._drawn_real = now
        self._drawn_at = key
        scroll = self.query_one("#diff-scroll", VerticalScroll)
        scroll.border_title = f"diff: {active.name} (A) vs {other.name} (B)"
        body = self.query_one("#diff-body", Static)
        if not branches.comparable(active, other):
            body.update(Text(f"{other.name} is at {sim_time_text(other.session.now)}, "
                             f"{active.name} at {sim_time_text(active.session.now)}: the diff "
                             f"shows one instant, once {active.name} catches up (space runs the "
                             f"clock).", style="italic"))
            return
        body.update(render_diff(diff_sessions(active.session, other.session,
                                              (active.name, other.name))))


def _table(title: str, headers: tuple[str, ...]) -> Table:
    t = Table(title=title, title_justify="left", title_style="bold", expand=True,
              show_edge=False, pad_edge=False, box=None, header_style="bold")
    for i, h in enumerate(headers):
        if i >= len(headers) - 2:   # the two branches share what is left, half each
            t.add_column(h, ratio=1, overflow="fold")
        else:
            t.add_column(h, no_wrap=True)
    return t


def render_diff(diff: dict[str, Any]) -> Any:
    """The diff as Rich tables, the two branches as the last two columns."""
    from rich.console import Group

    now = diff["time"]
    a, b = diff["branches"]["a"], diff["branches"]["b"]
    parts: list[Any] = [Text(f"{sim_time_text(now)}   A: {a}   B: {b}", style="bold")]
    if diff["identical"]:
        parts.append(Text("\nNo differences: both branches are in the same state.",
                          style="italic"))
        return Group(*parts)
    if diff["pods"]:
        t = _table("\nPODS", ("POD", "DIFFERENCE", f"A: {a}", f"B: {b}"))
        for p in diff["pods"]:
            t.add_row(f"{p['namespace']}/{p['name']}", p["difference"], pod_cell(p["a"], now),
                      pod_cell(p["b"], now))
        parts.append(t)
    if diff["workloads"]:
        t = _table("\nWORKLOADS (node:pods)", ("OWNER", f"A: {a}", f"B: {b}"))
        for w in diff["workloads"]:
            t.add_row(f"{w['namespace']}/{w['owner']}", placement_cell(w["a"]),
                      placement_cell(w["b"]))
        parts.append(t)
    if diff["evictions"]:
        t = _table("\nEVICTIONS", ("POD", f"A: {a}", f"B: {b}"))
        for e in diff["evictions"]:
            t.add_row(e["pod"], evictions_cell(e["a"]), evictions_cell(e["b"]))
        parts.append(t)
    if diff["nodes"]:
        t = _table("\nNODES", ("NODE", "FIELD", f"A: {a}", f"B: {b}"))
        for n in diff["nodes"]:
            for field, va, vb in node_rows(n):
                t.add_row(n["name"], field, va, vb)
        parts.append(t)
    if diff["events"]:
        t = _table("\nEVENTS (count by reason)", ("REASON", f"A: {a}", f"B: {b}"))
        for e in diff["events"]:
            t.add_row(e["reason"], str(e["a"]), str(e["b"]))
        parts.append(t)
    return Group(*parts)
