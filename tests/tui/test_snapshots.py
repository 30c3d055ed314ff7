"""SVG snapshots of the main screen, the explain view and a countdown in progress.

Textual's own SVG export (what pytest-textual-snapshot stores) compared with the files in
``tests/tui/snapshots/``, on a fixed cluster, seed and terminal size. To accept a change on
purpose: ``KSANDBOX_UPDATE_SNAPSHOTS=1 pytest tests/tui/test_snapshots.py`` and look at the
new SVGs before committing them. On a mismatch the new SVG is written next to the old one as
``<name>.new.svg``; a missing snapshot fails too (its candidate is written the same way).
"""

from __future__ import annotations

import os
from pathlib import Path

from helpers import settle

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("KSANDBOX_UPDATE_SNAPSHOTS") == "1"
SIZE = (120, 36)


def compare(app, name: str) -> None:
    svg = app.export_screenshot(title=f"ksandbox — {name}")
    path = SNAPSHOTS / f"{name}.svg"
    new = SNAPSHOTS / f"{name}.new.svg"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        new.unlink(missing_ok=True)
        return
    if not path.exists():
        # A missing snapshot is a failure, not a pass: write the candidate for review.
        SNAPSHOTS.mkdir(exist_ok=True)
        new.write_text(svg, encoding="utf-8")
        raise AssertionError(f"{name}: no snapshot {path.name}; review {new.name} and accept "
                             f"it with KSANDBOX_UPDATE_SNAPSHOTS=1")
    if path.read_text(encoding="utf-8") != svg:
        new.write_text(svg, encoding="utf-8")
        raise AssertionError(f"{name}: the screen changed; compare {path.name} with {new.name} "
                             f"(KSANDBOX_UPDATE_SNAPSHOTS=1 to accept)")
    new.unlink(missing_ok=True)


async def test_snapshot_main_screen(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(30)
        app.submit("kubectl taint nodes node-2 dedicated=ml:PreferNoSchedule")
        app.submit("kubectl cordon node-1")
        await settle(pilot)
        compare(app, "main-screen")


async def test_snapshot_explain_view(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        app.submit("kubectl label nodes node-2 hw-type=gpu")
        app.submit("kubectl taint nodes node-2 hw-type=gpu:NoSchedule")
        app.open_explain("default", "gpu-pod")
        await settle(pilot)
        compare(app, "explain-view")


async def test_snapshot_countdown_in_progress(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(10)
        app.submit("ksandbox fail node node-3")
        app.advance(80)
        app.screen.board.selected = "node-3"
        await settle(pilot)
        compare(app, "countdown")
