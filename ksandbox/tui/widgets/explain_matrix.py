"""ExplainMatrix: the node × plugin matrix of ``ksandbox explain``, one node per line.

Input is the explain JSON of DESIGN.md §3 (``explanation.to_dict()``). Each row is a node:
its weighted total, a ✓ / ✗ / · per filter plugin (passed, failed, not run), then for a
feasible node each score plugin's normalized score (the column head carries its weight), or
for an infeasible one the failing filter and its reason. The chosen node comes first and is highlighted; then the feasible
nodes by total, then the infeasible ones. Only visible lines are drawn, so a 5,000-node
explanation scrolls as fast as a 5-node one.
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

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


class ExplainMatrix(LineList):
    COMPONENT_CLASSES = LineList.COMPONENT_CLASSES | {
        "explain-matrix--pass", "explain-matrix--fail", "explain-matrix--skip",
        "explain-matrix--chosen", "explain-matrix--score", "explain-matrix--total",
        "explain-matrix--reason"}

    header = True

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data: dict = {}
        self.weights: dict[str, int] = {}
        self.filters: list[str] = []
        self.scores: list[str] = []
        self.nodes: list[dict] = []
        self.name_width = 4
        self.reason_width = 0

    def set_explanation(self, data: dict, weights: dict[str, int] | None = None,
                        filter_order: tuple[str, ...] = ()) -> None:
        """Show ``data`` (the explain JSON); ``weights`` and ``filter_order`` give the
        profile's score weights and plugin order when the caller knows them."""
        self.data = data
        self.weights = dict(weights or data.get("weights") or {})
        nodes = list(data.get("nodes") or [])
        filters: list[str] = list(filter_order)
        scores: list[str] = list(self.weights)
        for n in nodes:
            for f in n.get("filters") or ():
                if f.get("plugin") not in filters:
                    filters.append(f.get("plugin"))
            for p in (n.get("scores") or {}):
                if p not in scores:
                    scores.append(p)
        for p in self.weights:
            if p not in scores:
                scores.append(p)
        selected = data.get("selected")
        nodes.sort(key=lambda n: (n.get("name") != selected, not n.get("feasible"),
                                  -(n.get("total") or 0), n.get("name") or ""))
        key = self.selected_name
        self.filters, self.scores, self.nodes = filters, scores, nodes
        self.name_width = max([4] + [cell_len(n.get("name") or "") for n in nodes]) + 2
        self.reason_width = max([0] + [
            cell_len(f"{f.get('plugin')}: {f.get('reason') or f.get('status')}")
            for n in nodes if not n.get("feasible")
            for f in (n.get("filters") or ()) if _failed(f.get("status"))])
        if key is not None:
            for i, n in enumerate(nodes):
                if n.get("name") == key:
                    self.set_reactive(ExplainMatrix.cursor, i)
                    break
        self.rows_changed()

    @property
    def selected_name(self) -> str | None:
        if 0 <= self.cursor < len(self.nodes):
            return self.nodes[self.cursor].get("name")
        return None

    def row_count(self) -> int:
        return len(self.nodes)

    def _score_head(self, plugin: str) -> str:
        w = self.weights.get(plugin)
        return f"{short_name(plugin)}×{w}" if w is not None else short_name(plugin)

    def _widths(self) -> tuple[list[int], list[int]]:
        fw = [max(2, cell_len(short_name(p))) for p in self.filters]
        sw = [max(4, cell_len(self._score_head(p))) for p in self.scores]
        return fw, sw

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

    def render_row(self, index: int, width: int, selected: bool) -> Strip:
        n = self.nodes[index]
        base = self.base_style
        st = self.component_style
        chosen = n.get("name") == self.data.get("selected")
        feasible = bool(n.get("feasible"))
        name_style = base + (st("explain-matrix--chosen") if chosen else Style())
        mark = "★ " if chosen else ("  " if feasible else "✗ ")
        segs = [Segment(mark, base + (st("explain-matrix--chosen") if chosen
                                      else st("explain-matrix--fail") if not feasible
                                      else Style())),
                Segment((n.get("name") or "").ljust(self.name_width), name_style),
                Segment((str(n.get("total", 0)) if feasible else "-").rjust(5) + "  ",
                        base + (st("explain-matrix--total") if feasible
                                else st("explain-matrix--skip")))]
        fw, sw = self._widths()
        results = {f.get("plugin"): f for f in n.get("filters") or ()}
        failing = None
        for plugin, w in zip(self.filters, fw):
            f = results.get(plugin)
            if f is None:
                segs.append(Segment("·".ljust(w + 1), base + st("explain-matrix--skip")))
            elif _failed(f.get("status")):
                failing = failing or f
                segs.append(Segment("✗".ljust(w + 1), base + st("explain-matrix--fail")))
            else:
                segs.append(Segment("✓".ljust(w + 1), base + st("explain-matrix--pass")))
        segs.append(Segment("│ ", base + st("explain-matrix--skip")))
        if feasible:
            scores = n.get("scores") or {}
            for plugin, w in zip(self.scores, sw):
                v = scores.get(plugin)
                segs.append(Segment(("-" if v is None else str(v)).rjust(w) + " ",
                                    base + st("explain-matrix--score")))
        else:
            if failing is None:
                failing = next((f for f in n.get("filters") or ()
                                if _failed(f.get("status"))), None)
            reason = (f"{failing.get('plugin')}: {failing.get('reason') or failing.get('status')}"
                      if failing else "not feasible")
            segs.append(Segment(reason, base + st("explain-matrix--reason")))
        strip = Strip(segs).crop_extend(0, width, base)
        if selected:
            strip = self.highlight(strip)
        return strip
