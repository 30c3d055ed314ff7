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

Deliberate difference kept from apply.py: the objects of one apply are written all or
nothing (``store.apply_all``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs

from ..api.codec import FrozenDict, encode, thaw
from ..api.errors import ApiError
from ..api.evolve import evolve
from ..api.kinds import BY_KIND
from ..api.strategicpatch import PatchError, apply_patch, three_way
from ..apiserver.admission import applied_node_status
from .last_applied import LAST_APPLIED, annotation_text, applied_manifest, go_json, with_annotation
from .patch import decode_patched

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
    warning = "" if stored is not None else MISSING_ANNOTATION.format(
        name=f"{info.resource}/{meta.name}", annotation=LAST_APPLIED)
    current = thaw(encode(live))
    try:
        original = json.loads(stored) if stored else None
        patch = three_way(original if isinstance(original, dict) else None,
                          with_annotation(manifest, text), current)
    except (ValueError, PatchError) as err:
        raise ApiError("BadRequest", f"error when applying patch: {err}", 400) from None
    if not patch:
        return Step(live, "unchanged", warning)
    try:
        patched_data = apply_patch(current, patch)
    except PatchError as err:
        raise ApiError("BadRequest", str(err), 400) from None
    try:
        patched = decode_patched(info, live, patched_data, meta.name)
    except ApiError as err:
        if err.reason != "Conflict":
            raise
        # apply.go's AddSourceToErr("applying patch: ..."): the patch sent, the object it
        # was sent to (resource.Info's text) and the file, before the server's words
        raise ApiError("Conflict", f"error when applying patch:\n{go_json(patch)}\nto:\n"
                       f"{_info_text(obj, info)}\nfor: \"{source}\": {err.message}",
                       409) from None
    if obj.kind == "Node":
        status = applied_node_status(live, obj)   # (the sandbox's own rule: its size)
        if status is not None:
            patched = evolve(patched, status=status)
    return Step(patched, "configured", warning)


def _info_text(obj: Any, info: Any) -> str:
    """resource.Info's String(): the REST mapping's resource and kind (``%q`` of a
    GroupVersionResource and a GroupVersionKind, the core group empty), then the name."""
    group, _, version = obj.api_version.rpartition("/")
    gv = f"{group}/{version}"
    namespace = obj.metadata.namespace if info.namespaced else ""
    return (f'Resource: "{gv}, Resource={info.resource}", GroupVersionKind: '
            f'"{gv}, Kind={obj.kind}"\nName: "{obj.metadata.name}", Namespace: "{namespace}"')
