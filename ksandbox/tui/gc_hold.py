"""CollectorHold: the cyclic garbage collector waits while a key is being answered.

The app's frames are cyclic garbage: Textual's strips keep themselves in their own caches (a
crop or divide that changes nothing returns the strip itself and caches it), so every line
through the compositor is freed only by the collector. At 1,000 nodes / 30,000 pods a young
collection frees thousands of them and pauses the app 1–19 ms, two or three times a second;
one that falls between a key and its frame is that much of the key's latency (a key or an
explain answer has a fair chance to hold one).

So from the moment the driver hands the app a key until the frame that answers it is
written, the collector is off (``gc.disable``); the frame written, it is on again, and the
collection that came due meanwhile runs then, after the frame, before the next key. A hold
lasts at most ``LONGEST`` seconds (a key that changes nothing on screen writes no frame).
Objects freed by reference counting are freed as before; only when cyclic garbage is
collected changes, never a result.

The collector disabled by someone else (the CLI keeps it off until the first frame; a bulk
load turns it off) is left alone: a hold only ever re-enables what it disabled itself.
"""

from __future__ import annotations

import gc
import threading
import time
from typing import Callable

# Seconds a hold may last before the collector is on again anyway.
LONGEST = 0.25


class CollectorHold:
    def __init__(self, clock: Callable[[], float] = time.perf_counter,
                 longest: float = LONGEST) -> None:
        self._clock = clock
        self.longest = longest
        self._since: float | None = None
        """When the hold began (None: not holding)."""
        # hold() is called from the driver's input thread, release() from the event loop.
        self._lock = threading.Lock()

    @property
    def holding(self) -> bool:
        return self._since is not None

    def hold(self) -> None:
        """Collections wait from now (a key is on its way); a hold in place is renewed."""
        with self._lock:
            if self._since is None:
                if not gc.isenabled():
                    return  # someone else's: left to them
                gc.disable()
            self._since = self._clock()

    def release(self) -> None:
        """Collections may run again (the frame is out)."""
        with self._lock:
            if self._since is not None:
                self._since = None
                gc.enable()

    def release_if_overdue(self) -> None:
        """Release a hold older than ``longest`` (a key that wrote no frame)."""
        since = self._since
        if since is not None and self._clock() - since >= self.longest:
            self.release()
