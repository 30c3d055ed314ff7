"""The crash guards, one by one, in process (issue 14; the tmux stress test drives the binary).

- A key whose action raises: an error notification that asks for a report, the state kept,
  the app still answering keys.
- A key for a screen that has not mounted yet waits for it (Enter then x on the board).
- A dialog confirmed twice, or confirmed then cancelled, in one burst: dismissed once, the
  screens below untouched (it used to raise ScreenStackError or pop the board).
- The palette's page keys before its list is laid out (Textual's OptionList._move_page
  KeyError: 0) do nothing.
- A second close already queued for a screen that the first took off the stack (the palette's
  list selected twice, a late Escape or dismiss of a list, help, edit or branch screen) does
  nothing: Textual's dismiss pops whatever is on top, and it popped the board, leaving the
  blank default screen that takes no key (the stress test's "freeze"). The board itself is
  never popped.
- A failure of the app itself: the session so far is written as a recording in the working
  directory, and run_tui's message says where.
- A toast whose notification expired before it was built (a negative wait): Textual's timer
  spun forever and froze the app; every timer now waits at least a millisecond.
"""

from __future__ import annotations

from helpers import settle, type_text

from ksandbox.recording.script import load_script
from ksandbox.tui.app import crash_message
from ksandbox.tui.guard import GuardedCommandPalette

SIZE = (140, 40)


async def test_an_action_that_raises_is_reported_and_the_app_goes_on(session, make, monkeypatch):
    from ksandbox.tui.screens.main import MainScreen

    def broken(self):
        raise RuntimeError("boom")

    monkeypatch.setattr(MainScreen, "action_cordon", broken)
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert [str(e) for e in app.bug_reports] == ["boom"]
        assert any("please report" in n.message for n in app._notifications)
        assert app.is_running
        await pilot.press("x")                         # the next key still works
        await settle(pilot)
        assert app.session.history[-1].command.startswith("ksandbox fail node ")
        app.bug_reports.clear()


async def test_a_node_key_right_after_enter_waits_for_the_pod_list(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter", "x", "c")
        await settle(pilot, 4)
        assert app.bug_reports == []
        assert type(app.screen).__name__ == "ResourceScreen"
        # The pod list has no node to act on: it says so instead of raising.
        assert any("That key acts on a node" in n.message for n in app._notifications)
        assert not any(s.command.startswith(("ksandbox fail", "kubectl cordon"))
                       for s in app.session.history)


async def test_a_dialog_submitted_twice_is_dismissed_once(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        stack = len(app.screen_stack)
        await pilot.press("t")
        await settle(pilot)
        dialog = app.screen
        await type_text(pilot, "a=b")
        for key in ("enter", "enter", "escape", "escape"):
            await pilot.press(key)
        await settle(pilot, 4)
        assert app.bug_reports == []
        assert len(app.screen_stack) == stack          # the board is still there
        taints = [s.command for s in app.session.history if "taint" in s.command]
        assert len(taints) == 1
        dialog.finish("kubectl cordon node-1")         # a late submit: ignored
        await settle(pilot)
        assert len(app.screen_stack) == stack
        assert not any("cordon" in s.command for s in app.session.history)


async def test_the_palette_page_keys_before_layout_do_nothing(session, make):
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.action_command_palette()
        palette = app.screen_stack[-1]
        assert isinstance(palette, GuardedCommandPalette)
        await pilot.press("pagedown", "pageup", "pagedown")
        await settle(pilot, 3)
        assert app.bug_reports == []
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, GuardedCommandPalette)


async def test_the_palette_selected_twice_runs_once_and_keeps_the_board(session, make):
    from textual.widgets import OptionList

    from ksandbox.tui.screens.main import MainScreen

    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.pacer.paused = True
        app.action_command_palette()
        await settle(pilot, 3)
        palette = app.screen
        assert isinstance(palette, GuardedCommandPalette)
        await pilot.press(*"pause")
        await settle(pilot, 3)
        options = palette.query_one(OptionList)
        assert options.option_count >= 1
        # Two selections queued before the first is handled (Enter Enter in one burst).
        for _ in range(2):
            palette.post_message(OptionList.OptionSelected(options, options.get_option_at_index(0), 0))
        await settle(pilot, 4)
        assert app.bug_reports == []
        assert isinstance(app.screen, MainScreen)      # not Textual's blank default screen
        assert len(app.screen_stack) == 2
        assert app.pacer.paused is False               # "pause / resume" ran once, not twice


async def test_a_late_close_of_any_screen_keeps_the_one_below(session, make):
    from ksandbox.tui.screens.main import MainScreen

    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in ("question_mark", "W", "colon"):
            before = list(app.screen_stack)
            if key == "colon":
                app.open_view("Pod")
            else:
                await pilot.press(key)
            await settle(pilot, 3)
            top = app.screen
            assert top not in before
            top.dismiss(None)
            top.dismiss(None)                          # the late one: nothing
            await settle(pilot, 3)
            assert app.screen_stack == before, key
        assert app.bug_reports == []
        # Nothing pops the board: refused and reported (a caller's bug), the board stays.
        app.pop_screen()
        await settle(pilot)
        assert isinstance(app.screen, MainScreen)
        assert [type(e).__name__ for e in app.bug_reports] == ["ScreenStackError"]
        app.bug_reports.clear()


async def test_a_failure_of_the_app_saves_the_session(session, make, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")                         # something to replay
        await settle(pilot)
        app._handle_exception(RuntimeError("the app itself"))
        await settle(pilot)
        app._exception = None  # handled here: run_test must not re-raise it
    error, saved = app.crash
    assert str(error) == "the app itself"
    assert saved == tmp_path / "ksandbox-crash-1.yaml"
    steps = load_script(saved).steps
    assert [s.command for s in steps] == [s.command for s in session.history]
    text = crash_message(error, saved)
    assert text.startswith("error: the TUI stopped on an internal error (RuntimeError: the "
                           "app itself)") and text.count("\n") == 1
    assert f"saved in {saved}" in text and "please report" in text and "--debug" in text


def test_the_crash_message_without_a_saved_session():
    text = crash_message(KeyError(0), None)
    assert "KeyError: 0" in text and "could not be saved" in text and text.count("\n") == 1


def test_every_screen_class_is_dismissed_once():
    """A new screen class that forgets DismissOnce brings the blank-screen freeze back."""
    import importlib
    import inspect
    import pkgutil

    from textual.screen import Screen

    import ksandbox.tui
    from ksandbox.tui.guard import DismissOnce

    screens = set()
    for mod in pkgutil.walk_packages(ksandbox.tui.__path__, "ksandbox.tui."):
        module = importlib.import_module(mod.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, Screen) and cls.__module__.startswith("ksandbox."):
                screens.add(cls)
    assert len(screens) >= 10
    assert sorted(c.__name__ for c in screens if not issubclass(c, DismissOnce)) == []


# A toast for a notification that expired between Textual's expiry check and the toast's
# construction waits a negative time; Textual's timer then spins without yielding and the app
# freezes at 100 % CPU (the stress test's freeze: a fork dialog on show, the clock stuck). Run
# in a process of its own: without the guard it never ends, and the deadline fails the test.
_EXPIRED_TOAST = """
import time
from textual.app import App
from textual.notifications import Notification
from textual.widgets._toast import Toast
from ksandbox.tui.app import KsandboxApp
from ksandbox.session import Session

KsandboxApp(Session(), ticking=False)  # making the app installs its guards

class Probe(App):
    def on_mount(self):
        late = Notification("late", timeout=1.0)
        late.raised_at = time.time() - 1.001  # expired: time_left < 0, as in the race
        self.mount(Toast(late))
        self.set_timer(-0.001, lambda: self.exit("answered"))  # any negative wait too

print(Probe().run(headless=True))
"""


def test_a_timer_with_a_negative_wait_fires_and_the_app_goes_on():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _EXPIRED_TOAST], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "answered"
