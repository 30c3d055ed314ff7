"""``m`` while recording: a caption or a marker (tui/recorder.py's RecorderControls.annotate).

A module of its own, imported when the dialog first opens: with it, tui/recorder.py (which
the App imports) brought Textual's Checkbox and the dialog's class into every start before
the board's first frame (~6 M instructions; issue 11 item 5).
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Checkbox, Input

from ..widgets.keys_in_order import OrderedInput
from ..widgets.player_bar import clock
from .base import CommandDialog


class AnnotateDialog(CommandDialog):
    """``m``: a caption (shown until the next one) or a marker (a point to jump to)."""

    ok_label = "Add"

    def __init__(self, now: float) -> None:
        super().__init__()
        self.title_text = f"Add at {clock(now)}"

    def compose_fields(self) -> Any:
        yield OrderedInput("", id="text", placeholder="a caption: what the viewer should see here")
        yield Checkbox("a marker instead (a point to jump to with { and })", id="marker")

    def on_mount(self) -> None:
        super().on_mount()
        if (text := self.field("#text", Input)) is not None:
            text.focus()

    def command(self) -> str | None:
        text = self.query_one("#text", Input).value.strip()
        if not text:
            return None
        marker = self.query_one("#marker", Checkbox).value
        return f"{'marker' if marker else 'caption'}:{text}"
