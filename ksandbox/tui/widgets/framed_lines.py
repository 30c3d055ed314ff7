"""FramedLines: Textual's StylesCache, with a short way for a plain content line.

Every line a widget draws goes through Textual's ``StylesCache.render_line``, which frames the
widget's own line with its border, padding, outline, tint and opacity. For each line it reads
every one of those styles again, builds the border's colours and looks its box characters up,
and makes two closures: ~70 µs a line at 1,000 nodes, as much as the line itself costs the
event log or the pod list, and paid for each of their ~37 lines whenever the whole list is
drawn (back to the board after the log moved, ``:po``, a sort, each filter keystroke).

The lists and the board draw nothing over their lines but their frame's left and right edges
(no padding, outline, tint, opacity, text opacity or hatch). For such a widget the frame of a
content line is the same for every line of one render: it is worked out once per render
(:meth:`FramedLines.render`), with Textual's own functions and inputs, and each content line
is then its line fitted to the content width between the two edges. Every other line (the top
and bottom edges, any widget with a style the short way does not draw) takes Textual's way.
tests/tui/test_framed_lines.py holds the two to the same strips.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rich.segment import Segment
from textual._ansi_theme import DEFAULT_TERMINAL_THEME
from textual._border import get_box
from textual._styles_cache import StylesCache
from textual.strip import Strip
from textual.style import Style


class _Frame(NamedTuple):
    """What frames each content line of one render."""

    first: int
    """The first content line (below a top edge)."""
    end: int
    """The line after the last content line (the bottom edge, or the widget's height)."""
    left: Segment | None
    right: Segment | None
    inner: Any
    """The rich style of the content's background (what a short line is padded with)."""


def _plain_frame(cache: StylesCache, styles: Any, size: Any, padding: Any,
                 base_background: Any, background: Any, opacity: float) -> _Frame | None:
    """The frame of a content line when only the left and right edges are drawn over it,
    worked out as StylesCache.render_line does for each line; None for any other widget."""
    if opacity != 1.0 or styles.text_opacity != 1.0 or styles.tint.a or any(padding):
        return None
    if styles.has_rule("hatch") and styles.hatch != "none":
        return None
    outline = styles.outline
    if any(edge for edge, _color in outline):
        return None
    (top, _), (right_edge, right_color), (bottom, _), (left_edge, left_color) = styles.border
    inner, outer = cache.get_inner_outer(base_background, background)
    left = right = None
    if left_edge:
        style = Style(foreground=base_background + left_color.multiply_alpha(opacity))
        left = get_box(left_edge, inner, outer, style)[1][0]
    if right_edge:
        style = Style(foreground=base_background + right_color.multiply_alpha(opacity))
        right = get_box(right_edge, inner, outer, style)[1][2]
    height = size.height
    return _Frame(1 if top else 0, height - 1 if bottom else height, left, right,
                  inner.rich_style)


class FramedLines(StylesCache):
    """StylesCache with the short way for a plain widget's content lines (see above)."""

    _frame: _Frame | None = None

    def render(self, styles: Any, size: Any, base_background: Any, background: Any,
               render_content_line: Any, filters: Any, border_title: Any,
               border_subtitle: Any, content_size: Any = None, padding: Any = None,
               crop: Any = None, opacity: float = 1.0,
               ansi_theme: Any = DEFAULT_TERMINAL_THEME, native_ansi: bool = False,
               ) -> list[Strip]:
        self._frame = _plain_frame(self, styles, size,
                                   styles.padding if padding is None else padding,
                                   base_background, background, opacity)
        try:
            return super().render(styles, size, base_background, background,
                                  render_content_line, filters, border_title, border_subtitle,
                                  content_size, padding, crop, opacity, ansi_theme, native_ansi)
        finally:
            self._frame = None

    def render_line(self, styles: Any, y: int, size: Any, content_size: Any, padding: Any,
                    base_background: Any, background: Any, render_content_line: Any,
                    border_title: Any, border_subtitle: Any, opacity: float, ansi_theme: Any,
                    native_ansi: bool) -> Strip:
        frame = self._frame
        if frame is None or not frame.first <= y < frame.end:
            return super().render_line(styles, y, size, content_size, padding,
                                       base_background, background, render_content_line,
                                       border_title, border_subtitle, opacity, ansi_theme,
                                       native_ansi)
        content_y = y - frame.first
        width = content_size.width
        if content_y < content_size.height:
            line = render_content_line(content_y).adjust_cell_length(width, frame.inner)
        else:
            line = Strip.blank(width, frame.inner)
        left, right = frame.left, frame.right
        if left is not None and right is not None:
            return Strip([left, *line, right], size.width)
        if left is not None:
            return Strip([left, *line], size.width)
        if right is not None:
            return Strip([*line, right], size.width)
        return Strip(line, size.width)


class HasFramedLines:
    """Mixin for a Widget: its lines are framed by :class:`FramedLines`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        widget: Any = self
        widget._styles_cache = FramedLines()
