"""`ksandbox play` on a cluster file says it is not a Recording (issue 9 item 5), one line,
exit 1, instead of an apiVersion complaint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_play_on_a_cluster_file_says_not_a_recording():
    out = subprocess.run([sys.executable, "-m", "ksandbox", "play",
                          str(ROOT / "sample_clusters/spread.yaml"), "--headless"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "not a Recording" in lines[0]
    assert "this is a List (v1)" in lines[0]
