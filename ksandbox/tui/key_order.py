"""Keys of one burst are handed to the UI one after another: a key waits until the key ahead
of it has been handled and any screen that key pushed is mounted and focused.

Textual forwards each key to the widget focused when the key *arrives* and runs the
non-priority bindings later, when the key has bubbled back up to the App. So in the burst
`t a=b:NoExecute Enter` pasted on the board every key had reached the board before the `t`
binding pushed the taint dialog: the field got nothing, `:` opened the command bar and that
ran `NoExecute`. A person typing sees each key land where the screen shows focus; a burst
(paste, tmux send-keys) must land the same way.

How the App knows a key is handled: after forwarding it, it posts a `KeyHandled` marker to the
same widget. Messages of one widget are handled in order and bubble in order, so the marker
reaches the App after the key has been handled by every widget it went through, the App's
bindings included, or after the widget that stopped it has finished with it. A widget removed
while handling the key (Enter or Escape in the command bar closes it) never passes the marker
on: removing it prunes the widget the marker was posted to, and the App releases the next key
when that one is pruned (App._prune). A short wall-clock wait is the last resort (the UI runs on the
wall clock; the simulation never sees it).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from textual import events
from textual.message import Message

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen
    from textual.timer import Timer

# Seconds to wait for a marker that a removed widget will never pass on.
LOST_MARKER_WAIT = 0.25


class KeyHandled(Message):
    """Posted behind a forwarded key: arrives at the App once the key has been handled."""

    def __init__(self, key: events.Key, screen: Screen) -> None:
        super().__init__()
        self.key = key
        self.screen = screen  # the screen on top when the key was forwarded


class KeyOrder:
    """The App's keys in flight and held (one per App)."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.in_flight: KeyHandled | None = None
        self.target: Any = None  # the widget the key in flight and its marker went to
        self.held: deque[events.Key] = deque()
        self.lost_marker: Timer | None = None

    def hold(self, event: events.Key) -> bool:
        """True if the key must wait for the keys ahead of it (it is kept, in order)."""
        if self.in_flight is None and not self.held:
            return False
        self.held.append(event)
        return True

    def forwarded(self, event: events.Key, target: Any, screen: Screen) -> None:
        """The key went down to `target`: the next waits for its marker."""
        marker = KeyHandled(event, screen)
        self.in_flight = marker
        self.target = target
        target.post_message(marker)
        self.lost_marker = self.app.set_timer(LOST_MARKER_WAIT,
                                              lambda: self.handled(marker))

    def pruned(self) -> None:
        """Widgets are being removed: if the one the marker in flight went to is among them,
        that marker will not come back (its queue is dropped)."""
        if self.in_flight is not None and getattr(self.target, "_pruning", False):
            self.app.call_later(self.handled, self.in_flight)

    def handled(self, marker: KeyHandled) -> None:
        """The key in flight is handled: the next goes once the screen on top is ready."""
        if marker is not self.in_flight:
            return
        if self.lost_marker is not None:
            self.lost_marker.stop()
            self.lost_marker = None
        self.in_flight = None
        self.target = None
        if self.held:
            self.app.call_later(self._when_ready)

    async def _when_ready(self) -> None:
        # A pushed screen takes focus as it mounts (its widgets' focus() calls are callbacks
        # queued on the App): a key released before that would go to the screen beneath.
        screen = self.app.screen
        if not screen.is_mounted:
            self.app.set_timer(0.01, self._when_ready)
            return
        if self.in_flight is not None or not self.held:
            return
        self.app.call_later(self._release)

    async def _release(self) -> None:
        while self.held and self.in_flight is None:
            event = self.held.popleft()
            await self.app._deliver_key(event)  # type: ignore[attr-defined]
