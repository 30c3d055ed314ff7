"""Long lists stay right while they are made cheap (issue 11 item 3: no key waits at 30,000 pods).

What a person sees is checked, not how long it took: a list whose rows come and go as the
cluster changes scrolls over exactly the rows there are, its cursor stays on a real row, and the
pending queue still grows and shrinks with its pods. Where a change is only there for speed, the
test also pins the property that made it cheap (a row count that changes lays out nothing else
on the screen), so a regression fails here and not only in bench/tui.py.
"""

from __future__ import annotations

from helpers import command, settle
from screen_text import screen_lines, screen_text

from ksandbox.tui.screens.resources import ResourceScreen

SIZE = (120, 30)


def _count_layouts(screen) -> list[int]:
    calls = [0]
    original = screen._refresh_layout

    def counted(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    screen._refresh_layout = counted
    return calls


async def test_rows_that_come_and_go_keep_scroll_range_and_cursor_right(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(20)
        app.submit("kubectl scale deployment/web --replicas=60", quiet=True)
        app.advance(20)
        await command(pilot, "po")
        assert isinstance(app.screen, ResourceScreen)
        table = app.screen.table
        pods = {p.metadata.name for p in app.session.store.list("Pod")}
        assert table.row_count() == len(pods) > 60
        await pilot.press("G")  # the last row, scrolled into view
        await settle(pilot)
        last = table.row_key(table.row_count() - 1)[1]
        assert table.cursor == table.row_count() - 1
        assert last in screen_text(app)

        layouts = _count_layouts(app.screen)
        app.submit("kubectl scale deployment/web --replicas=70", quiet=True)
        app.advance(5)
        await settle(pilot)
        pods = {p.metadata.name for p in app.session.store.list("Pod")}
        assert table.row_count() == len(pods)
        assert layouts[0] == 0, "more rows only lengthen the scroll range"
        await pilot.press("G")
        await settle(pilot)
        assert table.row_key(table.row_count() - 1)[1] in screen_text(app)

        app.submit("kubectl scale deployment/web --replicas=2", quiet=True)
        app.advance(60)
        await settle(pilot)
        live = {p.metadata.name for p in app.session.store.list("Pod")}
        assert table.row_count() == len(live)
        # The cursor was past the new end: it sits on the last row that is left, and every
        # line under the header shows a row that exists (nothing scrolled into empty space).
        assert table.cursor == table.row_count() - 1
        body = [line for line in screen_lines(app)[3:3 + table.row_count()]]
        shown = {name for line in body for name in live if f" {name} " in line}
        assert shown == live


async def test_pending_queue_grows_and_shrinks_with_its_pods(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(20)
        await settle(pilot)
        queue = app.screen.pending
        small, before = queue.size.height, len(queue.pods)
        # Far more pods than any node can take: the queue is clamped at its max-height.
        app.submit("kubectl scale deployment/web --replicas=400", quiet=True)
        app.advance(3)
        await settle(pilot)
        tall = queue.size.height
        assert tall > small and len(queue.pods) > tall
        layouts = _count_layouts(app.screen)
        app.submit("kubectl scale deployment/web --replicas=390", quiet=True)
        app.advance(1)
        await settle(pilot)
        assert queue.size.height == tall
        assert layouts[0] == 0, "a clamped queue with fewer rows keeps its box"
        app.submit("kubectl scale deployment/web --replicas=3", quiet=True)
        app.advance(60)
        await settle(pilot)
        assert queue.size.height == small
        assert f"pending[{before}]" in screen_text(app)
