"""Cached properties of the API types (codec._slot_cached_properties) against attrs' way.

attrs keeps a slotted class's functools.cached_property in a slot and computes it in a class
``__getattr__``, which makes every attribute read of the class go through the interpreter's
unspecialised getattr hook. The api_types drop that ``__getattr__`` and read the slot in a
property instead. These tests hold the property to attrs' behaviour: the function's value,
computed once per object and kept, per object; the class still frozen; a missing attribute
still an AttributeError; and no class with a cached property keeps a ``__getattr__``.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cached_property

import attrs
import pytest

import ksandbox.api as api
from ksandbox.api import codec
from ksandbox.api.codec import api_type, j
from ksandbox.api.core import Container, Node, PodSpec, ResourceRequirements
from ksandbox.api.quantity import Quantity

for _mod in pkgutil.iter_modules(api.__path__):
    importlib.import_module(f"ksandbox.api.{_mod.name}")


def test_no_api_type_with_a_cached_property_keeps_a_getattr() -> None:
    """When attrs changes how it makes cached properties, the classes keep attrs' way
    silently; this says so (and every read of a PodSpec's fields is slow again)."""
    assert {PodSpec, Node} <= set(codec.CACHED_SLOTS)
    for cls in codec.CACHED_SLOTS:
        assert not hasattr(cls, "__getattr__"), cls
        for name in codec.CACHED_SLOTS[cls]:
            assert isinstance(cls.__dict__[name], property), (cls, name)


def _twins() -> tuple[type, type, list[int]]:
    calls: list[int] = []

    class Doubled:
        a: int = j("a", 0)

        @cached_property
        def double(self) -> int:
            calls.append(self.a)
            return self.a * 2

    plain = attrs.frozen(slots=True)(type("Plain", (), {
        "__annotations__": {"a": "int"}, "a": attrs.field(default=0),
        "double": Doubled.__dict__["double"]}))
    return api_type(Doubled), plain, calls


def test_a_cached_property_is_computed_once_per_object_and_kept() -> None:
    fast, plain, calls = _twins()
    assert fast in codec.CACHED_SLOTS and not hasattr(fast, "__getattr__")
    assert hasattr(plain, "__getattr__")   # attrs' way, the reference
    one, two = fast(a=2), fast(a=3)
    assert (one.double, one.double, two.double, one.double) == (4, 4, 6, 4)
    assert calls == [2, 3]
    ref = plain(a=2)
    assert ref.double == one.double and calls == [2, 3, 2]
    # the value sits in the slot attrs made (what with_node_name copies)
    assert codec.CACHED_SLOTS[fast]["double"].__get__(one, fast) == 4
    with pytest.raises(AttributeError):
        codec.CACHED_SLOTS[fast]["double"].__get__(fast(a=5), fast)


def test_a_cached_property_class_stays_frozen_and_refuses_unknown_names() -> None:
    fast, plain, _ = _twins()
    for obj in (fast(a=1), plain(a=1)):
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            obj.double = 5   # type: ignore[misc]
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            obj.a = 5   # type: ignore[misc]
        with pytest.raises(AttributeError, match="object has no attribute 'nope'"):
            obj.nope   # type: ignore[attr-defined]  # noqa: B018
    # equality and hashing ignore the cached slot, as attrs' do
    a, b = fast(a=1), fast(a=1)
    _ = a.double
    assert a == b and hash(a) == hash(b)


def test_pod_spec_cached_values_are_their_functions() -> None:
    res = ResourceRequirements(requests={"cpu": Quantity.parse("250m")},
                               limits={"cpu": Quantity.parse("500m")})
    spec = PodSpec(containers=(Container(name="c", image="i", resources=res),))
    for name in ("requests", "limits", "host_ports", "qos_class"):
        func = PodSpec.__dict__[name].fget.__wrapped__
        assert getattr(spec, name) == func(spec)
    assert spec.requests == {"cpu": 250} and spec.qos_class == "Burstable"
    assert spec.requests is spec.requests   # kept, not recomputed
