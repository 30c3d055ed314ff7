"""docs/whatif.md's `ksandbox diff` example is what the command prints.

The page showed the keeper pod's DIFFERENCE as `eviction` while the command says
`terminating` (the first difference that applies, as the same page's list orders them: the
pod is being deleted in A). The example is read from the page and compared line for line.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from ksandbox.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_the_diff_example_in_whatif_md_is_what_ksandbox_diff_prints(capsys, monkeypatch):
    page = (ROOT / "docs/whatif.md").read_text()
    block = re.search(r"```\n\$ (ksandbox diff .*?)\n(Simulated time:.*?)```", page, re.S)
    assert block is not None, "the example is gone from docs/whatif.md"
    command = block.group(1).replace("\\\n", " ")
    shown = block.group(2)
    monkeypatch.chdir(ROOT)
    args = shlex.split(command)[1:]
    if main(args) != 0:
        pytest.fail(capsys.readouterr().err)
    printed = capsys.readouterr().out
    assert [ln.rstrip() for ln in printed.strip().splitlines()] == \
        [ln.rstrip() for ln in shown.strip().splitlines()]
