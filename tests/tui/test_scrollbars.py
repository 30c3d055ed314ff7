"""Our lists' scrollbars are repainted when their range or window changes, not at every layout
(widgets/line_api.py ScrollbarsFollowTheirRange; issue 11: Textual's ScrollView repainted
every scrollbar of the screen at each layout, 1.5–4.5 ms of opening or closing the `:` bar at
1,000 nodes).

What a person sees must not change: through a seeded run that grows and shrinks the lists
(events arriving, a Deployment scaled up and down, filters, scrolling, the bar opened and
closed, a resize), the terminal as written — every cell with its colours — equals the screen
drawn again from every widget and every scrollbar.
"""

from __future__ import annotations

import random

from helpers import command, settle
from screen_text import TerminalMirror
from textual.scrollbar import ScrollBar
from textual.widgets import Input

from ksandbox.tui.screens.resources import ResourceScreen


def _scrollbars(app) -> list[ScrollBar]:
    bars = []
    for widget in app.screen.walk_children():
        if widget.is_scrollable:
            if widget.show_vertical_scrollbar:
                bars.append(widget.vertical_scrollbar)
            if widget.show_horizontal_scrollbar:
                bars.append(widget.horizontal_scrollbar)
    return bars


def _ranges_agree(app, what: str) -> None:
    """Each scrollbar's range, window and position are its list's (as Textual sets them)."""
    for widget in app.screen.walk_children():
        if not widget.is_scrollable:
            continue
        width, height = widget.container_size
        if widget.show_vertical_scrollbar:
            bar = widget.vertical_scrollbar
            assert (bar.window_virtual_size, bar.window_size, bar.position) == (
                widget.virtual_size.height, height - widget.scrollbar_size_horizontal,
                bar.validate_position(widget.scroll_y)), (what, widget)
        if widget.show_horizontal_scrollbar:
            bar = widget.horizontal_scrollbar
            assert (bar.window_virtual_size, bar.window_size, bar.position) == (
                widget.virtual_size.width, width - widget.scrollbar_size_vertical,
                bar.validate_position(widget.scroll_x)), (what, widget)


async def _shown_as_drawn_whole(app, pilot, mirror, what: str) -> None:
    await settle(pilot)
    _ranges_agree(app, what)
    seen = mirror.looks()
    for widget in [*app.screen.walk_children(with_self=True), *_scrollbars(app)]:
        widget.refresh()
    await settle(pilot)
    assert mirror.looks() == seen, f"a stale cell on the terminal after {what}"


class Renders:
    """ScrollBar.render calls (a scrollbar repainted)."""

    def __init__(self, monkeypatch) -> None:
        self.count = 0
        real = ScrollBar.render

        def render(bar):
            self.count += 1
            return real(bar)

        monkeypatch.setattr(ScrollBar, "render", render)


async def test_opening_and_closing_the_bar_repaints_no_scrollbar(session, make, monkeypatch):
    app = make(session)
    async with app.run_test(size=(100, 24)) as pilot:
        app.advance(120)  # events enough for the log's scrollbar
        await settle(pilot)
        await command(pilot, "po")
        app.submit("kubectl scale deployment/web --replicas=40", quiet=True)
        app.advance(5)
        await settle(pilot)
        assert len(_scrollbars(app)) >= 1
        renders = Renders(monkeypatch)
        for keys in (("colon",), ("escape",), ("slash",), ("escape",)):
            await pilot.press(*keys)
            await settle(pilot)
        assert renders.count == 0
        await pilot.press("escape")  # the board: the event log's and the board's bars
        await settle(pilot)
        assert _scrollbars(app)
        renders.count = 0
        for keys in (("colon",), ("escape",)):
            await pilot.press(*keys)
            await settle(pilot)
        assert renders.count == 0


async def test_the_scrollbars_show_what_a_whole_repaint_shows(session, make):
    app = make(session)
    rng = random.Random(3)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for field in app.screen.query(Input):
            field.cursor_blink = False
        mirror = TerminalMirror(app)
        app.screen.refresh()  # every cell of the mirror gets its colours
        await _shown_as_drawn_whole(app, pilot, mirror, "the start")
        for i in range(12):
            app.advance(rng.choice([5, 20, 60]))
            await _shown_as_drawn_whole(app, pilot, mirror, f"events arriving ({i})")
        await pilot.press("colon", "escape")
        await _shown_as_drawn_whole(app, pilot, mirror, "the bar on the board")
        await command(pilot, "po")
        assert isinstance(app.screen, ResourceScreen)
        for field in app.screen.query(Input):
            field.cursor_blink = False
        await _shown_as_drawn_whole(app, pilot, mirror, ":po")
        for i in range(40):
            pick = rng.randrange(6)
            if pick == 0:
                n = rng.choice([2, 10, 30, 60, 90])
                app.submit(f"kubectl scale deployment/web --replicas={n}", quiet=True)
                app.advance(rng.choice([1, 5, 20]))
                what = f"web scaled to {n}"
            elif pick == 1:
                key = rng.choice(["pagedown", "pageup", "G", "g", "down"])
                await pilot.press(key)
                what = key
            elif pick == 2:
                text = rng.choice(["web", "web-1", "kube", "zzz", ""])
                await pilot.press("slash", "ctrl+u", *text, "enter")
                what = f"the filter {text!r}"
            elif pick == 3:
                await pilot.press(rng.choice(["colon", "slash"]), "escape")
                what = "the bar opened and closed"
            elif pick == 4:
                await pilot.press("ctrl+w")
                what = "wide columns"
            else:
                app.advance(rng.choice([1, 30]))
                what = "the clock"
            await _shown_as_drawn_whole(app, pilot, mirror, f"{what} (step {i})")
        await pilot.press("escape", "escape")
        await _shown_as_drawn_whole(app, pilot, mirror, "back to the board")
        await pilot.resize_terminal(90, 26)
        mirror.clear(90, 26)
        app.screen.refresh()
        await _shown_as_drawn_whole(app, pilot, mirror, "a resize")
        app.advance(60)
        await _shown_as_drawn_whole(app, pilot, mirror, "events after the resize")
