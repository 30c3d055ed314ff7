"""A regular expression compiled from the disk cache is the one Python compiles.

``ksandbox/regex_cache.py`` keeps what Python's regex compiler hands the engine (code, flags,
groups) so a start need not parse the same patterns again. These tests hold what makes that
safe: a pattern from the cache is equal to Python's (``Pattern.__eq__`` compares the engine's
code) and matches the same, errors and warnings come as before, a damaged, foreign or hostile
file is ignored, and nothing is written where bytecode may not be.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ksandbox import regex_cache

ROOT = Path(__file__).resolve().parent.parent
plain = regex_cache._plain_compile

# Patterns of every kind the engine has: sets, classes, groups named and not, references,
# lookarounds, lazy and possessive repeats, atomic groups, anchors, flags inline and passed.
SAMPLES: list[tuple[str | bytes, int]] = [
    (r"", 0), (r"a", 0), (r"a|b|", 0), (r"[a-z0-9_]+", 0), (r"[^\]\\]*", 0),
    (r"(?P<name>\w+)=(?P<value>.*?)(?:;|$)", 0), (r"(a)(b)?(?(2)c|d)", 0),
    (r"(?P<q>['\"])(.*)(?P=q)", 0), (r"(?<=x)y(?=z)(?!w)(?<!v)", 0), (r"a{2,5}?b*+c?+", 0),
    (r"(?>ab|a)c", 0), (r"^\s*#.*$", re.M), (r"\bword\B", re.I), (r"(?i)mixed(?-i:Case)", 0),
    (r"[\x00-\x7f]+", 0), (r"\d+(\.\d+)?", re.A), (r"caf\u00e9", re.I | re.U),
    (r"""
        (?P<num>[0-9]+)   # a number
        \s* [+*/-] \s*    # an operator
     """, re.X), (r".+", re.S), (rb"[\x00-\x1f]", 0), (rb"(?P<k>\w+):", 0),
    (r"(a|b)*?\1", 0), (r"[[:alpha:]]", 0),
]
SAMPLES = [(p, int(f)) for p, f in SAMPLES]       # re._compile hands the compiler an int
TEXTS = ["", "a", "ab", "abc", "name=value;", "x y", "'quoted'", "aab", "CASE mixedCase",
         "123.45", "café", "#comment\nline", "aaaaab", "xyz", "word words"]


def _same(a: re.Pattern, b: re.Pattern) -> None:
    assert a == b                                 # pattern, flags and the engine's code
    assert (a.flags, a.groups, dict(a.groupindex)) == (b.flags, b.groups, dict(b.groupindex))
    for text in TEXTS:
        subject: str | bytes = text.encode() if isinstance(a.pattern, bytes) else text
        if isinstance(subject, bytes) and not subject.isascii():
            continue
        ma, mb = a.search(subject), b.search(subject)
        assert (ma and (ma.span(), ma.groups())) == (mb and (mb.span(), mb.groups()))


def _cached(path: Path, pattern, flags: int = 0):
    """``pattern`` recorded by one process's cache, saved, then compiled by the next's."""
    first = regex_cache.RegexCache(str(path))
    first.compile(pattern, flags)
    first.save()
    second = regex_cache.RegexCache(str(path))
    return second, second.compile(pattern, flags)


@pytest.fixture(autouse=True)
def may_write(monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


@pytest.mark.parametrize("pattern, flags", SAMPLES)
def test_a_pattern_from_the_cache_is_the_one_python_compiles(tmp_path, pattern, flags):
    if not regex_cache.cacheable(pattern, flags):
        pytest.skip("the parser may warn about it: never cached (tested below)")
    cache, compiled = _cached(tmp_path / "re.bin", pattern, flags)
    table = cache.text if isinstance(pattern, str) else cache.binary
    assert (pattern, flags) in table              # it came from the file
    _same(compiled, plain(pattern, flags))


# A small grammar of patterns: enough to reach groups, sets, repeats, lookarounds and
# references in many combinations.
_atom = st.sampled_from(["a", "b", ".", r"\d", r"\w", r"\s", "[ab]", "[^a-c]", r"\.", "^", "$",
                         r"\b", "(?:a|b)", "(x)", "(?P<n>y)"])
_piece = st.tuples(_atom, st.sampled_from(["", "*", "+", "?", "*?", "{1,3}", "{2}", "++"])) \
    .map("".join)
_branch = st.lists(_piece, max_size=5).map("".join)
_pattern = st.one_of(
    st.lists(_branch, min_size=1, max_size=3).map("|".join),
    st.tuples(_branch, st.sampled_from(["(?=", "(?!", "(?<=a", "(?<!b", "("]), _branch)
    .map(lambda t: f"{t[0]}{t[1]}{t[2]})"),
)


@settings(max_examples=150, deadline=None)
@given(pattern=_pattern, flags=st.sampled_from([0, re.I, re.M | re.S, re.A, re.X]).map(int))
def test_generated_patterns_from_the_cache_equal_pythons(tmp_path_factory, pattern, flags):
    path = tmp_path_factory.mktemp("re") / "re.bin"
    try:
        expected = plain(pattern, flags)
    except re.error as exc:
        # An invalid pattern is refused with Python's message, and never recorded.
        with pytest.raises(re.error, match=re.escape(str(exc))):
            regex_cache.RegexCache(str(path)).compile(pattern, flags)
        return
    cache, compiled = _cached(path, pattern, flags)
    assert ((pattern, flags) in cache.text) == regex_cache.cacheable(pattern, flags)
    _same(compiled, expected)


@pytest.mark.parametrize("pattern", ["[[a]", "[!--]", "[a&&b]", "[a||b]", "[a~~b]", "[a-z--]"])
def test_a_pattern_that_warns_warns_every_time_and_is_never_cached(tmp_path, pattern):
    cache = regex_cache.RegexCache(str(tmp_path / "re.bin"))
    for _ in range(2):
        with pytest.warns(FutureWarning):
            cache.compile(pattern, 0)
        assert not cache.text
    cache.save()
    assert not (tmp_path / "re.bin").exists()     # nothing was recorded
    # Through re with the CLI's cache installed: Python's warning, pointing at the caller's
    # line as without the cache.
    code = f"""
import re, warnings
def caller():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        re.compile({pattern!r})
    print([(w.category.__name__, str(w.message), w.filename, w.lineno) for w in caught])
caller()
"""
    installed = _installed_in_a_fresh_process(code)
    # (two lines first, as _installed_in_a_fresh_process puts its own two)
    assert installed == _in_a_fresh_process("import re\nimport sys\n" + code)
    assert "FutureWarning" in installed and "'<string>', 8)" in installed


def _in_a_fresh_process(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def _installed_in_a_fresh_process(code: str) -> str:
    return _in_a_fresh_process("import ksandbox.cli, re, ksandbox.regex_cache as rc\n"
                               "assert re._compiler.compile == rc._CACHE.compile\n" + code)


def test_errors_and_everything_not_cached_are_pythons(tmp_path):
    cache = regex_cache.RegexCache(str(tmp_path / "re.bin"))
    with pytest.raises(re.error, match="missing \\), unterminated subpattern at position 0"):
        cache.compile("(a", 0)

    class Text(str):
        pass

    _same(cache.compile(Text("ab+"), 0), plain("ab+", 0))    # a str subclass: not recorded
    _same(cache.compile("a", 0), plain("a", 0))
    assert list(cache.text) == [("a", 0)]
    assert not regex_cache.cacheable("a", re.DEBUG) and not regex_cache.cacheable(b"\xe9", 0)
    assert not regex_cache.cacheable("a", re.I)   # a RegexFlag, not an int: not recorded


def test_debug_prints_as_before(tmp_path, capsys):
    cache = regex_cache.RegexCache(str(tmp_path / "re.bin"))
    cache.compile("ab", int(re.DEBUG))
    assert "LITERAL 97" in capsys.readouterr().out
    assert not cache.text


def _write(path: Path, body: bytes, stamp: bytes | None = None, crc: int | None = None):
    import zlib
    stamp = regex_cache._stamp() if stamp is None else stamp
    crc = zlib.crc32(body) if crc is None else crc
    path.write_bytes(stamp + crc.to_bytes(4, "little") + body)


def test_a_damaged_foreign_or_hostile_file_is_ignored(tmp_path):
    import marshal
    path = tmp_path / "re.bin"
    good, compiled = _cached(path, r"(?P<x>a+)b", 0)
    data = path.read_bytes()
    entry = good.text[(r"(?P<x>a+)b", 0)]
    bad_code = list(entry[1])
    bad_code[0] = 999_999                         # not an opcode the engine knows
    cases = {
        "truncated": data[:len(data) // 2],
        "a flipped byte": data[:-3] + bytes([data[-3] ^ 1]) + data[-2:],
        "another Python": data.replace(b"ksandbox-regex", b"ksandbox-regeX", 1),
        "empty": b"",
    }
    for name, content in cases.items():
        path.write_bytes(content)
        cache = regex_cache.RegexCache(str(path))
        assert not cache.text and not cache.binary, name
        _same(cache.compile(r"(?P<x>a+)b", 0), compiled)
    hostile = {
        "not two tables": marshal.dumps([1, 2]),
        "code the engine refuses": marshal.dumps(({(r"(?P<x>a+)b", 0): (entry[0], bad_code,
                                                                         *entry[2:])}, {})),
        "wrong types": marshal.dumps(({(r"(?P<x>a+)b", 0): ("0", entry[1], 1, [], ())}, {})),
        "a foreign group name": marshal.dumps(({(r"(?P<x>a+)b", 0): (*entry[:3], {"x": "1"},
                                                                    entry[4])}, {})),
        "a short entry": marshal.dumps(({(r"(?P<x>a+)b", 0): entry[:2]}, {})),
        "a code item not an int": marshal.dumps(({(r"(?P<x>a+)b", 0): (entry[0], ["x"],
                                                                        *entry[2:])}, {})),
    }
    for name, body in hostile.items():
        _write(path, body)
        cache = regex_cache.RegexCache(str(path))
        _same(cache.compile(r"(?P<x>a+)b", 0), compiled)
        assert cache.text.get((r"(?P<x>a+)b", 0)) in (None, entry), name


def test_written_once_like_bytecode(tmp_path, monkeypatch):
    path = tmp_path / "sub" / "re.bin"
    cache = regex_cache.RegexCache(str(path))
    cache.compile("x+", 0)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache.save()
    assert not path.exists()                      # PYTHONDONTWRITEBYTECODE: never written
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    cache = regex_cache.RegexCache(str(path))
    cache.compile("x+", 0)
    cache.save()
    assert path.exists()
    cache.compile("y+", 0)                        # after the save: the start is over
    assert ("y+", 0) not in cache.text
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o500)
    try:
        ro = regex_cache.RegexCache(str(tmp_path / "ro" / "re.bin"))
        ro.compile("z+", 0)
        ro.save()                                 # a read-only package: quietly not written
    finally:
        (tmp_path / "ro").chmod(0o700)


def test_the_cli_installs_the_cache_before_its_imports():
    """Importing the CLI puts the cache in front of Python's compiler before json and attrs
    (its platform) are imported, so their patterns are the cache's too; it records until the
    TUI saves it."""
    out = _installed_in_a_fresh_process("""
import json.scanner, platform
keys = rc._CACHE.text
number = json.scanner.NUMBER_RE
print((number.pattern, number.flags & ~re.U) in keys,
      (platform._component_re.pattern, 0) in keys, rc._CACHE.recording)
""")
    assert out == "True True True"


def test_patterns_no_start_compiles_any_more_are_dropped(tmp_path):
    path = tmp_path / "re.bin"
    first = regex_cache.RegexCache(str(path))
    for i in range(5):
        first.compile(f"old{i}+", 0)
    first.compile(b"kept+", 0)
    first.save()
    second = regex_cache.RegexCache(str(path))
    assert len(second.text) == 5 and list(second.binary) == [(b"kept+", 0)]
    second.compile(b"kept+", 0)                   # from the file
    second.compile("new+", 0)                     # recorded
    second.save()                                 # 7 entries, 2 used: the old ones go
    third = regex_cache.RegexCache(str(path))
    assert list(third.text) == [("new+", 0)] and list(third.binary) == [(b"kept+", 0)]
    _same(third.compile(b"kept+", 0), plain(b"kept+", 0))
