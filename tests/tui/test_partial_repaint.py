"""The pod list repaints only what changed on screen, and what it shows is what a full repaint
shows (issue 11: the clock's tick repainted the whole list, ~40 lines, twenty times a second).

ResourceTable.repaint_changed compares what each line was drawn with against the rows now and
marks only the lines, or the cells within a line, that differ; LineList repaints only the two
rows a cursor step moves between. A slip there leaves a stale line on screen, so every step of
a long seeded run (the clock, scaling, keys, marks, filters, sorts, a taint's countdown, wide
columns, horizontal scrolling) checks the screen against the same screen repainted whole.
"""

from __future__ import annotations

import random
from contextlib import contextmanager

from helpers import command, settle
from screen_text import TerminalMirror, screen_lines

from ksandbox.tui.screens.resources import ResourceScreen

SIZE = (100, 30)


@contextmanager
def _refreshes(table):
    """The regions each ``table.refresh`` call marks while in the block (one tuple a call;
    an empty tuple is a whole repaint)."""
    regions: list[tuple] = []
    original = table.refresh

    def refresh(*args, **kwargs):
        regions.append(args)
        return original(*args, **kwargs)

    table.refresh = refresh
    try:
        yield regions
    finally:
        table.refresh = original


async def _whole_repaint_agrees(app, pilot, what: str, mirror=None, widget=None) -> None:
    """The screen after ``what`` is the screen repainted whole: the widgets' lines and, with
    a ``mirror``, the cells the terminal was sent."""
    await settle(pilot)
    shown = screen_lines(app)
    sent = mirror.lines() if mirror is not None else None
    (widget if widget is not None else app.screen.table).refresh()
    await settle(pilot)
    assert screen_lines(app) == shown, f"a stale line on screen after {what}"
    if mirror is not None:
        assert sent == shown, f"the terminal was sent a stale cell after {what}"


async def test_the_pod_list_shows_what_a_whole_repaint_shows(session, make):
    app = make(session)
    rng = random.Random(11)
    async with app.run_test(size=SIZE) as pilot:
        mirror = TerminalMirror(app)
        app.submit("kubectl scale deployment/web --replicas=30", quiet=True)
        app.advance(30)
        await command(pilot, "po")
        assert isinstance(app.screen, ResourceScreen)
        table = app.screen.table

        async def step(i: int) -> str:
            pick = rng.randrange(16)
            if pick < 5:
                seconds = rng.choice([0.5, 1, 1, 3, 20, 70])
                app.advance(seconds)
                return f"the clock moved {seconds} s"
            if pick < 7:
                n = rng.randrange(2, 45)
                app.submit(f"kubectl scale deployment/web --replicas={n}", quiet=True)
                app.advance(rng.choice([0.5, 2, 10]))
                return f"web scaled to {n}"
            if pick < 10:
                key = rng.choice(["down", "down", "up", "pagedown", "pageup", "G", "g"])
                await pilot.press(key)
                return key
            if pick == 10:
                app.screen.action_mark()
                return "a mark"
            if pick == 11:
                table.scroll_to(x=rng.choice([0, 0, 7, 30]), animate=False, immediate=True)
                return "a horizontal scroll"
            if pick == 12:
                await pilot.press(rng.choice(["N", "A", "S", "O"]))
                return "a sort"
            if pick == 13:
                app.screen.apply_filter(rng.choice(["", "", "web", "Running", "node-"]))
                return "a filter"
            if pick == 14:
                await pilot.press("ctrl+w")
                return "wide columns"
            effect = rng.choice(["NoExecute", "NoSchedule"])
            node = rng.choice(["node-1", "node-2", "node-3"])
            app.submit(f"kubectl taint nodes {node} k{i}=v:{effect}", quiet=True)
            app.advance(1)
            return f"a {effect} taint on {node}"

        for i in range(120):
            what = await step(i)
            await _whole_repaint_agrees(app, pilot, what, mirror)



async def test_a_tick_that_only_ages_rows_repaints_only_the_age_cells(session, make):
    """Pin the saving: as the clock runs with nothing else changing, the lines are not
    repainted whole, only the AGE column's cells — and the terminal gets them right as the
    ages go from 14s to 24s (the first digit changes at 20s, the width stays)."""
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        mirror = TerminalMirror(app)
        app.advance(5)
        await command(pilot, "po")
        table = app.screen.table
        app.advance(9)
        await settle(pilot)
        for second in range(10):
            with _refreshes(table) as regions:
                app.advance(1)
                await settle(pilot)
            columns = table._columns()
            age = columns.index("AGE")
            x0 = sum(table._widths[:age]) + 3 * age
            marked = [r for call in regions for r in call]
            assert regions and all(call for call in regions), "repainted whole"
            assert {(r.x, r.width) for r in marked} == {(x0, table._widths[age] + 3)}
            assert len(marked) == table.row_count()
            await _whole_repaint_agrees(app, pilot, f"the clock, second {second}", mirror)
        assert "24s" in "".join(mirror.lines())


async def test_a_cursor_step_repaints_two_rows(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await command(pilot, "po")
        table = app.screen.table
        await settle(pilot)
        with _refreshes(table) as regions:
            await pilot.press("down")
        assert [len(call) for call in regions] == [1, 1]
        assert sorted(call[0].y for call in regions) == [1, 2]  # rows 0 and 1, under the header
        await _whole_repaint_agrees(app, pilot, "a cursor step")


async def test_the_board_sends_the_terminal_what_a_whole_repaint_shows(session, make):
    """The board repaints a changed or selected card's own columns of its grid row: what the
    terminal was sent is the board repainted whole, as the selection moves, pods come and go,
    a node is cordoned."""
    app = make(session)
    rng = random.Random(5)
    async with app.run_test(size=(140, 40)) as pilot:
        mirror = TerminalMirror(app)
        board = app.screen.board
        for i in range(40):
            pick = rng.randrange(6)
            if pick < 3:
                what = rng.choice(["right", "left", "down", "up"])
                await pilot.press(what)
            elif pick == 3:
                n = rng.randrange(1, 15)
                app.submit(f"kubectl scale deployment/web --replicas={n}", quiet=True)
                app.advance(rng.choice([1, 5, 20]))
                what = f"web scaled to {n}"
            elif pick == 4:
                node = rng.choice(["node-1", "node-2", "node-3"])
                verb = rng.choice(["cordon", "uncordon"])
                app.submit(f"kubectl {verb} {node}", quiet=True)
                app.advance(1)
                what = f"{verb} {node}"
            else:
                app.advance(rng.choice([0.5, 3, 30]))
                what = "the clock"
            await settle(pilot)
            board._drop_all()
            await _whole_repaint_agrees(app, pilot, what, mirror, board)


async def test_what_lines_were_drawn_with_is_kept_for_the_window_only(session, make):
    """Paging through the whole list draws every row once; what they were drawn with is
    pruned to the window on the next tick (it is only compared there)."""
    app = make(session)
    async with app.run_test(size=(100, 14)) as pilot:
        app.submit("kubectl scale deployment/web --replicas=40", quiet=True)
        app.advance(30)
        await command(pilot, "po")
        table = app.screen.table
        for _ in range(12):
            await pilot.press("pagedown")
            await settle(pilot)
        assert len(table._painted) > 4 * table.body_height, "every row was drawn"
        app.advance(1)
        await settle(pilot)
        assert 0 < len(table._painted) <= 4 * table.body_height
        await _whole_repaint_agrees(app, pilot, "the clock after paging")


async def test_the_pending_queue_repaints_only_when_its_pods_change(session, make):
    """The pending queue is read again on every tick that writes a pod, and repainted only
    when its pods changed (another pod, or a pod written again); a node's heartbeat leaves it
    alone. What the terminal was sent is the queue repainted whole at every step."""
    app = make(session)
    rng = random.Random(3)
    async with app.run_test(size=(140, 40)) as pilot:
        mirror = TerminalMirror(app)
        queue = app.screen.pending
        app.submit("kubectl scale deployment/web --replicas=400", quiet=True)
        app.advance(60)  # every pod created (the ReplicaSet controller's rate: 20 a second)
        await settle(pilot)
        assert len(queue.pods) > 6
        skipped = 0
        for i in range(30):
            pods = list(queue.pods)
            with _refreshes(queue) as regions:
                pick = rng.randrange(5)
                if pick == 3:
                    # A write to a running pod, or to a node: nothing the queue shows.
                    app.submit(rng.choice([f"kubectl label pod quick-evict n={i} --overwrite",
                                           f"kubectl label node node-1 n={i} --overwrite"]),
                               quiet=True)
                    app.advance(0.5)
                    what = "a write outside the queue"
                elif pick == 0:
                    n = rng.randrange(390, 410)
                    app.submit(f"kubectl scale deployment/web --replicas={n}", quiet=True)
                    app.advance(rng.choice([0.5, 2]))
                    what = f"web scaled to {n}"
                elif pick == 1:
                    await pilot.press(rng.choice(["down", "up"]))
                    what = "a cursor key"
                else:
                    app.advance(rng.choice([0.5, 1, 10]))
                    what = "the clock"
                await settle(pilot)
            same = len(queue.pods) == len(pods) and all(
                a is b for a, b in zip(queue.pods, pods))
            if same and pick != 1:
                assert regions == [], f"the queue was repainted with the same pods ({what})"
                skipped += 1
            await _whole_repaint_agrees(app, pilot, what, mirror, queue)
        assert skipped >= 5


async def test_the_board_lays_out_again_only_the_rows_whose_cards_changed(session, make):
    """A tick that starts or ends pods changes those nodes' card heights: the board computes
    again only their heights and their rows' (NodeBoard._relayout), and the layout is the one
    a full layout gives — every card's height, every row's top and height — and the terminal
    shows the board repainted whole, as pods come and go, nodes are tainted and cordoned."""
    app = make(session)
    rng = random.Random(8)
    async with app.run_test(size=(140, 44)) as pilot:
        mirror = TerminalMirror(app)
        board = app.screen.board
        relayouts = []
        original = board._relayout

        def relayout(names):
            relayouts.append(list(names))
            return original(names)

        board._relayout = relayout
        for i in range(40):
            pick = rng.randrange(5)
            if pick < 3:
                n = rng.randrange(1, 30)
                app.submit(f"kubectl scale deployment/web --replicas={n}", quiet=True)
                app.advance(rng.choice([1, 3, 20]))
                what = f"web scaled to {n}"
            elif pick == 3:
                node = rng.choice(["node-1", "node-2", "node-3"])
                app.submit(rng.choice([f"kubectl taint nodes {node} k{i}=v:NoSchedule",
                                       f"kubectl taint nodes {node} k{i - 1}-",
                                       f"kubectl cordon {node}", f"kubectl uncordon {node}"]),
                           quiet=True)
                app.advance(1)
                what = f"{node} tainted or cordoned"
            else:
                await pilot.press(rng.choice(["right", "down", "left", "up"]))
                what = "the selection"
            await settle(pilot)
            kept = (dict(board._heights), list(board._row_tops), list(board._row_heights))
            board._layout(force=True)
            assert kept == (board._heights, board._row_tops, board._row_heights), what
            await _whole_repaint_agrees(app, pilot, what, mirror, board)
        assert len(relayouts) >= 10
