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

    def command(self) -> str | None:
        spec = self.query_one("#spec", Input).value.strip()
        if not spec:
            return None
        text = f"kubectl label nodes {self.node} {spec}"
        if self.query_one("#overwrite", Checkbox).value:
            text += " --overwrite"
        return text
