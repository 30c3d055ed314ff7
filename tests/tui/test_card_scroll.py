"""Issue 9 item 5: the selected card's countdowns are reachable at 80×24.

At 80×24 the board is about ten lines tall, shorter than a card with many pods, and a card
draws at most ``max_pods`` pod lines before "+N more". J/K scroll within the selected card
(first its bottom into view, then its window of pods), so every countdown line of a failed
node with many pods can be brought on screen by keys. (k9s scrolls a long view the same way;
the countdowns are the taint manager's, pkg/controller/tainteviction.)
"""

from __future__ import annotations

from pathlib import Path

from helpers import settle
from screen_text import screen_lines

from ksandbox.session import Session
from ksandbox.tui.cards import summarize

ROOT = Path(__file__).resolve().parents[2]


async def test_j_and_k_bring_every_countdown_of_a_crowded_card_into_view(make):
    s = Session.from_files([ROOT / "sample_clusters/node-failure.yaml"], seed=3)
    s.run_for(30)
    assert not s.submit("kubectl scale deployment web --replicas=24").error
    s.run_for(30)
    assert not s.submit("ksandbox fail node node-2").error
    s.run_for(100)
    marks = summarize(s, s.store.get("Node", "node-2")).pods
    counting = {m.name for m in marks if m.deadline is not None}
    app = make(s)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = app.screen.board
        board.selected = "node-2"
        await settle(pilot)
        assert len(marks) > board.max_pods, "the card must have hidden pods"
        assert len(counting) > board.max_pods - 1
        seen: set[str] = set()

        def look() -> None:
            for line in screen_lines(app):
                if "◷" in line:
                    seen.update(n for n in counting if n in line)

        look()
        assert seen != counting, "without scrolling some countdowns are out of view"
        for _ in range(len(marks) + 4):
            await pilot.press("J")
            await settle(pilot)
            look()
        assert seen == counting
        # K goes back up to the card's first pods and then its top.
        for _ in range(len(marks) + 4):
            await pilot.press("K")
            await settle(pilot)
        assert board.pod_offset == 0
        assert any("node-2" in line for line in screen_lines(app))
        # A new selection starts at the card's first pod again.
        await pilot.press("J")
        await settle(pilot)
        board.selected = "node-3"
        await settle(pilot)
        assert board.pod_offset == 0
