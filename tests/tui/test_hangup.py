"""The terminal going away under the real binary: the app ends (tui/hangup.py).

A process the kernel's SIGHUP does not reach (here: one that ignores it, as under nohup; the
TUI under ``make run`` in a killed tmux was another) used to live on with Textual's input
thread reading end-of-file in a loop, at half a core, for good. The binary runs in a
pseudo-terminal with SIGHUP ignored; the terminal is closed after the first frame; the process
must end within a few seconds, with the status a hang-up gives."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sys
import time
from pathlib import Path

import pytest

from ksandbox.tui import hangup

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>]|\x1b\][^\x07]*\x07")


def _wait_exit(pid: int, seconds: float) -> int | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.05)
    return None


@pytest.mark.skipif(not hasattr(select, "poll"), reason="needs poll(2)")
def test_the_app_ends_when_its_terminal_hangs_up_even_without_sighup():
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm-256color", TEXTUAL_ANIMATIONS="none")
    pid, fd = pty.fork()
    if pid == 0:   # the child: SIGHUP ignored (inherited across exec), then the real binary
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        os.chdir(ROOT)
        os.execvpe(sys.executable, [sys.executable, "-m", "ksandbox", "--paused"], env)
    status = None
    try:
        seen = b""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not re.search(rb"nodes\[\d+\]",
                                                             ANSI.sub(b"", seen)):
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    seen += os.read(fd, 65536)
                except OSError:
                    break
        assert re.search(rb"nodes\[\d+\]", ANSI.sub(b"", seen)), "no first frame"
        os.close(fd)   # the terminal goes away; SIGHUP, sent to the group, is ignored
        fd = -1
        status = _wait_exit(pid, 30)
        assert status is not None, "the app lived on after its terminal hung up"
        assert os.waitstatus_to_exitcode(status) == hangup.EXIT_STATUS
    finally:
        if fd >= 0:
            os.close(fd)
        if status is None:   # not reaped: it still runs
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def test_a_live_terminal_has_not_hung_up_and_a_closed_one_has():
    master, slave = pty.openpty()
    try:
        assert not hangup.hung_up(slave)
        os.close(master)
        master = -1
        assert hangup.hung_up(slave)
    finally:
        if master >= 0:
            os.close(master)
        os.close(slave)
