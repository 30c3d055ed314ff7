"""MainScreen: the node board, the pending queue and the event log under the header.

Wide terminals (≥ 120 columns) put the event log in a column beside the board and the
pending queue under it; narrow ones stack everything, so the screen stays readable from 80×24
up. Node keys act on the
board's selected node whichever pane has the focus; ``d``/``y``/``ctrl+d``/``e`` act on what
the focused pane highlights (a node on the board, a pod in the queue, an event's object in the
log).
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical

from ..model import ChangeSet
from ..widgets.event_log import EventLog
from ..widgets.node_board import NodeBoard
from ..widgets.pending_queue import PendingQueue
from .base import NODE_BINDINGS, OBJECT_BINDINGS, KsScreen, Target


class MainScreen(KsScreen):
    BINDINGS = [*NODE_BINDINGS, *OBJECT_BINDINGS,
                Binding("enter", "drill", "Pods", show=False, id="view.enter")]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide"), (180, "-xwide")]
    view_name = "board"

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="body"):
            with Vertical(id="main-col"):
                board = NodeBoard(self.app.session, id="board")
                # Styled as focused from the start (on_mount gives it the focus): Textual
                # restyles a widget when it gains the focus (its ``:focus`` frame), ~5 ms
                # of CPU before the first frame for the board. The focus arriving finds
                # the look already there (KeepsFocusLook._on_focus) and restyles nothing.
                board.keep_focus_look()
                yield board
                yield PendingQueue(self.app.session, self.app.model, id="pending")
            yield EventLog(self.app.session, id="events")

    _shown_titles: dict[str | None, str] = {}

    @property
    def board(self) -> NodeBoard:
        return self.query_one(NodeBoard)

    @property
    def pending(self) -> PendingQueue:
        return self.query_one(PendingQueue)

    @property
    def events(self) -> EventLog:
        return self.query_one(EventLog)

    def on_mount(self) -> None:
        super().on_mount()
        self._shown_titles = {}
        self.board.load_all()
        self.pending.reload()
        self.events.events_changed()
        self._titles()
        self.board.focus()

    def _titles(self) -> None:
        board = self.board
        title = f"nodes[{len(board.order)}]"
        if self.row_filter.active:
            title += f" {self.row_filter.title}"
        # Set only what changed: a new title repaints its widget.
        for widget, text in ((board, title), (self.pending, f"pending[{len(self.pending.pods)}]"),
                             (self.events, "events")):
            if self._shown_titles.get(widget.id) != text:
                self._shown_titles[widget.id] = text
                widget.border_title = text

    def refresh_view(self, changes: ChangeSet) -> None:
        self.board.apply_changes(changes)
        # A pending pod's line is drawn from the pod alone: a node's change (a heartbeat on
        # nearly every tick) leaves the queue as it was.
        if changes.everything or "Pod" in changes.kinds:
            self.pending.reload()
        if changes.everything or "Event" in changes.kinds:
            self.events.events_changed()
        self._titles()

    def show_clock(self, state: Any) -> None:
        """Covered by a dialog: the header's clock and the countdowns on the cards in view
        move (each card redrawn when its countdown's text changes); nothing else."""
        super().show_clock(state)
        if self.is_mounted:
            self.board.move_countdowns()

    def filter_changed(self) -> None:
        self.board.set_filter(self.row_filter)
        self._titles()

    def focus_body(self) -> None:
        self.set_focus(self.board)

    # -- targets --------------------------------------------------------------------------
    def node_target(self) -> str | None:
        return self.board.selected

    def target(self) -> Target | None:
        focused = self.focused
        if isinstance(focused, PendingQueue):
            key = focused.selected_key
            return Target("Pod", *key) if key else None
        if isinstance(focused, EventLog):
            if 0 <= focused.cursor < focused.row_count():
                o = focused.event_at(focused.cursor).involved_object
                return Target(o.kind, o.namespace, o.name)
            return None
        name = self.board.selected
        return Target("Node", "", name) if name else None

    def explain_target(self) -> Target | None:
        t = self.pod_target()
        if t is not None:
            return t
        key = self.pending.selected_key
        return Target("Pod", *key) if key else None

    def action_drill(self) -> None:
        focused = self.focused
        if isinstance(focused, PendingQueue):
            self.action_explain()
            return
        if isinstance(focused, EventLog):
            # An event drills into its object: describe it (as the event list's enter, and
            # the log's d). It opened the pods of the node selected on the board.
            self.action_describe()
            return
        if (name := self.board.selected) is not None:
            self.app.open_node_pods(name)

    def on_node_board_activated(self, message: NodeBoard.Activated) -> None:
        self.app.open_node_pods(message.name)
