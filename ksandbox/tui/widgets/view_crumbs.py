"""ViewCrumbs: the view stack as k9s shows its crumbs — ``board > pods(all) > describe …``.

It fills the command bar's row while the bar is closed (widgets/command_bar.py). That row is
kept on screen all the time, so opening ``:`` or ``/`` swaps what the row shows instead of
shrinking the body by a line: at 1,000 nodes a body that changes height is laid out and
redrawn whole, twice per open and twice per close (~60 ms each way).

The screen sets :attr:`crumbs` (KsScreen.show_crumbs); the line is redrawn only when they
change. The last crumb is the view on show.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from .line_api import StyleMemo

SEPARATOR = " > "


class ViewCrumbs(StyleMemo, Widget):
    DEFAULT_CSS = """
    ViewCrumbs { width: 1fr; height: 1; padding: 0 1; background: $panel; }
    """

    COMPONENT_CLASSES = {"view-crumbs--crumb", "view-crumbs--active", "view-crumbs--separator"}

    crumbs: reactive[tuple[str, ...]] = reactive((), always_update=False, layout=False)

    def render(self) -> Text:
        style = self.component_style
        line = Text(no_wrap=True, overflow="ellipsis")
        last = len(self.crumbs) - 1
        for i, name in enumerate(self.crumbs):
            if i:
                line.append(SEPARATOR, style("view-crumbs--separator"))
            line.append(name, style("view-crumbs--active" if i == last else "view-crumbs--crumb"))
        return line
