"""The first frame is the one a running app would show (start-up work moved before it).

The configured theme is on the first frame exactly as if it had been picked live.
The app selects the user's theme before it runs (``KsandboxApp._start_with_theme``: Textual's
documented ``set_reactive`` for a starting theme, so the stylesheet is parsed once, with the
theme's variables, instead of a second time by the theme watcher). This holds what the watcher
used to give: every theme started from the config renders the same colours, classes and
screen as the same theme switched to in a running app.

The board screen carries its width breakpoint class from its first styling
(``LayoutOnce._start_at_breakpoint``, tui/screen_layout.py, so Textual's first Resize does not restyle every widget):
the class is the one Textual's own rule gives for the terminal's width, at every width
and after a resize.
"""

from __future__ import annotations

import pytest

from helpers import settle
from screen_text import screen_text

SIZE = (140, 40)
STYLES = ("node-board--noexecute", "node-board--ready", "node-board--frame")


async def _look(app, pilot) -> tuple:
    await settle(pilot)
    board = app.screen.board
    return (app.theme, app.current_theme.dark, "-dark-mode" in app.classes,
            "-light-mode" in app.classes, f"-theme-{app.theme}" in app.classes,
            tuple(str(board.get_component_rich_style(c)) for c in STYLES),
            str(app.screen.styles.background), str(board.styles.background),
            screen_text(app))


@pytest.mark.parametrize("theme", ["ksandbox-light", "ksandbox-high-contrast", "ksandbox-dark"])
async def test_a_theme_from_the_config_looks_as_when_switched_to_live(session, make,
                                                                      user_config, theme):
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text("theme: textual-dark\n")
    live = make(session)
    async with live.run_test(size=SIZE) as pilot:
        await settle(pilot)
        live.theme = theme
        want = await _look(live, pilot)
    user_config.write_text(f"theme: {theme}\n")
    started = make(session)
    async with started.run_test(size=SIZE) as pilot:
        got = await _look(started, pilot)
    assert got == want
    assert got[0] == theme and got[1] == (theme != "ksandbox-light")


@pytest.mark.parametrize("width,expected", [(80, "-narrow"), (119, "-narrow"), (120, "-wide"),
                                            (179, "-wide"), (180, "-xwide"), (220, "-xwide")])
async def test_the_board_starts_at_the_breakpoint_of_the_terminal_width(session, make, width,
                                                                        expected):
    app = make(session)
    async with app.run_test(size=(width, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        got = {c for c in screen.classes if c in ("-narrow", "-wide", "-xwide")}
        assert got == {expected}
        assert got == screen._get_breakpoint_classes(width, screen.HORIZONTAL_BREAKPOINTS)
        await pilot.resize_terminal(100 if width >= 120 else 200, 40)
        await settle(pilot)
        assert {c for c in screen.classes if c in ("-narrow", "-wide", "-xwide")} == \
            ({"-narrow"} if width >= 120 else {"-xwide"})


async def test_no_frame_is_rendered_inside_a_batch_and_the_one_after_it_is(session, make,
                                                                           monkeypatch):
    """Textual drops any frame rendered while the app batches updates (``App._display``), so
    the screen leaves it for the batch's end (``KsScreen._compositor_refresh``) instead of
    rendering the board for nothing — as it did inside the app's mount batch at start-up.
    The frame is still drawn once the batch ends, at start and at run time."""
    from textual._compositor import Compositor

    app = make(session)
    renders: list[int] = []
    real = Compositor.render_update

    def counting(self, *args, **kwargs):
        renders.append(app._batch_count)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Compositor, "render_update", counting)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # The first frame: rendered after the mount batch, none inside it.
        assert renders and set(renders) == {0}, renders
        assert "nodes[4]" in screen_text(app)          # the tests' cluster
        renders.clear()
        screen = app.screen
        with app.batch_update():
            screen.board.border_title = "after the batch"
            screen._compositor_refresh()         # what Textual's layout refresh calls
            assert renders == [] and app._frame_after_batch is screen
        for _ in range(10):
            await pilot.pause()
            if renders:
                break
        assert renders and set(renders) == {0}
        assert app._frame_after_batch is None and not screen._repaint_required
        assert "after the batch" in screen_text(app)


async def test_the_board_is_styled_focused_from_the_start_and_its_focus_restyles_nothing(
        session, make, monkeypatch):
    """The board gets the focus as the app starts (MainScreen.on_mount). Textual restyles a
    widget when it gains the focus (``:focus``: the board's frame colour), ~5 ms of CPU
    before the first frame at the default sample; the board is composed looking focused
    (KeepsFocusLook), so the focus restyles nothing. It looks as a board given the focus
    live does: tab away and back (each restyles it) ends with the same styles."""
    from ksandbox.tui.widgets.node_board import NodeBoard

    restyled: list[str | None] = []
    real = NodeBoard.update_node_styles

    def counted(self, animate: bool = True) -> None:
        restyled.append(self.id)
        real(self, animate)

    monkeypatch.setattr(NodeBoard, "update_node_styles", counted)
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        board = app.screen.board
        assert app.screen.focused is board and board.has_focus
        assert not board.focus_look_kept and board.has_pseudo_class("focus")
        assert restyled == [], "the start restyled the board"

        def look() -> tuple:
            return (str(board.styles.border), str(board.styles.border_title_color),
                    tuple(str(board.get_component_rich_style(c)) for c in STYLES))

        first = look()
        await pilot.press("tab")
        await settle(pilot)
        assert not board.has_focus and look() != first  # the frame colour follows the focus
        await pilot.press("shift+tab")
        await settle(pilot)
        assert app.screen.focused is board and restyled
        assert look() == first
