"""Recording in the TUI: ``R`` starts and stops, ``m`` adds a caption or a marker.

A :class:`Recorder` remembers where recording began — how many steps the session's history held
and the time, to the millisecond — and the captions and markers added since. Stopping writes a
v1alpha2 recording (``ksandbox.recording.player.dump_recording``): the commands before the
start go to ``start.steps`` (replayed silently, so playback begins from exactly the state the
user saw: timers, queues and random streams included), the commands since are the steps, and
``end`` is the moment recording stopped, so the timeline runs to where the user stopped it.

:class:`RecorderControls` is mixed into the App (keys, the annotate dialog, saving).
``ksandbox record [FILE...] -o OUT.yaml`` opens the App already recording into OUT.yaml; the
recording is saved when ``R`` stops it or when the App exits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.binding import Binding

from ..api.errors import KsandboxError
from ..session import ceil_ms
from .widgets.player_bar import clock

RECORDER_BINDINGS = [
    Binding("R", "toggle_recording", "Record", show=False, id="app.record"),
    Binding("m", "annotate", "Caption/marker", show=False, id="app.annotate"),
    Binding("ctrl+s", "screenshot_svg", "Screenshot", show=False, id="app.screenshot"),
]


class Recorder:
    """What one recording needs besides the session's own history."""

    def __init__(self, session: Any, path: Path | None = None) -> None:
        self.start_index = len(session.history)
        self.start = ceil_ms(session.now)
        self.path = path
        self.captions: list[tuple[float, str]] = []
        self.markers: list[tuple[float, str]] = []

    def add(self, kind: str, text: str, at: float) -> None:
        (self.captions if kind == "caption" else self.markers).append((ceil_ms(at), text))

    def text(self, session: Any, *, end: float,
             terminal: tuple[int, int] | None = None) -> str:
        # Here, not at the top: the writer (and recording/script.py under it) is needed when a
        # recording is saved, not to draw the first frame.
        from ..recording.player import dump_recording

        return dump_recording(session, title=session.name, terminal=terminal,
                              captions=self.captions, markers=self.markers,
                              start_index=self.start_index, start=self.start, end=end)


def free_path(folder: Path, stem: str, suffix: str = ".yaml") -> Path:
    n = 1
    while (folder / f"{stem}-{n}{suffix}").exists():
        n += 1
    return folder / f"{stem}-{n}{suffix}"


class RecorderControls:
    """The recording half of the App: start, stop and save, captions and markers, and
    screenshots. The App holds one and its key actions call it."""

    def __init__(self, app: Any, *, record_to: Path | None = None,
                 record: bool = False) -> None:
        self.app = app
        self.record_to = record_to
        """Where the next recording goes (``ksandbox record -o``); None: a free name."""
        self.recorder: Recorder | None = Recorder(app.session, record_to) if record else None

    @property
    def recording(self) -> bool:
        return self.recorder is not None

    def start(self) -> None:
        app = self.app
        if app.player is not None:  # what is recorded is what the user does: go live first
            app.player_controls.take_over()
        self.recorder = Recorder(app.session, self.record_to)
        app.publish()
        app.notify(f"● recording from {clock(app.session.now)} — R stops and saves, m adds a "
                   f"caption or marker", timeout=4)

    def stop(self, quiet: bool = False) -> Path | None:
        """Write the recording (to ``-o`` or a free name in the working folder); its path.
        ``quiet``: the App has exited — errors are raised, nothing is notified."""
        rec, app = self.recorder, self.app
        if rec is None:
            return None
        session = app.session
        # Stop on a whole millisecond, as commands run: the file's `end` is then exactly now.
        session.run_until(ceil_ms(session.now))
        try:
            size = app.size
            terminal = (size.width, size.height) if size.width >= 10 and size.height >= 10 \
                else None
            text = rec.text(session, end=session.now, terminal=terminal)
            path = rec.path or free_path(Path.cwd(), "ksandbox-recording")
            path.write_text(text, encoding="utf-8")
        except (OSError, KsandboxError) as exc:
            if quiet:
                raise
            app.notify(f"error: could not save the recording: {exc}", severity="error")
            return None
        self.recorder = None
        # A second recording in the same run does not overwrite the first.
        self.record_to = None
        if not quiet:
            app.publish()
            app.notify(f"Recording saved to {path} — ksandbox play {path}")
        return path

    def toggle(self) -> None:
        if self.recorder is None:
            self.start()
        else:
            self.stop()

    def annotate(self) -> None:
        app = self.app
        rec = self.recorder
        if rec is None:
            app.notify("not recording — R starts a recording; m then adds captions and "
                       "markers", timeout=3)
            return
        at = app.session.now

        def done(value: str | None) -> None:
            if value and self.recorder is rec:
                kind, _, text = value.partition(":")
                rec.add(kind, text, at)
                app.notify(f"{kind} at {clock(at)}: {text}", timeout=3, markup=False)

        from .dialogs.annotate import AnnotateDialog  # on first use: not at start (its module)

        app.push_screen(AnnotateDialog(at), done)

    def screenshot(self) -> Path | None:
        """ctrl+s: the screen as an SVG file in the working folder."""
        app = self.app
        name = str(getattr(app.session, "name", "sandbox")).replace("/", "-").replace(",", "-")
        stem = f"ksandbox-{name}-{clock(app.session.now).replace(':', '')}"
        path = free_path(Path.cwd(), stem, ".svg")
        try:
            saved = app.save_screenshot(filename=path.name, path=str(path.parent))
        except OSError as exc:
            app.notify(f"error: could not save the screenshot: {exc}", severity="error")
            return None
        app.notify(f"Screenshot saved to {saved}", timeout=4)
        return Path(saved)
