"""Instructions per measured pod of ``ksandbox sim -o json`` on the SchedulingBasic shape.

    .venv/bin/python bench/e2e_instructions.py                      # this tree
    .venv/bin/python bench/e2e_instructions.py --tree /work/wt/base # another checkout, same way
    .venv/bin/python bench/e2e_instructions.py --tree . --tree /other   # both, one after another

The black-box figure of ``bench/e2e.py`` is a phase of a shared machine as much as of the code
(README, Performance); an instruction count is the steady comparison. This runs
``ksandbox sim -f FILE -o json`` under ``valgrind --tool=cachegrind --cache-sim=no`` with
PYTHONHASHSEED=0 on two JSON files of ``bench/e2e.py``'s shape at 1/5 scale — the *base* file
(1,000 nodes, 200 existing pods) and the *full* file (the base plus 1,000 measured pods) — and
reports (instructions(full) − instructions(base)) / 1,000: what one measured pod costs from
the read of its text to its line in the printed state, start-up and the nodes cancelling out.

Each tree is run once without valgrind first, so its bytecode caches (and ksandbox's own
attrs-methods cache) are written and the count is of a warm start, as a user's second run is.
Cachegrind costs ~1-2 minutes per tree on a quiet machine. Not a test: it reports.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.e2e import write_shape  # noqa: E402

NODES, INIT, MEASURED = 1000, 200, 1000
_IREFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def _python(tree: Path) -> str:
    venv = tree / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def _env() -> dict[str, str]:
    # OpenBLAS's idle worker threads spin for a varying while (cachegrind: 0.5-4 M
    # instructions of blas_thread_server per run, the only difference between two runs)
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # a warm start writes and reads its caches
    return env


def instructions(tree: Path, path: Path) -> int:
    """Instructions (cachegrind's I refs) of one ``sim -f path -o json`` run in ``tree``."""
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
           _python(tree), "-m", "ksandbox", "sim", "-f", str(path), "-o", "json"]
    done = subprocess.run(cmd, cwd=tree, env=_env(), stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=True)
    found = _IREFS.search(done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def measure(tree: Path, base: Path, full: Path) -> dict:
    # warm: bytecode caches and the attrs-methods cache written before counting
    subprocess.run([_python(tree), "-m", "ksandbox", "sim", "-f", str(base), "-o", "json"],
                   cwd=tree, env=_env(), stdout=subprocess.DEVNULL, check=True)
    b = instructions(tree, base)
    f = instructions(tree, full)
    return {"tree": str(tree), "base": b, "full": f, "per_pod": (f - b) / MEASURED}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", type=Path,
                    help="a ksandbox checkout to measure (its .venv's python); repeatable; "
                         "default: this one")
    args = ap.parse_args(argv)
    trees = [t.resolve() for t in (args.tree or [Path(__file__).resolve().parent.parent])]
    with tempfile.TemporaryDirectory() as tmp:
        base, full = Path(tmp, "base.json"), Path(tmp, "full.json")
        write_shape(base, NODES, INIT, 0, "json")
        write_shape(full, NODES, INIT, MEASURED, "json")
        print(f"sim -o json, SchedulingBasic at {NODES} nodes, {INIT} existing + {MEASURED} "
              f"measured pods (JSON); cachegrind instructions")
        for tree in trees:
            r = measure(tree, base, full)
            print(f"  {r['tree']}: base {r['base'] / 1e6:,.1f}M, full {r['full'] / 1e6:,.1f}M "
                  f"-> {r['per_pod'] / 1e3:,.1f}k instructions per measured pod")
    return 0


if __name__ == "__main__":
    sys.exit(main())
