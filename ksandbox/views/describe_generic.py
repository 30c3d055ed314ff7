"""``kubectl describe`` for custom resources: kubectl's generic describer.

A kind kubectl has no describer for (the VerticalPodAutoscaler CRD) is described by
``genericDescriber`` in ``kubernetes/kubectl`` ``pkg/describe/describe.go``: Name, Namespace,
Labels and Annotations, then the whole object walked field by field (printUnstructuredContent)
— keys sorted, each printed as a "smart label" (``apiVersion`` → ``API Version``,
``containerName`` → ``Container Name``), maps and lists one level deeper, the metadata fields
already shown skipped — then the events.

Pure: reads the object and the store's events. Not here: the built-in kinds (``describe.py``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .describe_base import LEVEL_0, Writer, annotations_multiline, describe_events, labels_multiline
from .serialize import to_manifest

if TYPE_CHECKING:
    from ..apiserver.store import Store

# describe.go smartLabelFor: acronyms kept upper case.
_ACRONYMS = ("API", "URL", "UID", "OSB", "GUID")
_SKIP = (".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels",
         ".metadata.annotations")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def smart_label(field: str) -> str:
    """smartLabelFor: ``apiVersion`` → ``API Version``; names with other characters as is."""
    if any(not (ch.isalpha() or ch == "-") for ch in field):
        return field
    parts = _CAMEL.findall(field) or [field]
    out = []
    for part in parts:
        out.append(part.upper() if part.upper() in _ACRONYMS else part[:1].upper() + part[1:])
    return " ".join(out)


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _content(w: Writer, level: int, content: dict, prefix: str) -> None:
    for field in sorted(content):
        value = content[field]
        path = f"{prefix}.{field}"
        if path in _SKIP:
            continue
        if isinstance(value, dict):
            w.write(level, f"{smart_label(field)}:\n")
            _content(w, level + 1, value, path)
        elif isinstance(value, list):
            w.write(level, f"{smart_label(field)}:\n")
            for child in value:
                if isinstance(child, dict):
                    _content(w, level + 1, child, path)
                else:
                    w.write(level + 1, f"{_scalar(child)}\n")
        else:
            w.write(level, f"{smart_label(field)}:\t{_scalar(value)}\n")


def describe_generic(obj: Any, store: Store, now: float, show_events: bool = True) -> str:
    w = Writer()
    w.write(LEVEL_0, f"Name:\t{obj.metadata.name}\n")
    w.write(LEVEL_0, f"Namespace:\t{obj.metadata.namespace}\n")
    labels_multiline(w, "Labels", obj.metadata.labels)
    annotations_multiline(w, "Annotations", obj.metadata.annotations)
    _content(w, LEVEL_0, to_manifest(obj), "")
    if show_events:
        describe_events(w, store.events_for(obj.kind, obj.metadata.name,
                                            obj.metadata.namespace), now)
    return w.render()
