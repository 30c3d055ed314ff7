"""The one safe way in for text from outside: manifests, scripts, recordings, configs, stdin.

Everything a user (or a downloaded recording) hands the sandbox passes through here before any
other code sees it, so hostile input is refused in one place with a one-line error naming the
file, the document and the line:

- ``read_source(path, stdin)`` — ``-`` is standard input (or the text a script step carries);
  anything else must be a regular file (devices, FIFOs and sockets are refused: ``-f /dev/zero``
  would never end) no larger than ``LIMITS.max_file_bytes``.
- ``load_yaml_documents(text, source)`` / ``load_yaml(text, source)`` — YAML (and JSON, which is
  YAML) parsed with libyaml's parser and our own composer, which refuses
  * a document nested deeper than ``LIMITS.max_depth`` (before Python's or libyaml's recursion
    can crash: 50,000 nested ``[`` used to kill the interpreter);
  * alias bombs ("billion laughs"): the expansion is *counted*, never performed, and refused
    with go-yaml's rule (the decoder kubectl uses: more than 99 % → 10 % of the decoded nodes
    coming from aliases, yaml.v2/v3 ``allowedAliasRatio``) or when the expanded document would
    be more than ``LIMITS.alias_expansion`` times the size of its text; an alias to the anchor
    that contains it is refused as go-yaml does ("anchor 'a' value contains itself");
  * duplicate mapping keys, as a strict decoder does (``mapping key "kind" already defined at
    line 2``; merge keys ``<<`` may be overridden, as YAML intends);
  * a single document larger than ``LIMITS.max_document_bytes`` (3 MiB, the API server's
    request limit) — except a ``kind: List``, which kubectl splits into its items.

It is not a validator of Kubernetes objects (``manifest.py`` and ``codec.py`` are) and does not
decide which kinds exist. The limits are plain data (``Limits``) so the CLI can override them
(``--horizon`` lives elsewhere; these are the input limits) and so a faster parser can be put
behind the same limits: it must call ``check_depth`` on what it builds, refuse duplicate keys
and aliases as here, and keep ``read_source`` as its only way to read a file.
"""

from __future__ import annotations

import json
import json.decoder
import os
import re
import stat
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator

import attrs

from . import fastyaml, loadprogress
from .errors import ManifestError

MiB = 1024 * 1024


@attrs.frozen
class Limits:
    """The input limits (documented in README "Limits")."""

    # A whole file (or standard input). 256 MiB is ~900,000 lean pods of YAML; parsed, it is
    # already several GB of Python objects, so more would end in an OOM kill, not a sandbox.
    max_file_bytes: int = 256 * MiB
    # One document: the API server refuses a request body over 3 MiB
    # (k8s.io/apiserver/pkg/server/config.go, MaxRequestBodyBytes = 3 * 1024 * 1024).
    max_document_bytes: int = 3 * MiB
    # Nesting depth of one document. Go's decoders allow 10,000; the sandbox's own decoders
    # and printers recurse in Python, so it holds 100 (a CRD schema nests ~30 deep).
    max_depth: int = 100
    # An expanded document may hold at most this many nodes per character of its text
    # (a document without aliases holds fewer than one node per character).
    alias_expansion: int = 10
    # ... but small documents may always expand this far (a handful of shared env lists).
    alias_floor: int = 10_000


LIMITS = Limits()


def configure(**changes: Any) -> Limits:
    """Replace the process-wide limits (the CLI's flags and tests use this)."""
    global LIMITS
    LIMITS = attrs.evolve(LIMITS, **changes)
    return LIMITS


def _fmt_size(n: int) -> str:
    return f"{n / MiB:.1f} MiB" if n >= MiB else f"{n} bytes"


# --- which files may be read ---------------------------------------------------------------

# None: any file (the user's own command line and scripts). A tuple: only files whose real path
# lies under one of these directories — () for none at all. A played recording's steps run
# under it (recording/playback.py): a recording is data, not access to the player's files.
_FILE_ROOTS: ContextVar[tuple[str, ...] | None] = ContextVar("ksandbox_file_roots",
                                                              default=None)


@contextmanager
def files_only_under(roots: tuple[str, ...] | None) -> Iterator[None]:
    """Within the block, ``read_source`` reads only files under ``roots`` (real paths;
    None lifts the restriction)."""
    token = _FILE_ROOTS.set(roots)
    try:
        yield
    finally:
        _FILE_ROOTS.reset(token)


def file_outside(name: str, roots: tuple[str, ...]) -> bool:
    """Whether the file ``name`` (symlinks followed) lies outside every directory in
    ``roots``."""
    real = os.path.realpath(name)
    return not any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def check_file_allowed(name: str | os.PathLike[str]) -> None:
    """Refuse a file the current restriction (``files_only_under``) does not allow."""
    roots = _FILE_ROOTS.get()
    path = os.fspath(name)
    if roots is None or path == "-" or not file_outside(path, roots):
        return
    where = ("outside " + ", ".join(roots)) if roots else "from the player's disk"
    raise ManifestError(path, None,
                        f"a recording may not read files {where} (carry the manifest inline "
                        f"with stdin:, or play it with --allow-files DIR)")


# --- reading -------------------------------------------------------------------------------

def read_source(path: str | os.PathLike[str], stdin: str | None = None, *,
                stdin_name: str = "STDIN") -> str:
    """The text of ``path``; ``-`` reads ``stdin`` if given, else the process's standard input.

    Raises ManifestError (kubectl's ``the path "x" does not exist`` for a missing path).
    """
    limit = LIMITS.max_file_bytes
    name = os.fspath(path)
    check_file_allowed(name)
    if name == "-":
        if stdin is not None:
            text = stdin
        else:
            data = sys.stdin.buffer.read(limit + 1) if hasattr(sys.stdin, "buffer") \
                else sys.stdin.read(limit + 1).encode("utf-8")
            if len(data) > limit:
                raise ManifestError(stdin_name, None, f"standard input is larger than the "
                                                      f"{_fmt_size(limit)} limit")
            text = _decode(data, stdin_name)
        if len(text) > limit:
            raise ManifestError(stdin_name, None, f"standard input is larger than the "
                                                  f"{_fmt_size(limit)} limit")
        return text
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer before we can refuse it.
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise ManifestError("", None, f'the path "{name}" does not exist') from None
    except IsADirectoryError:
        raise ManifestError(name, None, "is a directory, not a manifest file") from None
    except OSError as exc:
        raise ManifestError(name, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise ManifestError(name, None, "is a directory, not a manifest file")
        if not stat.S_ISREG(st.st_mode):
            raise ManifestError(name, None, 'not a regular file (devices, FIFOs and sockets '
                                            'are refused; use "-f -" for standard input)')
        if st.st_size > limit:
            raise ManifestError(name, None, f"file is {_fmt_size(st.st_size)}, larger than "
                                            f"the {_fmt_size(limit)} limit")
        chunks = []
        total = 0
        while total <= limit:
            chunk = os.read(fd, min(8 * MiB, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:  # the file grew while we read it
            raise ManifestError(name, None, f"file is larger than the {_fmt_size(limit)} limit")
    except OSError as exc:
        raise ManifestError(name, None, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    return _decode(b"".join(chunks), name)


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ManifestError(source, None, f"cannot read: not UTF-8 text (byte {exc.start})") \
            from None


# --- YAML ----------------------------------------------------------------------------------
# PyYAML's composer and constructor with the limits live in safeload_pyyaml.py, imported on
# the first text the fast path hands on (most starts never need PyYAML).

# Which PyYAML composer: None asks libyaml once (safeload_pyyaml.FAST: it caps nesting
# itself, so its own composer is safe); True/False force one (tests).
_FAST: bool | None = None

_JSON_START = re.compile(r"\s*[{\[]")


def _looks_like_json(text: str) -> bool:
    return _JSON_START.match(text) is not None


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict:
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateJSONKey(k)
            seen.add(k)
    return d


class _DuplicateJSONKey(ValueError):
    pass


def check_depth(data: Any, source: str, document: int | None) -> None:
    """Refuse plain data nested deeper than the limit (iterative: safe at any depth)."""
    limit = LIMITS.max_depth
    if not fastyaml.nesting_within(data, limit):
        raise ManifestError(source, document, f"error converting YAML to JSON: "
                                              f"exceeded max depth of {limit}")


def _load_json(text: str, source: str) -> Any | None:
    """The data of a JSON text, None if it is not JSON (then it is read as YAML).

    The json module stays the parser (measured on a 5,000-node / 30,000-pod List export,
    24.7 MiB, CPU seconds): json.loads with the duplicate-key hook 0.49, orjson 0.19 — but
    orjson takes the last of two equal keys silently and turns integers past 64 bits into
    floats, and finding either in the text (a regex pass over the strings, or counting keys
    in the parsed data) costs 0.6–0.9 s, more than it saves. The depth check after it costs
    ~0.08 s (fastyaml.nesting_within)."""
    try:
        data = json.loads(text, object_pairs_hook=_json_pairs)
    except _DuplicateJSONKey as exc:
        raise ManifestError(source, 1, f'error converting YAML to JSON: json: duplicate '
                                       f'field "{exc.args[0]}"') from None
    except RecursionError:
        raise ManifestError(source, 1, f"error converting YAML to JSON: exceeded max depth "
                                       f"of {LIMITS.max_depth}") from None
    except ValueError:
        return None
    check_depth(data, source, 1)
    return data


_UNCUT: Any = object()


class NotStreamable(Exception):
    """:class:`JsonList` met something it does not read item by item (not a ``kind: List``
    object of JSON, a duplicate key, a syntax error, too deep): read the text the plain way
    (``load_yaml_documents``), which gives the answer — or the refusal — in its words."""


_JSON_WS: Any = re.compile(r"[ \t\n\r]*").match   # what json.loads skips (json.decoder.WHITESPACE)
_ITEM_SEP: Any = re.compile(r"[ \t\n\r]*,[ \t\n\r]*").match   # between two items
_SCANSTRING: Any = vars(json.decoder)["scanstring"]   # json's own string reader (C)
_JSON_DECODER: Any = json.JSONDecoder(object_pairs_hook=_json_pairs)   # (scan_once: untyped)
_JSON_INDENT: Any = re.compile(r" *").match   # a pretty-printed line's indentation
_SPEC_KEY = '"spec": '   # an item's spec as kubectl prints it (JsonList._item)

# JsonList._spec: the longest span looked up (a pod's spec in a real export is 1-4 KB); how
# many spans are kept (a 150,000-pod export on 5,000 nodes holds 5,000 specs); after
# SPAN_PROBE specs, at least one in SPAN_MIN_RATE must have been met again (as
# codec.SHARE_PROBE / SHARE_MIN_RATE for the decoded specs)
SPAN_MAX = 64 * 1024
SPEC_AT_MAX = 16 * 1024   # how far into an item its spec is looked for
SPANS_KEPT = 1 << 14
SPAN_PROBE = 8192
SPAN_MIN_RATE = 8
# JsonList._head: how many item heads' layouts are kept; the most strings a layout may hold
# (its builder is compiled code); after HEAD_PROBE heads, at least one in HEAD_MIN_RATE must
# have had a layout met before
HEADS_KEPT = 1024
HEAD_MAX_STRINGS = 256
HEAD_PROBE = 4096
HEAD_MIN_RATE = 2


class JsonList:
    """A ``kubectl get -o json`` List export read one item at a time: :meth:`items` yields
    ``(item, offset past it)`` as json.loads would read them (same decoder, same duplicate-key
    hook, the depth limit counted from the outermost object), so a caller that decodes each
    item before asking for the next never holds the whole parsed export (~1 KB per pod of a
    150,000-pod one). It raises :class:`NotStreamable` wherever json.loads would not give a
    ``kind: List`` with an ``items`` array within the limits — the caller then reads the
    text the plain way. The other top-level members are in :attr:`header` once items ends
    (kubectl prints ``kind`` after ``items``)."""

    def __init__(self, text: str, *, kept: Callable[[Any], None] | None = None) -> None:
        """``kept``: the items' specs are read by :meth:`_item` (a spec met again is the
        value read before), and ``kept(value)`` is called with each value that may be handed
        out again; None: each item read whole by the scanner."""
        self.text = text
        self.header: dict[str, Any] = {}
        self._kept = kept
        # span of text -> the value the scanner read from it (:meth:`_spec`)
        self._spans: dict[str, Any] = {}
        self._tries = self._hits = 0
        # an item head's text with its strings emptied -> _HeadLayout (:meth:`_head`);
        # None once layouts are seldom met again
        self._heads: dict[str, _HeadLayout] | None = {}
        self._last_head: _HeadLayout | None = None
        self._head_tries = self._head_hits = 0

    def items(self) -> Iterator[tuple[Any, int]]:
        text, ws, header = self.text, _JSON_WS, self.header
        limit = LIMITS.max_depth
        i = ws(text, 0).end()
        if limit < 3 or text[i:i + 1] != "{":
            raise NotStreamable
        i = ws(text, i + 1).end()
        seen_items = False
        while True:
            if text[i:i + 1] != '"':
                raise NotStreamable
            try:
                key, i = _SCANSTRING(text, i + 1)
            except ValueError:
                raise NotStreamable from None
            i = ws(text, i).end()
            if text[i:i + 1] != ":" or key in header or (key == "items" and seen_items):
                raise NotStreamable
            i = ws(text, i + 1).end()
            if key == "items":
                seen_items = True
                if text[i:i + 1] != "[":
                    raise NotStreamable
                i = ws(text, i + 1).end()
                if text[i:i + 1] == "]":
                    i += 1
                else:
                    value, sep = (self._value if self._kept is None else self._item), \
                        _ITEM_SEP
                    while True:
                        item, i = value(i, limit - 2)
                        yield item, i
                        between = sep(text, i)   # the comma to the next item, in one match
                        if between is not None:
                            i = between.end()
                            continue
                        i = ws(text, i).end()
                        if text[i:i + 1] != "]":
                            raise NotStreamable
                        i += 1
                        break
            else:
                header[key], i = self._value(i, limit - 1)
            i = ws(text, i).end()
            c = text[i:i + 1]
            if c == "}":
                break
            if c != ",":
                raise NotStreamable
            i = ws(text, i + 1).end()
        if ws(text, i + 1).end() != len(text) or not seen_items or header.get("kind") != "List":
            raise NotStreamable

    def _item(self, i: int, depth: int) -> tuple[Any, int]:
        """An item as :meth:`_value` reads it — but its ``spec``, when the text of a spec
        read before comes there, is the value read then (one value for every pod of a
        template on a node: ~30 per spec in a 150,000-pod export on 5,000 nodes, and
        codec.shared_decode finds its decoded spec by identity), and the scanner reads the
        rest of the item only.

        Found as ``kubectl get -o json`` prints an item: ``"spec": {`` at the start of a
        line, the value's closing brace on a line of its own indented as the key's (a JSON
        string holds no raw newline, so no line inside the value starts so). The layout is
        only a guess, checked: the span must be a text the scanner read whole before as a
        value, ending where it ended — the scanner reads a value's characters in order and
        stops at its closing brace, so from here it would read the same value to the same
        end (the same members, the same refusal of duplicate keys: none; the same depth,
        every spec being at the same level of its item). The item's text before the span,
        with ``0`` in its place and closed there, must be read by the scanner as one object
        to its end: then ``0`` (no string runs through it, and ``": "`` is before it) is
        the value of the object's last member, ``spec`` — the span is the item's own spec,
        and the item read whole holds the same members, with the span's value. What follows
        the span is read member by member. Anything else reads the item whole."""
        text = self.text
        line = text.rfind("\n", 0, i) + 1
        if not line or depth < 2 or _JSON_INDENT(text, line).end() != i:
            return self._value(i, depth)
        k = text.find(_SPEC_KEY, i, i + SPEC_AT_MAX)
        if k < 0:
            return self._value(i, depth)
        line = text.rfind("\n", i, k) + 1
        a = k + len(_SPEC_KEY)
        if not line or _JSON_INDENT(text, line).end() != k or text[a:a + 1] != "{":
            return self._value(i, depth)
        tries = self._tries
        if tries >= SPAN_PROBE and self._hits * SPAN_MIN_RATE < tries:
            self._kept = None   # each pod's spec its own: the spans cost more than they save
            self._spans.clear()
            return self._value(i, depth)
        self._tries = tries + 1
        closer = "\n" + text[line:k] + "}"
        b = text.find(closer, a, a + SPAN_MAX)
        if b < 0:
            return self._value(i, depth)
        b += len(closer)
        span = text[a:b]
        spans = self._spans
        spec = spans.get(span)
        if spec is not None:
            self._hits += 1
        else:
            try:
                spec, end = self._value(a, depth - 1)
            except NotStreamable:   # (the item read whole says whether it is)
                return self._value(i, depth)
            if end != b or type(spec) is not dict:
                return self._value(i, depth)
            if len(spans) >= SPANS_KEPT:
                spans.clear()
            spans[span] = spec
            if self._kept is not None:
                self._kept(spec)
        item = self._head(text[i:a], depth)
        if item is None:
            return self._value(i, depth)
        item["spec"] = spec   # (in its place: the key is there)
        ws = _JSON_WS
        j = ws(text, b).end()
        while text[j:j + 1] == ",":   # members after the spec (a real export's status)
            j = ws(text, j + 1).end()
            if text[j:j + 1] != '"':
                raise NotStreamable
            try:
                key, j = _SCANSTRING(text, j + 1)
            except ValueError:
                raise NotStreamable from None
            j = ws(text, j).end()
            if text[j:j + 1] != ":" or key in item:   # (a key twice: json.loads refuses it)
                raise NotStreamable
            item[key], j = self._value(ws(text, j + 1).end(), depth - 1)
            j = ws(text, j).end()
        if text[j:j + 1] != "}":
            raise NotStreamable
        return item, j + 1

    def _head(self, raw: str, depth: int) -> dict | None:
        """The item whose text up to its spec's value is ``raw``, with ``0`` as its spec
        (closed there), as the scanner reads ``raw + "0}"`` — None where it would not read
        one object to its end within ``depth``, or refuse it (a key twice).

        Most heads of an export are laid out alike: the same keys, numbers and whitespace,
        only their string values differ (a pod's name, its labels' values). A head the
        scanner read, if it holds no backslash, is cut into its strings by its quotes alone
        (every quote opens or closes one); its layout (_HeadLayout) is a pattern that matches
        exactly the texts that differ from it only in the characters of its string values,
        each of which the scanner takes as it is (no quote, no backslash, no control
        character) — the same objects, keys and depth, each value its characters — and a
        compiled builder of the item from those values. A head its layout matches (the last
        one used, else the one of its quote-cut shape) is built (~11k instructions a pod's
        head); others are read by the scanner with its checks (~34k)."""
        heads = self._heads
        if heads is None:
            return self._scan_head(raw, depth)
        self._head_tries += 1
        last = self._last_head
        if last is not None:
            m = last.match(raw)
            if m is not None:
                self._head_hits += 1
                return last.build(*m.groups())
        if "\\" in raw:
            return self._scan_head(raw, depth)
        parts = raw.split('"')
        key = '"'.join(parts[0::2])   # the text with its strings emptied
        layout = heads.get(key)
        if layout is not None:
            m = layout.match(raw)
            if m is not None:
                self._head_hits += 1
                self._last_head = layout
                return layout.build(*m.groups())
        elif self._head_tries >= HEAD_PROBE and \
                self._head_hits * HEAD_MIN_RATE < self._head_tries:
            self._heads = self._last_head = None   # each head its own layout: stop looking
            return self._scan_head(raw, depth)
        item = self._scan_head(raw, depth)
        if item is not None and layout is None and len(parts) <= 2 * HEAD_MAX_STRINGS + 1:
            made = _HeadLayout.of(item, parts)
            if made is not None:
                if len(heads) >= HEADS_KEPT:
                    heads.clear()
                heads[key] = self._last_head = made
        return item

    @staticmethod
    def _scan_head(raw: str, depth: int) -> dict | None:
        head = raw + "0}"
        try:
            item, end = _JSON_DECODER.scan_once(head, 0)
        except (StopIteration, ValueError, RecursionError):
            return None
        if end != len(head) or type(item) is not dict or \
                (head.count("{") + head.count("[") > depth and
                 not fastyaml.nesting_within(item, depth)):
            return None
        return item

    def _value(self, i: int, depth: int) -> tuple[Any, int]:
        text = self.text
        try:   # (raw_decode's own call, without its frame: StopIteration is its refusal)
            value, end = _JSON_DECODER.scan_once(text, i)
        except (StopIteration, ValueError, RecursionError):   # _DuplicateJSONKey: ValueError
            raise NotStreamable from None
        # A value cannot nest deeper than the brackets its text opens (C-speed counts; a
        # bracket inside a string only overcounts): walked level by level only past that.
        if text.count("{", i, end) + text.count("[", i, end) > depth and \
                not fastyaml.nesting_within(value, depth):
            raise NotStreamable
        return value, end


class _HeadLayout:
    """The layout of a head the scanner read (:meth:`JsonList._head`): ``match(text)``, the
    texts laid out alike (its values as groups), and ``build(*values)``, the item with fresh
    dicts and lists, the first head's keys and other values (numbers, true, false, null), and
    the values given."""

    __slots__ = ("match", "build")

    def __init__(self, match: Any, build: Any) -> None:
        self.match, self.build = match, build

    @classmethod
    def of(cls, item: dict, parts: list[str]) -> "_HeadLayout | None":
        """The layout of ``item`` as the scanner read it from a text without a backslash cut
        at its quotes into ``parts`` (its strings are the odd parts); None when its keys and
        string values are not the text's strings in order (cannot be: a check)."""
        consts: list[Any] = []
        strings: list[Any] = []   # the item's strings in order: (key,) or a value's index
        values = 0

        def expr(v: Any) -> str:
            nonlocal values
            t = type(v)
            if t is str:
                strings.append(values)
                values += 1
                return f"v{values - 1}"
            if t is dict:
                members = []
                for k, x in v.items():
                    strings.append((k,))
                    consts.append(k)
                    members.append(f"c[{len(consts) - 1}]: {expr(x)}")
                return "{" + ", ".join(members) + "}"
            if t is list:
                return "[" + ", ".join([expr(x) for x in v]) + "]"
            consts.append(v)
            return f"c[{len(consts) - 1}]"

        body = expr(item)
        if len(parts) != 2 * len(strings) + 1:
            return None
        pattern = [re.escape(parts[0])]
        for n, s in enumerate(strings):
            if type(s) is tuple:
                if parts[2 * n + 1] != s[0]:
                    return None
                pattern.append('"' + re.escape(s[0]) + '"')
            else:   # what the scanner reads as it is (strict: no control character)
                pattern.append(r'"([^"\\\x00-\x1f]*)"')
            pattern.append(re.escape(parts[2 * n + 2]))
        args = ", ".join(f"v{n}" for n in range(values))
        build = eval(f"lambda {args}: {body}", {"c": tuple(consts)})   # noqa: S307 - ours
        return cls(re.compile("".join(pattern)).fullmatch, build)


def looks_like_json(text: str) -> bool:
    return _looks_like_json(text)


def iter_yaml_documents(text: str, source: str, *, streamed: bool = False,
                        chunks: Any = _UNCUT) -> Iterator[tuple[int, Any, int]]:
    """Yield (document number, data, size in characters) for each non-empty document.

    YAML the fast path reads is parsed one document at a time as it is asked for (so a
    caller that decodes each document before asking for the next never holds the whole
    parsed file); if it meets a document only the plain path may read, the plain path goes
    on from there (both read the documents before it alike: fastyaml.py). ``streamed``: the
    caller reports its own progress per document (the fast path's parsing reports are left
    out, so the stages stay in order)."""
    report = loadprogress.current()
    if report is not None:
        report(loadprogress.PARSING, 0, len(text))
    if _looks_like_json(text):
        # `kubectl get -o json` output: JSON is YAML, and the json module is ~30x faster.
        data = _load_json(text, source)
        if data is not None:
            yield 1, data, len(text)
            return
    if chunks is _UNCUT:
        chunks = fastyaml.document_chunks(text)
    done = 0   # documents read by the fast path: the plain path goes on after them
    if chunks is not None:
        try:
            for number, data, size in fastyaml.iter_documents(
                    text, chunks, LIMITS.max_document_bytes, LIMITS.max_depth,
                    report=not streamed):
                done = number
                yield number, data, size
            return
        except fastyaml.Unreadable:
            pass
    yield from _plain_documents(text, source, report, after=done)


def _plain_documents(text: str, source: str, report: Any, after: int
                     ) -> Iterator[tuple[int, Any, int]]:
    """PyYAML's composer with the limits: the documents numbered past ``after``."""
    from . import safeload_pyyaml as py

    fast_composer = py.FAST if _FAST is None else _FAST
    loader = py.FastLoader(text, LIMITS) if fast_composer else py.Loader(text, LIMITS)
    number = 0
    try:
        while True:
            more = False
            try:
                more = loader.check_data()
                if more:
                    number += 1
                    data = loader.get_data()
            except py.yaml.YAMLError as exc:
                # a problem before the next document begins belongs to that document
                failing = number if more else number + 1
                raise ManifestError(source, failing, py.yaml_error(exc)) from None
            except RecursionError:  # pragma: no cover - the depth limit comes first
                raise ManifestError(source, number or 1, "error converting YAML to JSON: "
                                                         "document nested too deeply") from None
            if not more:
                break
            if report is not None and not number % 256:  # the plain path: ~100x slower
                report(loadprogress.PARSING, sum(loader.document_sizes), len(text))
            if data is not None and number > after:
                yield number, data, loader.document_sizes[-1]
    finally:
        loader.dispose()


def _checked(docs: Iterator[tuple[int, Any, int]], source: str) -> Iterator[tuple[int, Any]]:
    """(number, data) of each document; one document may not exceed the size limit unless it
    is a ``kind: List`` (kubectl sends a List's items one by one)."""
    limit = LIMITS.max_document_bytes
    for number, data, size in docs:
        if size > limit and not (isinstance(data, dict) and data.get("kind") == "List"):
            raise ManifestError(source, number, f"document is {_fmt_size(size)}, larger than "
                                                f"the API server's {_fmt_size(limit)} limit "
                                                f"for one object")
        yield number, data


def load_yaml_documents(text: str, source: str) -> list[tuple[int, Any]]:
    """Every non-empty document as (number, data), parsed before any is returned; one
    document may not exceed the size limit unless it is a ``kind: List``."""
    return list(_checked(iter_yaml_documents(text, source), source))


class Documents:
    """The non-empty documents of a text as (number, data), parsed as they are iterated (a
    decoder that decodes each before asking for the next never holds the whole parsed file:
    a 150,000-pod YAML file's parsed documents are ~3 KB a pod). ``expected``: how many
    documents the text holds as far as is known before parsing it (the fast path's chunks;
    empty ones included), None when unknown (JSON, the plain path). Iterate once."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.expected: int | None = None
        self._chunks: Any = _UNCUT
        if not _looks_like_json(text):
            self._chunks = fastyaml.document_chunks(text)
            self.expected = len(self._chunks) if self._chunks is not None else None

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        text, self.text = self.text, ""   # iterate once; the caller holds the text
        return _checked(iter_yaml_documents(text, self.source, streamed=True,
                                            chunks=self._chunks), self.source)


def load_yaml(text: str, source: str) -> Any:
    """The single document of a YAML text (a script, a recording, a config), or None."""
    docs = list(iter_yaml_documents(text, source))
    if len(docs) > 1:
        raise ManifestError(source, docs[1][0], "expected a single YAML document")
    return docs[0][1] if docs else None


def load_file(path: str | os.PathLike[str], stdin: str | None = None) -> Any:
    """``read_source`` + ``load_yaml``: one file's single document."""
    name = os.fspath(path)
    return load_yaml(read_source(name, stdin), "STDIN" if name == "-" else name)


__all__ = ["Limits", "LIMITS", "configure", "read_source", "iter_yaml_documents", "Documents",
           "JsonList", "NotStreamable", "looks_like_json",
           "load_yaml_documents", "load_yaml", "load_file", "check_depth",
           "files_only_under", "check_file_allowed", "file_outside"]


def __getattr__(name: str) -> Any:
    """``yaml_error`` and ``LimitExceeded`` are PyYAML's side (safeload_pyyaml.py), imported
    when first asked for."""
    if name in ("yaml_error", "LimitExceeded"):
        from . import safeload_pyyaml

        return getattr(safeload_pyyaml, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

