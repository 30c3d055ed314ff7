"""The safe loader: every hostile-input case of issue 13 is one ManifestError, fast and small."""

from __future__ import annotations

import io
import os
import sys
import time

import pytest

from ksandbox.api import safeload
from ksandbox.api.errors import ManifestError
from ksandbox.api.safeload import load_yaml, load_yaml_documents, read_source


def laughs(levels: int, width: int = 9) -> str:
    """The billion-laughs document: each anchor is `width` aliases of the one before."""
    lines = ['a0: &a0 ["lol"' + ', "lol"' * (width - 1) + "]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def refused(text: str, source: str = "f.yaml") -> str:
    with pytest.raises(ManifestError) as info:
        load_yaml_documents(text, source)
    return str(info.value)


@pytest.mark.parametrize("levels", [3, 8, 30])
def test_alias_bombs_are_refused_at_once_naming_the_line(levels):
    start = time.perf_counter()
    msg = refused(laughs(levels))
    assert time.perf_counter() - start < 1.0
    assert msg.startswith("f.yaml (document 1): error converting YAML to JSON: yaml: line ")
    assert msg.endswith("document contains excessive aliasing")


def test_a_wide_alias_of_a_big_node_is_refused_by_the_expansion_ratio():
    # few aliases, each to a 2,000-item list: go-yaml's ratio alone would pass it
    text = "a: &a [" + ", ".join(["1"] * 2000) + "]\n" + "".join(
        f"b{i}: *a\n" for i in range(50))
    assert refused(text).endswith("document contains excessive aliasing")


def test_ordinary_anchors_and_merge_keys_load():
    text = ("env: &env [{name: A, value: '1'}, {name: B, value: '2'}]\n"
            "base: &base {image: nginx, env: *env}\n"
            "c1: {<<: *base, name: one}\nc2: {<<: *base, name: two, image: busybox}\n")
    [(_, data)] = load_yaml_documents(text, "f.yaml")
    assert data["c2"] == {"image": "busybox", "env": data["env"], "name": "two"}


@pytest.mark.parametrize("fast", [True, False], ids=["libyaml composer", "python composer"])
def test_an_anchor_defined_twice_is_refused_by_both_composers(fast, monkeypatch):
    monkeypatch.setattr(safeload, "_FAST", fast)
    assert refused("a: &x 1\nb: &x 2\nc: *x\n").endswith(
        "yaml: line 2: found duplicate anchor (first defined at line 1)")


def test_a_self_referencing_alias_is_refused():
    assert refused("a: &a [1, *a]\n").endswith("line 1: anchor 'a' value contains itself")


@pytest.mark.parametrize("text, line", [
    pytest.param("x: " + "[" * 600 + "]" * 600 + "\n", "line 1", id="600 nested flow lists"),
    pytest.param("".join("  " * i + "-\n" for i in range(150)) + "  " * 150 + "x\n",
                 "line 101", id="150 nested block lists"),
    pytest.param("".join("  " * i + f"k{i}:\n" for i in range(150)) + "  " * 150 + "x\n",
                 "line 101", id="150 nested block mappings"),
    pytest.param("- " * 50_000 + "x\n", "line 1", id="50,000 compact lists"),
    pytest.param("a: &a " + "[" * 60 + "]" * 60 + "\nb: " + "[" * 60 + "*a" + "]" * 60 + "\n",
                 "line 1", id="a deep anchor used deep down"),
])
def test_deep_nesting_is_refused_without_a_crash(text, line):
    msg = refused(text)
    assert f"{line}: exceeded" in msg, msg
    assert "depth" in msg


@pytest.mark.parametrize("text", [
    pytest.param("[" * 50_000 + "]" * 50_000, id="a 50,000-deep JSON array"),
    pytest.param("[" * 150 + "]" * 150, id="a 150-deep JSON array"),
    pytest.param('{"a":' * 5000 + "1" + "}" * 5000, id="a 5,000-deep JSON object"),
])
def test_deep_json_is_refused(text):
    assert refused(text).endswith("exceeded max depth of 100")


def test_depth_up_to_the_limit_loads():
    depth = safeload.LIMITS.max_depth
    [(_, data)] = load_yaml_documents("[" * depth + "]" * depth, "f.json")
    [(_, data)] = load_yaml_documents("x: " + "[" * (depth - 1) + "]" * (depth - 1), "f.yaml")
    assert isinstance(data, dict)


def _nest(depth: int) -> str:
    """JSON nested ``depth`` deep, dicts and lists alternating."""
    text = "1"
    for i in range(depth):
        text = f'{{"k{i}": {text}}}' if i % 2 else f"[{text}]"
    return text


def test_json_depth_is_counted_exactly_in_any_branch():
    """The depth rule (fastyaml.nesting_within, level by level) on a List export: one deep
    branch after many shallow siblings is found, and 100 deep (dicts and lists mixed) loads
    while 101 is refused."""
    limit = safeload.LIMITS.max_depth
    shallow = ", ".join(['{"a": [1, {"b": 2}]}'] * 500)
    for depth, ok in ((limit - 2, True), (limit - 1, False)):
        # the List is depth 1, its items list depth 2
        text = f'{{"kind": "List", "items": [{shallow}, {_nest(depth)}]}}'
        if ok:
            [(_, data)] = load_yaml_documents(text, "f.json")
            assert len(data["items"]) == 501
        else:
            assert refused(text).endswith("exceeded max depth of 100")


def test_duplicate_mapping_keys_are_refused_as_a_strict_decoder_does():
    msg = refused("apiVersion: v1\nkind: Node\nmetadata: {name: a}\nkind: Pod\n")
    assert msg == ('f.yaml (document 1): error converting YAML to JSON: yaml: line 4: '
                   'mapping key "kind" already defined at line 2')


def test_duplicate_keys_name_their_document():
    msg = refused("a: 1\n---\nb: 1\nc: {x: 1, x: 2}\n")
    assert msg.startswith("f.yaml (document 2):") and "line 4" in msg


def test_duplicate_json_fields_are_refused():
    assert refused('{"kind": "Pod", "kind": "Node"}').endswith('json: duplicate field "kind"')


def test_a_document_over_the_api_servers_limit_is_refused(monkeypatch):
    monkeypatch.setattr(safeload, "LIMITS", safeload.Limits(max_document_bytes=1000))
    big = "a: 1\n---\nkind: Pod\ndata: '" + "x" * 2000 + "'\n"
    assert "(document 2): document is 2019 bytes, larger than the API server's" in refused(big)
    # a List is split into its items by kubectl: its size is the file's business
    load_yaml_documents("kind: List\nitems: ['" + "x" * 2000 + "']\n", "f.yaml")


def test_a_yaml_syntax_error_names_the_document_and_line():
    assert refused("a: 1\n---\nb: [1\n").startswith(
        "f.yaml (document 2): error converting YAML to JSON: yaml: line ")


def test_load_yaml_wants_one_document():
    with pytest.raises(ManifestError, match="expected a single YAML document"):
        load_yaml("a: 1\n---\nb: 2\n", "s.yaml")
    assert load_yaml("", "s.yaml") is None


# --- reading files ---------------------------------------------------------------------------

def test_devices_are_refused_without_reading():
    with pytest.raises(ManifestError) as info:
        read_source("/dev/zero")
    assert str(info.value).startswith("/dev/zero: not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ManifestError, match="not a regular file"):
        read_source(str(fifo))


def test_a_missing_path_is_kubectls_error():
    with pytest.raises(ManifestError, match='the path "nope.yaml" does not exist'):
        read_source("nope.yaml")


def test_a_file_over_the_limit_is_refused_before_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(safeload, "LIMITS", safeload.Limits(max_file_bytes=100))
    p = tmp_path / "big.yaml"
    p.write_text("x" * 101)
    with pytest.raises(ManifestError, match="file is 101 bytes, larger than the 100 bytes limit"):
        read_source(str(p))


def test_dash_reads_the_given_stdin_or_standard_input(monkeypatch):
    assert read_source("-", "a: 1\n") == "a: 1\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"b: 2\n")))
    assert read_source("-") == "b: 2\n"


def test_standard_input_over_the_limit_is_refused(monkeypatch):
    monkeypatch.setattr(safeload, "LIMITS", safeload.Limits(max_file_bytes=10))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x" * 11)))
    with pytest.raises(ManifestError, match="STDIN: standard input is larger than"):
        read_source("-")


def test_text_that_is_not_utf8_is_refused(tmp_path):
    p = tmp_path / "bin.yaml"
    p.write_bytes(b"a: \xff\xfe\n")
    with pytest.raises(ManifestError, match="not UTF-8"):
        read_source(str(p))


@pytest.mark.parametrize("text, ending", [
    (laughs(8), "document contains excessive aliasing"),
    ("a: &a [1, *a]\n", "anchor 'a' value contains itself"),
    ("x: " + "[" * 600 + "]" * 600 + "\n", "exceeded max depth of 100"),
    ("- " * 50_000 + "x\n", "exceeded max depth of 100"),
    ("kind: a\nkind: b\n", 'mapping key "kind" already defined at line 1'),
], ids=["alias bomb", "self reference", "deep flow", "deep compact", "duplicate key"])
def test_the_python_composer_keeps_the_same_limits(text, ending, monkeypatch):
    """Used when libyaml is missing or does not cap nesting itself."""
    monkeypatch.setattr(safeload, "_FAST", False)
    assert refused(text).endswith(ending)
