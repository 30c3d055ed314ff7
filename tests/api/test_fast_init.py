"""The fast ``__init__`` of the API types (codec.slot_setter_init) against attrs' own.

Every api_type (and the attrs classes of taints/selectors that take the decorator) builds its
instances with a rewrite of attrs' generated frozen ``__init__``: the instance is of a
"building" twin class while its slots are stored, then of its class again; an instance of a
subclass has each slot set through the field's member descriptor. These tests hold both ways
to attrs' original (kept in ``codec.PLAIN_INITS``) for every class: same signature and
default objects, the same value (by identity) in every slot, the class of the result, the same
error when a converter or post-init refuses (the object's class put back), and the class
still frozen.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import attrs
import pytest

import ksandbox.api as api
from ksandbox.api import codec

for _mod in pkgutil.iter_modules(api.__path__):
    importlib.import_module(f"ksandbox.api.{_mod.name}")

CLASSES = sorted(codec.PLAIN_INITS, key=lambda c: (c.__module__, c.__qualname__))


def _api_types() -> list[type]:
    import gc
    return [c for c in gc.get_objects() if isinstance(c, type) and attrs.has(c)
            and c.__dict__.get("__deepcopy__") is codec._share]


def test_every_api_type_has_the_slot_setting_init() -> None:
    """A class whose attrs source no longer has the expected shape keeps attrs' __init__
    silently; this says so (and then the speed-up is gone)."""
    missing = [c.__qualname__ for c in _api_types() if c not in codec.PLAIN_INITS]
    assert not missing
    assert len(CLASSES) > 130
    from ksandbox.api import selectors, taints
    for cls in (taints.Taint, taints.Toleration, selectors.LabelSelector,
                selectors.LabelSelectorRequirement):
        assert cls in codec.PLAIN_INITS


def test_a_class_has_no_twin_before_its_warm_builds() -> None:
    """A start makes no twins (making a class costs ~0.2M instructions): a class gets its
    twin at its WARM_BUILDS-th build, and builds alike before and after."""
    @codec.api_type
    class Rare:
        a: int = codec.j("a", 0)
        b: str = codec.j("b", "")
        extra: codec.FrozenDict = codec.extra_field()

    assert Rare in codec.PLAIN_INITS and codec.BUILDING_TWINS.get(Rare) is None
    made = []
    while codec.BUILDING_TWINS.get(Rare) is None:
        made.append(Rare(len(made), b="x"))
    assert len(made) == codec.WARM_BUILDS
    for _ in range(3):
        made.append(Rare(len(made), b="x"))
    assert [(type(r), r.a, r.b) for r in made] == [(Rare, i, "x") for i in range(len(made))]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        made[-1].a = 5    # type: ignore[misc]


def _slots(obj: object) -> list[object]:
    return [getattr(obj, a.name) for a in attrs.fields(type(obj))]


def _build(cls: type, init: object, *args: object, **kwargs: object) -> tuple[str, object]:
    obj = object.__new__(cls)
    try:
        init(obj, *args, **kwargs)  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
        assert type(obj) is cls    # a refused build leaves no building twin behind
        return "error", (type(exc), str(exc))
    return "ok", obj


def _same(cls: type, *args: object, **kwargs: object) -> None:
    fast = cls.__init__
    plain = codec.PLAIN_INITS[cls]
    assert fast is not plain
    a = _build(cls, plain, *args, **kwargs)
    b = _build(cls, fast, *args, **kwargs)
    assert a[0] == b[0], cls
    if a[0] == "error":
        assert a[1] == b[1]
        return
    assert type(a[1]) is type(b[1]) is cls
    sa, sb = _slots(a[1]), _slots(b[1])
    assert len(sa) == len(sb)
    for x, y in zip(sa, sb):
        # the argument objects themselves; what a post-init computes (a fresh frozenset)
        # equal and of the same type
        assert x is y or (type(x) is type(y) and x == y), cls
    given = {id(v) for v in (*args, *kwargs.values())}
    assert [id(x) for x in sa if id(x) in given] == [id(y) for y in sb if id(y) in given]
    assert a[1] == b[1] and repr(a[1]) == repr(b[1])
    if type(a[1]).__hash__ is not None:
        assert hash(a[1]) == hash(b[1])


def _all_the_ways(cls: type) -> None:
    fields = [a for a in attrs.fields(cls) if a.init]
    # every default
    _same(cls)
    # a distinct object in every field, by keyword and by position: a store into the wrong
    # slot puts one where another should be
    marks = {a.alias: object() for a in fields}
    _same(cls, **marks)
    positional = [a for a in fields if not a.kw_only]
    _same(cls, *(marks[a.alias] for a in positional),
          **{a.alias: marks[a.alias] for a in fields if a.kw_only})
    # distinct strings (what a converter or a post-init that inspects its values accepts
    # more often than a bare object)
    _same(cls, **{a.alias: f"v-{a.alias}" for a in fields})
    # an unknown argument: the same TypeError
    _same(cls, no_such_field_here=1)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__qualname__)
def test_slot_setting_init_builds_what_attrs_init_builds(cls: type) -> None:
    fast, plain = cls.__init__, codec.PLAIN_INITS[cls]
    # the same signature, with the very default objects
    assert inspect.signature(fast) == inspect.signature(plain)
    assert fast.__defaults__ == plain.__defaults__
    assert all(x is y for x, y in zip(fast.__defaults__ or (), plain.__defaults__ or ()))
    assert fast.__kwdefaults__ == plain.__kwdefaults__
    assert fast.__qualname__ == plain.__qualname__
    # before the class has its building twin (unless earlier builds made it), then after
    _all_the_ways(cls)
    for _ in range(codec.WARM_BUILDS):
        _build(cls, fast)
    assert codec.BUILDING_TWINS.get(cls) is not None   # the layout took the swap
    _all_the_ways(cls)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__qualname__)
def test_a_subclass_instance_is_built_alike(cls: type) -> None:
    """An instance of a subclass (its own layout: no class swap) takes the descriptor way."""
    sub = type(f"Sub{cls.__name__}", (cls,), {"__slots__": ("more",)})
    fields = [a for a in attrs.fields(cls) if a.init]
    marks = {a.alias: object() for a in fields}
    plain = object.__new__(sub)
    fast = object.__new__(sub)
    try:
        codec.PLAIN_INITS[cls](plain, **marks)
    except Exception as exc:  # noqa: BLE001 - a post-init refusing marks: the fast one too
        with pytest.raises(type(exc)):
            cls.__init__(fast, **marks)
        assert type(fast) is sub
        return
    cls.__init__(fast, **marks)
    assert type(fast) is sub
    for x, y in zip(_slots(plain), _slots(fast)):
        assert x is y or (type(x) is type(y) and x == y)


def test_a_converter_refusing_leaves_the_class_in_place() -> None:
    from ksandbox.api.taints import Taint
    for _ in range(codec.WARM_BUILDS):
        Taint(key="k")
    assert codec.BUILDING_TWINS.get(Taint) is not None
    t = object.__new__(Taint)
    with pytest.raises(TypeError, match="timeAdded"):
        Taint.__init__(t, key="k", time_added=[1])
    assert type(t) is Taint
    assert Taint(key="k", time_added=3).time_added == 3.0


@pytest.mark.parametrize("cls", CLASSES[::7], ids=lambda c: c.__qualname__)
def test_instances_stay_frozen(cls: type) -> None:
    try:
        obj = cls()
    except Exception:  # noqa: BLE001 - a class with required fields: not this test's business
        pytest.skip("needs arguments")
    name = attrs.fields(cls)[0].name
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(obj, name, 1)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        delattr(obj, name)


def test_real_objects_rebuilt_alike() -> None:
    """Objects as a manifest decodes them (nested values, converters) rebuild alike."""
    from ksandbox.api.manifest import load_manifests
    text = """
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns, labels: {app: a}}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]
  tolerations: [{key: k, operator: Exists, effect: NoSchedule}]
  nodeSelector: {disk: ssd}
---
apiVersion: v1
kind: Node
metadata: {name: n}
spec: {taints: [{key: k, value: v, effect: NoSchedule}]}
"""
    seen = 0
    for obj in load_manifests(text):
        stack = [obj]
        while stack:
            o = stack.pop()
            cls = type(o)
            if cls in codec.PLAIN_INITS:
                seen += 1
                kwargs = {a.alias: getattr(o, a.name) for a in attrs.fields(cls) if a.init}
                _same(cls, **kwargs)
                stack.extend(getattr(o, a.name) for a in attrs.fields(cls))
            elif isinstance(o, tuple):
                stack.extend(o)
    assert seen > 10
