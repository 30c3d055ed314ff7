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
from textual.geometry import Region
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
    each, lines cropped to the width), computed on the compositor's strips.

    ``rows``: the only rows that changed beneath since ``owner`` (the dialog, a QuickTint)
    last drew this background; the others are taken from that drawing. A dialog is redrawn
    whole by Textual whenever any region beneath changes: the clock on the board's header,
    moving under a dialog once a shown second (KsScreen.show_clock), recomputed all 40 tinted
    rows of a 1,000-node board (~11 ms) for one."""

    def __init__(self, screen: Any, color: Color, owner: Any = None,
                 rows: set[int] | None = None) -> None:
        self.screen = screen
        self.color = color
        self.owner = owner
        self.rows = rows

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

        def tinted(strip: Strip) -> Strip:
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
            return line if line.cell_length <= width else line.crop(0, width)

        compositor = self.screen._compositor
        drawn_key = (id(self.screen), compositor.size, width, height, color, base)
        drawn = getattr(self.owner, "_tint_drawn", None)
        rows = self.rows
        if rows is not None and drawn is not None and drawn[0] == drawn_key:
            strips = list(drawn[1])
            wanted = sorted(y for y in rows if 0 <= y < len(strips))
            if wanted:
                # Those rows of the screen beneath, composed as Textual's partial update
                # composes the rows it writes.
                crop = Region(0, wanted[0], compositor.size.width, wanted[-1] - wanted[0] + 1)
                redrawn = set(wanted)
                chops = compositor._render_chops(crop, redrawn.__contains__)
                for y in wanted:
                    strips[y] = tinted(Strip.join(chops[y].values()))
        else:
            strips = [tinted(strip) for strip in compositor.render_strips()[:height]]
        if self.owner is not None:
            self.owner._tint_drawn = (drawn_key, strips)
        return strips

    def get_optimal_width(self, rules: Any, container_width: int) -> int:
        return int(self.screen._compositor.size.width)

    def get_height(self, rules: Any, width: int) -> int:
        return int(self.screen._compositor.size.height)


class QuickTint:
    """Mixed into our ModalScreens (before ModalScreen): their background is the screen
    beneath tinted through the memo, drawn from its strips, and drawn again only in the rows
    that changed beneath (TintedStrips' ``rows``)."""

    _tint_drawn: Any = None
    """(what it was drawn for, the tinted rows) of the last background drawn."""

    def render(self) -> Any:
        renderable = super().render()  # type: ignore[misc]
        if type(renderable) is BackgroundScreen:
            return TintedStrips(renderable.screen, renderable.color, self, self._changed_rows())
        return renderable

    def _changed_rows(self) -> set[int] | None:
        """The rows a refresh asked for, when it was for some rows only: the screen beneath
        hands its changed regions to the screen on top (Screen._compositor_refresh), which
        refreshes them. None: all of them (a refresh of the whole screen, a first drawing)."""
        regions = self._dirty_regions  # type: ignore[attr-defined]
        width, height = self.size  # type: ignore[attr-defined]
        rows: set[int] = set()
        for region in regions:
            if region.width >= width and region.height >= height:
                return None
            rows.update(region.line_range)
        return rows or None

    def _on_timer_update(self) -> None:
        # Textual's frame: a repaint of the screen itself stands for every widget marked
        # dirty (they are dropped from the update), right for a whole repaint. Ours is often
        # the rows beneath that changed (_changed_rows: the clock behind the dialog), and a
        # widget of the dialog changed in the same frame (the branch list's times) was never
        # drawn. Its region joins the screen's repaint, without redrawing the rows beneath.
        widgets = self._dirty_widgets  # type: ignore[attr-defined]
        if self._repaint_required and widgets:  # type: ignore[attr-defined]
            shown = self._compositor.visible_widgets  # type: ignore[attr-defined]
            for widget in widgets:
                placed = shown.get(widget) if widget is not self else None
                if placed is not None:
                    region, clip = placed
                    self._repaint_regions.add(region.intersection(clip))  # type: ignore[attr-defined]
        super()._on_timer_update()  # type: ignore[misc]

    def _on_screen_suspend(self) -> None:
        self._tint_drawn = None  # the screen beneath moves on while this one is closed
