"""TaintDialog: ``key=value:Effect`` for one node, the effect picked from the three.

The field opens empty, the example as its placeholder: the user types the taint, whole
(``gpu=true:NoSchedule``) or without its effect (``gpu=true``), which then takes the one picked
below (the placeholder and the ``$ kubectl`` preview line show it). The field used to open with
the example in it and the cursor at its end, so a taint typed at once was appended to it
(``key=value:NoSchedulegpu=true:NoSchedule``). The two stay in step: picking an effect
rewrites the effect typed in the field, and typing one of the three picks it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Checkbox, Input, Label, RadioButton, RadioSet

from ...api.taints import TAINT_EFFECTS
from ..widgets.keys_in_order import OrderedInput
from ..widgets.static_content import put
from .base import CommandDialog, SubmitPicker

EFFECT = "NoSchedule"
"""The effect picked when the dialog opens (kubectl's examples' and the commonest)."""


def split_effect(spec: str) -> tuple[str, str]:
    """``key=value:NoSchedule`` → (``key=value``, ``NoSchedule``)."""
    head, sep, effect = spec.rpartition(":")
    return (head, effect) if sep else (spec, "")


def typed_effect(spec: str) -> str | None:
    """The effect the last taint typed in the field names (``a=b:NoExecute`` →
    ``NoExecute``; a removal ``a:NoExecute-`` names none), or None when it has no ``:``."""
    words = spec.split()
    if not words or words[-1].endswith("-") or ":" not in words[-1]:
        return None
    return split_effect(words[-1])[1]


def with_effect(spec: str, effect: str) -> str:
    """The taints of ``spec`` as kubectl gets them: each one added without an effect
    (``gpu=true``) takes ``effect``; one with an effect, a removal (``key-``) and anything
    else are left as typed, for kubectl to take or refuse."""
    return " ".join(word if ":" in word or word.endswith("-") or word.startswith("-")
                    else f"{word}:{effect}" for word in spec.split())


def placeholder(effect: str) -> str:
    return f"key=value:{effect}"


def first_effect(spec: str) -> str:
    """The effect picked as the dialog opens on ``spec``: the one it names, else EFFECT."""
    effect = typed_effect(spec)
    return effect if effect in TAINT_EFFECTS else EFFECT


class TaintDialog(CommandDialog):
    checks_command = True
    ok_label = "Taint"

    def __init__(self, node: str = "", spec: str = "") -> None:
        super().__init__()
        self.node = node
        self.spec = spec
        self.effect = first_effect(spec)
        """The effect picked below the field."""
        self._from_field: list[str] = []
        """Effects picked because they were typed, their Changed still to come: it must not
        rewrite the field (a key typed since would be undone)."""
        self.title_text = f"Taint node {node}"

    def prepare(self, node: str, spec: str = "") -> None:
        """Ready the app's one taint dialog (App.reusable_dialog) for ``node``: the fields as
        a new dialog would show them, the focus on the spec. Before it has been composed
        only the attributes are set; compose reads them."""
        self.node, self.spec, self.effect = node, spec, first_effect(spec)
        self._from_field = []
        self.title_text = f"Taint node {node}"
        self._dismissed = False
        field = self.field("#spec", Input)
        if field is None:
            return
        for title in self.query(".dialog-title").results(Label):
            put(title, self.title_text)  # most node names keep its height: no layout
        for button in self.query(RadioButton):
            if button.name == self.effect:
                # Pressing one releases the other (RadioSet); releasing one it would undo.
                button.value = True
        for box in self.query("#overwrite").results(Checkbox):
            box.value = False
        field.value = spec
        field.placeholder = placeholder(self.effect)
        self.set_focus(field)
        # As a new dialog's field gets it (Input.select_on_focus): a spec given is selected,
        # so what is typed replaces it. The focus may not change here (the field kept it
        # from the last use), so no Focus event selects it.
        field.select_all()
        self.update_preview()

    def compose_fields(self) -> ComposeResult:
        yield OrderedInput(self.spec, id="spec", placeholder=placeholder(self.effect))
        with SubmitPicker(id="effect"):
            for e in TAINT_EFFECTS:
                yield RadioButton(e, value=(e == self.effect), name=e)
        yield Checkbox("--overwrite", id="overwrite")

    def on_input_changed(self, event: Input.Changed) -> None:
        effect = typed_effect(event.value)
        for button in self.query(RadioButton):
            if effect is not None and button.name == effect and not button.value:
                self._from_field.append(effect)
                button.value = True
        # CommandDialog's own handler, which Textual runs after this one, redraws the preview.

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        self.effect_picked(event.pressed.name or str(event.pressed.label))

    def radio_picked(self, picker: RadioSet, name: str) -> None:
        self.effect_picked(name)

    def effect_picked(self, effect: str) -> None:
        """``effect`` was picked below the field: it is the effect of a taint typed without
        one, and the one typed for the last taint becomes it."""
        self.effect = effect
        field = self.field("#spec", Input)
        if field is None:
            return
        field.placeholder = placeholder(effect)
        typed = typed_effect(field.value)
        if effect in self._from_field:
            self._from_field.remove(effect)  # the field named it: it is as typed
        elif typed is not None and typed != effect:
            # Picked below: the effect typed for the last taint becomes this one.
            head, _ = split_effect(field.value)
            field.value = f"{head}:{effect}"
            field.cursor_position = len(field.value)
        # CommandDialog's handler, run after this one, shows the command with this effect.

    def command(self) -> str:
        """The command Enter runs; with the field empty it has no taint, and kubectl's
        answer to that ("at least one taint update is required") is what Enter says."""
        spec = with_effect(self.query_one("#spec", Input).value, self.effect)
        text = f"kubectl taint nodes {self.node} {spec}".rstrip()
        if self.query_one("#overwrite", Checkbox).value:
            text += " --overwrite"
        return text
