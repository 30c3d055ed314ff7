"""Code the standard library compiles from generated source, kept on disk like bytecode.

On the way to the TUI's first frame, ``dataclasses`` writes every method of ~50 classes
(Textual's messages, events and widgets) as source and ``exec``\\ s it, ``namedtuple``
``eval``\\ s the ``__new__`` of ~70 tuple types, and ``typing`` compiles ~400 forward
references (the string annotations ``get_type_hints`` reads): ~100 M instructions, 6 % of
the start (issue 11 item 5). A code object depends only on its source text, mode, file name
and compiler flags, for one build of Python, and ``marshal`` stores it as a ``.pyc`` does.
So the first start records the code it compiled, and the next ones take it from the file.

How: in those modules alone, the name ``exec`` (``eval``, ``compile``) is shadowed by a
function of this module — a module's global comes before the builtin of that name. It
compiles as the builtin would (the caller's ``__future__`` flags, which the builtin inherits
from the frame that calls it; ``eval``'s leading blanks stripped), or takes the code compiled
that way from the file, and hands the code object to the builtin with the caller's globals
and locals where the caller gave none. An error is raised by Python's compiler as before.

Installed by ``ksandbox.cli`` before its imports (``typing``, ``collections``) and before the
TUI is imported (``dataclasses``, which only the TUI uses). The file is one per Python
build (``sys.version`` in its header) with a CRC of its body, read at the first use, and
written the way bytecode is (not under PYTHONDONTWRITEBYTECODE, not into a read-only
package), by the TUI after its first frame; recording stops there. A crafted file could run
code, as a crafted ``.pyc`` next to it could: the same trust.
No ksandbox imports: the CLI installs it before any other.
"""

from __future__ import annotations
import __future__

import operator
import sys
from types import CodeType, ModuleType
from typing import Any

from . import stamped_file

_FORMAT = 1
_MAX_RECORDED = 3000
"""Code objects recorded before the first save at most (a start compiles ~650)."""

_FUTURE = 0
for _feature in __future__.all_feature_names:
    _FUTURE |= getattr(__future__, _feature).compiler_flag
del _feature
"""The compiler flags of ``__future__`` imports: what ``exec``, ``eval`` and ``compile``
inherit from the calling frame (CPython's PyCF_MASK)."""

_HOOKS = {"collections": "eval", "typing": "compile", "dataclasses": "exec"}
"""The modules whose generated code is cached, and the builtin each calls on its source
(namedtuple's ``__new__``, a ForwardRef, a dataclass's methods)."""

_builtin_exec, _builtin_eval, _builtin_compile = exec, eval, compile

Key = tuple[str, str, str, int, int]
"""source, file name, mode, compiler flags, optimization level."""


def _stamp() -> bytes:
    return f"ksandbox-code {_FORMAT} {sys.version}\n".encode()


def _path() -> str:
    return stamped_file.cache_path("code")


def read(path: str) -> dict[Key, Any]:
    """The table in ``path``; an empty one when it is missing, of another Python, damaged or
    not ours. Its values are checked when used."""
    table = stamped_file.read(path, _stamp())
    return table if type(table) is dict else {}


class CodeCache:
    """The recorded code objects, and Python's compiler for what is not among them."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._table: dict[Key, Any] | None = None     # read at the first use
        self.recording = True
        self.added = 0
        self._used: set[Key] = set()
        """Keys taken from the file or recorded: when the file holds more than twice as
        many, :meth:`save` keeps only these."""

    @property
    def table(self) -> dict[Key, Any]:
        if self._table is None:
            self._table = read(self.path)
        return self._table

    def code(self, source: str, filename: str, mode: str, flags: int) -> CodeType:
        """``compile(source, filename, mode, flags, dont_inherit=True)``, from the file when
        it holds it."""
        key = (source, filename, mode, flags, sys.flags.optimize)
        table = self.table
        hit = table.get(key)
        if type(hit) is CodeType:
            if self.recording:
                self._used.add(key)
            return hit
        code = _builtin_compile(source, filename, mode, flags, True)
        if self.recording and self.added < _MAX_RECORDED:
            table[key] = code
            self._used.add(key)
            self.added += 1
        return code

    def save(self) -> None:
        """Write the file if this process recorded anything (and may write bytecode); stop
        recording either way: the code worth keeping is the start's."""
        self.recording = False
        if not self.added or sys.dont_write_bytecode:
            return
        table = self.table
        if len(table) > 2 * len(self._used):
            table = {k: v for k, v in table.items() if k in self._used}
        if stamped_file.write(self.path, _stamp(), table):
            self.added = 0


_CACHE: CodeCache | None = None


def _exec(source: Any, /, globals: Any = None, locals: Any = None, **kw: Any) -> Any:
    """``exec`` as the module that calls it would run it."""
    caller = sys._getframe(1)
    if type(source) is str and _CACHE is not None:
        source = _CACHE.code(source, "<string>", "exec", caller.f_code.co_flags & _FUTURE)
    if globals is None:          # the builtin's default: the calling frame's namespaces
        globals = caller.f_globals
        if locals is None:
            locals = caller.f_locals
    return _builtin_exec(source, globals, locals, **kw)


def _eval(source: Any, /, globals: Any = None, locals: Any = None) -> Any:
    """``eval`` as the module that calls it would run it."""
    caller = sys._getframe(1)
    if type(source) is str and _CACHE is not None:
        source = _CACHE.code(source.lstrip(" \t"), "<string>", "eval",
                             caller.f_code.co_flags & _FUTURE)
    if globals is None:
        globals = caller.f_globals
        if locals is None:
            locals = caller.f_locals
    return _builtin_eval(source, globals, locals)


def _compile(source: Any, filename: Any, mode: Any, flags: Any = 0, dont_inherit: Any = False,
             optimize: Any = -1, **kw: Any) -> Any:
    """``compile`` as the module that calls it would run it: code objects from the cache,
    anything else (an AST asked for, bytes, an explicit optimization level) from Python."""
    flags = operator.index(flags)       # as the builtin takes it (a TypeError if it cannot)
    if not dont_inherit:
        flags |= sys._getframe(1).f_code.co_flags & _FUTURE
    if type(source) is str and type(filename) is str \
            and not flags & ~_FUTURE and optimize == -1 and not kw \
            and mode in ("exec", "eval", "single") and _CACHE is not None:
        return _CACHE.code(source, filename, mode, flags)
    return _builtin_compile(source, filename, mode, flags, True, optimize, **kw)


_SHADOWS = {"exec": _exec, "eval": _eval, "compile": _compile}


def hook(module: ModuleType) -> None:
    """Route ``module``'s generated code through the cache (one of :data:`_HOOKS`; once the
    cache is installed)."""
    name = _HOOKS.get(module.__name__)
    if name is not None and _CACHE is not None and name not in vars(module):
        setattr(module, name, _SHADOWS[name])


def install(path: str | None = None) -> None:
    """Make the cache (once per process) and route the modules of :data:`_HOOKS` already
    imported through it."""
    global _CACHE
    if _CACHE is None:
        _CACHE = CodeCache(path or _path())
    for name in _HOOKS:
        module = sys.modules.get(name)
        if module is not None:
            hook(module)


def save() -> None:
    if _CACHE is not None:
        _CACHE.save()
