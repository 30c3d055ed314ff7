"""The slot-setting ``__init__`` of the API types (codec.slot_setter_init) against attrs' own.

Every api_type (and the attrs classes of taints/selectors that take the decorator) builds its
instances with a twin of attrs' generated frozen ``__init__`` whose lines set each field's slot
through the field's member descriptor instead of ``object.__setattr__``. These tests hold the
twin to attrs' original (kept in ``codec.PLAIN_INITS``) for every class: same signature and
default objects, the same value (by identity) in every slot, the same error when a converter or
post-init refuses, and the class still frozen.
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


def _slots(obj: object) -> list[object]:
    return [getattr(obj, a.name) for a in attrs.fields(type(obj))]


def _build(cls: type, init: object, *args: object, **kwargs: object) -> tuple[str, object]:
    obj = object.__new__(cls)
    try:
        init(obj, *args, **kwargs)  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 - the error itself is compared
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


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__qualname__)
def test_slot_setting_init_builds_what_attrs_init_builds(cls: type) -> None:
    fast, plain = cls.__init__, codec.PLAIN_INITS[cls]
    # the same signature, with the very default objects
    assert inspect.signature(fast) == inspect.signature(plain)
    assert fast.__defaults__ == plain.__defaults__
    assert all(x is y for x, y in zip(fast.__defaults__ or (), plain.__defaults__ or ()))
    assert fast.__kwdefaults__ == plain.__kwdefaults__
    assert fast.__qualname__ == plain.__qualname__
    fields = [a for a in attrs.fields(cls) if a.init]
    # every default
    _same(cls)
    # a distinct object in every field, by keyword and by position: a setter bound to the
    # wrong slot puts one where another should be
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
