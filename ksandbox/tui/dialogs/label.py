"""LabelDialog: ``key=value`` (or ``key-`` to remove) for a node."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Checkbox, Input

from ..widgets.keys_in_order import OrderedInput
from .base import CommandDialog


class LabelDialog(CommandDialog):
    checks_command = True
    ok_label = "Label"

    def __init__(self, node: str, spec: str = "hw-type=gpu") -> None:
        super().__init__()
        self.node = node
        self.spec = spec
        self.title_text = f"Label node {node}"

    def compose_fields(self) -> ComposeResult:
        yield OrderedInput(self.spec, id="spec", placeholder="key=value, or key- to remove")
        yield Checkbox("--overwrite", id="overwrite")

    def command(self) -> str:
        """The command Enter runs; with the field empty it has no label, and kubectl's
        answer to that ("at least one label update is required") is what Enter says."""
        spec = self.query_one("#spec", Input).value.strip()
        text = f"kubectl label nodes {self.node} {spec}".rstrip()
        if self.query_one("#overwrite", Checkbox).value:
            text += " --overwrite"
        return text
