"""A big load handed over to a Session (the CLI's, from_files) builds its cluster without the
cycle collector and freezes it after (gcpolicy.bulk_load, around the Session's load): the
collections that walked hundreds of thousands of long-lived objects for nothing during the
load (~0.4 CPU s of a 150,000-pod one) do not run, and later full collections do not walk the
loaded cluster again. Only the collector's work changes: the session is the same. Small
loads and replays (which may be discarded: a frozen session is never reclaimed) leave the
collector alone, and a refused load freezes nothing."""

from __future__ import annotations

import gc

import pytest

from ksandbox import gcpolicy
from ksandbox.api.errors import ManifestError
from ksandbox.session import Session

CLUSTER = """apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
""" + "".join(f"""---
apiVersion: v1
kind: Pod
metadata: {{name: p{i}}}
spec:
  nodeName: n1
  containers: [{{name: c, image: nginx:1.25, resources: {{requests: {{cpu: 10m}}}}}}]
""" for i in range(30))


def _load(tmp_path, text: str = CLUSTER) -> Session:
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    return Session.from_files([path])   # takes the decoded objects over, as the CLI does


def test_a_big_load_runs_no_collection_and_freezes_what_it_built(collections, monkeypatch,
                                                                 tmp_path):
    """From the first write of the load to the end of its t=0 run no collection runs (with
    thresholds that collect at every allocation otherwise), and the result is frozen."""
    import ksandbox.session as session_module

    monkeypatch.setattr(gcpolicy, "FREEZE_LOAD_OBJECTS", 10)
    marks: dict[str, list[int]] = {}
    real_apply, real_run = session_module.apply_all, Session._run_clock

    def apply_all(*args, **kwargs):
        marks["load starts"] = list(collections)
        return real_apply(*args, **kwargs)

    def run_clock(self, t):
        real_run(self, t)
        marks["t=0 ran"] = list(collections)

    monkeypatch.setattr(session_module, "apply_all", apply_all)
    monkeypatch.setattr(Session, "_run_clock", run_clock)
    old = gc.get_threshold()
    gc.set_threshold(1, 1, 1)   # a collection at every allocation, wherever one may run
    try:
        before = gc.get_freeze_count()
        s = _load(tmp_path)
    finally:
        gc.set_threshold(*old)
    assert sum(marks["load starts"]) > 0   # (the thresholds do collect outside the load)
    assert marks["t=0 ran"] == marks["load starts"]
    assert gc.isenabled()
    assert gc.get_freeze_count() > before
    monkeypatch.setattr(gcpolicy, "FREEZE_LOAD_OBJECTS", 10 ** 9)
    plain = _load(tmp_path)
    s.run_until(30)
    plain.run_until(30)
    assert s.view() == plain.view()


def test_a_small_load_and_a_replay_leave_the_collector_alone(collections, monkeypatch,
                                                             tmp_path):
    before = gc.get_freeze_count()
    s = _load(tmp_path)
    assert gc.get_freeze_count() == before and gc.isenabled()
    monkeypatch.setattr(gcpolicy, "FREEZE_LOAD_OBJECTS", 10)
    s.fresh_start()   # a replay's session: it may be discarded
    Session.from_text(CLUSTER)   # objects not handed over
    assert gc.get_freeze_count() == before and gc.isenabled()


def test_a_refused_load_freezes_nothing(collections, monkeypatch, tmp_path):
    monkeypatch.setattr(gcpolicy, "FREEZE_LOAD_OBJECTS", 10)
    before = gc.get_freeze_count()
    with pytest.raises(ManifestError):
        _load(tmp_path, CLUSTER + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: bad_Name}\n"
              "spec: {containers: [{name: c, image: i}]}\n")
    assert gc.get_freeze_count() == before and gc.isenabled()


@pytest.mark.parametrize("big", [True, False])
def test_a_big_text_is_decoded_without_the_collector(collections, monkeypatch, big):
    """gcpolicy.decoding around the loader's parse and decode: a big text (here: the limit
    lowered to the text's size) runs no collection and the collector is on after, as it
    was; a small one collects as usual. The objects are the same either way."""
    from ksandbox.api import manifest
    from ksandbox.api.codec import encode

    plain = [encode(o) for o, _ in manifest.load_manifests_with_origins(CLUSTER, "c.yaml")]
    monkeypatch.setattr(gcpolicy, "QUIET_DECODE_CHARS", len(CLUSTER) + (0 if big else 1))
    real = manifest.decode_documents
    counts = []

    def decode_documents(*args):
        counts.append(sum(collections))   # the parse and decode, inside the loader
        out = real(*args)
        counts.append(sum(collections))
        return out

    monkeypatch.setattr(manifest, "decode_documents", decode_documents)
    monkeypatch.setattr(gcpolicy, "THRESHOLDS", (1, 1, 1))   # (the loader's tune() keeps it)
    old = gc.get_threshold()
    gc.set_threshold(1, 1, 1)   # a collection at every allocation, wherever one may run
    try:
        loaded = manifest.load_manifests_with_origins(CLUSTER, "c.yaml")
        assert gc.isenabled()
    finally:
        gc.set_threshold(*old)
    assert (counts[0] == counts[1]) == big
    assert [encode(o) for o, _ in loaded] == plain
