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



@contextmanager
def headless_run() -> Iterator[None]:
    """Around a headless command that loads a cluster, runs it and prints it (``ksandbox
    sim``): the collector is off throughout, and as it was after. The control plane frees
    what it replaces by reference counting and makes next to no cyclic garbage (a collection
    after every clock slice found 0 to 32 objects over whole runs of the samples, their
    scripts, a 60-node mixed cluster and SchedulingBasic at 5,000 nodes / 11,000 pods:
    tests/test_gc_headless.py holds the samples to it), while each young collection walked
    the pod versions, event records and view rows made since the last one — hundreds of
    thousands of objects, each a cold cache line: ~16-23 CPU us of every pod SchedulingBasic
    schedules (bench/e2e.py), about 5 % of it.

    At the end what the run built joins the oldest generation without a walk (gc.freeze then
    gc.unfreeze: two list splices, and the young count starts again from 0): switched back
    on, the collector's next young collection would otherwise walk everything made since
    the start (~0.5 s at 11,000 pods). Not when something is frozen already (a caller's
    gc.freeze: unfreezing would hand it back); then the collector simply comes back on.
    Only what the collector does changes, never a result."""
    was = gc.isenabled()
    frozen = gc.get_freeze_count()
    gc.disable()
    try:
        yield
    finally:
        if not frozen:
            gc.freeze()
            gc.unfreeze()
        if was:
            gc.enable()


# A text at least this long is decoded without the collector (:func:`decoding`).
QUIET_DECODE_CHARS = 8 << 20


@contextmanager
def decoding(chars: int) -> Iterator[None]:
    """Around the parse and decode of a manifest text of ``chars`` characters: a big one
    (a 150,000-pod export: 115 MiB) is decoded without the collector, and what it built
    joins the oldest generation without a walk at the end (as :func:`headless_run`). Its
    parsed data and decoded objects are trees freed by reference counting, while each young
    collection walked every object decoded since the last one: 12 collections, ~0.1 CPU s of
    that export. A small text leaves the collector alone. Only what the collector does
    changes, never a result."""
    if chars < QUIET_DECODE_CHARS:
        yield
        return
    with headless_run():
        yield


def exiting() -> None:
    """The process exits next (the ``ksandbox`` command's entry, cli.run): its heap is frozen
    so that the interpreter's last collection, which walks every object left, does not walk
    the session (~0.3-0.55 s at SchedulingBasic's 5,000 nodes / 1,000-11,000 pods: ~26 CPU us
    per pod). Its cyclic garbage is left to the process's end, as all of its memory is; every
    file the commands write is written and closed before they return."""
    gc.freeze()
