"""The generated replacers (api/evolve.py) pass the unchanged fields by position: for every
attrs class a running cluster holds, any set of changed fields gives exactly attrs.evolve's
object — every field, including those left out of ==, is the same value."""

from __future__ import annotations

from pathlib import Path

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.evolve import compile_replacer
from ksandbox.session import Session

SAMPLES = Path(__file__).resolve().parents[2] / "sample_clusters"


def _collect(value, out: dict, seen: set) -> None:
    if id(value) in seen:
        return
    seen.add(id(value))
    if attrs.has(type(value)):
        out.setdefault(type(value), []).append(value)
        for a in attrs.fields(type(value)):
            _collect(getattr(value, a.name), out, seen)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _collect(v, out, seen)
    elif isinstance(value, dict):
        for v in value.values():
            _collect(v, out, seen)


def _instances() -> dict[type, list]:
    out: dict[type, list] = {}
    seen: set = set()
    for name in ("export.yaml", "node-failure.yaml", "autoscaling.yaml", "spread.yaml"):
        session = Session.from_files([SAMPLES / name])
        session.run_until(90.0)
        for kind in ("Pod", "Node", "Lease", "Deployment", "ReplicaSet", "Service", "Namespace",
                     "PriorityClass", "HorizontalPodAutoscaler", "Event"):
            for obj in session.store.list(kind):
                _collect(obj, out, seen)
    return out


INSTANCES = _instances()
CLASSES = sorted(INSTANCES, key=lambda c: c.__qualname__)


def test_the_walk_reaches_the_classes_every_write_rebuilds():
    names = {c.__name__ for c in CLASSES}
    assert {"ObjectMeta", "Pod", "PodSpec", "PodStatus", "Node", "NodeStatus", "Lease",
            "LeaseSpec", "Event", "PodCondition", "Container"} <= names


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_any_changed_fields_give_attrs_evolves_object(data):
    cls = data.draw(st.sampled_from(CLASSES))
    objs = INSTANCES[cls]
    obj = data.draw(st.sampled_from(objs))
    donor = data.draw(st.sampled_from(objs))   # the new values: another instance's
    init = [a for a in attrs.fields(cls) if a.init]
    changed = data.draw(st.lists(st.sampled_from(init), unique=True, max_size=len(init)))
    fn = compile_replacer(cls, tuple(a.alias for a in changed))
    assert fn is not None
    values = [getattr(donor, a.name) for a in changed]
    got = fn(obj, *values)
    want = attrs.evolve(obj, **{a.alias: v for a, v in zip(changed, values)})
    assert type(got) is type(want)
    for a in attrs.fields(cls):
        assert getattr(got, a.name) == getattr(want, a.name), (cls, a.name)
        assert type(getattr(got, a.name)) is type(getattr(want, a.name))


@attrs.frozen
class _KwOnly:
    a: int
    b: int = attrs.field(kw_only=True, default=2)
    c: int = 3



@attrs.define(init=False)
class _Custom:
    x: int
    y: int

    def __init__(self, y: int, x: int) -> None:
        self.x, self.y = x, y


def test_keyword_only_fields_and_a_hand_written_init_still_get_their_values():
    v = _KwOnly(1, b=5, c=7)
    assert compile_replacer(_KwOnly, ("c",))(v, 9) == _KwOnly(1, b=5, c=9)
    assert compile_replacer(_KwOnly, ("b",))(v, 6) == _KwOnly(1, b=6, c=7)
    w = _Custom(y=2, x=1)
    got = compile_replacer(_Custom, ("y",))(w, 5)
    assert (got.x, got.y) == (1, 5)
