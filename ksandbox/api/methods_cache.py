"""The code attrs generates for our classes, kept on disk like the package's bytecode.

attrs writes each class's ``__init__``, ``__eq__``, ``__hash__``... as Python source and
compiles it when the class is created. ksandbox creates ~180 attrs classes on its way to the
TUI's first frame, and compiling their methods was the largest single cost of starting it
(~0.1–0.2 s, more than importing numpy; issue 11 item 5). The compiled code depends only on the
source attrs writes, so it is stored beside the package's ``__pycache__`` and reused: a class
whose generated source is unchanged loads its code instead of compiling it again.

One part of that source changes from process to process: the per-class constant attrs mixes
into ``__hash__`` (the hash of a string, so salted per process). It is left out of the key and
put back into the loaded code, so every method is exactly the one attrs would have compiled.

The file is written the way bytecode is: not under PYTHONDONTWRITEBYTECODE, not when the
package directory is read-only, one file per Python version. Anything unexpected —
attrs changed its internals, an unreadable or foreign file — falls back to compiling.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import re
import sys
from pathlib import Path
from types import CodeType
from typing import Any, Callable

# attrs' __hash__ source: ``hash((`` then the class's constant on the next line.
_SALT = re.compile(r"(hash\(\(\n[ \t]*)(-?\d+),")
_FORMAT = 1


def _salted(code: CodeType, old: int, new: int) -> CodeType:
    """``code`` with the ``__hash__`` constant ``old`` replaced by ``new`` (nested code too).
    Only the code objects on the way to a ``__hash__`` are rebuilt — the other methods are
    kept as they are (rebuilding every one cost ~0.01 s of each start)."""
    changed = False
    consts = list(code.co_consts)
    for i, c in enumerate(consts):
        if isinstance(c, CodeType):
            salted = _salted(c, old, new)
            if salted is not c:
                consts[i], changed = salted, True
        elif code.co_name == "__hash__" and type(c) is int and c == old:
            consts[i], changed = new, True
    return code.replace(co_consts=tuple(consts)) if changed else code


class MethodsCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, tuple[int, CodeType]] = {}
        self.used: set[str] = set()
        self.added = 0
        try:
            data = marshal.loads(path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return
        if isinstance(data, tuple) and len(data) == 2 and data[0] == _FORMAT \
                and isinstance(data[1], dict):
            self.entries = data[1]

    def compile(self, script: str, filename: str) -> CodeType:
        found = _SALT.search(script)
        salt = int(found.group(2)) if found else 0
        key = filename + "\0" + (_SALT.sub(r"\g<1>0,", script, count=1) if found else script)
        self.used.add(key)
        hit = self.entries.get(key)
        if hit is not None:
            old, code = hit
            return code if old == salt else _salted(code, old, salt)
        code = compile(script, filename, "exec")
        self.entries[key] = (salt, code)
        self.added += 1
        return code

    def save(self) -> None:
        """Write the file if this process compiled anything new (and may write bytecode).
        Entries no run of this version used are dropped once they are half the file."""
        if not self.added or sys.dont_write_bytecode:
            return
        entries = self.entries
        if len(entries) > 2 * len(self.used):
            entries = {k: v for k, v in entries.items() if k in self.used}
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(exist_ok=True)
            tmp.write_bytes(marshal.dumps((_FORMAT, entries)))
            os.replace(tmp, self.path)
        except OSError:
            with contextlib.suppress(OSError):     # no folder at all: nothing to remove
                tmp.unlink(missing_ok=True)
            return
        self.added = 0


_CACHE: MethodsCache | None = None


def install() -> None:
    """Route attrs' compiling through the cache (once; a no-op if attrs changed its
    internals). :func:`save` writes what was compiled.

    When attrs is not imported yet, it is imported here with the cache in place as soon as
    its ``_make`` module has run (:class:`_AfterMake`): attrs makes ~20 classes of its own
    while it is imported (its validators, ``VersionInfo``...), whose methods were compiled on
    every start (~25 M instructions) before the cache could be installed."""
    if _CACHE is not None:
        return
    make = sys.modules.get("attr._make")
    if make is not None:
        _route(make)
        return
    hook = _AfterMake()
    sys.meta_path.insert(0, hook)
    try:
        import attr._make  # noqa: F401 - attrs' own classes are made now, through the cache
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(hook)
    if _CACHE is None and "attr._make" in sys.modules:   # the hook did not see it run
        _route(sys.modules["attr._make"])


class _AfterMake:
    """A one-time import hook: finds ``attr._make`` as the next finders would, and routes
    its compiling through the cache right after the module has run — before the rest of
    attrs' package, which makes classes, is imported. Any other module is left to the other
    finders (``find_spec`` returns None)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "attr._make":
            return None
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        run = getattr(loader, "exec_module", None)
        if run is None:
            return spec

        def exec_module(module: Any) -> None:
            try:
                run(module)
            finally:
                # The loader is this import's own object (a file finder makes one per
                # module); it reads as before once the module has run.
                with contextlib.suppress(AttributeError):
                    del loader.exec_module
            _route(module)

        try:
            loader.exec_module = exec_module
        except AttributeError:          # a loader that takes no attributes: no hook
            pass
        return spec


def _route(make: Any) -> None:
    global _CACHE
    original: Any = getattr(make, "_compile_and_eval", None)
    code = getattr(original, "__code__", None)
    if _CACHE is not None or code is None or \
            code.co_varnames[:4] != ("script", "globs", "locs", "filename"):
        return
    folder = Path(__file__).resolve().parent.parent / "__pycache__"
    # One file per Python (its bytecode); not per attrs version: the key is the whole source
    # attrs wrote, which is all the code depends on (and attr.__version__ would import
    # importlib.metadata, ~0.04 s).
    cache = _CACHE = MethodsCache(folder / f"attrs-methods.{sys.implementation.cache_tag}.bin")

    def compile_and_eval(script: str, globs: Any, locs: Any = None,
                         filename: str = "") -> None:
        try:
            code = (_CACHE or cache).compile(script, filename)
        except Exception:  # noqa: BLE001 - the cache must never stop a class being made
            original(script, globs, locs, filename)
            return
        eval(code, globs, locs)

    make._compile_and_eval = compile_and_eval


def compile_derived(filename: str, origin: str,
                    make: Callable[[], str | None]) -> CodeType | None:
    """The code of ``make()``'s source, a pure function of ``origin`` (and ``filename``),
    remembered by ``origin``: a start with the cache skips ``make`` (codec's rewrite of attrs'
    ``__init__`` is string work on every line of ~100 classes). None when ``make`` says no."""
    cache = _CACHE
    key = "\0derived\0" + filename + "\0" + origin
    if cache is not None:
        hit = cache.entries.get(key)
        cache.used.add(key)
        if hit is not None:
            return hit[1]
    src = make()
    if src is None:
        return None
    code = compile(src, filename, "exec")
    if cache is not None:
        cache.entries[key] = (0, code)
        cache.added += 1
    return code


def save() -> None:
    if _CACHE is not None:
        _CACHE.save()
