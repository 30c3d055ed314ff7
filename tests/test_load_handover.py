"""A load hands its decoded objects over to the session (Session ``take``, apply_all
``take``): the caller keeps no reference, the session empties the lists it was given, and
each decoded object goes as soon as its stored copy is made — so its memory holds the next
stored objects instead of being freed all at once at the end, where the process keeps it
(~500 bytes per pod of a 150,000-pod export). Taking must change nothing else: the same
cluster, the same refusal naming the same item."""

from __future__ import annotations

import json
import weakref

import pytest

from ksandbox.api.codec import encode
from ksandbox.api.errors import ManifestError
from ksandbox.api.manifest import Origin, load_files_with_sources
from ksandbox.apiserver import store as store_module
from ksandbox.session import Session

NODES = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {disk: ssd}}
spec: {taints: [{key: k, value: v, effect: NoSchedule}]}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
"""


def _pod(i: int, **spec):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "shop", "labels": {"app": "shop"}},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.25",
                                     "resources": {"requests": {"cpu": "100m"}}}], **spec}}


def _export(items):
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4)


DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "web", "namespace": "shop"},
              "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}


def _files(tmp_path, items):
    (tmp_path / "nodes.yaml").write_text(NODES)
    (tmp_path / "export.json").write_text(_export(items))
    return [str(tmp_path / "nodes.yaml"), str(tmp_path / "export.json")]


ITEMS = [_pod(i, nodeName="n1") for i in range(8)] + [DEPLOYMENT] + \
    [_pod(i) for i in range(8, 14)]


def test_each_decoded_object_goes_once_its_stored_copy_is_made(tmp_path, monkeypatch):
    loaded, texts = load_files_with_sources(_files(tmp_path, ITEMS))
    docs, origins = [d for d, _ in loaded], [o for _, o in loaded]
    del loaded
    written: list[weakref.ref] = []
    plain_stage = store_module._stage

    def stage(store, obj, seen, new_namespaces, **kw):
        # every object staged before this one is stored, so nothing may hold it any more
        assert [r for r in written if r() is not None] == []
        written.append(weakref.ref(obj))
        return plain_stage(store, obj, seen, new_namespaces, **kw)

    monkeypatch.setattr(store_module, "_stage", stage)
    s = Session.from_documents(docs, origins=origins, source=texts, take=True)
    assert docs == [] and origins == []   # handed over: the caller's lists are emptied
    assert len(written) == 2 + 15 + 1   # nodes, the export's items, the implied namespace
    assert [r for r in written if r() is not None] == []
    assert s.store.count("Pod") == 14 + 3   # and the Deployment's three at t=0


def test_taking_builds_the_same_cluster(tmp_path):
    files = _files(tmp_path, ITEMS)
    taken = Session.from_files(files)   # takes (the CLI's way)
    loaded, texts = load_files_with_sources(files)
    kept = Session.from_documents([d for d, _ in loaded], origins=[o for _, o in loaded],
                                  source=texts, name="nodes,export")
    for s in (taken, kept):
        s.run_until(40)
    assert taken.view() == kept.view()
    assert taken.store.resource_version == kept.store.resource_version
    assert [encode(e) for e in taken.store.events] == [encode(e) for e in kept.store.events]
    for kind in ("Node", "Pod", "ReplicaSet", "Deployment", "Namespace"):
        assert [encode(o) for o in taken.store.list(kind)] == \
            [encode(o) for o in kept.store.list(kind)]


@pytest.mark.parametrize("take", [False, True])
def test_a_refused_item_is_named_alike_when_taken(tmp_path, take):
    # decoded fine, refused by validation (a container name that is no DNS label)
    bad = _pod(5, nodeName="n1")
    bad["spec"]["containers"][0]["name"] = "Not_A_Label"
    items = [_pod(i, nodeName="n1") for i in range(5)] + [bad, _pod(6)]
    loaded, texts = load_files_with_sources(_files(tmp_path, items))
    docs, origins = [d for d, _ in loaded], [o for _, o in loaded]
    with pytest.raises(ManifestError) as caught:
        Session.from_documents(docs, origins=origins, source=texts, take=take)
    message = str(caught.value)
    assert "export.json" in message and "items[5]: " in message and "Not_A_Label" in message
    if not take:
        assert len(docs) == 2 + 7   # kept when not handed over


def test_an_origin_names_a_list_item_by_its_index():
    assert Origin("f.json", 1, 7).path == "items[7]"
    assert Origin("f.yaml", 3).path == ""
    assert str(Origin("f.json", 1, 0).error("boom")).endswith("items[0]: boom")
