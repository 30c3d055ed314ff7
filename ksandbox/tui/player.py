"""The player: a recording played in the TUI with a position you can move.

:class:`PlayerControls` is mixed into the App. It owns the keys of a player — ``[``/``]``
previous/next step, ``{``/``}`` previous/next marker, ``home`` restart, ``ctrl+g`` "go to 05:30",
``ctrl+t`` take over (``space`` and ``<``/``>`` are the clock's own keys) — and turns each into a
move of the headless :class:`~ksandbox.recording.player.Player`, which does the work: forwards
by playing, backwards by restoring the nearest checkpoint and playing forward. A move that
lands on another session object (a restored checkpoint) swaps it in under the screens
(``use_session``); one that only plays forward keeps it.

Taking over ends playback where it stands: the session is forked and goes on live, without the
recording's remaining steps. Any command that would change the cluster (a key, a dialog, the
``:`` bar) takes over first, so the recording is never mixed with what the user does.

The bar and the caption pane are :class:`~ksandbox.tui.widgets.player_bar.PlayerPane`; this
module computes what they show (:meth:`PlayerControls.player_state`).
"""

from __future__ import annotations

from typing import Any, Callable

from textual.binding import Binding
from textual.widgets import Input

from .widgets.player_bar import PlayerState, clock

PLAYER_BINDINGS = [
    Binding("left_square_bracket", "player_step(-1)", "Prev step", show=False,
            id="player.prev-step"),
    Binding("right_square_bracket", "player_step(1)", "Next step", show=False,
            id="player.next-step"),
    Binding("left_curly_bracket", "player_marker(-1)", "Prev marker", show=False,
            id="player.prev-marker"),
    Binding("right_curly_bracket", "player_marker(1)", "Next marker", show=False,
            id="player.next-marker"),
    # A priority binding (the board's and lists' own `home` would take it first), enabled
    # only while a recording plays: otherwise the key goes on to them.
    Binding("home", "player_restart", "Restart", show=False, priority=True,
            id="player.restart"),
    Binding("ctrl+g", "player_goto", "Go to", show=False, id="player.goto"),
    Binding("ctrl+t", "take_over", "Take over", show=False, id="player.take-over"),
]
PLAYER_ACTIONS = {"player_step", "player_marker", "player_restart", "player_goto", "take_over"}

class PlayerControls:
    """The player's half of the App: the moves behind its keys, what the pane shows, taking
    over. The App holds one and its key actions call it."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.failed_step = ""
        """The step that failed at its time and kubectl's error, until playback moves."""
        self.took_over_from = ""
        self.seeking = False
        """A move is replaying steps: their captions and failures are not news."""

    @property
    def player(self) -> Any:
        return self.app.player

    # -- what the pane shows --------------------------------------------------------------
    def state(self) -> PlayerState:
        p = self.player
        if p is None:
            return PlayerState(live=self.took_over_from)
        pacer = self.app.pacer
        return PlayerState(
            now=float(p.now), start=p.start, end=p.end, paused=pacer.paused,
            speed=pacer.label, index=p.index, steps=len(p.steps),
            markers=tuple(p.markers()), captions=tuple(t for t, _ in p.captions()),
            caption=p.caption, failed=self.failed_step)

    def step_failed(self, step: Any, error: str) -> None:
        """A step failed at its time: pause, and say so in the pane and a notification."""
        self.app.pacer.paused = True
        self.failed_step = (f"step failed at {step.at:g}s, playback paused: {step.command} — "
                            f"{error}")
        self.app.notify(f"at {step.at:g}s: {step.command}\n{error}",
                        title="step failed: playback paused", severity="error", markup=False)

    # -- keys -----------------------------------------------------------------------------
    def allowed(self, action: str) -> bool | None:
        """check_action's answer for the player's keys (None: not one of them)."""
        if action not in PLAYER_ACTIONS:
            return None
        if isinstance(self.app.focused, Input):
            return False
        if action == "player_restart":
            return self.player is not None
        return True

    def _nothing_playing(self) -> bool:
        if self.player is None:
            self.app.notify("no recording is playing — ksandbox play FILE opens one",
                            timeout=3)
            return True
        if self.app.playback is not self.player:
            # A what-if branch (tui/branches.py) is on show, not the recording.
            self.app.notify("a what-if branch is on show — W switches back to the recording",
                            timeout=3)
            return True
        return False

    def _move(self, how: Callable[[], Any], *, pause: bool = False) -> None:
        """Run one move of the player; swap the session in if the move replaced it."""
        app, player = self.app, self.player
        before = player.session
        self.seeking = True
        try:
            how()
        except Exception as exc:  # a control-plane bug stops the move, never the UI
            app.notify(f"the simulation stopped: {exc!r}", severity="error")
        finally:
            self.seeking = False
        self.failed_step = ""
        if pause:
            app.pacer.paused = True
        if player.session is not before:
            app.use_session(player.session)
        else:
            app.publish()

    def step(self, delta: int) -> None:
        """``[`` / ``]``: the previous / next step (and pause there)."""
        if self._nothing_playing():
            return
        p = self.player
        if delta > 0 and p.next_step_time() is None:
            self.app.notify("no more steps: the recording is at its last one", timeout=3)
            return
        self._move(p.step_forward if delta > 0 else p.step_back, pause=True)

    def marker(self, delta: int) -> None:
        """``{`` / ``}``: the previous / next marker."""
        if self._nothing_playing():
            return
        p = self.player
        if delta > 0 and not any(t > p.now for t, _ in p.markers()):
            self.app.notify("no marker after this point", timeout=3)
            return
        self._move(p.next_marker if delta > 0 else p.previous_marker)

    def restart(self) -> None:
        if self._nothing_playing():
            return
        self._move(self.player.restart)

    def goto(self) -> None:
        """``ctrl+g``: ask where to go."""
        if self._nothing_playing():
            return
        p = self.player

        def done(text: str | None) -> None:
            if text is not None and self.player is p:
                self.seek_to(float(text))

        from .dialogs.goto import GoToDialog  # on first use: not at start (its module)

        self.app.push_screen(GoToDialog(p.now, p.start, p.end), done)

    def seek_to(self, t: float) -> None:
        """Go to ``t`` (clamped to the recording's start and end)."""
        p = self.player
        if p is None:
            return
        self._move(lambda: p.seek(min(max(t, p.start), p.end)))

    def take_over(self) -> None:
        """End playback here: a fork of the player's session goes on live, without the
        recording's remaining steps."""
        from ..recording.playback import Playback

        app, player = self.app, self.player
        if player is None:
            self._nothing_playing()
            return
        live = player.session.fork()
        title = getattr(app.recording_script, "title", "") or "the recording"
        self.took_over_from = f"took over from {title} at {clock(live.now)} — R records"
        self.failed_step = ""
        app.player = None
        app.recording_script = None
        app.playback = Playback(live, (), on_step=app._on_step)
        app.pacer.playback = app.playback
        app.pacer.limit = None
        app.use_session(live)
        app.notify(f"Live from {clock(live.now)}: the recording's remaining steps are "
                   f"dropped; the cluster is yours", timeout=4)
