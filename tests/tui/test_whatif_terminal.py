"""What-if in the real terminal: `w` forks a named branch (the header says which), `D` puts
the two branches side by side, `ctrl+z` undoes, `W` switches — the real ``ksandbox`` in tmux,
read off the screen (tests/tui/terminal.py)."""

from __future__ import annotations

import re

import pytest
from terminal import terminal  # noqa: F401  (fixture)

FAILURE = "sample_clusters/node-failure.yaml"
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


@pytest.mark.parametrize("size", SIZES)
def test_fork_cordon_diff_undo_switch(terminal, size):  # noqa: F811
    term = terminal([FAILURE, "--paused"], *size)
    term.wait_for(r"nodes\[4\]")
    term.keys("w")
    term.wait_for(r"Fork the present moment")
    term.wait_for(r"what-if-1")                         # the suggested name
    term.keys("C-u")                                    # cleared: the placeholder shows
    term.wait_for(r"branch name")
    term.type("drain-3")
    term.wait_for(r"▊\s+drain-3")
    term.keys("Enter")
    term.wait_for(r"⑂ drain-3")
    term.keys(":cordon node-3", "Enter")
    term.wait_for(r"node/node-3 cordoned")
    term.keys("D")
    screen = term.wait_for(r"diff: drain-3 \(A\) vs main \(B\)")
    screen = term.wait_for(r"node-3\s+unschedulable\s+cordoned\s+schedulable")
    assert "⑂ drain-3" in screen
    term.keys("Escape")
    term.wait_until(lambda s: "diff: drain-3" not in s)
    term.keys("C-z")
    term.wait_for(r"Undid")
    term.keys("D")
    term.wait_for(r"No differences: both branches are in the same state")
    term.keys("Escape")
    term.wait_until(lambda s: "No differences" not in s)
    term.keys("W")
    screen = term.wait_for(r"Branches \(enter switches\)")
    assert re.search(r"●\s+drain-3", screen) and "main" in screen
    term.keys("Up", "Enter")
    term.wait_for(r"⑂ main")
