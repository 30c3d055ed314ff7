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
import os
import re
import stat
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

import attrs
import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import SafeConstructor
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.resolver import Resolver

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

class LimitExceeded(yaml.YAMLError):
    """A limit refused the document; ``line`` is 1-based."""

    def __init__(self, line: int | None, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


_MERGE_TAG = "tag:yaml.org,2002:merge"
# go-yaml's alias accounting (gopkg.in/yaml.v2 decode.go, alias_ratio_range_low/high and
# allowedAliasRatio): up to 400,000 decoded nodes 99 % may come from aliases, from 4,000,000
# only 10 %, linear in between; checked only past 100 aliases and 1,000 nodes.
_RATIO_LOW, _RATIO_HIGH = 400_000, 4_000_000


def _allowed_alias_ratio(count: int) -> float:
    if count <= _RATIO_LOW:
        return 0.99
    if count >= _RATIO_HIGH:
        return 0.10
    return 0.99 - 0.89 * (count - _RATIO_LOW) / (_RATIO_HIGH - _RATIO_LOW)


class _LimitedComposer(Composer):
    """pyyaml's composer with depth, alias-expansion and self-reference accounting."""

    def _reset_counts(self) -> None:
        self._depth = 0
        self._deepest = 0        # the deepest level reached (inside the anchor being composed)
        self._nodes = 0          # nodes as a decoder would visit them (aliases expanded)
        self._aliases = 0        # of which reached through an alias
        self._sizes: dict[str, tuple[int, int]] = {}   # anchor -> (nodes expanded, height)
        self._open: set[str] = set()                   # anchors whose node is being composed
        self._doc_start = 0

    def compose_document(self) -> Any:
        self._reset_counts()
        start = self.get_event()              # DocumentStartEvent
        self._doc_start = start.start_mark.index if start.start_mark else 0
        node = self.compose_node(None, None)
        end = self.get_event()                # DocumentEndEvent
        assert isinstance(end, DocumentEndEvent)
        self.anchors = {}
        end_index = end.end_mark.index if end.end_mark else self._doc_start
        self.document_sizes.append(end_index - self._doc_start)
        return node

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(AliasEvent):
            event = self.get_event()
            anchor = event.anchor
            line = event.start_mark.line + 1 if event.start_mark else None
            if anchor not in self.anchors:
                raise ComposerError(None, None, f"found undefined alias {anchor!r}",
                                    event.start_mark)
            if anchor in self._open:
                raise LimitExceeded(line, f"anchor '{anchor}' value contains itself")
            # go-yaml counts the alias node, then every node of its target as alias-driven
            nodes, height = self._sizes[anchor]
            self._nodes += 1 + nodes
            self._aliases += nodes
            self._check_aliasing(line, event.start_mark.index if event.start_mark else 0)
            # a deep anchor used deep down is as deep as the two together once expanded
            self._deepest = max(self._deepest, self._depth + height)
            if self._deepest > LIMITS.max_depth:
                raise LimitExceeded(line, f"exceeded max depth of {LIMITS.max_depth}")
            return self.anchors[anchor]
        event = self.peek_event()
        anchor = event.anchor
        if anchor is not None:
            if anchor in self.anchors:   # as libyaml's composer (the fast path) refuses it
                first = self.anchors[anchor].start_mark
                raise ComposerError("found duplicate anchor; first occurrence",
                                    first, "second occurrence", event.start_mark)
            self._open.add(anchor)
            before, start_depth, outer_deepest = self._nodes, self._depth, self._deepest
            self._deepest = self._depth
        self._nodes += 1
        if isinstance(event, ScalarEvent):
            node = self.compose_scalar_node(anchor)
        else:
            self._depth += 1
            self._deepest = max(self._deepest, self._depth)
            if self._depth > LIMITS.max_depth:
                line = event.start_mark.line + 1 if event.start_mark else None
                raise LimitExceeded(line, f"exceeded max depth of {LIMITS.max_depth}")
            if isinstance(event, SequenceStartEvent):
                node = self.compose_sequence_node(anchor)
            elif isinstance(event, MappingStartEvent):
                node = self.compose_mapping_node(anchor)
            else:  # pragma: no cover - the parser emits nothing else here
                raise ComposerError(None, None, "unexpected event", event.start_mark)
            self._depth -= 1
        if anchor is not None:
            self._open.discard(anchor)
            self.anchors[anchor] = node
            self._sizes[anchor] = (self._nodes - before, self._deepest - start_depth)
            self._deepest = max(outer_deepest, self._deepest)
        return node

    def _check_aliasing(self, line: int | None, index: int) -> None:
        nodes, aliases = self._nodes, self._aliases
        text = max(index - self._doc_start, 1)
        if ((aliases > 100 and nodes > 1000 and aliases / nodes > _allowed_alias_ratio(nodes))
                or nodes > max(LIMITS.alias_floor, LIMITS.alias_expansion * text)):
            raise LimitExceeded(line, "document contains excessive aliasing")


# Python's own limit on decimal digits (sys.int_info.default_max_str_digits): a longer integer
# is refused, not converted (the conversion is quadratic in the number of digits).
MAX_INT_DIGITS = 4300


class _StrictConstructor(SafeConstructor):
    """pyyaml's safe constructor, refusing a mapping key written twice and integers longer
    than any API field could hold."""

    def construct_yaml_int(self, node: ScalarNode) -> Any:
        try:
            return super().construct_yaml_int(node)
        except ValueError:   # past Python's digit limit
            raise LimitExceeded(_line(node), f"a number of {len(node.value)} characters is "
                                             f"longer than the {MAX_INT_DIGITS} digits an "
                                             f"integer may have") from None

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> Any:
        seen: dict[tuple[str, str], int] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag != _MERGE_TAG:
                key = (key_node.tag, key_node.value)
                line = key_node.start_mark.line + 1 if key_node.start_mark else 0
                if key in seen:
                    raise LimitExceeded(line, f'mapping key "{key_node.value}" already '
                                              f'defined at line {seen[key]}')
                seen[key] = line
        return super().construct_mapping(node, deep)


_StrictConstructor.add_constructor("tag:yaml.org,2002:int",
                                   _StrictConstructor.construct_yaml_int)

try:
    from yaml.cyaml import CParser as _Parser
except ImportError:  # pragma: no cover
    _Parser = None
if _Parser is None:  # pragma: no cover - libyaml missing: the pure-Python parser, same rules
    from yaml.parser import Parser as _PyParser
    from yaml.reader import Reader
    from yaml.scanner import Scanner

    class _ParserBase(Reader, Scanner, _PyParser):
        def __init__(self, stream: str) -> None:
            Reader.__init__(self, stream)
            Scanner.__init__(self)
            _PyParser.__init__(self)
else:
    class _ParserBase(_Parser):  # type: ignore[no-redef]
        pass


class _Loader(_ParserBase, _LimitedComposer, _StrictConstructor, Resolver):
    def __init__(self, stream: str) -> None:
        _ParserBase.__init__(self, stream)
        _LimitedComposer.__init__(self)
        _StrictConstructor.__init__(self)
        Resolver.__init__(self)
        self.document_sizes: list[int] = []
        self._reset_counts()

    # libyaml's CParser brings its own (recursive, unlimited) composer: use ours.
    check_node = Composer.check_node
    get_node = Composer.get_node
    get_single_node = Composer.get_single_node


def _line(node: Any) -> int | None:
    mark = node.start_mark
    return mark.line + 1 if mark is not None else None


def _children(node: Any) -> list[Any]:
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, SequenceNode):
        return node.value
    return []


def _check_plain_depth(root: Any) -> None:
    """A graph without aliases is a tree: its depth, pre-order, so the line is the first too
    deep node (as the pure-Python composer reports it)."""
    limit = LIMITS.max_depth
    stack = [(root, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if isinstance(node, ScalarNode):
            continue
        if depth > limit:
            raise LimitExceeded(_line(node), f"exceeded max depth of {limit}")
        for child in _children(node):
            if not isinstance(child, ScalarNode):
                push((child, depth + 1))


def _anchor_name(text: str, node: Any) -> str:
    mark = node.start_mark
    m = _ANCHOR.match(text, mark.index) if mark is not None else None
    return m.group(1) if m else "?"


_ANCHOR = re.compile(r"&([^\s\[\]{},]+)")


def _check_shared_graph(root: Any, text: str, size: int) -> None:
    """A graph with aliases (shared nodes): depth, self-reference and expansion, all counted
    without expanding anything (each distinct node is visited once)."""
    limit = LIMITS.max_depth
    memo: dict[int, tuple[int, int]] = {}      # id -> (expanded nodes, height)
    on_path: set[int] = set()
    unique = 0
    biggest_reuse: tuple[int, Any] = (0, root)
    stack: list[tuple[Any, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, leaving = stack.pop()
        nid = id(node)
        if leaving:
            on_path.discard(nid)
            expanded, height = 1, 0
            for child in _children(node):
                e, h = memo[id(child)]
                expanded += e
                height = max(height, h)
            memo[nid] = (expanded, height + 1)
            continue
        if nid in memo:                          # an alias: the node was composed before
            expanded, height = memo[nid]
            if depth + height - 1 > limit:
                raise LimitExceeded(_line(node), f"exceeded max depth of {limit}")
            if expanded > biggest_reuse[0]:
                biggest_reuse = (expanded, node)
            continue
        if nid in on_path:
            raise LimitExceeded(_line(node), f"anchor '{_anchor_name(text, node)}' value "
                                             f"contains itself")
        unique += 1
        if isinstance(node, ScalarNode):
            memo[nid] = (1, 0)
            continue
        if depth > limit:
            raise LimitExceeded(_line(node), f"exceeded max depth of {limit}")
        on_path.add(nid)
        stack.append((node, depth, True))
        # children whose visit is pending must not count as composed yet: push in reverse so
        # the document order is kept (the first occurrence of an anchor is its definition)
        for child in reversed(_children(node)):
            stack.append((child, depth + 1, False))
    nodes = memo[id(root)][0]
    aliases = nodes - unique
    if ((aliases > 100 and nodes > 1000 and aliases / nodes > _allowed_alias_ratio(nodes))
            or nodes > max(LIMITS.alias_floor, LIMITS.alias_expansion * size)):
        raise LimitExceeded(_line(biggest_reuse[1]), "document contains excessive aliasing")


def _libyaml_limits_nesting() -> bool:
    """libyaml >= 0.2.5 stops at 1,000 levels, so its (recursive, C) composer cannot overflow
    the stack; an older one must not compose hostile text."""
    if _Parser is None:
        return False
    try:
        yaml.load("[" * 1100, Loader=yaml.CSafeLoader)
    except yaml.YAMLError as exc:
        return "nesting depth" in str(exc)
    return False


class _FastLoader(_ParserBase, _StrictConstructor, Resolver):
    """libyaml's parser and composer, then the graph checks, then our constructor."""

    def __init__(self, stream: str) -> None:
        _ParserBase.__init__(self, stream)
        _StrictConstructor.__init__(self)
        Resolver.__init__(self)
        self.document_sizes: list[int] = []
        self._text = stream
        self._aliases_possible = "*" in stream

    def get_data(self) -> Any:
        node = self.get_node()
        size = node.end_mark.index - node.start_mark.index if node is not None else 0
        if node is not None:
            if self._aliases_possible:
                _check_shared_graph(node, self._text, size)
            else:
                _check_plain_depth(node)
        self.document_sizes.append(size)
        return self.construct_document(node) if node is not None else None


_FAST = _libyaml_limits_nesting()


def yaml_error(exc: yaml.YAMLError) -> str:
    """kubectl's wording for a YAML problem (``error converting YAML to JSON: yaml: line N:``)."""
    if isinstance(exc, LimitExceeded):
        where = f"line {exc.line}: " if exc.line else ""
        return f"error converting YAML to JSON: yaml: {where}{exc.problem}"
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context and "duplicate anchor" in context and context_mark is not None:
        problem = f"{context.split(';')[0]} (first defined at line {context_mark.line + 1})"
    if mark is not None:
        return f"error converting YAML to JSON: yaml: line {mark.line + 1}: {problem}"
    return f"error converting YAML to JSON: yaml: {problem}"


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


def iter_yaml_documents(text: str, source: str) -> Iterator[tuple[int, Any, int]]:
    """Yield (document number, data, size in characters) for each non-empty document."""
    report = loadprogress.current()
    if report is not None:
        report(loadprogress.PARSING, 0, len(text))
    if _looks_like_json(text):
        # `kubectl get -o json` output: JSON is YAML, and the json module is ~30x faster.
        data = _load_json(text, source)
        if data is not None:
            yield 1, data, len(text)
            return
    fast = fastyaml.load_documents(text, LIMITS.max_document_bytes, LIMITS.max_depth)
    if fast is not None:  # plain Kubernetes YAML read by the Rust-backed loader: fastyaml.py
        yield from fast
        return
    loader = _FastLoader(text) if _FAST else _Loader(text)
    number = 0
    try:
        while True:
            more = False
            try:
                more = loader.check_data()
                if more:
                    number += 1
                    data = loader.get_data()
            except yaml.YAMLError as exc:
                # a problem before the next document begins belongs to that document
                failing = number if more else number + 1
                raise ManifestError(source, failing, yaml_error(exc)) from None
            except RecursionError:  # pragma: no cover - the depth limit comes first
                raise ManifestError(source, number or 1, "error converting YAML to JSON: "
                                                         "document nested too deeply") from None
            if not more:
                break
            if report is not None and not number % 256:  # the plain path: ~100x slower
                report(loadprogress.PARSING, sum(loader.document_sizes), len(text))
            if data is not None:
                yield number, data, loader.document_sizes[-1]
    finally:
        loader.dispose()


def load_yaml_documents(text: str, source: str) -> list[tuple[int, Any]]:
    """Every non-empty document as (number, data); one document may not exceed the size limit
    unless it is a ``kind: List`` (kubectl sends a List's items one by one)."""
    out = []
    limit = LIMITS.max_document_bytes
    for number, data, size in iter_yaml_documents(text, source):
        if size > limit and not (isinstance(data, dict) and data.get("kind") == "List"):
            raise ManifestError(source, number, f"document is {_fmt_size(size)}, larger than "
                                                f"the API server's {_fmt_size(limit)} limit "
                                                f"for one object")
        out.append((number, data))
    return out


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


__all__ = ["Limits", "LIMITS", "configure", "read_source", "iter_yaml_documents",
           "load_yaml_documents", "load_yaml", "load_file", "check_depth", "yaml_error",
           "LimitExceeded", "files_only_under", "check_file_allowed", "file_outside"]
