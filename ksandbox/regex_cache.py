"""Compiled regular expressions kept on disk, like the package's bytecode (issue 11 item 5).

Textual, Rich and the standard library compile ~100 regular expressions while they are
imported (the CSS tokenizer's expectations, the terminal's key parser, ``platform``,
``textwrap``, ``json``...): ~105 M instructions, 6 % of the TUI's start to its first frame.
CPython keeps no compiled pattern between processes. What the compiler hands the regex
engine, though, is plain data — the engine's code as a list of ints, the flags, the groups
and their names — a pure function of the pattern's text and flags for one build of Python.
So the first start records it (``record`` until ``save``) and the next ones give the engine
the recorded code for the same (text, flags), skipping the parse and the code generation;
the engine checks the code it gets (``_sre`` refuses malformed code), and the pattern is
equal to a compiled one (``Pattern.__eq__`` compares the code; tests/test_regex_cache.py).

Installed by ``ksandbox.cli`` before its imports, as ``re._compiler.compile`` (what
``re.compile`` and every ``re`` function call on a miss of their own cache). What is not
taken from the file is compiled by Python's own steps, in the same frames, so an error or a
warning reads as before. Never cached: a pattern the parser may warn about (a warning shows
once per process, so it must be compiled every time), ``re.DEBUG`` (it prints), anything but
an exact ``str`` or ``bytes``.

The file is one per Python build (``sys.version`` and the engine's MAGIC in its header) with
a CRC of its body; it is written the way bytecode is (not under PYTHONDONTWRITEBYTECODE, not
into a read-only package), once, by the TUI after its first frame. Anything unexpected — an
unreadable, foreign or damaged file, another ``re`` — leaves Python's compiler in charge.
No ksandbox imports: the CLI installs it before any other.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Callable

from . import stamped_file

_compiler: Any = None
try:  # CPython's regex compiler (private modules: install() checks they are as expected)
    import _sre  # type: ignore[import-not-found]
    from re import _compiler, _constants, _parser  # type: ignore[attr-defined, no-redef]
except ImportError:  # Python 3.10: sre_compile; the cache stays off
    pass

_FORMAT = 1
_MAX_RECORDED = 1000
"""Patterns recorded before the first save at most (a start compiles ~110)."""

# Inside a character set "[[", "--", "&&", "~~" and "||" draw a FutureWarning; a conditional
# group's name "(?(" and a bytes pattern's non-ASCII group name a DeprecationWarning
# (re/_parser.py, the same in 3.11-3.13). A pattern with any of these texts is never cached.
_MAY_WARN = ("[[", "--", "&&", "~~", "||", "(?(")

Entry = tuple[int, list[int], int, dict[str, int], tuple[Any, ...]]
"""What ``_sre.compile`` takes after the pattern: flags, code, groups - 1, groupindex,
indexgroup."""


def _stamp() -> bytes:
    return f"ksandbox-regex {_FORMAT} {sys.version} {_sre.MAGIC} {_sre.CODESIZE}\n".encode()


def _path() -> str:
    return stamped_file.cache_path("regex")


def cacheable(pattern: str | bytes, flags: int) -> bool:
    """Whether compiling ``pattern`` can be taken from the file: no warning possible, no
    DEBUG output."""
    if type(flags) is not int or flags & re.DEBUG:
        return False
    if type(pattern) is str:
        return not any(s in pattern for s in _MAY_WARN)
    return pattern.isascii() and not any(s.encode() in pattern for s in _MAY_WARN)


def _entry_ok(entry: Any) -> bool:
    """An entry as :meth:`RegexCache.compile` records it. The code's items are not looked at
    here: ``_sre.compile`` converts each to the engine's code unit (refusing anything else)
    and checks the program they make."""
    if type(entry) is not tuple or len(entry) != 5:
        return False
    flags, code, groups, groupindex, indexgroup = entry
    return (type(flags) is int and type(code) is list and type(groups) is int
            and type(groupindex) is dict and type(indexgroup) is tuple
            and all(type(k) is str and type(v) is int for k, v in groupindex.items())
            and all(g is None or type(g) is str for g in indexgroup))


def read(path: str) -> tuple[dict[tuple[str, int], Entry], dict[tuple[bytes, int], Entry]]:
    """The tables in ``path``; empty ones when it is missing, of another Python, damaged or
    not ours."""
    empty: tuple[dict[Any, Entry], dict[Any, Entry]] = ({}, {})
    entries = stamped_file.read(path, _stamp())
    # Two tables (text and bytes patterns); each entry is checked when it is used.
    if type(entries) is not tuple or len(entries) != 2 or \
            not all(type(t) is dict for t in entries):
        return empty
    return entries


class RegexCache:
    """The recorded compilations, and Python's compiling steps for what is not in them."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.text, self.binary = read(path)
        self.recording = True
        self.added = 0
        self._used: tuple[set[Any], set[Any]] = (set(), set())
        """Patterns taken from the file or recorded (text, bytes: a str is never compared
        with bytes): when the file holds more than twice as many, :meth:`save` keeps only
        these (a pattern no start compiles any more)."""

    def compile(self, p: Any, flags: int = 0) -> Any:
        """``re._compiler.compile``: the recorded code for (``p``, ``flags``) if there is
        one, else Python's steps (its parser and code generator, called from this frame as
        from the original's, so a warning points where it did)."""
        kind = type(p)
        table: dict[Any, Entry] | None = self.text if kind is str else \
            self.binary if kind is bytes else None
        if table is None or flags & re.DEBUG:
            return _plain_compile(p, flags)
        key = (p, flags)
        hit = table.get(key)
        if hit is not None:
            try:
                if _entry_ok(hit):
                    # A fresh groupindex per pattern, as Python's compiler gives each one.
                    pattern = _sre.compile(p, hit[0], hit[1], hit[2], dict(hit[3]), hit[4])
                    if self.recording:
                        self._used[kind is bytes].add(key)
                    return pattern
            except Exception:  # noqa: BLE001 - code the engine refuses: compile it afresh
                pass
            table.pop(key, None)
        parsed = _parser.parse(p, flags)
        code = _compiler._code(parsed, flags)
        state = parsed.state
        groupindex = state.groupdict
        indexgroup: list[Any] = [None] * state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        entry = (flags | state.flags, code, state.groups - 1, groupindex, tuple(indexgroup))
        if self.recording and self.added < _MAX_RECORDED and cacheable(p, flags):
            # The opcodes are ints of a named subclass (re._constants): kept as plain ints,
            # the same code units to the engine.
            table[key] = (entry[0], [int(c) for c in code], entry[2], dict(groupindex),
                          entry[4])
            self._used[kind is bytes].add(key)
            self.added += 1
        return _sre.compile(p, *entry)

    def save(self) -> None:
        """Write the file if this process recorded anything (and may write bytecode); stop
        recording either way: the patterns worth keeping are the start's."""
        self.recording = False
        if not self.added or sys.dont_write_bytecode:
            return
        tables: list[dict[Any, Entry]] = [self.text, self.binary]
        if len(self.text) + len(self.binary) > 2 * sum(map(len, self._used)):
            tables = [{k: v for k, v in t.items() if k in used}
                      for t, used in zip(tables, self._used)]
        if stamped_file.write(self.path, _stamp(), tuple(tables)):
            self.added = 0


_CACHE: RegexCache | None = None
_plain_compile: Callable[..., Any] = _compiler.compile if _compiler is not None else re.compile


def _compiler_is_known() -> bool:
    """``re._compiler.compile`` is still the one this module mirrors (its parse, code
    generation and ``_sre.compile`` call, unchanged in 3.11-3.13)."""
    if _compiler is None:
        return False
    code = getattr(_compiler.compile, "__code__", None)
    return (code is not None and code.co_varnames[:2] == ("p", "flags")
            and all(hasattr(m, a) for m, a in ((_parser, "parse"), (_compiler, "_code"),
                                               (_sre, "compile"), (_sre, "MAGIC"),
                                               (_sre, "CODESIZE")))
            and _constants.MAGIC == _sre.MAGIC)


def install(path: str | None = None) -> None:
    """Put the cache in front of Python's regex compiler (once per process)."""
    global _CACHE
    if _CACHE is not None or not _compiler_is_known():
        return
    _CACHE = RegexCache(path or _path())
    _compiler.compile = _CACHE.compile


def save() -> None:
    if _CACHE is not None:
        _CACHE.save()
