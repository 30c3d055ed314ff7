"""Progress of a long headless run, on stderr (never stdout: ``sim -o json`` stays clean).

In tui/ because it draws with Rich (only tui/ imports it); Rich is imported only once there is
something to draw, so a short or redirected headless run never loads it.

    progress = RunProgress("simulating", until=args.until)   # until: a bar; None: a counter
    session = Session(..., progress=progress)                 # or session.progress = progress
    with progress:
        session.settle()

The session calls the object with the simulated time between slices of its run
(``Session.progress``). Nothing is drawn for the first ``after`` wall seconds, so short runs
print nothing; it is drawn only when the stream is a terminal (``enabled`` overrides that — the
tests use it). The display reads the wall clock; the simulation never does, and the run is the
same with or without a display.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, TextIO, TypeVar

# Wall seconds before anything is drawn (issue 13: a run that takes over a second shows its
# progress), and between two redraws.
SHOW_AFTER = 1.0
REFRESH = 0.1


_D = TypeVar("_D", bound="_StderrDisplay")


class _StderrDisplay:
    """What both displays share: the stream (stderr), whether to draw at all (a terminal,
    unless ``enabled`` says), the wall time it began, the first draw ``after`` seconds later,
    and a transient Rich display that ``close`` takes off the terminal."""

    def __init__(self, stream: TextIO | None, after: float, enabled: bool | None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self._began = time.monotonic()
        self._next = self._began + after
        self._bar: Any = None
        self._task: Any = None
        self.shown = False

    def close(self) -> None:
        """Take the display off the terminal (it is transient: the output that follows is
        not mixed with it)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self: _D) -> _D:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RunProgress(_StderrDisplay):
    def __init__(self, label: str = "simulating", *, until: float | None = None,
                 stream: TextIO | None = None, after: float = SHOW_AFTER,
                 enabled: bool | None = None,
                 detail: Callable[[], str] | None = None) -> None:
        super().__init__(stream, after, enabled)
        self.label = label
        self.until = until
        self.after = after
        self.detail = detail

    # -- the hook ---------------------------------------------------------------------------
    def __call__(self, now: float) -> None:
        """The session's hook: cheap until it is time to draw (one monotonic read)."""
        if not self.enabled:
            return
        wall = time.monotonic()
        if wall < self._next:
            return
        self._next = wall + REFRESH
        self._draw(now)

    def _draw(self, now: float) -> None:
        if self._bar is None:
            self._open()
        text = self.detail() if self.detail is not None else ""
        if self.until is not None:
            self._bar.update(self._task, completed=min(now, self.until), detail=text)
        else:
            self._bar.update(self._task, completed=now, detail=text)
        self._bar.refresh()

    def _open(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        console = Console(file=self.stream, force_terminal=True if self.enabled else None)
        if self.until is not None:
            columns: list[Any] = [TextColumn("{task.description}"), BarColumn(),
                                  TextColumn("{task.completed:.0f}/{task.total:.0f} s simulated"),
                                  TimeElapsedColumn(), TextColumn("{task.fields[detail]}")]
        else:
            columns = [SpinnerColumn(), TextColumn("{task.description}"),
                       TextColumn("{task.completed:.0f} s simulated"), TimeElapsedColumn(),
                       TextColumn("{task.fields[detail]}")]
        self._bar = Progress(*columns, console=console, transient=True, auto_refresh=False)
        self._task = self._bar.add_task(self.label, total=self.until, detail="")
        self._bar.start()
        self.shown = True



class LoadProgress(_StderrDisplay):
    """The stderr display of a long load: parsing, decoding, checking and storing the objects
    (the loaders report through api/loadprogress.py), then starting the control plane.

        with LoadProgress("cluster.json") as shown, loadprogress.reporting(shown.report):
            objects = load_file(...)
            session = Session(objects, progress=shown.starting)

    Drawn only when the stream is a terminal (``enabled`` overrides that) and only once the
    load has taken ``after`` wall seconds; transient, like RunProgress (close it before a
    RunProgress draws: one live display at a time). ``interrupted`` is called on every report
    and may raise to stop the load (ctrl+c).
    """

    _WORDS = {"parsing": "parsing", "decoding": "decoding", "checking": "checking",
              "storing": "storing"}

    def __init__(self, label: str, *, stream: TextIO | None = None, after: float | None = None,
                 enabled: bool | None = None,
                 interrupted: Callable[[], None] | None = None) -> None:
        if after is None:
            after = SHOW_AFTER
        super().__init__(stream, after, enabled)
        self.label = label
        self.interrupted = interrupted

    def report(self, stage: str, done: int, total: int) -> None:
        """The loaders' hook (api/loadprogress.py): cheap until it is time to draw."""
        if not self._due():
            return
        if stage == "parsing":
            what = f"parsing {done / 2**20:,.1f}/{total / 2**20:,.1f} MiB"
        else:
            what = f"{self._WORDS.get(stage, stage)} {done:,}/{total:,} objects"
        self._draw(done, total or None, what)

    def starting(self, now: float) -> None:
        """The Session's progress hook while it starts the control plane (simulated time 0:
        kubelets register, pods are adopted or started)."""
        if self._due():
            self._draw(0, None, "starting the control plane")

    def _due(self) -> bool:
        """Both hooks: let ctrl+c stop the load, then whether it is time to draw."""
        if self.interrupted is not None:
            self.interrupted()
        if not self.enabled:
            return False
        wall = time.monotonic()
        if wall < self._next:
            return False
        self._next = wall + REFRESH
        return True

    def _draw(self, done: int, total: int | None, what: str) -> None:
        if self._bar is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            console = Console(file=self.stream, force_terminal=True if self.enabled else None)
            self._bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                 TextColumn("{task.fields[what]}"), TimeElapsedColumn(),
                                 console=console, transient=True, auto_refresh=False)
            self._task = self._bar.add_task(f"loading {self.label}", total=total, what="")
            # the elapsed time counts from the start of the load, not from the first draw
            # (rich's clock is time.monotonic, as ours)
            for task in self._bar.tasks:
                task.start_time = self._began
            self._bar.start()
            self.shown = True
        self._bar.update(self._task, completed=done, total=total, what=what)
        self._bar.refresh()

