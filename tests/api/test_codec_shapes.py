"""The decoders compiled per type and shape of mapping (codec_shapes) give what the plain
decoder (codec.decode_plain, field by field) gives: the same objects (as data, extras
included, and as ``==``), the same unknown-field reports and the same refusals, word for
word — on generated manifests with wrong types, nulls, integral floats, out-of-range
numbers, unknown keys (upstream's and not), in and out of ``codec.sharing``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api import codec, codec_shapes
from ksandbox.api.codec import encode
from ksandbox.api.core import Node, Pod
from ksandbox.api.errors import FieldError, ManifestError
from ksandbox.api.manifest import decode_object
from ksandbox.api.meta import ObjectMeta

KINDS = {"Pod": Pod, "Node": Node}


def _outcome(item: Any, path: str) -> Any:
    """The manifest loader's answer (a strict decode: unknown fields refused), and the
    API type's plain ``decode`` (unknown fields kept silently)."""
    try:
        obj = decode_object(item, "f.json", 1, path)
        # extra is left out of attrs' ==: encode shows it
        strict = ("decoded", obj, encode(obj), repr(obj))
    except ManifestError as exc:
        strict = ("refused", str(exc))
    try:
        obj = codec.decode(KINDS[item["kind"]], item, path)
        loose = ("decoded", obj, encode(obj), repr(obj))
    except FieldError as exc:
        loose = ("refused", str(exc))
    return strict, loose


def _decoded(items: list[Any], *, plain: bool, shared: bool, monkeypatch: Any) -> list[Any]:
    monkeypatch.setattr(codec, "_FAST", {})
    if plain:   # no compiled decoder: the plain path alone
        monkeypatch.setattr(codec, "compile_class", None)
    monkeypatch.setattr(codec_shapes, "WARM_SHAPE", 1)   # every shape compiled at once

    def run() -> list[Any]:
        return [_outcome(item, path) for item, path in items]

    if shared:
        with codec.sharing():
            return run()
    return run()


# values a field may be given: the right type or not
ANY_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.sampled_from(
        [1.0, 2.5, -0.0, "", "x", "100m", "1Gi", "4", "Always", "a b", "10%"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.sampled_from(["a", "cpu", "memory", "name"]),
                                            inner, max_size=3)),
    max_leaves=6)


def _sometimes_with(strategy: st.SearchStrategy, key: str) -> st.SearchStrategy:
    """``strategy``'s mappings, one in eight with ``key`` (unknown to upstream) added."""
    return st.tuples(strategy, st.integers(0, 7), ANY_VALUE).map(
        lambda t: {**t[0], key: t[2]} if t[1] == 0 and isinstance(t[0], dict) else t[0])


def _maybe(good: st.SearchStrategy) -> st.SearchStrategy:
    """Mostly the right value, sometimes anything (a manifest with one problem anywhere is
    refused whole: most must be good for the decoded objects to be compared)."""
    return st.one_of(*[good] * 24, ANY_VALUE)


NAMES = st.sampled_from(["web-1", "web-2", "db-0", "Bad_Name", ""])
LABELS = st.dictionaries(st.sampled_from(["app", "tier", "zone"]),
                         _maybe(st.sampled_from(["web", "db", "a"])), max_size=3)

CONTAINER = _sometimes_with(st.fixed_dictionaries(
    {"name": _maybe(st.sampled_from(["app", "side"]))},
    optional={
        "image": _maybe(st.sampled_from(["nginx:1", "busybox"])),
        "resources": _maybe(st.fixed_dictionaries({}, optional={
            "requests": _maybe(st.dictionaries(st.sampled_from(["cpu", "memory"]),
                                               _maybe(st.sampled_from(["100m", "1Gi", "1"])),
                                               max_size=2)),
            "limits": _maybe(st.dictionaries(st.sampled_from(["cpu"]),
                                             st.sampled_from(["1", 2, 0.5]), max_size=1))})),
        "ports": _maybe(st.lists(st.fixed_dictionaries(
            {"containerPort": _maybe(st.sampled_from([80, 8080, 80.0, 2**40]))}), max_size=2)),
        "terminationMessagePath": st.just("/dev/termination-log"),
    }), "bogus")

POD_SPEC = st.fixed_dictionaries(
    {"containers": _maybe(st.lists(_maybe(CONTAINER), min_size=1, max_size=2))},
    optional={
        "nodeName": _maybe(st.sampled_from(["n1", "n2"])),
        "priority": _maybe(st.sampled_from([0, 100, 2**31, 7.0])),
        "tolerations": _maybe(st.lists(st.fixed_dictionaries(
            {"key": st.sampled_from(["k", ""]), "operator": st.sampled_from(["Exists", "Equal"])},
            optional={"tolerationSeconds": _maybe(st.sampled_from([30, 2**63]))}), max_size=2)),
        "nodeSelector": LABELS,
        "dnsPolicy": st.just("ClusterFirst"),
        "schedulerName": _maybe(st.just("default-scheduler")),
    })

META = _sometimes_with(st.fixed_dictionaries(
    {"name": _maybe(NAMES)},
    optional={"namespace": _maybe(st.sampled_from(["default", "prod"])),
              "labels": _maybe(LABELS), "annotations": _maybe(LABELS),
              "uid": st.just("0b5f7c9e-1a9b-4d6e-8f00-3c2b1a0f9e8d"),
              "resourceVersion": st.sampled_from(["123", None]),
              "creationTimestamp": st.sampled_from([None, "2024-01-01T00:00:00Z"]),
              "generation": _maybe(st.just(3)),
              "finalizers": _maybe(st.lists(st.just("x/y"), max_size=2)),
              "ownerReferences": _maybe(st.lists(st.fixed_dictionaries(
                  {"apiVersion": st.just("apps/v1"), "kind": st.just("ReplicaSet"),
                   "name": NAMES, "uid": st.just("u1"),
                   "controller": _maybe(st.booleans())}), max_size=1))}), "bogus")

POD = st.fixed_dictionaries(
    {"apiVersion": _maybe(st.just("v1")), "kind": st.just("Pod"), "metadata": _maybe(META)},
    optional={"spec": _maybe(POD_SPEC),
              "status": _maybe(st.fixed_dictionaries({}, optional={
                  "phase": _maybe(st.sampled_from(["Running", "Pending"])),
                  "qosClass": st.just("Burstable")}))})

NODE = st.fixed_dictionaries(
    {"apiVersion": st.just("v1"), "kind": st.just("Node"), "metadata": META},
    optional={"spec": st.fixed_dictionaries({}, optional={
        "unschedulable": _maybe(st.booleans()),
        "taints": _maybe(st.lists(st.fixed_dictionaries(
            {"key": st.just("k"), "effect": st.sampled_from(["NoSchedule", "NoExecute"])}),
            max_size=2))}),
              "status": st.fixed_dictionaries({}, optional={
                  "capacity": _maybe(st.dictionaries(st.sampled_from(["cpu", "memory", "pods"]),
                                                     _maybe(st.sampled_from(["4", "32Gi", 4])),
                                                     max_size=3))})})

ITEMS = st.lists(st.tuples(st.one_of(POD, POD, NODE), st.sampled_from(["", "items[3]"])),
                 min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(items=ITEMS, shared=st.booleans(), repeat=st.integers(1, 3))
def test_compiled_decoders_give_what_the_plain_decoder_gives(items, shared, repeat):
    items = items * repeat    # shapes come again (and values repeat, for sharing)
    with pytest.MonkeyPatch.context() as mp:
        want = _decoded(items, plain=True, shared=shared, monkeypatch=mp)
    with pytest.MonkeyPatch.context() as mp:
        got = _decoded(items, plain=False, shared=shared, monkeypatch=mp)
    assert got == want


POD_TEXT = {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "labels": {"app": "a"}},
            "spec": {"nodeName": "n1", "dnsPolicy": "ClusterFirst",
                     "containers": [{"name": "app", "image": "nginx",
                                     "resources": {"requests": {"cpu": "100m"}}}]}}


def test_a_shape_seen_often_enough_is_decoded_without_the_plain_decoder(monkeypatch):
    """The fast path is taken (else the test above would compare the plain path with
    itself): once warm, a pod's decode calls the plain decoder for no part of it."""
    monkeypatch.setattr(codec, "_FAST", {})
    calls = []
    plain = codec.decode_plain

    def counted(cls, data, path=""):
        calls.append(cls.__name__)
        return plain(cls, data, path)

    monkeypatch.setattr(codec, "decode_plain", counted)
    with codec.sharing():
        for _ in range(codec_shapes.WARM_SHAPE):
            decode_object(POD_TEXT, "f", 1)
        assert calls   # not warm yet: the plain way
        calls.clear()
        obj = decode_object(POD_TEXT, "f", 1)
    assert calls == []
    assert obj.spec.extra == {"dnsPolicy": "ClusterFirst"}
    assert encode(obj)["spec"] == POD_TEXT["spec"]


def test_a_refusal_names_the_path_once_the_shape_is_compiled(monkeypatch):
    monkeypatch.setattr(codec, "_FAST", {})
    monkeypatch.setattr(codec_shapes, "WARM_SHAPE", 1)
    bad = {**POD_TEXT, "spec": {**POD_TEXT["spec"], "containers": [
        {"name": "app", "image": 5}]}}
    with codec.sharing():
        decode_object(POD_TEXT, "f", 1)
        with pytest.raises(ManifestError) as exc:
            decode_object(bad, "f", 1)
    assert ("json: cannot unmarshal number into Go struct field Container.spec.containers.image "
            "of type string") in str(exc.value)
    unknown = {**POD_TEXT, "spec": {**POD_TEXT["spec"], "bogusField": 1}}
    with codec.sharing():
        with pytest.raises(ManifestError) as exc:
            decode_object(unknown, "f", 1, "items[0]")
    assert 'unknown field "spec.bogusField"' in str(exc.value)


MAP_VALUES = st.one_of(st.sampled_from(["1", "a", "", "True"]), st.sampled_from([1, 1.0, True]),
                       st.none(), st.lists(st.just("a"), max_size=1))


@settings(max_examples=300, deadline=None)
@given(maps=st.lists(st.one_of(
    st.dictionaries(st.sampled_from(["1", "a", "b"]), MAP_VALUES, max_size=3),
    st.dictionaries(st.sampled_from([1, True, "1"]), st.just("x"), max_size=2)),
    min_size=1, max_size=8))
def test_a_string_map_met_before_decodes_as_it_would_alone(maps):
    """Within sharing(), a string map equal to one met before (1, 1.0 and True equal each
    other, never a string) is given back without being checked again: exactly what
    checking it gives, value or refusal."""
    def outcome(m):
        try:   # (a strict decode, as the loader's: only its values are remembered)
            meta, _ = codec.strict_decode(ObjectMeta, {"name": "n", "labels": m}, "metadata")
            return ("ok", meta.labels)
        except FieldError as exc:
            return ("refused", str(exc))

    alone = [outcome(m) for m in maps]
    with codec.sharing():
        shared = [outcome(m) for m in maps]
    assert shared == alone
    assert [type(o[1]) for o in shared] == [type(o[1]) for o in alone]


def test_a_compiled_shape_holds_unmodelled_fields_to_their_json_kind(monkeypatch):
    """An env that is not a list (strict.py's EXTRA_SHAPES) is refused once the shape is
    compiled too: the compiled decoder gives it to the plain one, which says it as the API
    server does; a list is kept as it came."""
    monkeypatch.setattr(codec, "_FAST", {})
    monkeypatch.setattr(codec_shapes, "WARM_SHAPE", 1)

    def pod(env):
        return {**POD_TEXT, "spec": {**POD_TEXT["spec"], "containers": [
            {"name": "app", "image": "nginx", "env": env}]}}

    with codec.sharing():
        decode_object(pod([{"name": "A", "value": "b"}]), "f", 1)
        ok = decode_object(pod([{"name": "A", "value": "c"}]), "f", 1)
        with pytest.raises(ManifestError) as exc:
            decode_object(pod("prod"), "f", 1)
    assert ok.spec.containers[0].extra["env"][0]["value"] == "c"
    assert str(exc.value).endswith("json: cannot unmarshal string into Go struct field "
                                   "Container.spec.containers.env of type []v1.EnvVar")
