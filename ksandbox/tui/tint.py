"""QuickTint: a dialog's dimmed view of the screen beneath, with each style tinted once.

A ModalScreen draws the screen under it through Textual's ``BackgroundScreen``, which blends
the tint into every segment's colours one segment at a time: at 1,000 nodes the board is
~1,100 segments, and the blend (two colour conversions and additions per segment) was ~20 ms
of the ~90 ms it took a dialog to show. A screen has few distinct styles (the board: a few
dozen), so the tinted style is remembered per (tint, style) and every segment after the first
of its style is one dictionary look-up. The result is Textual's, segment for segment
(tests/tui/test_tint.py compares them).
"""

from __future__ import annotations

from typing import Any, Iterable

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen

# Styles remembered per tint colour; past this many the memo starts again (a screen full
# of distinct styles must not grow it without end).
MEMO_LIMIT = 4096

_memos: dict[Color, dict[Style | None, Style]] = {}


def tinted_style(style: Style | None, color: Color) -> Style:
    """The style ``BackgroundScreen.process_segments`` gives a segment of ``style``."""
    memo = _memos.get(color)
    if memo is None:
        memo = _memos[color] = {}
    tinted = memo.get(style)
    if tinted is None:
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        # Textual's own blend, on one segment: the answer is whatever it gives.
        (done,) = BackgroundScreen.process_segments([Segment(" ", style)], color)
        tinted = memo[style] = done.style or Style()
    return tinted


def tint_segments(segments: Iterable[Segment], color: Color) -> Iterable[Segment]:
    memo = _memos.get(color)
    if memo is None:
        memo = _memos[color] = {}
    get = memo.get
    for segment in segments:
        text, style, control = segment
        if control:
            yield segment
            continue
        tinted = get(style)
        if tinted is None:
            tinted = tinted_style(style, color)
        yield Segment(text, tinted, control)


class MemoBackgroundScreen(BackgroundScreen):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        segments = console.render(self.screen._compositor, options)
        return tint_segments(segments, self.color)


class QuickTint:
    """Mixed into our ModalScreens (before ModalScreen): their background is the screen
    beneath tinted through the memo."""

    def render(self) -> Any:
        renderable = super().render()  # type: ignore[misc]
        if type(renderable) is BackgroundScreen:
            return MemoBackgroundScreen(renderable.screen, renderable.color)
        return renderable
