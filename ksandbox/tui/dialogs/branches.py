"""What-if's two dialogs (tui/branches.py): `w` names the branch the present is forked
into, `W` lists the branches and switches to one.

A module of its own, imported when one of them first opens: the App makes its WhatIf before
the board's first frame, and these classes (and Textual's OptionList and Button with them)
cost every start (issue 11 item 5).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from ...recording.branches import BranchSet
from ..focus_paint import FocusPaintsWidgets
from ..guard import DismissOnce
from ..messages import ClusterChanged
from ..screen_layout import LayoutOnce
from ..tint import QuickTint
from ..widgets.header import sim_time_text
from ..widgets.keys_in_order import OrderedInput
from .base import CommandDialog

# -- fork: the branch's name ----------------------------------------------------------------


class BranchNameDialog(CommandDialog):
    """`w`: name the branch the present moment is forked into."""

    ok_label = "Fork"
    title_text = "Fork the present moment into a branch"

    def __init__(self, suggested: str) -> None:
        super().__init__()
        self.suggested = suggested

    def compose_fields(self) -> ComposeResult:
        # Wider than the dialog's 62 columns inside: it wraps (.dialog-question), never cut.
        yield Label("Both branches run on one clock from here; W switches, D compares.",
                    classes="dialog-question")
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


class BranchListScreen(DismissOnce, QuickTint, FocusPaintsWidgets, LayoutOnce,
                       ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    def __init__(self, branches: BranchSet) -> None:
        super().__init__()
        self.branches = branches

    def _prompts(self) -> dict[str, str]:
        """Each branch's line: its name, its clock, where it came from."""
        prompts = {}
        for b in self.branches.branches:
            mark = "●" if b is self.branches.active else " "
            origin = f"fork of {b.parent} at {sim_time_text(b.forked_at)}" if b.parent \
                else "the session you opened"
            prompts[b.name] = f"{mark} {b.name:<16} {sim_time_text(b.session.now)}  {origin}"
        return prompts

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Branches (enter switches)", classes="dialog-title")
            self._shown = self._prompts()
            yield OptionList(*(Option(text, id=name) for name, text in self._shown.items()),
                             id="branch-list")

    def on_cluster_changed(self, message: ClusterChanged) -> None:
        """The branches run on while the list is open (one clock): their times follow.
        Only a line whose text changed is replaced (a tick within a second changes none)."""
        found = self.query(OptionList)
        if not found:
            return
        ol = found.first()
        prompts = self._prompts()
        for name, text in prompts.items():
            if self._shown.get(name) != text and name in self._shown:
                ol.replace_option_prompt(name, text)
        self._shown = {**self._shown, **{n: t for n, t in prompts.items() if n in self._shown}}

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
