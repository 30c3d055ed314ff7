"""TextScreen: the output of a read command — ``describe``, ``get -o yaml``, ``get`` tables.

The text comes from ``session.submit`` like everything else; it is re-run (at most once a
second) while the cluster changes, so a ``describe node`` stays live. ``ctrl+r`` re-runs it now.
"""

from __future__ import annotations

import time

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.css.query import NoMatches
from textual.widgets import Static

from ..model import ChangeSet
from .base import KsScreen

REFRESH_INTERVAL = 1.0


class TextScreen(KsScreen):
    BINDINGS = [Binding("ctrl+r", "reload", "Refresh", id="view.refresh"),
                Binding("down,j", "scroll(1)", "Down", show=False),
                Binding("up,k", "scroll(-1)", "Up", show=False),
                Binding("home,g", "top", "Top", show=False),
                Binding("end,G", "bottom", "Bottom", show=False)]

    def __init__(self, command: str, *, title: str = "", language: str | None = None,
                 text: str | None = None, live: bool = True) -> None:
        super().__init__()
        self.command = command
        self.title_text = title or command
        self.language = language
        self.text = text
        self.live = live
        self.view_name = self.title_text
        self._last = 0.0
        self._stale = False

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="text-scroll"):
            yield Static(id="text-body")

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#text-scroll").border_title = self.title_text
        if self.text is not None:
            self.show(self.text, "")
        else:
            self.action_reload()
        self.query_one("#text-scroll").focus()
        if self.live:
            self.set_interval(REFRESH_INTERVAL, self._maybe_reload)

    def show(self, output: str, error: str) -> None:
        try:
            body = self.query_one("#text-body", Static)
        except NoMatches:  # closed before it finished opening
            return
        if error and output.strip():
            # What kubectl found before it failed (a get or describe of several names) is on
            # its stdout, above the error in a terminal; only the error in the error colour.
            shown = Text(output.rstrip() + "\n")
            shown.append(error.rstrip(), f"bold {self.app.current_theme.error or 'red'}")
            body.update(shown)
            body.set_class(False, "-error")
            return
        if error:
            body.update(Text(error.rstrip(), "bold"))
            body.set_class(True, "-error")
            return
        body.set_class(False, "-error")
        if self.language:
            body.update(Syntax(output.rstrip(), self.language, theme="ansi_dark",
                               background_color="default", word_wrap=False))
        else:
            body.update(Text(output.rstrip()))

    def action_reload(self) -> None:
        if not self.is_attached:
            return
        self._stale = False
        self._last = time.perf_counter()
        result = self.app.run_read(self.command)
        self.show(result.output, result.error)

    def refresh_view(self, changes: ChangeSet) -> None:
        if self.live and self.text is None and not changes.empty:
            self._stale = True

    def _maybe_reload(self) -> None:
        if self._stale and time.perf_counter() - self._last >= REFRESH_INTERVAL:
            self.action_reload()

    def action_scroll(self, lines: int) -> None:
        self.query_one("#text-scroll").scroll_relative(y=lines, animate=False)

    def action_top(self) -> None:
        self.query_one("#text-scroll").scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one("#text-scroll").scroll_end(animate=False)
