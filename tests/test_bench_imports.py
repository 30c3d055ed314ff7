"""Every script under bench/ imports: a name moved inside ksandbox (PriorityClass went from
api/policy.py to api/scheduling.py for the start-up deferrals) broke bench/scheduler.py and
bench/explain.py with an ImportError, and no test ran them. Benchmarks are not timed tests;
this only checks that they still load."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_bench_script_imports():
    names = sorted(p.stem for p in (ROOT / "bench").glob("*.py") if p.stem != "__init__")
    assert "scheduler" in names and "explain" in names
    code = f"import importlib\nfor n in {names!r}:\n    importlib.import_module('bench.' + n)\n"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
