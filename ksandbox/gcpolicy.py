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
from contextlib import contextmanager
from typing import Iterator

THRESHOLDS = (50_000, 20, 10)


def tune() -> None:
    """Raise the collector's thresholds to THRESHOLDS; never lower what the host set, and
    leave a disabled collector (threshold 0) alone."""
    current = gc.get_threshold()
    if current[0] and current[0] < THRESHOLDS[0]:
        gc.set_threshold(*(max(c, t) for c, t in zip(current, THRESHOLDS)))


# A load of at least this many objects runs without the collector and freezes what it built.
FREEZE_LOAD_OBJECTS = 20_000


@contextmanager
def bulk_load(objects: int) -> Iterator[None]:
    """Around a Session's load of ``objects`` objects: the collector is off while the cluster
    is built, and what is alive at the end is frozen (``gc.freeze``): the loaded cluster is
    hundreds of thousands of long-lived objects freed by reference counting, so every
    collection during the load walked them for nothing (15 young and one middle collection,
    ~0.4 CPU s of a 150,000-pod load: 4 % of it), and every later full collection would walk
    them again (~0.45 s at 150,000 pods: the TUI's first frame collects once). A load leaves
    almost no cyclic garbage (228 objects at 30,000 pods), so freezing it keeps nothing that
    matters; the price, as with tui/app.freeze_heap, is that a frozen session discarded later
    is not reclaimed — so the Session asks it only for the load a caller hands over (the
    process's own: the CLI, from_files, bench/load.py), not for a replay's. Small loads
    (tests, samples) leave the collector alone; a load that fails freezes nothing. Only what
    the collector does changes, never a result."""
    if objects < FREEZE_LOAD_OBJECTS or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    except BaseException:
        gc.enable()
        raise
    gc.freeze()
    gc.enable()
