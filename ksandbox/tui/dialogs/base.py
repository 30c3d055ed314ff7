"""CommandDialog: the shape every dialog shares (frogmouth's typed modal screen).

A dialog is a ``ModalScreen[str | None]``: it dismisses with the command text it built —
exactly what the `:` bar would take — or with None when cancelled. Escape and the Cancel button
cancel; Enter in a field or the OK button confirm. The caller passes the text to
``session.submit``; the dialog itself never touches the sandbox.
"""

from __future__ import annotations

from typing import TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Input, Label, RadioButton, RadioSet

from ..focus_paint import FocusPaintsWidgets
from ..guard import DismissOnce, Guarded
from ..screen_layout import LayoutOnce
from ..tint import QuickTint
from ..widgets.static_content import put

W = TypeVar("W", bound=Widget)


def refused(text: str) -> str:
    """kubectl's error for a command line it refuses before sending anything (its flags,
    arguments and specs: ``commands.parse``), or "" for one it would send."""
    from ...commands import format_error
    from ...commands import parse as parse_command

    try:
        parse_command(text)
    except Exception as exc:  # noqa: BLE001 - kubectl's words for whatever it refuses
        return format_error(exc).strip()
    return ""


class SubmitPicker(RadioSet):
    """A dialog's choice of a few: arrows move and pick (space too); Enter picks the
    highlighted one and submits the dialog, as Enter in a text field does (Textual's RadioSet
    would only toggle, and on the one already picked Enter did nothing at all: the pressure
    dialog, which opens focused on its first choice, stayed open)."""

    BINDINGS = [Binding("down,right", "next_button", "Next option", show=False),
                Binding("up,left", "previous_button", "Previous option", show=False),
                Binding("space", "toggle_button", "Toggle", show=False),
                Binding("enter", "submit", "Submit", show=False)]

    def action_submit(self) -> None:
        self.action_toggle_button()   # the highlighted choice is the one meant
        # The dialog hears of the pick (RadioSet.Changed) a few messages later, after the
        # command was sent: it is told now, or Enter sent the choice picked before.
        screen = self.screen
        if self._selected is not None and isinstance(screen, CommandDialog):
            button = self._nodes[self._selected]
            if isinstance(button, RadioButton) and button.name:
                screen.radio_picked(self, button.name)
        self.call_after_refresh(self._confirm)

    def _confirm(self) -> None:
        screen = self.screen
        if isinstance(screen, CommandDialog):
            screen.confirm()


class CommandDialog(Guarded, DismissOnce, QuickTint, FocusPaintsWidgets, LayoutOnce,
                    ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel")]

    title_text = "Command"
    ok_label = "OK"
    ok_variant = "primary"
    focus_cancel = False
    """Start with Cancel focused (destructive dialogs: the less destructive action wins)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield from self.compose_fields()
            yield Label("", id="preview", classes="dialog-preview")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(self.ok_label, id="ok", variant=self.ok_variant)

    def compose_fields(self) -> ComposeResult:
        yield from ()

    def field(self, selector: str, kind: type[W]) -> W | None:
        """A field of this dialog, or None when a burst of keys closed the dialog before it
        mounted (its widgets are gone: on_mount must not raise for that)."""
        for widget in self.query(selector).results(kind):
            return widget
        return None

    def command(self) -> str | None:
        """The command text the fields describe (None if they describe nothing yet)."""
        return None

    def radio_picked(self, picker: RadioSet, name: str) -> None:
        """Enter picked ``name`` in ``picker`` (a SubmitPicker) and is about to submit: the
        dialog's command must have it now, before its RadioSet.Changed arrives."""

    _ready = False

    def on_mount(self) -> None:
        self._ready = True
        self.update_preview()
        if self.focus_cancel:
            # query, not query_one: a burst of keys may have closed the dialog before it
            # mounted, and a closed dialog has no buttons left to focus.
            for button in self.query("#cancel").results(Button):
                button.focus()

    def current_command(self) -> str | None:
        """``command()``, or None while the fields are still being mounted."""
        if not self._ready:
            return None
        try:
            return self.command()
        except NoMatches:
            return None

    def update_preview(self) -> None:
        if not self._ready:
            return  # fields post Changed while they mount, before the preview exists
        text = self.current_command()
        try:
            # A preview of the same height is only repainted (static_content.put): a layout
            # of the dialog also lays out its tinted background, on every keystroke.
            put(self.query_one("#preview", Label), f"$ {text}" if text else "")
        except NoMatches:  # a late Changed after the dialog closed
            pass

    def on_input_changed(self, event: Input.Changed) -> None:
        self.update_preview()

    def on_checkbox_changed(self) -> None:
        self.update_preview()

    def on_radio_set_changed(self) -> None:
        self.update_preview()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.confirm()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "ok":
            self.confirm()
        else:
            self.finish(None)

    checks_command = False
    """confirm() checks the text as kubectl would before it sends anything: the dialogs
    whose fields the user types a command's arguments into (a dialog whose result is not a
    command line, a time, a name, a caption, leaves it False)."""

    def confirm(self) -> None:
        """Enter or OK: dismiss with the command, unless kubectl would refuse it before
        sending anything (``invalid taint spec``, ``at least one taint update is required``):
        that is said in kubectl's words and the dialog stays open with what was typed, to be
        put right. What only the cluster can refuse (a missing node, a taint already there)
        is said after it closes, as for a line run from the `:` bar."""
        text = self.current_command()
        if not text:
            return
        if self.checks_command:
            error = refused(text)
            if error:
                self.app.notify(error, severity="error", markup=False)
                return
        self.finish(text)

    def action_cancel(self) -> None:
        self.finish(None)

    def finish(self, result: str | None) -> None:
        """Dismiss with ``result``: once, and only while on top (DismissOnce): a second Enter
        (or Enter then Escape) in one burst arrives after the first dismissed the dialog."""
        if self.is_mounted:
            self.dismiss(result)
