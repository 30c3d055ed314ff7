"""What-if's `D` (tui/branches.py): the active branch and another side by side, drawn from
``ksandbox.recording.diff.diff_sessions`` (the dict ``ksandbox diff -o json`` prints) with the
cell texts of ``views/diffwide.py``.

A module of its own, imported when the view first opens: the App makes its WhatIf before the
board's first frame, and this view, the diff and its cells cost every start (issue 11 item 5).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from ...recording.branches import BranchError
from ...recording.diff import diff_sessions
from ...views.diffwide import evictions_cell, node_rows, placement_cell, pod_cell
from ..model import ChangeSet
from ..widgets.header import sim_time_text
from ..widgets.key_scroll import KeyScroll
from .base import KsScreen

if TYPE_CHECKING:
    from ..branches import WhatIf


REDRAW_EVERY = 1.0
"""Real seconds between two redraws of the diff view while the clock runs."""


class DiffScreen(KsScreen):
    """The active branch and another, side by side: only what differs, at the current time.

    ``tab`` picks the other branch when there are more than two. Redrawn as the clock runs.
    """

    DEFAULT_CSS = """
    DiffScreen #diff-scroll { height: 1fr; border: round $primary; }
    DiffScreen #diff-body { padding: 0 1; }
    """
    BINDINGS = [Binding("tab", "other", "Other branch", id="diff.other"),
                Binding("down,j", "scroll(1)", "Down", show=False),
                Binding("up,k", "scroll(-1)", "Up", show=False)]
    view_name = "diff"

    def __init__(self, whatif: WhatIf) -> None:
        super().__init__()
        self.whatif = whatif
        others = whatif.set.others()
        self.other = others[-1].name if others else ""
        self._drawn_at: tuple[float, str, str] | None = None
        self._drawn_real = 0.0
        self._redraw_queued = False

    def compose_body(self) -> ComposeResult:
        with KeyScroll(id="diff-scroll"):
            yield Static(id="diff-body")

    def on_mount(self) -> None:
        super().on_mount()
        self.redraw()
        for scroll in self.query("#diff-scroll"):  # gone if a burst closed the view first
            scroll.focus()

    def refresh_view(self, changes: ChangeSet) -> None:
        self.redraw()

    def _queued_redraw(self) -> None:
        self._redraw_queued = False
        self.redraw()

    def action_other(self) -> None:
        names = [b.name for b in self.whatif.set.others()]
        if names:
            i = names.index(self.other) if self.other in names else -1
            self.other = names[(i + 1) % len(names)]
            self._drawn_at = None
            self.redraw()

    def action_scroll(self, lines: int) -> None:
        self.query_one("#diff-scroll", KeyScroll).scroll_relative(y=lines, animate=False)

    def redraw(self) -> None:
        branches = self.whatif.set
        active = branches.active
        try:
            other = branches.get(self.other)
        except BranchError:
            return
        key = (active.session.now, active.name, other.name)
        if key == self._drawn_at:
            return
        # At most once a real second while the clock runs: the diff reads every pod of both
        # branches (about 0.5 s at 15,000 pods), the key-to-repaint budget is 17 ms.
        now = time.monotonic()
        if self._drawn_at is not None and key[1:] == self._drawn_at[1:] and \
                now - self._drawn_real < REDRAW_EVERY:
            if not self._redraw_queued:
                self._redraw_queued = True
                self.set_timer(REDRAW_EVERY, self._queued_redraw)
            return
        self._drawn_real = now
        self._drawn_at = key
        scroll = self.query_one("#diff-scroll", KeyScroll)
        scroll.border_title = f"diff: {active.name} (A) vs {other.name} (B)"
        body = self.query_one("#diff-body", Static)
        if not branches.comparable(active, other):
            body.update(Text(f"{other.name} is at {sim_time_text(other.session.now)}, "
                             f"{active.name} at {sim_time_text(active.session.now)}: the diff "
                             f"shows one instant, once {active.name} catches up (space runs the "
                             f"clock).", style="italic"))
            return
        body.update(render_diff(diff_sessions(active.session, other.session,
                                              (active.name, other.name))))


def _table(title: str, headers: tuple[str, ...]) -> Table:
    t = Table(title=title, title_justify="left", title_style="bold", expand=True,
              show_edge=False, pad_edge=False, box=None, header_style="bold")
    for i, h in enumerate(headers):
        if i >= len(headers) - 2:   # the two branches share what is left, half each
            t.add_column(h, ratio=1, overflow="fold")
        else:
            t.add_column(h, no_wrap=True)
    return t


def render_diff(diff: dict[str, Any]) -> Any:
    """The diff as Rich tables, the two branches as the last two columns."""
    from rich.console import Group

    now = diff["time"]
    a, b = diff["branches"]["a"], diff["branches"]["b"]
    parts: list[Any] = [Text(f"{sim_time_text(now)}   A: {a}   B: {b}", style="bold")]
    if diff["identical"]:
        parts.append(Text("\nNo differences: both branches are in the same state.",
                          style="italic"))
        return Group(*parts)
    if diff["pods"]:
        t = _table("\nPODS", ("POD", "DIFFERENCE", f"A: {a}", f"B: {b}"))
        for p in diff["pods"]:
            t.add_row(f"{p['namespace']}/{p['name']}", p["difference"], pod_cell(p["a"], now),
                      pod_cell(p["b"], now))
        parts.append(t)
    if diff["workloads"]:
        t = _table("\nWORKLOADS (node:pods)", ("OWNER", f"A: {a}", f"B: {b}"))
        for w in diff["workloads"]:
            t.add_row(f"{w['namespace']}/{w['owner']}", placement_cell(w["a"]),
                      placement_cell(w["b"]))
        parts.append(t)
    if diff["evictions"]:
        t = _table("\nEVICTIONS", ("POD", f"A: {a}", f"B: {b}"))
        for e in diff["evictions"]:
            t.add_row(e["pod"], evictions_cell(e["a"]), evictions_cell(e["b"]))
        parts.append(t)
    if diff["nodes"]:
        t = _table("\nNODES", ("NODE", "FIELD", f"A: {a}", f"B: {b}"))
        for n in diff["nodes"]:
            for field, va, vb in node_rows(n):
                t.add_row(n["name"], field, va, vb)
        parts.append(t)
    if diff["events"]:
        t = _table("\nEVENTS (count by reason)", ("REASON", f"A: {a}", f"B: {b}"))
        for e in diff["events"]:
            t.add_row(e["reason"], str(e["a"]), str(e["b"]))
        parts.append(t)
    return Group(*parts)
