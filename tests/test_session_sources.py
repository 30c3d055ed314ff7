"""A session loaded from files keeps the texts it was decoded from (compressed:
api/manifest.SourceTexts), not a second copy of every decoded object: ``initial_objects``
decodes them again, equal to the first load's, for replays, undo (recording/branches.py) and
recordings (recording/player.dump_recording), which stay exactly what they were."""

from __future__ import annotations

import contextlib
import gc
import io

import pytest

from ksandbox import cli
from ksandbox.api.codec import encode
from ksandbox.api.core import Pod
from ksandbox.api.manifest import SourceTexts, load_file_with_origins, load_files_with_sources
from ksandbox.recording.branches import replay_before
from ksandbox.recording.player import dump_recording
from ksandbox.session import Session

NODE = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
"""
# an export: its pods name a namespace it does not list (the session makes it)
EXPORT = {"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Pod",
     "metadata": {"name": f"p{i}", "namespace": "shop", "labels": {"app": "shop"}},
     "spec": {"nodeName": "n1", "containers": [
         {"name": "c", "image": "nginx:1.25", "resources": {"requests": {"cpu": "100m"}}}]}}
    for i in range(20)]}


def _files(tmp_path):
    import json

    (tmp_path / "node.yaml").write_text(NODE)
    (tmp_path / "export.json").write_text(json.dumps(EXPORT, indent=4))
    return [tmp_path / "node.yaml", tmp_path / "export.json"]


def test_the_session_keeps_texts_and_decodes_the_same_objects(tmp_path):
    files = _files(tmp_path)
    s = Session.from_files(files)
    assert s._initial_objects is None and s.implied_namespaces == ["shop"]
    loaded = [x for f in files for x in load_file_with_origins(f)]
    decoded = [o for o, _ in loaded]
    again = s.initial_objects
    assert [o.kind for o in again[:1]] == ["Namespace"] and again[0].metadata.name == "shop"
    assert [encode(o) for o in again[1:]] == [encode(o) for o in decoded]
    # keeping objects (a session built from objects) gives the same start
    kept = Session.from_documents(decoded, origins=[o for _, o in loaded])
    assert kept._initial_objects is not None
    assert [encode(o) for o in kept.initial_objects] == [encode(o) for o in again]


def test_no_decoded_copy_of_the_pods_is_kept(tmp_path):
    # Counted as the growth of live Pod objects across the load: other tests of the same
    # process may leave pods alive (module caches), which is not this session's doing.
    files = _files(tmp_path)
    gc.collect()
    before = sum(1 for o in gc.get_objects() if type(o) is Pod)
    s = Session.from_files(files)
    gc.collect()
    pods = sum(1 for o in gc.get_objects() if type(o) is Pod) - before
    # the stored pods (and what a kubelet or the scheduler still holds of an older
    # version); a kept decoded copy would be 20 more
    assert s.store.count("Pod") == 20 and 20 <= pods < 30


def test_replay_undo_and_recording_are_those_of_a_session_keeping_objects(tmp_path):
    files = _files(tmp_path)
    loaded = [x for f in files for x in load_file_with_origins(f)]
    runs = []
    for s in (Session.from_files(files),
              Session.from_documents([o for o, _ in loaded], name="node,export",
                                     origins=[o for _, o in loaded])):
        s.run_until(5)
        s.submit("kubectl label pod p3 -n shop tier=web")
        s.run_until(12)
        s.submit("kubectl delete pod p4 -n shop")
        s.run_until(30)
        replayed = s.replay(until=30)
        replayed.run_until(30)
        assert replayed.view() == s.view()
        twice = replayed.fresh_start()   # a replay's own start is the same start
        assert [encode(o) for o in twice.initial_objects] == \
            [encode(o) for o in s.initial_objects]
        undone = replay_before(s, s.history[:-1], s.history[-1].at)
        assert undone.store.get("Pod", "p4", "shop") is not None
        runs.append((s.view(), undone.view(), dump_recording(s, title="t")))
    assert runs[0] == runs[1]


def test_an_export_implies_the_namespaces_of_its_namespaced_items_alone():
    """implied_namespaces: the namespaces an export's namespaced items (Events aside) are in,
    sorted, less the ones the input or the system defines; a plain manifest implies none."""
    import json

    from ksandbox.api.manifest import load_manifests_with_origins
    from ksandbox.session import implied_namespaces

    def item(kind, name, ns=None, api="v1", **more):
        meta = {"name": name} | ({"namespace": ns} if ns else {})
        return {"apiVersion": api, "kind": kind, "metadata": meta, **more}

    export = {"apiVersion": "v1", "kind": "List", "items": [
        item("Pod", "a", "zeta", spec={"containers": [{"name": "c", "image": "x"}]}),
        item("Pod", "b", spec={"containers": [{"name": "c", "image": "x"}]}),   # in default
        item("ConfigMap", "c", "alpha"),
        item("Event", "e", "events-only", involvedObject={"kind": "Pod", "name": "a"}),
        item("Node", "n"),
        item("PriorityClass", "p", "ignored", api="scheduling.k8s.io/v1", value=1),
        item("Namespace", "defined"),
        item("ConfigMap", "d", "defined"),
        item("ConfigMap", "s", "kube-system"),
    ]}
    loaded = load_manifests_with_origins(json.dumps(export), "export.json")
    loaded += load_manifests_with_origins(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m, namespace: plain}\n", "m.yaml")
    objs, origins = [o for o, _ in loaded], [o for _, o in loaded]
    assert implied_namespaces(objs, origins) == ["alpha", "zeta"]   # default: a system one
    assert implied_namespaces(objs, None) == []


def test_a_one_shot_session_keeps_neither_texts_nor_objects(tmp_path):
    # keep_start=False (sim, explain): nothing kept for a replay, the same cluster as a
    # session that keeps its texts; a replay or a recording is refused, not wrong.
    files = _files(tmp_path)
    gc.collect()
    before = sum(1 for o in gc.get_objects() if type(o) is Pod)
    loaded, texts = load_files_with_sources(files, keep=False)
    assert texts is None
    docs, origins = [d for d, _ in loaded], [o for _, o in loaded]
    del loaded
    s = Session.from_documents(docs, origins=origins, name="node,export", take=True,
                               keep_start=False)
    assert docs == [] and origins == []   # handed over without texts too
    gc.collect()
    # the stored pods (and older versions still held); the decoded ones are gone
    assert 20 <= sum(1 for o in gc.get_objects() if type(o) is Pod) - before < 30
    assert s._initial_objects is None and s._initial_source is None
    kept = Session.from_files(files)
    for x in (s, kept):
        x.run_until(5)
        x.submit("kubectl delete pod p4 -n shop")
        x.run_until(30)
    assert s.view() == kept.view() and s.implied_namespaces == ["shop"]
    with pytest.raises(RuntimeError, match="keep_start=False"):
        s.replay()


def test_sim_and_explain_compress_no_text_and_play_keeps_it(tmp_path, monkeypatch):
    files = [str(f) for f in _files(tmp_path)]
    added: list[str] = []
    monkeypatch.setattr(SourceTexts, "add", lambda self, source, text: added.append(source))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["sim", *(a for f in files for a in ("-f", f)), "-o", "json"]) == 0
        assert cli.main(["explain", "shop/p1", *(a for f in files for a in ("-f", f))]) == 0
    assert added == [] and '"p1"' in out.getvalue()
    cli._load_session(files, 0)   # what tui and record load: kept for replays and recordings
    assert added == files
