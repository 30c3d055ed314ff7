"""PressureDialog: switch a node condition (memory, disk, pid pressure) on or off."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import RadioButton, RadioSet

from .base import CommandDialog

KINDS = ("memory", "disk", "pid")


class PressureDialog(CommandDialog):
    checks_command = True
    ok_label = "Apply"

    def __init__(self, node: str, active: tuple[str, ...] = ()) -> None:
        """``active``: the pressures already on (memory, disk, pid)."""
        super().__init__()
        self.node = node
        self.active = active
        self.title_text = f"Pressure on {node}"

    def compose_fields(self) -> ComposeResult:
        # The command's own words: "pid pressure" three times over did not fit the row.
        with RadioSet(id="kind"):
            for i, k in enumerate(KINDS):
                yield RadioButton(k, value=(i == 0), name=k)
        first_on = KINDS[0] in self.active
        with RadioSet(id="state"):
            yield RadioButton("on", value=not first_on, name="on")
            yield RadioButton("off", value=first_on, name="off")

    def _pressed(self, set_id: str) -> str | None:
        button = self.query_one(f"#{set_id}", RadioSet).pressed_button
        return button.name if button is not None else None

    def command(self) -> str | None:
        kind, state = self._pressed("kind"), self._pressed("state")
        if not kind or not state:
            return None
        return f"ksandbox pressure node {self.node} {kind} {state}"
