"""The modules a view imports on first use are imported in idle time after the first frame.

The first `:po` of a session imported ~45 ms of modules (yaml, the table, the row specs), the
first `e` and `t` 15-25 ms (tui/app.py WARM_MODULES). An app with the real clock imports them
one by one after its first frame: none before it (the first frame is not slowed), all of them
soon after, and the views still open. A fresh interpreter each, since this test process has
imported them all already.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import asyncio, json, sys
from ksandbox import cli
from ksandbox.resources import sample_cluster_path
from ksandbox.tui.app import WARM_MODULES, make_app

session = cli._load_session([str(sample_cluster_path("default"))], 0)
out = {}

async def run():
    app = make_app(session, paused=True, ticking=TICKING)
    seen = []
    original = app._display

    def display(screen, renderable):
        if renderable is not None and not seen:
            seen.append([m for m in WARM_MODULES if m in sys.modules])
        return original(screen, renderable)

    app._display = display
    async with app.run_test(size=(120, 36)) as pilot:
        for _ in range(400):
            await pilot.pause(0.01)
            if seen and all(m in sys.modules for m in WARM_MODULES):
                break
        out["at_first_frame"] = seen[0]
        out["after"] = [m for m in WARM_MODULES if m in sys.modules]
        await pilot.press("colon", "p", "o", "enter")
        await pilot.pause(0.3)
        out["screen"] = type(app.screen).__name__

asyncio.run(run())
print(json.dumps(out))
"""


def run(ticking: bool, tmp_path) -> dict:
    env = {"XDG_CONFIG_HOME": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1",
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", SCRIPT.replace("TICKING", str(ticking))],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_views_modules_come_after_the_first_frame(tmp_path):
    from ksandbox.tui.app import WARM_MODULES

    got = run(True, tmp_path)
    assert got["at_first_frame"] == []
    assert got["after"] == list(WARM_MODULES)
    assert got["screen"] == "ResourceScreen"


def test_an_app_without_the_real_clock_imports_as_it_goes(tmp_path):
    got = run(False, tmp_path)
    assert got["at_first_frame"] == [] and got["after"] == []
    assert got["screen"] == "ResourceScreen"
