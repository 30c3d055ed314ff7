"""Fixtures for the TUI tests: a fixed cluster, an isolated user config, the app factory.

Every app here is built with ``ticking=False``: no real-time timer moves the clock, the tests
move it (``app.advance(seconds)`` or the ``.`` key), so what the screen shows is a pure
function of the keys pressed — the same contract as the rest of the suite (no sleeps).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

CLUSTER = HERE / "cluster.yaml"


@pytest.fixture(autouse=True)
def user_config(tmp_path, monkeypatch):
    """Point XDG_CONFIG_HOME at a fresh directory: tests never read or write the user's."""
    home = tmp_path / "config"
    home.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home / "ksandbox" / "config.yaml"


@pytest.fixture
def session():
    from ksandbox.session import Session

    return Session.from_files([CLUSTER], seed=7)


@pytest.fixture
def make():
    """``make(session, **opts)`` → a paused app whose clock only the test moves."""
    from ksandbox.tui.app import make_app

    made = []

    def factory(session, **opts):
        opts.setdefault("paused", True)
        opts.setdefault("ticking", False)
        app = make_app(session, **opts)
        made.append(app)
        return app

    yield factory
    # The app's guards turn an exception in a key's action into a notification (issue 14);
    # before them it ended the app and run_test re-raised it. A test still fails on one.
    for app in made:
        assert app.bug_reports == [], f"a guarded bug: {app.bug_reports!r}"
