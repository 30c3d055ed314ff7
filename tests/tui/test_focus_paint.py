"""A focus change repaints the widgets whose look follows the focus, not the whole screen
(tui/focus_paint.py; issue 11: every focus change rendered every line of the terminal).

What a person sees must not change: after each focus move — tab between the board's panes,
the `:` and `/` bars opening and closing, tab in a dialog — the terminal (every update the app
wrote, applied cell by cell with its colours) shows the focused pane's frame in the focus
colour and the others not, and equals the screen drawn whole again from every widget. And the
move writes no whole frame.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import settle
from screen_text import TerminalMirror
from textual._compositor import Compositor
from textual.color import Color
from textual.screen import Screen
from textual.widgets import Input

import ksandbox.tui
from ksandbox.session import Session

ROOT = Path(__file__).resolve().parents[2]
PANES = ("#board", "#pending", "#events", "#table")


def _focus_colour(app):
    return Color.parse(app.theme_variables["primary"]).rich_color


def _corner(app, widget) -> tuple[int, int]:
    region = app.screen.find_widget(widget).region
    return region.x, region.y


async def _shown_as_drawn_whole(app, pilot, mirror, whole, what: str) -> None:
    """``what`` (keys just pressed) wrote no whole frame, and the terminal after it equals
    the screen with every widget drawn again."""
    await settle(pilot)
    assert whole.count == 0, f"{what} drew the whole screen"
    seen = mirror.looks()
    for widget in app.screen.walk_children(with_self=True):
        widget.refresh()
    await settle(pilot)
    assert mirror.looks() == seen, f"a stale cell on the terminal after {what}"
    whole.count = 0


def _steady_cursors(app) -> None:
    """The inputs' cursors do not blink: a blink between two looks at the terminal is not a
    stale cell."""
    for field in app.screen.query(Input):
        field.cursor_blink = False


def _frames_of_panes(app, mirror):
    """Each pane on screen: whether its frame's corner is drawn in the focus colour."""
    primary = _focus_colour(app)
    out = {}
    for selector in PANES:
        for widget in app.screen.query(selector):
            x, y = _corner(app, widget)
            char, colour = mirror.look(x, y)[:2]
            assert char == "╭", (selector, char)
            out[selector] = colour == primary
    return out


class WholeFrames:
    def __init__(self, monkeypatch) -> None:
        self.count = 0
        real = Compositor.render_full_update

        def full(compositor, *args, **kwargs):
            self.count += 1
            return real(compositor, *args, **kwargs)

        monkeypatch.setattr(Compositor, "render_full_update", full)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_focused_panes_frame_is_drawn_and_nothing_else_is(make, size, monkeypatch):
    s = Session.from_files([ROOT / "sample_clusters/node-failure.yaml"], seed=3)
    s.run_for(30)
    app = make(s)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        _steady_cursors(app)
        mirror = TerminalMirror(app)
        app.screen.refresh()  # one whole frame: every cell of the mirror has its colours
        await settle(pilot)
        whole = WholeFrames(monkeypatch)
        order = []
        for _ in range(3):
            pane = "#" + app.screen.focused.id
            order.append(pane)
            assert _frames_of_panes(app, mirror) == {p: p == pane for p in
                                                     ("#board", "#pending", "#events")}
            await pilot.press("tab")
            await _shown_as_drawn_whole(app, pilot, mirror, whole, f"tab from {pane}")
        assert order == ["#board", "#pending", "#events"]
        assert _frames_of_panes(app, mirror)["#board"]

        # The bar takes the keys, the board keeps its focused look; the cursor is in the bar.
        await pilot.press("colon")
        await _shown_as_drawn_whole(app, pilot, mirror, whole, "`:`")
        assert app.screen.focused.id == "command-input"
        assert _frames_of_panes(app, mirror)["#board"]
        await pilot.press("escape")
        await _shown_as_drawn_whole(app, pilot, mirror, whole, "escape closing the bar")
        assert app.screen.focused.id == "board"
        assert _frames_of_panes(app, mirror) == {"#board": True, "#pending": False,
                                                 "#events": False}
        # Opened from the event log, the bar gives the focus to the board when it closes:
        # the log kept its focused look while the bar was open, and loses it then.
        await pilot.press("shift+tab", "colon")
        await _shown_as_drawn_whole(app, pilot, mirror, whole, "shift+tab :")
        assert _frames_of_panes(app, mirror) == {"#board": False, "#pending": False,
                                                 "#events": True}
        await pilot.press("escape")
        await _shown_as_drawn_whole(app, pilot, mirror, whole, "escape")
        assert _frames_of_panes(app, mirror) == {"#board": True, "#pending": False,
                                                 "#events": False}


async def test_the_filter_bar_and_a_dialog_draw_their_focus(make, monkeypatch):
    s = Session.from_files([ROOT / "sample_clusters/node-failure.yaml"], seed=3)
    s.run_for(30)
    app = make(s)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        mirror = TerminalMirror(app)
        await pilot.press("colon", "p", "o", "enter")
        await settle(pilot)
        _steady_cursors(app)
        assert _frames_of_panes(app, mirror) == {"#table": True}
        whole = WholeFrames(monkeypatch)
        for keys, focused in ((("slash", "w"), "command-input"), (("enter",), "table"),
                              (("slash",), "command-input"), (("escape",), "table")):
            await pilot.press(*keys)
            await _shown_as_drawn_whole(app, pilot, mirror, whole, " ".join(keys))
            assert app.screen.focused.id == focused
            assert _frames_of_panes(app, mirror) == {"#table": True}
        await pilot.press("escape")  # back to the board
        await settle(pilot)
        await pilot.press("t")  # the taint dialog: tab walks its fields
        await settle(pilot)
        assert type(app.screen).__name__ == "TaintDialog"
        _steady_cursors(app)
        seen = set()
        whole.count = 0
        for _ in range(4):
            await pilot.press("tab")
            await _shown_as_drawn_whole(app, pilot, mirror, whole, "tab in the dialog")
            seen.add(type(app.screen.focused).__name__)
        assert len(seen) >= 3, seen


async def test_a_focus_change_keeps_the_boards_cards_and_a_theme_draws_them_again(
        make, monkeypatch):
    """Tab restyles the board for its frame's colour only: its cards (drawn with its colours
    and component styles, which no `:focus` rule changes) are not drawn again, and the
    terminal equals the board with every card drawn afresh. A theme changes the cards'
    colours: every card is drawn again."""
    from ksandbox.tui.widgets.node_board import NodeBoard

    s = Session.from_files([ROOT / "sample_clusters/node-failure.yaml"], seed=3)
    s.run_for(30)
    app = make(s)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        _steady_cursors(app)
        mirror = TerminalMirror(app)
        app.screen.refresh()
        await settle(pilot)
        board = app.screen.query_one(NodeBoard)
        drawn = []
        real = NodeBoard._render_card

        def render_card(self, summary, selected):
            drawn.append(summary)
            return real(self, summary, selected)

        monkeypatch.setattr(NodeBoard, "_render_card", render_card)
        for keys in (("tab",), ("shift+tab",), ("tab", "tab", "tab")):
            await pilot.press(*keys)
            await settle(pilot)
            assert drawn == [], f"{keys} drew the board's cards again"
            seen = mirror.looks()
            board._drop_all()
            board.refresh()
            await settle(pilot)
            assert drawn, "the cards were not drawn afresh"
            assert mirror.looks() == seen, f"a card drawn with stale styles after {keys}"
            drawn.clear()
        assert _frames_of_panes(app, mirror)["#board"]
        frame_style = board.component_style("node-board--frame")
        app.theme = "ksandbox-high-contrast"
        await settle(pilot)
        assert board.component_style("node-board--frame") != frame_style
        assert drawn, "a theme kept the cards drawn in the old colours"


def test_every_screen_of_ours_paints_focus_on_its_widgets():
    import importlib
    import inspect
    import pkgutil

    found = []
    for info in pkgutil.walk_packages(ksandbox.tui.__path__, "ksandbox.tui."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Screen) and cls.__module__ == info.name:
                found.append(cls.__name__)
                assert cls._reactives["focused"]._repaint is False, cls
    assert {"MainScreen", "ResourceScreen", "CommandDialog", "HelpScreen"} <= set(found)
