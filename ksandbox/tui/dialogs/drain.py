"""DrainDialog: kubectl's drain flags, as k9s's drain form lays them out.

Fields: ``--grace-period`` (-1: each pod's own), ``--timeout`` (0: wait forever) and the
checkboxes ``--ignore-daemonsets``, ``--delete-emptydir-data``, ``--force``. Ignore DaemonSets
starts ticked: without it kubectl refuses to drain any node that runs a DaemonSet pod, which is
every node of the sample clusters.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Checkbox, Input, Label

from ..widgets.keys_in_order import OrderedInput
from .base import CommandDialog


class DrainDialog(CommandDialog):
    checks_command = True
    ok_label = "Drain"
    ok_variant = "warning"

    def __init__(self, node: str) -> None:
        super().__init__()
        self.node = node
        self.title_text = f"Drain {node}?"

    def compose_fields(self) -> ComposeResult:
        with Horizontal(classes="dialog-row"):
            yield Label("GracePeriod:", classes="dialog-label")
            yield OrderedInput("-1", id="grace", restrict=r"-?[0-9]*")
        with Horizontal(classes="dialog-row"):
            yield Label("Timeout:", classes="dialog-label")
            yield OrderedInput("0s", id="timeout")
        yield Checkbox("Ignore DaemonSets", True, id="ignore-daemonsets")
        yield Checkbox("Delete EmptyDir Data", id="delete-emptydir-data")
        yield Checkbox("Force", id="force")

    def command(self) -> str | None:
        parts = [f"kubectl drain {self.node}"]
        for flag in ("ignore-daemonsets", "delete-emptydir-data", "force"):
            if self.query_one(f"#{flag}", Checkbox).value:
                parts.append(f"--{flag}")
        grace = self.query_one("#grace", Input).value.strip()
        if grace and grace not in ("-1", "-"):
            parts.append(f"--grace-period={grace}")
        timeout = self.query_one("#timeout", Input).value.strip()
        if timeout and timeout not in ("0", "0s"):
            parts.append(f"--timeout={timeout}")
        return " ".join(parts)
