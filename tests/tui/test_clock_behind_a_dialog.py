"""The clock and the countdowns keep moving behind a dialog.

The App tells only the screen on top about the cluster's changes (publish): the board beneath
a dialog catches up when it is on top again. Its header's clock and its cards' countdowns
still move (KsScreen.show_clock): a frozen clock behind a dialog, with the simulation running,
lies. Only those rows are redrawn (the dialog's tinted copy of the board too: tint.QuickTint),
not the board.
"""

from __future__ import annotations

import re

from helpers import settle
from screen_text import TerminalMirror, screen_lines
from terminal import terminal  # noqa: F401  (fixture)

SIZE = (160, 48)          # node-3's card is beside the dialog, not under it


def header_time(lines: list[str]) -> str:
    return re.search(r"T\+\d\d:\d\d:\d\d", lines[0]).group(0)


def countdowns(lines: list[str]) -> list[str]:
    return re.findall(r"quick-evict +(\d+:\d\d)/30s", "\n".join(lines))


async def test_the_clock_and_a_countdown_move_behind_a_dialog_and_nothing_else_is_redrawn(
        session, make):
    from ksandbox.tui.screens.main import MainScreen
    from ksandbox.tui.tint import TintedStrips

    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(10)
        app.submit("ksandbox fail node node-3", quiet=True)
        app.advance(70)                       # node-3 unreachable: quick-evict's 30 s run
        await settle(pilot)
        board = app.screen
        await pilot.press("t")
        await settle(pilot)
        dialog = app.screen
        assert "Taint node" in "\n".join(screen_lines(app))
        caught_up = []
        real = MainScreen.refresh_view
        board.refresh_view = lambda changes: caught_up.append(changes)  # type: ignore[method-assign]
        asked = []
        rows_of = dialog._changed_rows
        dialog._changed_rows = lambda: asked.append(rows_of()) or asked[-1]
        mirror = TerminalMirror(app)
        first = mirror.lines()
        assert header_time(first) == "T+00:01:20" and countdowns(first), first
        app.advance(1)
        await settle(pilot)
        second = mirror.lines()
        assert header_time(second) == "T+00:01:21", second[0]
        [was], [now] = countdowns(first), countdowns(second)
        assert int(now.split(":")[1]) == int(was.split(":")[1]) - 1, (was, now)
        changed = [y for y, (a, b) in enumerate(zip(first, second)) if a != b]
        # The header and the countdown rows (quick-evict's, a web pod's 300 s), no other.
        assert changed[0] == 0 and len(changed) > 1, changed
        assert all("◷" in second[y] for y in changed[1:]), [second[y] for y in changed]
        assert second == screen_lines(app)    # what the terminal got is the screen
        assert caught_up == []                # the board beneath caught up on nothing
        # The dialog redrew only those rows of its tinted copy of the board, and the copy is
        # what a whole drawing gives, segment for segment.
        # (Those rows: the header's and those of the one card with countdowns, redrawn whole.)
        card = {y for y, line in enumerate(second) if "node-3" in line or "◷" in line}
        card = set(range(min(card), max(card) + 2))
        assert asked and all(rows is not None and rows <= {0} | card for rows in asked), \
            (asked, card)
        kept = dialog._tint_drawn[1]
        width, height = app.size
        whole = TintedStrips(board, dialog.styles.background).render_strips(
            width, height, dialog.visual_style, None)
        assert [list(s) for s in kept] == [list(s) for s in whole]
        board.refresh_view = real.__get__(board)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is board
        assert mirror.lines() == screen_lines(app)


def test_the_clock_moves_behind_the_taint_dialog_in_the_terminal(terminal):  # noqa: F811
    for size in ((80, 24), (160, 48)):
        term = terminal(["sample_clusters/default.yaml"], *size)
        term.wait_for(r"nodes\[5\]")
        term.keys("t")
        screen = term.wait_for(r"Taint node control-plane")
        shown = header_time(screen.splitlines())
        screen = term.wait_until(lambda s: header_time(s.splitlines()) != shown)
        assert "Taint node control-plane" in screen, screen      # still open
        term.close()


async def test_the_header_is_redrawn_when_its_text_changes_not_every_tick(session, make):
    """Its time is compared by the whole second it shows (HeaderState): ticks of 0.25 s
    redraw it once a second, and what it shows is what a fresh header would show."""
    from ksandbox.tui.widgets.header import ClusterHeader, sim_time_text

    app = make(session)
    async with app.run_test(size=(120, 36)) as pilot:
        app.advance(30.5)                  # every pod started: only the time moves now
        await settle(pilot)
        header = app.screen.query_one(ClusterHeader)
        drawn = []
        real = header.render
        header.render = lambda: drawn.append(app.session.now) or real()  # type: ignore[method-assign]
        start = app.session.now
        for _ in range(12):
            app.advance(0.25)
            await settle(pilot)
            assert header_time(screen_lines(app)) == sim_time_text(app.session.now)
        assert len(drawn) == int(app.session.now) - int(start), drawn
