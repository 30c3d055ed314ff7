"""``ksandbox play FILE --cast OUT.cast``: the playback rendered headless into asciicast v2.

The real App plays the recording in a headless terminal of the recording's size (its
``terminal:``; 120×40 when it has none). The player is moved forward frame by frame — every
:data:`FRAME_EVERY` seconds of the cast, every step and every marker — and after each move the
whole screen is rendered to ANSI text as Textual writes it to a terminal (cursor moves and
SGR colours). The first frame clears the terminal and draws every row; each later ``"o"`` event
redraws only the rows that changed (a frame with no change is left out), so a cast is a few
hundred kilobytes, not a full screen per frame. Each marker also becomes an ``"m"`` event (asciinema's player jumps to them).

Cast time is the recording's time from its start divided by ``--speed`` (a ten-minute story at
10× is a one-minute cast). The wall clock is never read: the same recording gives the same
file.

Format (asciicast v2): a header line ``{"version": 2, "width", "height", "title", "env"}``, then
one JSON array per line, ``[seconds, code, data]``, in time order.
"""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

# Cast seconds between two frames while nothing else happens (the clock in the header moves).
FRAME_EVERY = 0.5
DEFAULT_SIZE = (120, 40)
# The most frames one cast holds (a one-hour recording at 1× would be 7,200).
MAX_FRAMES = 20_000
CLEAR = "\x1b[H\x1b[2J"


def screen_lines(app: Any, console: Any) -> list[str]:
    """Each row of the screen as a terminal writes it: a cursor move, then the styled text."""
    update = app.screen._compositor.render_full_update()
    out = []
    for y, line in enumerate(update.strips, update.region.y):
        out.append(f"\x1b[{y + 1};{update.region.x + 1}H"
                   + "".join(strip.render(console) for strip in line))
    return out


def frame_times(start: float, end: float, speed: float, steps: Any) -> list[float]:
    """Simulated times to draw a frame at: a regular beat plus every step's time."""
    beat = FRAME_EVERY * speed
    times = {start, end}
    n = int((end - start) / beat) if beat > 0 else 0
    times.update(start + i * beat for i in range(1, min(n, MAX_FRAMES) + 1))
    times.update(s.at for s in steps if start <= s.at <= end)
    return sorted(times)[:MAX_FRAMES]


def header(recording: Any) -> dict[str, Any]:
    cols, rows = _size(recording)
    return {"version": 2, "width": cols, "height": rows,
            "title": recording.title or Path(recording.source).stem,
            "env": {"TERM": "xterm-256color", "SHELL": "/bin/sh"}}


def _size(recording: Any) -> tuple[int, int]:
    term = recording.terminal or {}
    return int(term.get("cols") or DEFAULT_SIZE[0]), int(term.get("rows") or DEFAULT_SIZE[1])


async def _frames(recording: Any, session: Any, speed: float) -> list[list[Any]]:
    from rich.console import Console

    from .app import make_app

    cols, rows = _size(recording)
    app = make_app(session, recording=recording, paused=True, ticking=False)
    console = Console(file=io.StringIO(), width=cols, height=rows, color_system="truecolor",
                      force_terminal=True, legacy_windows=False)
    events: list[list[Any]] = []
    async with app.run_test(size=(cols, rows)) as pilot:
        player = app.player
        assert player is not None
        start, end = player.start, player.end
        markers = {t: label for t, label in player.markers()}
        shown: list[str] = []
        await pilot.pause()
        for t in frame_times(start, end, speed, recording.steps):
            app.player_controls.seek_to(t)
            await pilot.pause()
            at = round((t - start) / speed, 3)
            lines = screen_lines(app, console)
            if not shown:
                events.append([at, "o", CLEAR + "".join(lines)])
            else:
                # Only the lines that changed (each starts by moving the cursor to its row).
                changed = "".join(new for new, old in zip(lines, shown) if new != old)
                if changed:
                    events.append([at, "o", changed])
            shown = lines
            if t in markers:
                events.append([at, "m", markers[t]])
    return events


def cast_text(recording: Any, events: list[list[Any]]) -> str:
    lines = [json.dumps(header(recording), ensure_ascii=False)]
    lines.extend(json.dumps(e, ensure_ascii=False) for e in events)
    return "\n".join(lines) + "\n"


def write_cast(recording: Any, session: Any, path: str, speed: float = 1.0) -> int:
    """Render the playback and write it to ``path``; how many frames the cast holds."""
    events = asyncio.run(_frames(recording, session, speed))
    Path(path).write_text(cast_text(recording, events), encoding="utf-8")
    return sum(1 for e in events if e[1] == "o")
