"""``ctrl+g`` in the player: where to go (tui/player.py's PlayerControls.goto).

A module of its own, imported when the dialog first opens: tui/player.py, which the App
imports, made this dialog's class, compiled its two patterns and imported the recording
reader for its rounding on every start before the board's first frame (issue 11 item 5).
"""

from __future__ import annotations

import re
from typing import Any

from textual.widgets import Input

from ...recording.script import round_ms
from ..widgets.keys_in_order import OrderedInput
from ..widgets.player_bar import clock
from .base import CommandDialog

_POSITION = re.compile(r"^(?:T\+)?(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$|^(\d+(?:\.\d+)?)s?$")
_RELATIVE = re.compile(r"^([+-])(\d+(?:\.\d+)?)s?$|^([+-])(\d+):(\d+(?:\.\d+)?)$")


def parse_position(text: str, now: float = 0.0) -> float:
    """A simulated time from what a user types: ``05:30``, ``1:02:03``, ``T+00:05:30``, ``330``,
    ``330s``, or relative ``+30`` / ``-1:00``. Raises ValueError with what is accepted."""
    text = text.strip()
    m = _RELATIVE.match(text)
    if m:
        sign = m.group(1) or m.group(3)
        secs = float(m.group(2)) if m.group(2) else int(m.group(4)) * 60 + float(m.group(5))
        return max(0.0, now + (secs if sign == "+" else -secs))
    m = _POSITION.match(text)
    if m:
        if m.group(4) is not None:
            return float(m.group(4))
        hours = int(m.group(1) or 0)
        minutes, seconds = int(m.group(2)), float(m.group(3))
        if seconds >= 60 or (m.group(1) and minutes >= 60):
            raise ValueError(f"{text!r}: minutes and seconds go up to 59")
        return hours * 3600 + minutes * 60 + seconds
    raise ValueError(f"{text!r}: expected a time such as 05:30, 1:02:03, 330 or +30")


class GoToDialog(CommandDialog):
    """``ctrl+g``: where to go, as the bar shows positions (``05:30``)."""

    ok_label = "Go"

    def __init__(self, now: float, start: float, end: float) -> None:
        super().__init__()
        self.now, self.start, self.end = now, start, end
        self.title_text = f"Go to (now {clock(now)}, from {clock(start)} to {clock(end)})"

    def compose_fields(self) -> Any:
        yield OrderedInput(clock(self.now), id="position",
                    placeholder="05:30, 1:02:03, 330 (seconds), +30 or -1:00")

    def command(self) -> str | None:
        text = self.query_one("#position", Input).value.strip()
        try:
            t = parse_position(text, self.now)
        except ValueError:
            return None
        return f"{round_ms(t):g}"

    def update_preview(self) -> None:
        super().update_preview()
        if not self._ready:
            return
        text = self.query_one("#position", Input).value.strip()
        try:
            t = parse_position(text, self.now)
            line = f"go to {clock(t)}" + (" (the end)" if t > self.end else "")
        except ValueError as exc:
            line = str(exc)
        from textual.widgets import Label

        self.query_one("#preview", Label).update(line)
