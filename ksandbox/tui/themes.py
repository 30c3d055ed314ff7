"""The app's themes: the ``themes/*.yaml`` palettes, and the ``$ks-*`` variables they set.

A theme file holds a Textual ``Theme``'s fields plus ``variables`` for ksandbox's own colours
(taint effects, node and pod states, the countdown, the bars). The stylesheet
``themes/ksandbox.tcss`` is written only against variables, so a theme recolours the whole app;
:data:`VARIABLE_DEFAULTS` fills in any variable a theme leaves out (and lets Textual's built-in
themes work too).
"""

from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

from ..api import safeload
from ..api.errors import ManifestError
from ..resources import data_path

VARIABLE_DEFAULTS: dict[str, str] = {
    "ks-noschedule": "#e5a50a",
    "ks-prefernoschedule": "#8fb8de",
    "ks-noexecute": "#e0556b",
    "ks-ready": "#4ebf71",
    "ks-notready": "#e0556b",
    "ks-unknown": "#c678dd",
    "ks-cordoned": "#e5c07b",
    "ks-running": "#4ebf71",
    "ks-pending": "#e5a50a",
    "ks-failed": "#e0556b",
    "ks-terminating": "#7f8896",
    "ks-countdown": "#ff7a45",
    "ks-bar-fill": "#3d8fd1",
    "ks-bar-high": "#e5a50a",
    "ks-bar-empty": "#3a4350",
    "ks-marker": "#56b6c2",
    "ks-chosen": "#4ebf71",
    "ks-muted": "#7f8896",
}

_THEME_FIELDS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground",
                 "background", "surface", "panel", "boost")


def themes_dir() -> Path:
    return data_path("themes")


def stylesheet() -> Path:
    return themes_dir() / "ksandbox.tcss"


def theme_from_yaml(path: Path) -> Theme:
    try:
        data = safeload.load_file(path) or {}
    except ManifestError as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(data, dict) or not isinstance(data.get("primary"), str):
        raise ValueError(f"{path}: a theme needs at least a name and a primary colour")
    kwargs = {k: str(data[k]) for k in _THEME_FIELDS if data.get(k) is not None}
    variables = {str(k): str(v) for k, v in (data.get("variables") or {}).items()}
    return Theme(name=str(data.get("name") or path.stem), dark=bool(data.get("dark", True)),
                 variables=variables, **kwargs)


def load_themes() -> list[Theme]:
    """Every theme shipped in ``themes/`` (a broken file is skipped, never fatal)."""
    out = []
    try:
        folder = themes_dir()
    except FileNotFoundError:
        return out
    for path in sorted(folder.glob("*.yaml")):
        try:
            out.append(theme_from_yaml(path))
        except (OSError, ValueError):
            continue
    return out
