"""TaintDialog: ``key=value:Effect`` for one node, the effect picked from the three."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.widgets import Checkbox, Input, Label, RadioButton, RadioSet

from ...api.taints import TAINT_EFFECTS
from ..widgets.keys_in_order import OrderedInput
from ..widgets.static_content import put
from .base import CommandDialog


def split_effect(spec: str) -> tuple[str, str]:
    """``key=value:NoSchedule`` → (``key=value``, ``NoSchedule``)."""
    head, sep, effect = spec.rpartition(":")
    return (head, effect) if sep else (spec, "")


class EffectPicker(RadioSet):
    """The three effects: arrows move and pick (space too); Enter submits the dialog, as it
    does from the text field (Textual's RadioSet would only toggle)."""

    BINDINGS = [Binding("down,right", "next_button", "Next option", show=False),
                Binding("up,left", "previous_button", "Previous option", show=False),
                Binding("space", "toggle_button", "Toggle", show=False),
                Binding("enter", "submit", "Taint", show=False)]

    def action_submit(self) -> None:
        self.action_toggle_button()   # the highlighted effect is the one meant
        self.call_after_refresh(self._confirm)

    def _confirm(self) -> None:
        screen = self.screen
        if isinstance(screen, CommandDialog):
            screen.confirm()


class TaintDialog(CommandDialog):
    ok_label = "Taint"

    def __init__(self, node: str = "", spec: str = "key=value:NoSchedule") -> None:
        super().__init__()
        self.node = node
        self.spec = spec
        self.title_text = f"Taint node {node}"

    def prepare(self, node: str, spec: str = "key=value:NoSchedule") -> None:
        """Ready the app's one taint dialog (App.reusable_dialog) for ``node``: the fields as
        a new dialog would show them, the focus on the spec. Before it has been composed
        only the attributes are set; compose reads them."""
        self.node, self.spec = node, spec
        self.title_text = f"Taint node {node}"
        self._dismissed = False
        field = self.field("#spec", Input)
        if field is None:
            return
        for title in self.query(".dialog-title").results(Label):
            put(title, self.title_text)  # most node names keep its height: no layout
        _, effect = split_effect(spec)
        for button in self.query(RadioButton):
            if button.name == effect:
                # Pressing one releases the other (RadioSet); releasing one it would undo.
                button.value = True
        for box in self.query("#overwrite").results(Checkbox):
            box.value = False
        field.value = spec
        field.cursor_position = len(spec)
        self.set_focus(field)
        self.update_preview()

    def compose_fields(self) -> ComposeResult:
        yield OrderedInput(self.spec, id="spec", placeholder="key=value:Effect")
        _, effect = split_effect(self.spec)
        with EffectPicker(id="effect"):
            for e in TAINT_EFFECTS:
                yield RadioButton(e, value=(e == effect), name=e)
        yield Checkbox("--overwrite", id="overwrite")

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        effect = event.pressed.name or str(event.pressed.label)
        try:
            field = self.query_one("#spec", Input)
        except NoMatches:
            return
        head, _ = split_effect(field.value)
        field.value = f"{head}:{effect}"
        self.update_preview()

    def command(self) -> str | None:
        spec = self.query_one("#spec", Input).value.strip()
        if not spec:
            return None
        text = f"kubectl taint nodes {self.node} {spec}"
        if self.query_one("#overwrite", Checkbox).value:
            text += " --overwrite"
        return text
