"""Reading manifests: multi-document YAML and ``kind: List`` into typed objects.

``load_manifests(text, source)`` returns every object of a file or refuses the whole file with
one :class:`ManifestError` naming the file, the document (1-based) and the field path — the
loader is all-or-nothing so a bad document never leaves half a file applied. Only
``yaml.safe_load`` is used. Configuration documents (KubeSchedulerConfiguration, Policy,
KubeletConfiguration) come back as :class:`ConfigDocument` for their component to read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import attrs
import yaml

from .. import gcpolicy
from .codec import decode
from .errors import FieldError, ManifestError
from .kinds import BY_KIND, CONFIG_KINDS


# libyaml's safe loader when present (about 10× faster than the pure-Python one); both only
# build plain data — never arbitrary Python objects.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@attrs.frozen
class ConfigDocument:
    """A component configuration (not an API object), kept as plain data."""

    kind: str
    api_version: str
    data: dict
    source: str
    document: int


def _yaml_error(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if mark is not None:
        return f"error converting YAML to JSON: yaml: line {mark.line + 1}: {problem}"
    return f"error converting YAML to JSON: yaml: {problem}"


def iter_documents(text: str, source: str) -> Iterator[tuple[int, Any]]:
    """Yield (document number, data) for each non-empty YAML document."""
    if text.lstrip().startswith(("{", "[")):
        # `kubectl get -o json` output: JSON is YAML, and the json module is ~30× faster.
        try:
            data = json.loads(text)
        except ValueError:
            pass
        else:
            if data is not None:
                yield 1, data
            return
    try:
        docs = list(yaml.load_all(text, Loader=_SafeLoader))
    except yaml.YAMLError as exc:
        raise ManifestError(source, None, _yaml_error(exc)) from None
    for i, data in enumerate(docs, start=1):
        if data is None:
            continue
        yield i, data


def decode_object(data: Any, source: str, doc: int, path: str = "") -> Any:
    """One mapping → a typed object (or ConfigDocument); ManifestError on any problem."""
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise ManifestError(source, doc, f"{path or 'document'}: expected a mapping (an object "
                                         f"with apiVersion and kind), got {kind}")
    api_version, kind = data.get("apiVersion"), data.get("kind")
    missing = [f"{f} not set" for f, v in (("apiVersion", api_version), ("kind", kind)) if not v]
    if missing:
        raise ManifestError(source, doc, f"error validating data: [{', '.join(missing)}]")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        raise ManifestError(source, doc, "apiVersion and kind must be strings")
    if kind in CONFIG_KINDS and api_version in CONFIG_KINDS[kind]:
        return ConfigDocument(kind, api_version, data, source, doc)
    info = BY_KIND.get(kind)
    if info is None or api_version not in info.versions:
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        raise ManifestError(source, doc, f'resource mapping not found for name: '
                                         f'"{meta.get("name", "")}": no matches for kind '
                                         f'"{kind}" in version "{api_version}"')
    prefix = f"{path}." if path else ""
    try:
        obj = decode(info.type, data, path)
    except FieldError as exc:
        raise ManifestError(source, doc, f"{prefix}{exc}" if path and not str(exc).startswith(path)
                            else str(exc)) from None
    if not obj.metadata.name and not obj.metadata.generate_name:
        raise ManifestError(source, doc, f"{prefix}metadata.name: Required value: name or "
                                         f"generateName is required")
    return obj


@attrs.frozen
class Origin:
    """Where an object came from, so a later refusal can name the file and document."""

    source: str
    document: int | None = None
    path: str = ""

    def error(self, message: str) -> ManifestError:
        where = f"{self.path}: " if self.path else ""
        return ManifestError(self.source, self.document, where + message)


def load_manifests_with_origins(text: str, source: str = "<stdin>") -> list[tuple[Any, Origin]]:
    """Every object in a YAML text (``kind: List`` expanded) with its origin."""
    gcpolicy.tune()  # parsing makes millions of objects: see gcpolicy.py
    out: list[tuple[Any, Origin]] = []
    for doc, data in iter_documents(text, source):
        if isinstance(data, dict) and data.get("kind") == "List" and "items" in data:
            items = data.get("items") or []
            if not isinstance(items, list):
                raise ManifestError(source, doc, "items: expected a list")
            for i, item in enumerate(items):
                path = f"items[{i}]"
                out.append((decode_object(item, source, doc, path), Origin(source, doc, path)))
        else:
            out.append((decode_object(data, source, doc), Origin(source, doc)))
    return out


def load_manifests(text: str, source: str = "<stdin>") -> list[Any]:
    """Every object in a YAML text (``kind: List`` expanded), or one ManifestError."""
    return [obj for obj, _ in load_manifests_with_origins(text, source)]


def read_text(path: str | Path) -> str:
    """A manifest file's text, or kubectl's error for a path that does not exist."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ManifestError("", None, f'the path "{path}" does not exist') from None
    except IsADirectoryError:
        raise ManifestError(str(path), None, "is a directory, not a manifest file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(str(path), None, f"cannot read: {exc}") from None


def load_file_with_origins(path: str | Path) -> list[tuple[Any, Origin]]:
    return load_manifests_with_origins(read_text(path), str(path))


def load_file(path: str | Path) -> list[Any]:
    return load_manifests(read_text(path), str(path))
