"""attrs' generated methods come from the disk cache exactly as attrs would compile them.

``ksandbox/api/methods_cache.py`` keeps the code attrs generates for each class
(``__init__``, ``__eq__``, ``__hash__``...) so a start need not compile it again. These tests
hold what makes that safe: a class made from the cache behaves as one attrs compiled — equal,
hashed with this process's per-class constant, repr and init unchanged —, a changed class is
compiled afresh, a damaged file is ignored, and nothing is written where bytecode may not be.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from ksandbox.api import methods_cache

ROOT = Path(__file__).resolve().parents[2]


def _make_class(extra: bool = False):
    """A frozen class, made anew each call (same module and name, so the same source)."""
    if extra:
        @attrs.frozen
        class Sample:
            name: str
            size: int = 3
            note: str = ""
    else:
        @attrs.frozen
        class Sample:  # type: ignore[no-redef]
            name: str
            size: int = 3
    return Sample


def _salt(cls) -> int:
    return hash(f"<attrs generated hash {cls.__module__}.{cls.__qualname__}>")


@pytest.fixture
def cache_at(tmp_path, monkeypatch):
    def use(path=tmp_path / "methods.bin"):
        cache = methods_cache.MethodsCache(path)
        monkeypatch.setattr(methods_cache, "_CACHE", cache)
        return cache
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return use


def test_a_class_made_from_the_cache_is_the_one_attrs_compiles(cache_at, tmp_path):
    first = cache_at()
    compiled = _make_class()
    assert first.added == 1
    first.save()
    assert (tmp_path / "methods.bin").exists()
    # Another process would have another per-class hash constant: store a different one.
    (key, (salt, code)), = first.entries.items()
    first.entries[key] = (salt + 1, methods_cache._salted(code, salt, salt + 1))
    first.added = 1
    first.save()

    second = cache_at()
    cached = _make_class()
    assert second.added == 0                      # loaded, not compiled
    a, b = cached("web"), cached("web", 3)
    assert a == b and a != cached("db") and a.size == 3
    assert hash(a) == hash((_salt(cached), "web", 3)) == hash(compiled("web"))
    assert repr(a) == repr(compiled("web")) == "Sample(name='web', size=3)"
    with pytest.raises(TypeError):
        cached()                                  # __init__ still requires name
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        a.name = "x"                              # type: ignore[misc]


def test_a_changed_class_is_compiled_afresh(cache_at):
    first = cache_at()
    _make_class()
    first.save()
    second = cache_at()
    changed = _make_class(extra=True)
    assert second.added == 1
    assert changed("web", note="n").note == "n"


def test_a_damaged_file_is_ignored(cache_at, tmp_path):
    path = tmp_path / "methods.bin"
    path.write_bytes(b"\x00not marshal data")
    cache = cache_at(path)
    assert cache.entries == {}
    assert _make_class()("web").size == 3


def test_nothing_is_written_where_bytecode_may_not_be(cache_at, tmp_path, monkeypatch):
    cache = cache_at()
    _make_class()
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache.save()
    assert not (tmp_path / "methods.bin").exists()


def test_a_fresh_interpreter_makes_the_api_classes_from_the_cache(tmp_path):
    """End to end in the package's own file: a start that may write leaves the cache, the
    next start compiles nothing and its classes hash and compare as attrs made them."""
    code = """
import sys
from ksandbox.api import methods_cache
from ksandbox.api.core import Pod
from ksandbox.api.meta import ObjectMeta
methods_cache.save()
p = Pod(metadata=ObjectMeta(name="a", namespace="default"))
salt = hash(f"<attrs generated hash {Pod.__module__}.{Pod.__qualname__}>")
assert salt in Pod.__hash__.__code__.co_consts
assert p == Pod(metadata=ObjectMeta(name="a", namespace="default")) and hash(p) == hash(
    Pod(metadata=ObjectMeta(name="a", namespace="default")))
print(methods_cache._CACHE.added)
"""
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env,
                   capture_output=True, text=True)
    again = subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env,
                           capture_output=True, text=True)
    assert again.stdout.split() == ["0"], again.stderr


def test_attrs_own_classes_are_made_through_the_cache_too():
    """attrs makes classes of its own while it is imported (its validators...): the cache is
    installed as soon as attrs' _make module has run, so those come from it as well; the hook
    leaves no trace (the import system's finders, the module's loader) and the validators
    work as attrs made them."""
    code = """
import sys
meta_path = list(sys.meta_path)
import ksandbox.api
from ksandbox.api import methods_cache
import attr, attr._make as make
assert sys.meta_path == meta_path, sys.meta_path
assert "exec_module" not in vars(make.__loader__) and make.__spec__.loader is make.__loader__
used = sorted(k.split(chr(0))[0] for k in methods_cache._CACHE.used)
assert "<attrs generated methods attr.validators._InstanceOfValidator>" in used, used
v = attr.validators.instance_of(int)
assert v == attr.validators.instance_of(int) and hash(v) == hash(attr.validators.instance_of(int))
assert repr(v) == "<instance_of validator for type <class 'int'>>"
try:
    v(None, attr.fields(attr.VersionInfo).year, "x")
except TypeError as exc:
    print(exc.args[0])
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("'year' must be <class 'int'> (got 'x' that is a <class")


def test_derived_code_is_remembered_by_its_origin(tmp_path: Path, monkeypatch) -> None:
    """compile_derived (codec's rewritten attrs __init__): the source is made once per origin
    and cache file; a later process reading the file gets the same code without making it;
    a refusal (None) is not remembered."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    cache = methods_cache.MethodsCache(tmp_path / "m.bin")
    monkeypatch.setattr(methods_cache, "_CACHE", cache)
    made: list[str] = []

    def make(text: str):
        def fn():
            made.append(text)
            return text
        return fn

    src = "def f():\n    return 41 + 1\n"
    code = methods_cache.compile_derived("<derived f>", "origin-1", make(src))
    assert made == [src] and code is not None
    again = methods_cache.compile_derived("<derived f>", "origin-1", make("x = 1\n"))
    assert again is code and made == [src]
    other = methods_cache.compile_derived("<derived f>", "origin-2", make("y = 2\n"))
    assert other is not code and made == [src, "y = 2\n"]
    assert methods_cache.compile_derived("<derived g>", "origin-3", lambda: None) is None
    cache.save()
    later = methods_cache.MethodsCache(tmp_path / "m.bin")
    monkeypatch.setattr(methods_cache, "_CACHE", later)
    ns: dict = {}
    exec(methods_cache.compile_derived("<derived f>", "origin-1", make("z = 3\n")), ns)
    assert ns["f"]() == 42 and made == [src, "y = 2\n"]
    assert methods_cache.compile_derived("<derived g>", "origin-3", make("w = 4\n")) \
        is not None   # the refusal was not kept
