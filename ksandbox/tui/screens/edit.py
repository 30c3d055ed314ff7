"""EditScreen: ``:edit TYPE NAME`` — kubectl edit's editor, inside the app.

It opens on the file kubectl would write (the comment header, then the object as ``kubectl
get -o yaml`` prints it). ``ctrl+s`` saves: the change is laid on the live object
(``commands.edit.rebase``) and submitted as ``kubectl edit TYPE NAME`` with the text as its
stdin — the same command a script runs, recorded with its stdin. A refused save keeps the
editor open with kubectl's reasons at the top, as kubectl reopens the file; ``esc`` closes it
as quitting the editor does (``Edit cancelled, no changes made.``, or after a refusal
``error: Edit cancelled, no valid changes were saved.``).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static, TextArea

from ...commands.edit import NO_VALID, UNCHANGED, EditCommand, rebase
from ..focus_paint import FocusPaintsWidgets
from ..guard import DismissOnce
from ..screen_layout import LayoutOnce
from ..tint import QuickTint
from ..widgets.ordered_text_area import OrderedTextArea


class EditScreen(DismissOnce, QuickTint, FocusPaintsWidgets, LayoutOnce, ModalScreen[None]):
    BINDINGS = [Binding("ctrl+s", "save", "Save", id="edit.save"),
                Binding("escape", "cancel", "Cancel", id="edit.cancel")]
    DEFAULT_CSS = """
    EditScreen { align: center middle; }
    EditScreen #edit-box { width: 95%; height: 95%; border: round $accent; padding: 0 1; }
    EditScreen #edit-reasons { color: $error; text-style: bold; height: auto; }
    EditScreen #edit-text { height: 1fr; }
    """

    def __init__(self, cmd: EditCommand, command: str, started: str) -> None:
        super().__init__()
        self.cmd = cmd
        self.command = command
        self.started = started
        self.refused = False

    def compose(self) -> ComposeResult:
        with Vertical(id="edit-box"):
            yield Label(f"{self.command}   ctrl+s save · esc cancel", classes="dialog-title")
            yield Static("", id="edit-reasons")
            yield OrderedTextArea(self.started, id="edit-text", show_line_numbers=False,
                           soft_wrap=False)

    def on_mount(self) -> None:
        self.query_one("#edit-reasons", Static).display = False
        self.query_one(TextArea).focus()

    @property
    def text(self) -> str:
        return self.query_one(TextArea).text

    def action_save(self) -> None:
        app: Any = self.app
        stdin = rebase(app.session, self.cmd, self.started, self.text)
        result = app.submit(self.command, stdin=stdin, notify_errors=False)
        if result is None:
            return
        if result.error:
            self.refused = True
            reasons = self.query_one("#edit-reasons", Static)
            reasons.update(Text(result.error.rstrip()))
            reasons.display = True
            return
        self.dismiss(None)

    def action_cancel(self) -> None:
        if self.refused:
            self.app.notify(f"error: {NO_VALID}", severity="error", markup=False)
        else:
            self.app.notify(UNCHANGED, markup=False, timeout=4)
        self.dismiss(None)
