"""ConfirmDialog: "Delete pod web-1?" — Cancel is focused, so Enter alone never deletes.

k9s issues #87 and #146: ctrl-d pressed by mistake must not destroy anything; "the less
destructive action should always win".
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Label

from .base import CommandDialog


class ConfirmDialog(CommandDialog):
    focus_cancel = True
    ok_variant = "error"

    def __init__(self, title: str, question: str, command: str, ok_label: str = "OK") -> None:
        super().__init__()
        self.title_text = title
        self.question = question
        self._command = command
        self.ok_label = ok_label

    def compose_fields(self) -> ComposeResult:
        yield Label(self.question, classes="dialog-question")

    def command(self) -> str | None:
        return self._command
