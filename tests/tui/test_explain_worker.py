"""The explain view computes in a worker thread (issue 11 item 3): the screen says
"computing…" at once, the clock waits while the worker reads the sandbox, and an answer that
is no longer wanted (a newer one was asked for, or the view closed) is never shown."""

from __future__ import annotations

import threading

from helpers import settle
from screen_text import screen_text

from ksandbox.tui.screens import explain as explain_module
from ksandbox.tui.screens.explain import ExplainScreen, Explained

SIZE = (160, 48)


async def _until(pilot, condition, seconds: float = 10.0) -> None:
    """Let the app run (a thread worker starts from the event loop) until ``condition``."""
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await pilot.pause(0.01)
    raise AssertionError("timed out")


def _hold_first_answer(monkeypatch):
    """The first computation waits for ``release`` and answers with a marker text."""
    real = explain_module.compute_explanation
    release, started = threading.Event(), threading.Event()
    calls = []

    def compute(session, namespace, name):
        calls.append(name)
        if len(calls) == 1:
            started.set()
            release.wait(10)
            return Explained(error="STALE ANSWER")
        return real(session, namespace, name)

    monkeypatch.setattr(explain_module, "compute_explanation", compute)
    return release, started, calls


async def test_explain_says_computing_then_shows_the_answer_and_the_clock_waits(
        session, make, monkeypatch):
    release, started, _calls = _hold_first_answer(monkeypatch)
    app = make(session, paused=False)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        app.open_explain("default", "gpu-pod")
        await _until(pilot, started.is_set)
        assert isinstance(app.screen, ExplainScreen) and app.screen.computing
        assert "computing…" in screen_text(app)
        # The UI thread is free: keys are handled while the worker runs.
        await pilot.press("down")
        # The clock does not move while a worker reads the sandbox.
        before = app.session.now
        app._last_tick -= 0.2
        app._tick()
        assert app.session.now == before
        release.set()
        await settle(pilot)
        # The first (held) answer was the one asked for: it is shown.
        assert "STALE ANSWER" in screen_text(app)
        app.screen.recompute()
        await settle(pilot)
        text = screen_text(app)
        assert "computing…" not in text and "0/4 nodes are available" in text
        app._last_tick -= 0.2
        app._tick()
        assert app.session.now > before


async def test_an_answer_overtaken_by_a_newer_request_is_dropped(session, make, monkeypatch):
    real = explain_module.compute_explanation
    gates = [threading.Event(), threading.Event()]
    started = [threading.Event(), threading.Event()]
    calls = []

    def compute(session, namespace, name):
        n = len(calls)
        calls.append(name)
        started[n].set()
        gates[n].wait(10)
        return Explained(error="STALE ANSWER") if n == 0 else real(session, namespace, name)

    monkeypatch.setattr(explain_module, "compute_explanation", compute)
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.advance(5)
        app.open_explain("default", "gpu-pod")
        await _until(pilot, started[0].is_set)
        # The cluster changes while the first answer is being computed: the view asks again.
        app.screen.recompute()
        gates[0].set()  # the first answer arrives while the second is still computing
        await _until(pilot, started[1].is_set)
        for _ in range(5):
            await pilot.pause()
        text = screen_text(app)
        assert "STALE ANSWER" not in text and "computing…" in text
        gates[1].set()
        await settle(pilot)
        text = screen_text(app)
        assert "STALE ANSWER" not in text and "computing…" not in text
        assert "0/4 nodes are available" in text


async def test_an_answer_for_a_closed_view_is_dropped(session, make, monkeypatch):
    release, started, _calls = _hold_first_answer(monkeypatch)
    app = make(session)
    async with app.run_test(size=SIZE) as pilot:
        app.open_explain("default", "gpu-pod")
        await _until(pilot, started.is_set)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ExplainScreen)
        release.set()
        await settle(pilot)
        assert app.screen.view_name == "board"
        assert "STALE ANSWER" not in screen_text(app)
