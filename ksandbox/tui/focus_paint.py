"""FocusPaintsWidgets: a focus change repaints the widgets whose look follows the focus, not
the whole screen.

Textual's ``Screen.focused`` is a reactive with repaint on: every ``set_focus`` marks the whole
screen dirty, and the next frame renders every line of the terminal (``render_full_update``).
What that frame draws is what was already on the terminal: a whole repaint of the screen
re-composes the widgets' cached lines, it re-renders none of them. What does change with the
focus is drawn by the widgets themselves, each repainting what it changed:
- the widget losing the focus and the one gaining it: ``Widget._on_blur`` / ``_on_focus``
  restyle them (``:focus`` rules, our panes' frame colour) and repaint them whole, their
  scrollbars too when a scrollbar colour changes; a pane that keeps its focused look while
  the command bar has the keys (widgets/focus_look.py) changes nothing and draws nothing;
- the ancestors with ``:focus-within`` rules and everything under them: restyled by
  ``Screen._update_focus_styles``, and a changed style repaints its widget;
- the key line (widgets/key_footer.py): told by the screen's bindings signal, it repaints its
  line.
So the screen's repaint is dropped here. At 1,000 nodes on a 120×40 terminal it cost 6–8 ms of
UI CPU on `/` and `:` and on the Enter or Escape that closes the bar (the bar's own layout
then draws only the row it changes); a dialog's Tab rendered the tinted board beneath again.

Mixed into every screen of ours, before Textual's class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.reactive import Reactive

if TYPE_CHECKING:
    from textual.widget import Widget


class FocusPaintsWidgets:
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    """Textual's ``Screen.focused`` (the watcher, ``_watch_focused``, is still Textual's),
    without the repaint of the whole screen."""
