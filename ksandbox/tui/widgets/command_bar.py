"""CommandBar: the k9s prompt above the footer — ``:`` for commands, ``/`` for the filter.

Its row is always on screen: closed, it shows the crumbs of the view stack (k9s's crumbs,
widgets/view_crumbs.py); open, the prompt takes the row's place. The body above never changes
height, so opening or closing the bar redraws one line, not the whole screen (with a row that
came and went, each open and each close laid out and redrew every pane twice: ~60 ms at
1,000 nodes).

It sits in the screen's bottom dock *above* the Footer (the two used to share ``dock: bottom``
and the footer, composed last, was drawn over the bar: the user typed blind). Opening it is
synchronous — the bar is displayed and its input focused before the key that opened it returns —
so every key that follows, even in the same read from the terminal (a paste, SSH, a fast
typist), goes into the input and never to the view's single-key bindings.

Enter runs the line at once, while the key is handled (the screen decides what it means), and
gives the focus back to the view: the keys typed behind it in the same burst go to whatever is
on top then (the App hands keys over one at a time: tui/key_order.py) — `:po⏎/web` opens the
pod list and types ``web`` into its filter, instead of losing ``/web`` in the closed bar.

In command mode ↑/↓ walk the history,
Tab or → accepts the greyed completion (verbs, resources, node and pod names). In filter mode
every keystroke re-filters the view (filter as you type); Enter keeps the filter, Escape
clears it.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Input, Label

from ..commandline import Vocabulary, complete
from ..guard import Guarded
from .focus_look import KeepsFocusLook
from .keys_in_order import OrderedInput
from .view_crumbs import ViewCrumbs

PLACEHOLDERS = {
    "command": "a view (no po deploy ev …), a kubectl command, or q — tab completes, ↑ history",
    "filter": "filter: text or regex, !inverse, -l app=web — enter keeps, esc clears",
}


class CommandSuggester(Suggester):
    def __init__(self, vocab: Vocabulary) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.vocab = vocab

    async def get_suggestion(self, value: str) -> str | None:
        try:
            return complete(value, self.vocab)
        except Exception:  # completion must never break typing
            return None


class CommandInput(OrderedInput):
    """The bar's input. It is on show only while the bar is open, which is while it has the
    focus (a mouse click elsewhere aside): it is styled as focused all the time, so the focus
    arriving and leaving restyles nothing (Textual's Input has four component styles; each
    restyle cost ~2–10 ms on every open and close). Its cursor still follows the focus."""

    _PSEUDO_CLASSES: ClassVar[dict[str, Callable[[Any], bool]]] = {
        **Input._PSEUDO_CLASSES, "focus": lambda widget: True, "blur": lambda widget: False}

    def watch_has_focus(self, has_focus: bool) -> None:
        """Nothing to restyle (above)."""

    # The footer says what each key does in the bar's mode: a key's binding for the other mode
    # is hidden and declined by check_action (a filter has no completion, history or "Run":
    # Enter keeps it, Escape clears it, ctrl+u erases the text and so the filter).
    BINDINGS = [
        Binding("enter", "submit", "Run", show=True),
        Binding("enter", "keep_filter", "Keep", show=True),
        Binding("tab", "accept_suggestion", "Complete", show=True),
        Binding("up", "history(-1)", "History", show=True),
        Binding("down", "history(1)", "Next", show=False),
        Binding("escape", "cancel", "Close", show=True),
        Binding("escape", "clear_filter", "Clear", show=True),
        Binding("ctrl+u", "clear", "Clear", show=True),
        Binding("ctrl+u", "erase_filter", "Erase", show=True),
    ]

    _COMMAND_ONLY: ClassVar[frozenset[str]] = frozenset(
        {"submit", "accept_suggestion", "history", "cancel", "clear"})
    _FILTER_ONLY: ClassVar[frozenset[str]] = frozenset(
        {"keep_filter", "clear_filter", "erase_filter"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        bar = self.parent
        filtering = isinstance(bar, CommandBar) and bar.mode == "filter"
        if action in self._COMMAND_ONLY and filtering:
            return False
        if action in self._FILTER_ONLY and not filtering:
            return False
        return True

    async def action_keep_filter(self) -> None:
        await self.action_submit()

    def action_clear_filter(self) -> None:
        self.action_cancel()

    def action_erase_filter(self) -> None:
        self.action_clear()

    async def action_submit(self) -> None:
        """Enter: the line runs now (CommandBar.submit), not once a Submitted message has
        bubbled up through the bar and the screen — by then the rest of the burst was in the
        closed bar."""
        bar = self.parent
        if isinstance(bar, CommandBar):
            bar.submit(self.value)

    def action_accept_suggestion(self) -> None:
        if self._suggestion:
            self.value = self._suggestion
            self.cursor_position = len(self.value)

    def action_history(self, delta: int) -> None:
        bar = self.parent
        if isinstance(bar, CommandBar):
            bar.walk_history(delta)

    def action_cancel(self) -> None:
        bar = self.parent
        if isinstance(bar, CommandBar):
            bar.cancel()

    def action_clear(self) -> None:
        self.value = ""


class CommandBar(Guarded, Horizontal):
    """The crumbs until ``open`` is called; posts :class:`Submitted`, :class:`FilterChanged`."""

    DEFAULT_CSS = """
    CommandBar {
        height: 1;
        background: $panel;
    }
    CommandBar > Label { width: 3; padding: 0 0 0 1; color: $accent; text-style: bold; }
    CommandBar > Label, CommandBar > CommandInput { display: none; }
    CommandBar > Input {
        border: none; height: 1; padding: 0; width: 1fr; background: $panel;
    }
    CommandBar > Input:focus { border: none; }
    """

    class Submitted(Message):
        def __init__(self, mode: str, value: str) -> None:
            super().__init__()
            self.mode = mode
            self.value = value

    class FilterChanged(Message):
        def __init__(self, value: str) -> None:
            super().__init__()
            self.value = value

    class Closed(Message):
        def __init__(self, mode: str, cancelled: bool) -> None:
            super().__init__()
            self.mode = mode
            self.cancelled = cancelled

    def __init__(self, vocab: Vocabulary, history: list[str] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.vocab = vocab
        self.history = history if history is not None else []
        """Command lines entered this run (the App shares one list between screens)."""
        self.mode = "command"
        self._history_pos = 0
        self._kept_look: KeepsFocusLook | None = None
        self._crumbs: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        yield Label(":")
        # No validators, and so nothing to validate: not on blur either, where Textual's
        # validation sets a class and restyles the input.
        yield CommandInput(suggester=CommandSuggester(self.vocab), id="command-input",
                           select_on_focus=False, validate_on=())
        crumbs = ViewCrumbs()
        crumbs.set_reactive(ViewCrumbs.crumbs, self._crumbs)
        yield crumbs

    def show_crumbs(self, crumbs: tuple[str, ...]) -> None:
        """Show ``crumbs`` in the row, now or, when the bar has not composed yet (a screen's
        on_mount can run before its bar's children exist), once it has."""
        self._crumbs = crumbs
        for line in self.query(ViewCrumbs):
            line.crumbs = crumbs

    @property
    def input(self) -> CommandInput:
        return self.query_one(CommandInput)

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self, mode: str, value: str = "") -> None:
        """Show the bar and focus its input *now* (not after a refresh): the keys already
        queued behind the one that opened it must land in the input."""
        changed, self.mode = self.mode != mode, mode
        if changed and self.input.has_focus:
            self.input.refresh_bindings()  # the footer's keys are the mode's (check_action)
        self.query_one(Label).update(":" if mode == "command" else "/")
        # No CSS rule reads the class (it says "open" to tests and the bench): not restyling
        # the bar's four widgets for it saves ~5 ms.
        self.add_class("-open", update=False)
        self._show_prompt(True)
        field = self.input
        field.suggester = CommandSuggester(self.vocab) if mode == "command" else None
        field.placeholder = (PLACEHOLDERS["command"] if mode == "command"
                             else PLACEHOLDERS["filter"])
        field.value = value
        field.cursor_position = len(value)
        self._history_pos = len(self.history)
        pane = self.screen.focused
        if isinstance(pane, KeepsFocusLook) and pane is not field:
            pane.keep_focus_look()
            self._kept_look = pane
        self.screen.set_focus(field)

    def focus_back(self) -> None:
        """The screen gave the focus back after the bar closed: the pane the bar was opened
        from looks unfocused now, unless that is where the focus went."""
        pane, self._kept_look = self._kept_look, None
        if pane is not None and self.screen.focused is not pane:
            pane.release_focus_look()

    def _show_prompt(self, shown: bool) -> None:
        """The prompt in the crumbs' place, or back. Set on the widgets themselves, not by a
        CSS class, which applies only when styles are next updated: the input must be
        displayed, and so focusable, before the focus moves to it."""
        self.query_one(Label).display = shown
        self.input.display = shown
        for line in self.query(ViewCrumbs):
            line.display = not shown

    def close(self, cancelled: bool) -> None:
        self.remove_class("-open", update=False)
        self._show_prompt(False)
        self.post_message(self.Closed(self.mode, cancelled))

    def close_quietly(self) -> None:
        """Closed and emptied, telling nobody (a kept view shown again: nothing it would say
        applies any more)."""
        if self.is_open:
            self.remove_class("-open", update=False)
            self._show_prompt(False)
        self._kept_look = None
        for field in self.query(CommandInput):
            field.value = ""

    def cancel(self) -> None:
        if self.mode == "filter":
            self.input.value = ""
            self.post_message(self.FilterChanged(""))
        self.close(cancelled=True)

    def walk_history(self, delta: int) -> None:
        if self.mode != "command" or not self.history:
            return
        self._history_pos = max(0, min(len(self.history), self._history_pos + delta))
        field = self.input
        field.value = self.history[self._history_pos] if self._history_pos < len(
            self.history) else ""
        field.cursor_position = len(field.value)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.mode == "filter" and self.is_open:
            self.post_message(self.FilterChanged(event.value))

    def submit(self, text: str) -> None:
        """Close the bar, give the focus back to the view and run ``text`` there (the
        screen's ``on_command_bar_submitted``), all before the Enter key returns."""
        value = text.strip()
        if self.mode == "command" and value:
            if not self.history or self.history[-1] != value:
                self.history.append(value)
        screen = self.screen
        self.close(cancelled=False)
        focus_body = getattr(screen, "focus_body", None)
        if callable(focus_body):
            focus_body()
        handler = getattr(screen, "on_command_bar_submitted", None)
        if callable(handler):
            handler(self.Submitted(self.mode, value))
        else:
            self.post_message(self.Submitted(self.mode, value))
