"""``kubectl patch TYPE NAME -p PATCH [--type strategic|merge|json]``.

As kubectl's ``pkg/cmd/patch/patch.go`` with the API server's three patch types:

* ``strategic`` (the default): ``ksandbox.api.strategicpatch.apply_patch`` — maps merge key
  by key, ``null`` deletes; the lists the API marks ``patchStrategy: merge`` merge by their
  ``patchMergeKey`` (containers and env by ``name``, container ports by ``containerPort``,
  ...; finalizers as a set), with the ``$patch``, ``$retainKeys``, ``$setElementOrder`` and
  ``$deleteFromPrimitiveList`` directives; every other list is replaced.
* ``merge`` (RFC 7386 JSON merge patch): maps merged, ``null`` deletes, lists replaced.
* ``json`` (RFC 6902): ``add``, ``remove``, ``replace``, ``move``, ``copy``, ``test`` on JSON
  pointers.

The patched object is decoded, admitted and validated as an update (the stored status is
kept: the main resource's update ignores it). Output ``deployment.apps/web patched``, or
``patched (no change)``. Not here: ``--subresource``.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any, Callable

import attrs

from ..api.codec import decode, encode, thaw
from ..api.errors import (
    ApiError,
    CommandError,
    FieldError,
    GoTypeError,
    KsandboxError,
    RequestInvalid,
)
from ..api.kinds import BY_KIND
from ..api.safeload import load_yaml
from ..api.strategicpatch import apply_patch as strategic_merge
from ..apiserver.admission import check_pod_update, default_tolerations
from ..views.serialize import api_times
from .common import check_output, get_object, printed
from .get import go_value
from .parse import (
    DRY_RUN,
    NAMESPACE,
    OUTPUT,
    STR,
    Flag,
    dry_run_strategy,
    namespace_of,
    parse_flags,
    parse_targets,
)

if TYPE_CHECKING:
    from ..session import Session

TYPES = ("json", "merge", "strategic")


@attrs.frozen
class PatchCommand:
    kind: str
    name: str
    patch: str
    patch_type: str = "strategic"
    namespace: str = "default"
    dry_run: str = "none"
    output: str = ""


def parse(tokens: list[str]) -> PatchCommand:
    a = parse_flags("patch", tokens, (NAMESPACE, OUTPUT, DRY_RUN, Flag("patch", STR, "p", ""),
                                      Flag("type", STR, "", "strategic"),
                                      Flag("patch-file", STR, "", "")))
    check_output("patch", a["output"])
    if a["type"] not in TYPES:
        raise CommandError(f'--type must be one of [json merge strategic], not "{a["type"]}"')
    if a["patch-file"]:
        raise CommandError("kubectl patch --patch-file is not supported by ksandbox (give the "
                           "patch with -p)")
    if not a.has("patch") or not a["patch"]:
        raise CommandError("must specify --patch or --patch-file containing the contents of "
                           "the patch")
    targets = parse_targets("patch", a.positionals)
    if len(targets) != 1 or len(targets[0].names) != 1:
        raise CommandError("one resource is required: TYPE NAME or TYPE/NAME",
                           hint="See 'kubectl patch -h' for help and examples")
    _document(a["patch"])
    return PatchCommand(targets[0].info.kind, targets[0].names[0], a["patch"], a["type"],
                        namespace_of(a), dry_run_strategy(a), a["output"])


def _document(text: str) -> Any:
    """yaml.ToJSON of the patch text (JSON is YAML), or kubectl's parse error."""
    try:
        return load_yaml(text, "<patch>")
    except KsandboxError as err:
        detail = str(err).split("): ", 1)[-1]   # the YAML error, without our file prefix
        raise CommandError(f'unable to parse "{text}": {detail}') from None


# -- the three patch types -------------------------------------------------------------------

def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise CommandError(f'json patch: path "{path}" does not start with a slash')
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def _parent(doc: Any, parts: list[str], path: str) -> tuple[Any, str]:
    node = doc
    for p in parts[:-1]:
        if isinstance(node, dict) and p in node:
            node = node[p]
        elif isinstance(node, list) and p.isdigit() and int(p) < len(node):
            node = node[int(p)]
        else:
            raise CommandError(f'jsonpatch {path}: the path does not exist')
    return node, parts[-1]


def json_patch(doc: Any, ops: Any) -> Any:
    """RFC 6902 over plain JSON values."""
    if not isinstance(ops, list):
        raise CommandError("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    doc = copy.deepcopy(doc)
    for op in ops:
        if not isinstance(op, dict) or op.get("op") not in ("add", "remove", "replace", "move",
                                                            "copy", "test"):
            raise CommandError(f"Unexpected kind: {op.get('op') if isinstance(op, dict) else op}")
        kind, path = op["op"], str(op.get("path", ""))
        if kind in ("move", "copy"):
            src = _pointer(str(op.get("from", "")))
            node, last = _parent(doc, src, str(op.get("from", "")))
            value = _get(node, last, str(op.get("from", "")))
            if kind == "move":
                _remove(node, last, path)
            doc = _add(doc, _pointer(path), copy.deepcopy(value), path)
            continue
        parts = _pointer(path)
        if kind == "test":
            node, last = _parent(doc, parts, path) if parts else (None, "")
            have = _get(node, last, path) if parts else doc
            if have != op.get("value"):
                raise CommandError(f"testing value {path} failed: test failed")
            continue
        if kind == "remove":
            node, last = _parent(doc, parts, path)
            _remove(node, last, path)
        elif kind == "replace":
            node, last = _parent(doc, parts, path)
            _get(node, last, path)
            if isinstance(node, list):
                node[int(last)] = copy.deepcopy(op.get("value"))
            else:
                node[last] = copy.deepcopy(op.get("value"))
        else:
            doc = _add(doc, parts, copy.deepcopy(op.get("value")), path)
    return doc


def _get(node: Any, last: str, path: str) -> Any:
    if isinstance(node, dict) and last in node:
        return node[last]
    if isinstance(node, list) and last.isdigit() and int(last) < len(node):
        return node[int(last)]
    raise CommandError(f"jsonpatch {path}: the path does not exist")


def _remove(node: Any, last: str, path: str) -> None:
    _get(node, last, path)
    if isinstance(node, list):
        node.pop(int(last))
    else:
        del node[last]


def _add(doc: Any, parts: list[str], value: Any, path: str) -> Any:
    if not parts:
        return value
    node, last = _parent(doc, parts, path)
    if isinstance(node, list):
        if last == "-":
            node.append(value)
        elif last.isdigit() and int(last) <= len(node):
            node.insert(int(last), value)
        else:
            raise CommandError(f"jsonpatch add {path}: index out of bounds")
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise CommandError(f"jsonpatch add {path}: the path does not exist")
    return doc


# -- running ---------------------------------------------------------------------------------

def run(session: Session, cmd: PatchCommand, stdin: str | None) -> str:
    info = BY_KIND[cmd.kind]
    patch = _document(cmd.patch)

    def change(original: Any) -> Any:
        if cmd.patch_type == "json":
            return json_patch(original, patch)
        if not isinstance(patch, dict):
            raise CommandError(f'unable to parse "{cmd.patch}": expected a JSON object')
        if cmd.patch_type == "merge":
            return merge_patch(original, patch)
        return strategic_merge(original, patch)

    current, written = write_patched(session, info, cmd.name, cmd.namespace, change,
                                     cmd.dry_run, (cmd.patch_type, patch))
    if written is None:
        return printed(current, "patched (no change)", cmd.output, cmd.dry_run)
    return printed(written, "patched", cmd.output, cmd.dry_run)


def write_patched(session: Session, info: Any, name: str, namespace: str,
                  change: Callable[[Any], Any], dry_run: str = "none",
                  sent: tuple[str, Any] | None = None) -> tuple[Any, Any]:
    """The API server's PATCH: ``change`` turns the stored object's JSON into the new JSON,
    which is decoded, admitted and validated as an update (the stored status is kept: the
    main resource's update ignores it). Returns (stored, written), written ``None`` when the
    patch changed nothing. ``kubectl edit`` writes through here too. ``sent``: the patch
    type and document as kubectl sent them, for the words of a result that cannot be
    decoded (:func:`undecodable`)."""
    current = get_object(session.store, info, name, namespace)
    data = change(thaw(encode(current)))
    try:
        patched = decode_patched(info, current, data, name)
    except ApiError as err:
        cause = err.__cause__
        if sent is None or not isinstance(cause, GoTypeError):
            raise
        raise undecodable(sent[0], sent[1], data, cause) from None
    if patched == current:
        return current, None
    (written,) = session.store.update_all([patched], dry_run=dry_run != "none")
    return current, written


# storage's OptimisticLockErrorMsg: the detail of a write's Conflict on a stale resourceVersion
OPTIMISTIC_LOCK = ("the object has been modified; please apply your changes to the latest "
                   "version and try again")


def decode_patched(info: Any, current: Any, data: Any, name: str) -> Any:
    """The API server's handling of a patched object's JSON ``data`` (PATCH, and kubectl
    apply's patch): a stale resourceVersion in it a Conflict, decoded (a 400 if it cannot
    be), the stored status kept, and a pod's spec
    held to the pod update rules — its DefaultTolerationSeconds tolerations added again first,
    as the admission plugin does on updates too."""
    if not isinstance(data, dict):
        raise ApiError("BadRequest", "the patch made the object something other than an "
                       "object", 400)
    raw_meta = data.get("metadata")
    meta: dict = raw_meta if isinstance(raw_meta, dict) else {}
    if meta.get("name") != name:
        raise ApiError("BadRequest", "the name of the object "
                       f'({meta.get("name")}) does not match the name on the URL ({name})',
                       400)
    version = meta.get("resourceVersion")
    if isinstance(version, str) and version and version != current.metadata.resource_version:
        # The registry's update takes the object's resourceVersion as its precondition: a
        # patch that carries one (an exported file's, through kubectl apply or edit) must
        # name the stored version.
        raise ApiError.conflict(info.display_resource, name, OPTIMISTIC_LOCK)
    try:
        patched = decode(info.type, json.loads(json.dumps(data)))
    except KsandboxError as err:
        raise ApiError("BadRequest", str(err), 400) from err
    if hasattr(current, "status") and hasattr(patched, "status"):
        patched = attrs.evolve(patched, status=current.status)
    if current.kind == "Pod" and patched.spec != current.spec:
        spec = patched.spec
        tolerations = default_tolerations(spec.tolerations)
        if tolerations != spec.tolerations:
            spec = attrs.evolve(spec, tolerations=tolerations)
        patched = attrs.evolve(patched, spec=check_pod_update(name, current.spec, spec))
    return patched


# -- a patched object the server cannot decode -------------------------------------------------
# apiserver endpoints/handlers/patch.go: a JSON or merge patch's result is decoded from JSON
# (encoding/json's words, the patched object's JSON as the bad value); a strategic merge
# patch's is converted from a map (the unstructured converter's words, the patch map as Go's
# %+v prints it). Either is an Invalid that names no object: "The request is invalid: ...".

def undecodable(patch_type: str, patch: Any, data: Any, err: GoTypeError) -> RequestInvalid:
    if patch_type == "strategic":
        value, detail = go_sprint(patch), err.converter_message()
    else:
        value, detail = go_json(api_times(data), _touched(patch_type, patch)), \
            err.json_message()
    return RequestInvalid([FieldError("patch", value, detail)])


def _touched(patch_type: str, patch: Any) -> Any:
    """The objects a JSON or merge patch went into, as a tree of dicts (``True``: all
    below): json-patch v4 parses those into Go maps, which marshal with sorted keys; the rest
    of the object keeps the order it was encoded in."""
    if patch_type == "merge":
        return patch if isinstance(patch, dict) else {}
    tree: dict = {}
    for op in patch if isinstance(patch, list) else ():
        if not isinstance(op, dict):
            continue
        for key in ("path", "from"):
            path = op.get(key)
            if not isinstance(path, str) or not path.startswith("/"):
                continue
            node = tree
            parts = [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]
            for part in parts[:-1]:
                node = node.setdefault(part, {})
                if node is True:
                    break
            else:
                node[parts[-1]] = True   # the value put there: kubectl sent it sorted
    return tree


def _ordered(value: Any, tree: Any, root: bool = False) -> Any:
    """``value`` with the keys of the objects in ``tree`` sorted (all of them below a leaf of
    the tree: a value the patch put there, which kubectl sent with sorted keys); the root is
    always a parsed document."""
    if tree is not True and not isinstance(tree, dict):
        tree = True
    if isinstance(value, list):
        if tree is True:
            return [_ordered(v, True) for v in value]
        return [_ordered(v, tree.get(str(i), {})) for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    if tree is True:
        return {k: _ordered(value[k], True) for k in sorted(value)}
    if tree or root:
        return {k: _ordered(value[k], tree.get(k, {})) for k in sorted(value)}
    return {k: _ordered(v, {}) for k, v in value.items()}


def go_json(data: Any, tree: Any) -> str:
    """encoding/json's compact text of ``data``: keys sorted where ``tree`` says, and the
    HTML characters escaped as Go escapes them."""
    text = json.dumps(_ordered(data, tree, root=True), separators=(",", ":"),
                      ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def go_sprint(value: Any) -> str:
    """Go's %+v of a decoded JSON value (commands/get.go_value), floats as %v prints a float64."""
    return go_value(value, _go_float)


def _go_float(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 64), which %v uses: the shortest digits, in %e form
    when the exponent is below -4 or at least 6 (the exponent of two digits at least)."""
    if f != f:
        return "NaN"
    if f in (float("inf"), float("-inf")):
        return "+Inf" if f > 0 else "-Inf"
    if f == 0:
        return "-0" if str(f).startswith("-") else "0"
    from decimal import Decimal

    sign, digits, exp = Decimal(repr(f)).normalize().as_tuple()
    text = "".join(map(str, digits))
    point = len(text) + int(exp)            # digits before the decimal point
    e = point - 1
    minus = "-" if sign else ""
    if e < -4 or e >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{minus}{mantissa}e{'-' if e < 0 else '+'}{abs(e):02d}"
    if point <= 0:
        return f"{minus}0.{'0' * -point}{text}"
    if point >= len(text):
        return f"{minus}{text}{'0' * (point - len(text))}"
    return f"{minus}{text[:point]}.{text[point:]}"
