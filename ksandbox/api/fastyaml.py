"""A fast path for plain Kubernetes YAML: the Rust-backed ``yaml_rs`` loader, behind the same
limits as ``safeload`` and only where it reads the text exactly as PyYAML's safe loader does.

Why this loader (bench/loadparse.py measures the candidates; docs/performance.md has the
figures): PyYAML's constructor runs in Python even over libyaml's parser and was the biggest
single stage of loading a large cluster; ``yaml_rs`` builds the same plain data (dicts, lists,
str, int, float, bool, None — never objects from tags) about 7× faster. rapidyaml's Python
binding hands back a node tree that must be walked in Python (no gain); msgspec's YAML support is
PyYAML underneath. JSON needs none of this: the json module is already ~25× faster than YAML.

``yaml_rs`` reads YAML 1.2, PyYAML (and Kubernetes' go-yaml) YAML 1.1, so a plain scalar such
as ``yes``, ``on``, ``017``, ``0o17``, ``1e3``, ``1:30`` or a timestamp can mean different
things to the two. :func:`load_documents` therefore first scans the text and returns None — use
the plain path — when it holds anything the two could disagree on, or anything the limits must
see (``safeload``'s docstring: the fast path refuses nothing by itself):

- a plain token that is number-like but not a plain decimal (``[-+]?(0|[1-9][0-9]*)(\\.[0-9]*)?``),
  a YAML 1.1 boolean word, a timestamp-like token, ``<<`` or ``=``;
- tags (``!``), anchors and aliases (``&``, ``*``: alias limits are safeload's), complex keys
  (``?``), directives (``%``), document ends (``...``), ``\\/`` escapes, and the line breaks
  YAML 1.1 knows and 1.2 does not (NEL, LS, PS) or a byte-order mark;
- any error from ``yaml_rs`` (duplicate keys included): the plain path then reports it in
  kubectl's words;
- a document over the size limit that is not a ``kind: List``.

The scan is conservative: a quoted ``"yes"`` inside a longer quoted string also sends the file
to the plain path, which is only slower. Every document is depth-checked with safeload's
``check_depth`` rule (a document with no more characters that could open a dict or list than
the limit cannot be too deep, and is not walked: :func:`indicators`). ``tests/api/test_fastyaml.py`` checks the two paths against each other
on generated documents and on every sample.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from . import loadprogress

try:  # an optional accelerator: without it every file takes the plain path
    import yaml_rs as _yaml_rs
except ImportError:  # pragma: no cover - depends on the environment
    _yaml_rs = None

# What the scan looks for. The text is cut into tokens at whitespace and flow indicators (a
# C-speed split), the distinct tokens are cut again at ':' and every piece is checked; a
# quoted scalar's first piece starts with its quote and is skipped (its other pieces are
# checked, which is only conservative).
_NUMBER_LIKE = re.compile(r"[-+]?(?:[0-9][0-9_]*|\.[0-9_]+|0[xXoObB][0-9a-fA-F_]+)"
                          r"(?:[.:][0-9_]*)*(?:[eE][-+]?[0-9_]+)?")
_SAFE_NUMBER = re.compile(r"[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?")
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]")
_WORDS = frozenset("yes Yes YES no No NO on On ON off Off OFF y Y n N << = ?".split())
_FLOW = str.maketrans("[]{},", "     ")
_ANYWHERE = ("\\/", "\x85", "\u2028", "\u2029", "\ufeff")
_LINE_START = re.compile(r"^(?:%|\.\.\.(?=[ \t]|$))", re.M)
# yaml_rs recurses natively: "- " * 20,000 overflows its stack (5,000 does not), while it
# refuses flow nesting past 256 by itself. Text with 100 indentation or indicator characters
# in a row (100 columns of indent, or "- - - ..." 50 deep) goes to the plain path, whose
# composer counts depth without recursing; below that nothing nests near the crash (the
# 100-level limit itself is checked on the data, as safeload checks it).
MAX_NUMBER_CHARS = 300
# 100 characters in a row of "-?: \t": each is mapped to \x01 (str.translate, C speed) and the
# run looked for as a substring — the same test as re.search("[-?: \t]{100}"), ~13x faster
# on a large file (the regex tries every position).
_DEEP_RUN = "\x01" * 100
_DEEP_CHARS = str.maketrans({c: "\x01" for c in "-?: \t"})
_COMMENT_LINE = re.compile(r"^[ \t]*#.*$", re.M)
_CONTENT = re.compile(r"^[ \t]*[^\s#]", re.M)


def available() -> bool:
    return _yaml_rs is not None


def _risky_piece(p: str) -> bool:
    if p in _WORDS or p[0] in "!&*":
        return True
    if p[0] in "-+.0123456789":
        if _NUMBER_LIKE.fullmatch(p):
            # a number longer than any field holds: the plain path refuses it in its words
            # (and yaml_rs's big-integer parse grows quadratically with its length)
            return len(p) > MAX_NUMBER_CHARS or _SAFE_NUMBER.fullmatch(p) is None
        return _TIMESTAMP.match(p) is not None
    return False


def _risky(text: str) -> bool:
    """Could PyYAML and yaml_rs read this text differently (or must the limits see it)?"""
    if any(c in text for c in _ANYWHERE) or _DEEP_RUN in text.translate(_DEEP_CHARS):
        return True
    # a line that starts with % or ...: looked for as substrings first (the regex is slow)
    if (text.startswith(("%", "...")) or "\n%" in text or "\n..." in text) and \
            _LINE_START.search(text):
        return True
    if "#" in text:  # whole-line comments are prose, not scalars
        text = _COMMENT_LINE.sub("", text)
    for token in set(text.translate(_FLOW).split()):
        if token[0] in "\"'":
            pieces = token.split(":")[1:]
        else:
            pieces = token.split(":")
            if len(pieces) > 1:  # 1:30 is one sexagesimal number in YAML 1.1
                pieces.append(token.rstrip(":"))
        for p in pieces:
            if p and _risky_piece(p):
                return True
    return False


def nesting_within(data: Any, limit: int) -> bool:
    """Whether no dict or list in plain data lies deeper than ``limit`` (the outermost is at
    depth 1): safeload.check_depth's rule, as a question. Level by level, each level one list
    comprehension: iterative, so safe at any depth, and ~4x faster than a stack of (node,
    depth) pairs over a 150,000-pod export."""
    if not isinstance(data, (dict, list)):
        return True
    level = [data]
    depth = 1
    while True:
        level = [c for o in level for c in (o.values() if isinstance(o, dict) else o)
                 if isinstance(c, (dict, list))]
        if not level:
            return True
        depth += 1
        if depth > limit:
            return False


def indicators(chunk: str) -> int:
    """How many characters of ``chunk`` could open a dict or list: a bound on how deep its
    data nests. Every dict or list yaml_rs builds opens at an indicator of its own — a block
    mapping at its first key's ``:``, a block sequence at its first ``-``, a flow collection
    at its ``[`` or ``{`` — and nothing else builds one here (tags, anchors, aliases, merge
    keys and ``?`` keys send the text to the plain path: :func:`_risky`), so data nested
    ``d`` deep has at least ``d`` of them. A pod's document has ~20, the depth limit is 100:
    most documents need no walk of their data (:func:`nesting_within`, ~5 us a pod)."""
    return chunk.count(":") + chunk.count("-") + chunk.count("[") + chunk.count("{")


class Unreadable(Exception):
    """:func:`iter_documents` met a document the plain path must read (its words for a
    refusal, or YAML 1.1's reading); the documents yielded before it are read alike by both
    paths (``safeload.iter_yaml_documents`` goes on with the plain path after them)."""


def document_starts(text: str) -> list[int]:
    """Where each ``---`` that starts a document begins: at the start of a line, followed by a
    space, a tab, a line break or the end of the text, as PyYAML's scanner takes it
    (check_document_start). A line starts after a line feed, a CR LF or a lone carriage return
    (its reader breaks lines at all three; a file saved with Windows line ends has ``---`` then
    CR LF). tests/api/test_fastyaml.py holds this to a multi-line regex. A loop of
    ``str.find``: that regex has no literal prefix to search for, so it was tried at every
    position of the text (~1.5 us a pod's document, against ~0.2)."""
    end = len(text)
    starts = [0] if text.startswith("---") and (end == 3 or text[3] in " \t\r\n") else []
    for line_break in ("\n", "\r") if "\r" in text else ("\n",):
        at = text.find(line_break + "---")
        while at >= 0:
            after = at + 4
            if after == end or text[after] in " \t\r\n":
                starts.append(at + 1)
            at = text.find(line_break + "---", after)
    # a start follows a line feed or a carriage return, never both: none is found twice
    return sorted(starts) if "\r" in text else starts


def document_chunks(text: str) -> list[tuple[int, int]] | None:
    """The ``(start, end)`` of each document's text, numbered as PyYAML numbers them (the
    first is document 1); None when the fast path may not read this text at all."""
    if _yaml_rs is None or _risky(text):
        return None
    starts = document_starts(text)
    chunks: list[tuple[int, int]] = []
    # Text before the first `---` is a document only if it has content (comments do not count).
    first_end = starts[0] if starts else len(text)
    if _CONTENT.search(text, 0, first_end):
        chunks.append((0, first_end))
    for i, s in enumerate(starts):
        chunks.append((s + 3, starts[i + 1] if i + 1 < len(starts) else len(text)))
    return chunks


def iter_documents(text: str, chunks: list[tuple[int, int]], max_document_bytes: int,
                   max_depth: int, report: bool = True) -> Iterator[tuple[int, Any, int]]:
    """``(document number, data, size)`` of each non-empty document of ``chunks``
    (:func:`document_chunks`), parsed one at a time, so a caller that decodes each document
    as it comes never holds the whole parsed file; raises :class:`Unreadable` at the first
    document the plain path must read. ``report``: report parsing progress (by characters)."""
    loads = _yaml_rs.loads
    progress = loadprogress.current() if report else None
    step = loadprogress.STEP
    for number, (a, b) in enumerate(chunks, start=1):
        if progress is not None and not number % step:
            progress(loadprogress.PARSING, a, len(text))
        chunk = text[a:b]
        try:
            data = loads(chunk, parse_datetime=False)
        except Exception:  # noqa: BLE001 - any complaint: the plain path says it properly
            raise Unreadable from None
        if data is None:
            continue
        size = b - a
        if size > max_document_bytes and not (isinstance(data, dict)
                                              and data.get("kind") == "List"):
            raise Unreadable
        if indicators(chunk) > max_depth and not nesting_within(data, max_depth):
            raise Unreadable
        yield number, data, size


def load_documents(text: str, max_document_bytes: int,
                   max_depth: int) -> list[tuple[int, Any, int]] | None:
    """``[(document number, data, size)]`` for the non-empty documents, numbered as PyYAML
    numbers them; None when the plain path must read this text (so that a refusal — depth,
    size, duplicate keys, syntax — is reported by safeload in its words)."""
    chunks = document_chunks(text)
    if chunks is None:
        return None
    try:
        return list(iter_documents(text, chunks, max_document_bytes, max_depth))
    except Unreadable:
        return None
