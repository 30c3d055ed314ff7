"""The parsed stylesheet from the disk cache is the one Textual parses (ksandbox/tui/css_cache.py).

A start hands Textual the rules the previous start parsed, keyed by the CSS text, where it was
read from, the theme's variables and Textual's code. These tests hold what makes that safe:
the stored rules equal a fresh parse, field by field; a changed CSS text is parsed afresh; a
file made for other variables, another Textual or damaged is ignored; nothing is written
where bytecode may not be; and the app started from the cache renders the same screen
without parsing anything.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import functools
import json
import subprocess
import sys
from pathlib import Path
from types import BuiltinMethodType, MethodType

import pytest
import textual.css.stylesheet
from textual.css.stylesheet import Stylesheet

from ksandbox.tui import css_cache

ROOT = Path(__file__).resolve().parents[2]


def _same(a, b, path="rules", seen=None) -> None:
    """Assert ``a`` and ``b`` are the same value all the way down (objects compared by type
    and attributes: Textual's layouts and selectors' check functions have no ``__eq__``)."""
    seen = set() if seen is None else seen
    if (id(a), id(b)) in seen:
        return
    seen.add((id(a), id(b)))
    assert type(a) is type(b), f"{path}: {type(a)} vs {type(b)}"
    if isinstance(a, (str, bytes, int, float, bool, type(None))) or isinstance(a, type):
        assert a == b, f"{path}: {a!r} vs {b!r}"
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)} vs {list(b)}"
        for k in a:
            _same(a[k], b[k], f"{path}[{k!r}]", seen)
    elif isinstance(a, (set, frozenset)):
        assert a == b, f"{path}: {a} vs {b}"
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{path}: len {len(a)} vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}[{i}]", seen)
    elif isinstance(a, functools.partial):
        assert a.func is b.func, path
        _same(a.args, b.args, f"{path}.args", seen)
        _same(a.keywords, b.keywords, f"{path}.keywords", seen)
    elif isinstance(a, (MethodType, BuiltinMethodType)):
        assert a.__name__ == b.__name__, path
        _same(a.__self__, b.__self__, f"{path}.__self__", seen)
    elif isinstance(a, enum.Enum):
        assert a is b, f"{path}: {a!r} vs {b!r}"
    elif dataclasses.is_dataclass(a) or hasattr(a, "__dict__") or hasattr(a, "__slots__"):
        names = set(getattr(a, "__dict__", {})) | set(getattr(b, "__dict__", {}))
        for cls in type(a).__mro__:
            names |= set(getattr(cls, "__slots__", ()))
        for name in sorted(names):
            if hasattr(a, name) or hasattr(b, name):
                _same(getattr(a, name), getattr(b, name), f"{path}.{name}", seen)
    else:
        assert a == b, f"{path}: {a!r} vs {b!r}"


def _first_frame_stylesheet() -> Stylesheet:
    """The app's stylesheet after the board's first frame (the default sample, headless)."""
    from ksandbox import cli
    from ksandbox.resources import sample_cluster_path
    from ksandbox.tui.app import make_app

    session = cli._load_session([str(sample_cluster_path("default"))], 0)
    out: list[Stylesheet] = []

    async def run() -> None:
        app = make_app(session, ticking=False)
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.pause()
            out.append(app.stylesheet)

    asyncio.run(run())
    return out[0]


@pytest.fixture(scope="module")
def parsed() -> Stylesheet:
    return _first_frame_stylesheet()


@pytest.fixture
def writable(monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def _fresh(parsed: Stylesheet) -> Stylesheet:
    return Stylesheet(variables=dict(parsed._variables))


def test_rules_from_the_cache_equal_a_fresh_parse(parsed, tmp_path, writable):
    path = tmp_path / "rules.bin"
    assert css_cache.RulesCache(path, parsed._variables).save(parsed)
    keys = list(parsed._parse_cache.keys())
    # Textual's own sources, ours, and the board's: what the first screen is made of.
    sources = {key[1][1] or Path(key[1][0]).name for key in keys}
    assert {"ksandbox.tcss", "App.DEFAULT_CSS", "NodeBoard.DEFAULT_CSS",
            "KeyFooter.DEFAULT_CSS"} <= sources, sources

    loaded = _fresh(parsed)
    cache = css_cache.attach(loaded, path)
    assert cache is not None and len(cache.entries) == len(keys)
    reference = _fresh(parsed)
    for key in keys:
        css, read_from, is_default, tie_breaker, scope = key
        # A parse in a stylesheet that has never seen the file: Textual's own result.
        expected = reference._parse_rules(css, read_from, is_default, tie_breaker, scope)
        _same(loaded._parse_cache.get(key), expected, f"rules{read_from}")


def test_a_changed_css_text_is_parsed_afresh(parsed, tmp_path, writable, monkeypatch):
    path = tmp_path / "rules.bin"
    css_cache.RulesCache(path, parsed._variables).save(parsed)
    key = next(k for k in parsed._parse_cache.keys() if k[1][1] == "NodeBoard.DEFAULT_CSS")
    stylesheet = _fresh(parsed)
    css_cache.attach(stylesheet, path)
    calls: list[str] = []
    real = textual.css.stylesheet.parse

    def counting(scope, css, *args, **kwargs):
        calls.append(css)
        return real(scope, css, *args, **kwargs)

    monkeypatch.setattr("textual.css.stylesheet.parse", counting)
    css, read_from, is_default, tie_breaker, scope = key
    stylesheet._parse_rules(css, read_from, is_default, tie_breaker, scope)
    assert calls == []                                   # the stored text: no parse
    changed = css.replace("}", "  width: 7;\n}", 1)
    rules = stylesheet._parse_rules(changed, read_from, is_default, tie_breaker, scope)
    assert calls == [changed]                            # an edited source: parsed again
    assert "width: 7" in rules[0].css


def test_a_file_for_other_variables_or_another_textual_is_ignored(parsed, tmp_path, writable,
                                                                   monkeypatch):
    path = tmp_path / "rules.bin"
    css_cache.RulesCache(path, parsed._variables).save(parsed)
    assert css_cache.RulesCache(path, parsed._variables).entries
    other = dict(parsed._variables, primary="#123456")
    assert css_cache.RulesCache(path, other).entries == {}
    stylesheet = Stylesheet(variables=other)
    css_cache.attach(stylesheet, path)
    assert len(stylesheet._parse_cache) == 0
    # Another Textual (an upgrade, an edited parser module): another signature.
    real = css_cache._textual_signature()
    monkeypatch.setattr(css_cache, "_textual_signature",
                        lambda: ((real[0][0], real[0][1] + 1, real[0][2]),) + real[1:])
    assert css_cache.RulesCache(path, parsed._variables).entries == {}


def test_a_damaged_file_is_ignored(parsed, tmp_path, writable):
    path = tmp_path / "rules.bin"
    for content in (b"", b"not a pickle", b"\x80\x05K\x01.", json.dumps([1, 2]).encode()):
        path.write_bytes(content)
        stylesheet = _fresh(parsed)
        assert css_cache.attach(stylesheet, path) is not None
        assert len(stylesheet._parse_cache) == 0
    # ... and the next save replaces it with a good one.
    assert css_cache.RulesCache(path, parsed._variables).save(parsed)
    assert css_cache.RulesCache(path, parsed._variables).entries


def test_nothing_is_written_where_bytecode_may_not_be(parsed, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = tmp_path / "rules.bin"
    assert not css_cache.RulesCache(path, parsed._variables).save(parsed)
    assert not path.exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    (tmp_path / "a-file").write_text("")          # a folder that cannot be made: no cache
    assert not css_cache.RulesCache(tmp_path / "a-file" / "rules.bin",
                                    parsed._variables).save(parsed)


def test_an_unchanged_file_is_not_rewritten(parsed, tmp_path, writable):
    path = tmp_path / "rules.bin"
    assert css_cache.RulesCache(path, parsed._variables).save(parsed)
    again = css_cache.RulesCache(path, parsed._variables)
    stylesheet = _fresh(parsed)
    again.prime(stylesheet)
    assert not again.save(stylesheet)


FIRST_FRAME = """
import asyncio, json, sys
from pathlib import Path
import textual.css.stylesheet as ss
from ksandbox.tui import css_cache
css_cache._PATH = Path(sys.argv[1])
parsed = []
real = ss.parse
def counting(scope, css, *a, **k):
    parsed.append(css)
    return real(scope, css, *a, **k)
ss.parse = counting
from ksandbox import cli
from ksandbox.resources import sample_cluster_path
from ksandbox.tui.app import make_app
session = cli._load_session([str(sample_cluster_path("default"))], 0)
out = {}
async def run():
    app = make_app(session, ticking=False)
    async with app.run_test(size=(140, 40)) as pilot:
        for _ in range(100):        # the footer's keys come once the bindings are known
            await pilot.pause()
            if any(f.items for f in app.screen.query("KeyFooter")):
                break
        await pilot.pause()
        out["screen"] = app.export_screenshot()
        # named by type, id and sorted classes: str(widget) lists the classes in set order,
        # which differs between interpreters (string hash seed)
        out["styles"] = sorted(
            [f"{type(w).__name__}#{w.id}.{'.'.join(sorted(w.classes))}",
             sorted((k, str(v)) for k, v in w.styles.get_rules().items())]
            for w in app.screen.walk_children(with_self=True))
        sys.dont_write_bytecode = False     # as a user's start: it may write the file
        out["saved"] = app._css_cache.save(app.stylesheet)
        sys.dont_write_bytecode = True
asyncio.run(run())
out["parsed"] = len(parsed)
print(json.dumps(out))
"""


def test_a_start_from_the_cache_parses_nothing_and_renders_the_same(tmp_path):
    """Two fresh interpreters: the first parses and stores, the second parses nothing and
    renders the same screen, every widget with the same style rules."""
    path = tmp_path / "rules.bin"

    def start() -> dict:
        proc = subprocess.run([sys.executable, "-c", FIRST_FRAME, str(path)], cwd=ROOT,
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return json.loads(proc.stdout.splitlines()[-1])

    first = start()
    assert first["parsed"] > 10 and first["saved"] and path.exists()
    second = start()
    assert second["parsed"] == 0 and not second["saved"]
    assert second["styles"] == first["styles"]
    assert second["screen"] == first["screen"]
