"""The user's TUI settings: theme and key map, in ``$XDG_CONFIG_HOME/ksandbox/config.yaml``.

::

    theme: ksandbox-light
    keymap:                 # binding id -> keys (Textual's keymap; see `?` for the ids)
      node.taint: ctrl+t
      node.drain: shift+r

A missing or unreadable file gives the defaults; a malformed one is reported once (the App
shows it as a warning) and otherwise ignored, so a typo never keeps the sandbox from opening.
Saving rewrites only the keys this module owns and keeps the others.

No Textual here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import attrs

from ..api import safeload
from ..api.errors import ManifestError

DEFAULT_THEME = "ksandbox-dark"


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ksandbox"


def config_file() -> Path:
    return config_dir() / "config.yaml"


@attrs.frozen
class UserConfig:
    theme: str = DEFAULT_THEME
    keymap: dict[str, str] = attrs.field(factory=dict)
    problem: str = ""
    """Why the file could not be used as written (empty when all is well)."""
    raw: dict[str, Any] = attrs.field(factory=dict, eq=False)


def load_config(path: Path | None = None) -> UserConfig:
    path = path or config_file()
    if not path.exists():
        return UserConfig()
    try:
        data = safeload.load_file(path) or {}
    except ManifestError as exc:   # unreadable, too big, too deep, bad YAML, duplicate keys
        return UserConfig(problem=str(exc))
    if not isinstance(data, dict):
        return UserConfig(problem=f"{path}: expected a mapping with theme and keymap")
    problems = []
    theme = data.get("theme", DEFAULT_THEME)
    if not isinstance(theme, str) or not theme:
        problems.append("theme: expected a theme name")
        theme = DEFAULT_THEME
    keymap_raw = data.get("keymap") or {}
    keymap: dict[str, str] = {}
    if not isinstance(keymap_raw, dict):
        problems.append("keymap: expected a mapping of binding id to keys")
    else:
        for k, v in keymap_raw.items():
            if isinstance(k, str) and isinstance(v, str) and v.strip():
                keymap[k] = v.strip()
            else:
                problems.append(f"keymap.{k}: expected keys as a string, e.g. ctrl+t")
    problem = f"{path}: " + "; ".join(problems) if problems else ""
    return UserConfig(theme=theme, keymap=keymap, problem=problem, raw=data)


def save_theme(theme: str, path: Path | None = None) -> bool:
    """Remember the chosen theme; other settings in the file are kept.

    A file that could not be read as written is left alone (False): rewriting it would lose
    what the user typed.
    """
    path = path or config_file()
    current = load_config(path)
    if current.problem:
        return False
    data = dict(current.raw)
    data["theme"] = theme
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".yaml.tmp")
    import yaml  # on use: PyYAML is not needed to start (api/safeload_pyyaml.py)

    tmp.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    tmp.replace(path)
    return True
