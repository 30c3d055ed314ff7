"""The Rust-backed YAML fast path (api/fastyaml.py) reads every text it accepts exactly as the
plain PyYAML path does, and leaves everything else to it."""

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api import fastyaml, safeload
from ksandbox.api.errors import ManifestError

pytestmark = pytest.mark.skipif(not fastyaml.available(), reason="yaml_rs not installed")

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "sample_clusters").glob("*.yaml"))


def _fast(text: str):
    got = fastyaml.load_documents(text, safeload.LIMITS.max_document_bytes,
                                  safeload.LIMITS.max_depth)
    return None if got is None else [(n, d) for n, d, _ in got]


def _plain(text: str, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(fastyaml, "_yaml_rs", None)
        try:
            return safeload.load_yaml_documents(text, "f.yaml")
        except ManifestError as exc:
            return exc


def _same(a, b) -> bool:
    """Equal, with types (True == 1 for ==) and NaN equal to itself."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and a != a:
        return b != b
    return a == b


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_reads_the_same_on_both_paths(path, monkeypatch):
    text = path.read_text()
    fast = _fast(text)
    if fast is not None:
        assert _same(fast, _plain(text, monkeypatch))


def test_the_default_sample_takes_the_fast_path():
    assert _fast((SAMPLES[0].parent / "default.yaml").read_text()) is not None


@pytest.mark.parametrize("text", [
    "a: yes\n", "a: on\n", "a: 017\n", "a: 0o17\n", "a: 0x1F\n", "a: 1e3\n", "a: 1_000\n",
    "a: 1:30\n", "a: 2024-01-01\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "<<: {a: 1}\n",
    "? [a]\n: 1\n", "%YAML 1.1\n---\na: 1\n", "a: 1\n...\n", "a: 1\na: 2\n",
    "a: \"\\/\"\n", "yes: 1\n", "{a: [on]}\n", "a: 1.0e+3\n",
])
def test_anything_the_two_readings_could_differ_on_goes_to_the_plain_path(text):
    assert _fast(text) is None


def test_too_deep_goes_to_the_plain_path_which_refuses_it(monkeypatch):
    text = "a:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 120)) + "  " * 120 + "v\n"
    assert _fast(text) is None
    assert isinstance(_plain(text, monkeypatch), ManifestError)


def test_documents_are_numbered_as_pyyaml_numbers_them(monkeypatch):
    text = "# only a comment\n---\na: 1\n---\n---\nb: 2\n---\n"
    assert _fast(text) == [(1, {"a": 1}), (3, {"b": 2})] == _plain(text, monkeypatch)


SCALARS = st.sampled_from([
    "a", "node-1", "100m", "500Mi", "1", "0", "-3", "+4", "1.5", "1.", "3.0", "~", "null",
    "Null", "true", "False", "TRUE", "yes", "No", "on", "OFF", "y", "n", "017", "0o17",
    "0x1f", "1e3", "1.0e+3", "1_000", "1:30", "2024-01-01", "2024-01-01T00:00:00Z", ".inf",
    "-.inf", ".nan", "=", "<<", "''", "\"\"", "'yes'", "\"1\"", "\"a b\"", "'it''s'",
    "v1.2.3", "8080:80", "a b c", "\"\\u00e9\"", "\"tab\\there\"", "sha256:0123", "x#y",
])
KEYS = st.sampled_from(["a", "b", "name", "kind", "1", "yes", "on", "'on'", "\"key\"", "x y"])


def _block(value, indent: int) -> str:
    pad = "  " * indent
    if isinstance(value, dict):
        if not value:
            return " {}\n"
        return "\n" + "".join(f"{pad}{k}:{_block(v, indent + 1)}" for k, v in value.items())
    if isinstance(value, list):
        if not value:
            return " []\n"
        return "\n" + "".join(f"{pad}-{_block(v, indent + 1)}" for v in value)
    return f" {value}\n"


def _flow(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return value


TREES = st.recursive(SCALARS, lambda children: st.one_of(
    st.lists(children, max_size=4), st.dictionaries(KEYS, children, max_size=4)), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.dictionaries(KEYS, TREES, min_size=1, max_size=4), st.booleans()),
                min_size=1, max_size=3))
def test_generated_documents_read_the_same_whenever_the_fast_path_takes_them(docs):
    text = "---\n".join(
        (("root: " + _flow(d) + "\n") if flow else _block(d, 0).lstrip("\n"))
        for d, flow in docs)
    fast = _fast(text)
    if fast is not None:
        import _pytest.monkeypatch

        mp = _pytest.monkeypatch.MonkeyPatch()
        try:
            plain = _plain(text, mp)
        finally:
            mp.undo()
        assert _same(fast, plain), text


@pytest.mark.parametrize("text", ["- " * 50_000 + "x\n", "a:\n" + " " * 2000 + "b: 1\n",
                                  "x: " + "[" * 600 + "]" * 600 + "\n"])
def test_text_that_could_nest_deep_never_reaches_the_native_parser(text):
    assert _fast(text) is None  # "- " * 20,000 overflows yaml_rs's stack


def _documents(text: str, limit: int):
    chunks = fastyaml.document_chunks(text)
    if chunks is None:
        return None
    try:
        return [(n, d) for n, d, _ in fastyaml.iter_documents(text, chunks, 10**9, limit)]
    except fastyaml.Unreadable:
        return "unreadable"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.dictionaries(KEYS, TREES, min_size=1, max_size=4), st.booleans()),
                min_size=1, max_size=3), st.integers(min_value=1, max_value=7))
def test_a_document_is_walked_for_its_depth_only_when_it_could_be_too_deep(docs, limit):
    """The depth check skips the walk of a document with no more indicators than the limit
    (fastyaml.indicators): the same documents, or the same refusal, as walking every one."""
    text = "---\n".join(
        (("root: " + _flow(d) + "\n") if flow else _block(d, 0).lstrip("\n"))
        for d, flow in docs)
    import _pytest.monkeypatch

    mp = _pytest.monkeypatch.MonkeyPatch()
    try:
        mp.setattr(fastyaml, "indicators", lambda chunk: 10**9)   # every document walked
        walked = _documents(text, limit)
    finally:
        mp.undo()
    assert _same(_documents(text, limit), walked), text


# The document-start rule as a multi-line regex reads it: `---` at the start of a line (after
# \n, \r\n or a lone \r), then a space, a tab, a line break or the end.
# fastyaml.document_starts finds it with str.find.
DOC_START = re.compile(r"(?:^|(?<=\r))---(?=[ \t\r\n]|\Z)", re.M)
PIECES = st.sampled_from(["-", "--", "---", "----", "--- ", "---\t", "\n", "\r\n", "\r", " ",
                          "\t", "a", "a: 1", "|", "|-\n  ", ">", "\"", "'", "#", "...", "\x85",
                          "\u2028", "\ufeff", "\n---\n", "\n--- |\n  ---\n"])


@settings(max_examples=2000, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_document_starts_are_where_the_regex_finds_them(text):
    assert fastyaml.document_starts(text) == [m.start() for m in DOC_START.finditer(text)]


@pytest.mark.parametrize("text", [
    "", "---", "---\n", "--- a\n", "---a\n", "----\n", "a\n---", "a\n---\r\nb\n", "\n---\t\n",
    "a: |\n  x\n---\nb: 1\n", "a: \"x\n---\ny\"\n", "a: 'x\n--- y'\n", "---\n---\n---",
    "\r\n---\r\n", " ---\n", "a\n--\n-\n",
])
def test_document_starts_of_edge_texts(text):
    assert fastyaml.document_starts(text) == [m.start() for m in DOC_START.finditer(text)]


# PyYAML breaks lines at \r\n, \r and \n alike (reader.forward), and takes `---` at a line's
# start followed by a space, a tab, a line break or the end as a document start
# (scanner.check_document_start). A file saved with Windows line ends is common.
@pytest.mark.parametrize("text", [
    "a: 1\r\n---\r\nb: 2\r\n", "a: 1\r---\rb: 2\r", "---\r\na: 1\r\n---\r\nb: 2\r\n",
    "a: 1\n---\r\nb: 2\n", "a: 1\r\n--- \r\nb: 2\r\n", "a: 1\r\n---\r\n---\r\nb: 2\r\n",
    "a: 1\r\n---", "a: |\r\n  x\r\n---\r\nb: 1\r\n",
])
def test_documents_split_by_any_line_break_read_the_same_on_both_paths(text, monkeypatch):
    fast = _fast(text)
    if fast is not None:
        assert _same(fast, _plain(text, monkeypatch)), text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(KEYS, TREES, min_size=1, max_size=4), min_size=1, max_size=3),
       st.sampled_from(["\r\n", "\r"]))
def test_generated_documents_with_other_line_breaks_read_the_same(docs, brk):
    text = "---\n".join(_block(d, 0).lstrip("\n") for d in docs).replace("\n", brk)
    fast = _fast(text)
    if fast is not None:
        import _pytest.monkeypatch

        mp = _pytest.monkeypatch.MonkeyPatch()
        try:
            plain = _plain(text, mp)
        finally:
            mp.undo()
        assert _same(fast, plain), text
