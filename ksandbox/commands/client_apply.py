"""Client-side ``kubectl apply`` of one object (kubectl ``pkg/cmd/apply``: applyOneObject and
the patcher).

* A new object is created with its manifest in the last-applied annotation
  (CreateApplyAnnotation; ``kubectl create --save-config`` too).
* An existing object gets the three-way strategic merge patch of (its last-applied
  annotation, the new manifest carrying its annotation, the live object) —
  ``api/strategicpatch.three_way`` — applied as the API server applies a patch
  (``commands/patch.decode_patched``). An empty patch is ``unchanged`` and sends nothing; any
  other is ``configured``. A live object without the annotation (created by ``kubectl
  create``, ``run``, or loaded with the cluster) gets upstream's warning that it is missing
  and will be patched in: nothing is deleted then, as kubectl has no last manifest to compare.
  kubectl prints that warning before it computes the patch, so it is said even when the
  patch or its write then fails (apply.py puts it before the error).
* Errors in kubectl's words (cmdutil.AddSourceToErr): a patch kubectl cannot compute is
  ``error: error when applying patch:`` (no patch) ``... for: "FILE": error when creating
  patch with: ...`` and the three documents; the server's refusal of the patch is its
  ``Error from server (...)`` behind ``error when applying patch:`` (the patch sent, the
  object, the file); of a create, behind ``error when creating "FILE":``. A refusal as
  invalid is printed from its causes (``The Deployment "web" is invalid: ...``): kubectl's
  checkErr builds that line from the status details, which the wrapping leaves alone.

Deliberate difference kept from apply.py: the objects of one apply are written all or
nothing (``store.apply_all``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs

from ..api.codec import FrozenDict, encode, thaw
from ..api.errors import ApiError, CommandError, GoTypeError
from ..api.evolve import evolve
from ..api.kinds import BY_KIND
from ..api.strategicpatch import PatchError, apply_patch, three_way
from ..apiserver.admission import applied_node_status
from ..views.serialize import to_manifest
from .last_applied import LAST_APPLIED, annotation_text, applied_manifest, go_json, with_annotation
from .patch import decode_patched, undecodable

if TYPE_CHECKING:
    from ..apiserver.store import Store

# apply.go warningNoLastAppliedConfigAnnotation (%[1]s the object, %[3]s kubectl)
MISSING_ANNOTATION = ("Warning: resource {name} is missing the {annotation} annotation which "
                      "is required by kubectl apply. kubectl apply should only be used on "
                      "resources created declaratively by either kubectl create --save-config "
                      "or kubectl apply. The missing annotation will be patched "
                      "automatically.\n")


@attrs.frozen
class Step:
    """One object of an apply: what to write (a new object, or the existing one's next
    version), the word to print for an existing one (None: apply_all's), a warning."""

    obj: Any
    word: str | None = None
    warning: str = ""
    patch: str | None = None   # the patch sent (Go's JSON), None for an object created


def _manifest(obj: Any, data: Any) -> dict:
    info = BY_KIND[obj.kind]
    return applied_manifest(data, obj.metadata.namespace if info.namespaced else None)


def annotated(obj: Any, data: Any) -> Any:
    """``obj`` (decoded from the document ``data``) with its last-applied annotation
    (CreateApplyAnnotation)."""
    meta = obj.metadata
    text = annotation_text(_manifest(obj, data))
    return evolve(obj, metadata=evolve(meta, annotations=FrozenDict(
        {**meta.annotations, LAST_APPLIED: text})))


def missing_annotation_warning(store: Store, obj: Any) -> str:
    """apply.go's warning for an object that exists without the last-applied annotation
    ("" for a new object or one that has it)."""
    info = BY_KIND[obj.kind]
    meta = obj.metadata
    live = store.get(obj.kind, meta.name, meta.namespace if info.namespaced else "")
    return _missing(info, meta.name, live)


def _missing(info: Any, name: str, live: Any) -> str:
    if live is None or LAST_APPLIED in live.metadata.annotations:
        return ""
    return MISSING_ANNOTATION.format(name=f"{info.resource}/{name}", annotation=LAST_APPLIED)


def prepare(store: Store, obj: Any, data: Any, source: str = "") -> Step:
    """What ``kubectl apply`` sends for ``obj``, decoded from the document ``data`` of the
    file ``source``."""
    info = BY_KIND[obj.kind]
    meta = obj.metadata
    live = store.get(obj.kind, meta.name, meta.namespace if info.namespaced else "")
    if live is None:
        return Step(annotated(obj, data))
    manifest = _manifest(obj, data)
    text = annotation_text(manifest)
    stored = live.metadata.annotations.get(LAST_APPLIED)
    warning = _missing(info, meta.name, live)
    current = thaw(encode(live))
    modified = with_annotation(manifest, text)
    try:
        patch = three_way(_original(stored), modified, current)
    except PatchError as err:
        # patcher.go's createPatchErrFormat inside apply.go's "applying patch" (no patch yet)
        documents = (f"original:\n{stored or ''}\nmodified:\n{go_json(modified)}\n\n"
                     f"current:\n{go_json(to_manifest(live))}\n\n")
        raise CommandError(f"error when applying patch:\n\nto:\n{_info_text(obj, info)}\n"
                           f'for: "{source}": error when creating patch with:\n{documents}'
                           f'for: "{source}": {err}') from None
    if not patch:
        return Step(live, "unchanged", warning)
    sent = go_json(patch)
    try:
        patched_data = apply_patch(current, patch)
        patched = decode_patched(info, live, patched_data, meta.name)
    except PatchError as err:
        raise applying_patch(ApiError("BadRequest", str(err), 400), obj, sent,
                             source) from None
    except ApiError as err:
        if isinstance(err.__cause__, GoTypeError):
            # a value of the wrong kind or type (the manifest is sent as read): the server
            # cannot convert the patched map, an Invalid whose causes kubectl prints alone
            raise undecodable("strategic", patch, patched_data, err.__cause__) from None
        raise applying_patch(err, obj, sent, source) from None
    if obj.kind == "Node":
        status = applied_node_status(live, obj)   # (the sandbox's own rule: its size)
        if status is not None:
            patched = evolve(patched, status=status)
    return Step(patched, "configured", warning, sent)


def _original(stored: str | None) -> dict | None:
    """The last applied manifest; an annotation that is not a JSON object is strategicpatch's
    ErrBadJSONDoc (CreateThreeWayMergePatch unmarshals it into a map)."""
    if not stored:
        return None
    try:
        original = json.loads(stored)
    except ValueError:
        original = []
    if original is not None and not isinstance(original, dict):
        raise PatchError("invalid JSON document")
    return original


def applying_patch(err: ApiError, obj: Any, sent: str, source: str) -> ApiError:
    """The server's refusal of apply's patch as kubectl prints it: apply.go's AddSourceToErr
    of "applying patch" — the patch sent, the object it was sent to (resource.Info's text)
    and the file, before the server's words."""
    info = BY_KIND[obj.kind]
    return ApiError(err.reason, f"error when applying patch:\n{sent}\nto:\n"
                    f'{_info_text(obj, info)}\nfor: "{source}": {err.message}', err.code)


def sourced(err: Exception, step: Step, obj: Any, source: str) -> Exception:
    """A refusal of the write of one object of an apply or create (admission, quota, the
    store), in kubectl's words: behind "error when creating" for a new object, "applying
    patch" for an existing one. Invalid objects and client-side errors are left as they
    are (see the module docstring)."""
    if not isinstance(err, ApiError):
        return err
    if step.patch is None:
        return ApiError(err.reason, f'error when creating "{source}": {err.message}', err.code)
    return applying_patch(err, obj, step.patch, source)


def _info_text(obj: Any, info: Any) -> str:
    """resource.Info's String(): the REST mapping's resource and kind (``%q`` of a
    GroupVersionResource and a GroupVersionKind, the core group empty), then the name."""
    group, _, version = obj.api_version.rpartition("/")
    gv = f"{group}/{version}"
    namespace = obj.metadata.namespace if info.namespaced else ""
    return (f'Resource: "{gv}, Resource={info.resource}", GroupVersionKind: '
            f'"{gv}, Kind={obj.kind}"\nName: "{obj.metadata.name}", Namespace: "{namespace}"')
