"""views/jsontext.dumps is json.dumps(obj, indent=2), byte for byte (sim -o json's output)."""

import enum
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox.api.codec import FrozenDict
from ksandbox.views.jsontext import Columns, dumps


class Level(enum.IntEnum):
    LOW = 1


scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
           | st.text() | st.sampled_from([Level.LOW, -0.0, 1e16, 1e-7, float("inf")]))
keys = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
values = st.recursive(scalars, lambda inner: (
    st.lists(inner, max_size=4) | st.lists(inner, max_size=3).map(tuple)
    | st.dictionaries(keys, inner, max_size=4)
    | st.dictionaries(st.text(), inner, max_size=3).map(FrozenDict)), max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(values)
def test_same_text_as_json_dumps_indent_2(obj):
    assert dumps(obj) == json.dumps(obj, indent=2)


def test_empty_and_nested_containers_and_a_sim_like_document():
    doc = {"time": 65.0, "nodes": [{"name": "n", "taints": [], "labels": {}, "ready": True,
                                    "cpu": 4, "gone": None, "ratio": float("nan")}],
           "events": ({"reason": "Scheduled", "message": "to node \u00e9 \"x\"\n"},), "e": {}}
    assert dumps(doc) == json.dumps(doc, indent=2)


def test_what_json_cannot_encode_fails_as_json_does():
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({"a": [object()]})
    with pytest.raises(TypeError, match="keys must be"):
        dumps({(1, 2): 3})


# Lists of rows (dicts of scalars with str keys: sim's events and pods) go through json's C
# encoder whole; the strings include what could be mistaken for a row's end.
tricky = st.sampled_from(["}", "},", "},\n    {", "\n", "{", "]", '"', "\\", "é", "\u2028"])
row_text = st.lists(st.text() | tricky, max_size=3).map("".join)
row_scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
               | row_text)
rows = st.lists(st.dictionaries(row_text, row_scalars, min_size=1, max_size=5), min_size=1,
                max_size=5)


@settings(max_examples=300, deadline=None)
@given(rows, st.integers(min_value=0, max_value=3))
def test_lists_of_rows_at_any_depth_are_json_dumps_text(lst, depth):
    doc: object = lst
    for _ in range(depth):
        doc = {"items": doc, "n": 1}
    assert dumps(doc) == json.dumps(doc, indent=2)


def test_a_list_of_rows_with_an_empty_row_or_a_nested_value_takes_the_general_path():
    for doc in ([{"a": 1}, {}], [{"a": 1}, {"b": [1]}], [{"a": 1}, {1: 2}], [{"a": 1}, 3]):
        assert dumps({"x": doc}) == json.dumps({"x": doc}, indent=2)


# A Columns is encoded as its rows: columns of one kind of scalar (with None) take the memo of
# texts by value, any other column (mixed numbers, nested values, str subclasses) each value.
column_values = st.one_of(
    st.lists(row_text | st.none()), st.lists(st.floats(allow_nan=True) | st.none()),
    st.lists(st.integers() | st.none()), st.lists(st.booleans() | st.none()),
    st.lists(st.sampled_from([0.0, -0.0, 0, False, 1, 1.0, True, None, float("nan")])),
    st.lists(st.sampled_from([0.0, -0.0, None]), min_size=2),
    st.lists(values, max_size=4), st.lists(st.sampled_from([Level.LOW, 1, "1"])))


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(row_text, column_values), min_size=1, max_size=5,
                unique_by=lambda named: named[0]),
       st.integers(min_value=0, max_value=5), st.integers(min_value=0, max_value=2))
def test_columns_are_encoded_as_their_rows(named, length, depth):
    keys = tuple(k for k, _ in named)
    columns = [(vals * (length // max(1, len(vals)) + 1))[:length] if vals else [None] * length
               for _, vals in named]
    table = Columns(keys, columns)
    rows = [dict(zip(keys, values)) for values in zip(*columns)]
    assert table.rows() == rows
    doc: object = table
    plain: object = rows
    for _ in range(depth):
        doc, plain = {"items": doc, "n": 1}, {"items": plain, "n": 1}
    assert dumps(doc) == json.dumps(plain, indent=2)


def test_columns_on_the_fallback_path_are_their_rows():
    table = Columns(("a",), [[1, 2]])
    with pytest.raises(TypeError, match="complex is not JSON serializable"):   # json's refusal
        dumps({"t": table, "bad": 1j})
    assert dumps({"t": table, "x": (1, {2: 3})}) == json.dumps(
        {"t": [{"a": 1}, {"a": 2}], "x": (1, {2: 3})}, indent=2)
