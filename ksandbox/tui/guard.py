"""The TUI's crash guards: a bug in one key's work costs a notification, not the session.

- :class:`Guarded` (mixed into our screens, dialogs and list widgets): an exception raised by
  one of their message handlers becomes an error notification asking for a report; the widget
  goes on handling messages (Textual's own loop would stop that widget and end the app).
  Lifecycle messages (compose, mount) are not guarded: a screen that cannot build itself is a
  failure of the app.
- :func:`report_bug`: the notification, the same for actions (the App guards
  ``_dispatch_action``) and handlers; the exception is kept in ``app.bug_reports`` (and its
  traceback appended to ``$KSANDBOX_BUG_LOG`` when set) so tests can fail on it.
- :class:`DismissOnce` (mixed into every screen of ours and the palette): Textual's
  ``Screen.dismiss`` pops whatever screen is on top, whichever screen asks; a second close
  (Escape, or Enter on the palette's list) already queued for a screen when the first took
  it off the stack popped the screen beneath — with the board gone, Textual's blank default
  screen took every key and the app looked frozen. A screen is now dismissed once, and only
  while it is on top (the App also refuses to pop the board: app.KsandboxApp.pop_screen).
- :class:`GuardedCommandPalette`: Textual's palette, whose page keys raise ``KeyError: 0`` from
  ``OptionList._move_page`` when they arrive before the option list has been laid out
  (``ctrl+p`` then at once PageDown): then the key does nothing, as on an empty list; and whose
  search worker raises NoMatches (CommandList) when the palette is dismissed while it searches
  (``ctrl+p`` then Escape in one burst). Upstream bugs, reproductions in notes/crash.md; remove
  the overrides once Textual guards them.
- :func:`no_negative_timers`: a Textual timer asked to wait a negative time spins forever
  without yielding (the app freezes at 100 % CPU). A toast asks for one when its notification
  expires between the rack's expiry check and the toast's construction (a burst of keys, each
  saying something, on a loaded machine: the stress test's freeze of 2026-11-27). A wait under
  a millisecond is now a millisecond.
"""

from __future__ import annotations

import os
import traceback
from typing import Any

from textual import events, work
from textual.await_complete import AwaitComplete
from textual.command import CommandPalette
from textual.css.query import NoMatches
from textual.message import Message

from .focus_paint import FocusPaintsWidgets
from .screen_layout import LayoutOnce
from .tint import QuickTint

# Messages whose failure means the widget could not be built: not caught here.
_LIFECYCLE = (events.Compose, events.Mount)


# Where report_bug also appends each traceback (for a bug report; the stress test reads it).
BUG_LOG_ENV = "KSANDBOX_BUG_LOG"


def report_bug(app: Any, exc: BaseException, where: str) -> None:
    """An unexpected exception in ``where``: say so, keep the state, keep the exception."""
    reports = getattr(app, "bug_reports", None)
    if reports is not None:
        reports.append(exc)
    log = os.environ.get(BUG_LOG_ENV)
    if log:
        try:
            with open(log, "a", encoding="utf-8") as f:
                # An exception made, not raised, has no traceback: say who reported it.
                stack = "" if exc.__traceback__ else "".join(traceback.format_stack()[:-1])
                f.write(f"{where}:\n{stack}{''.join(traceback.format_exception(exc))}\n")
        except OSError:
            pass
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    try:
        app.notify(f"{where} failed ({detail}). Nothing else changed; this is a bug in "
                   f"ksandbox, please report it.", title="internal error", severity="error",
                   timeout=8, markup=False)
    except Exception:  # noqa: BLE001 - reporting must never raise in its turn
        pass


class Guarded:
    """Mixin for a MessagePump subclass: handler exceptions become bug notifications."""

    async def _on_message(self, message: Message) -> None:
        if isinstance(message, _LIFECYCLE):
            await super()._on_message(message)  # type: ignore[misc]
            return
        try:
            await super()._on_message(message)  # type: ignore[misc]
        except Exception as exc:  # noqa: BLE001 - the last resort for one handler
            report_bug(self.app, exc,  # type: ignore[attr-defined]
                       f"{type(self).__name__} handling {type(message).__name__}")


class DismissOnce:
    """Mixin for a Screen: dismissed once, and only while it is the screen on top."""

    _dismissed = False

    @property
    def closing(self) -> bool:
        """Dismissed already, or no longer the screen on top: a late key must do nothing."""
        return self._dismissed or self.app.screen is not self  # type: ignore[attr-defined]

    def dismiss(self, result: Any = None) -> AwaitComplete:
        if self.closing:
            return AwaitComplete.nothing()
        self._dismissed = True
        return super().dismiss(result)  # type: ignore[misc,no-any-return]


# The palette's own search coroutine, undecorated (Textual's @work keeps it as __wrapped__).
_GATHER = CommandPalette._gather_commands.__wrapped__  # type: ignore[attr-defined]


class GuardedCommandPalette(DismissOnce, QuickTint, FocusPaintsWidgets, LayoutOnce,
                            CommandPalette):
    @work(exclusive=True, group=CommandPalette._GATHER_COMMANDS_GROUP, exit_on_error=False)
    async def _gather_commands(self, search_value: str) -> None:
        """Textual's search worker, which queries the palette's list: when the palette was
        dismissed while it searched (ctrl+p then Escape in one burst) the list is gone and
        the worker's NoMatches ended the app. Then there is nothing to show."""
        try:
            await _GATHER(self, search_value)
        except NoMatches:
            pass

    def _select_or_command(self, event: Any = None) -> None:
        """Enter on the list or the input: a second Enter already queued when the first ran
        the command and closed the palette must not run it again (nor pop the screen below)."""
        if not self.closing:
            super()._select_or_command(event)

    def _action_escape(self) -> None:
        if not self.closing:
            super()._action_escape()

    def _action_command_list(self, action: str) -> None:
        try:
            super()._action_command_list(action)
        except (KeyError, IndexError):
            if action not in ("page_up", "page_down"):
                raise
            # The list has options but no lines yet (not laid out): the page key is dropped.


def no_negative_timers() -> None:
    """Make every Textual timer wait at least MIN_WAIT (idempotent; called as the app is made).

    Textual's ``Timer._run`` with ``skip`` (the default) recomputes its count from
    ``(now - start) / interval`` while the next time is in the past: with a negative interval
    the next time is always in the past, so it loops without awaiting, and the event loop
    (every key, every frame, the clock) stops; with 0 it divides by zero and the timer dies
    without firing. ``Toast`` waits ``notification.time_left``, read after ``ToastRack.show``
    checked ``has_expired``: a notification that expires in between gives a toast a wait of
    minus a few microseconds. Clamping at the timer covers that and any other caller; a wait
    of MIN_WAIT fires on the next turns of the loop, which is what an elapsed wait means."""
    from textual.timer import Timer

    if getattr(Timer.__init__, "_ksandbox_min_wait", False):
        return
    original = Timer.__init__

    def __init__(self: Timer, event_target: Any, interval: float, *args: Any,
                 **kwargs: Any) -> None:
        # NaN fails ``>=`` as well, and becomes MIN_WAIT.
        original(self, event_target, interval if interval >= MIN_WAIT else MIN_WAIT, *args,
                 **kwargs)

    __init__._ksandbox_min_wait = True  # type: ignore[attr-defined]
    Timer.__init__ = __init__  # type: ignore[method-assign]


MIN_WAIT = 0.001
"""The shortest wait a Textual timer is given (seconds): long enough that one turn of its loop
never outlasts it, so a timer that starts late catches up in one step."""
