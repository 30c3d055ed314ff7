"""api/evolve.py gives exactly attrs.evolve's result, and its errors."""

import inspect

import attrs
import pytest

from ksandbox.api.codec import decode
from ksandbox.api.core import Pod
from ksandbox.api.evolve import evolve
from ksandbox.api.meta import ObjectMeta


def _pod() -> Pod:
    return decode(Pod, {"metadata": {"name": "a", "namespace": "default",
                                     "labels": {"app": "x"}},
                        "spec": {"containers": [{"name": "c", "image": "i",
                                                 "resources": {"requests": {"cpu": "1"}}}]}})


def test_same_result_as_attrs_evolve_for_each_set_of_changes():
    pod = _pod()
    meta = ObjectMeta(name="b", namespace="ns")
    for changes in ({"metadata": meta}, {}, {"metadata": meta, "spec": pod.spec}):
        assert evolve(pod, **changes) == attrs.evolve(pod, **changes)
    assert evolve(pod.metadata, name="c", resource_version="7") == attrs.evolve(
        pod.metadata, name="c", resource_version="7")


def test_the_same_init_runs_so_converters_still_apply():
    meta = evolve(ObjectMeta(name="a"), labels={"k": "v"})
    assert meta == attrs.evolve(ObjectMeta(name="a"), labels={"k": "v"})
    assert type(meta.labels) is type(attrs.evolve(ObjectMeta(name="a"), labels={"k": "v"}).labels)


def test_an_unknown_field_is_refused_as_attrs_refuses_it():
    with pytest.raises(TypeError):
        evolve(ObjectMeta(name="a"), no_such_field=1)


@attrs.frozen
class _Private:
    _hidden: int
    shown: int = 0


def test_private_fields_take_their_init_name():
    v = _Private(hidden=1, shown=2)
    assert evolve(v, hidden=5) == attrs.evolve(v, hidden=5) == _Private(hidden=5, shown=2)
    assert evolve(v, shown=3) == _Private(hidden=1, shown=3)


_SPECS = [
    {"containers": [{"name": "c", "image": "i"}]},
    {"containers": [{"name": "c", "image": "i",
                     "resources": {"requests": {"cpu": "250m", "memory": "64Mi"},
                                   "limits": {"cpu": "250m", "memory": "64Mi"}},
                     "ports": [{"containerPort": 80, "hostPort": 8080}]}],
     "initContainers": [{"name": "init", "image": "i",
                         "resources": {"requests": {"cpu": "2"}}},
                        {"name": "side", "image": "i", "restartPolicy": "Always",
                         "resources": {"requests": {"memory": "1Gi"}},
                         "ports": [{"containerPort": 9, "hostPort": 9090}]}],
     "overhead": {"cpu": "50m"}},
    {"containers": [{"name": "a", "image": "i", "resources": {"limits": {"nvidia.com/gpu": 1}}},
                    {"name": "b", "image": "i", "resources": {"requests": {"cpu": "1"}}}]},
]


def test_a_spec_bound_with_with_node_name_keeps_derived_values_equal_to_fresh_ones():
    """PodSpec.with_node_name (pods/binding) carries the cached requests, limits, host ports
    and QoS class over to the bound spec: each equals what a freshly evolved spec computes,
    whether the values were computed before the bind or not."""
    from ksandbox.api.core import PodSpec

    for data in _SPECS:
        for read_first in (True, False):
            spec = decode(PodSpec, data)
            if read_first:
                (spec.requests, spec.limits, spec.host_ports, spec.qos_class)
            bound = spec.with_node_name("node-1")
            fresh = attrs.evolve(decode(PodSpec, data), node_name="node-1")
            assert bound == fresh and bound.node_name == "node-1"
            for name in ("requests", "limits", "host_ports", "qos_class"):
                assert getattr(bound, name) == getattr(fresh, name), (data, name)


def test_pods_of_one_spec_bound_to_one_node_share_the_bound_spec(monkeypatch):
    """with_node_name remembers its answer by (spec identity, node name): binding a second pod
    of a template to the same node hands out the same bound spec — equal to a freshly evolved
    one — and another node, or an equal spec that is another object, gets its own. Past
    BOUND_LIMIT entries the table starts over; answers stay the same."""
    from ksandbox.api import core
    from ksandbox.api.core import PodSpec

    monkeypatch.setattr(core, "BOUND_LIMIT", 3)
    spec = decode(PodSpec, _SPECS[1])
    twin = decode(PodSpec, _SPECS[1])
    a = spec.with_node_name("node-1")
    assert spec.with_node_name("node-1") is a
    b = spec.with_node_name("node-2")
    assert b is not a and b == attrs.evolve(spec, node_name="node-2")
    c = twin.with_node_name("node-1")
    assert c is not a and c == a
    for i in range(10):   # past the limit: the table starts over
        assert spec.with_node_name(f"n{i}") == attrs.evolve(spec, node_name=f"n{i}")
    assert len(core._BOUND) <= 3
    again = spec.with_node_name("node-1")
    assert again == a == attrs.evolve(spec, node_name="node-1")


def test_a_replacers_code_comes_from_the_methods_cache(tmp_path, monkeypatch):
    """A start makes ~60 replacers while it loads a session: their code is kept in the
    methods cache by their source, and a later process's replacer runs the code it reads."""
    import sys

    from ksandbox.api import evolve as evolve_module
    from ksandbox.api import methods_cache

    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(methods_cache, "_CACHE", methods_cache.MethodsCache(tmp_path / "m.bin"))
    fn = evolve_module.compile_replacer(ObjectMeta, ("name",))
    keys = [k for k in methods_cache._CACHE.entries if "def replace(o, v_name)" in k]
    assert len(keys) == 1
    assert any(c is fn.__code__ for c in methods_cache._CACHE.entries[keys[0]][1].co_consts)
    methods_cache._CACHE.save()
    later = methods_cache.MethodsCache(tmp_path / "m.bin")
    monkeypatch.setattr(methods_cache, "_CACHE", later)
    again = evolve_module.compile_replacer(ObjectMeta, ("name",))
    assert later.added == 0 and again.__code__ == fn.__code__
    meta = ObjectMeta(name="a", namespace="ns", labels={"k": "v"})
    assert again(meta, "b") == attrs.evolve(meta, name="b")


def _crafted_classes() -> list[type]:
    import functools

    class Plain:
        def __init__(self, a, b=1, *rest, c, **kw):
            pass

    class PositionalOnly:
        def __init__(self, a, /, b, *, c=0):
            pass

    class SelfOnlyPositional:
        def __init__(self, /, a):
            pass

    class Star:
        def __init__(*args):
            pass

    class KeywordsOnly:
        def __init__(*, a):
            pass

    class Wrapped:
        @functools.wraps(lambda x, y: None)
        def __init__(self, *args, **kw):
            pass

    class Signed:
        def __init__(self, a):
            pass
    Signed.__init__.__signature__ = inspect.signature(lambda self, z: None)  # type: ignore[attr-defined]

    class ClassSigned:
        __signature__ = inspect.signature(lambda q: None)

        def __init__(self, a):
            pass

    class New:
        def __new__(cls, n):
            return super().__new__(cls)

        def __init__(self, a):
            pass

    class Meta(type):
        def __call__(cls, m):
            return super().__call__()

    class WithMeta(metaclass=Meta):
        def __init__(self, a=0):
            pass

    class Inherited(Plain):
        pass

    return [Plain, PositionalOnly, SelfOnlyPositional, Star, KeywordsOnly, Wrapped, Signed,
            ClassSigned, New, WithMeta, Inherited]


def _api_attrs_classes() -> list[type]:
    import importlib
    import pkgutil

    import ksandbox.api

    found = []
    for info in pkgutil.iter_modules(ksandbox.api.__path__, "ksandbox.api."):
        module = importlib.import_module(info.name)
        found += [c for c in vars(module).values()
                  if isinstance(c, type) and attrs.has(c) and c.__module__ == info.name]
    return found


def test_the_init_parameters_read_off_the_code_are_inspects():
    """evolve reads the positional parameters off the code of attrs' generated __init__
    (inspect.signature cost ~12 M instructions of the TUI's start): the same names as
    inspect.signature for every attrs class of ksandbox.api, and for classes whose call is
    not their own plain __init__ (wrapped, signed, a __new__, a metaclass __call__,
    positional-only and keyword-only parameters) inspect decides or gives the same."""
    from ksandbox.api import evolve as evolve_module

    api = _api_attrs_classes()
    assert len(api) > 100
    for cls in api:
        assert evolve_module._own_init_params(cls) is not None, cls     # the fast path
        assert evolve_module._positional_params(cls) == \
            evolve_module._signature_params(cls), cls
    for cls in _crafted_classes():
        assert evolve_module._positional_params(cls) == \
            evolve_module._signature_params(cls), cls.__name__
