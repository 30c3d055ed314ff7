"""NodeBoard: one card per node, in a grid that scrolls, drawn line by line.

Each card shows the node's status (a cordoned node has a dashed yellow frame, a failed one a
double red frame — cordoned is not failure), roles and key labels, its taints as
``key=value:Effect`` chips coloured by effect, problem conditions, requested vs allocatable
bars for cpu, memory and pods, and its pods coloured by phase with DaemonSet / static /
placeholder markers and a live countdown on every pod marked for NoExecute eviction.

It is a Line API widget: cards are laid out from their computed heights
(:func:`~ksandbox.tui.cards.card_height`) and only the cards on screen are drawn, each cached
until its :class:`~ksandbox.tui.cards.NodeSummary` changes. With 1,000 nodes the board costs
what the dozen visible cards cost; the selected card is always scrolled into view.

Keys here move the selection; node actions (taint, cordon, drain …) are bound by the screen so
the list view of nodes shares them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..cards import (
    CardShape,
    NodeSummary,
    PodMark,
    card_height,
    card_shape,
    chip_lines,
    chip_text,
    clock_text,
    shown_pods,
    summarize,
)
from ..filtering import NO_FILTER, RowFilter
from ..guard import Guarded
from ..model import ChangeSet
from .focus_look import KeepsFocusLook
from .framed_lines import HasFramedLines
from .line_api import ScrollbarsFollowTheirRange, StyleMemo, set_virtual_size

if TYPE_CHECKING:
    from ...session import Session

MIN_CARD_WIDTH = 34
MAX_CARD_WIDTH = 56

_BORDERS = {
    # (top-left, horizontal, top-right, vertical, bottom-left, bottom-right)
    "ok": ("╭", "─", "╮", "│", "╰", "╯"),
    "cordoned": ("╭", "╌", "╮", "┊", "╰", "╯"),
    "failed": ("╔", "═", "╗", "║", "╚", "╝"),
    "selected": ("┏", "━", "┓", "┃", "┗", "┛"),
}
_POD_GLYPH = {"running": "●", "pending": "○", "failed": "✕", "terminating": "◌",
              "succeeded": "✓"}
_MARKER_TEXT = {"ds": "ds", "static": "static", "placeholder": "placeholder"}


def natural_key(name: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` cells with an ellipsis."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return text
    out = ""
    for ch in text:
        if cell_len(out + ch) > width - 1:
            break
        out += ch
    return out + "…"


def amount_text(resource: str, used: int, total: int) -> str:
    if resource == "cpu":
        return f"{used / 1000:.1f}/{total / 1000:g}"
    if resource == "memory":
        gi = 1024 ** 3
        return f"{used / gi:.1f}/{total / gi:.0f}Gi"
    return f"{used}/{total}"


class NodeBoard(HasFramedLines, KeepsFocusLook, StyleMemo, ScrollbarsFollowTheirRange, Guarded,
                ScrollView, can_focus=True):
    """The node cards; ``selected`` is the node the node keys act on."""

    DEFAULT_CSS = """
    NodeBoard {
        background: $background;
        overflow-y: auto;
        overflow-x: hidden;
        scrollbar-size-vertical: 1;
    }
    """

    COMPONENT_CLASSES = {
        "node-board--frame", "node-board--selected", "node-board--title",
        "node-board--ready", "node-board--notready", "node-board--unknown",
        "node-board--cordoned", "node-board--noschedule", "node-board--prefernoschedule",
        "node-board--noexecute", "node-board--running", "node-board--pending",
        "node-board--failed", "node-board--terminating", "node-board--countdown",
        "node-board--bar-fill", "node-board--bar-high", "node-board--bar-empty",
        "node-board--marker", "node-board--muted", "node-board--condition",
    }

    BINDINGS = [
        Binding("right", "move(1)", "Next", show=False),
        Binding("left", "move(-1)", "Previous", show=False),
        Binding("down,j", "move_row(1)", "Down", show=False),
        Binding("up,k", "move_row(-1)", "Up", show=False),
        Binding("pagedown,ctrl+f", "move_row(3)", "Page down", show=False),
        Binding("pageup,ctrl+b", "move_row(-3)", "Page up", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
        # Shown first in the footer while the board has the focus (issue 9: the footer
        # follows the focused pane); the actions are the screen's, which knows the target.
        # Scroll within the selected card (issue 9: every countdown reachable at 80×24, where
        # a card with many pods is taller than the board and some pods sit behind "+N more").
        Binding("J", "scroll_card(1)", "Card down", show=False),
        Binding("K", "scroll_card(-1)", "Card up", show=False),
        Binding("enter", "screen.drill", "Pods"),
        Binding("d", "screen.describe", "Describe node"),
    ]

    selected: reactive[str | None] = reactive(None, repaint=False)
    """Name of the selected node."""
    max_pods: reactive[int] = reactive(8, repaint=False)
    """Pod lines per card before "+N more"."""

    class Selected(Message):
        def __init__(self, board: "NodeBoard", name: str | None) -> None:
            super().__init__()
            self.board = board
            self.name = name

        @property
        def control(self) -> "NodeBoard":
            return self.board

    class Activated(Message):
        """Enter on a node (drill into its pods)."""

        def __init__(self, board: "NodeBoard", name: str) -> None:
            super().__init__()
            self.board = board
            self.name = name

    def __init__(self, session: Session, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.shapes: dict[str, CardShape] = {}
        """Every node's card shape (what its height depends on)."""
        self._summaries: dict[str, NodeSummary] = {}
        self.order: list[str] = []
        """Visible node names (filtered), in board order."""
        self.row_filter: RowFilter = NO_FILTER
        self._strips: dict[str, list[Strip]] = {}
        self._row_tops: list[int] = [0]
        self._row_heights: list[int] = []
        self._cols = 1
        self._card_width = MIN_CARD_WIDTH
        self._layout_width = -1
        self._styles: dict[str, Style] | None = None
        self._restyled = False   # styles updated since the cards were last compared
        self._lines: dict[int, Strip] = {}
        """Composed board lines by virtual y, valid while ``_lines_key`` holds."""
        self._lines_key: tuple = ()
        self._version = 0
        self._index: dict[str, int] = {}
        """Each name's place in ``order``."""
        self._heights: dict[str, int] = {}
        """Each card's own height (its grid row is as tall as its tallest card)."""
        self._countdowns_shown: dict[str, tuple[str, ...]] = {}
        """The countdown texts a card was last drawn with by move_countdowns."""

    def _drop(self, name: str | None) -> None:
        """Forget a card's drawing (and the composed lines it was part of)."""
        if self._strips.pop(name, None) is not None:
            self._version += 1

    def _drop_all(self) -> None:
        self._strips.clear()
        self._version += 1

    # -- data -----------------------------------------------------------------------------
    def summary(self, name: str) -> NodeSummary | None:
        """The card of ``name`` (built on first use; the board builds only what it shows)."""
        s = self._summaries.get(name)
        if s is None:
            node = self.session.store.get("Node", name)
            if node is None:
                return None
            s = self._summaries[name] = summarize(self.session, node)
        return s

    @property
    def summaries(self) -> dict[str, NodeSummary]:
        """Summaries of every node (builds the missing ones: for tests and tools)."""
        for name in self.shapes:
            self.summary(name)
        return self._summaries

    @property
    def countdown_nodes(self) -> set[str]:
        """Nodes with a NoExecute taint: their cards may carry a countdown."""
        return {n for n, sh in self.shapes.items() if sh.no_execute}

    def load_all(self) -> None:
        """Read every node's shape (first screen, a node added or removed, a filter)."""
        store = self.session.store
        self.shapes = {n.name: card_shape(store, n) for n in store.nodes()}
        self._summaries.clear()
        self._drop_all()
        self._reorder()

    def _reorder(self) -> None:
        store = self.session.store
        names = sorted(self.shapes, key=natural_key)
        if self.row_filter.active:
            kept = []
            for name in names:
                node = store.get("Node", name)
                if node is None:
                    continue
                labels = node.metadata.labels
                text = " ".join((name, node.ready, *(t[0] for t in self.shapes[name].taints),
                                 *(f"{k}={v}" for k, v in labels.items())))
                if self.row_filter.matches(text, labels):
                    kept.append(name)
            names = kept
        self.order = names
        self._index = {name: i for i, name in enumerate(names)}
        if self.selected not in self.shapes or self.selected not in names:
            self.selected = names[0] if names else None
        self._layout(force=True)

    def set_filter(self, row_filter: RowFilter) -> None:
        self.row_filter = row_filter
        self._reorder()
        self.refresh()

    def apply_changes(self, changes: ChangeSet) -> None:
        """Bring the cards up to date with one coalesced change set. Only the grid rows of
        cards that changed are repainted (a full repaint of the board is ~30 lines through
        Textual's line pipeline, most of a frame at 1,000 nodes)."""
        self._countdowns_shown.clear()  # redrawn here, and below for every tick
        if changes.everything or changes.structure:
            self.load_all()
            self.refresh()
            return
        store = self.session.store
        reshaped: list[str] = []
        redrawn: set[str] = set()
        visible = self.visible_names()
        for name in changes.nodes:
            node = store.get("Node", name)
            if node is None:
                continue
            shape = card_shape(store, node)
            if shape != self.shapes.get(name):
                self.shapes[name] = shape
                reshaped.append(name)
            old = self._summaries.pop(name, None)
            if name in visible:
                new = self.summary(name)
                if new != old or new.has_countdown:
                    self._drop(name)
                    redrawn.add(name)
            else:
                self._drop(name)
        for name in self.countdown_nodes & visible:
            # Countdowns move with the clock even when nothing was written.
            s = self.summary(name)
            if s is not None and s.has_countdown:
                self._drop(name)
                redrawn.add(name)
        if self.row_filter.active and changes.nodes:
            self._reorder()
            self.refresh()
            return
        if reshaped and self._relayout(reshaped):
            self.refresh()
            return
        if redrawn:
            self.refresh_cards(redrawn)

    def move_countdowns(self) -> None:
        """Redraw the cards in view whose countdown text changed, from the summaries they
        were drawn with: the board under a dialog, which catches up on nothing else until
        it is on top again (so a pod evicted meanwhile shows 0:00, due, until then)."""
        now = self.session.now
        moved = []
        for name in self.countdown_nodes & self.visible_names():
            s = self._summaries.get(name)
            if s is None or not s.has_countdown:
                continue
            texts = tuple(clock_text(p.deadline - now) for p in s.pods if p.deadline is not None)
            if self._countdowns_shown.get(name) != texts:
                self._countdowns_shown[name] = texts
                self._drop(name)
                moved.append(name)
        if moved:
            self.refresh_cards(moved)

    def refresh_cards(self, names: set[str] | list[str]) -> None:
        """Repaint these cards (and nothing else): each card's own columns of its grid row,
        not the row's whole width — a selection step or a changed card was three cards'
        worth of lines through Textual's compositor for one or two cards."""
        top = int(self.scroll_y)
        width = self._card_width
        for name in names:
            i = self._index.get(name)
            if i is None:
                continue
            r, c = divmod(i, self._cols)
            if r < len(self._row_heights):
                y = self._row_tops[r] - top
                h = self._row_heights[r]
                if y + h > 0 and y < self.size.height:
                    self.refresh(Region(c * width, y, width, h))

    # -- layout ---------------------------------------------------------------------------
    def _layout(self, force: bool = False, keep: bool = False) -> bool:
        """Lay the cards out in rows; True if the rows moved (the whole board repaints).
        ``keep``: the order and width are as before — only cards in rows whose height
        changed are drawn again."""
        width = self.scrollable_content_region.width or self.size.width or 80
        if not force and width == self._layout_width:
            return False
        keep = keep and width == self._layout_width
        if not keep:
            self._drop_all()  # row heights may change: cards are drawn to their row's height
        self._layout_width = width
        n = max(1, len(self.order))
        cols = max(1, min(n, width // MIN_CARD_WIDTH))
        card_width = min(MAX_CARD_WIDTH, width // cols) if n > 1 else min(width, 72)
        if keep and (cols != self._cols or card_width != self._card_width):
            keep = False
            self._drop_all()
        self._cols = cols
        self._card_width = card_width
        shapes, max_pods = self.shapes, self.max_pods
        self._heights = {name: card_height(shapes[name], card_width, max_pods)
                         for name in self.order}
        tops, heights = [0], []
        for r in range(0, len(self.order), cols):
            h = max(self._heights[name] for name in self.order[r:r + cols])
            heights.append(h)
            tops.append(tops[-1] + h)
        moved = tops != self._row_tops
        if keep:
            for r, h in enumerate(heights):
                if r >= len(self._row_heights) or self._row_heights[r] != h:
                    for name in self.order[r * cols:(r + 1) * cols]:
                        self._drop(name)
        self._row_tops, self._row_heights = tops, heights
        set_virtual_size(self, Size(width, tops[-1]))
        return moved or not keep

    def _relayout(self, names: list[str]) -> bool:
        """The layout after these cards' shapes changed (their pods came or went), the order
        and the width as before: only their heights, and the heights of the rows they sit in,
        are computed again — the same rows as ``_layout(force=True, keep=True)``, which
        computed all 1,000 cards' heights on every tick that started or ended a pod. True if
        the rows moved (the whole board repaints)."""
        width = self.scrollable_content_region.width or self.size.width or 80
        if width != self._layout_width or len(self._heights) != len(self.order):
            return self._layout(force=True, keep=True)
        cols, card_width, max_pods = self._cols, self._card_width, self.max_pods
        rows = set()
        for name in names:
            i = self._index.get(name)
            if i is None:
                continue
            h = card_height(self.shapes[name], card_width, max_pods)
            if h != self._heights[name]:
                self._heights[name] = h
                rows.add(i // cols)
        heights = self._row_heights
        changed = []
        for r in sorted(rows):
            h = max(self._heights[name] for name in self.order[r * cols:(r + 1) * cols])
            if h != heights[r]:
                changed.append((r, h))
        if not changed:
            return False
        heights = list(heights)
        for r, h in changed:
            heights[r] = h
            for name in self.order[r * cols:(r + 1) * cols]:
                self._drop(name)
        tops = [0]
        for h in heights:
            tops.append(tops[-1] + h)
        moved = tops != self._row_tops
        self._row_tops, self._row_heights = tops, heights
        set_virtual_size(self, Size(width, tops[-1]))
        return moved

    def on_resize(self) -> None:
        self._layout()
        self.scroll_to_selected()

    def watch_max_pods(self) -> None:
        self._drop_all()
        self._layout(force=True)
        self.refresh()

    def visible_names(self) -> set[str]:
        top = int(self.scroll_y)
        bottom = top + self.size.height
        r0 = max(0, bisect_right(self._row_tops, top) - 1)
        out: set[str] = set()
        for r in range(r0, len(self._row_heights)):
            if self._row_tops[r] >= bottom:
                break
            out.update(self.order[r * self._cols:(r + 1) * self._cols])
        return out

    # -- selection ------------------------------------------------------------------------
    pod_offset = 0
    """First pod line drawn in the selected card (J/K move it; a new selection resets it)."""

    def watch_selected(self, old: str | None, new: str | None) -> None:
        self.pod_offset = 0
        for name in (old, new):
            if name is not None:
                self._drop(name)
        before = int(self.scroll_y)
        self.scroll_to_selected()
        if int(self.scroll_y) == before:
            # Only the two cards' rows change (a scroll repaints everything by itself).
            self.refresh_cards([n for n in (old, new) if n is not None])
        else:
            self.refresh()
        self.post_message(self.Selected(self, new))

    def select_index(self, index: int) -> None:
        if self.order:
            self.selected = self.order[max(0, min(len(self.order) - 1, index))]

    @property
    def selected_index(self) -> int:
        try:
            return self.order.index(self.selected) if self.selected is not None else 0
        except ValueError:
            return 0

    def scroll_to_selected(self) -> None:
        if self.selected is None or self.selected not in self.order:
            return
        r = self.order.index(self.selected) // self._cols
        if r >= len(self._row_heights):
            return
        top, h = self._row_tops[r], self._row_heights[r]
        view_top, view_h = int(self.scroll_y), self.size.height or 1
        if top < view_top or h > view_h:
            self.scroll_to(y=top, animate=False, immediate=True)
        elif top + h > view_top + view_h:
            self.scroll_to(y=top + h - view_h, animate=False, immediate=True)

    def action_scroll_card(self, delta: int) -> None:
        """Scroll the selected card: first bring its pod lines (the card's bottom) into view,
        then slide its window of pods one line, so every pod line can be shown."""
        name = self.selected
        s = self.summary(name) if name is not None else None
        if name is None or s is None or name not in self.order:
            return
        r = self.order.index(name) // self._cols
        if r >= len(self._row_heights):
            return
        top, h = self._row_tops[r], self._row_heights[r]
        view_top, view_h = int(self.scroll_y), self.size.height or 1
        shown, _more = shown_pods(s, self.max_pods)
        offset = max(0, min(len(s.pods) - shown, self.pod_offset + delta))
        if delta > 0 and top + h > view_top + view_h:
            self.scroll_to(y=top + h - view_h, animate=False, immediate=True)
            return
        if delta < 0 and offset == self.pod_offset and top < view_top:
            self.scroll_to(y=top, animate=False, immediate=True)
            return
        if offset != self.pod_offset:
            self.pod_offset = offset
            self._drop(name)
            self.refresh()

    def action_move(self, delta: int) -> None:
        self.select_index(self.selected_index + delta)

    def action_move_row(self, rows: int) -> None:
        self.select_index(self.selected_index + rows * self._cols)

    def action_first(self) -> None:
        self.select_index(0)

    def action_last(self) -> None:
        self.select_index(len(self.order) - 1)

    def on_click(self, event: Any) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        vy = int(self.scroll_y) + offset.y
        r = bisect_right(self._row_tops, vy) - 1
        c = offset.x // max(1, self._card_width)
        index = r * self._cols + c
        if 0 <= r < len(self._row_heights) and c < self._cols and index < len(self.order):
            if self.order[index] == self.selected and event.chain >= 2:
                self.post_message(self.Activated(self, self.selected))
            self.selected = self.order[index]

    # -- drawing --------------------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        # A focus change restyles the board for its frame's colour alone (a `:focus` rule):
        # the cards, drawn with the board's colours and its component styles, stay as they
        # are when each of those is still the same (tab between the panes redrew every card
        # on show: ~25 ms at 1,000 nodes). Anything else changed: every card is drawn again.
        # Compared when the board is next drawn, not here: a theme restyles the board before
        # its ancestors, so their colours (in the board's) may still be the old ones now.
        self._restyled = True
        self.refresh()

    def _check_restyle(self) -> None:
        self._restyled = False
        drawn_with = self._styles
        if drawn_with is None or self._styles_now(drawn_with) != drawn_with:
            self._styles = None
            self._drop_all()

    def _styles_now(self, names: dict[str, Style]) -> dict[str, Style]:
        """The styles ``names`` holds (``""``: the board's own), as they are now."""
        return {name: self.base_style if name == "" else self.component_style(
            f"node-board--{name}") for name in names}

    def _style(self, name: str) -> Style:
        if self._styles is None:
            # The cards' colours beside their component styles: what notify_style_update
            # compares (the base style is read where the cards are drawn).
            self._styles = {"": self.base_style}
        style = self._styles.get(name)
        if style is None:
            style = self.component_style(f"node-board--{name}")
            self._styles[name] = style
        return style

    def render_line(self, y: int) -> Strip:
        if self._restyled:
            self._check_restyle()
        width = self.scrollable_content_region.width
        if width != self._layout_width:
            self._layout()
        vy = int(self.scroll_y) + y
        # Composed lines stay valid while no card was redrawn and the layout is the same.
        key = (self._version, self._layout_width, self._cols, self._card_width,
               len(self.order))
        if key != self._lines_key:
            self._lines.clear()
            self._lines_key = key
        line = self._lines.get(vy)
        if line is None:
            line = self._lines[vy] = self._compose_line(vy, width)
        return line

    def _compose_line(self, vy: int, width: int) -> Strip:
        base = self.base_style
        r = bisect_right(self._row_tops, vy) - 1
        if r < 0 or r >= len(self._row_heights):
            return Strip.blank(width, base)
        line = vy - self._row_tops[r]
        pieces = []
        for name in self.order[r * self._cols:(r + 1) * self._cols]:
            strips = self._strips.get(name)
            if strips is None:
                summary = self.summary(name)
                if summary is None:
                    pieces.append(Strip.blank(self._card_width, base))
                    continue
                strips = self._render_card(summary, name == self.selected)
                self._strips[name] = strips
            pieces.append(strips[line] if line < len(strips)
                          else Strip.blank(self._card_width, base))
        return Strip.join(pieces).extend_cell_length(width, base).crop(0, width)

    def _render_card(self, s: NodeSummary, selected: bool) -> list[Strip]:
        w = self._card_width
        inner = max(1, w - 4)
        base = self.base_style
        state = s.state
        frame_style = self._style("frame")
        if state == "failed":
            frame_style = self._style("notready" if s.ready_condition == "False" else "unknown")
        elif state == "cordoned":
            frame_style = self._style("cordoned")
        if selected:
            # The selection is the heavy frame; a failed or cordoned node keeps its colour.
            frame_style = frame_style + (self._style("selected") if state == "ok"
                                         else Style(bold=True))
        tl, hz, tr, vt, bl, br = _BORDERS["selected" if selected else state]
        frame = base + frame_style

        lines: list[list[Segment]] = []

        # Title: ╭─ name ───── Status ─╮
        status = s.status
        status_style = self._style("ready" if status == "Ready" else "notready"
                                   if s.ready_condition == "False" else "unknown")
        status_text = status + (" · cordoned" if s.cordoned else "")
        if s.cordoned and status == "Ready":
            status_style = self._style("cordoned")
        # tl hz ␠ name ␠ fill ␠ status ␠ hz tr  →  fill = w - 8 - |name| - |status|
        status_text = fit(status_text, max(1, w - 12))
        name = fit(s.name, max(1, w - 9 - cell_len(status_text)))
        fill = max(1, w - 8 - cell_len(name) - cell_len(status_text))
        title = [Segment(tl + hz + " ", frame), Segment(name, base + self._style("title")),
                 Segment(" " + hz * fill + " ", frame),
                 Segment(status_text, base + status_style), Segment(" " + hz + tr, frame)]
        lines.append(title)

        def body(segs: list[Segment]) -> list[Segment]:
            used = sum(cell_len(seg.text) for seg in segs)
            pad = [Segment(" " * (inner - used), base)] if used < inner else []
            return [Segment(vt + " ", frame), *segs, *pad, Segment(" " + vt, frame)]

        muted = base + self._style("muted")
        info = " · ".join((s.roles if s.roles != "<none>" else "worker", *s.labels))
        lines.append(body([Segment(fit(info, inner), muted)]))

        # Taint chips, wrapped.
        if s.taints:
            row: list[Segment] = []
            used = 0
            for text, effect, _key in s.taints:
                chip = chip_text(text, inner)
                cw = cell_len(chip)
                if used and used + 1 + cw > inner:
                    lines.append(body(row))
                    row, used = [], 0
                if used:
                    row.append(Segment(" ", base))
                    used += 1
                style = self._style({"NoSchedule": "noschedule",
                                     "PreferNoSchedule": "prefernoschedule",
                                     "NoExecute": "noexecute"}.get(effect, "muted"))
                row.append(Segment(chip, base + style))
                used += cw
            lines.append(body(row))
            assert len(lines) == 2 + chip_lines(s.taints, inner)

        if s.conditions:
            lines.append(body([Segment(fit("⚠ " + " ".join(s.conditions), inner),
                                       base + self._style("condition"))]))

        for label, res, pair in (("cpu ", "cpu", s.cpu), ("mem ", "memory", s.memory),
                                 ("pods", "pods", s.pods_used)):
            lines.append(body(self._bar(label, res, pair, inner, base)))

        shown, more = shown_pods(s, self.max_pods)
        if not s.pods:
            lines.append(body([Segment("no pods", muted)]))
        start = min(self.pod_offset, max(0, len(s.pods) - shown)) if selected else 0
        for mark in s.pods[start:start + shown]:
            lines.append(body(self._pod_line(mark, inner, base)))
        if more:
            hint = f"… {start} above, {more - start} below (J/K)" if start else \
                f"… +{more} more (J/K, enter lists)"
            lines.append(body([Segment(fit(hint, inner), muted)]))

        height = card_height(s, w, self.max_pods)
        row_height = self._row_height_of(s.name)
        while len(lines) < max(height, row_height) - 1:
            lines.append(body([]))
        lines.append([Segment(bl + hz * (w - 2) + br, frame)])
        return [Strip(segs, w) for segs in lines]

    def _row_height_of(self, name: str) -> int:
        """Height of the grid row the card sits in (cards of a row share the bottom line)."""
        i = self._index.get(name)
        if i is None or i // self._cols >= len(self._row_heights):
            return 0
        return self._row_heights[i // self._cols]

    def _bar(self, label: str, resource: str, pair: tuple[int, int], inner: int,
             base: Style) -> list[Segment]:
        used, total = pair
        amount = amount_text(resource, used, total)
        bar_w = max(4, inner - 5 - 1 - len(amount))
        ratio = 0.0 if total <= 0 else min(1.0, used / total)
        filled = int(round(ratio * bar_w))
        if used and not filled:
            filled = 1
        fill_style = self._style("bar-high" if ratio >= 0.85 else "bar-fill")
        segs = [Segment(label + " ", base + self._style("muted")),
                Segment("█" * filled, base + fill_style),
                Segment("░" * (bar_w - filled), base + self._style("bar-empty")),
                Segment(" " + amount, base)]
        used_w = sum(cell_len(seg.text) for seg in segs)
        if used_w > inner:
            return [Segment(fit(f"{label} {amount}", inner), base)]
        return segs

    def _pod_line(self, mark: PodMark, inner: int, base: Style) -> list[Segment]:
        state_style = base + self._style(mark.state if mark.state != "succeeded" else "muted")
        if mark.deadline is not None:
            remaining = mark.deadline - self.session.now
            tail = f" {clock_text(remaining)}"
            if mark.toleration_seconds is not None:
                tail += f"/{mark.toleration_seconds}s"
            cd = base + self._style("countdown")
            name_w = max(1, inner - 2 - cell_len(tail))
            return [Segment("◷ ", cd), Segment(fit(mark.name, name_w).ljust(name_w), base),
                    Segment(tail, cd)]
        marker = _MARKER_TEXT.get(mark.marker, "")
        tag = f" {marker}" if marker else ""
        name_w = max(1, inner - 2 - cell_len(tag))
        segs = [Segment(_POD_GLYPH.get(mark.state, "●") + " ", state_style),
                Segment(fit(mark.name, name_w).ljust(name_w),
                        base + (self._style("terminating") if mark.state == "terminating"
                                else Style()))]
        if tag:
            segs.append(Segment(tag, base + self._style("marker")))
        return segs

    # -- keys -----------------------------------------------------------------------------
    def on_key(self, event: Any) -> None:
        if event.key == "enter" and self.selected is not None:
            event.stop()
            self.post_message(self.Activated(self, self.selected))
