"""The ``session`` fixture: a fresh sandbox on the cluster of ``command_helpers``."""

from __future__ import annotations

import pytest

from command_helpers import CLUSTER

from ksandbox.session import Session


@pytest.fixture
def session() -> Session:
    return Session.from_text(CLUSTER)
