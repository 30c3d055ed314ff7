"""KeepsFocusLook: a pane keeps its focused look while the command bar has the keys.

``:`` and ``/`` move the focus from the pane (the board, a list) to the bar's input, and back
when the bar closes. Textual restyles a widget on every focus change (``:focus`` rules, the
pane's frame colour here) and repaints it whole: at 1,000 nodes the board's CSS and its
repaint took 35–60 ms on each open and again on each close, for a frame colour that flickered
to the unfocused one and back. k9s leaves the view as it is while its prompt is open; so does
this: the pane the bar was opened from still matches ``:focus`` until the focus comes back to
it (then nothing changed, and nothing is redrawn) or goes elsewhere (then it is restyled as
Textual would have done: :meth:`release_focus_look`).

Mixed in before Textual's classes: its ``_on_focus``/``_on_blur`` stand in for Widget's while
the look is kept (Textual calls each class's handler in MRO order until one prevents the
default), and do what Widget's do except the restyle and repaint.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar

from textual import events
from textual.widget import Widget


def _looks_focused(widget: Any) -> bool:
    return bool(widget.has_focus or widget.focus_look_kept)


class KeepsFocusLook:
    focus_look_kept = False

    _PSEUDO_CLASSES: ClassVar[dict[str, Callable[[Any], bool]]] = {
        **Widget._PSEUDO_CLASSES,
        "focus": _looks_focused,
        "blur": lambda widget: not _looks_focused(widget),
    }

    def keep_focus_look(self) -> None:
        """Called just before the focus leaves for the command bar."""
        self.focus_look_kept = True

    def release_focus_look(self) -> None:
        """The focus went somewhere else: look as Textual would have drawn it."""
        if not self.focus_look_kept:
            return
        self.focus_look_kept = False
        widget: Any = self
        if widget.is_mounted:
            widget.update_node_styles()
            widget.refresh()

    def watch_has_focus(self, has_focus: bool) -> None:
        if not self.focus_look_kept:
            super().watch_has_focus(has_focus)  # type: ignore[misc]

    def _on_focus(self, event: events.Focus) -> None:
        if not self.focus_look_kept:
            return  # Widget's handler follows
        widget: Any = self
        widget.has_focus = True
        # Back where the bar was opened from: it already looks focused.
        self.focus_look_kept = False
        event.prevent_default()
        if widget.parent is not None:
            widget.parent.post_message(events.DescendantFocus(widget))

    def _on_blur(self, event: events.Blur) -> None:
        if not self.focus_look_kept:
            return
        widget: Any = self
        widget.has_focus = False
        event.prevent_default()
        if widget.parent is not None:
            widget.parent.post_message(events.DescendantBlur(widget))
