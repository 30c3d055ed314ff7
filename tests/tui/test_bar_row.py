"""The command bar's row (tui/widgets/command_bar.py, view_crumbs.py, focus_look.py).

The row above the footer is always there: closed, it shows the crumbs of the view stack
(k9s: internal/ui/crumbs.go draws the stack of views at the bottom); `:` or `/` puts the
prompt in its place. The body never changes height, and the pane the bar was opened from
keeps its focused look while the bar has the keys, so opening and closing the bar restyles
and repaints none of the panes.
"""

from __future__ import annotations

from helpers import settle

from ksandbox.tui.widgets.command_bar import CommandBar
from ksandbox.tui.widgets.event_log import EventLog
from ksandbox.tui.widgets.node_board import NodeBoard
from ksandbox.tui.widgets.view_crumbs import ViewCrumbs


def _row(app) -> str:
    bar = app.screen.query_one(CommandBar)
    line = app.screen._compositor.render_strips()[bar.region.y]
    return line.text.strip()


async def test_the_row_shows_the_crumbs_then_the_prompt_and_the_body_keeps_its_size(
        session, make):
    app = make(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        board = app.screen.query_one(NodeBoard)
        region = board.region
        assert _row(app) == "board"
        await pilot.press("colon")
        await settle(pilot)
        assert _row(app).startswith(": ") and "board" not in _row(app)
        assert board.region == region
        for key in "po":
            await pilot.press(key)
        await pilot.press("enter")
        await settle(pilot)
        assert _row(app) == "board > pods(all)"
        await pilot.press("enter")                     # into the selected pod: a third crumb
        await settle(pilot)
        crumbs = app.screen.query_one(ViewCrumbs).crumbs
        assert crumbs[:2] == ("board", "pods(all)") and len(crumbs) == 3, crumbs
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert _row(app) == "board" and board.region == region


async def test_the_pane_keeps_its_focused_look_while_the_bar_has_the_keys(session, make):
    app = make(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        board = app.screen.query_one(NodeBoard)
        focused_border = board.styles.border
        await pilot.press("colon")
        await settle(pilot)
        assert not board.has_focus and board.focus_look_kept
        assert board.has_pseudo_class("focus") and board.styles.border == focused_border
        await pilot.press("escape")
        await settle(pilot)
        assert board.has_focus and not board.focus_look_kept
        assert board.styles.border == focused_border

        # From the event log: the bar gives the focus back to the board, and the log looks
        # unfocused again (as Textual draws a pane without the focus).
        events = app.screen.query_one(EventLog)
        await pilot.press("tab", "tab")
        await settle(pilot)
        assert app.screen.focused is events
        focused_log = events.styles.border
        await pilot.press("colon")
        await settle(pilot)
        assert events.has_pseudo_class("focus") and events.styles.border == focused_log
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.focused is board
        assert not events.focus_look_kept and not events.has_pseudo_class("focus")
        assert events.styles.border != focused_log


async def test_enter_keeps_the_filter_typed_without_drawing_the_list_again(session, make):
    """Filter as you type: the filter is in force after the last keystroke, and the Enter
    that keeps it changes no row (the list was drawn again whole for it). The rows, the title
    and the crumbs are those of the filter; escape then clears it."""
    from helpers import command

    app = make(session)
    async with app.run_test(size=(120, 36)) as pilot:
        app.submit("kubectl scale deployment/web --replicas=12", quiet=True)
        app.advance(5)
        await command(pilot, "po")
        table = app.screen.table
        every = table.row_count()
        await pilot.press("slash", *"web-")
        await settle(pilot)
        typed = [table.row_key(i) for i in range(table.row_count())]
        assert 0 < len(typed) < every
        whole = []
        real = table.refresh

        def refresh(*regions, **kwargs):
            if not regions:
                whole.append(kwargs)
            return real(*regions, **kwargs)

        table.refresh = refresh
        await pilot.press("enter")
        await settle(pilot)
        table.refresh = real
        assert whole == []
        assert [table.row_key(i) for i in range(table.row_count())] == typed
        assert app.screen.row_filter.text == "web-"
        assert table.border_title.endswith("</web->") and _row(app) == "board > pods(all)"
        await pilot.press("escape")
        await settle(pilot)
        assert table.row_count() == every and app.screen.row_filter.text == ""
