"""A pushed screen is not laid out again by its own Resize (tui/screen_layout.py).

Textual (textual/screen.py ``_on_screen_resume``, ``_on_resize``, ``_screen_resized``) lays a
pushed screen out on resume, again on the Resize that layout posts to the screen itself, and
restyles it when that Resize gives it its width breakpoint class. LayoutOnce sets the class as
the screen composes and skips a Resize at the size already laid out. What is checked:
- every screen class of ksandbox.tui mixes it in;
- a dialog and a pushed view are laid out without the Resize's layout, carry their breakpoint
  class before their first layout, and look exactly as with Textual's three layouts
  (SVG export);
- a real resize still lays out the dialog and, once it closes, the board beneath, at the new
  size and with the new breakpoint class.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from helpers import settle
from textual.screen import Screen
from textual.widgets import Input

import ksandbox.tui
from ksandbox.tui.screen_layout import LayoutOnce

BREAKPOINTS = ("-narrow", "-wide", "-xwide")


def test_every_screen_of_ours_mixes_in_layout_once():
    found = []
    for info in pkgutil.walk_packages(ksandbox.tui.__path__, "ksandbox.tui."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Screen) and cls.__module__ == info.name:
                found.append(cls)
                assert issubclass(cls, LayoutOnce), cls
                # Before Textual's classes: its methods must run first.
                mro = cls.__mro__
                assert mro.index(LayoutOnce) < mro.index(Screen), cls
    assert {c.__name__ for c in found} >= {"MainScreen", "ResourceScreen", "CommandDialog",
                                           "HelpScreen", "EditScreen"}


class Layouts:
    """Full layouts per screen, and the breakpoint classes each had at its first."""

    def __init__(self, monkeypatch):
        self.count: dict[str, int] = {}
        self.classes_at_first: dict[str, set[str]] = {}
        self.from_resize: dict[str, int] = {}
        """Full layouts made by a Resize (``_screen_resized``), per screen."""
        self._in_resize = False
        real_layout = Screen._refresh_layout
        real_resized = Screen._screen_resized
        me = self

        def layout(screen, size=None, scroll=False):
            if not scroll:
                name = type(screen).__name__
                me.count[name] = me.count.get(name, 0) + 1
                if me._in_resize:
                    me.from_resize[name] = me.from_resize.get(name, 0) + 1
                me.classes_at_first.setdefault(
                    name, {c for c in screen.classes if c in BREAKPOINTS})
            return real_layout(screen, size, scroll)

        def resized(screen, size):
            me._in_resize = True
            try:
                return real_resized(screen, size)
            finally:
                me._in_resize = False

        monkeypatch.setattr(Screen, "_refresh_layout", layout)
        monkeypatch.setattr(Screen, "_screen_resized", resized)


async def push(pilot, key):
    if key == "colon-po":
        await pilot.press("colon", "p", "o", "enter")
    else:
        await pilot.press(key)
    await settle(pilot, 3)


@pytest.mark.parametrize("width", [100, 140])
@pytest.mark.parametrize("key,name", [("t", "TaintDialog"), ("question_mark", "HelpScreen"),
                                      ("colon-po", "ResourceScreen")])
async def test_a_pushed_screen_skips_the_resize_layout_and_starts_at_its_breakpoint(
        session, make, monkeypatch, key, name, width):
    resized = {}
    for textuals in (True, False):
        with monkeypatch.context() as patch:
            if textuals:
                patch.setattr(LayoutOnce, "_screen_resized",
                              lambda self, size: Screen._screen_resized(self, size))
            app = make(session)
            async with app.run_test(size=(width, 36)) as pilot:
                await settle(pilot)
                layouts = Layouts(patch)
                await push(pilot, key)
                screen = app.screen
                assert type(screen).__name__ == name
                resized[textuals] = layouts.from_resize.get(name, 0)
                if textuals:
                    continue
                points = screen.HORIZONTAL_BREAKPOINTS or app.HORIZONTAL_BREAKPOINTS or []
                expected = screen._get_breakpoint_classes(width, points)  # Textual's rule
                # The Resize reached Textual's _screen_resized for no screen: neither the
                # new one (laid out at this size on resume) nor the board beneath.
                assert layouts.from_resize == {}
                if key != "colon-po":       # (the `:` bar itself lays the board out)
                    assert layouts.count.get("MainScreen", 0) == 0
                assert layouts.classes_at_first[name] == expected
                assert {c for c in screen.classes if c in BREAKPOINTS} == expected
    # Textual's own handling does lay the new screen out again on that Resize.
    assert resized == {True: 1, False: 0}


@pytest.mark.parametrize("key", ["t", "question_mark", "ctrl+p", "colon-po"])
async def test_the_screen_looks_as_with_textuals_layouts(session, make, monkeypatch, key):
    """The same screen with Textual's own Resize handling and breakpoint update."""
    shots = []
    for textuals in (True, False):
        # A context of its own: monkeypatch.undo() would also undo the autouse fixture's
        # XDG_CONFIG_HOME, and the second app would read the user's own config (its theme).
        with monkeypatch.context() as patch:
            if textuals:
                patch.setattr(LayoutOnce, "_screen_resized",
                              lambda self, size: Screen._screen_resized(self, size))
                patch.setattr(LayoutOnce, "_start_at_breakpoint", lambda self: None)
            app = make(session)
            async with app.run_test(size=(120, 36)) as pilot:
                await settle(pilot)
                await push(pilot, key)
                # the command palette's input cursor blinks on a timer: on a loaded machine the
                # two shots caught it in different phases. A steady cursor in both.
                for field in app.screen.query(Input):
                    field.cursor_blink = False
                await settle(pilot)
                shots.append((type(app.screen).__name__, app.export_screenshot()))
    assert shots[0] == shots[1]


async def test_a_real_resize_lays_out_the_dialog_and_then_the_board(session, make):
    app = make(session)
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        board = app.screen
        await pilot.press("t")
        await settle(pilot)
        dialog = app.screen
        await pilot.resize_terminal(100, 30)
        await settle(pilot, 3)
        assert dialog.size == (100, 30)
        assert {c for c in board.classes if c in BREAKPOINTS} == {"-narrow"}
        await pilot.press("escape")
        await settle(pilot, 3)
        assert app.screen is board and board.size == (100, 30)
        assert {c for c in board.classes if c in BREAKPOINTS} == {"-narrow"}
        lines = [s.text for s in board._compositor.render_strips()]
        assert len(lines) == 30 and lines[-1].lstrip().startswith("⏎ Pods")
        assert all(len(line) == 100 for line in lines)


def _styles(screen) -> list:
    """Every widget's computed styles (the rules the stylesheet gave it) and colours."""
    return [(node, node.styles.base.get_rules(), node.rich_style)
            for node in screen.walk_children(with_self=True)]


@pytest.mark.parametrize("key", ["t", "colon-po"])
@pytest.mark.parametrize("between", ["nothing", "theme", "resize"])
async def test_a_kept_screen_pushed_again_is_restyled_only_when_its_styles_inputs_changed(
        session, make, monkeypatch, key, between):
    """The taint dialog and the pod list are kept between uses. Pushed first, or again with
    nothing their styles follow from changed, Textual's restyle of every widget is skipped;
    after a theme change while they were closed, it is not. Either way, and after a resize,
    every widget's styles are those a restyle of the whole screen gives."""
    from textual.dom import DOMNode

    restyled: list = []
    original = DOMNode.update_node_styles

    def update_node_styles(self, animate=True):
        if isinstance(self, Screen):
            restyled.append(self)
        return original(self, animate)

    monkeypatch.setattr(DOMNode, "update_node_styles", update_node_styles)
    app = make(session)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await push(pilot, key)
        kept = app.screen
        assert kept not in restyled          # the first push: styled as composed, not again
        await _assert_styled_as_by_a_restyle(pilot, kept)
        await pilot.press("escape")
        await settle(pilot, 3)
        if between == "theme":
            app.theme = "textual-light"
        elif between == "resize":
            await pilot.resize_terminal(100, 30)         # another breakpoint class
        await settle(pilot, 3)
        restyled.clear()
        await push(pilot, key)
        assert app.screen is kept
        if between != "resize":  # (a new width restyles it only through a new breakpoint class)
            assert (kept in restyled) == (between == "theme")
        await _assert_styled_as_by_a_restyle(pilot, kept)


async def _assert_styled_as_by_a_restyle(pilot, screen) -> None:
    styles = _styles(screen)
    screen.update_node_styles(animate=False)
    await settle(pilot)
    assert _styles(screen) == styles


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (160, 48), (300, 80)])
@pytest.mark.parametrize("theme", ["ksandbox-dark", "ksandbox-light", "textual-light"])
async def test_the_boards_first_push_is_styled_once_as_a_restyle_would(
        session, make, monkeypatch, size, theme):
    """The board (the first frame of every start) is not restyled whole on its first push:
    at each breakpoint and theme, its widgets' styles are those a restyle of the screen
    gives, the focused board's included."""
    from textual.dom import DOMNode

    from ksandbox.tui.config import UserConfig
    from ksandbox.tui.screens.main import MainScreen

    restyled: list = []
    real = DOMNode.update_node_styles

    def update_node_styles(self, animate=True):
        if isinstance(self, Screen):
            restyled.append(self)
        return real(self, animate)

    monkeypatch.setattr(DOMNode, "update_node_styles", update_node_styles)
    app = make(session, config=UserConfig(theme=theme))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        board = app.screen
        assert isinstance(board, MainScreen) and app.theme == theme
        assert board.focused is board.board
        # Only the breakpoint class, as the screen composed, restyled it whole.
        assert restyled.count(board) == 1
        await _assert_styled_as_by_a_restyle(pilot, board)


async def test_the_boards_first_frame_is_drawn_once(session, make, monkeypatch):
    """The board's first frame is written once before the app's start-up housekeeping
    (``_after_first_frame``): Textual's update timer laid it all out and drew it whole twice
    more, for requests the first frame's layout had already met. What the terminal shows
    (every update written, applied in order) is what the widgets render afresh."""
    from screen_text import TerminalMirror, screen_lines
    from textual.app import App

    import ksandbox.tui.app as tui_app

    app = make(session)
    app.freeze_heap_after_first_frame = True
    written: list = []
    real = App._display

    def display(self, screen, renderable):
        if renderable is not None:
            written.append(renderable)
        return real(self, screen, renderable)

    monkeypatch.setattr(App, "_display", display)
    seen: dict = {}
    monkeypatch.setattr(tui_app, "_after_first_frame",
                        lambda a: seen.setdefault("before", [type(r).__name__ for r in written]))
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, 3)
        assert seen["before"] == ["LayoutUpdate"], seen
        terminal = TerminalMirror.__new__(TerminalMirror)
        terminal.app = app
        terminal.clear(140, 40)
        for renderable in written:
            terminal._apply(renderable)
        assert terminal.lines() == screen_lines(app)


async def test_no_whole_frame_follows_the_first_while_nothing_changes(session, make, monkeypatch):
    """After the board's first frame nothing is drawn whole again while nothing changes:
    Textual's default screen beneath the board, laid out again for the start's resize,
    handed its dirty regions to the board, and the board was redrawn whole ~0.08 s after its
    first frame (a LayoutUpdate of the whole terminal: CPU a first key waited for). The
    default screen keeps them while the board covers it (the board is never popped). What
    the terminal shows is what the widgets render, before and after a real resize."""
    from screen_text import TerminalMirror, screen_lines
    from textual.app import App

    from ksandbox.tui.screens.base import DefaultScreen

    app = make(session)
    app.freeze_heap_after_first_frame = True
    written: list = []
    real = App._display

    def display(self, screen, renderable):
        if renderable is not None:
            written.append((screen, renderable))
        return real(self, screen, renderable)

    monkeypatch.setattr(App, "_display", display)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, 6)
        kinds = [type(r).__name__ for _, r in written]
        assert kinds[0] == "LayoutUpdate" and "LayoutUpdate" not in kinds[1:], kinds
        default = app.screen_stack[0]
        assert isinstance(default, DefaultScreen) and default.id == "_default"
        terminal = TerminalMirror.__new__(TerminalMirror)
        terminal.app = app
        terminal.clear(140, 40)
        for _, renderable in written:
            terminal._apply(renderable)
        assert terminal.lines() == screen_lines(app)
        await pilot.resize_terminal(120, 36)      # a real resize lays the board out again
        await settle(pilot, 6)
        terminal.clear(120, 36)
        for _, renderable in written:
            terminal._apply(renderable)
        assert terminal.lines() == screen_lines(app)
