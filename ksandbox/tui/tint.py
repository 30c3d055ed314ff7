"""QuickTint: a dialog's dimmed view of the screen beneath, with each style tinted once.

A ModalScreen draws the screen under it through Textual's ``BackgroundScreen``, which blends
the tint into every segment's colours one segment at a time: at 1,000 nodes the board is
~1,100 segments, and the blend (two colour conversions and additions per segment) was ~20 ms
of the ~90 ms it took a dialog to show. A screen has few distinct styles (the board: a few
dozen), so the tinted style is remembered per (tint, style) and every segment after the first
of its style is one dictionary look-up. The result is Textual's, segment for segment
(tests/tui/test_tint.py compares them).

The dialog draws it as strips straight from the compositor of the screen beneath
(:class:`TintedStrips`, a Textual Visual): Textual's path turns that screen into a stream of
segments and back into lines through Rich (``_Styled``, ``split_and_crop_lines``, a cell
length per segment), about half of the background's cost; the strips are already lines of the
screen's width.
"""

from __future__ import annotations

from typing import Any, Iterable

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.renderables.background_screen import BackgroundScreen
from textual.strip import Strip
from textual.visual import Visual

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


# (tint, the dialog's own style) -> {a segment's style: the style it is drawn with}
_finals: dict[tuple[Color, Style], dict[Style | None, Style]] = {}


class TintedStrips(Visual):
    """The screen beneath, tinted, as a Visual: what Textual's RichVisual makes of a
    BackgroundScreen (the segment styles tinted, then the widget's base style added under
    each, lines cropped to the width), computed on the compositor's strips."""

    def __init__(self, screen: Any, color: Color) -> None:
        self.screen = screen
        self.color = color

    def render_strips(self, width: int, height: int | None, style: Any,
                      options: Any) -> list[Strip]:
        base: Style = style.rich_style
        key = (self.color, base)
        finals = _finals.get(key)
        if finals is None or len(finals) >= MEMO_LIMIT:
            finals = _finals[key] = {}
        get = finals.get
        color = self.color
        add = base.__add__
        strips = []
        for strip in self.screen._compositor.render_strips()[:height]:
            segments = []
            for text, seg_style, control in strip:
                if control:
                    # Textual passes a control segment through the tint, and _Styled then
                    # adds the base style and drops the control.
                    segments.append(Segment(text, add(seg_style), None))
                    continue
                final = get(seg_style)
                if final is None:
                    final = finals[seg_style] = add(tinted_style(seg_style, color))
                segments.append(Segment(text, final, None))
            line = Strip(segments, strip.cell_length)
            strips.append(line if line.cell_length <= width else line.crop(0, width))
        return strips

    def get_optimal_width(self, rules: Any, container_width: int) -> int:
        return int(self.screen._compositor.size.width)

    def get_height(self, rules: Any, width: int) -> int:
        return int(self.screen._compositor.size.height)


class QuickTint:
    """Mixed into our ModalScreens (before ModalScreen): their background is the screen
    beneath tinted through the memo, drawn from its strips."""

    def render(self) -> Any:
        renderable = super().render()  # type: ignore[misc]
        if type(renderable) is BackgroundScreen:
            return TintedStrips(renderable.screen, renderable.color)
        return renderable
