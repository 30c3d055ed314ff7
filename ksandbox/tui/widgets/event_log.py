"""EventLog: the cluster's events as they happen (``kubectl get events``, newest last).

Reads ``store.occurrences`` (every event as it happens, repeats included) in place — no copy — and draws only the visible lines, each cached until
the event changes. It shows the newest :data:`WINDOW` events: once the window is full its
height stays put, so a stream of new events scrolls the text without re-laying out the screen
(a changed virtual size would make Textual redraw every widget). It follows the newest event
unless the user has moved the cursor up to read; the full history is in the ``:ev`` view.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.style import Style
from textual.binding import Binding
from textual.strip import Strip

from .header import sim_time_text
from .line_list import LineList

if TYPE_CHECKING:
    from ...session import Session

WINDOW = 500


class EventLog(LineList):
    # The footer follows the focused pane: with the log focused, d/y mean the event's object.
    BINDINGS = [Binding("d", "screen.describe", "Describe object"),
                Binding("y", "screen.yaml", "YAML of object", show=False)]
    COMPONENT_CLASSES = LineList.COMPONENT_CLASSES | {
        "event-log--time", "event-log--warning", "event-log--reason", "event-log--object"}

    def __init__(self, session: Session, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.follow = True
        self.show_cursor = False
        self._cache: dict[tuple, Strip] = {}
        self._row_styles: tuple[Style, ...] | None = None
        """The base and component styles rows are drawn with, read once (each read walks the
        widget's ancestors and builds the component's styles: most of a row's cost). Dropped
        with the rows drawn with them, when Textual says the styles changed."""

    @property
    def _log(self) -> Sequence[Any]:
        # Every occurrence in order (a repeated event appears each time it happens).
        store = self.session.store
        return getattr(store, "occurrences", store.events)

    def row_count(self) -> int:
        return min(WINDOW, len(self._log))

    def event_at(self, index: int) -> Any:
        events = self._log
        return events[len(events) - min(WINDOW, len(events)) + index]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._row_styles = None

    def on_focus(self) -> None:
        self.show_cursor = True
        self.refresh()

    def on_blur(self) -> None:
        self.show_cursor = False
        self.follow = True
        self.events_changed()

    def watch_cursor(self, old: int, new: int) -> None:
        super().watch_cursor(old, new)
        if self.has_focus:  # the user is reading: follow again once back at the end
            self.follow = new >= self.row_count() - 1

    def events_changed(self) -> None:
        self.update_virtual_size()
        if self.follow:
            last = max(0, self.row_count() - 1)
            if self.cursor != last:
                self.set_reactive(EventLog.cursor, last)
            self._scroll_to_end()
            self.call_after_refresh(self._scroll_to_end)
        self.refresh()

    def _scroll_to_end(self) -> None:
        if self.follow:
            target = max(0, self.row_count() - self.body_height)
            if int(self.scroll_y) != target:
                self.scroll_to(y=target, animate=False, immediate=True)

    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        ev = self.event_at(index)
        key = (ev.metadata.name, ev.count, width, selected)
        strip = self._cache.get(key)
        if strip is None:
            if len(self._cache) > 4 * WINDOW:
                self._cache.clear()
            strip = self._cache[key] = self._render_event(ev, width, selected)
        return strip

    def _render_event(self, ev: Any, width: int, selected: bool) -> Strip:
        styles = self._row_styles
        if styles is None:
            style = self.component_style
            styles = self._row_styles = (
                self.base_style, style("event-log--time"), style("event-log--warning"),
                style("event-log--reason"), style("event-log--object"))
        base, time_style, warning, reason, object_style = styles
        o = ev.involved_object
        pieces = [(sim_time_text(ev.last_timestamp)[2:] + " ", time_style),
                  (f"{ev.reason} ", warning if ev.type == "Warning" else reason),
                  (f"{o.kind.lower()}/{o.name} ", object_style),
                  (ev.message, None)]
        if ev.count > 1:
            pieces.append((f" (x{ev.count})", time_style))
        return self.pieces_strip(pieces, width, selected, base)
