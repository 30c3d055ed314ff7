"""PlayerPane: the playback bar and the caption pane, shown while a recording plays.

Line one is the bar: pause state, position / duration, a track with the played part, the
playhead, the markers (◆) and captions (•) as ticks at their times, the speed and the step
count. Below it the caption in force at the position — it stays until the next caption (the
old 6-second toast was gone before anyone had read it). A step that failed at its time is
shown in the pane too, with kubectl's error, until playback moves on.

The App pushes a frozen :class:`PlayerState` after every change; nothing is drawn when the
state is the same.
"""

from __future__ import annotations

import attrs
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget


def clock(seconds: float) -> str:
    """``05:30`` (``1:02:03`` past an hour): the positions the bar and "go to" use."""
    s = max(0, int(seconds))
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


@attrs.frozen
class PlayerState:
    now: float = 0.0
    start: float = 0.0
    end: float = 0.0
    paused: bool = True
    speed: str = "1×"
    index: int = 0
    steps: int = 0
    markers: tuple[tuple[float, str], ...] = ()
    captions: tuple[float, ...] = ()
    caption: str = ""
    failed: str = ""
    """The step that failed at its time, and kubectl's error (playback paused on it)."""
    live: str = ""
    """After taking over: where the live session came from."""


def track(st: PlayerState, width: int) -> list[str]:
    """The track's cells: ━ played, ─ to come, ◆ marker, • caption, █ the playhead."""
    if width <= 0:
        return []
    span = max(st.end - st.start, 1e-9)

    def cell(t: float) -> int:
        return min(width - 1, max(0, int((t - st.start) / span * (width - 1) + 0.5)))

    head = cell(st.now) if st.end > st.start else 0
    cells = ["━" if i < head else "─" for i in range(width)]
    for t in st.captions:
        cells[cell(t)] = "•"
    for t, _ in st.markers:
        cells[cell(t)] = "◆"
    cells[head] = "█"
    return cells


class PlayerPane(Widget):
    DEFAULT_CSS = """
    PlayerPane {
        height: auto;
        max-height: 5;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    PlayerPane > .player-pane--played { color: $accent; }
    PlayerPane > .player-pane--rest { color: $foreground-muted; }
    PlayerPane > .player-pane--marker { color: $warning; text-style: bold; }
    PlayerPane > .player-pane--caption { color: $foreground; text-style: italic; }
    PlayerPane > .player-pane--muted { color: $foreground-muted; }
    PlayerPane > .player-pane--error { color: $error; text-style: bold; }
    """

    COMPONENT_CLASSES = {"player-pane--played", "player-pane--rest", "player-pane--marker",
                         "player-pane--caption", "player-pane--muted", "player-pane--error"}

    state: reactive[PlayerState] = reactive(PlayerState, always_update=False, layout=True)

    def render(self) -> Text:
        st = self.state
        style = self.get_component_rich_style
        muted = style("player-pane--muted")
        out = Text(no_wrap=False, overflow="fold")
        if st.live:
            out.append("● live ", style("player-pane--error"))
            out.append(st.live, muted)
            return out
        left = f"{'⏸' if st.paused else '▶'} {clock(st.now)} / {clock(st.end)} "
        right = f" {st.speed} · step {st.index}/{st.steps}"
        width = max(0, self.size.width - len(left) - len(right))
        out.append(left)
        for ch in track(st, width):
            if ch == "━" or ch == "█":
                out.append(ch, style("player-pane--played"))
            elif ch in "◆•":
                out.append(ch, style("player-pane--marker"))
            else:
                out.append(ch, style("player-pane--rest"))
        out.append(right, muted)
        out.append("\n")
        if st.failed:
            out.append(st.failed, style("player-pane--error"))
        elif st.caption:
            out.append("“" + st.caption + "”", style("player-pane--caption"))
        else:
            out.append("no caption yet · [ ] step · { } marker · ctrl+g go to · "
                       "ctrl+t take over", muted)
        return out
