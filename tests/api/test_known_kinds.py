"""manifest.KnownKinds: a load's objects decoded with what decode_object found out about their
(apiVersion, kind) kept give exactly what decode_object gives each of them alone — the same
object, or the same refusal — whatever came before them in the load."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.codec import encode, sharing
from ksandbox.api.errors import ManifestError
from ksandbox.api.manifest import ConfigDocument, KnownKinds, decode_object


def _pod(**meta):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **meta},
            "spec": {"containers": [{"name": "a", "image": "i"}]}}


ITEMS = [
    _pod(),
    _pod(labels={"app": "web"}),
    _pod(namespace="other"),
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "g-"},
     "spec": {"containers": [{"name": "a", "image": "i"}]}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
     "status": {"capacity": {"cpu": "4"}}},
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
     "spec": {"selector": {"matchLabels": {"a": "b"}},
              "template": {"metadata": {"labels": {"a": "b"}},
                           "spec": {"containers": [{"name": "c", "image": "i"}]}}}},
    # what decode_object refuses: no name, an unknown field, a wrong type, a number out of
    # range, a kind in a version the API does not have, no kind, a kind that is not a string
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"a": "b"}},
     "spec": {"containers": [{"name": "a", "image": "i"}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "colour": "blue",
     "spec": {"containers": [{"name": "a", "image": "i"}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
     "spec": {"containers": [{"name": "a", "image": 7}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
     "spec": {"priority": 99999999999999999999, "containers": [{"name": "a", "image": "i"}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": None},
    {"apiVersion": "apps/v1", "kind": "Pod", "metadata": {"name": "p"}},
    {"apiVersion": "v1", "metadata": {"name": "p"}},
    {"apiVersion": "v1", "kind": ["Pod"], "metadata": {"name": "p"}},
    {"apiVersion": {"v": 1}, "kind": "Pod", "metadata": {"name": "p"}},
    ["not", "a", "mapping"],
    # a configuration document: never an API object, whatever came before
    {"apiVersion": "v1", "kind": "Policy", "predicates": []},
    {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"},
]


def _outcome(decode, item):
    try:
        obj = decode(copy.deepcopy(item))
    except ManifestError as exc:
        return ("refused", str(exc))
    if isinstance(obj, ConfigDocument):
        return ("config", obj)
    return (type(obj), encode(obj))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, len(ITEMS) - 1), min_size=1, max_size=30))
def test_known_kinds_decode_as_decode_object(picks):
    known = KnownKinds()
    with sharing():
        got = [_outcome(lambda d: known.decode(d, "f.json", 1), ITEMS[i]) for i in picks]
    with sharing():
        want = [_outcome(lambda d: decode_object(d, "f.json", 1), ITEMS[i]) for i in picks]
    assert got == want


def test_a_known_pair_takes_the_short_way():
    """After one Pod, the next goes to the strict decode without decode_object."""
    import ksandbox.api.manifest as manifest

    known = KnownKinds()
    known.decode(_pod(), "f.json", 1)
    calls = []
    real = manifest.decode_object
    manifest.decode_object = lambda *a, **k: calls.append(a) or real(*a, **k)
    try:
        known.decode(_pod(labels={"a": "b"}), "f.json", 1)
        assert calls == []
        try:
            known.decode(ITEMS[6], "f.json", 1)   # no name: decode_object says so
        except ManifestError:
            pass
        assert len(calls) == 1
    finally:
        manifest.decode_object = real
