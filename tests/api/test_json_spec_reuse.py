"""A JSON List export's specs met again (safeload.JsonList._item, kept=...): an item whose
spec is the text of a spec read before holds the value read then, and otherwise reads
exactly as the scanner reads the item whole — the same items, or the same refusal
(NotStreamable), for any text; and the decoded pods share that spec, found by identity
(codec.keep / shared_decode)."""

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ksandbox.api import codec, manifest, safeload


def _spec(v: int) -> dict:
    return {"nodeName": f"n{v}", "containers": [
        {"name": "app", "image": "app:1.0", "resources": {"requests": {"cpu": "100m"}}}]}


def _pod(i: int, v: int, **extra) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}"}, "spec": _spec(v),
            **extra}


# Items as kubectl prints them (json.dumps indent=4), and text edits a real export never has:
# each piece is the item's text at the indentation of a List's items
PIECES = {
    "pod a": lambda i: _pod(i, 0),
    "pod b": lambda i: _pod(i, 1),
    "pod and status": lambda i: _pod(i, 0, status={"phase": "Running"}),
    "node": lambda i: {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}},
    "spec inside metadata": lambda i: {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": f"m{i}", "spec": _spec(0)}},
    "NaN before the spec": lambda i: {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": f"x{i}", "x": float("nan")}, "spec": _spec(0)},
    "NaN after the spec": lambda i: _pod(i, 0, status={"x": float("nan")}),
    "spec not an object": lambda i: {"apiVersion": "v1", "kind": "Pod",
                                     "metadata": {"name": f"s{i}"}, "spec": 7},
    "empty spec": lambda i: {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"e{i}"},
                             "spec": {}},
    "deep spec": lambda i: _pod(i, 0) | {
        "spec": {"nodeName": "n0", "x": {"a": {"b": {"c": {"d": [1]}}}}}},
    "deep before the spec": lambda i: {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": f"d{i}", "x": {"a": {"b": {"c": {"d": [1]}}}}}, "spec": _spec(0)},
    "deep after the spec": lambda i: _pod(i, 0, status={"a": {"b": {"c": {"d": {"e": [1]}}}}}),
    "not an object": lambda i: "just a string",
    "labelled pod": lambda i: {"apiVersion": "v1", "kind": "Pod", "metadata": {
        "name": f"l{i}", "labels": {"app": f"a{i % 2}", "tier": "x"},
        "ownerReferences": [{"kind": "ReplicaSet", "controller": True, "n": None}],
        "generation": 1.5}, "spec": _spec(i % 2)},
}
# edits of an item's text (json.dumps cannot write them)
EDITS = {
    "none": lambda t: t,
    "a key twice in the spec": lambda t: t.replace('"nodeName": "n0",',
                                                   '"nodeName": "n0", "nodeName": "n0",'),
    "spec twice": lambda t: t.replace('\n            "spec": {',
                                      '\n            "spec": {},\n            "spec": {', 1),
    "a key twice after the spec": lambda t: t.replace('"status": {',
                                                      '"status": {}, "status": {', 1),
    "no closing line": lambda t: t.replace("\n            }", "}"),
    "trailing comma": lambda t: t.replace('"Running"\n            }', '"Running"\n            },'),
    "item not closed": lambda t: t[:-1] + "x" if t.endswith("}") else t,
}
# the head (the text before the spec) laid out as another's: JsonList._head
HEAD_EDITS = {
    "a key twice in the metadata": lambda t: t.replace('"metadata": {', '"metadata": {'
                                                       '"name": "x", ', 1),
    "another key, the same layout": lambda t: t.replace('"kind"', '"kinx"', 1),
    "a raw tab in a value": lambda t: t.replace('"name": "', '"name": "\t', 1),
    "a raw tab in a key": lambda t: t.replace('"name": "', '"na\tme": "', 1),
    "an escape in a value": lambda t: t.replace('"name": "', '"name": "\\u0070', 1),
    "an escaped quote in a value": lambda t: t.replace('"name": "', '"name": "\\"', 1),
    "a value a scanner takes, not printable": lambda t: t.replace('"name": "', '"name": "\u00a0', 1),
    "a number for a value": lambda t: t.replace('"apiVersion": "v1"', '"apiVersion": 1', 1),
}
EDITS |= HEAD_EDITS
EDIT = st.one_of(st.just("none"), st.sampled_from(sorted(EDITS)))


def _export(pieces: list[tuple[str, str]]) -> str:
    items = []
    for i, (kind, edit) in enumerate(pieces):
        text = json.dumps(PIECES[kind](i), indent=4)
        text = "\n".join("        " + line for line in text.splitlines())
        items.append(EDITS[edit](text))
    return ('{\n    "apiVersion": "v1",\n    "items": [\n' + ",\n".join(items)
            + '\n    ],\n    "kind": "List"\n}\n')


def _read(text: str, **kw):
    stream = safeload.JsonList(text, **kw)
    try:
        return [item for item, _ in stream.items()], stream.header
    except safeload.NotStreamable:
        return "not streamable"


@settings(max_examples=400, deadline=None)
@given(pieces=st.lists(st.tuples(st.sampled_from(sorted(PIECES)), EDIT), max_size=10),
       depth=st.sampled_from([100, 9, 8, 7, 6, 5, 4, 3]))
@example(pieces=[("node", "none"), ("pod a", "none")], depth=100)
@example(pieces=[("pod a", "item not closed"), ("pod a", "none")], depth=100)
@example(pieces=[("deep after the spec", "none")], depth=8)
@example(pieces=[("deep spec", "none")], depth=8)
@example(pieces=[("pod a", "none"), ("deep before the spec", "none")], depth=8)
def test_specs_met_again_read_as_the_scanner_reads_the_items(pieces, depth):
    """Any mix of pods (two specs, with and without a status), nodes (no spec: the next
    item's is not theirs), a spec inside the metadata, a NaN before or after the spec, a
    spec that is no object or empty, items near the depth limit before, in and after the
    spec; keys twice inside, before and after the spec, a spec not closed on a line of its
    own, a trailing comma, an item not closed: the same items (and header) as each item
    read whole, or the same refusal."""
    before = safeload.LIMITS
    safeload.configure(max_depth=depth)
    try:
        text = _export(pieces)
        kept: list = []
        reused, whole = _read(text, kept=kept.append), _read(text)
    finally:
        safeload.LIMITS = before
    assert reused == whole
    assert json.dumps(reused) == json.dumps(whole)   # (and NaN where NaN was)


def test_a_spec_met_again_is_the_value_read_before():
    text = _export([("pod a", "none"), ("pod b", "none"), ("pod a", "none"),
                    ("pod and status", "none"), ("pod b", "none")])
    kept: list = []
    items = _read(text, kept=kept.append)[0]
    assert items[0]["spec"] is items[2]["spec"] is items[3]["spec"]
    assert items[1]["spec"] is items[4]["spec"] and items[0]["spec"] is not items[1]["spec"]
    assert [id(v) for v in kept] == [id(items[0]["spec"]), id(items[1]["spec"])]


def test_the_decoded_pods_share_the_spec_by_its_identity(monkeypatch):
    """The pods of one spec text hold one PodSpec, found by identity after the first: the
    data's key (marshal) is made for the first pod of each spec only."""
    text = _export([("pod a", "none"), ("pod b", "none")] * 20)
    keys = []
    plain_key = codec._plain_key

    def counting(v):
        keys.append(v)
        return plain_key(v)

    monkeypatch.setattr(codec, "_plain_key", counting)
    pods = manifest.load_manifests(text, "f.json")
    assert len({id(p.spec) for p in pods}) == 2
    assert pods[0].spec is pods[38].spec and pods[1].spec is pods[39].spec
    assert len(keys) == 2


def test_specs_that_do_not_come_again_stop_being_kept(monkeypatch):
    """After SPAN_PROBE specs with fewer than one in SPAN_MIN_RATE met again, the items are
    read whole (each pod's spec its own: the spans would cost more than they save)."""
    monkeypatch.setattr(safeload, "SPAN_PROBE", 4)
    items = [_pod(i, i) for i in range(12)]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4)
    kept: list = []
    stream = safeload.JsonList(text, kept=kept.append)
    assert [item for item, _ in stream.items()] == items
    assert len(kept) == 4 and stream._spans == {}


@pytest.mark.parametrize("piece", ["pod a", "labelled pod"])
@pytest.mark.parametrize("edit", sorted(HEAD_EDITS))
def test_a_head_laid_out_as_one_read_before_reads_as_the_scanner_reads_it(piece, edit):
    """A head (the item's text before its spec) laid out as one read before, but for a key,
    a control character, an escape, a value that is no string, a key twice: the same items
    (or refusal) as each item read whole; the same values, built from the layout, when only
    its string values differ."""
    for pieces in ([(piece, "none"), (piece, edit)], [(piece, "none"), (piece, edit),
                                                      (piece, "none")]):
        text = _export(pieces)
        kept: list = []
        reused, whole = _read(text, kept=kept.append), _read(text)
        assert reused == whole
    text = _export([(piece, "none")] * 3)
    stream = safeload.JsonList(text, kept=[].append)
    assert [item for item, _ in stream.items()] == _read(text)[0]
    assert stream._head_hits == 2   # (built from the first one's layout)


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_a_refused_export_is_refused_alike(edit):
    """manifest.load_manifests over an edited export: the same objects or the same message
    as json.loads of the whole text, then decoding."""
    text = _export([("pod a", "none"), ("pod and status", edit), ("pod a", edit)])

    def result(fn):
        try:
            return [codec.encode(o) for o in fn()]
        except Exception as exc:   # noqa: BLE001 - the message is the result
            return str(exc)

    plain = result(lambda: [o for _, d in safeload.load_yaml_documents(text, "f.json")
                            for o, _ in manifest.decode_documents([(1, d)], "f.json")])
    assert result(lambda: manifest.load_manifests(text, "f.json")) == plain
