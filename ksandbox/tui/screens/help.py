"""HelpScreen: every key of the view it was opened from, k9s style.

Sections: the view's own keys (node actions, object actions), the view keys (command,
filter, back), the clock, and navigation. Keys shown are the live ones, so a remapped key shows
its new binding, and the list's sort keys when the view has a list. Scrolls with j/k, the
arrows, g/G (top/bottom) and ctrl+f/ctrl+b; closes on esc, q, ? or enter.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..focus_paint import FocusPaintsWidgets
from ..guard import DismissOnce, Guarded
from ..screen_layout import LayoutOnce
from ..tint import QuickTint

NAVIGATION = [("↑ ↓ ← → / j k", "move"), ("g / G", "first / last"),
              ("ctrl+f / ctrl+b", "page down / up"), ("tab", "next pane"),
              ("enter", "drill in"), ("esc", "back / clear filter")]
# The keys NAVIGATION describes: a pane's binding of one of these moves its cursor (or drills
# in, goes back), and is not listed again under the view.
NAVIGATION_KEYS = frozenset({"up", "down", "left", "right", "j", "k", "g", "G", "home", "end",
                             "pageup", "pagedown", "ctrl+pageup", "ctrl+pagedown", "ctrl+f",
                             "ctrl+b", "tab", "shift+tab", "enter", "escape"})
COMMANDS = [(":no :po :deploy :ds :rs :ev :hpa :ns", "switch view (k9s aliases)"),
            (":po /regex  :po app=web  :po kube-system", "view with filter / labels / namespace"),
            (":kubectl taint nodes node-2 k=v:NoSchedule", "any kubectl command"),
            (":taint nodes …  :fail node node-2", "without kubectl / ksandbox"),
            (":edit deploy web", "kubectl edit in an editor (ctrl+s save, esc cancel)"),
            (":explain default/web-1", "open the explain view"), (":board  :q", "board / quit"),
            ("/regex  /!regex  /-l app=web", "filter, inverse, label selector")]


HIDDEN_ACTIONS = {"screen.copy_text", "app.focus_next", "app.focus_previous"}


class HelpScreen(Guarded, DismissOnce, QuickTint, FocusPaintsWidgets, LayoutOnce,
                 ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark,enter", "close", "Close", id="help.close"),
                Binding("g", "scroll('home')", "Top", show=False),
                Binding("G", "scroll('end')", "Bottom", show=False),
                Binding("j,down", "scroll('down')", "Down", show=False),
                Binding("k,up", "scroll('up')", "Up", show=False),
                Binding("ctrl+f,pagedown", "scroll('page_down')", "Page down", show=False),
                Binding("ctrl+b,pageup", "scroll('page_up')", "Page up", show=False)]

    def __init__(self, origin: Any) -> None:
        super().__init__()
        self.origin = origin

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(self._table(), id="help-body")

    def _table(self) -> Table:
        app = self.app
        origin = self.origin
        bindings = origin.active_bindings
        view = origin.view_name.upper()
        sections: dict[str, list[tuple[str, str]]] = {view: [], "SORT": [], "GENERAL": []}
        seen: set[tuple[str, str]] = set()
        for _key, active in bindings.items():
            b = active.binding
            node = active.node
            if node is origin:
                section = view
            elif node is app:
                section = "GENERAL"
            elif b.id and b.id.startswith("table.sort"):
                section = "SORT"   # the list's sort keys (again to reverse)
            elif b.key in NAVIGATION_KEYS:
                continue  # widget keys that move the cursor are in NAVIGATION below
            else:
                # The focused pane's own keys are the view's: the board's d (which hides
                # the screen's d) and J / K, the queue's and the event log's d.
                section = view
            if b.action in HIDDEN_ACTIONS:
                continue
            display = app.get_key_display(b)
            label = b.description or b.action
            if (display, label) in seen:
                continue
            seen.add((display, label))
            check = getattr(origin, "available", origin.check_action)
            enabled = check(b.action, ()) if node is origin else True
            if enabled is False:
                continue
            sections[section].append((display, label))
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        for title, rows in sections.items():
            if not rows:
                continue
            table.add_row(Text(title, "bold underline"), "")
            for k, label in sorted(rows, key=lambda r: r[1].lower()):
                table.add_row(k, label)
            table.add_row("", "")
        table.add_row(Text("NAVIGATION", "bold underline"), "")
        for k, label in NAVIGATION:
            table.add_row(k, label)
        table.add_row("", "")
        table.add_row(Text("COMMAND BAR", "bold underline"), "")
        for k, label in COMMANDS:
            table.add_row(k, label)
        return table

    def action_scroll(self, where: str) -> None:
        box = self.query_one("#help", VerticalScroll)
        {"home": box.scroll_home, "end": box.scroll_end, "down": box.scroll_down,
         "up": box.scroll_up, "page_down": box.scroll_page_down,
         "page_up": box.scroll_page_up}[where](animate=False)

    def action_close(self) -> None:
        # Once, and only while on top (DismissOnce: a burst `??` must not pop the screen below).
        if self.is_mounted:
            self.dismiss(None)
