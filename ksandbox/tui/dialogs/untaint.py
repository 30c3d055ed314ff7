"""UntaintDialog: pick one of the node's taints; returns ``kubectl taint nodes N key:Effect-``."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from .base import CommandDialog


def removal_spec(key: str, effect: str) -> str:
    return f"{key}:{effect}-" if effect else f"{key}-"


class UntaintDialog(CommandDialog):
    checks_command = True
    ok_label = "Untaint"

    def __init__(self, node: str, taints: list[tuple[str, str, str]]) -> None:
        """``taints``: (display text, key, effect) for each taint on the node."""
        super().__init__()
        self.node = node
        self.taints = taints
        self.title_text = f"Remove a taint from {node}"

    def compose_fields(self) -> ComposeResult:
        yield OptionList(*(Option(text, id=str(i)) for i, (text, _k, _e) in
                           enumerate(self.taints)), id="taints")

    def on_mount(self) -> None:
        super().on_mount()
        options = self.field("#taints", OptionList)
        if options is None:
            return
        options.highlighted = 0 if self.taints else None
        options.focus()

    def on_option_list_option_highlighted(self) -> None:
        self.update_preview()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.confirm()

    def command(self) -> str | None:
        try:
            index = self.query_one("#taints", OptionList).highlighted
        except Exception:
            return None
        if index is None or not 0 <= index < len(self.taints):
            return None
        _text, key, effect = self.taints[index]
        return f"kubectl taint nodes {self.node} {removal_spec(key, effect)}"
