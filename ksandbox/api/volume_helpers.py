"""Which PersistentVolume a claim may bind to: the rules the PV controller and the scheduler's
VolumeBinding plugin share.

Upstream keeps them in ``staging/src/k8s.io/component-helpers/storage/volume``
(``pv_helpers.go`` FindMatchingVolume, CheckNodeAffinity, IsVolumeBoundToClaim,
CheckVolumeModeMismatches, CheckAccessModes; ``helpers.go`` GetPersistentVolumeClass /
GetPersistentVolumeClaimClass), a library both the controller manager and the scheduler link.
Here too: ``controllers/persistentvolume.py`` and ``scheduler/plugins/volume_binding.py``
import this module, never each other. Ported in our own words.

Not here: the PV controller's access-mode index order (candidates are tried smallest capacity
first, ties by name), volume attributes classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping

from .quantity import Quantity
from .selectors import IN, NOT_IN, requirement_matches
from .storage_names import (
    BINDING_WAIT,
    PV_AVAILABLE,
    RWOP,
)

if TYPE_CHECKING:
    from ..api.core import Node, Pod

STORAGE = "storage"
# volume.NotSupportedProvisioner: a class whose volumes are made by hand (local volumes).
NOT_SUPPORTED_PROVISIONER = "kubernetes.io/no-provisioner"
# The legacy class annotations, still read before the spec fields.
BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
OBJECT_NAME_FIELD = "metadata.name"


def claim_class(pvc: Any) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName."""
    ann = pvc.metadata.annotations.get(BETA_CLASS_ANNOTATION)
    if ann is not None:
        return ann
    return pvc.spec.storage_class_name or ""


def volume_class(pv: Any) -> str:
    """GetPersistentVolumeClass."""
    ann = pv.metadata.annotations.get(BETA_CLASS_ANNOTATION)
    if ann is not None:
        return ann
    return pv.spec.storage_class_name or ""


def requested_storage(pvc: Any) -> Quantity:
    raw = pvc.spec.resources.requests.get(STORAGE)
    return Quantity.coerce(raw) if raw is not None else Quantity.coerce(0)


def volume_capacity(pv: Any) -> Quantity:
    raw = pv.spec.capacity.get(STORAGE)
    return Quantity.coerce(raw) if raw is not None else Quantity.coerce(0)


def node_selector_matches_labels(selector: Any, labels: Mapping[str, str], name: str) -> bool:
    """A NodeSelector against a node's labels and name (terms ORed, requirements ANDed; an
    empty term matches nothing)."""
    for term in selector.node_selector_terms:
        if not term.match_expressions and not term.match_fields:
            continue
        ok = all(requirement_matches(r.operator, r.key, r.values, labels)
                 for r in term.match_expressions)
        for r in term.match_fields:
            if r.key != OBJECT_NAME_FIELD or r.operator not in (IN, NOT_IN):
                ok = False
            elif (name in r.values) != (r.operator == IN):
                ok = False
        if ok:
            return True
    return False


def check_node_affinity(pv: Any, labels: Mapping[str, str], name: str = "") -> bool:
    """CheckNodeAffinity: a volume without required node affinity is usable everywhere."""
    na = pv.spec.node_affinity
    if na is None or na.required is None:
        return True
    return node_selector_matches_labels(na.required, labels, name)


def is_bound_to_claim(pv: Any, pvc: Any) -> bool:
    """IsVolumeBoundToClaim: the claimRef names the claim (and its uid, when it has one)."""
    ref = pv.spec.claim_ref
    if ref is None:
        return False
    if ref.name != pvc.metadata.name or (ref.namespace or "") != pvc.metadata.namespace:
        return False
    return not ref.uid or ref.uid == pvc.metadata.uid


def volume_mode_mismatch(pvc: Any, pv: Any) -> bool:
    """CheckVolumeModeMismatches: unset means Filesystem on both sides."""
    return (pvc.spec.volume_mode or "Filesystem") != (pv.spec.volume_mode or "Filesystem")


def access_modes_ok(pvc: Any, pv: Any) -> bool:
    """CheckAccessModes: the volume offers every mode the claim asks for."""
    have = set(pv.spec.access_modes)
    return all(m in have for m in pvc.spec.access_modes)


def find_matching_volume(pvc: Any, volumes: Iterable[Any], node: Node | None = None,
                         excluded: Iterable[str] = (), delay_binding: bool = False) -> Any:
    """FindMatchingVolume: a volume pre-bound to the claim wins; otherwise the smallest
    Available volume of the claim's class, with enough capacity, the same volume mode, the
    access modes, labels the claim's selector matches and (on the scheduler's path, ``node``
    given) node affinity the node satisfies. With ``delay_binding`` and no node (the PV
    controller looking at a WaitForFirstConsumer claim) only a pre-bound volume matches."""
    requested = requested_storage(pvc)
    want_class = claim_class(pvc)
    selector = pvc.spec.selector
    skip = set(excluded)
    best, best_qty = None, None
    for pv in sorted(volumes, key=lambda v: v.metadata.name):
        if pv.metadata.name in skip:
            continue
        if pv.spec.claim_ref is not None and not is_bound_to_claim(pv, pvc):
            continue
        qty = volume_capacity(pv)
        if qty < requested or volume_mode_mismatch(pvc, pv):
            continue
        if pv.metadata.deletion_timestamp is not None:
            continue
        affinity_ok = True
        if node is not None:
            affinity_ok = check_node_affinity(pv, node.metadata.labels, node.metadata.name)
        if is_bound_to_claim(pv, pvc):
            return pv if affinity_ok else None
        if node is None and delay_binding:
            continue
        if (pv.status.phase or PV_AVAILABLE) != PV_AVAILABLE:
            continue
        if selector is not None and not selector.matches(pv.metadata.labels):
            continue
        if volume_class(pv) != want_class or not affinity_ok:
            continue
        if node is not None and not access_modes_ok(pvc, pv):
            continue
        if node is None and not access_modes_ok(pvc, pv):
            continue   # the controller's index only offers volumes with the claim's modes
        if best_qty is None or qty < best_qty:
            best, best_qty = pv, qty
    return best


def is_delay_binding(pvc: Any, classes: Mapping[str, Any]) -> bool:
    """IsDelayBindingMode: the claim's class binds WaitForFirstConsumer."""
    name = claim_class(pvc)
    sc = classes.get(name) if name else None
    return sc is not None and sc.binding_mode == BINDING_WAIT


def read_write_once_pod(pvc: Any) -> bool:
    return RWOP in pvc.spec.access_modes


def pod_claim_names(pod: Pod) -> list[str]:
    """The claims a pod's volumes name (persistentVolumeClaim.claimName), in order."""
    out = []
    for v in pod.spec.volumes:
        src = v.persistent_volume_claim
        if src is not None:
            out.append(src.get("claimName", "") if hasattr(src, "get") else "")
    return out


def topology_terms_match(terms: Any, labels: Mapping[str, str]) -> bool:
    """MatchTopologySelectorTerms: no terms match everything; otherwise any term whose every
    ``matchLabelExpressions`` entry (key In values) holds."""
    if not terms:
        return True
    for term in terms:
        exprs = term.get("matchLabelExpressions") if hasattr(term, "get") else None
        if not exprs:
            continue
        if all(hasattr(e, "get") and labels.get(e.get("key", "")) in (e.get("values") or ())
               for e in exprs):
            return True
    return False
