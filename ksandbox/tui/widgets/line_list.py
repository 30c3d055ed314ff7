"""LineList: a scrolling list with a cursor that renders only the lines on screen.

The base of every long list in ksandbox (resource tables, the pending queue, the event log, the
explain matrix). It is a Line API widget (``ScrollView`` + ``render_line``): Textual asks for
the visible lines only, so 30,000 rows cost what 40 do, where the stock DataTable would lay out
every row (reference/performance.md §2.3). Subclasses say how many rows there are and how to
draw one; the base owns the cursor, the optional fixed header line, scrolling, and keeping the
cursor on screen.

Not here: what the rows are (subclasses), or any sandbox knowledge.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.control import strip_control_codes
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..guard import Guarded
from .focus_look import KeepsFocusLook
from .framed_lines import HasFramedLines
from .line_api import ScrollbarsFollowTheirRange, StyleMemo, set_virtual_size


class LineList(HasFramedLines, KeepsFocusLook, StyleMemo, ScrollbarsFollowTheirRange, Guarded,
               ScrollView, can_focus=True):
    """A cursor over ``row_count()`` rows drawn by ``render_row``."""

    DEFAULT_CSS = """
    LineList {
        background: $surface;
        color: $foreground;
        overflow-x: auto;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        scrollbar-size-horizontal: 1;
    }
    """

    COMPONENT_CLASSES = {"line-list--cursor", "line-list--header"}

    BINDINGS = [
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("pagedown,ctrl+f", "page_down", "Page down", show=False),
        Binding("pageup,ctrl+b", "page_up", "Page up", show=False),
        Binding("home,g", "first", "Top", show=False),
        Binding("end,G", "last", "Bottom", show=False),
    ]

    cursor: reactive[int] = reactive(0, repaint=False)
    """Index of the highlighted row."""
    show_cursor: bool = True
    header: bool = False
    """Whether line 0 is a fixed header (drawn by ``render_header``)."""

    class Highlighted(Message):
        """The cursor moved to another row."""

        def __init__(self, list_: "LineList", index: int) -> None:
            super().__init__()
            self.list = list_
            self.index = index

        @property
        def control(self) -> "LineList":
            return self.list

    # -- to implement ---------------------------------------------------------------------
    def row_count(self) -> int:
        return 0

    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        return Strip.blank(width)

    def render_header(self, width: int) -> Strip:
        return Strip.blank(width)

    def empty_text(self) -> str:
        """What the first line says when there are no rows ("" for nothing)."""
        return ""

    def content_width(self) -> int:
        """How wide the rows are (for horizontal scrolling); 0 means the widget's width."""
        return 0

    # -- geometry -------------------------------------------------------------------------
    @property
    def body_height(self) -> int:
        return max(1, self.scrollable_content_region.height - (1 if self.header else 0))

    def update_virtual_size(self, repaint: bool = True) -> None:
        """The scroll range for the rows now; ``repaint=False``: the caller repaints the lines
        that changed (a range that grew or shrank alone changes no line on screen)."""
        rows = self.row_count()
        width = max(self.content_width(), 0)
        set_virtual_size(self, Size(width, rows + (1 if self.header else 0)), repaint)
        if self.cursor >= rows:
            self.cursor = max(0, rows - 1)

    def rows_changed(self) -> None:
        """Call after the rows changed: resize, keep the cursor in range, repaint."""
        self.update_virtual_size()
        self.refresh()

    # -- rendering ------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        full = max(width, self.content_width())
        if self.header:
            if y == 0:
                strip = self.render_header(full)
                return strip.crop_extend(scroll_x, scroll_x + width, self.base_style)
            index = scroll_y + y - 1
        else:
            index = scroll_y + y
        if index == 0 and self.row_count() == 0 and (empty := self.empty_text()):
            return self.text_strip(Text(empty, style="italic"), width)
        if index < 0 or index >= self.row_count():
            return Strip.blank(width, self.base_style)
        selected = self.show_cursor and index == self.cursor
        strip = self.render_row(index, full, selected)
        return strip.crop_extend(scroll_x, scroll_x + width, self.base_style)

    def cursor_style(self) -> Style:
        return self.component_style("line-list--cursor")

    def highlight(self, strip: Strip) -> Strip:
        """The cursor drawn over a row (over its own colours, not under them)."""
        return Strip(Segment.apply_style(list(strip), post_style=self.cursor_style()),
                     strip.cell_length)

    def text_strip(self, text: Text, width: int, selected: bool = False) -> Strip:
        """A row from rich Text on the widget's colours: cropped or padded to ``width``,
        highlighted if selected."""
        text.truncate(width, overflow="ellipsis", pad=True)
        segments = list(Segment.apply_style(text.render(self.app.console), self.base_style))
        strip = Strip(segments, width)
        if selected:
            strip = self.highlight(strip)
        return strip.simplify()

    def pieces_strip(self, pieces: Sequence[tuple[str, Style | None]], width: int,
                     selected: bool = False, base: Style | None = None) -> Strip:
        """The row ``text_strip`` draws for a Text made of these (text, style) pieces, drawn
        as segments directly: building and rendering a rich Text per row was most of a row's
        cost (the event log draws ~35 new rows when the board comes back after a while).
        The same rule as Text.truncate's ellipsis: the cut text keeps each character's style,
        the ellipsis included, and the padding is on the widget's colours (``base``: the
        widget's ``base_style``, given by a caller that already has it)."""
        if base is None:
            base = self.base_style
        texts = [strip_control_codes(text) for text, _style in pieces]  # as Text.append does
        plain = "".join(texts)
        length = cell_len(plain)
        shown = set_cell_size(plain, width - 1) + "…" if length > width else plain
        end = len(shown)
        segments = []
        start = 0
        for text, (_text, style) in zip(texts, pieces):
            stop = start + len(text)
            part = shown[start:min(stop, end)]
            if part:
                segments.append(Segment(part, base + style if style is not None else base))
            start = stop
            if start >= end:
                break
        if length < width:
            segments.append(Segment(" " * (width - length), base))
        strip = Strip(segments, width)
        if selected:
            strip = self.highlight(strip)
        return strip.simplify()

    # -- cursor ---------------------------------------------------------------------------
    def watch_cursor(self, old: int, new: int) -> None:
        top = int(self.scroll_y)
        self.scroll_to_cursor()
        if int(self.scroll_y) == top:
            # Only the two rows' highlight changed (a scroll repaints everything by itself):
            # a cursor step repainted the whole list, ~40 lines through Textual's pipeline.
            self.refresh_row(old)
            self.refresh_row(new)
        else:
            self.refresh()
        self.post_message(self.Highlighted(self, new))

    def scroll_to_cursor(self) -> None:
        top = int(self.scroll_y)
        height = self.body_height
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)

    def move_cursor(self, delta: int) -> None:
        n = self.row_count()
        if n:
            self.cursor = max(0, min(n - 1, self.cursor + delta))

    def action_cursor_down(self) -> None:
        self.move_cursor(1)

    def action_cursor_up(self) -> None:
        self.move_cursor(-1)

    def action_page_down(self) -> None:
        self.move_cursor(self.body_height)

    def action_page_up(self) -> None:
        self.move_cursor(-self.body_height)

    def action_first(self) -> None:
        self.move_cursor(-self.row_count())

    def action_last(self) -> None:
        self.move_cursor(self.row_count())

    def on_resize(self) -> None:
        self.update_virtual_size()

    def on_click(self, event) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        y = offset.y - (1 if self.header else 0)
        if y >= 0:
            index = int(self.scroll_y) + y
            if 0 <= index < self.row_count():
                self.cursor = index

    def refresh_row(self, index: int) -> None:
        y = index - int(self.scroll_y) + (1 if self.header else 0)
        if 0 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))
