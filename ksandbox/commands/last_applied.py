"""kubectl's last-applied-configuration: what client-side ``kubectl apply`` remembers.

kubectl apply keeps the manifest it applied in the object's
``kubectl.kubernetes.io/last-applied-configuration`` annotation (kubectl ``pkg/util/apply.go``
GetModifiedConfiguration): the object as kubectl read it from the file — only the fields the
file has, the namespace kubectl filled in, ``metadata.annotations`` present (``{}`` when the
file has none) and without this annotation itself — as compact JSON with sorted keys and a
final newline (Go's json.Encoder). ``kubectl create --save-config`` writes it too (and
``run``, ``create deployment|job|namespace`` and ``edit`` with ``--save-config``:
save_config.py); without the flag, ``kubectl create``, ``run``, a cluster loaded from files
leave it out, so a later apply warns that it is missing and cannot remove what earlier
manifests set.

The next apply compares three things (``api/strategicpatch.three_way``): that annotation (what
the user set last time), the new manifest with its annotation (what the user wants now) and
the live object (what everyone did since).
"""

from __future__ import annotations

import copy
import json
import math
from decimal import Decimal
from typing import Any

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"

# Go's encoder escapes these inside strings (HTML safety, and JavaScript's line separators).
_GO_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                             "\u2028": "\\u2028", "\u2029": "\\u2029"})


def go_json(value: Any) -> str:
    """encoding/json.Marshal of decoded JSON: compact, map keys sorted, HTML characters
    escaped, numbers as Go writes a float64 or int64."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{_go_string(str(k))}:{go_json(value[k])}"
                              for k in sorted(value, key=str)) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    if isinstance(value, str):
        return _go_string(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        return _go_float(value)
    return str(value)


def _go_string(s: str) -> str:
    return json.dumps(s, ensure_ascii=False).translate(_GO_ESCAPES)


def _go_float(f: float) -> str:
    """strconv.FormatFloat as encoding/json uses it: positional from 1e-6 up to 1e21,
    exponent form outside (``1e-07`` written ``1e-7``)."""
    if not math.isfinite(f):
        return "null"   # (json.Marshal refuses them; YAML cannot give one to a manifest here)
    if f.is_integer() and abs(f) < 1e21:
        return str(int(f))
    if f != 0 and (abs(f) < 1e-6 or abs(f) >= 1e21):
        mantissa, exp = repr(f).split("e")
        sign = "-" if exp.startswith("-") else "+"
        return f"{mantissa}e{sign}{exp.lstrip('+-').lstrip('0') or '0'}"
    text = repr(f)
    if "e" in text:   # Python's exponent form below 1e-4 or from 1e16: Go's is positional
        text = format(Decimal(text), "f")
    return text


def go_indent(text: str) -> str:
    """json.Indent(text, "", "  ") of compact JSON: the same tokens (escapes and key order
    kept), one element a line, what follows the value (the annotation's newline) kept."""
    out: list[str] = []
    depth = 0
    i, n = 0, len(text)
    fresh = False   # just opened a container: an empty one stays "{}" / "[]"
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            token = text[i:j + 1]
            i = j + 1
        else:
            token = c
            i += 1
        if fresh and token not in ("}", "]"):
            out.append("\n" + "  " * depth)
        fresh = False
        if token in ("{", "["):
            depth += 1
            out.append(token)
            fresh = True
        elif token in ("}", "]"):
            depth -= 1
            if out and out[-1] not in ("{", "["):
                out.append("\n" + "  " * depth)
            out.append(token)
        elif token == ",":
            out.append(",\n" + "  " * depth)
        elif token == ":":
            out.append(": ")
        else:
            out.append(token)
    return "".join(out)


def applied_manifest(raw: dict, namespace: str | None) -> dict:
    """The manifest as kubectl sends it: a copy of the document, the namespace kubectl filled
    in (``namespace``, for a namespaced kind), ``metadata.annotations`` without the
    last-applied annotation (``{}`` when none: GetModifiedConfiguration sets the map)."""
    data = copy.deepcopy(raw)
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        meta = data["metadata"] = {}
    if namespace is not None:
        meta["namespace"] = namespace
    annotations = meta.get("annotations")
    annotations = dict(annotations) if isinstance(annotations, dict) else {}
    annotations.pop(LAST_APPLIED, None)
    meta["annotations"] = annotations
    return data


def annotation_text(manifest: dict) -> str:
    """The annotation's value for :func:`applied_manifest`'s result (json.Encoder: with a
    final newline)."""
    return go_json(manifest) + "\n"


def with_annotation(manifest: dict, text: str) -> dict:
    """``modified``: the manifest carrying its own annotation (what apply's patch is
    computed against)."""
    out = copy.deepcopy(manifest)
    out["metadata"]["annotations"][LAST_APPLIED] = text
    return out
