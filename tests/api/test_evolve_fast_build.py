"""A replacer (api/evolve.py) of a class whose attrs ``__init__`` only stores its arguments
builds the instance itself once the class has its building twin: the same value, by identity,
in every slot as the class call (attrs' own ``__init__``) gives, an instance of the class
itself, still frozen. Before the twin, and for any class whose ``__init__`` does more
(converters, post-init), it calls the class."""

from __future__ import annotations

import importlib
import pkgutil

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ksandbox.api as api
from ksandbox.api import codec
from ksandbox.api.evolve import compile_replacer

for _mod in pkgutil.iter_modules(api.__path__):
    importlib.import_module(f"ksandbox.api.{_mod.name}")

CLASSES = sorted(codec.PLAIN_INITS, key=lambda c: (c.__module__, c.__qualname__))
STORING = [c for c in CLASSES if codec.init_stores(c) is not None]


def _plain(cls: type, **kwargs: object) -> object:
    """The instance attrs' own __init__ builds."""
    obj = object.__new__(cls)
    codec.PLAIN_INITS[cls](obj, **kwargs)
    return obj


def _warm(cls: type) -> None:
    fields = [a for a in attrs.fields(cls) if a.init]
    for _ in range(codec.WARM_BUILDS):
        if codec.BUILDING_TWINS.get(cls) is not None:
            return
        cls(**{a.alias: object() for a in fields})


def _same_slots(got: object, want: object) -> None:
    cls = type(want)
    assert type(got) is cls
    for a in attrs.fields(cls):
        assert getattr(got, a.name) is getattr(want, a.name), (cls, a.name)


def test_most_classes_only_store_their_arguments() -> None:
    assert len(STORING) > 120
    from ksandbox.api.meta import ObjectMeta
    from ksandbox.api.taints import Taint
    assert ObjectMeta in STORING
    assert Taint not in STORING   # its converters run in __init__


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_replacer_stores_what_the_class_call_stores(data: st.DataObject) -> None:
    cls = data.draw(st.sampled_from(STORING))
    _warm(cls)
    assert codec.BUILDING_TWINS.get(cls) is not None
    fields = [a for a in attrs.fields(cls) if a.init]
    old = _plain(cls, **{a.alias: object() for a in fields})
    changed = data.draw(st.lists(st.sampled_from(fields), unique=True, max_size=len(fields)))
    values = [object() for _ in changed]
    fn = compile_replacer(cls, tuple(a.alias for a in changed))
    assert fn is not None and fn.__globals__["_twin"] is codec.BUILDING_TWINS[cls]
    got = fn(old, *values)
    kwargs = {a.alias: getattr(old, a.name) for a in fields}
    kwargs.update((a.alias, v) for a, v in zip(changed, values))
    _same_slots(got, _plain(cls, **kwargs))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(got, fields[0].name, 1) if fields else got.__setattr__("x", 1)


def test_a_replacer_made_before_the_twin_builds_alike_before_and_after() -> None:
    @codec.api_type
    class Fresh:
        a: int = codec.j("a", 0)
        b: str = codec.j("b", "")
        extra: codec.FrozenDict = codec.extra_field()

    assert codec.init_stores(Fresh) == (("a", "a"), ("b", "b"), ("extra", "extra"))
    fn = compile_replacer(Fresh, ("b",))
    assert fn is not None and fn.__globals__["_twin"] is None
    old = Fresh(1, b="x")
    before = fn(old, "y")
    _same_slots(before, _plain(Fresh, a=1, b="y", extra=old.extra))
    while codec.BUILDING_TWINS.get(Fresh) is None:   # builds (the replacer's count too)
        fn(old, "y")
    assert fn.__globals__["_twin"] is codec.BUILDING_TWINS[Fresh]
    _same_slots(fn(old, "z"), _plain(Fresh, a=1, b="z", extra=old.extra))


def test_an_init_that_does_more_is_called() -> None:
    @codec.api_type
    class Converted:
        a: float = attrs.field(default=0.0, converter=float)
        b: str = codec.j("b", "")

    @codec.api_type
    class Checked:
        a: int = codec.j("a", 0)

        def __attrs_post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("negative")

    assert codec.init_stores(Converted) is None and codec.init_stores(Checked) is None
    for _ in range(codec.WARM_BUILDS):
        Converted(1, b="x")
        Checked(1)
    fn = compile_replacer(Converted, ("a",))
    assert fn is not None and "_twin" not in fn.__globals__
    got = fn(Converted(1, b="x"), 3)
    assert type(got.a) is float and got == Converted(3.0, b="x")
    check = compile_replacer(Checked, ("a",))
    assert check is not None
    with pytest.raises(ValueError, match="negative"):
        check(Checked(1), -1)


# (class, part) pairs of api objects with metadata: a write of some of the part's fields
_PARTS = [(c, a.name) for c in STORING for a in attrs.fields(c)
          if any(f.name == "metadata" for f in attrs.fields(c)) and a.name not in ("metadata",)
          and attrs.has(a.type if isinstance(a.type, type) else type(a.default))
          and type(a.default) in STORING]


def test_there_are_parts_to_build() -> None:
    from ksandbox.api.coordination import Lease
    assert (Lease, "spec") in _PARTS and len(_PARTS) > 20


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_stamped_part_build_stores_what_the_class_calls_store(data: st.DataObject) -> None:
    from ksandbox.api.evolve import stamped_part_builder
    from ksandbox.api.meta import ObjectMeta
    cls, part = data.draw(st.sampled_from(_PARTS))
    part_cls = type(attrs.fields_dict(cls)[part].default)
    for c in (cls, ObjectMeta, part_cls):
        _warm(c)
    part_fields = [a for a in attrs.fields(part_cls) if a.init]
    changed = data.draw(st.lists(st.sampled_from(part_fields), unique=True, min_size=1))
    values = [object() for _ in changed]
    fn = stamped_part_builder(cls, ObjectMeta, part_cls, part, tuple(a.alias for a in changed))
    assert fn is not None
    meta_fields = [a for a in attrs.fields(ObjectMeta) if a.init]
    meta = _plain(ObjectMeta, **{a.alias: object() for a in meta_fields})
    old_part = _plain(part_cls, **{a.alias: object() for a in part_fields})
    fields = [a for a in attrs.fields(cls) if a.init]
    old = _plain(cls, **{a.alias: meta if a.name == "metadata" else old_part
                         if a.name == part else object() for a in fields})
    rv = object()
    got = fn(old, rv, *values)
    want_meta = _plain(ObjectMeta, **{a.alias: rv if a.name == "resource_version" else
                                      getattr(meta, a.name) for a in meta_fields})
    want_part = dict((a.alias, getattr(old_part, a.name)) for a in part_fields)
    want_part.update((a.alias, v) for a, v in zip(changed, values))
    _same_slots(got.metadata, want_meta)
    _same_slots(getattr(got, part), _plain(part_cls, **want_part))
    for a in fields:
        if a.name not in ("metadata", part):
            assert getattr(got, a.name) is getattr(old, a.name), a.name
    assert type(got) is cls
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(got, fields[0].name, 1)
    # an object whose metadata or part is of another class: nothing built
    for other_meta, other_part in ((object(), old_part), (meta, object())):
        other = _plain(cls, **{a.alias: other_meta if a.name == "metadata" else other_part
                               if a.name == part else object() for a in fields})
        assert fn(other, rv, *values) is None


_STAMPED = [c for c in STORING if any(f.name == "metadata" for f in attrs.fields(c))]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_stamped_build_stores_what_the_class_calls_store(data: st.DataObject) -> None:
    from ksandbox.api.evolve import stamped_builder
    from ksandbox.api.meta import ObjectMeta
    cls = data.draw(st.sampled_from(_STAMPED))
    for c in (cls, ObjectMeta):
        _warm(c)
    fields = [a for a in attrs.fields(cls) if a.init]
    changed = data.draw(st.lists(st.sampled_from([a for a in fields if a.name != "metadata"]),
                                 unique=True))
    values = [object() for _ in changed]
    fn = stamped_builder(cls, ObjectMeta, tuple(a.alias for a in changed))
    assert fn is not None
    meta_fields = [a for a in attrs.fields(ObjectMeta) if a.init]
    meta = _plain(ObjectMeta, **{a.alias: object() for a in meta_fields})
    old = _plain(cls, **{a.alias: meta if a.name == "metadata" else object() for a in fields})
    rv = object()
    got = fn(old, rv, *values)
    _same_slots(got.metadata, _plain(ObjectMeta, **{
        a.alias: rv if a.name == "resource_version" else getattr(meta, a.name)
        for a in meta_fields}))
    want = {a.alias: getattr(old, a.name) for a in fields if a.name != "metadata"}
    want.update((a.alias, v) for a, v in zip(changed, values))
    for a in fields:
        if a.name != "metadata":
            assert getattr(got, a.name) is want[a.alias], a.name
    assert type(got) is cls and len(_STAMPED) > 40
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(got, fields[0].name, 1)
    # an object whose metadata is of another class: nothing built
    other = _plain(cls, **{a.alias: object() for a in fields})
    assert fn(other, rv, *values) is None
