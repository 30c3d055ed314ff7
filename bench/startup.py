"""Process start to first frame of the real ``ksandbox`` binary on the default sample.

Issue 11 item 5 / DESIGN §5: ≤ 0.7 s. The binary runs in a pseudo-terminal (as a user starts
it); the clock starts just before the process is spawned and stops when the board's node list
(``nodes[N]``) has been written to the terminal. The child is then stopped and its CPU time
(user + system, from wait4) is reported too: on a loaded machine the wall figure drifts, the
CPU seconds much less. The package's bytecode is compiled first (``compileall``, as ``pip
install`` does): with PYTHONDONTWRITEBYTECODE set and no ``__pycache__``, every start would
compile ~170 modules (~0.35 s more), which is not what a user meets. One unmeasured start
runs first, allowed to write bytecode: it leaves the attrs methods cache
(``ksandbox/api/methods_cache.py``) and the parsed stylesheet (``ksandbox/tui/css_cache.py``)
as a user's first start does.

``--instructions`` counts instead of timing: the same start, under valgrind's cachegrind with
PYTHONHASHSEED=0, stopped (SIGTERM, on which valgrind still writes its counts) as soon as the
board's node list reaches the terminal, reports the instructions the process ran to its first
frame. A wall figure on this project's shared cores moves by ±5 %; this count moves by a few
hundredths of one, so a change's effect on the start can be read from one or two runs. (The
count includes what the app runs while the signal is on its way, valgrind's own start and
Python's; compare two trees measured the same way, not a count against a wall time.)

    python bench/startup.py [--runs 5] [FILE...]
    python bench/startup.py --instructions [--runs 2] [-- ARG...]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time

ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>]|\x1b\][^\x07]*\x07")
SENTINEL = re.compile(rb"nodes\[\d+\]")


def one_run(args: list[str], timeout: float = 30.0, drop: tuple[str, ...] = (),
            linger: float = 0.0, wrapper: tuple[str, ...] = (),
            extra_env: dict[str, str] | None = None) -> tuple[float, float]:
    """One start in a pseudo-terminal, to the board's first frame: (wall, CPU seconds).
    ``wrapper`` is a command line the binary runs under (valgrind): then the child is
    stopped by SIGTERM, which lets the wrapper write what it measured, and waited for."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", *drop)}
    env.update(TERM="xterm-256color", COLORTERM="truecolor", TEXTUAL_ANIMATIONS="none")
    env.update(extra_env or {})
    command = [*wrapper, sys.executable, "-m", "ksandbox", *args]
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real binary, as a user runs it
        os.execvpe(command[0], command, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 140, 0, 0))
    seen = b""
    first = None
    deadline = t0 + timeout
    while time.perf_counter() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        seen += chunk
        if SENTINEL.search(ANSI.sub(b"", seen)):
            first = time.perf_counter() - t0
            break
    end = time.perf_counter() + linger      # let the app finish what follows the frame
    while time.perf_counter() < end:
        if select.select([fd], [], [], 0.05)[0]:
            try:
                os.read(fd, 65536)
            except OSError:
                break
    os.kill(pid, signal.SIGTERM if wrapper else signal.SIGKILL)
    if wrapper:  # valgrind writes its summary to the terminal: keep draining it
        while not os.waitpid(pid, os.WNOHANG)[0]:
            if select.select([fd], [], [], 0.05)[0]:
                try:
                    os.read(fd, 65536)
                except OSError:
                    pass
        usage = None
    else:
        _, _, usage = os.wait4(pid, 0)
    os.close(fd)
    if first is None:
        raise SystemExit("no first frame within the timeout:\n" + ANSI.sub(b"", seen)[-2000:]
                         .decode(errors="replace"))
    return first, (usage.ru_utime + usage.ru_stime) if usage else 0.0


def instructions_run(args: list[str]) -> int:
    """The instructions one start ran to its first frame (cachegrind's total, ``Ir``)."""
    with tempfile.TemporaryDirectory(prefix="startup-ir-") as tmp:
        out = os.path.join(tmp, "cachegrind.out")
        one_run(args, timeout=600.0, extra_env={"PYTHONHASHSEED": "0"},
                wrapper=("valgrind", "--tool=cachegrind", "--cache-sim=no",
                         f"--cachegrind-out-file={out}", "--log-file=/dev/null"))
        with open(out) as f:
            for line in f:
                if line.startswith("summary:"):
                    return int(line.split()[1])
    raise SystemExit(f"no summary in {out}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--instructions", action="store_true",
                    help="count the instructions to the first frame (valgrind) instead")
    ap.add_argument("files", nargs="*", help="ksandbox's arguments (after --: its flags too)")
    a = ap.parse_args()
    import compileall
    from pathlib import Path

    compileall.compile_dir(str(Path(__file__).resolve().parents[1] / "ksandbox"), quiet=1)
    # A user's first start: it may write bytecode and the attrs methods cache
    # (ksandbox/api/methods_cache.py), which every later start reads. Not measured.
    one_run(a.files, drop=("PYTHONDONTWRITEBYTECODE",), linger=2.0)
    if a.instructions:
        counts = [instructions_run(a.files) for _ in range(a.runs)]
        print(f"instructions to first frame ({a.runs} runs): median "
              f"{statistics.median(counts) / 1e6:,.1f}M ("
              + ", ".join(f"{c / 1e6:,.1f}M" for c in counts) + ")")
        return
    walls, cpus = [], []
    for _ in range(a.runs):
        wall, cpu = one_run(a.files)
        walls.append(wall)
        cpus.append(cpu)
    load = os.getloadavg()[0]
    print(f"process start to first frame ({a.runs} runs, load {load:.1f} on "
          f"{os.cpu_count()} cores): wall median {statistics.median(walls):.3f} s "
          f"(min {min(walls):.3f}), CPU median {statistics.median(cpus):.3f} s "
          f"(min {min(cpus):.3f}) — goal ≤ 0.7 s")


if __name__ == "__main__":
    main()
