"""What keeps a Line API widget cheap in Textual: its virtual size changed without laying out
the whole screen, and its styles looked up once instead of once per line.

**Virtual size.** Textual's ``virtual_size`` is a reactive with ``layout=True``: every assignment that changes it
lays out the entire screen and repaints every widget on it (40–150 ms at 1,000 nodes, most of
a frame budget several times over). A list whose row count moves with the cluster — the pod
list while a Deployment churns, the pending queue as pods bind — changed it on every tick.

Most of those changes cannot move anything on screen: the widget's box is fixed by the
stylesheet (``1fr``) or already clamped at its ``max-height``, and its scrollbars stay as they
were. Then only the scroll range changes, which is the widget's own business: the value is set
without the reactive's layout, the scrollbars are told their new range, and the widget
repaints. Anything else (a scrollbar appears or goes, an ``auto`` box may grow or shrink) still
takes Textual's full path.

**Scrollbars.** Textual's ``ScrollView`` tells its scrollbars their range again at every layout
of the screen (the virtual size the layout hands a scroll view is its visible region, never its
own, so it always looks changed) and repaints each scrollbar whole for it, changed or not: at
1,000 nodes the board's and the event log's (67 lines) or the pod list's, 1.5–4.5 ms of every
layout — opening or closing the `:`/`/` bar, a dialog. A scrollbar's range and window are
reactives that repaint it when they change; :class:`ScrollbarsFollowTheirRange` sets them and
asks no repaint besides. A scrollbar that appears, moves or resizes is drawn by the layout.

**Styles.** Textual's ``rich_style`` walks every ancestor and mixes their colours on each call,
and ``get_component_rich_style`` forgets its answers on every ``refresh()``; a list that draws
80 lines a frame asked for them 80–240 times (a third of the frame). :class:`StyleMemo` keeps
them until a style on the way from the app down to the widget (or the component's own rules)
changes — Textual bumps a counter on every style change, so the sum of those counters is an
exact key: a theme switch, focus or hover restyles, and the memo follows.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from textual.geometry import Size
from textual.widget import Widget


def _needs_bar(overflow: str, virtual: int, room: int) -> bool:
    return overflow == "scroll" or (overflow == "auto" and virtual > room)


def set_virtual_size(widget: Widget, size: Size, repaint: bool = True) -> None:
    """``widget.virtual_size = size``, without a screen layout when the box cannot change.
    ``repaint=False``: the caller repaints what changed on screen itself (only the scroll
    range changed, not what the widget's lines show)."""
    old = widget.virtual_size
    if size == old:
        return
    room = widget.container_size
    styles = widget.styles
    # No width/height in the stylesheet means "fill the container", not "fit the content".
    if not widget.is_mounted or not room or (styles.width is not None
                                             and styles.width.is_auto):
        widget.virtual_size = size
        return
    same_bars = (
        _needs_bar(styles.overflow_x, old.width, room.width)
        == _needs_bar(styles.overflow_x, size.width, room.width)
        and _needs_bar(styles.overflow_y, old.height, room.height)
        == _needs_bar(styles.overflow_y, size.height, room.height))
    # An auto-height box is as tall as its rows unless max-height clamps it: rows beyond the
    # box before and after mean it was clamped and stays clamped.
    auto_height = styles.height is not None and styles.height.is_auto
    clamped = not auto_height or (old.height > room.height and size.height > room.height)
    if not (same_bars and clamped):
        widget.virtual_size = size
        return
    widget.set_reactive(Widget.virtual_size, size)
    widget._scroll_update(size)  # the scrollbars' range, and scroll offsets clamped to it
    if repaint:
        widget.refresh()


class ScrollbarsFollowTheirRange:
    """Mixin for a scrollable Widget: Textual's ``_scroll_update`` (which scrollbars show, their
    range and window, the scroll offsets clamped to the range) without repainting a scrollbar
    whose range and window stayed as they were (see above)."""

    def _scroll_update(self, virtual_size: Size) -> None:
        widget: Any = self
        widget._refresh_scrollbars()
        width, height = widget.container_size
        styles = widget.styles
        # A change to either reactive repaints the scrollbar (ScrollBar.window_*).
        if widget.show_vertical_scrollbar and styles.scrollbar_size_vertical:
            bar = widget.vertical_scrollbar
            bar.window_virtual_size = virtual_size.height
            bar.window_size = height - widget.scrollbar_size_horizontal
        if widget.show_horizontal_scrollbar and styles.scrollbar_size_horizontal:
            bar = widget.horizontal_scrollbar
            bar.window_virtual_size = virtual_size.width
            bar.window_size = width - widget.scrollbar_size_vertical
        widget.scroll_x = widget.validate_scroll_x(widget.scroll_x)
        widget.scroll_y = widget.validate_scroll_y(widget.scroll_y)


class StyleMemo:
    """Mixin for a Widget: ``base_style`` and ``component_style(name)``, memoised (see above)."""

    _style_memo: dict[Any, Style]
    _style_memo_key: Any = None

    def _styles_key(self) -> tuple[int, ...]:
        return tuple(node.styles._cache_key
                     for node in self.ancestors_with_self)  # type: ignore[attr-defined]

    def _memo(self) -> dict[Any, Style]:
        key = self._styles_key()
        if key != self._style_memo_key:
            self._style_memo_key = key
            self._style_memo = {}
        return self._style_memo

    @property
    def base_style(self) -> Style:
        """``self.rich_style``: the widget's colours over its ancestors'."""
        memo = self._memo()
        style = memo.get(None)
        if style is None:
            style = memo[None] = self.rich_style  # type: ignore[attr-defined]
        return style

    def component_style(self, name: str) -> Style:
        """``self.get_component_rich_style(name)``."""
        memo = self._memo()
        own = self.get_component_styles(name)._cache_key  # type: ignore[attr-defined]
        hit = memo.get(name)
        if hit is None or memo.get((name, "key")) != own:
            hit = memo[name] = self.get_component_rich_style(name)  # type: ignore[attr-defined]
            memo[(name, "key")] = own  # type: ignore[assignment]
        return hit
