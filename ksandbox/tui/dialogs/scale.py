"""ScaleDialog: "Scale deployment web?" with the replica count prefilled."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Input

from ..widgets.keys_in_order import OrderedInput
from .base import CommandDialog


class ScaleDialog(CommandDialog):
    checks_command = True
    ok_label = "Scale"

    def __init__(self, resource: str, namespace: str, name: str, replicas: int) -> None:
        super().__init__()
        self.resource = resource
        self.namespace = namespace
        self.name_ = name
        self.replicas = replicas
        self.title_text = f"Scale {resource} {name}?"

    def compose_fields(self) -> ComposeResult:
        yield OrderedInput(str(self.replicas), id="replicas", restrict=r"[0-9]*", placeholder="replicas")

    def on_mount(self) -> None:
        super().on_mount()
        if (replicas := self.field("#replicas", Input)) is not None:
            replicas.focus()

    def command(self) -> str:
        """The command Enter runs; with no count it has no --replicas, and kubectl's answer
        to that (the flag is required) is what Enter says."""
        value = self.query_one("#replicas", Input).value.strip()
        ns = f" -n {self.namespace}" if self.namespace and self.namespace != "default" else ""
        replicas = f" --replicas={value}" if value else ""
        return f"kubectl scale {self.resource}/{self.name_}{ns}{replicas}"
