"""Field errors shaped like apimachinery's ``field.Error``.

Every validation failure in ksandbox is a :class:`FieldError`: a field path, the bad value and a
type, printed the way the API server prints them, e.g.
``spec.taints[0].effect: Unsupported value: "NoSchedul": supported values: "NoExecute", ...``.
A :class:`ValidationError` groups the errors of one object under kubectl's header
``The Node "x" is invalid: ...``. A :class:`ManifestError` adds where in the input it happened
(file and document), which is what the CLI prints after ``error: ``.

Not here: kubectl's client-side errors (``invalid taint spec``) — those are plain
:class:`CommandError` messages raised by the command layer.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

# pkg/util/validation/field/errors.go: the ErrorType strings.
REQUIRED = "Required value"
INVALID = "Invalid value"
NOT_SUPPORTED = "Unsupported value"
DUPLICATE = "Duplicate value"
FORBIDDEN = "Forbidden"
TOO_LONG = "Too long"
NOT_FOUND = "Not found"

_NO_VALUE_TYPES = (REQUIRED, FORBIDDEN, TOO_LONG)


class Unquoted:
    """A bad value printed bare, as field.Error prints a value with a String() method
    (an IntOrString ``0``/``0%``, a Quantity)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def int_text(n: int) -> str:
    """An integer's digits — or, past Python's 4,300-digit str() limit, its size
    (``9...9 (5000 digits)``): a hostile number must not turn an error message into a crash."""
    if n.bit_length() < 14_000:
        return str(n)
    sign, m = ("-", -n) if n < 0 else ("", n)
    digits = int(m.bit_length() * 0.30103)        # within one of the true count
    while 10 ** digits <= m:
        digits += 1
    head = m // 10 ** (digits - 6)
    return f"{sign}{head}...{m % 10 ** 6:06d} ({digits} digits)"


def go_repr(value: Any) -> str:
    """Print a value as Go's %#v/%q would in a field error: strings quoted, numbers bare."""
    if isinstance(value, Unquoted):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int):
        return int_text(value)
    if isinstance(value, float):
        return str(value)
    return json.dumps(value, default=_json_default, sort_keys=True)


def _json_default(value: Any) -> Any:
    return str(value)


class KsandboxError(Exception):
    """Base of every error a user may see; ``str()`` is the kubectl-style line (no ``error:``)."""


class FieldError(KsandboxError):
    """One invalid field: ``path: <type>: <value>: <detail>`` as upstream prints it."""

    def __init__(self, path: str, value: Any, detail: str = "", kind: str = INVALID,
                 supported: Iterable[str] | None = None) -> None:
        self.path = path
        self.value = value
        self.detail = detail
        self.kind = kind
        self.supported = tuple(supported) if supported is not None else None
        super().__init__(str(self))

    def body(self) -> str:
        if self.kind in _NO_VALUE_TYPES:
            text = self.kind
        else:
            text = f"{self.kind}: {go_repr(self.value)}"
        if self.kind == NOT_SUPPORTED and self.supported is not None:
            quoted = ", ".join(json.dumps(s) for s in sorted(self.supported))
            return f"{text}: supported values: {quoted}"
        if self.detail:
            text = f"{text}: {self.detail}"
        return text

    def __str__(self) -> str:
        return f"{self.path}: {self.body()}" if self.path else self.body()

    @classmethod
    def required(cls, path: str, detail: str = "") -> "FieldError":
        return cls(path, None, detail, REQUIRED)

    @classmethod
    def not_supported(cls, path: str, value: Any, supported: Iterable[str]) -> "FieldError":
        return cls(path, value, "", NOT_SUPPORTED, supported)

    @classmethod
    def duplicate(cls, path: str, value: Any) -> "FieldError":
        return cls(path, value, "", DUPLICATE)

    @classmethod
    def forbidden(cls, path: str, detail: str) -> "FieldError":
        return cls(path, None, detail, FORBIDDEN)


class ValidationError(KsandboxError):
    """An object the API server refuses: ``The Pod "web" is invalid: <errors>``."""

    def __init__(self, kind: str, name: str, errors: list[FieldError]) -> None:
        self.kind = kind
        self.name = name
        self.errors = list(errors)
        super().__init__(str(self))

    def __str__(self) -> str:
        if len(self.errors) == 1:
            detail = str(self.errors[0])
        else:
            detail = "[" + ", ".join(str(e) for e in self.errors) + "]"
        return f'The {self.kind} "{self.name}" is invalid: {detail}'

    def kubectl_text(self) -> str:
        """What kubectl prints for it (cmdutil checkErr hands the causes to MultilineError):
        one cause on the line; several on lines of their own after it, each behind ``* ``.
        ``str()`` is the API server's message (an event's, a wrapped error's): ``[a, b]``."""
        if len(self.errors) < 2:
            return f"{self}\n"
        return (f'The {self.kind} "{self.name}" is invalid: \n'
                + "".join(f"* {e}\n" for e in self.errors))


class RequestInvalid(ValidationError):
    """An Invalid answer that names no object (errors.NewInvalid with an empty kind and name,
    as a PATCH whose result cannot be decoded gets): kubectl's checkErr says
    ``The request is invalid: <errors>``."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("", "", errors)

    def __str__(self) -> str:
        if len(self.errors) == 1:
            return f"The request is invalid: {self.errors[0]}"
        return "The request is invalid: [" + ", ".join(str(e) for e in self.errors) + "]"

    def kubectl_text(self) -> str:
        if len(self.errors) < 2:
            return f"{self}\n"
        return "The request is invalid: \n" + "".join(f"* {e}\n" for e in self.errors)


class ManifestError(KsandboxError):
    """Bad input in a file: names the file and document (1-based) before the cause."""

    def __init__(self, source: str, document: int | None, message: str) -> None:
        self.source = source
        self.document = document
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source
        if self.document is not None:
            where = f"{where} (document {self.document})"
        return f"{where}: {self.message}" if where else self.message


class ServerDecodeError(ManifestError):
    """A document the API server itself refuses to decode (a 400 Bad Request): a field its
    type does not have, under the strict field validation kubectl asks for, or a number its
    Go field cannot hold. Loading a file says it as any bad input (``ManifestError``); kubectl
    says it as the server's answer (commands/apply.py), hence the object it names."""

    def __init__(self, source: str, document: int | None, message: str, *, answer: str,
                 kind: str, name: str, namespace: str, data: Any = None) -> None:
        super().__init__(source, document, message)
        self.answer = answer        # the server's message, without the file's position
        self.kind = kind
        self.name = name
        self.namespace = namespace
        self.data = data            # the document as read (apply patches an existing object)


class ApiError(KsandboxError):
    """An error the API server answers with, as kubectl prints it.

    ``str()`` gives e.g. ``Error from server (NotFound): nodes "x" not found``.
    """

    def __init__(self, reason: str, message: str, code: int = 400) -> None:
        self.reason = reason
        self.message = message
        self.code = code
        super().__init__(str(self))

    def __str__(self) -> str:
        return f"Error from server ({self.reason}): {self.message}"

    @classmethod
    def not_found(cls, resource: str, name: str) -> "ApiError":
        return cls("NotFound", f'{resource} "{name}" not found', 404)

    @classmethod
    def already_exists(cls, resource: str, name: str) -> "ApiError":
        return cls("AlreadyExists", f'{resource} "{name}" already exists', 409)

    @classmethod
    def conflict(cls, resource: str, name: str, detail: str) -> "ApiError":
        return cls("Conflict", f'Operation cannot be fulfilled on {resource} "{name}": {detail}', 409)


class CommandError(KsandboxError):
    """A client-side (kubectl) error: printed as ``error: <message>`` plus optional hint lines."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(message)

    def __str__(self) -> str:
        return self.message


def error_line(exc: BaseException) -> str:
    """The line kubectl's cmdutil.checkErr prints for an error, without its newline: the API
    server's answers (``Error from server (NotFound): ...``, ``The Pod "x" is invalid: ...``)
    stand as they are; anything else gets ``error: `` in front, once (a message that already
    starts with it keeps its own)."""
    text = exc.message.rstrip() if isinstance(exc, CommandError) else str(exc)
    if isinstance(exc, (ApiError, ValidationError)) or text.startswith("error: "):
        return text
    return f"error: {text}"


def join_path(path: str, child: str) -> str:
    """``spec`` + ``taints`` → ``spec.taints`` (a bare child at the root)."""
    return f"{path}.{child}" if path else child


def go_field_path(path: str, root: str = "") -> str:
    """A field as encoding/json names it in an UnmarshalTypeError: its JSON path from the
    object's root (``root``: where the object sits in the document) without list indexes."""
    if root and path.startswith(root + "."):
        path = path[len(root) + 1:]
    return ".".join(p.split("[", 1)[0] for p in path.split("."))


def type_name(value: Any) -> str:
    """The JSON type of a decoded YAML value, as validation messages name it."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null" if value is None else type(value).__name__


def wrong_type(path: str, value: Any, expected: str, go_type: str = "",
               owner: str = "", go_path: str | None = None) -> "FieldError":
    """A field holding the wrong JSON type: ``path: Invalid value: 5: expected string, got integer``.
    ``go_type``: the Go type of a scalar field (``string``, ``int32``, ...), which makes it a
    :class:`GoTypeError` that can also say it as the API server's decoders do."""
    shown = type_name(value) if isinstance(value, (dict, list, tuple)) else value
    detail = f"expected {expected}, got {type_name(value)}"
    if go_type:
        return GoTypeError(path, shown, detail, value, go_type, owner, go_path, expected)
    return FieldError(path, shown, detail)


class GoTypeError(FieldError):
    """A value of the wrong JSON type for a scalar field. ``str()`` is ksandbox's field error
    (what loading a file says); the API server's decoders word it their own way, and a PATCH
    answers with one of them (commands/patch.py). ``owner``: the API type holding the field,
    set by the decoder of that type (codec.decode_plain). ``go_path``: the field's path for
    encoding/json when it is not ``path`` (a map's value: Go names the map, not the key)."""

    def __init__(self, path: str, shown: Any, detail: str, raw: Any, go_type: str,
                 owner: str = "", go_path: str | None = None, expected: str = "") -> None:
        super().__init__(path, shown, detail)
        self.expected = expected   # the JSON kind the field takes (errors.type_name's)
        self.raw = raw
        self.go_type = go_type
        self.owner = owner
        self.go_path = path if go_path is None else go_path

    def json_message(self, root: str = "") -> str:
        """encoding/json's UnmarshalTypeError (sigs.k8s.io/json): the JSON kind of the value,
        the struct holding the field and the field's JSON path without list indexes (from
        ``root``, the path of the object itself: ``items[3]`` in a List, whose items are
        sent one by one)."""
        raw = self.raw
        if isinstance(raw, bool):
            kind = "bool"
        elif isinstance(raw, (int, float)):
            # a number that an integer field cannot parse is named with its text
            kind = f"number {json.dumps(raw)}" if self.go_type.startswith("int") else "number"
        elif isinstance(raw, str):
            kind = "string"
        elif isinstance(raw, (list, tuple)):
            kind = "array"
        else:
            kind = "object"
        return (f"json: cannot unmarshal {kind} into Go struct field "
                f"{self.owner}.{go_field_path(self.go_path, root)} of type {self.go_type}")

    def converter_message(self) -> str:
        """runtime.DefaultUnstructuredConverter's refusal (a strategic merge patch's result
        is converted from a map, not decoded from JSON). A slice, map or struct field names
        the Go kind of the value it cannot restore the field from; a scalar field converts
        only within JSON's groups (an int64 is Go-convertible to a string, and refused in
        those words), and any other kind is a type it does not recognise (the field's kind)."""
        raw = self.raw
        go = self.go_type
        if self.expected in ("array", "object"):
            kind = ("bool" if isinstance(raw, bool) else "int64" if isinstance(raw, int)
                    else "float64" if isinstance(raw, float) else "string"
                    if isinstance(raw, str) else "slice" if isinstance(raw, (list, tuple))
                    else "map")
            if go.startswith("[]"):
                return f"cannot restore slice from {kind}"
            if go.startswith("map[") or go == "v1.ResourceList":
                return f"cannot restore map from {kind}"
            return f"cannot restore struct from: {kind}"
        field_kind = go if go in ("int32", "int64", "bool", "float64") else "string"
        if isinstance(raw, int) and not isinstance(raw, bool) and field_kind == "string":
            return f"cannot convert int64 to {go}"
        if isinstance(raw, float) and field_kind.startswith("int"):
            return f"cannot convert float64 to {go}"
        return f"unrecognized type: {field_kind}"
