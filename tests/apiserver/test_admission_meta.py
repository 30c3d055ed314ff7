"""A create's metadata defaulting (the API server's BeforeCreate: the namespace from the
request, a name from generateName — k8s.io/apiserver/pkg/registry/rest/create.go — and the
server-owned fields of an exported manifest cleared) is computed field by field, and a pod is
built once with its defaulted metadata, spec and status. Held here to the plain rule (every
change gathered, the unchanged ones dropped, then the metadata and the pod rebuilt one after
the other) for any metadata, of pods and of other kinds."""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.kinds import BY_KIND
from ksandbox.api.manifest import load_manifests
from ksandbox.apiserver import admission
from ksandbox.apiserver.store import Store
from ksandbox.sim.clock import Clock
from ksandbox.sim.rand import SimRandom

OBJECTS = {
    "Pod": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
           "spec: {containers: [{name: c, image: nginx}]}\n",
    "Node": "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
    "ConfigMap": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
    "Namespace": "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n",
}


def plain_default_meta(store, obj):
    """The rule as written before it was made field by field."""
    info = BY_KIND[obj.kind]
    meta = obj.metadata
    changes = {}
    if info.namespaced and not meta.namespace:
        changes["namespace"] = "default"
    if not info.namespaced and meta.namespace:
        changes["namespace"] = ""
    if not meta.name and meta.generate_name:
        changes["name"] = meta.generate_name + store.rand.name_suffix()
    changes.update(resource_version=None, deletion_timestamp=None)
    if not isinstance(meta.creation_timestamp, (int, float)):
        changes["creation_timestamp"] = None
    if meta.uid and store.rand is not None and len(meta.uid) != 36:
        changes["uid"] = ""
    changes = {k: v for k, v in changes.items() if getattr(meta, k) != v}
    if not changes:
        return obj
    return attrs.evolve(obj, metadata=attrs.evolve(meta, **changes))


METAS = st.fixed_dictionaries({
    "namespace": st.sampled_from(["", "default", "team"]),
    "name": st.sampled_from(["", "x"]),
    "generate_name": st.sampled_from(["", "web-"]),
    "resource_version": st.sampled_from([None, "", "42"]),
    "deletion_timestamp": st.sampled_from([None, 5.0, "2024-01-01T00:00:00Z"]),
    "creation_timestamp": st.sampled_from([None, 0, 3.5, True, "2024-01-01T00:00:00Z"]),
    "uid": st.sampled_from(["", "short-uid", "0" * 8 + "-0000-0000-0000-" + "0" * 12]),
})


def _store() -> Store:
    clock = Clock()
    return Store(lambda: clock.now, SimRandom(7))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(OBJECTS)), METAS)
def test_create_admission_defaults_metadata_as_the_plain_rule(kind, fields):
    obj = load_manifests(OBJECTS[kind])[0]
    obj = attrs.evolve(obj, metadata=attrs.evolve(obj.metadata, **fields))
    fast, plain = _store(), _store()
    got = admission.admit_create(fast, obj)
    defaulted = plain_default_meta(plain, obj)
    fn = admission._CREATE.get(kind)
    want = fn(plain, defaulted) if fn else defaulted
    assert attrs.asdict(got, recurse=False) == attrs.asdict(want, recurse=False)
    assert attrs.asdict(got.metadata) == attrs.asdict(want.metadata)
    assert fast.rand.getstate() == plain.rand.getstate()   # the same draws (generateName)
    if got.metadata == obj.metadata and attrs.asdict(got.metadata) == attrs.asdict(obj.metadata):
        assert got.metadata is obj.metadata   # nothing to change: the metadata is kept


@settings(max_examples=200, deadline=None)
@given(METAS, st.integers(0, 5), st.sampled_from([0.0, 2.5]))
def test_a_stamped_create_admission_is_the_plain_rule_then_the_stamp(fields, rv, now):
    """``stamp`` (a pod written at once: a Session's load) also sets what the create would
    stamp — the next resourceVersion, the creation time, the uid (kept, else drawn), a pod's
    first generation (kept when it has one) — on the defaulted metadata; a metadata with
    nothing else to change takes a short way."""
    obj = load_manifests(OBJECTS["Pod"])[0]
    obj = attrs.evolve(obj, metadata=attrs.evolve(obj.metadata, **fields))
    clocks = [Clock(now), Clock(now)]
    fast, plain = (Store(c.read, SimRandom(7)) for c in clocks)
    fast.resource_version = plain.resource_version = rv
    got = admission._defaulted_meta(fast, obj, stamp=True)
    meta = plain_default_meta(plain, obj).metadata
    want = attrs.evolve(meta, resource_version=str(rv + 1), creation_timestamp=now,
                        uid=meta.uid or plain.rand.uid(), generation=meta.generation or 1)
    assert attrs.asdict(got) == attrs.asdict(want)
    assert type(got.creation_timestamp) is type(want.creation_timestamp)
    assert fast.rand.getstate() == plain.rand.getstate()
