"""bench/simulation.py's --instructions plumbing: the measured span runs inside
itertools.starmap (what callgrind's --toggle-collect counts) and prints what the plain run
prints; --tree arguments are peeled off before the child run. Not a timed test."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import simulation  # noqa: E402


def test_tree_arguments_are_peeled_off_for_the_child_run():
    argv = ["--shape", "rolling", "--tree", "/a", "--span", "10", "--tree=/b"]
    assert simulation.rest_trees(argv) == [Path("/a"), Path("/b")]
    assert simulation.strip_trees(argv) == ["--shape", "rolling", "--span", "10"]


def test_the_span_only_run_measures_the_same_rolling_span():
    cmd = [sys.executable, "bench/simulation.py", "--shape", "rolling", "--nodes", "6",
           "--pods", "60", "--deployments", "2", "--rolling", "1", "--span", "20"]
    plain = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    span_only = subprocess.run(cmd + ["--span-only"], cwd=ROOT, capture_output=True, text=True,
                               timeout=300)
    assert plain.returncode == 0 and span_only.returncode == 0, span_only.stderr[-2000:]

    def churn(out: str) -> str:
        return next(line for line in out.splitlines() if line.startswith("churn"))

    assert "creates/s" in churn(plain.stdout)
    assert churn(plain.stdout) == churn(span_only.stdout)
