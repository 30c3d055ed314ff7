"""Keys typed in one burst right after a key that opens a dialog or a screen land in it.

Every opener shares one path (tui/key_order.py): a key waits until the key before it has been
handled and the screen it pushed is mounted and focused. test_burst_across_screens.py covers
`t`, `l` and `:po⏎/web`; these cover the other openers on the real binary in tmux, each burst
in one ``send-keys`` (as a paste or SSH delivers it), read off the screen. Each burst fails
without key_order (checked with KeyOrder.hold never holding): the keys behind the opener went
to the board — Enter drilled into the node's pods view under the dialog, `G` never reached the
help, the dialogs' Tabs and Spaces were lost.

Not burst here: Escape followed by a letter. A terminal sends Escape as the byte ESC, and ESC
then `t` in one read is the encoding of alt+t, so the pair means alt+t to any terminal program
(k9s too); a person types them further apart than one read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from terminal import terminal  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = str(ROOT / "sample_clusters" / "default.yaml")
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


@pytest.mark.parametrize("size", SIZES)
def test_node_dialogs_and_screens_take_the_keys_typed_behind_their_key(terminal, size):  # noqa: F811
    term = terminal([DEFAULT, "--paused"], *size)
    term.wait_for(r"nodes\[5\]")

    # w: the branch's name typed over the suggested one, Enter forks.
    term.keys("w", "C-u", "trial", "Enter")
    term.wait_for(r"Branch trial: a fork of main")

    # ?: G scrolls the help to its end; q closes it and Right moves on the board.
    term.keys("?", "G")
    term.wait_for(r"/-l app=web")
    term.keys("q", "Right")
    screen = term.wait_for(r"┏━ gpu-1 ")
    assert "/-l app=web" not in screen, screen

    # T: the untaint dialog lists gpu-1's one taint, Enter removes it.
    term.keys("T", "Enter")
    term.wait_for(r"node/gpu-1 untainted")

    # p: Right moves to disk, Enter picks it and applies (as Enter on the taint dialog's
    # effects does).
    term.keys("p", "Right", "Enter")
    term.wait_for(r"node/gpu-1 disk pressure on")

    # r: Space unticks Ignore DaemonSets (two Tabs down), back to a field, Enter drains: kubectl
    # refuses the DaemonSet's pod, after cordoning.
    term.keys("r", "Tab", "Tab", "Space", "BTab", "Enter")
    screen = term.wait_for(r"DaemonSet-managed")
    assert "node/gpu-1 cordoned" in screen, screen


def test_workload_dialogs_take_the_keys_typed_behind_the_view_that_opens_them(terminal):  # noqa: F811
    """Two openers in one burst: the view, then the dialog on its first row, then its keys."""
    term = terminal([DEFAULT, "--paused"], 80, 24)
    term.wait_for(r"nodes\[5\]")
    term.keys(":deploy", "Enter", "s", "C-u", "5", "Enter")
    term.wait_for(r"deployment.apps/api scaled")
    term.wait_for(r"api +0/5 ")
    # ctrl+d focuses Cancel (Enter alone never deletes): Tab to Delete, Enter.
    term.keys(":po", "Enter", "C-d", "Tab", "Enter")
    term.wait_for(r'pod "api-\S+" deleted')


def test_a_caption_typed_behind_m_while_recording(terminal, tmp_path):  # noqa: F811
    out = tmp_path / "rec.yaml"
    term = terminal(["record", DEFAULT, "-o", str(out), "--paused"], 80, 24)
    term.wait_for(r"REC")
    term.keys("m", "hello there", "Enter")
    term.wait_for(r"caption at 00:00: hello there")


def test_a_position_typed_behind_ctrl_g_in_the_player(terminal):  # noqa: F811
    term = terminal(["play", str(ROOT / "sample_clusters" / "node-failure.recording.yaml"),
                     "--speed", "1"], 80, 24)
    term.wait_for(r"/ 11:00")
    term.keys("C-g", "C-u", "5:00", "Enter")
    term.wait_for(r"▶ 0?5:0\d / 11:00|⏸ 0?5:00 / 11:00")


def test_describe_typed_behind_e_describes_from_the_explain_view(terminal):  # noqa: F811
    """`e` then `d` in one burst on the pending queue: the explain view opens and describes
    its pod, the crumbs say so. A guard rather than a regression test: it passes without
    key_order too (the explain view is built ahead and pushed within the `e`)."""
    term = terminal([DEFAULT, "--paused"], 80, 24)
    term.wait_for(r"pending\[1\]")
    term.keys("Tab")
    term.keys("e", "d")
    term.wait_for(r"board > explain > describe pod/nvme-cache")
