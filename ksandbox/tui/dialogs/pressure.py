"""PressureDialog: switch a node condition (memory, disk, pid pressure) on or off."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import RadioButton, RadioSet

from .base import CommandDialog, SubmitPicker

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
        first_on = KINDS[0] in active
        self.picked = {"kind": KINDS[0], "state": "off" if first_on else "on"}
        """The choice in each set, as the command reads it (kept here: Enter's pick is told
        before its RadioSet.Changed arrives)."""

    def compose_fields(self) -> ComposeResult:
        # The command's own words: "pid pressure" three times over did not fit the row.
        with SubmitPicker(id="kind"):
            for k in KINDS:
                yield RadioButton(k, value=(k == self.picked["kind"]), name=k)
        with SubmitPicker(id="state"):
            for state in ("on", "off"):
                yield RadioButton(state, value=(state == self.picked["state"]), name=state)

    def on_radio_set_changed(self, event: RadioSet.Changed | None = None) -> None:
        if event is not None:
            self.radio_picked(event.radio_set,
                              event.pressed.name or str(event.pressed.label))
        # CommandDialog's handler, run after this one, shows the command with this pick.

    def radio_picked(self, picker: RadioSet, name: str) -> None:
        if picker.id not in self.picked or self.picked[picker.id] == name:
            return
        self.picked[picker.id] = name
        if picker.id == "kind":
            # The state offered is the one that changes something: off for a pressure that
            # is on, on for one that is off (it kept the first kind's, so moving to disk on
            # a node under memory pressure offered "disk off", which does nothing).
            state = "off" if name in self.active else "on"
            self.picked["state"] = state
            for button in self.query("#state RadioButton").results(RadioButton):
                if button.name == state and not button.value:
                    button.value = True

    def command(self) -> str | None:
        return f"ksandbox pressure node {self.node} {self.picked['kind']} {self.picked['state']}"
