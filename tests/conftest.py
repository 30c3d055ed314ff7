"""Suite-wide checks: a controller's sync that raised fails the test that made it raise.

``controllers/base.py`` catches a failing sync and requeues it, as client-go does, so the
simulation goes on; the test suite must still hear of it (a sync should only fail in a test
that means it to, which clears ``SYNC_ERRORS`` itself).
"""

from __future__ import annotations

import gc

import pytest


@pytest.fixture(autouse=True)
def _no_controller_sync_errors():
    from ksandbox.controllers import base

    base.SYNC_ERRORS.clear()
    yield
    errors = list(base.SYNC_ERRORS)
    base.SYNC_ERRORS.clear()
    assert errors == [], f"a controller's sync raised: {errors}"


# the gc tests (test_gc_headless, test_gc_bulk_load): which collections ran while a test ran
@pytest.fixture
def collections():
    """The collections run while the test runs, by generation; nothing left frozen after."""
    seen = [0, 0, 0]

    def count(phase, info):
        if phase == "start":
            seen[info["generation"]] += 1

    gc.callbacks.append(count)
    frozen = gc.get_freeze_count()
    try:
        yield seen
    finally:
        gc.callbacks.remove(count)
        if gc.get_freeze_count() != frozen:
            gc.unfreeze()
