"""The terminal going away under the running app: its window closed, tmux's server killed, an
ssh link dropped. The kernel hangs the tty up and sends SIGHUP to the terminal's foreground
process group, which ends the app as its default action. A process that gets no SIGHUP (one
that ignores it, as under ``nohup``, or one outside that group, as the TUI under ``make run``
was found to be) lives on: Textual's input thread then finds its terminal readable at
end-of-file on every pass and spins at half a core, for good. So the app also looks at its
terminal once a second and ends when it has hung up.
"""

from __future__ import annotations

import os
import select
import sys
import threading

# How often the app looks (seconds): a hung-up terminal is found within this.
CHECK_EVERY = 1.0
# The exit status of a process that SIGHUP ended (128 + SIGHUP), as a shell reports it.
EXIT_STATUS = 129
# How long the app's own shutdown may take before the process ends regardless: with its
# terminal gone, Textual's shutdown can wait for ever on its writer thread (seen when the
# terminal closed right after the first frame).
GRACE = 3.0


def terminal_fd() -> int | None:
    """The file descriptor of the app's terminal (standard input, else output), or None when
    neither is a terminal (a headless run, a test)."""
    for stream in (sys.__stdin__, sys.__stdout__):
        try:
            fd = stream.fileno() if stream is not None else -1
        except (OSError, ValueError):
            continue
        if fd >= 0 and os.isatty(fd):
            return fd
    return None


def hung_up(fd: int) -> bool:
    """Whether the terminal on ``fd`` hung up: poll reports a hang-up or an error on it
    (reported whatever events are asked for; none are, so a live terminal reports nothing)."""
    poller = select.poll()
    try:
        poller.register(fd, 0)
        events = poller.poll(0)
    except (OSError, ValueError):
        return True
    return any(mask & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _fd, mask in events)


def end_within(seconds: float = GRACE) -> None:
    """End the process after ``seconds`` if it is still running then (a daemon timer: a
    shutdown that finishes first ends the process before it fires)."""
    timer = threading.Timer(seconds, os._exit, args=(EXIT_STATUS,))
    timer.daemon = True
    timer.start()
