"""ExplainMatrix: the node × plugin matrix of ``ksandbox explain``, one node per line.

Input is the explain JSON of DESIGN.md §3 (``explanation.to_dict()``). Each row is a node:
its weighted total, a ✓ / ✗ / · per filter plugin (passed, failed, not run), then for a
feasible node each score plugin's normalized score (the column head carries its weight), or
for an infeasible one the failing filter and its reason. The chosen node comes first and is highlighted; then the feasible
nodes by total, then the infeasible ones. Only visible lines are drawn, so a 5,000-node
explanation scrolls as fast as a 5-node one.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.strip import Strip

from .line_api import set_virtual_size
from .line_list import LineList

# Short column heads for the upstream plugins (others get their capitals).
SHORT = {
    "NodeUnschedulable": "Uns", "NodeName": "Nam", "TaintToleration": "Tnt",
    "NodeAffinity": "Aff", "NodePorts": "Prt", "NodeResourcesFit": "Fit",
    "PodTopologySpread": "Spr", "InterPodAffinity": "IPA", "VolumeRestrictions": "VoR",
    "VolumeZone": "VoZ", "VolumeBinding": "VoB", "NodeVolumeLimits": "VoL",
    "NodeResourcesBalancedAllocation": "Bal", "ImageLocality": "Img",
    "SchedulingGates": "Gat", "PrioritySort": "Pri", "DefaultPreemption": "Pre",
}
PASS = ("Success", "", None)


def short_name(plugin: str) -> str:
    return SHORT.get(plugin) or "".join(c for c in plugin if c.isupper()) or plugin[:5]


def _failed(status: Any) -> bool:
    return status not in PASS and status != "Skip"


@attrs.frozen
class MatrixLayout:
    """The matrix's rows in display order and its column widths: the part of showing an
    explanation that grows with the cluster (sorting 1,000 nodes, measuring their names and
    reasons). Plain values, so the explain screen's worker thread builds it beside the
    explanation and the UI thread only swaps it in."""

    data: dict
    weights: dict[str, int]
    filters: list[str]
    scores: list[str]
    nodes: list[dict]
    name_width: int
    reason_width: int
    filter_widths: list[int]
    score_widths: list[int]


def matrix_layout(data: dict, weights: dict[str, int] | None = None,
                  filter_order: tuple[str, ...] = ()) -> MatrixLayout:
    """Lay out ``data`` (the explain JSON); ``weights`` and ``filter_order`` give the
    profile's score weights and plugin order when the caller knows them."""
    weights = dict(weights or data.get("weights") or {})
    nodes = list(data.get("nodes") or [])
    filters: list[str] = list(filter_order)
    scores: list[str] = list(weights)
    # Explanation.to_dict shares one filters list among the nodes with the same verdicts
    # (every passing node): each distinct list is read once (at 5,000 nodes, 45,000 plugin
    # dicts were read to find the same 9 names).
    seen: set[int] = set()
    for n in nodes:
        verdicts = n.get("filters") or ()
        if id(verdicts) not in seen:
            seen.add(id(verdicts))
            for f in verdicts:
                if f.get("plugin") not in filters:
                    filters.append(f.get("plugin"))
        for p in (n.get("scores") or ()):
            if p not in scores:
                scores.append(p)
    selected = data.get("selected")
    nodes.sort(key=lambda n: (n.get("name") != selected, not n.get("feasible"),
                              -(n.get("total") or 0), n.get("name") or ""))
    name_width = max([4] + [_width(n.get("name") or "") for n in nodes]) + 2
    reason_width = max([0] + [
        cell_len(f"{f.get('plugin')}: {f.get('reason') or f.get('status')}")
        for n in nodes if not n.get("feasible")
        for f in (n.get("filters") or ()) if _failed(f.get("status"))])
    fw = [max(2, cell_len(short_name(p))) for p in filters]
    sw = [max(4, cell_len(score_head(p, weights))) for p in scores]
    return MatrixLayout(data, weights, filters, scores, nodes, name_width, reason_width, fw, sw)


def _width(text: str) -> int:
    """cell_len for a node name: printable ASCII (every valid node name) is one cell a
    character, without rich's per-string lookup (5,000 names at 5,000 nodes)."""
    return len(text) if text.isascii() and text.isprintable() else cell_len(text)


def score_head(plugin: str, weights: dict[str, int]) -> str:
    w = weights.get(plugin)
    return f"{short_name(plugin)}×{w}" if w is not None else short_name(plugin)


EMPTY = MatrixLayout({}, {}, [], [], [], 4, 0, [], [])


class ExplainMatrix(LineList):
    COMPONENT_CLASSES = LineList.COMPONENT_CLASSES | {
        "explain-matrix--pass", "explain-matrix--fail", "explain-matrix--skip",
        "explain-matrix--chosen", "explain-matrix--score", "explain-matrix--total",
        "explain-matrix--reason"}

    header = True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.shown = EMPTY
        self.reserved = Size(0, 0)
        """Columns and rows kept room for while the matrix has none (an explanation lists
        every node: the explain view reopened for another pod reserves the cluster's node
        count and the last matrix's width). Its scrollbars are there from the first frame,
        and an answer of that shape takes the room without a layout of the screen (a
        scrollbar appearing laid it out three times)."""

    # The layout's parts, under the names the screen and the tests read.
    data = property(lambda self: self.shown.data)
    weights = property(lambda self: self.shown.weights)
    filters = property(lambda self: self.shown.filters)
    scores = property(lambda self: self.shown.scores)
    nodes = property(lambda self: self.shown.nodes)
    name_width = property(lambda self: self.shown.name_width)
    reason_width = property(lambda self: self.shown.reason_width)

    def set_explanation(self, data: dict, weights: dict[str, int] | None = None,
                        filter_order: tuple[str, ...] = ()) -> None:
        """Show ``data`` (the explain JSON), laid out here (see :func:`matrix_layout`)."""
        self.set_layout(matrix_layout(data, weights, filter_order))

    def set_layout(self, layout: MatrixLayout) -> None:
        """Show a laid-out explanation, keeping the cursor on the node it was on."""
        key = self.selected_name
        self.shown = layout
        if key is not None:
            for i, n in enumerate(layout.nodes):
                if n.get("name") == key:
                    self.set_reactive(ExplainMatrix.cursor, i)
                    break
        self.rows_changed()

    def update_virtual_size(self, repaint: bool = True) -> None:
        if self.row_count() or not self.reserved:
            super().update_virtual_size(repaint)
            return
        set_virtual_size(self, Size(max(self.content_width(), self.reserved.width),
                                    self.reserved.height + 1), repaint)
        self.cursor = 0

    @property
    def selected_name(self) -> str | None:
        if 0 <= self.cursor < len(self.nodes):
            return self.nodes[self.cursor].get("name")
        return None

    def row_count(self) -> int:
        return len(self.nodes)

    def _score_head(self, plugin: str) -> str:
        return score_head(plugin, self.shown.weights)

    def _widths(self) -> tuple[list[int], list[int]]:
        return self.shown.filter_widths, self.shown.score_widths

    def content_width(self) -> int:
        fw, sw = self._widths()
        tail = max(sum(w + 1 for w in sw), self.reason_width)
        return 2 + self.name_width + 7 + sum(w + 1 for w in fw) + 2 + tail

    def render_header(self, width: int) -> Strip:
        base = self.component_style("line-list--header")
        fw, sw = self._widths()
        text = "  " + "NODE".ljust(self.name_width) + "TOTAL".rjust(5) + "  "
        text += "".join(short_name(p).ljust(w + 1) for p, w in zip(self.filters, fw))
        text += "│ "
        text += "".join(self._score_head(p).rjust(w) + " " for p, w in zip(self.scores, sw))
        return Strip([Segment(text, base)]).crop_extend(0, width, base)

    def render_lines(self, crop: Any) -> list[Strip]:
        # The rows' styles are read once for the lines of this frame, not once a row (each
        # read of a component style checks its rules and the widget's ancestors: eight a row
        # were ~40 % of the matrix in an answer's frame: its 16 lines 4.3 -> 2.7 ms at 1,000 nodes).
        self._frame_styles = self._row_styles()
        try:
            return super().render_lines(crop)
        finally:
            self._frame_styles = None

    _frame_styles: "RowStyles | None" = None

    def _row_styles(self) -> "RowStyles":
        base = self.base_style
        cs = self.component_style
        fail, skip = base + cs("explain-matrix--fail"), base + cs("explain-matrix--skip")
        return RowStyles(base, fail, skip, base + cs("explain-matrix--chosen"),
                         base + cs("explain-matrix--total"), base + cs("explain-matrix--pass"),
                         base + cs("explain-matrix--score"), base + cs("explain-matrix--reason"))

    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        n = self.nodes[index]
        st = self._frame_styles or self._row_styles()
        base, fail, skip = st.base, st.fail, st.skip
        chosen = n.get("name") == self.data.get("selected")
        feasible = bool(n.get("feasible"))
        chosen_style = st.chosen if chosen else base
        mark = "★ " if chosen else ("  " if feasible else "✗ ")
        segs = [Segment(mark, chosen_style if chosen else fail if not feasible else base),
                Segment((n.get("name") or "").ljust(self.name_width), chosen_style),
                Segment((str(n.get("total", 0)) if feasible else "-").rjust(5) + "  ",
                        st.total if feasible else skip)]
        fw, sw = self._widths()
        passed = st.passed
        results = {f.get("plugin"): f for f in n.get("filters") or ()}
        failing = None
        for plugin, w in zip(self.filters, fw):
            f = results.get(plugin)
            if f is None:
                segs.append(Segment("·".ljust(w + 1), skip))
            elif _failed(f.get("status")):
                failing = failing or f
                segs.append(Segment("✗".ljust(w + 1), fail))
            else:
                segs.append(Segment("✓".ljust(w + 1), passed))
        segs.append(Segment("│ ", skip))
        if feasible:
            scores = n.get("scores") or {}
            score_style = st.score
            for plugin, w in zip(self.scores, sw):
                v = scores.get(plugin)
                segs.append(Segment(("-" if v is None else str(v)).rjust(w) + " ", score_style))
        else:
            if failing is None:
                failing = next((f for f in n.get("filters") or ()
                                if _failed(f.get("status"))), None)
            reason = (f"{failing.get('plugin')}: {failing.get('reason') or failing.get('status')}"
                      if failing else "not feasible")
            segs.append(Segment(reason, st.reason))
        strip = Strip(segs).crop_extend(0, width, base)
        if selected:
            strip = self.highlight(strip)
        return strip


class RowStyles(NamedTuple):
    """The styles a matrix row is drawn with (each over the matrix's own)."""

    base: Style
    fail: Style
    skip: Style
    chosen: Style
    total: Style
    passed: Style
    score: Style
    reason: Style
