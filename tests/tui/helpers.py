"""Small helpers shared by the TUI tests."""

from __future__ import annotations

from screen_text import screen_text


async def settle(pilot, times: int = 2) -> None:
    """Let the app process what is queued — including a result a worker thread is about to
    hand back (the explain view computes in a worker; a finished one may ask again)."""
    for _ in range(times):
        await pilot.pause()
    await explained(pilot, times)


async def explained(pilot, times: int = 1) -> None:
    """Wait for the app's worker threads (explain's) and for their results to be shown."""
    for _ in range(10):
        workers = [w for w in pilot.app.workers if not w.is_finished]
        if not workers:
            return
        await pilot.app.workers.wait_for_complete(workers)
        for _ in range(times):
            await pilot.pause()


async def until(pilot, pred, tries: int = 100) -> bool:
    """Let the app run until ``pred()`` holds (a toast or a worker's result drawn on a busy
    machine can take more than one settle); its last value."""
    for _ in range(tries):
        if pred():
            return True
        await settle(pilot, 1)
    return bool(pred())


async def type_text(pilot, text: str) -> None:
    """Type ``text`` key by key (as a user would; spaces included)."""
    for ch in text:
        await pilot.press("space" if ch == " " else ch)


async def command(pilot, line: str) -> None:
    """Open the `:` bar, put ``line`` in it (typing is tested on its own), press enter."""
    await pilot.press("colon")
    pilot.app.screen.query_one("#command-input").value = line
    await pilot.press("enter")
    await settle(pilot)


def node(app, name):
    return app.session.store.get("Node", name)


def pod(app, name, ns="default"):
    return app.session.store.get("Pod", name, ns)


def shows(app, text: str) -> bool:
    return text in screen_text(app)
