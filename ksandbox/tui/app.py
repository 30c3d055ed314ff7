"""The ksandbox App: wires a Session to the screens. It draws nothing itself.

What it owns: the :class:`~ksandbox.tui.model.ClusterModel` (the UI's informer), the
:class:`~ksandbox.tui.pacer.Pacer` driven by a Textual timer (the only place the wall clock is
read, for pacing), the themes and key map from the user's config, and the one door into the
sandbox — :meth:`KsandboxApp.submit`, which every key, dialog and command line goes through as
command text. After each tick or command it posts one coalesced ``ClusterChanged`` to the
screens that are on show.

``make_app(session, **opts)`` is the factory the CLI and the tests share (STYLE.md example 9);
``run_tui`` is what ``ksandbox`` calls.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, TypeVar

from textual import events
from textual.app import App, ScreenStackError, SystemCommand
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.screen import Screen

from ..api.errors import KsandboxError, error_line
from .commandline import (
    BoardCommand,
    ExplainCommand,
    HelpCommand,
    QuitCommand,
    SubmitCommand,
    ViewCommand,
    parse_command_line,
)
from .config import UserConfig, load_config, save_theme
from .gc_hold import CollectorHold
from .guard import GuardedCommandPalette, no_negative_timers, report_bug
from .key_order import KeyHandled, KeyOrder
from .messages import ClusterChanged
from .model import ClusterModel
from .pacer import Pacer
from .player import PLAYER_BINDINGS, PlayerControls
from .recorder import RECORDER_BINDINGS, RecorderControls, free_path
from .stepper import next_up
from .themes import VARIABLE_DEFAULTS, load_themes, stylesheet
from .widgets.header import HeaderState

if TYPE_CHECKING:
    from ..recording.player import Player
    from ..session import Session

# Ticks per real second while the clock runs (the header's time and the countdowns move at
# this rate; the sandbox work per tick is bounded by the pacer's budget).
TICK_HZ = 20
# Real seconds between two freezes of the heap (see freeze_heap), and the young generation's
# collection threshold while the app runs (CPython's default is 700).
FREEZE_EVERY = 1.0
GC_THRESHOLD = 10_000
READ_VERBS = ("get", "describe")
# Modules a view imports the first time it opens: the first `:po` imported ~45 ms of them
# (yaml for the YAML view, the table, the row specs), the first `e` and `t` 15-25 ms. With the
# real clock running they are imported while the app is idle after its first frame, one at a
# time (the largest ~20 ms) so a key pressed meanwhile waits for one at most. Smallest parts
# first: importing a module whose imports are already done costs only its own body.
WARM_MODULES = (
    "yaml", "ksandbox.views.serialize", "ksandbox.commands.common", "ksandbox.tui.rows",
    "ksandbox.tui.row_order", "ksandbox.tui.widgets.resource_table",
    "ksandbox.tui.screens.resources", "ksandbox.tui.dialogs.taint",
    "ksandbox.views.pod_asks", "ksandbox.scheduler.spread_facts",
    "ksandbox.tui.widgets.explain_matrix", "ksandbox.tui.screens.explain",
    "ksandbox.tui.screens.text", "ksandbox.tui.screens.help",
)
WARM_AFTER = 0.5
"""Seconds after the first frame before the first of them; then one per WARM_GAP."""
WARM_GAP = 0.05
PALETTE_ID = "--command-palette"
D = TypeVar("D", bound=Screen)


class KsandboxApp(App[int]):
    """A Kubernetes cluster in one terminal (the player's keys: tui/player.py; recording,
    captions and screenshots: tui/recorder.py)."""

    TITLE = "ksandbox"
    CSS_PATH = str(stylesheet())
    ENABLE_COMMAND_PALETTE = True
    BINDINGS = [
        Binding("space", "toggle_pause", "Pause", id="clock.pause"),
        Binding("less_than_sign", "slower", "Slower", show=False, id="clock.slower"),
        Binding("greater_than_sign", "faster", "Faster", show=False, id="clock.faster"),
        Binding("full_stop", "step", "Next event", show=False, id="clock.step"),
        # What-if (tui/branches.py): fork the present, switch branches, compare, undo.
        Binding("w", "fork_branch", "Fork", show=False, id="whatif.fork"),
        Binding("W", "branches", "Branches", show=False, id="whatif.branches"),
        Binding("D", "diff_branches", "Diff", show=False, id="whatif.diff"),
        Binding("ctrl+z", "undo", "Undo", show=False, id="whatif.undo"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, id="app.quit"),
        *PLAYER_BINDINGS,
        *RECORDER_BINDINGS,
    ]

    def __init__(self, session: Session, *, recording: Any = None, speed: float = 1.0,
                 paused: bool = False, config: UserConfig | None = None,
                 ticking: bool = True, record_to: Path | None = None,
                 record: bool = False, debug: bool = False) -> None:
        no_negative_timers()  # a toast's expired wait froze the app (guard.no_negative_timers)
        super().__init__()
        self.session = session
        self.model = ClusterModel(session)
        self._key_order = KeyOrder(self)  # a burst's keys land where the one before left focus
        from ..recording.playback import Playback

        self.recording_script = recording
        """The recording being played (a ``Script``), or None for a live session."""
        self.caption = ""
        self.player: Player | None = None
        """The player while a recording plays (None live, and after taking over)."""
        self.playback: Any
        if recording is not None:
            # Here: a live session (the start on a sample) does without the recording reader
            from ..recording.player import Player

            self.player = Player(recording, session, on_step=self._on_step)
            self.playback = self.player
        else:
            self.playback = Playback(session, (), on_step=self._on_step)
        self.pacer = Pacer(session, speed=speed, paused=paused, playback=self.playback)
        self.pacer.limit = self.player.end if self.player is not None else None
        self.player_controls = PlayerControls(self)
        self.recorder_controls = RecorderControls(self, record_to=record_to, record=record)
        self.config = config if config is not None else load_config()
        self.ticking = ticking
        """Drive the clock from a real-time timer (tests turn it off and step by hand)."""
        self.command_history: list[str] = []
        self.previous_view: Any = None
        """The list view ``-`` goes back to (a ``habits.ViewPlace``)."""
        self.last_result: Any = None
        self._last_tick = time.perf_counter()
        self._save_theme = False
        self._stepper: Any = None
        self._stepping = False
        from .branches import WhatIf

        self.whatif = WhatIf(self)
        self.show_traceback = debug
        """--debug: a failure of the app prints Textual's traceback when it exits."""
        self.bug_reports: list[BaseException] = []
        """Exceptions an action or a handler raised and the guards turned into notifications."""
        self.crash: tuple[BaseException, Path | None] | None = None
        """The failure that ended the app, and where the session so far was saved."""
        self._frame_after_batch: Screen | None = None
        """A screen whose frame waits for the end of the app's batch (KsScreen)."""
        self.gc_hold = CollectorHold()
        """The collector waits from a key's arrival to the frame that answers it
        (gc_hold.py)."""
        self._start_with_theme()
        from . import css_cache

        # The stylesheet's rules as the last start parsed them (same CSS, theme and Textual):
        # Textual then parses only what changed (~0.04 s of the start; css_cache.py).
        self._css_cache = css_cache.attach(self.stylesheet)
        self.freeze_heap_after_first_frame = False
        """run_tui's app collects and freezes the heap and saves the attrs methods cache once
        the first frame is out (tests' apps leave the test process alone)."""

    # -- setup ----------------------------------------------------------------------------
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    def _start_with_theme(self) -> None:
        """Register the themes and select the configured one before the app runs, the way
        Textual documents for a starting theme (``set_reactive``, no watcher): the stylesheet
        gets the theme's variables before it parses anything. Setting ``self.theme`` in
        on_mount instead made the watcher parse every rule a second time before the first
        frame. What the watcher does besides is done here: the theme's classes and the ANSI
        colour filter."""
        for theme in load_themes():
            self.register_theme(theme)
        wanted = self.config.theme
        name = wanted if wanted in self.available_themes else "ksandbox-dark" \
            if "ksandbox-dark" in self.available_themes else "textual-dark"
        self.set_reactive(App.theme, name)
        dark = self.current_theme.dark
        self.set_class(dark, "-dark-mode", update=False)
        self.set_class(not dark, "-light-mode", update=False)
        self.add_class(f"-theme-{name}", update=False)
        self._refresh_truecolor_filter(self.ansi_theme)
        self.stylesheet.set_variables(self.get_css_variables())

    def _end_batch(self) -> None:
        """A screen that left its frame for after the batch (KsScreen._compositor_refresh)
        is woken to draw it now: Textual prompts only the app when a batch ends."""
        super()._end_batch()
        screen, self._frame_after_batch = self._frame_after_batch, None
        if screen is not None and not self._batch_count:
            screen.check_idle()
        elif screen is not None:
            self._frame_after_batch = screen

    def get_default_screen(self) -> Screen:
        # Under the board all the time: its start-up resizes hand no frame to the board.
        from .screens.base import DefaultScreen

        return DefaultScreen(id="_default")

    def on_mount(self) -> None:
        if self.config.keymap:
            self.set_keymap(self.config.keymap)
        if self.config.problem:
            self.notify(self.config.problem, title="config", severity="warning")
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self._save_theme = True
        from .screens.main import MainScreen

        self.push_screen(MainScreen())
        if self.freeze_heap_after_first_frame:
            self.call_after_refresh(_after_first_frame, self)
        if self.ticking:
            self._last_tick = time.perf_counter()
            self.set_interval(1 / TICK_HZ, self._tick, name="clock")
            self.set_interval(FREEZE_EVERY, lambda: freeze_heap(collect=False), name="gc")
        if not self.is_headless:
            from . import hangup

            fd = hangup.terminal_fd()
            if fd is not None:
                def watch() -> None:
                    if hangup.hung_up(fd):
                        hangup.end_within()   # the shutdown below may wait on the terminal
                        self.exit(return_code=hangup.EXIT_STATUS)

                self.set_interval(hangup.CHECK_EVERY, watch, name="hangup")

    def _on_notify(self, event: Any) -> None:
        """A message already on screen is shown once, its time restarted: a key pressed three
        times said "'b' does nothing in the Nodes view" in three stacked toasts, where k9s's
        flash line says it once. Textual's own handler (App._on_notify) runs after this one
        and adds the new notification."""
        new = event.notification
        # A comprehension, not list(): list() makes the iterator and then asks the length,
        # and Textual's Notifications drops expired ones on each, so a notification expiring
        # in between changed the dict under the iterator (RuntimeError: a key pressed as an
        # earlier message ran out ended the app; test_every_key failed so under load).
        for shown in [n for n in self._notifications]:
            if (shown.message, shown.title, shown.severity) == (new.message, new.title,
                                                                 new.severity):
                self._unnotify(shown, refresh=False)

    _warmed = 0

    def _warm_next(self) -> None:
        """Import the next of WARM_MODULES, then come back for the one after; last, build the
        taint dialog and the explain view (below)."""
        import importlib

        if not self.is_running:
            return
        if self._warmed >= len(WARM_MODULES):
            if self._warmed == len(WARM_MODULES):
                self._warmed += 1
                self._prebuild_dialog()
                self.set_timer(WARM_GAP, self._prebuild_explain)
                self.set_timer(5 * WARM_GAP, self._prebuild_pod_list)  # after explain's
            return
        name = WARM_MODULES[self._warmed]
        self._warmed += 1
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - only a head start: the view imports it again
            pass
        self.set_timer(WARM_GAP, self._warm_next)

    # -- dialogs built once ---------------------------------------------------------------
    _reusable: dict[type, Any]

    def is_on_a_stack(self, screen: Any) -> bool:
        """Whether ``screen`` is on the stack of any mode (a kept view in use cannot be
        pushed again; one off every stack can)."""
        return any(screen in stack for stack in self._screen_stacks.values())

    def reusable_dialog(self, kind: type[D]) -> D:
        """The app's one dialog of ``kind``, kept (installed) between uses: composing and
        styling a dialog's dozen widgets was two thirds of the CPU before its first frame
        (the taint dialog at 1,000 nodes: 53 -> 18 ms reused). The caller readies it for
        this use (``prepare``) before pushing it."""
        reusable = self.__dict__.setdefault("_reusable", {})
        dialog = reusable.get(kind)
        if dialog is None:
            dialog = reusable[kind] = kind()
            self.install_screen(dialog, f"ksandbox-{kind.__name__}")
        return dialog  # type: ignore[no-any-return]

    def _prebuild_dialog(self) -> None:
        """Compose and mount the taint dialog while the app is idle, off screen, so the
        first `t` costs no more than the next ones (Textual starts an installed screen the
        first time it is asked for it; it is pushed, and so shown, only by `t`)."""
        from .dialogs import TaintDialog

        dialog = self.reusable_dialog(TaintDialog)
        if not dialog.is_running and dialog not in self.screen_stack:
            try:
                self._get_screen(dialog)
            except Exception:  # noqa: BLE001 - only a head start: `t` builds it anyway
                pass

    def _prebuild_explain(self) -> None:
        """Build the explain view while the app is idle (screens/explain.prebuild_explain):
        the first `e` then reopens it as the later ones do."""
        if not self.is_running:
            return
        from .screens.explain import prebuild_explain

        try:
            prebuild_explain(self)
        except Exception:  # noqa: BLE001 - only a head start: `e` builds one anyway
            pass

    def _prebuild_pod_list(self) -> None:
        """The pod list `:po` shows, built in idle time (screens/resources.prebuild_pod_list)."""
        from .screens.resources import prebuild_pod_list

        if self.is_running:
            prebuild_pod_list(self)

    def _theme_changed(self, theme: Any) -> None:
        if self._save_theme and not save_theme(theme.name):
            self.notify("Theme not saved: fix the config file first", severity="warning")

    # -- the clock ------------------------------------------------------------------------
    @property
    def sim_lock(self) -> Any:
        """The session's lock (``Session.lock``, re-entrant): the clock, commands and forks
        hold it; a worker thread reading the sandbox (explain) holds it while it reads."""
        return self.session.lock

    # Ticks in a row the clock may give way to keys, or to a screen's first frame (then it
    # runs anyway: typing without a pause must not stop the cluster).
    YIELD_TICKS = 4
    _yielded = 0
    _painted: Any = None
    """The last screen a frame was written for (``_display``)."""

    def _display(self, screen: Screen, renderable: Any) -> None:
        if renderable is not None and not self._batch_count:
            if self._painted is None and self.ticking:
                # The first frame: the views' modules are imported from WARM_AFTER on.
                # (Tests' apps, without the real clock, import as they go.)
                self.set_timer(WARM_AFTER, self._warm_next)
            self._painted = screen
        super()._display(screen, renderable)
        hold = self.gc_hold
        if hold.holding and renderable is not None:
            # The frame is out: the collections that came due run now, unless another key
            # is on its way or this screen still owes the frame a key waits for (its first
            # one, or explain's first answer: ``answer_owed``, while its worker computes).
            if self._key_waiting() or self._first_frame_waiting() \
                    or getattr(screen, "answer_owed", False):
                hold.release_if_overdue()
            else:
                hold.release()

    def _first_frame_waiting(self) -> bool:
        """The screen on top has not had a frame yet: a dialog, a list view or explain being
        built. A tick in between (up to the pacer's budget and its repaint of the screen
        beneath, 10-30 ms at 1,000 nodes) was paid by the key that opened it. Or it owes the
        frame that key waits for (``frame_owed``: explain's first answer, on its way)."""
        try:
            screen = self.screen
        except ScreenStackError:  # no screen (closing): nothing to wait for
            return False
        return self._painted is not screen or getattr(screen, "frame_owed", False)

    def _input_waiting(self) -> bool:
        """A key or mouse event is queued (for the app, the screen or the focused widget)."""
        from textual.events import InputEvent

        try:
            for pump in (self, self.screen, self.focused):
                queue = getattr(pump, "_message_queue", None) if pump is not None else None
                if queue is None or not queue.qsize():
                    continue
                # Textual's own cut-down queue keeps its messages in ``values``.
                pending = getattr(queue, "values", None) or getattr(queue, "_queue", ())
                if any(isinstance(m, InputEvent) for m in list(pending)):
                    return True
        except Exception:  # noqa: BLE001 - a peek must never stop the clock
            return False
        return False

    def _tick(self) -> None:
        # Keys first: a tick (up to the pacer's 12 ms budget and its repaint) between a key
        # and its frame is most of a key's latency at 1,000 nodes; so is one between a key
        # that opens a screen and that screen's first frame. The time owed is paid on
        # the next tick (the pacer caps a catch-up at MAX_REAL_DT).
        self.gc_hold.release_if_overdue()
        if self._yielded < self.YIELD_TICKS and (self._key_waiting()
                                                  or self._first_frame_waiting()):
            self._yielded += 1
            return
        self._yielded = 0
        lock = self.sim_lock
        if not lock.acquire(blocking=False):
            # A worker is reading the sandbox (explain): the clock waits, the UI does not;
            # _last_tick stays, so the next tick pays the time owed (up to MAX_REAL_DT).
            return
        try:
            self._tick_locked()
        finally:
            lock.release()

    _keys_sent = 0
    """Keys the driver sent to the app (counted in its input thread, see _build_driver)."""
    _keys_posted = 0
    """Keys that reached the app's queue (counted in the event loop, see _post_message)."""

    def _key_waiting(self) -> bool:
        """A key is on its way from the driver to the app, or queued: a tick's slice of
        sandbox work ends early for it (Pacer.tick's ``yield_when``)."""
        return self._keys_sent > self._keys_posted or self._input_waiting()

    def _build_driver(self, *args: Any, **kwargs: Any) -> Any:
        """Textual's driver, which also counts each key it sends to the app. It sends from
        its input thread, and the key reaches the app's queue only when the event loop
        next runs, after the tick in progress: the tick, told by _key_waiting, ends its
        slice at the next callback and the key does not wait for the rest of the budget.
        From then until its frame the garbage collector waits (``gc_hold``). The key itself
        is delivered by the driver as before, in order."""
        driver = super()._build_driver(*args, **kwargs)
        send = driver.send_message

        def send_message(message: Any) -> None:
            if isinstance(message, events.Key):
                self._keys_sent += 1
                self.gc_hold.hold()
            send(message)

        driver.send_message = send_message  # type: ignore[method-assign]
        return driver

    async def _shutdown(self) -> None:
        try:
            await super()._shutdown()
        finally:
            self.gc_hold.release()  # the process goes on (tests, run_tui's caller)

    async def _post_message(self, message: Any) -> bool:
        if isinstance(message, events.Key):
            self._keys_posted += 1
        return await super()._post_message(message)

    def _tick_locked(self) -> None:
        now = time.perf_counter()
        real_dt, self._last_tick = now - self._last_tick, now
        player = self.player
        if player is not None and not self.pacer.paused and player.now >= player.end:
            # The end of the recording: stop there (home restarts, ctrl+t goes on live).
            self.pacer.paused = True
            self.notify("end of the recording — home restarts, ctrl+t takes over (live)",
                        timeout=4)
            self.publish()
            return
        try:
            moved = self.pacer.tick(real_dt, yield_when=self._key_waiting)
        except Exception as exc:  # a control-plane bug pauses the clock, never the UI
            self.pacer.paused = True
            self.notify(f"the simulation stopped: {exc!r}; clock paused", severity="error")
            moved = True
        # Hidden what-if branches follow the one on show, in slices as it runs (also while
        # paused, until they have caught up).
        if self.whatif.sync(self.pacer.budget):
            moved = True
        if moved:
            self.publish()

    def publish(self) -> None:
        """Seal the model's changes and tell the screen on top.

        Only the top one: a screen under a dialog shows through it dimmed, and Textual redraws
        the dialog's whole tinted background whenever anything beneath changes — at 1,000
        nodes a ticking clock made every frame of an open dialog a full repaint of the board.
        The screen beneath catches up on everything when it is on top again (ScreenResume);
        until then only its clock moves."""
        cs = self.model.flush()
        if not self.screen_stack:
            # Closing: the stack is cleared before the installed dialogs (reusable_dialog)
            # are closed, and the clock may tick in between.
            return
        top = self.screen
        top.post_message(ClusterChanged(cs.generation))
        if top.is_modal:
            # The screens a dialog shows through keep their clock and countdowns moving
            # (KsScreen.show_clock: a header that changed text, a card whose countdown did),
            # so a dialog's tinted copy of the board is redrawn once a shown second.
            state = None
            for screen in self._background_screens:
                show_clock = getattr(screen, "show_clock", None)
                if show_clock is not None:
                    state = state or self.header_state()
                    show_clock(state)

    def advance(self, seconds: float) -> None:
        """Run the sandbox ``seconds`` of simulated time now, replaying any recorded steps due
        (tests, the benchmark)."""
        with self.sim_lock:  # one moment for a worker: not between the clock and branches
            self.pacer.advance_to(self.session.now + seconds, budget=float("inf"))
            self.whatif.sync()
        self.publish()

    def action_toggle_pause(self) -> None:
        self.pacer.toggle()
        self._last_tick = time.perf_counter()
        self.publish()

    def action_slower(self) -> None:
        self.pacer.slower()
        self.publish()

    def action_faster(self) -> None:
        self.pacer.faster()
        self.publish()

    def action_step(self) -> None:
        """`.`: run to the next change a person can see, and say what it was."""
        from .stepper import Stepper

        if self._stepper is None:
            self._stepper = Stepper(self.playback)
        self._stepping = True
        try:
            with self.sim_lock:
                report = self._stepper.step()
        except Exception as exc:
            self.notify(f"the simulation stopped: {exc!r}", severity="error")
            return
        finally:
            self._stepping = False
        self.whatif.sync()
        self.notify(report.summary(), title="." if not report.idle else "",
                    timeout=6 if report.changes else 3, markup=False)
        self.publish()

    def _on_step(self, step: Any, result: Any) -> None:
        if self.player_controls.seeking:
            return  # steps replayed by a seek are not news (the pane shows where it landed)
        if step.caption:
            self.caption = step.caption      # the caption pane shows it (the `.` report too)
        if result is not None and getattr(result, "error", ""):
            # A step that fails at its time pauses playback and shows kubectl's error.
            self.player_controls.step_failed(step, result.error.strip())

    @property
    def playback_label(self) -> str:
        rec = self.recording_script
        if rec is None:
            return ""
        title = getattr(rec, "title", "") or "recording"
        return f"▶ {title} {self.playback.index}/{len(self.playback.steps)}"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        allowed = self.player_controls.allowed(action)
        return True if allowed is None else allowed

    # -- the player's and the recorder's keys (tui/player.py, tui/recorder.py) -------------
    def action_player_step(self, delta: int) -> None:
        self.player_controls.step(delta)

    def action_player_marker(self, delta: int) -> None:
        self.player_controls.marker(delta)

    def action_player_restart(self) -> None:
        self.player_controls.restart()

    def action_player_goto(self) -> None:
        self.player_controls.goto()

    def action_take_over(self) -> None:
        self.player_controls.take_over()

    def action_toggle_recording(self) -> None:
        self.recorder_controls.toggle()

    def action_annotate(self) -> None:
        self.recorder_controls.annotate()

    def action_screenshot_svg(self) -> None:
        self.recorder_controls.screenshot()

    @property
    def recording(self) -> bool:
        return self.recorder_controls.recording

    # -- swapping the session (seek back, take over; what-if branches) ----------------------
    def use_session(self, session: Any) -> None:
        """Put ``session`` under every screen: a new model, every pane pointed at it and
        redrawn from scratch (the screens stay where they are, with their selection)."""
        generation = self.model.generation
        self.session = session
        self.model = ClusterModel(session)
        # Past every screen's generation with an empty log: their next catch-up is "everything".
        self.model.generation = generation + 1
        self._stepper = None
        for screen in self.screen_stack:
            for widget in screen.walk_children(with_self=False):
                held = vars(widget)
                if "session" in held:
                    widget.session = session  # type: ignore[attr-defined]
                if "model" in held:
                    widget.model = self.model  # type: ignore[attr-defined]
                cache = held.get("_cache")
                if isinstance(cache, dict):
                    cache.clear()
        self.publish()

    def header_state(self) -> HeaderState:
        m = self.model
        return HeaderState(
            cluster=getattr(self.session, "name", "sandbox"), time=float(self.session.now),
            speed=self.pacer.label, paused=self.pacer.paused, lagging=self.pacer.lagging,
            nodes_ready=m.ready_nodes, nodes_total=m.node_total, running=m.running,
            pending=len(m.pending), recording=self.recording,
            playback=self.playback_label, branch=self.whatif.label,
            next_up=next_up(self.session, self.playback) if self.pacer.paused else "")

    # -- what-if (tui/branches.py) ----------------------------------------------------------
    def action_fork_branch(self) -> None:
        """`w`: fork the present moment into a named branch."""
        self.whatif.ask_fork()

    def action_branches(self) -> None:
        """`W`: list the branches, switch to one."""
        self.whatif.choose()

    def action_diff_branches(self) -> None:
        """`D`: this branch and another side by side."""
        self.whatif.open_diff()

    def action_undo(self) -> None:
        """`ctrl+z`: back to the moment before the last command."""
        self.whatif.undo()

    # -- the one door into the sandbox ----------------------------------------------------
    def submit(self, text: str, *, quiet: bool = False, stdin: str | None = None,
               notify_errors: bool = True) -> Any:
        """Run a command, show kubectl's words for the result, tell the screens.
        ``notify_errors=False``: the caller shows the error itself (the edit screen)."""
        if self.player is not None:
            # What the user does is never mixed into the recording: go live first.
            self.player_controls.take_over()
        try:
            result = self.session.submit(text, stdin)
        except Exception as exc:  # the core promises not to raise; the UI never trusts it
            self.notify(error_line(exc), severity="error", markup=False)
            return None
        self.last_result = result
        if result.error:
            if notify_errors:
                # What kubectl did before it failed (drain's "cordoned", the pods a delete
                # of several did delete) is on its stdout, above the error in a terminal.
                said = "\n".join(t for t in (result.output.strip(), result.error.strip()) if t)
                self.notify(said, severity="error", markup=False)
        elif not quiet and result.output.strip():
            self.notify(result.output.strip(), markup=False, timeout=4)
        self.publish()
        return result

    def submit_from_dialog(self, text: str | None) -> None:
        if text:
            self.submit(text)

    def run_read(self, text: str) -> Any:
        """A read command (get, describe): run it without recording it."""
        from ..commands.result import CommandResult

        try:
            return self.session.submit(text, record=False)
        except Exception as exc:
            return CommandResult(text, "", error_line(exc) + "\n")

    def show_output(self, command: str, *, title: str = "", language: str | None = None) -> None:
        from .screens.text import TextScreen

        self.push_screen(TextScreen(command, title=title, language=language))

    def show_aliases(self) -> None:
        """ctrl+a in any view: every list view and its aliases, once (not again on top)."""
        from .habits import aliases_text
        from .screens.text import TextScreen

        if isinstance(self.screen, TextScreen) and self.screen.command == "aliases":
            return
        self.push_screen(TextScreen("aliases", title="aliases (:NAME opens the view)",
                                    text=aliases_text(), live=False))

    def run_command_line(self, line: str) -> None:
        """What the `:` bar does with a line."""
        try:
            parsed = parse_command_line(line)
        except Exception as exc:
            self.notify(error_line(exc), severity="error", markup=False)
            return
        if parsed is None:
            return
        if isinstance(parsed, QuitCommand):
            self.exit(0)
        elif isinstance(parsed, BoardCommand):
            self.go_board()
        elif isinstance(parsed, HelpCommand):
            self.screen.action_help() if hasattr(self.screen, "action_help") else None
        elif isinstance(parsed, ExplainCommand):
            self.open_explain(parsed.namespace, parsed.name)
        elif isinstance(parsed, ViewCommand):
            self.open_view(parsed.kind, namespace=parsed.namespace, filter_text=parsed.filter)
        elif isinstance(parsed, SubmitCommand):
            words = parsed.text.split()
            verb = words[1] if len(words) > 1 else ""
            if verb == "edit":
                self.open_editor(parsed.text)
            elif verb in READ_VERBS and "-w" not in words and "--watch" not in words:
                language = "yaml" if "yaml" in parsed.text else None
                self.show_output(parsed.text, title=parsed.text, language=language)
            else:
                self.submit(parsed.text)

    # -- navigation -----------------------------------------------------------------------
    def go_board(self) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()

    def open_view(self, kind: str, *, namespace: str | None = None, filter_text: str = "",
                  node: str | None = None) -> None:
        from .screens.resources import ResourceScreen, pod_list

        kept = False
        if kind == "Pod" and node is None:
            screen, kept = pod_list(self, namespace, filter_text)
        else:
            screen = ResourceScreen(kind, namespace=namespace, node=node,
                                    filter_text=filter_text)
        if isinstance(self.screen, ResourceScreen):
            # `-` comes back here (k9s's previous view).
            self.previous_view = self.screen.place()
        # `:` from a list view switches views (k9s); from the board it stacks, esc returns.
        if screen is self.screen:
            pass  # the kept pod list on show: readied in place below
        elif isinstance(self.screen, ResourceScreen) and len(self.screen_stack) > 2:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)
        if kept:
            # On the stack now (its crumbs are read from it), drawn after it was readied.
            screen.reopen(namespace, filter_text)

    def open_node_pods(self, node: str) -> None:
        from .screens.resources import ResourceScreen

        self.drill_into(ResourceScreen("Pod", node=node))

    def drill_into(self, screen: Any) -> None:
        """enter on a list row: the rows it stands for, on top (esc comes back); from a list
        view, ``-`` comes back too (k9s's last view, the view drilled from)."""
        from .screens.resources import ResourceScreen

        if isinstance(self.screen, ResourceScreen):
            self.previous_view = self.screen.place()
        self.push_screen(screen)

    def open_editor(self, text: str) -> None:
        """`:edit TYPE NAME`: kubectl edit's editor on the object (screens/edit.py); a line
        that does not parse, or an object that is not there, gets kubectl's error."""
        from ..commands import format_error
        from ..commands import parse as parse_command
        from ..commands.edit import EditCommand, editor_text
        from .screens.edit import EditScreen

        try:
            cmd = parse_command(text)
            if not isinstance(cmd, EditCommand):
                raise TypeError(text)
            started = editor_text(self.session, cmd)
        except Exception as exc:  # kubectl's words for a bad line or a missing object
            self.notify(format_error(exc).strip(), severity="error", markup=False)
            return
        self.push_screen(EditScreen(cmd, text, started))

    def open_explain(self, namespace: str, name: str) -> None:
        """The explain view of a pod. Collections wait from here until its answer's frame
        (``gc_hold``; the key that opens it holds them only to the first frame): the worker's
        computation allocates enough for a young collection to fall inside nearly every
        opening at 1,000 nodes (1.5-30 ms on a loaded machine), paid by the answer."""
        from .screens.explain import open_explain

        self.gc_hold.hold()
        open_explain(self, namespace, name)

    # -- crash guards ---------------------------------------------------------------------
    async def _dispatch_action(self, namespace: Any, action_name: str, params: Any) -> bool:
        """Every key's action passes here. A screen's action runs only once that screen is
        mounted and current: a key typed right after the one that opened it (Enter then x)
        waits in the screen's queue until it has mounted, and one whose screen is gone by
        then does nothing. An action that raises is reported (guard.report_bug) and the
        state is kept."""
        if isinstance(namespace, Screen) and namespace is not self:
            if not namespace.is_mounted:
                namespace.call_later(self._dispatch_when_current, namespace, action_name,
                                     params)
                return True
        try:
            return await super()._dispatch_action(namespace, action_name, params)
        except Exception as exc:  # noqa: BLE001 - one key's bug must not end the session
            report_bug(self, exc, f"The key's action '{action_name}'")
            return True

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:
            if not self._key_order.hold(event):  # a key ahead of it is not handled yet
                await self._deliver_key(event)
            return
        await super().on_event(event)

    async def _deliver_key(self, event: events.Key) -> None:
        """A key as Textual's App.on_event hands it over (priority bindings, or down to the
        focused widget); one handed down is followed by its marker (key_order)."""
        screen = self.screen
        target = self.focused or screen
        await super().on_event(event)
        if event.is_forwarded:
            self._key_order.forwarded(event, target, screen)

    def on_key_handled(self, message: KeyHandled) -> None:
        self._key_order.handled(message)

    def _prune(self, *nodes: Any, parent: Any = None) -> Any:
        removal = super()._prune(*nodes, parent=parent)
        self._key_order.pruned()  # a key's marker posted to a removed widget will not come back
        return removal

    async def _on_key(self, event: events.Key) -> None:
        """A key that bubbled back up here: its non-priority bindings run against the screen
        on top now (as in Textual's handler, which this one replaces), and a key none of them
        took is answered by that same screen (KsScreen.answer_unbound_key: "'b' does nothing
        in the board view"), not by the screen it passed through on its way, which a key
        ahead of it in the burst may have closed since."""
        from textual._dispatch_key import dispatch_key

        event.prevent_default()  # Textual's App._on_key would run the bindings a second time
        if await self._check_bindings(event.key):
            return
        answer = getattr(self.screen, "answer_unbound_key", None)
        if answer is not None:
            answer(event)
            if event._stop_propagation:
                return
        await dispatch_key(self, event)  # Textual's key_ methods, as its handler does

    async def _dispatch_when_current(self, screen: Screen, action_name: str,
                                     params: Any) -> None:
        if screen.is_mounted and screen is self.screen:
            await self._dispatch_action(screen, action_name, params)

    def action_command_palette(self) -> None:
        """Textual's palette with its page keys guarded (guard.GuardedCommandPalette). A
        ctrl+p while the last palette is still closing (dismissed, not yet removed) does
        nothing: a second one with the same id would raise DuplicateIds."""
        if not self.use_command_palette or GuardedCommandPalette.is_open(self):
            return
        if any(node.id == PALETTE_ID for node in self._nodes):
            return
        self.push_screen(GuardedCommandPalette(id=PALETTE_ID))

    def pop_screen(self) -> AwaitComplete:
        """Textual's pop, except for the board, which is never popped.

        Textual pops whatever screen is on top (``Screen.dismiss`` too, whichever screen calls
        it). With the board popped, Textual's blank default screen is left: it has no keys, so
        the app looks frozen with an empty screen (the random-key stress test found it). A
        pop that would leave fewer than two screens is a bug in the caller: reported
        (guard.report_bug, so the tests fail on it) and refused."""
        if len(self._screen_stack) <= 2:
            report_bug(self, ScreenStackError("popping the board would leave a blank screen"),
                       "Closing the screen on top")
            return AwaitComplete.nothing()
        return super().pop_screen()

    def _handle_exception(self, error: Exception) -> None:
        """A failure of the app itself (Textual's last stop: it ends the app). Before it
        ends, the session so far is written as a recording in the working directory;
        run_tui says where. The traceback is printed only with --debug."""
        if self.crash is None:
            self.crash = (error, self._save_crash_recording())
        if self.show_traceback:
            super()._handle_exception(error)
            return
        self._return_code = 1
        if self._exception is None:
            self._exception = error
            self._exception_event.set()
        self._close_messages_no_wait()

    def _save_crash_recording(self) -> Path | None:
        try:
            from ..recording.player import dump_recording

            text = dump_recording(self.session, title=f"{self.session.name} (crashed)")
            path = free_path(Path.cwd(), "ksandbox-crash")
            path.write_text(text, encoding="utf-8")
            return path
        except Exception:  # noqa: BLE001 - a failing save must not hide the failure
            return None

    # -- palette --------------------------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for title, help_, action in _palette_actions(screen):
            yield SystemCommand(title, help_, _runner(screen, action))
        views = (("Nodes", "Node"), ("Pods", "Pod"), ("Deployments", "Deployment"),
                 ("DaemonSets", "DaemonSet"), ("ReplicaSets", "ReplicaSet"),
                 ("Events", "Event"), ("HorizontalPodAutoscalers", "HorizontalPodAutoscaler"),
                 ("Namespaces", "Namespace"))
        for label, kind in views:
            yield SystemCommand(f"View: {label}", f"List {label.lower()} (k9s :{kind.lower()})",
                                lambda k=kind: self.open_view(k))
        yield SystemCommand("View: Node board", "Back to the node board", self.go_board)
        yield SystemCommand("Clock: pause / resume", "space", self.action_toggle_pause)
        yield SystemCommand("Clock: faster", ">", self.action_faster)
        yield SystemCommand("Clock: slower", "<", self.action_slower)
        yield SystemCommand("Clock: jump to the next event", ".", self.action_step)
        for name in sorted(self.available_themes):
            if name.startswith("ksandbox-"):
                yield SystemCommand(f"Theme: {name}", "Switch theme (remembered)",
                                    lambda n=name: setattr(self, "theme", n))
        if self.recording:
            yield SystemCommand("Recording: stop and save", "R — write the recording",
                                self.action_toggle_recording)
            yield SystemCommand("Recording: add a caption or marker", "m", self.action_annotate)
        else:
            yield SystemCommand("Recording: start", "R — record from now",
                                self.action_toggle_recording)
        yield SystemCommand("Screenshot (SVG)", "ctrl+s", self.action_screenshot_svg)
        if self.player is not None:
            yield SystemCommand("Player: go to a time", "ctrl+g", self.action_player_goto)
            yield SystemCommand("Player: restart", "home", self.action_player_restart)
            yield SystemCommand("Player: take over (go on live)", "ctrl+t",
                                self.action_take_over)


def _palette_actions(screen: Screen) -> list[tuple[str, str, str]]:
    """The screen's own key actions, as palette entries ("Taint node node-2")."""
    out = []
    check = getattr(screen, "available", None) or getattr(screen, "check_action", None)
    for binding in screen._bindings.key_to_bindings.values():
        for b in binding:
            if not b.description or b.action in ("command", "filter", "back", "help"):
                continue
            if check is not None and check(b.action, ()) is False:
                continue
            subject = ""
            target = getattr(screen, "node_target", None)
            if b.id and b.id.startswith("node.") and target is not None:
                subject = f" node {target()}"
            elif hasattr(screen, "target") and (t := screen.target()) is not None \
                    and b.id and not b.id.startswith("node."):
                subject = f" {t.resource} {t.name}"
            out.append((f"{b.description}{subject}", f"key: {b.key}", b.action))
    return out


def _runner(screen: Screen, action: str):
    def run() -> None:
        method = getattr(screen, f"action_{action}", None)
        if method is not None:
            method()
    return run


def freeze_heap(collect: bool = True) -> None:
    """Move everything alive now out of the garbage collector's reach.

    A full collection walks every tracked object; with 30,000 pods that is a million objects
    and a 100–300 ms pause in the middle of a key press. The cluster's objects are immutable
    values freed by reference counting, so the cycle collector has little to find among them:
    they are frozen (``gc.freeze``, which costs nothing) once loaded, and again every
    :data:`FREEZE_EVERY` second while the app runs, so a collection only ever walks what was
    created in the last second — heartbeats replace 1,000 Node objects every ten simulated
    seconds, and letting them pile up into the older generations made 200 ms collections.
    Objects freed by reference counting are freed frozen or not; the price is that cyclic
    garbage still alive at a freeze is never reclaimed (a closed dialog's widgets: kilobytes).
    """
    import gc

    if collect:
        gc.collect()
        # Fewer, larger young collections: the sandbox allocates in bursts (a 30,000-row
        # re-sort makes 60,000 tuples) and 700 allocations between collections would mean
        # dozens of collections inside one key press.
        gc.set_threshold(GC_THRESHOLD, 20, 20)
    gc.freeze()


def _after_first_frame(app: KsandboxApp) -> None:
    """Start-up housekeeping that waits until the board is on screen: the collection walks
    the whole loaded heap (0.05 s for the default sample, far more for a big cluster), and
    the attrs methods cache (api/methods_cache.py), the compiled regular expressions
    (regex_cache.py), the code compiled from generated source (code_cache.py) and the
    parsed stylesheet (css_cache.py) are written now — a TUI is
    seldom left through a normal interpreter exit, and its first start should leave the
    caches behind."""
    import gc

    freeze_heap()
    gc.enable()         # cli._run_tui turned it off until the first frame
    from .. import code_cache, regex_cache
    from ..api import methods_cache

    methods_cache.save()
    regex_cache.save()
    code_cache.save()
    if app._css_cache is not None:
        app._css_cache.save(app.stylesheet)


def make_app(session: Session, **opts: Any) -> KsandboxApp:
    """The App for ``session`` (the CLI and the tests build it the same way)."""
    return KsandboxApp(session, **opts)


def run_tui(session: Session, *, recording: Any = None, speed: float = 1.0,
            paused: bool = False, record_to: Path | None = None, record: bool = False,
            debug: bool = False) -> int:
    """Open the TUI on ``session``; returns the exit status. ``record``: already recording
    (into ``record_to``); a recording still running at exit is saved. If the app itself
    failed, one ``error:`` line says so and where the session so far was saved."""
    app = make_app(session, recording=recording, speed=speed, paused=paused,
                   record_to=record_to, record=record, debug=debug)
    app.freeze_heap_after_first_frame = True
    app.run()
    if app.crash is not None:
        sys.stderr.write(crash_message(*app.crash))
        return 1
    if app.recording:
        try:
            path = app.recorder_controls.stop(quiet=True)
        except (OSError, KsandboxError) as exc:
            sys.stderr.write(f"error: could not save the recording: {exc}\n")
            return 1
        if path is not None:
            print(f"Recording saved to {path}")
    return app.return_code or 0


def crash_message(error: BaseException, saved: Path | None) -> str:
    detail = " ".join(str(error).split())
    what = f"{type(error).__name__}: {detail}" if detail else type(error).__name__
    where = (f"; the session so far is saved in {saved} (ksandbox play {saved.name} replays "
             f"it)" if saved is not None else "; the session could not be saved")
    return (f"error: the TUI stopped on an internal error ({what}); this is a bug in "
            f"ksandbox, please report it (run again with --debug for the traceback){where}\n")
