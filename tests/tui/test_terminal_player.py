"""The player and the recorder as a person sees them: the real ``ksandbox`` in tmux.

Reads the playback bar (position / duration, ticks), the caption pane, ● REC, and what the
keys do — ``]`` ``}`` ``home`` ``ctrl+g`` ``ctrl+t`` ``R`` ``m`` — off ``tmux capture-pane``.
"""

from __future__ import annotations

import re

import pytest
from terminal import terminal  # noqa: F401  (fixture)

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]
NODE_FAILURE = "sample_clusters/node-failure.recording.yaml"


def _bar(screen: str) -> str:
    m = re.search(r"[⏸▶] (\d\d:\d\d) / (\d\d:\d\d)", screen)
    return f"{m.group(1)}/{m.group(2)}" if m else ""


@pytest.mark.parametrize("size", SIZES)
def test_the_bar_and_the_caption_pane_under_the_player_keys(terminal, size):  # noqa: F811
    term = terminal(["play", NODE_FAILURE], *size)
    # the bar, the end marker's tick and the step count (one frame may hold the bar first)
    term.wait_until(lambda s: "⏸ 00:00 / 11:00" in s and "◆" in s and "step 0/10" in s)
    term.keys("]")                                           # the first step: a caption
    term.wait_until(lambda s: "“Three workers" in s and _bar(s) == "00:00/11:00"
                    and "step 1/10" in s)
    term.keys("}")                                           # the next marker: the end
    term.wait_until(lambda s: "11:00 / 11:00" in s and "“node-2 is back" in s, timeout=60)
    term.keys("Home")                                        # restart
    term.wait_until(lambda s: _bar(s) == "00:00/11:00")
    term.keys("C-g")                                         # go to 01:20
    term.wait_for(r"go to 00:00")                           # prefilled with the position
    term.keys("C-u")
    term.wait_for(r"expected a time")
    term.type("01:20")
    term.wait_for(r"go to 01:20")
    term.keys("Enter")
    term.wait_until(lambda s: _bar(s) == "01:20/11:00")
    # The caption in force at 01:20 (set at 01:10), in the pane, not a toast.
    term.wait_until(lambda s: "“Ready=Unknown" in s and "T+00:01:20" in s)


def test_take_over_turns_the_recording_live(terminal):  # noqa: F811
    term = terminal(["play", NODE_FAILURE], 120, 36)
    term.wait_for(r"⏸ 00:00 / 11:00")
    term.keys("]", "]")
    term.wait_for(r"step 2/10")
    term.keys("C-t")
    screen = term.wait_for(r"● live")
    assert "took over from" in screen and "/ 11:00" not in screen


def test_a_recording_made_in_the_terminal(terminal, tmp_path):  # noqa: F811
    out = tmp_path / "mine.recording.yaml"
    term = terminal(["record", "-o", str(out), "sample_clusters/node-failure.yaml",
                     "--paused"], 120, 36)
    term.wait_for(r"● REC")
    term.keys(":")
    term.wait_for(r"view \(no po deploy")
    term.type("cordon node-1")
    term.keys("Enter")
    term.wait_for(r"cordoned")
    term.keys("m")
    term.wait_for(r"Add at")
    term.type("node-1 takes no new pods")
    term.keys("Enter")
    term.wait_for(r"caption at")
    term.keys("R")
    term.wait_for(r"Recording saved to")
    screen = term.screen()
    assert "● REC" not in screen.splitlines()[0]
    text = out.read_text()
    assert "apiVersion: ksandbox/v1alpha2" in text
    assert "command: kubectl cordon node-1" in text and "caption: node-1 takes no new pods" in text


def test_a_recording_is_saved_when_the_tui_exits(terminal, tmp_path):  # noqa: F811
    out = tmp_path / "at-exit.recording.yaml"
    term = terminal(["record", "-o", str(out), "sample_clusters/node-failure.yaml",
                     "--paused"], 100, 30)
    term.wait_for(r"● REC")
    term.keys(":")
    term.wait_for(r"view \(no po deploy")
    term.type("cordon node-3")
    term.keys("Enter")
    term.wait_for(r"cordoned")
    term.keys(":")
    term.wait_for(r"view \(no po deploy")
    term.type("q")
    term.keys("Enter")
    term.wait_for(r"Recording saved to .*at-exit")
    assert "command: kubectl cordon node-3" in out.read_text()
