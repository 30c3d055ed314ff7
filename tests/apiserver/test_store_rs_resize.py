"""Store.update's resize of a ReplicaSet (the Deployment controller's scaleReplicaSet): a
write whose metadata is the stored one and whose template and selector one earlier update was
admitted unchanged with skips admission and validation, and must store, refuse, version and
announce exactly what the plain path (admit, validate, write) does, for any update."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.errors import KsandboxError
from ksandbox.api.evolve import evolve
from ksandbox.api.manifest import load_manifests
from ksandbox.apiserver import store as store_mod
from ksandbox.apiserver.store import Store, apply_all
from ksandbox.sim.rand import SimRandom

SETUP = """
apiVersion: v1
kind: Namespace
metadata: {name: default}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: "nginx:1"}]
"""


def _store() -> tuple[Store, list]:
    store = Store(lambda: 5.0, SimRandom(1))
    apply_all(store, load_manifests(SETUP))
    heard: list = []
    store.subscribe("ReplicaSet", lambda ev: heard.append((ev.type, ev.obj, ev.old)))
    return store, heard


def _plain_update(store: Store, obj: object) -> object:
    """What Store.update did before the resize path: admit, validate, write."""
    old = store._current(obj)
    return store._write(old, store._admit_update(old, obj), False)


# What an update may change besides spec.replicas (drawn with it)
CHANGES = ("none", "none", "none", "labels", "bad-labels", "annotations", "image", "bad-restart",
           "selector", "template-labels", "min-ready", "same-template-copy")


def _changed(rs: object, replicas: object, change: str) -> object:
    spec = evolve(rs.spec, replicas=replicas)
    meta = rs.metadata
    tpl = spec.template
    if change == "labels":
        meta = evolve(meta, labels={**meta.labels, "x": "1"})
    elif change == "bad-labels":
        meta = evolve(meta, labels={**meta.labels, "x": "not valid!"})
    elif change == "annotations":
        meta = evolve(meta, annotations={**meta.annotations, "a": "b"})
    elif change == "image":
        c = evolve(tpl.spec.containers[0], image=f"nginx:{replicas}")
        spec = evolve(spec, template=evolve(tpl, spec=evolve(tpl.spec, containers=(c,))))
    elif change == "bad-restart":
        spec = evolve(spec, template=evolve(tpl, spec=evolve(tpl.spec,
                                                             restart_policy="Never")))
    elif change == "selector":
        spec = evolve(spec, selector=evolve(spec.selector, match_labels={"app": "other"}))
    elif change == "template-labels":
        spec = evolve(spec, template=evolve(tpl, metadata=evolve(tpl.metadata,
                                                                 labels={"app": "x"})))
    elif change == "min-ready":
        spec = evolve(spec, min_ready_seconds=7)
    elif change == "same-template-copy":   # an equal template, another object
        spec = evolve(spec, template=evolve(tpl, spec=evolve(tpl.spec)))
    return evolve(rs, metadata=meta, spec=spec)


def _outcome(store: Store, obj: object, plain: bool) -> tuple:
    try:
        out = _plain_update(store, obj) if plain else store.update(obj)
    except KsandboxError as exc:
        return ("error", type(exc).__name__, str(exc))
    return ("ok", out)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from((0, 1, 2, 3, 5, -1, None, True)),
                          st.sampled_from(CHANGES)), min_size=1, max_size=12))
def test_a_resize_is_written_as_the_plain_update_writes_it(ops: list) -> None:
    fast, fast_heard = _store()
    plain, plain_heard = _store()
    for replicas, change in ops:
        a = _outcome(fast, _changed(fast.get("ReplicaSet", "web", "default"), replicas,
                                    change), plain=False)
        b = _outcome(plain, _changed(plain.get("ReplicaSet", "web", "default"), replicas,
                                     change), plain=True)
        assert a == b
        if a[0] == "ok":
            assert a[1] is fast.get("ReplicaSet", "web", "default")
            assert a[1].metadata == b[1].metadata   # (rv, generation)
        assert fast.resource_version == plain.resource_version
    assert fast_heard == plain_heard


def test_resizes_skip_admission_once_the_template_is_known(monkeypatch) -> None:
    store, heard = _store()
    admitted = []
    plain = Store._admit_update
    monkeypatch.setattr(Store, "_admit_update",
                        lambda self, old, obj: admitted.append(obj) or plain(self, old, obj))
    rs = store.get("ReplicaSet", "web", "default")
    store.update(_changed(rs, 3, "annotations"))   # a new metadata: the plain path
    assert len(admitted) == 1
    for n in (4, 0, 6):
        out = store.update(_changed(store.get("ReplicaSet", "web", "default"), n, "none"))
        assert out.spec.replicas == n and out.metadata.generation == rs.metadata.generation + 1 + \
            (4, 0, 6).index(n) + 1
    assert len(admitted) == 1   # every resize after it: written as it is
    with pytest.raises(KsandboxError):   # a negative size is still refused, by validation
        store.update(_changed(store.get("ReplicaSet", "web", "default"), -1, "none"))
    assert len(admitted) == 2 and store.get("ReplicaSet", "web", "default").spec.replicas == 6


def test_a_known_template_does_not_let_the_selector_change() -> None:
    """Two ReplicaSets sharing one template object, with different selectors: the template
    known with the first one's selector must not let the second take that selector (it is
    immutable) — the resize path needs the stored selector itself."""
    store, _ = _store()
    a = store.get("ReplicaSet", "web", "default")
    tpl = a.spec.template
    tpl = evolve(tpl, metadata=evolve(tpl.metadata, labels={"app": "web", "tier": "x"}))
    a = store.update(evolve(a, spec=evolve(a.spec, template=tpl)))
    b = store.create(evolve(a, metadata=evolve(a.metadata, name="web-b", resource_version="",
                                               uid=""),
                            spec=evolve(a.spec, selector=evolve(a.spec.selector,
                                                                match_labels={"tier": "x"}))))
    assert b.spec.template is a.spec.template
    a = store.update(_changed(a, 4, "annotations"))   # (template, a's selector) now known
    moved = evolve(b, spec=evolve(b.spec, selector=a.spec.selector, replicas=3))
    with pytest.raises(KsandboxError, match="field is immutable"):
        store.update(moved)
    assert store.get("ReplicaSet", "web-b", "default") is b
