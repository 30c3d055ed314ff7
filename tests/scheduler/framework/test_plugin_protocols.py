"""Every in-tree plugin's extension points have the shape framework/interface.py declares.

The Protocols of interface.py are the framework's contract with a plugin (upstream's
framework/interface.go interfaces); the runtime finds a point by its method name
(``implements``), so this test is what holds a plugin's signature to the Protocol's.
"""

from __future__ import annotations

import inspect

import pytest

from ksandbox.scheduler.framework import interface
from ksandbox.scheduler.framework.runtime import Handle
from ksandbox.scheduler.plugins.registry import REGISTRY

PROTOCOLS = (interface.PreFilterPlugin, interface.FilterPlugin, interface.PostFilterPlugin,
             interface.PreScorePlugin, interface.ScorePlugin, interface.ReservePlugin,
             interface.PreBindPlugin, interface.BindPlugin)


class _NoCache:
    def __getattr__(self, name):
        raise AttributeError(name)


def _params(fn) -> list[str]:
    return [p for p in inspect.signature(fn).parameters if p != "self"]


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_each_extension_point_matches_its_protocol(name):
    plugin = REGISTRY[name](None, Handle(_NoCache()))
    assert isinstance(plugin, interface.Plugin) and plugin.name == name
    for proto in PROTOCOLS:
        points = [m for m in vars(proto) if not m.startswith("_") and callable(vars(proto)[m])]
        offered = [m for m in points if interface.implements(plugin, m)]
        if not offered:
            continue
        assert offered == points, f"{name} implements part of {proto.__name__}"
        assert isinstance(plugin, proto)
        for m in points:
            assert len(_params(getattr(plugin, m))) == len(_params(vars(proto)[m])), \
                f"{name}.{m}{inspect.signature(getattr(plugin, m))}"
