"""A dialog's dimmed background: the memoised tint (tui/tint.py) gives Textual's segments and lines.

Textual's ``BackgroundScreen`` (textual/renderables/background_screen.py) blends the modal
screen's translucent background into each segment of the screen beneath; ours remembers the
blend per style. What a person sees must not change: every segment, its text and its style,
equals Textual's — for the board under each kind of modal screen, in a dark and a light theme.
"""

from __future__ import annotations

import pytest
from helpers import settle
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import ModalScreen

from ksandbox.tui import tint

SIZE = (120, 36)


def segments(app, renderable):
    console = app.console
    return list(console.render(renderable, console.options.update_dimensions(*SIZE)))


@pytest.mark.parametrize("theme", ["ksandbox-dark", "textual-light"])
@pytest.mark.parametrize("key", ["t", "question_mark", "ctrl+p"])
async def test_the_dialog_background_is_textuals_tint_segment_for_segment(session, make, key,
                                                                          theme):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.theme = theme
        await settle(pilot)
        await pilot.press(key)
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ModalScreen) and isinstance(dialog, tint.QuickTint)
        beneath = app.screen_stack[-2]
        color = dialog.styles.background
        assert 0 < color.a < 1  # translucent: the board shows through, dimmed
        tint._memos.clear()
        theirs = segments(app, BackgroundScreen(beneath, color))
        ours = segments(app, tint.MemoBackgroundScreen(beneath, color))
        again = segments(app, tint.MemoBackgroundScreen(beneath, color))  # from the memo
        assert len(theirs) > 500
        assert ours == theirs
        assert again == theirs
        assert [s.style for s in again] == [s.style for s in theirs]
        # What the dialog draws: our strips against Textual's RichVisual of its
        # BackgroundScreen, through the same Visual.to_strips the widget uses.
        from textual._context import active_app, visible_screen_stack
        from textual.visual import RichVisual, Visual

        active_app.set(app)
        visible_screen_stack.set([beneath])
        assert isinstance(dialog.render(), tint.TintedStrips)
        width, height = dialog.size
        style = dialog.visual_style
        textual_lines = Visual.to_strips(
            dialog, RichVisual(dialog, BackgroundScreen(beneath, color)), width, height, style)
        for _ in range(2):  # the second time from the memo
            lines = Visual.to_strips(dialog, tint.TintedStrips(beneath, color), width, height,
                                     style)
            assert len(lines) == height == len(textual_lines)
            for mine, theirs_line in zip(lines, textual_lines):
                assert list(mine) == list(theirs_line)
                assert mine.cell_length == theirs_line.cell_length == width


def test_a_full_memo_starts_again():
    from rich.segment import Segment
    from rich.style import Style
    from textual.color import Color

    color = Color(0, 0, 0, 0.5)
    tint._memos.clear()
    styles = [Style(color=f"#{i:06x}", bgcolor="#101010") for i in range(tint.MEMO_LIMIT + 10)]
    for style in styles:
        (mine,) = tint.tint_segments([Segment("x", style)], color)
        (theirs,) = BackgroundScreen.process_segments([Segment("x", style)], color)
        assert mine == theirs
    assert len(tint._memos[color]) <= tint.MEMO_LIMIT


def test_every_modal_screen_of_ours_tints_through_the_memo():
    """A new modal screen that forgets QuickTint pays Textual's per-segment blend."""
    import importlib
    import inspect
    import pkgutil

    import ksandbox.tui

    modal = set()
    for mod in pkgutil.walk_packages(ksandbox.tui.__path__, "ksandbox.tui."):
        module = importlib.import_module(mod.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, ModalScreen) and cls.__module__.startswith("ksandbox."):
                modal.add(cls)
    assert len(modal) >= 5
    assert sorted(c.__name__ for c in modal if not issubclass(c, tint.QuickTint)) == []
