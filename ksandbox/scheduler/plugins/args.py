"""Reading plugin args from a KubeSchedulerConfiguration's ``pluginConfig`` (plain YAML data).

Errors name the field under ``args`` (``scoringStrategy.resources[0].weight``) with upstream's
validation wording; the config loader prefixes the document and the pluginConfig entry.
"""

from __future__ import annotations

from typing import Any

from ...api.errors import KsandboxError


class ArgsError(KsandboxError):
    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")


def as_mapping(v: Any, path: str) -> dict:
    if not isinstance(v, dict):
        raise ArgsError(path, f"expected an object, got {type(v).__name__}")
    return v


def as_list(v: Any, path: str) -> list:
    if not isinstance(v, (list, tuple)):
        raise ArgsError(path, f"expected a list, got {type(v).__name__}")
    return list(v)


def as_int(v: Any, path: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, float) and v.is_integer():
            return int(v)
        raise ArgsError(path, f"expected an integer, got {type(v).__name__}")
    return v


def as_bool(v: Any, path: str) -> bool:
    if not isinstance(v, bool):
        raise ArgsError(path, f"expected a boolean, got {type(v).__name__}")
    return v
