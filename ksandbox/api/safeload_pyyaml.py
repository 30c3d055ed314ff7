"""PyYAML's side of the safe loader (safeload.py): the composer and constructor with our limits.

Most YAML a user hands the sandbox — every shipped sample, scripts, configs and themes — is read
by the Rust-backed fast path (fastyaml.py) or as JSON; PyYAML reads only what that path hands
on (anchors and aliases, tags, YAML 1.1 oddities, broken text for its error message). So
PyYAML and these classes are imported on that first use, not at every start (~0.025 CPU s of
the TUI's start, issue 11 item 5). The rules themselves are described in safeload.py, which
hands each loader its ``LIMITS`` (this module imports nothing of ksandbox).
"""

from __future__ import annotations

import re
from typing import Any

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
        self.anchors: dict[str, Any] = {}
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
            if self._deepest > self.limits.max_depth:
                raise LimitExceeded(line, f"exceeded max depth of {self.limits.max_depth}")
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
            if self._depth > self.limits.max_depth:
                line = event.start_mark.line + 1 if event.start_mark else None
                raise LimitExceeded(line, f"exceeded max depth of {self.limits.max_depth}")
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
                or nodes > max(self.limits.alias_floor, self.limits.alias_expansion * text)):
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


class Loader(_ParserBase, _LimitedComposer, _StrictConstructor, Resolver):
    """libyaml's (or PyYAML's) parser, our composer with the limits, our constructor."""

    def __init__(self, stream: str, limits: Any) -> None:
        self.limits = limits      # safeload.Limits
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


def _check_plain_depth(root: Any, limits: Any) -> None:
    """A graph without aliases is a tree: its depth, pre-order, so the line is the first too
    deep node (as the pure-Python composer reports it)."""
    limit = limits.max_depth
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


def _check_shared_graph(root: Any, text: str, size: int, limits: Any) -> None:
    """A graph with aliases (shared nodes): depth, self-reference and expansion, all counted
    without expanding anything (each distinct node is visited once)."""
    limit = limits.max_depth
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
            or nodes > max(limits.alias_floor, limits.alias_expansion * size)):
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


class FastLoader(_ParserBase, _StrictConstructor, Resolver):
    """libyaml's parser and composer, then the graph checks, then our constructor."""

    def __init__(self, stream: str, limits: Any) -> None:
        self.limits = limits      # safeload.Limits
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
                _check_shared_graph(node, self._text, size, self.limits)
            else:
                _check_plain_depth(node, self.limits)
        self.document_sizes.append(size)
        return self.construct_document(node) if node is not None else None


FAST = _libyaml_limits_nesting()
"""libyaml composes (and limits nesting) itself; else the Python composer with our limits."""


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
