"""Textual's parsed stylesheet rules, kept on disk like the package's bytecode.

Textual parses every CSS source the first screen uses (our ``themes/ksandbox.tcss``, 7.5 k
characters, and each widget's ``DEFAULT_CSS``: ~17 k characters in 21 sources) every time the
app starts: ~0.04 CPU s of the ~0.85 s to the first frame (issue 11 item 5). The result
depends only on the CSS text, where it was read from, the theme's variables (``$primary``...,
substituted while parsing) and Textual's own code, so it is stored after the first frame and
handed back to Textual's in-memory parse cache (``Stylesheet._parse_cache``, keyed by the CSS
text and its location) when the next start builds its stylesheet: a source whose text changed
misses and is parsed as before.

The file is one pickle of ``(format, stamp, {key: rules})``; ``stamp`` names the Python, the
theme variables and Textual's code (the size and modification time of the modules its parser
is made of, which a new version or an edited file changes). A file with another
stamp, a damaged file or one that unpickles to anything unexpected is ignored. It is written
the way bytecode is — never under PYTHONDONTWRITEBYTECODE, silently not when the folder is
read-only, atomically — beside the package's ``__pycache__``, the same trust as the ``.pyc``
files there. Deleting it is always safe.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
from pathlib import Path
from typing import Any

_FORMAT = 2
_PATH = Path(__file__).resolve().parent.parent / "__pycache__" / \
    f"tcss-rules.{sys.implementation.cache_tag}.bin"


def _textual_signature() -> tuple[tuple[str, int, int], ...]:
    """The modules of the installed Textual the parser is made of — the package's top level
    (colours, borders, geometry), ``css`` and ``layouts`` — as (name, size, mtime): a new
    version or an edited parser changes it. The widgets' ``DEFAULT_CSS`` is part of each
    entry's key, not of this."""
    import textual

    root = Path(textual.__file__).parent
    out: list[tuple[str, int, int]] = []
    for folder in (root, root / "css", root / "layouts"):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".py"):
                st = entry.stat()
                out.append((f"{folder.name}/{entry.name}", st.st_size, st.st_mtime_ns))
    return tuple(sorted(out))


def stamp(variables: dict[str, str]) -> str:
    """What parsed rules depend on besides their own key: Python, the theme's variables and
    Textual's code. The text itself (a few kilobytes), not a digest of it: hashlib would be
    imported for this alone before the first frame (it loads OpenSSL's libcrypto bindings,
    ~6 M instructions), and comparing the text is as exact."""
    return repr((sys.version, sorted(variables.items()), _textual_signature()))


class RulesCache:
    """The parsed rules of one stylesheet's variables, read from ``path``."""

    def __init__(self, path: Path, variables: dict[str, str]) -> None:
        self.path = path
        self.variables = dict(variables)
        self.stamp = stamp(variables)
        self.entries: dict[tuple, Any] = {}
        try:
            data = pickle.loads(path.read_bytes())
        except Exception:  # noqa: BLE001 - absent, damaged or foreign: parse as before
            return
        if isinstance(data, tuple) and len(data) == 3 and data[0] == _FORMAT \
                and data[1] == self.stamp and isinstance(data[2], dict):
            self.entries = data[2]

    def prime(self, stylesheet: Any) -> int:
        """Put the stored rules into ``stylesheet``'s parse cache (its variables must be the
        ones this cache was made for); returns how many."""
        cache = stylesheet._parse_cache
        if len(self.entries) > cache.maxsize:
            cache.grow(len(self.entries))
        for key, rules in self.entries.items():
            cache.set(key, rules)
        return len(self.entries)

    def save(self, stylesheet: Any) -> bool:
        """Write what ``stylesheet`` parsed, if that differs from the file (and this process
        may write bytecode). Rules with errors are never stored, nor rules parsed with other
        variables than the file's (a theme switched meanwhile)."""
        if sys.dont_write_bytecode or stylesheet._variables != self.variables:
            return False
        cache = stylesheet._parse_cache
        entries: dict[tuple, Any] = {}
        for key in list(cache.keys()):
            rules = cache.get(key)
            if isinstance(rules, list) and not any(rule.errors for rule in rules):
                entries[key] = rules
        if not entries or entries.keys() == self.entries.keys():
            return False
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(exist_ok=True)
            tmp.write_bytes(pickle.dumps((_FORMAT, self.stamp, entries),
                                         protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, self.path)
        except Exception:  # noqa: BLE001 - a read-only folder, an unpicklable value: no cache
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            return False
        self.entries = entries
        return True


def attach(stylesheet: Any, path: Path | None = None) -> RulesCache | None:
    """Prime ``stylesheet`` (its variables already set) from the file; the returned cache's
    ``save`` stores what it parsed. None when Textual's stylesheet no longer has the parse
    cache this relies on (then nothing changes)."""
    cache = getattr(stylesheet, "_parse_cache", None)
    variables = getattr(stylesheet, "_variables", None)
    if cache is None or not isinstance(variables, dict) or \
            not all(hasattr(cache, a) for a in ("keys", "get", "set", "grow", "maxsize")):
        return None
    try:
        rules = RulesCache(path or _PATH, variables)
        rules.prime(stylesheet)
    except Exception:  # noqa: BLE001 - the cache must never stop the app starting
        return None
    return rules
