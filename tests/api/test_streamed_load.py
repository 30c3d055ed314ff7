"""A YAML file is decoded document by document as it is parsed (api/safeload.Documents,
manifest._decode_documents): the same objects, origins and refusals as parsing every document
before decoding any, without holding the whole parsed file (issue 11: a 150,000-pod YAML
file's parsed documents held until decoding ended cost ~1 KB per pod of resident memory)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api import fastyaml, manifest, safeload
from ksandbox.api.codec import encode
from ksandbox.api.errors import ManifestError

pytestmark = pytest.mark.skipif(not fastyaml.available(), reason="yaml_rs not installed")


def _pod(i: int) -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, labels: {{app: a{i % 3}}}}}\n"
            f"spec: {{containers: [{{name: c, image: nginx}}]}}\n")


PIECES = {
    "pod": _pod,
    "empty": lambda i: "# nothing here\n",
    "list": lambda i: ("apiVersion: v1\nkind: List\nitems:\n"
                       + "".join(f"- {{apiVersion: v1, kind: ConfigMap, metadata: "
                                 f"{{name: c{i}-{j}}}}}\n" for j in range(3))),
    "undecodable": lambda i: f"apiVersion: v1\nkind: Pod\nmetadata: {{name: x{i}}}\nspec: 7\n",
    "unknown kind": lambda i: f"apiVersion: v1\nkind: Nope\nmetadata: {{name: n{i}}}\n",
    "duplicate key": lambda i: f"apiVersion: v1\nkind: Pod\nkind: Pod\nmetadata: {{name: d{i}}}\n",
    "bad syntax": lambda i: "a: [b\n",
}


def _text(kinds: list[str]) -> str:
    return "".join(f"---\n{PIECES[k](i)}" for i, k in enumerate(kinds))


def _all_parsed_first(text: str):
    """The rule before streaming: every document parsed, then every one decoded."""
    try:
        docs = safeload.load_yaml_documents(text, "f.yaml")
        return [(encode(o) if not isinstance(o, manifest.ConfigDocument) else o, origin)
                for o, origin in manifest.decode_documents(docs, "f.yaml")]
    except ManifestError as exc:
        return str(exc)


def _streamed(text: str):
    try:
        return [(encode(o) if not isinstance(o, manifest.ConfigDocument) else o, origin)
                for o, origin in manifest.load_manifests_with_origins(text, "f.yaml")]
    except ManifestError as exc:
        return str(exc)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(sorted(PIECES)), max_size=12))
def test_streamed_decoding_equals_parsing_everything_first(kinds):
    """Any mix of good documents, empty ones, Lists, documents the decoder refuses and
    documents the parser refuses (the fast path hands those to PyYAML's): the same objects
    with the same origins, or the same one refusal — a parse error after a document the
    decoder refuses is still the one reported."""
    text = _text(kinds)
    assert _streamed(text) == _all_parsed_first(text)


def test_a_parse_error_later_in_the_file_wins_over_an_earlier_decode_error():
    text = _text(["pod", "undecodable", "pod", "pod", "bad syntax", "pod"])
    got = _streamed(text)
    assert got == _all_parsed_first(text)
    assert got.startswith("f.yaml (document 5): error converting YAML to JSON"), got
    assert _streamed(_text(["pod", "undecodable", "pod"])).startswith("f.yaml (document 2)")


def test_each_document_is_decoded_before_the_next_is_parsed(monkeypatch):
    """What the stream is for: the parsed data of one document can go before the next is
    parsed."""
    events: list[str] = []
    loads = fastyaml._yaml_rs.loads
    decode = manifest.KnownKinds.decode

    def parsing(chunk, **kw):
        events.append("parse")
        return loads(chunk, **kw)

    def decoding(*args, **kw):
        events.append("decode")
        return decode(*args, **kw)

    monkeypatch.setattr(fastyaml._yaml_rs, "loads", parsing)
    monkeypatch.setattr(manifest.KnownKinds, "decode", decoding)
    objs = manifest.load_manifests(_text(["pod"] * 4), "f.yaml")
    assert len(objs) == 4
    assert events == ["parse", "decode"] * 4


def test_the_plain_path_goes_on_after_the_documents_the_fast_path_read(monkeypatch):
    """The fast path meets a document only the plain path may read (here: it says so for the
    third): the documents before it are kept as read, the plain path reads the rest, and the
    result is what the plain path alone gives."""
    text = _text(["pod", "list", "pod", "empty", "pod", "pod"])
    loads = fastyaml._yaml_rs.loads
    calls = []

    def third_unreadable(chunk, **kw):
        calls.append(chunk)
        if len(calls) == 3:
            raise ValueError("pretend yaml_rs cannot read it")
        return loads(chunk, **kw)

    plain = _all_parsed_first(text)
    monkeypatch.setattr(fastyaml._yaml_rs, "loads", third_unreadable)
    assert _streamed(text) == plain
    assert len(calls) == 3


# -- a JSON List export, item by item (safeload.JsonList) ------------------------------------

def _json_pod(i: int) -> str:
    return (f'{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "p{i}", "labels": '
            f'{{"app": "a{i % 3}"}}}}, "spec": {{"containers": [{{"name": "c", '
            f'"image": "nginx"}}]}}}}')


ITEMS = {
    "pod": _json_pod,
    "config map": lambda i: f'{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"c{i}"}}}}',
    "undecodable": lambda i: f'{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "x{i}"}}, '
                             f'"spec": 7}}',
    "duplicate key": lambda i: f'{{"apiVersion": "v1", "kind": "Pod", "kind": "Pod", '
                               f'"metadata": {{"name": "d{i}"}}}}',
    "deep": lambda i: '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "deep"}, '
                      '"data": ' + '{"a": ' * 120 + '1' + '}' * 120 + '}',
    "not an object": lambda i: '"just a string"',
    "nan": lambda i: f'{{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": "n{i}"}}, '
                     f'"data": {{"x": NaN}}}}',
}

HEADERS = ['"apiVersion": "v1"', '"kind": "List"', '"metadata": {"resourceVersion": ""}',
           '"kind": "PodList"', '"kind": "List", "kind": "List"', '"items": []']


def _json_text(items: list[str], header: list[str], items_at: int, sep: str, tail: str) -> str:
    members = list(header)
    body = ("," + sep).join(ITEMS[k](i) for i, k in enumerate(items))
    members.insert(min(items_at, len(members)), f'"items": [{sep}{body}{sep}]')
    return "{" + sep + ("," + sep).join(members) + sep + "}" + tail


@settings(max_examples=200, deadline=None)
@given(items=st.lists(st.sampled_from(sorted(ITEMS)), max_size=8),
       header=st.lists(st.sampled_from(HEADERS), max_size=4),
       items_at=st.integers(0, 4), sep=st.sampled_from(["", "\n", "\n    "]),
       tail=st.sampled_from(["", "\n", " x", "}"]),
       cut=st.one_of(st.none(), st.integers(1, 400)))
def test_a_json_list_read_item_by_item_equals_parsing_it_first(items, header, items_at, sep,
                                                              tail, cut):
    """Any List export — items anywhere among the other members, kind List or not (or
    twice), items that decode, that the decoder refuses, with duplicate keys, too deep, not
    objects, NaN; text after the end; the text cut short anywhere: the same objects and
    origins, or the same one refusal, as json.loads of the whole text then decoding."""
    text = _json_text(items, ["\"kind\": \"List\""] + header, items_at, sep, tail)
    if cut is not None:
        text = text[:-cut] if cut < len(text) else text[:1]
    assert _streamed(text) == _all_parsed_first(text)


def test_a_json_list_is_decoded_item_by_item(monkeypatch):
    """Each item is decoded before the next is parsed (the point of it), and a list that is
    not a `kind: List` goes the plain way."""
    from ksandbox.api import safeload

    events: list[str] = []
    scan_once = safeload._JSON_DECODER.scan_once
    decode = manifest.KnownKinds.decode

    class Decoder:
        def scan_once(self, text, i):
            events.append("parse")
            return scan_once(text, i)

    def decoding(*args, **kw):
        events.append("decode")
        return decode(*args, **kw)

    monkeypatch.setattr(safeload, "_JSON_DECODER", Decoder())
    monkeypatch.setattr(manifest.KnownKinds, "decode", decoding)
    text = _json_text(["pod"] * 3, ['"apiVersion": "v1"', '"kind": "List"'], 1, "\n", "\n")
    assert len(manifest.load_manifests(text, "f.json")) == 3
    # apiVersion, then each item parsed and decoded, then kind (kubectl's order)
    assert events == ["parse"] + ["parse", "decode"] * 3 + ["parse"]
