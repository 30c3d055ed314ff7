"""A bare store (no controllers, no kubelets) with a hand-moved clock, for exact text tests.

A module of its own rather than a conftest.py, so that no two test directories fight over the
module name "conftest"; test modules import the ``cluster`` fixture from here.
"""

from __future__ import annotations

import pytest

from ksandbox.api.core import Namespace
from ksandbox.api.manifest import load_manifests
from ksandbox.api.meta import ObjectMeta
from ksandbox.apiserver.store import Store
from ksandbox.sim.rand import SimRandom


class Clock:
    def __init__(self) -> None:
        self.now = 0.0


class Cluster:
    """``create(yaml)`` stores objects at ``clock.now``; ``at(t)`` moves the clock."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.store = Store(lambda: self.clock.now, SimRandom(7))
        self.store.create(Namespace(metadata=ObjectMeta(name="default")))

    def at(self, t: float) -> "Cluster":
        self.clock.now = float(t)
        return self

    def create(self, text: str) -> list:
        return [self.store.create(o) for o in load_manifests(text, "<test>")]

    @property
    def now(self) -> float:
        return self.clock.now


@pytest.fixture
def cluster() -> Cluster:
    return Cluster()
