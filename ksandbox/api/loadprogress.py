"""How far a long load has got: the loaders report it, a display outside the simulation draws it.

Loading 150,000 pods takes seconds (bench/load.py); issue 11 asks for a progress bar on stderr
when it takes over one. The loaders — safeload's parsers, the manifest decoder, the API
server's batch apply (``apply_all``: checking every object, then storing it) — call the hook
installed with :func:`reporting` every :data:`STEP` objects (or document chunks) with
``(stage, done, total)``; ``cli`` installs tui/progress.py's LoadProgress for the length of a
load. Without a hook a loader pays one ContextVar read per load. Nothing the simulation
computes depends on it, and the hook must not touch the cluster (it draws, or raises to stop).

In ``api`` because the manifest loader is the first to report; any layer may import it (it
imports nothing of ksandbox).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

# stage names the display knows; "parsing" counts characters, the others objects
PARSING, DECODING, CHECKING, STORING = "parsing", "decoding", "checking", "storing"
# objects (or document chunks) between two reports
STEP = 2048

Hook = Callable[[str, int, int], None]
_HOOK: ContextVar[Hook | None] = ContextVar("ksandbox_load_progress", default=None)


@contextmanager
def reporting(hook: Hook | None) -> Iterator[None]:
    """Within the block, loaders report to ``hook(stage, done, total)``."""
    token = _HOOK.set(hook)
    try:
        yield
    finally:
        _HOOK.reset(token)


def current() -> Hook | None:
    """The hook to report to, or None (read it once per load, not per object)."""
    return _HOOK.get()
