"""The TUI does not die under fast keys (issue 14): the real binary in tmux at 120×40 on the
built-in cluster, keys sent with no pause between them, as a fast typist, a paste or SSH
delivers them.

- Targeted sequences that used to end the app: ``Enter`` then at once a node key on the board
  (the key reached the pod list before it had mounted: NoMatches ResourceTable); ``ctrl+p``
  then at once PageDown/PageUp (Textual's OptionList._move_page, KeyError: 0, before the
  palette's list is laid out); a dialog confirmed or cancelled twice in one burst
  (ScreenStackError popping a screen that was already gone).
- Seeded random bursts of every key the app binds (several seeds, thousands of keys each).

Each run fails on an exit, a traceback on the screen, or a bug the guards caught and reported
(``$KSANDBOX_BUG_LOG``: a guarded bug is still a bug). At the end a probe (``:`` and an unknown
view name) proves every key was consumed and the app still answers. Bounded: about 10 s a run.
"""

from __future__ import annotations

import os
import random
import subprocess
import time
from pathlib import Path

import pytest
from terminal import Terminal, need_tmux

# Keys the app binds anywhere, plus what a dialog or the bar reads. Not here: quitting keys
# (ctrl+c, ctrl+q, q) — exiting is legitimate — and ctrl+z (suspend). The palette is entered
# only as a unit that closes it again (a fuzzy palette search can find "Quit").
KEYS = ["Enter", "Escape", "Tab", "BTab", "Up", "Down", "Left", "Right", "PageUp", "PageDown",
        "Home", "End", "Space", "BSpace", "C-d",
        *"tTcurxXplesdy/?.<>:nbowk0123=-"]
PALETTE = ("C-p", "PageDown", "PageUp", "Down", "Escape")
# CI: three seeds of 700 keys, side by side (the app drains a burst that opens screens at
# tens of keys a second on a loaded machine). KSANDBOX_STRESS_KEYS / KSANDBOX_STRESS_SEEDS
# run a longer one.
SEEDS = [int(s) for s in os.environ.get("KSANDBOX_STRESS_SEEDS", "1,2,3").split(",")]
KEYS_PER_SEED = int(os.environ.get("KSANDBOX_STRESS_KEYS", "700"))
BURST = 100
DRAIN = 90.0  # seconds the probe waits for the app to have read every key, and answer
DRAIN_MAX = 300.0  # … stretched while the app is still busy reading them

# Alone in `make test` (before the parallel run): the probe tells a frozen app from a slow one
# by the CPU time it gets, and three apps beside another test worker on two cores get little.
pytestmark = pytest.mark.serial


def _open(tmp_path: Path, name: str) -> tuple[Terminal, Path]:
    need_tmux()
    home = tmp_path / f"cfg-{name}"
    home.mkdir()
    work = tmp_path / f"cwd-{name}"
    work.mkdir()
    bugs = tmp_path / f"bugs-{name}.log"
    # PYTHONFAULTHANDLER: a probe that gets no answer makes the app dump every thread's stack
    # (SIGABRT) onto the screen, so the failure says where it was stuck.
    term = Terminal([], width=120, height=40, config_home=home, cwd=work,
                    extra_env={"KSANDBOX_BUG_LOG": str(bugs), "PYTHONFAULTHANDLER": "1"})
    term.wait_for(r"nodes\[")
    return term, bugs


# The "freeze" these tests used to meet now and then (no answer, an old frame on the screen)
# had two causes. A second close queued for the command palette (Enter Enter) popped the board
# too, since Textual's dismiss pops whatever is on top, and the blank default screen left took
# every key (guard.DismissOnce, app.KsandboxApp.pop_screen). And on a loaded machine an app
# still reading a burst that opens screens shows its last frame (Textual paints between
# messages) for longer than the probe waited; the probe now waits while the app is busy.
# And a third (2026-11-27: T+0 on the clock, the fork dialog half drawn, the app at 100 %
# CPU): a toast whose notification expired before it was built asked Textual for a negative
# wait, and Textual's timer spun without yielding (guard.no_negative_timers).


def _check(term: Terminal, bugs: Path, what: str) -> None:
    """Everything typed was consumed, the app answers, and nothing went wrong on the way."""
    # The probe: back to a view whose footer offers `:` (one Escape a call, apart: an Escape
    # followed at once by a key is read as alt+key, as any terminal application reads it),
    # then `:nosuchview`, whose error (the name in quotes, not the bar's echo of it) must
    # appear. Repeated while the app is still reading the burst: keys typed into a bar
    # before a screen covered it are read when it is back, and Textual paints only between
    # messages, so an app reading a long backlog shows an old frame (its clock stuck) while
    # it works. The deadline stretches while the app is busy (its CPU time grows), up to
    # DRAIN_MAX; an app that is idle and does not answer is frozen.
    pid = _app_pid(term)
    start = time.monotonic()
    end = start + DRAIN
    cpu = _cpu_seconds(pid)
    trail: list[str] = []  # what the probe saw and did, for the failure message
    answered = False
    while term.app_running() and time.monotonic() < end:
        now = time.monotonic()
        last = term.screen().rstrip("\n").splitlines()[-1:]
        cpu_now = _cpu_seconds(pid)
        busy = cpu_now - cpu
        cpu = cpu_now
        trail.append(f"{now - start:5.1f}s cpu+{busy:4.1f}s {last[0][:80] if last else ''!r}")
        if busy > 0.5:
            end = min(max(end, now + 20), start + DRAIN_MAX)
        if not (last and ": Cmd" in last[0]):
            term.keys("Escape")
            time.sleep(0.5)
            continue
        term.keys(":")
        time.sleep(0.3)
        term.type("nosuchview")
        term.keys("Enter")
        try:
            term.wait_for(r'"nosuchview"', timeout=5)
            answered = True
            break
        except AssertionError:
            # A dialog left open by the burst shows the board's footer beneath it (`: Cmd`),
            # and the probe's keys went into the dialog, whose Enter may not close it (focus
            # on a toggle): an Escape, apart, closes it before the next try. (Such an app,
            # idle, with a dialog and the board's clock stopped beneath it, looked frozen.)
            term.keys("Escape")
            time.sleep(0.5)
            continue
    screen = term.screen()
    assert term.app_running(), f"{what}: the app exited; the screen:\n{screen}"
    assert "Traceback" not in screen, f"{what}: a traceback:\n{screen}"
    assert "please report" not in screen, f"{what}: a bug was reported:\n{screen}"
    log = bugs.read_text() if bugs.exists() else ""
    assert log == "", f"{what}: the guards caught a bug:\n{log}"
    if not answered:
        stacks = _thread_stacks(term)
        # The threads first: CI keeps the head and the tail of a long failure, and where the
        # app was stuck is the part that matters.
        message = (f"{what}: the app did not answer the probe; the app's threads:\n{stacks}\n"
                   "the probe's last steps:\n" + "\n".join(trail[-12:])
                   + f"\nthe screen:\n{screen}")
        raise AssertionError(message)


def _app_pid(term: Terminal) -> int | None:
    """The app's process: the child of the pane's shell that is not ``sleep``."""
    pane = term._tmux("list-panes", "-t", term.name, "-F", "#{pane_pid}").strip()
    if not pane:
        return None
    out = subprocess.run(["ps", "-o", "pid=,comm=", "--ppid", pane], capture_output=True,
                         text=True, timeout=20).stdout.split("\n")
    for line in out:
        parts = line.split()
        if len(parts) == 2 and parts[1] != "sleep":
            return int(parts[0])
    return None


def _cpu_seconds(pid: int | None) -> float:
    """User + system CPU time the process has used (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _thread_stacks(term: Terminal) -> str:
    """Where a silent app is stuck: SIGABRT makes faulthandler print every thread's stack."""
    pid = term._tmux("list-panes", "-t", term.name, "-F", "#{pane_pid}").strip()
    if not pid:
        return "(no pane)"
    kids = subprocess.run(["pgrep", "-P", pid], capture_output=True, text=True,
                          timeout=20).stdout.split()
    # KSANDBOX_PYSPY=/path/to/py-spy: first six `py-spy dump --locals` a second apart, into
    # $KSANDBOX_PYSPY_OUT (they showed which screen was on top when the board was popped).
    spy = os.environ.get("KSANDBOX_PYSPY")
    if spy:
        dumps = []
        for k in kids:
            for _ in range(6):
                r = subprocess.run([spy, "dump", "--locals", "--pid", k], capture_output=True,
                                   text=True, timeout=60)
                dumps.append(r.stdout + r.stderr)
                time.sleep(1)
        out = Path(os.environ.get("KSANDBOX_PYSPY_OUT", "pyspy-dumps.txt"))
        out.write_text("\n=====\n".join(dumps))
    for k in kids:
        subprocess.run(["kill", "-ABRT", k], capture_output=True, timeout=20)
    time.sleep(2)
    lines = term._tmux("capture-pane", "-p", "-t", term.name, "-S", "-400").splitlines()
    start = next((i for i, line in enumerate(lines) if "Fatal Python error" in line), None)
    return "\n".join(lines[start:] if start is not None else lines[-60:])


@pytest.fixture
def opened():
    terms: list[Terminal] = []
    yield terms
    for t in terms:
        t.close()


def test_targeted_sequences_that_used_to_end_the_app(tmp_path, opened):
    term, bugs = _open(tmp_path, "targeted")
    opened.append(term)
    for _ in range(3):
        # Enter opens the first node's pods; x, t and c arrive before that screen mounts.
        term.keys("Enter", "x", "t", "Escape", "c", "Escape", "Escape")
        term.keys("C-p", "PageDown", "PageUp", "PageDown", "Escape")
        term.keys("t", "Enter", "Enter", "Escape", "Escape")          # taint dialog twice
        term.keys("C-d", "Escape", "Escape", "?", "?", "?", "Escape")   # nothing to delete
        term.keys("Enter", "C-d", "Enter", "Enter", "Escape", "Escape")  # delete: Cancel
    _check(term, bugs, "targeted sequences")


def test_random_keys_with_no_pauses(tmp_path, opened):
    """The seeds run side by side (one app each), so the test costs about one drain."""
    runs = []
    for seed in SEEDS:
        term, bugs = _open(tmp_path, f"seed{seed}")
        opened.append(term)
        runs.append((seed, term, bugs, random.Random(seed)))
    sent = 0
    while sent < KEYS_PER_SEED:
        for _seed, term, _bugs, rng in runs:
            burst: list[str] = []
            while len(burst) < BURST:
                if rng.random() < 0.01:
                    burst.extend(PALETTE)
                else:
                    burst.append(rng.choice(KEYS))
            term.keys(*burst)
        sent += BURST
    for seed, term, bugs, _rng in runs:
        _check(term, bugs, f"seed {seed} ({sent} keys)")
