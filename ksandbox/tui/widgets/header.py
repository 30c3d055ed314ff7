"""ClusterHeader: the one line that is always on top — cluster, simulated time, speed or ⏸,
nodes ready/total, pods running/pending, and ● REC while recording.

The App pushes a new :class:`HeaderState` after every tick; the line is redrawn only when the
state differs (it is a frozen value, its time compared by the whole second shown). Under a
dialog too (KsScreen.show_clock): the clock beneath a dialog keeps moving.
"""

from __future__ import annotations

import attrs
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from .line_api import StyleMemo


def sim_time_text(seconds: float) -> str:
    """Simulated time as ``T+00:05:12`` (days added past 24 h)."""
    s = int(seconds)
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return f"T+{d}d{h:02d}:{m:02d}:{s:02d}" if d else f"T+{h:02d}:{m:02d}:{s:02d}"


@attrs.frozen
class HeaderState:
    cluster: str = "sandbox"
    time: float = attrs.field(default=0.0, eq=int)
    """Simulated seconds; two states are equal within one shown second (``sim_time_text``
    shows whole seconds), so the line is redrawn when its text changes, not on every tick."""
    speed: str = "1×"
    paused: bool = False
    lagging: bool = False
    nodes_ready: int = 0
    nodes_total: int = 0
    running: int = 0
    pending: int = 0
    recording: bool = False
    playback: str = ""
    """``▶ recording-title 3/12`` while playing a recording."""
    next_up: str = ""
    """While paused: what is due next (``next: evict web-1 in 4:12``)."""
    branch: str = ""
    """The what-if branch on show (empty while there is only one)."""


class ClusterHeader(StyleMemo, Widget):
    DEFAULT_CSS = """
    ClusterHeader {
        dock: top;
        height: 1;
        background: $panel;
        color: $foreground;
    }
    """

    COMPONENT_CLASSES = {"cluster-header--name", "cluster-header--time",
                         "cluster-header--paused", "cluster-header--warn",
                         "cluster-header--rec", "cluster-header--muted"}

    state: reactive[HeaderState] = reactive(HeaderState, always_update=False)

    def render(self) -> Text:
        st = self.state
        narrow = self.size.width < 100
        style = self.component_style
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(" ksandbox ", style("cluster-header--name"))
        if not narrow:
            t.append(f" {st.cluster} ", style("cluster-header--muted"))
        if st.branch:
            t.append(f"⑂ {st.branch} ", style("cluster-header--time"))
        t.append("│ ", style("cluster-header--muted"))
        t.append(sim_time_text(st.time), style("cluster-header--time"))
        t.append(" ")
        if st.paused:
            t.append(" ⏸ " if narrow else " ⏸ paused ", style("cluster-header--paused"))
        else:
            t.append(f"▶ {st.speed}", style("cluster-header--time"))
            if st.lagging:
                t.append(" (lagging)", style("cluster-header--warn"))
        t.append(" │ ", style("cluster-header--muted"))
        nodes_style = style("cluster-header--warn") if st.nodes_ready < st.nodes_total else None
        t.append(f"nodes {st.nodes_ready}/{st.nodes_total}" + ("" if narrow else " ready"),
                 nodes_style)
        t.append(" │ ", style("cluster-header--muted"))
        t.append(f"pods {st.running} running")
        if st.pending:
            t.append(f" · {st.pending} pending", style("cluster-header--warn"))
        if st.paused and st.next_up:
            t.append(" │ ", style("cluster-header--muted"))
            t.append(st.next_up, style("cluster-header--warn"))
        if st.playback:
            t.append(" │ ", style("cluster-header--muted"))
            t.append(st.playback, style("cluster-header--time"))
        if st.recording:
            t.append("  ● REC", style("cluster-header--rec"))
        return t
