"""Every key in every view, and the app is still running (DESIGN.md: nothing crashes, ever).

Keys are sent straight to the driver (no per-key idle wait, which would cost ~50 ms a key),
and after each one the view is restored if the key opened something else, so each key really
is tried in each view. Quit keys are left out; `q` too (`:` then `q` then enter would quit,
which is a feature).
"""

from __future__ import annotations

import asyncio
import string

from helpers import settle
from textual import events

from ksandbox.tui.screens.explain import ExplainScreen
from ksandbox.tui.screens.help import HelpScreen
from ksandbox.tui.screens.resources import ResourceScreen
from ksandbox.tui.screens.text import TextScreen
from ksandbox.tui.widgets.command_bar import CommandBar

PRINTABLE = [c for c in string.ascii_letters + string.digits + "<>.,:/?!-=+_*[](){}'\"@#$%^&|~;`"
             if c != "q"]
SPECIAL = ["enter", "escape", "tab", "shift+tab", "space", "up", "down", "left", "right",
           "pageup", "pagedown", "home", "end", "backspace", "delete", "ctrl+d", "ctrl+f",
           "ctrl+b", "ctrl+u", "ctrl+r", "ctrl+w", "ctrl+e", "ctrl+a", "ctrl+z", "ctrl+p",
           "ctrl+backslash", "f1", "shift+up", "shift+down"]
KEYS = PRINTABLE + SPECIAL


def key_event(key: str) -> events.Key:
    names = {"<": "less_than_sign", ">": "greater_than_sign", ".": "full_stop", ":": "colon",
             "/": "slash", "?": "question_mark", " ": "space"}
    if len(key) == 1:
        name = names.get(key, key) if not key.isalnum() else key
        if not key.isalnum() and key not in names:
            from textual.keys import _character_to_key

            name = _character_to_key(key)
        return events.Key(name, key)
    return events.Key(key, " " if key == "space" else None)


async def spin(seconds: float = 0.002) -> None:
    """Let the app's message pumps run without Pilot's idle detection (slow on a busy box)."""
    for _ in range(6):
        await asyncio.sleep(0)
    await asyncio.sleep(seconds)


async def open_view(pilot, app, name: str):
    app.go_board()
    await spin(0.02)
    main = app.screen
    if name == "board":
        main.board.focus()
    elif name == "pending":
        main.pending.focus()
    elif name == "events":
        main.events.focus()
    elif name.startswith(":"):
        app.run_command_line(name[1:])
    elif name == "explain":
        app.open_explain("default", "gpu-pod")
    elif name == "describe":
        app.show_output("kubectl describe node node-1", title="describe")
    elif name == "help":
        app.push_screen(HelpScreen(main))
    await spin(0.05)
    return app.screen, app.focused


async def restore(app, screen, focused) -> None:
    """Put the view back as it was before the key (close dialogs, the bar, new screens)."""
    while app.screen is not screen and len(app.screen_stack) > 2 and screen in app.screen_stack:
        app.pop_screen()
        await asyncio.sleep(0)
    for bar in app.screen.query(CommandBar):
        if bar.is_open:
            bar.close(cancelled=True)
    if focused is not None and app.focused is not focused and focused.is_attached:
        focused.focus()


VIEWS = ["board", "pending", "events", ":no", ":po", ":deploy", ":ds", ":rs", ":ev", ":hpa",
         "explain", "describe", "help"]


async def test_every_key_in_every_view_leaves_the_app_running(session, make, tmp_path,
                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)  # R starts and stops recordings; ctrl+s saves screenshots
    app = make(session)
    async with app.run_test(size=(80, 24)) as pilot:
        app.advance(20)
        for view in VIEWS:
            screen, focused = await open_view(pilot, app, view)
            assert isinstance(screen, (ResourceScreen, ExplainScreen, TextScreen, HelpScreen)) \
                or view in ("board", "pending", "events"), view
            for key in KEYS:
                app._driver.send_message(key_event(key))
                await spin()
                assert app.is_running and app._exception is None, (view, key)
                if screen in app.screen_stack:
                    await restore(app, screen, focused)
                else:  # the key closed the view itself (esc on a list): open it again
                    screen, focused = await open_view(pilot, app, view)
            await spin(0.02)
            assert app.is_running and app._exception is None, view
        app.advance(400)  # and the clock still runs over whatever the keys did
        await settle(pilot)
        assert app.is_running and app._exception is None
