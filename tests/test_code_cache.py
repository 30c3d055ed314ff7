"""Code compiled from the disk cache is the code Python compiles, run as Python runs it.

``ksandbox/code_cache.py`` keeps the code objects ``dataclasses``, ``namedtuple`` and
``typing`` compile from generated source, and shadows ``exec`` / ``eval`` / ``compile`` in
those modules. These tests hold what makes that safe: the methods and forward references
made through it equal those made without it (code objects compare their bytecode,
constants, names and line table), the caller's ``__future__`` flags and namespaces are the
builtin's, errors come from Python's compiler, a damaged, foreign or hostile file is
ignored, and nothing is written where bytecode may not be.
"""

from __future__ import annotations

import ast
import collections
import contextlib
import dataclasses
import marshal
import subprocess
import sys
import typing
import zlib
from pathlib import Path
from typing import Any, Iterator

import pytest

from ksandbox import code_cache

ROOT = Path(__file__).resolve().parent.parent
HOOKED = [(dataclasses, "exec"), (collections, "eval"), (typing, "compile")]


@pytest.fixture(autouse=True)
def may_write(monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


@contextlib.contextmanager
def _through(cache: code_cache.CodeCache | None) -> Iterator[None]:
    """The three modules routed through ``cache`` (None: Python's builtins, unshadowed)."""
    saved_cache = code_cache._CACHE
    saved = [m.__dict__.get(name) for m, name in HOOKED]
    code_cache._CACHE = cache
    for m, name in HOOKED:
        if cache is None:
            m.__dict__.pop(name, None)
        else:
            setattr(m, name, code_cache._SHADOWS[name])
    try:
        yield
    finally:
        code_cache._CACHE = saved_cache
        for (m, name), old in zip(HOOKED, saved):
            if old is None:
                m.__dict__.pop(name, None)
            else:
                setattr(m, name, old)


def _three_ways(path: Path, make: Any) -> tuple[Any, Any, code_cache.CodeCache]:
    """``make()`` by Python alone, then through a cache that records and saves, then through
    the next process's cache reading that file: (plain, from the file, that cache)."""
    with _through(None):
        plain = make()
    first = code_cache.CodeCache(str(path))
    with _through(first):
        make()
    assert first.added
    first.save()
    second = code_cache.CodeCache(str(path))
    with _through(second):
        cached = make()
    assert second.added == 0 and second._used    # every code object came from the file
    return plain, cached, second


def _point() -> type:
    @dataclasses.dataclass(frozen=True, order=True)
    class Point:
        x: int
        tags: list[str] = dataclasses.field(default_factory=list, compare=False)
        z: float = 0.5

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError("negative")
    return Point


def _counter() -> type:
    @dataclasses.dataclass(slots=True, kw_only=True)
    class Counter:
        name: str
        count: int = 0
    return Counter


METHODS = ("__init__", "__repr__", "__eq__", "__lt__", "__le__", "__gt__", "__ge__",
           "__hash__", "__setattr__", "__delattr__")


def test_a_dataclass_from_the_cache_is_the_one_python_makes(tmp_path):
    plain, cached, _ = _three_ways(tmp_path / "code.bin", lambda: (_point(), _counter()))
    for a, b in zip(plain, cached):
        for name in METHODS:
            fa, fb = a.__dict__.get(name), b.__dict__.get(name)
            assert (fa is None) == (fb is None), name
            if fa is not None and hasattr(fa, "__code__"):
                assert fa.__code__ == fb.__code__, name
                assert (fa.__qualname__, fa.__annotations__, fa.__defaults__,
                        fa.__kwdefaults__) == (fb.__qualname__, fb.__annotations__,
                                               fb.__defaults__, fb.__kwdefaults__), name
    point, counter = cached
    p = point(2, ["a"])
    assert repr(p).endswith("Point(x=2, tags=['a'], z=0.5)")
    assert p == point(2) and p < point(3) and hash(p) == hash(point(2, ["b"]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 3                                  # type: ignore[misc]
    with pytest.raises(ValueError, match="negative"):
        point(-1)
    c = counter(name="n")
    assert (c.count, repr(c).endswith("Counter(name='n', count=0)")) == (0, True)
    with pytest.raises(TypeError):
        counter("n")                             # keyword-only, as made by Python


def test_a_named_tuple_from_the_cache_is_the_one_python_makes(tmp_path):
    def make() -> type:
        return collections.namedtuple("Pair", "left right", defaults=(None,))

    plain, cached, _ = _three_ways(tmp_path / "code.bin", make)
    assert plain.__new__.__code__ == cached.__new__.__code__
    assert plain.__new__.__defaults__ == cached.__new__.__defaults__
    assert cached(1) == (1, None) and cached(1, 2).right == 2


def test_a_forward_reference_from_the_cache_is_the_one_python_compiles(tmp_path):
    class Holder:
        a: dict[str, list[int]]
        b: typing.Optional[Holder]               # noqa: UP045 - a string to resolve

    def make() -> tuple[Any, dict[str, Any]]:
        ref = typing.ForwardRef("dict[str, list[int]]")
        return ref.__forward_code__, typing.get_type_hints(Holder, localns={"Holder": Holder})

    plain, cached, cache = _three_ways(tmp_path / "code.bin", make)
    assert plain == cached
    assert ("dict[str, list[int]]", "<string>", "eval", 0, sys.flags.optimize) in cache.table


def test_errors_come_from_pythons_compiler(tmp_path):
    def bad() -> str:
        with pytest.raises(SyntaxError) as raised:
            typing.ForwardRef("1 +")
        return str(raised.value)

    with _through(None):
        plain = bad()
    cache = code_cache.CodeCache(str(tmp_path / "code.bin"))
    with _through(cache):
        assert bad() == plain
    assert not cache.table                       # nothing recorded for it
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        code_cache._compile("x", "<s>", "eval", "0")


def _run_as_module(source: str, shadows: bool, cache: code_cache.CodeCache) -> dict[str, Any]:
    """``source`` run as a module's code whose ``exec``/``eval``/``compile`` are the cache's
    (or the builtins); its namespace after."""
    namespace: dict[str, Any] = {"__name__": "probe"}
    if shadows:
        namespace.update(code_cache._SHADOWS)
    saved = code_cache._CACHE
    code_cache._CACHE = cache
    try:
        exec(compile(source, "<probe>", "exec", dont_inherit=True), namespace)  # noqa: S102
    finally:
        code_cache._CACHE = saved
    return namespace


PROBES = {
    # The generated functions' annotations: objects, or strings under the future import.
    "exec": "def run():\n    ns = {}\n    exec('def f(x: int) -> list[int]: pass', ns)\n"
            "    return ns['f'].__annotations__\nresult = run()\n",
    "compile": "code = compile('def f(x: int): pass', '<s>', 'exec')\nns = {}\n"
               "exec(code, ns)\nresult = ns['f'].__annotations__\n",
    # barry_as_FLUFL makes `<>` the only inequality: a flag the parser itself reads.
    "eval": "try:\n    result = eval('  1 <> 2')\nexcept SyntaxError as e:\n"
            "    result = 'SyntaxError'\n",
    # No globals given: the builtin's are the calling frame's.
    "namespaces": "marker = object()\nns = {}\nexec('seen = marker', None, ns)\n"
                  "exec('here = 1')\nresult = (ns['seen'] is marker, here, "
                  "eval('marker') is marker)\n",
}


FUTURES = ("", "from __future__ import annotations\n", "from __future__ import barry_as_FLUFL\n")


def test_the_callers_future_flags_and_namespaces_are_the_builtins(tmp_path):
    """Each probe from modules with and without future imports, through one cache (so the
    same text compiled under other flags is another entry), then from the file it saved."""
    path = tmp_path / "code.bin"
    runs = [(future + PROBES[probe], probe) for probe in sorted(PROBES) for future in FUTURES]
    cache = code_cache.CodeCache(str(path))
    plain = {}
    for source, _ in runs:
        plain[source] = _run_as_module(source, False, cache)["result"]
        assert _run_as_module(source, True, cache)["result"] == plain[source], source
    assert plain[PROBES["exec"]] != plain[FUTURES[1] + PROBES["exec"]]   # the flags matter
    assert plain[FUTURES[2] + PROBES["eval"]] is True
    assert plain[PROBES["namespaces"]] == (True, 1, True)
    cache.save()
    again = code_cache.CodeCache(str(path))
    for source, _ in runs:
        assert _run_as_module(source, True, again)["result"] == plain[source], source
    assert again.added == 0 and again._used


def test_what_is_not_code_from_text_is_pythons(tmp_path):
    cache = code_cache.CodeCache(str(tmp_path / "code.bin"))
    with _through(cache):
        tree = code_cache._compile("x = 1", "<s>", "exec", ast.PyCF_ONLY_AST)
        assert isinstance(tree, ast.Module)
        assert code_cache._compile(b"x = 1", "<s>", "exec") == compile(b"x = 1", "<s>", "exec")
        optimized = code_cache._compile("assert x", "<s>", "exec", optimize=2)
        assert optimized == compile("assert x", "<s>", "exec", optimize=2)
        assert code_cache._eval(compile("2 * 3", "<s>", "eval"), {}) == 6
    assert not cache.table


def _write(path: Path, body: bytes, stamp: bytes | None = None) -> None:
    stamp = code_cache._stamp() if stamp is None else stamp
    path.write_bytes(stamp + zlib.crc32(body).to_bytes(4, "little") + body)


def test_a_damaged_foreign_or_hostile_file_is_ignored(tmp_path):
    path = tmp_path / "code.bin"
    _three_ways(path, _point)
    data = path.read_bytes()
    cases = {
        "truncated": data[:len(data) // 2],
        "a flipped byte": data[:-3] + bytes([data[-3] ^ 1]) + data[-2:],
        "another Python": data.replace(b"ksandbox-code", b"ksandbox-codE", 1),
        "empty": b"",
    }
    for name, content in cases.items():
        path.write_bytes(content)
        assert code_cache.CodeCache(str(path)).table == {}, name
    key = ("1 + 1", "<string>", "eval", 0, sys.flags.optimize)
    _write(path, marshal.dumps([key]))
    assert code_cache.CodeCache(str(path)).table == {}       # not a table
    _write(path, marshal.dumps({key: "not code"}))
    cache = code_cache.CodeCache(str(path))
    assert cache.code(*key[:4]) == compile("1 + 1", "<string>", "eval", dont_inherit=True)
    assert type(cache.table[key]) is type(compile("", "", "exec"))   # compiled afresh


def test_written_once_like_bytecode(tmp_path, monkeypatch):
    path = tmp_path / "sub" / "code.bin"
    cache = code_cache.CodeCache(str(path))
    cache.code("x = 1", "<s>", "exec", 0)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache.save()
    assert not path.exists()                      # PYTHONDONTWRITEBYTECODE: never written
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    cache = code_cache.CodeCache(str(path))
    cache.code("x = 1", "<s>", "exec", 0)
    cache.save()
    assert path.exists()
    cache.code("y = 2", "<s>", "exec", 0)         # after the save: the start is over
    assert len(cache.table) == 1
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o500)
    try:
        ro = code_cache.CodeCache(str(tmp_path / "ro" / "code.bin"))
        ro.code("z = 3", "<s>", "exec", 0)
        ro.save()                                 # a read-only package: quietly not written
    finally:
        (tmp_path / "ro").chmod(0o700)


def test_code_no_start_compiles_any_more_is_dropped(tmp_path):
    path = tmp_path / "code.bin"
    first = code_cache.CodeCache(str(path))
    for i in range(5):
        first.code(f"old = {i}", "<s>", "exec", 0)
    first.code("kept = 1", "<s>", "exec", 0)
    first.save()
    second = code_cache.CodeCache(str(path))
    second.code("kept = 1", "<s>", "exec", 0)     # from the file
    second.code("new = 1", "<s>", "exec", 0)      # recorded
    second.save()                                 # 7 entries, 2 used: the old ones go
    third = code_cache.CodeCache(str(path))
    assert sorted(k[0] for k in third.table) == ["kept = 1", "new = 1"]


def test_the_cli_routes_the_modules_before_the_tui_is_imported():
    """Importing the CLI routes typing and namedtuple (imported by then) through the cache,
    without importing dataclasses (the headless commands never use it); opening the TUI
    routes dataclasses before Textual is imported, so its messages' methods come from the
    cache."""
    probe = """
import sys, types
import ksandbox.cli as cli, ksandbox.code_cache as cc
import collections, typing
print(typing.compile is cc._compile, collections.eval is cc._eval,
      "dataclasses" in sys.modules)
fake = types.ModuleType("ksandbox.tui.app")
def run_tui(session, **opts):
    import textual.app  # noqa: F401 - makes Textual's dataclasses
    print(any(k[0].startswith("def __create_fn__") for k in cc._CACHE._used))
    return 0
fake.run_tui = run_tui
sys.modules["ksandbox.tui.app"] = fake
cli._run_tui(None)
"""
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "False", "True"]
