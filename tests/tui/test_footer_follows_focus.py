"""Issue 9 item 5: the footer follows the focused pane.

Textual's Footer shows the active bindings of the focused widget's chain (textual
src/textual/screen.py ``Screen.active_bindings``; k9s's menu likewise changes with the view):
the board, the pending queue and the event log each bind what enter/d mean there, so tab
changes the footer's first keys, at 80×24 as at 160×48.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import settle
from screen_text import screen_lines

from ksandbox.session import Session
from ksandbox.tui.widgets.event_log import EventLog
from ksandbox.tui.widgets.node_board import NodeBoard
from ksandbox.tui.widgets.pending_queue import PendingQueue

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_tab_moves_the_footer_to_the_focused_panes_keys(make, size):
    s = Session.from_files([ROOT / "sample_clusters/node-failure.yaml"], seed=3)
    s.run_for(30)
    app = make(s)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        seen = {}
        for _ in range(3):
            seen[type(app.screen.focused)] = screen_lines(app)[-1]
            await pilot.press("tab")
            await settle(pilot)
        assert set(seen) == {NodeBoard, PendingQueue, EventLog}
        assert seen[NodeBoard].lstrip().startswith("⏎ Pods d Describe node")
        assert seen[PendingQueue].lstrip().startswith("⏎ Explain pod")
        assert seen[EventLog].lstrip().startswith("d Describe object")
        assert "Describe node" not in seen[EventLog] + seen[PendingQueue]
        # The shared keys stay: node keys still act on the board's node from any pane.
        assert all("c Cordon" in line for line in seen.values())


async def test_d_in_the_event_log_describes_the_events_object(make):
    s = Session.from_files([ROOT / "sample_clusters/node-failure.yaml"], seed=3)
    s.run_for(30)
    app = make(s)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.screen.query_one(EventLog).focus()
        await settle(pilot)
        log = app.screen.query_one(EventLog)
        log.cursor = 0
        obj = log.event_at(0).involved_object
        await pilot.press("d")
        await settle(pilot)
        text = "\n".join(screen_lines(app))
        assert "Name:" in text and obj.name in text
