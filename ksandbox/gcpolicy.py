"""The cyclic garbage collector's thresholds while the sandbox loads and runs a cluster.

A cluster is hundreds of thousands of small immutable objects (and a manifest file millions of
parsed YAML nodes) that live a while and are freed by reference counting, not by the collector.
With CPython's default thresholds (700, 10, 10) the young collections run every 700 net
allocations and promote survivors by the thousand, so full collections, which walk every live
object (~0.5 s at 15,000 pods), keep coming: a quarter of the wall time of a rolling update,
and a third of parsing and decoding a large file. Collecting the young generation every 50,000
net allocations instead lets short-lived versions die first (bench/simulation.py prints the
time spent in gc). Only what the collector does changes, never a result.

No ksandbox imports: any layer may call :func:`tune` (the manifest loader, the Session).
"""

from __future__ import annotations

import gc

THRESHOLDS = (50_000, 20, 10)


def tune() -> None:
    """Raise the collector's thresholds to THRESHOLDS; never lower what the host set, and
    leave a disabled collector (threshold 0) alone."""
    current = gc.get_threshold()
    if current[0] and current[0] < THRESHOLDS[0]:
        gc.set_threshold(*(max(c, t) for c, t in zip(current, THRESHOLDS)))
