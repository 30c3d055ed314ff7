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


async def test_the_board_under_a_dialog_catches_up_when_the_dialog_closes(session, make):
    """A dialog over the board: the board beneath is not redrawn while the dialog is open
    (Textual would repaint the dialog's whole dimmed background each time), and everything
    that happened meanwhile is on the board the moment the dialog closes — and the footer
    shows the board's keys again."""
    app = make(session)
    async with app.run_test(size=(140, 40)) as pilot:
        app.advance(20)
        await settle(pilot)
        board_screen = app.screen
        app.screen.board.selected = "node-1"
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert "Taint node node-1" in screen_text(app)
        seen = board_screen.generation
        # While the dialog is open the sandbox moves on: node-3 is cordoned, time passes.
        app.session.submit("kubectl cordon node-3")
        app.advance(30)
        await settle(pilot)
        assert board_screen.generation == seen, "the covered board was not redrawn"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is board_screen
        assert board_screen.generation == app.model.generation
        text = screen_text(app)
        assert "cordoned" in text and "T+00:00:50" in text
        assert "t Taint" in text.splitlines()[-1]


async def test_the_board_repainting_only_changed_cards_shows_what_a_full_redraw_shows(
        session, make):
    """The board repaints only the grid rows of cards that changed (the selection moving,
    pods arriving on a node, a card growing taller). After each change the screen must be
    exactly what a redraw of the whole board from scratch shows."""
    app = make(session)
    async with app.run_test(size=(140, 40)) as pilot:
        board = app.screen.board

        async def same_as_full_redraw(what: str) -> str:
            await settle(pilot)
            incremental = screen_text(app)
            board._drop_all()
            board._layout(force=True)
            board.refresh()
            await settle(pilot)
            assert screen_text(app) == incremental, what
            return incremental

        app.advance(10)
        await same_as_full_redraw("first screen")
        board.selected = "node-1"
        await pilot.press("right")
        text = await same_as_full_redraw("selection moved")
        assert board.selected == "node-2"
        assert "┏━ node-2" in text and "┏━ node-1" not in text
        app.submit("kubectl scale deployment/web --replicas=12", quiet=True)
        app.advance(10)
        await same_as_full_redraw("pods arrived, cards grew")
        app.submit("kubectl cordon node-3", quiet=True)
        app.advance(2)
        await same_as_full_redraw("a node cordoned")
        app.submit("kubectl scale deployment/web --replicas=1", quiet=True)
        app.advance(40)
        await same_as_full_redraw("pods gone, cards shrank")
        await pilot.press("left")
        await same_as_full_redraw("selection moved back")


async def test_the_clock_waits_for_a_new_screens_first_frame_a_few_ticks_at_most(session,
                                                                                  make):
    """A dialog (or a list view, explain) pushed but not yet drawn: a tick then would run the
    sandbox and repaint before the dialog's first frame, and the key that opened it would pay
    for both. The clock gives way, YIELD_TICKS in a row at most, and runs once it is drawn."""
    from ksandbox.tui.dialogs import TaintDialog

    app = make(session, paused=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not app._first_frame_waiting()
        app.push_screen(TaintDialog("node-1"))
        assert app._first_frame_waiting()
        moved = []
        for _ in range(app.YIELD_TICKS + 1):
            before = app.session.now
            app._last_tick -= 0.05
            app._tick()
            moved.append(app.session.now > before)
        assert moved == [False] * app.YIELD_TICKS + [True], "never more than YIELD_TICKS"
        app.push_screen(TaintDialog("node-2"))
        app._last_tick -= 0.05
        before = app.session.now
        app._tick()
        assert app.session.now == before
        await settle(pilot)
        assert "Taint node node-2" in screen_text(app)
        assert not app._first_frame_waiting()
        app._last_tick -= 0.05
        app._tick()
        assert app.session.now > before, "drawn: the clock runs, and pays the time owed"


async def test_the_clock_gives_way_to_a_waiting_key_a_few_ticks_at_most(session, make):
    """A tick that would run while a key waits is skipped (the key is handled and drawn
    first), but never more than YIELD_TICKS in a row: typing without a pause does not stop
    the cluster. The skipped time is paid on the next tick."""
    from textual import events

    app = make(session, paused=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        start = app.session.now
        app._last_tick -= 0.1
        app._tick()
        assert app.session.now > start, "no key waiting: the clock runs"
        # A key waits in the app's queue (not yet handled).
        app.post_message(events.Key("down", None))
        moved = []
        for _ in range(app.YIELD_TICKS + 1):
            before = app.session.now
            app._last_tick -= 0.05
            app._tick()
            moved.append(app.session.now > before)
        assert moved == [False] * app.YIELD_TICKS + [True]
        await settle(pilot)
        assert app.is_running and app._exception is None


async def test_a_key_on_its_way_from_the_driver_holds_the_clock_and_ends_its_slice(session,
                                                                                   make):
    """The driver sends a key from its input thread; it reaches the app's queue only when
    the event loop next runs. A tick that starts meanwhile gives way as to a queued key, and
    one already running ends its slice of sandbox work early (Pacer.tick's ``yield_when``),
    so the key waits for a callback, not for the rest of the budget."""
    from textual import events

    from ksandbox.tui.pacer import MIN_SLICE

    app = make(session, paused=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not app._key_waiting()
        app._driver.send_message(events.Key("down", None))  # not yet in any queue
        assert app._key_waiting()
        before = app.session.now
        app._last_tick -= 0.05
        app._tick()
        assert app.session.now == before and app._yielded == 1, "the tick gave way"
        await settle(pilot)
        assert not app._key_waiting(), "delivered and handled"

        # A tick in progress when a key is sent: the slice ends at the next callback once
        # MIN_SLICE has run (a fake clock: every callback takes a millisecond).
        for t in (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0):
            app.session.clock.call_at(app.session.now + t, lambda: None)
        clock = iter(i / 1000 for i in range(10_000))
        app.pacer._perf = lambda: next(clock)
        app.pacer.speed = 10
        app._driver.send_message(events.Key("up", None))
        before = app.session.now
        app.pacer.tick(1.0, yield_when=app._key_waiting)
        assert app.pacer.cut_short and not app.pacer.lagging
        ran = app.session.now - before
        assert 0 < ran < 8, "some callbacks ran, not the slice's whole target"
        assert ran <= MIN_SLICE * 1000 + 1
        await settle(pilot)
        assert not app._key_waiting()
        app.pacer.tick(1.0, yield_when=app._key_waiting)
        assert not app.pacer.cut_short and app.session.now > before + ran
        assert app.is_running and app._exception is None
