"""Drive the real ``ksandbox`` binary in tmux and read the screen a person would see.

Each :class:`Terminal` runs on its own tmux server (``-L`` with the test's pid and a counter),
so tests never touch a user's tmux or each other's. Waits poll ``capture-pane`` with a bounded
deadline — no fixed sleeps. Keys are sent with ``send-keys``: one call with several keys is one
burst, as a paste or an SSH read delivers them.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_counter = itertools.count()
DEADLINE = 25.0


def has_toast(screen: str) -> bool:
    """Whether a notification is drawn: a toast's left edge is a column of ``▌`` three lines
    or more high (a table's cursor mark is one ``▌``)."""
    run: dict[int, int] = {}
    for line in screen.splitlines():
        run = {col: run.get(col, 0) + 1 for col, ch in enumerate(line) if ch == "▌"}
        if any(n >= 3 for n in run.values()):
            return True
    return False


def need_tmux() -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: the real-terminal tests need it")


class Terminal:
    def __init__(self, args: list[str], *, width: int, height: int, config_home: Path,
                 extra_env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        need_tmux()
        self.socket = f"ksb-test-{os.getpid()}-{next(_counter)}"
        self.name = "ksb"
        self.width, self.height = width, height
        env = {"XDG_CONFIG_HOME": str(config_home), "TERM": "xterm-256color",
               "COLORTERM": "truecolor", "TEXTUAL_ANIMATIONS": "none", **(extra_env or {})}
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        # -m ksandbox imports the checkout's package from the working directory: with another
        # directory, PYTHONPATH points at the checkout.
        if cwd is not None:
            exports += f" PYTHONPATH={ROOT}"
        cmd = " ".join([sys.executable, "-m", "ksandbox", *args])
        # A server of our own with no user config, born at the size we want (a window made at
        # tmux's default 80×24 and resized after the app started could race its first frame).
        conf = config_home / "tmux.conf"
        conf.write_text(f"set -g default-size {width}x{height}\nset -g status off\n")
        self._conf = str(conf)
        # Textual draws on stderr: it is not redirected; a traceback stays on the screen.
        self._tmux("new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height),
                   "-c", str(cwd or ROOT), f"env -u COLUMNS -u LINES {exports} {cmd}; sleep 60")

    def _tmux(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, "-f", self._conf, *args], capture_output=True,
                             text=True, timeout=20)
        return out.stdout

    # -- reading --------------------------------------------------------------------------
    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.name)

    def wait_for(self, pattern: str, timeout: float = DEADLINE) -> str:
        """The screen once ``pattern`` (a regex) is on it; fails with the last screen."""
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        text = ""
        while time.monotonic() < end:
            text = self.screen()
            if rx.search(text):
                return text
            time.sleep(0.1)
        raise AssertionError(f"{pattern!r} never appeared; the screen:\n{text}")

    def wait_until(self, pred, timeout: float = DEADLINE) -> str:
        end = time.monotonic() + timeout
        text = ""
        while time.monotonic() < end:
            text = self.screen()
            if pred(text):
                return text
            time.sleep(0.1)
        raise AssertionError(f"the screen never matched; last:\n{text}")

    def wait_steady(self, still: float = 0.5, timeout: float = DEADLINE) -> str:
        """The screen once it has not changed for ``still`` seconds: a layout the app is
        still settling (a pane re-rendered a moment after it first showed) is done."""
        end = time.monotonic() + timeout
        last, since = self.screen(), time.monotonic()
        while time.monotonic() < end:
            time.sleep(0.1)
            now = self.screen()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= still:
                return now
        raise AssertionError(f"the screen never held still; last:\n{last}")

    def wait_toasts_gone(self, timeout: float = DEADLINE) -> str:
        """The screen once no notification is drawn: a step's or a command's toast covers the
        bottom right of the screen for a few seconds."""
        return self.wait_until(lambda s: not has_toast(s), timeout)

    def app_running(self) -> bool:
        """Whether ksandbox is still running in the pane (after it exits, the pane's shell
        runs ``sleep`` so the last screen stays readable)."""
        pid = self._tmux("list-panes", "-t", self.name, "-F", "#{pane_pid}").strip()
        if not pid:
            return False
        out = subprocess.run(["ps", "-o", "comm=", "--ppid", pid], capture_output=True,
                             text=True, timeout=20).stdout.split()
        return any(name != "sleep" for name in out)

    # -- typing ---------------------------------------------------------------------------
    def keys(self, *keys: str) -> None:
        """tmux key names (``Enter``, ``Escape``, ``C-a``) and literal text, in one burst."""
        self._tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        """Literal text, one burst."""
        self._tmux("send-keys", "-t", self.name, "-l", text)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=20)


@pytest.fixture
def terminal(tmp_path):
    opened: list[Terminal] = []

    def open_(args: list[str], width: int = 80, height: int = 24) -> Terminal:
        home = tmp_path / f"cfg{len(opened)}"
        home.mkdir()
        term = Terminal(args, width=width, height=height, config_home=home)
        opened.append(term)
        return term

    yield open_
    for term in opened:
        term.close()
