"""``json.dumps(obj, indent=2)``, byte for byte, at a fraction of the cost.

Python's json module encodes with its C accelerator only without ``indent``; with it, every
value goes through a chain of Python generators — for ``ksandbox sim -o json`` on 11,000 pods
that was as costly as the scheduling stage's filters. Here one recursive function appends the
same pieces to a list (strings still go through json's C escaper, numbers through the same
``repr``s). Anything json would hand to ``default`` (not a dict, list, tuple, str, int, float,
bool or None) falls back to ``json.dumps`` itself, so errors are json's own.

Not here: what the output contains (``session.view()``, ``views.state``).
"""

from __future__ import annotations

import json
import json.encoder
from itertools import chain, repeat
from json.encoder import encode_basestring_ascii
from typing import Any, Callable, Iterable, Sequence

# json's C encoder (None without the accelerator: then every list takes the general path).
c_make_encoder: Any = getattr(json.encoder, "c_make_encoder", None)

_INF = float("inf")
_INDENT = "  "
# A list of rows — non-empty dicts with str keys and scalar values: sim's events and pods —
# is encoded whole by json's C encoder (json takes that path itself without ``indent``), its
# item separator carrying the newline and indentation of the rows' items; then the rows'
# braces get the lines json's indent gives them. The same text: the C encoder checks a bool
# before an int, writes numbers with the same ``repr``s, strings with the same escaper, NaN
# and the infinities as json does; and no newline occurs inside an encoded string, so "}"
# followed by a newline is always the end of a row. Checked in C too (map, chain, all).
_SCALARS = frozenset({str, int, float, bool, type(None)})
_STR = frozenset({str})
_DICT = frozenset({dict})
_row_encoders: dict[int, Any] = {}


class _Fallback(Exception):
    """A value json.dumps would pass to ``default`` (or a key it would refuse)."""


class Columns:
    """A list of rows given column by column (distinct keys, columns of one length), encoded
    as ``[dict(zip(keys, values)) for values in zip(*columns)]`` (:meth:`rows`) would be,
    without building a dict per row. For a long list of rows of the same keys (sim's events): each
    column's distinct values are encoded once, and every row's text is joined from its
    columns' texts in C (see :func:`_columns_text`)."""

    __slots__ = ("keys", "columns")

    def __init__(self, keys: tuple[str, ...], columns: list[Sequence[Any]]) -> None:
        assert keys and len(set(keys)) == len(keys) == len(columns)
        assert len({len(c) for c in columns}) == 1
        self.keys = keys
        self.columns = columns

    def rows(self) -> list[dict[str, Any]]:
        return [dict(zip(self.keys, values)) for values in zip(*self.columns)]


def _plain(o: Any) -> Any:
    """json.dumps's ``default`` on the fallback path: a Columns as its rows, else json's own
    refusal."""
    if type(o) is Columns:
        return o.rows()
    return json.JSONEncoder().default(o)


def dumps(obj: Any) -> str:
    """``json.dumps(obj, indent=2)`` (a :class:`Columns` as its rows)."""
    parts: list[str] = []
    try:
        _value(obj, parts.append, 0)
    except (_Fallback, RecursionError):
        return json.dumps(obj, indent=2, default=_plain)
    return "".join(parts)


def _float(o: float) -> str:
    # json.encoder's floatstr with allow_nan=True
    if o != o:
        return "NaN"
    if o == _INF:
        return "Infinity"
    if o == -_INF:
        return "-Infinity"
    return float.__repr__(o)


def _scalar(o: Any) -> str | None:
    """The text of a scalar in json's order of checks (a bool before an int), or None."""
    if isinstance(o, str):
        return encode_basestring_ascii(o)
    if o is None:
        return "null"
    if o is True:
        return "true"
    if o is False:
        return "false"
    if isinstance(o, int):
        return int.__repr__(o)
    if isinstance(o, float):
        return _float(o)
    return None


def _key(k: Any) -> str:
    """json's dict-key conversion (skipkeys=False), escaped."""
    if isinstance(k, str):
        return encode_basestring_ascii(k)
    if isinstance(k, float):
        return encode_basestring_ascii(_float(k))
    if k is True:
        return '"true"'
    if k is False:
        return '"false"'
    if k is None:
        return '"null"'
    if isinstance(k, int):
        return encode_basestring_ascii(int.__repr__(k))
    raise _Fallback


def _value(o: Any, out: Callable[[str], None], level: int) -> None:
    text = _scalar(o)
    if text is not None:
        out(text)
    elif isinstance(o, (list, tuple)):
        _list(o, out, level)
    elif isinstance(o, dict):
        _dict(o, out, level)
    elif type(o) is Columns:
        out(_columns_text(o, level))
    else:
        raise _Fallback


class _Texts(dict):
    """The JSON text of each value of one column, by value. Only for a column whose values'
    types are one of _ONE_KIND's sets, where equal values have equal texts (1, 1.0 and True
    are equal, so a column never mixes them) — except 0.0 and -0.0, never kept."""

    def __missing__(self, v: Any) -> str:
        text = _scalar(v)
        if text is None:   # (_ONE_KIND holds scalars only)
            raise _Fallback
        if v or type(v) is not float:
            self[v] = text
        return text


class _StrTexts(_Texts):
    """_Texts of a column of str and None: _scalar's answer for them, without its checks
    (most of a long column's strings are new: an object's name, a message naming it)."""

    def __missing__(self, v: Any) -> str:
        text = self[v] = encode_basestring_ascii(v) if v is not None else "null"
        return text


class _FloatTexts(_Texts):
    """_Texts of a column of float and None (_scalar's answer for them)."""

    def __missing__(self, v: Any) -> str:
        if v is None:
            text = self[v] = "null"
        else:
            text = _float(v)
            if v:
                self[v] = text
        return text


_NONE = type(None)
_ONE_KIND = ((frozenset({str, _NONE}), _StrTexts), (frozenset({float, _NONE}), _FloatTexts),
             (frozenset({int, _NONE}), _Texts), (frozenset({bool, _NONE}), _Texts))


def _column_texts(column: Sequence[Any], level: int) -> Iterable[str]:
    """The JSON texts of a column's values, as items of a row at ``level``."""
    for kinds, texts_of in _ONE_KIND:
        if kinds.issuperset(map(type, column)):
            return map(texts_of().__getitem__, column)
    texts: list[str] = []
    for v in column:
        parts: list[str] = []
        _value(v, parts.append, level + 1)
        texts.append("".join(parts))
    return texts


def _columns_text(table: Columns, level: int) -> str:
    """The text of ``table.rows()`` at ``level``, as json.dumps(indent=2) writes it: each
    row's pieces (the key texts with their separators, the values' texts) interleaved by
    zip and joined once."""
    if not table.columns[0]:
        return "[]"
    row, item = "\n" + _INDENT * (level + 1), "\n" + _INDENT * (level + 2)
    pieces: list[Iterable[str]] = []
    sep = row + "{" + item
    for key, column in zip(table.keys, table.columns):
        pieces.append(repeat(sep + _key(key) + ": "))
        pieces.append(_column_texts(column, level + 1))
        sep = "," + item
    pieces.append(repeat(row + "},"))
    text = "".join(chain.from_iterable(zip(*pieces)))
    return "[" + text[:-1] + "\n" + _INDENT * level + "]"


def _rows(lst: Any) -> bool:
    """Whether ``lst`` is a list of rows (see _SCALARS); in C, no Python loop."""
    return (c_make_encoder is not None and _DICT.issuperset(map(type, lst)) and all(lst)
            and _STR.issuperset(map(type, chain.from_iterable(lst)))
            and _SCALARS.issuperset(map(type, chain.from_iterable(map(dict.values, lst)))))


def _encode_rows(lst: list, level: int) -> str:
    """The text of a non-empty list of rows at ``level``, as json.dumps(indent=2) writes it."""
    encode = _row_encoders.get(level)
    if encode is None:
        assert c_make_encoder is not None
        encode = _row_encoders[level] = c_make_encoder(
            None, None, encode_basestring_ascii, None, ": ", ",\n" + _INDENT * (level + 2),
            False, False, True)
    text = "".join(encode(lst, 0))
    row, item = "\n" + _INDENT * (level + 1), "\n" + _INDENT * (level + 2)
    # '[{' ... '},<item>{' ... '}]': each row's braces on lines of their own.
    body = text[2:-2].replace("}," + item + "{", row + "}," + row + "{" + item)
    return "[" + row + "{" + item + body + row + "}\n" + _INDENT * level + "]"


def _list(lst: Any, out: Callable[[str], None], level: int) -> None:
    if not lst:
        out("[]")
        return
    if type(lst) is list and _rows(lst):
        out(_encode_rows(lst, level))
        return
    inner = "\n" + _INDENT * (level + 1)
    sep = "," + inner
    out("[" + inner)
    first = True
    for v in lst:
        if first:
            first = False
        else:
            out(sep)
        t = type(v)
        if t is str:
            out(encode_basestring_ascii(v))
        elif t is dict:
            _dict(v, out, level + 1)
        else:
            text = _scalar(v)
            if text is not None:
                out(text)
            else:
                _value(v, out, level + 1)
    out("\n" + _INDENT * level + "]")


def _dict(dct: dict, out: Callable[[str], None], level: int) -> None:
    if not dct:
        out("{}")
        return
    inner = "\n" + _INDENT * (level + 1)
    sep = "," + inner
    out("{" + inner)
    first = True
    for k, v in dct.items():
        key = encode_basestring_ascii(k) if type(k) is str else _key(k)
        if first:
            first = False
        else:
            out(sep)
        t = type(v)
        if t is str:
            out(key + ": " + encode_basestring_ascii(v))
        elif t is int:
            out(key + ": " + int.__repr__(v))
        elif t is bool:
            out(key + (": true" if v else ": false"))
        elif t is dict or t is list:
            out(key + ": ")
            (_dict if t is dict else _list)(v, out, level + 1)
        else:
            text = _scalar(v)
            if text is not None:
                out(key + ": " + text)
            else:
                out(key + ": ")
                _value(v, out, level + 1)
    out("\n" + _INDENT * level + "}")
