"""Validation: the API server's refusal of bad objects, in upstream's words.

``validate(store, obj, old=None)`` raises :class:`ValidationError` (``The Pod "x" is invalid:
...``) listing every problem found, as pkg/apis/core/validation and pkg/apis/apps/validation
do. Rules covered: object names, label keys and values, container names and images, requests
not above limits, tolerations and taints, nodeSelector keys, node-affinity operators,
topology spread constraints, host ports, replica counts, selectors matching templates, HPA
bounds, PDB shape, PriorityClass values, VPA enums and bounds.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable

from ..api import validation as v
from ..api.errors import FieldError, Unquoted, ValidationError
from ..api.evolve import by_identity
from ..api.selectors import atoi_clamped
from ..api.taints import validate_taints
from .validation_pod import (
    _cached,
    _quantity_nonneg,
    dns1123_label_errors,
    validate_pod_spec,
    validate_template_spec,
)

if TYPE_CHECKING:
    from ..api.core import Node, Pod
    from ..apiserver.store import Store

Errors = list[FieldError]

# pkg/apis/scheduling: user-defined classes may not exceed one billion.
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000


_labels_cache: dict[Any, list[FieldError]] = {}


def _labels(labels: Any, path: str) -> list[FieldError]:
    if not labels:
        return []
    return _cached(_labels_cache, (labels, path), lambda: v.validate_labels(labels, path))


def validate(store: Store, obj: Any, old: Any = None) -> None:
    errs: Errors = []
    # An update that kept the stored metadata object (a lease renewal, a node's status post,
    # a scale) has nothing new there: the stored object passed these very checks. Only a new
    # metadata value (labels, name) is checked again.
    if old is None or obj.metadata is not old.metadata:
        _meta(obj, errs)
    fn = _BY_KIND.get(obj.kind)
    if fn is not None:
        fn(obj, errs)
    if old is not None and obj.kind in _SELECTOR_IMMUTABLE and obj.spec is not old.spec:
        _immutable_selector(obj, old, errs)   # (a status write keeps the spec: not asked)
    if errs:
        raise ValidationError(obj.kind, obj.metadata.name, errs)


# The apps/v1 strategies' ValidateUpdate (deployment, replicaset, daemonset strategy.go): a
# workload's selector may not change (only the removed extensions/v1beta1 and apps/v1beta*
# allowed it), checked after the object's own validation.
_SELECTOR_IMMUTABLE = frozenset({"Deployment", "ReplicaSet", "DaemonSet"})


def _immutable_selector(obj: Any, old: Any, errs: Errors) -> None:
    new_sel, old_sel = obj.spec.selector, old.spec.selector
    if new_sel is old_sel or new_sel == old_sel:
        return
    errs.append(FieldError("spec.selector", Unquoted(go_label_selector(new_sel)),
                           "field is immutable"))


def go_label_selector(sel: Any) -> str:
    """fmt's %#v of a metav1.LabelSelector, as field.Invalid prints a struct value (the
    famous ``v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, ...}``)."""
    if sel is None:
        return "null"

    def q(s: str) -> str:
        return json.dumps(s, ensure_ascii=False)

    labels = sel.match_labels
    if not labels:   # (an empty matchLabels is decoded to nil)
        shown = "map[string]string(nil)"
    else:
        shown = "map[string]string{" + ", ".join(f"{q(k)}:{q(labels[k])}"
                                                 for k in sorted(labels)) + "}"
    reqs = sel.match_expressions
    if not reqs:
        exprs = "[]v1.LabelSelectorRequirement(nil)"
    else:
        items = []
        for r in reqs:
            values = ("[]string{" + ", ".join(q(v) for v in r.values) + "}") if r.values \
                else "[]string(nil)"
            items.append(f"v1.LabelSelectorRequirement{{Key:{q(r.key)}, "
                         f"Operator:{q(r.operator)}, Values:{values}}}")
        exprs = "[]v1.LabelSelectorRequirement{" + ", ".join(items) + "}"
    return f"v1.LabelSelector{{MatchLabels:{shown}, MatchExpressions:{exprs}}}"


def has_kind_rules(kind: str) -> bool:
    """Whether :func:`validate` checks more than the metadata of an object of ``kind``."""
    return kind in _BY_KIND


def _meta(obj: Any, errs: Errors) -> None:
    meta = obj.metadata
    name = meta.name
    if not name:
        errs.append(FieldError.required("metadata.name", "name or generateName is required"))
    else:
        for msg in v.validate_object_name(obj.kind, name):
            errs.append(FieldError("metadata.name", name, msg))
    if meta.namespace:
        for msg in by_identity(dns1123_label_errors, meta.namespace):
            errs.append(FieldError("metadata.namespace", meta.namespace, msg))
    # (not by identity: a node's labels are its own, 5,000 entries kept for nothing)
    errs.extend(_labels(meta.labels, "metadata.labels"))


def _template_errors(template: Any, sel: Any, rc: bool,
                     selector_required: bool) -> tuple[FieldError, ...]:
    """The template's own errors (its labels, the selector against them, its pod spec)."""
    errs: Errors = []
    labels = template.metadata.labels
    errs.extend(v.validate_labels(labels, "spec.template.metadata.labels"))
    if rc:
        if sel and any(labels.get(k) != val for k, val in sel.items()):
            errs.append(FieldError("spec.template.metadata.labels", dict(labels),
                                   "`selector` does not match template `labels`"))
    elif sel is None or (not sel.match_labels and not sel.match_expressions):
        if selector_required:
            errs.append(FieldError.required("spec.selector"))
    elif not sel.matches(labels):
        errs.append(FieldError("spec.template.metadata.labels", dict(labels),
                               "`selector` does not match template `labels`"))
    validate_template_spec(template.spec, "spec.template.spec", errs)
    return tuple(errs)


def _pod(pod: Pod, errs: Errors) -> None:
    # by identity: pods of one template on one node share their admitted spec (admission's
    # admitted_spec), checked once
    errs.extend(by_identity(_pod_spec_errors, pod.spec))


def _pod_spec_errors(spec: Any) -> tuple[FieldError, ...]:
    errs: Errors = []
    validate_pod_spec(spec, "spec", errs)
    return tuple(errs)


def _node(node: Node, errs: Errors) -> None:
    errs.extend(validate_taints(node.spec.taints, "spec.taints"))
    for field, res in (("capacity", node.status.capacity),
                       ("allocatable", node.status.allocatable)):
        _quantity_nonneg(res, f"status.{field}", errs)


def _template(obj: Any, errs: Errors, selector_required: bool = True) -> None:
    spec = obj.spec
    # by identity: a scale or status-driven write keeps spec.template and spec.selector as the
    # same objects, so a Deployment's ReplicaSets are not re-checked label by label, container
    # by container, on every replica count the rollout writes
    errs.extend(by_identity(_template_errors, spec.template, spec.selector,
                            obj.kind == "ReplicationController", selector_required))
    replicas = getattr(spec, "replicas", None)
    if replicas is not None and replicas < 0:
        errs.append(FieldError("spec.replicas", replicas, "must be greater than or equal to 0"))
    if obj.kind == "Deployment" and spec.strategy.type == "RollingUpdate" and \
            spec.strategy.rolling_update is not None:
        ru = spec.strategy.rolling_update
        _rolling_update_deployment(ru.max_unavailable, ru.max_surge,
                                   "spec.strategy.rollingUpdate", errs)
    if obj.kind == "DaemonSet" and spec.update_strategy.type == "RollingUpdate" and \
            isinstance(spec.update_strategy.rolling_update, dict):
        ru = spec.update_strategy.rolling_update
        _rolling_update_daemonset(ru.get("maxUnavailable"), ru.get("maxSurge"),
                                  "spec.updateStrategy.rollingUpdate", errs)
    if obj.kind in ("Deployment", "ReplicaSet", "ReplicationController", "DaemonSet"):
        rp = spec.template.spec.restart_policy
        if rp and rp != "Always":
            errs.append(FieldError.not_supported("spec.template.spec.restartPolicy", rp,
                                                 ("Always",)))


_PERCENT_MSG = ("a valid percent string must be a numeric string followed by an ending '%' "
                "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")


def _percent(val: Any) -> int | None:
    """getPercentValue: the number of a valid ``N%`` string, else None."""
    if isinstance(val, str) and val.endswith("%") and val[:-1].isascii() and \
            val[:-1].isdigit():
        return atoi_clamped(val[:-1])   # strconv.Atoi, its range error ignored (clamped)
    return None


def _int_or_percent_value(val: Any) -> int:
    """getIntOrPercentValue (nil counts as 0, as the v1 validation swaps nil for zero)."""
    pct = _percent(val)
    if pct is not None:
        return pct
    return val if isinstance(val, int) else 0


def _positive_int_or_percent(val: Any, path: str, errs: Errors) -> None:
    """ValidatePositiveIntOrPercent."""
    if isinstance(val, str):
        if _percent(val) is None:
            errs.append(FieldError(path, Unquoted(val), _PERCENT_MSG))
    elif isinstance(val, int) and val < 0:
        errs.append(FieldError(path, val, "must be greater than or equal to 0"))


def _not_over_100(val: Any, path: str, errs: Errors) -> None:
    pct = _percent(val)
    if pct is not None and pct > 100:
        errs.append(FieldError(path, Unquoted(val), "must not be greater than 100%"))


def _rolling_update_deployment(unavailable: Any, surge: Any, path: str, errs: Errors) -> None:
    """apps validation ValidateRollingUpdateDeployment: both non-negative ints or percents,
    not both zero (such a rollout could never make progress), maxUnavailable at most 100%."""
    _positive_int_or_percent(unavailable, f"{path}.maxUnavailable", errs)
    _positive_int_or_percent(surge, f"{path}.maxSurge", errs)
    if _int_or_percent_value(unavailable) == 0 and _int_or_percent_value(surge) == 0:
        errs.append(FieldError(f"{path}.maxUnavailable", Unquoted(str(unavailable or 0)),
                               "may not be 0 when `maxSurge` is 0"))
    _not_over_100(unavailable, f"{path}.maxUnavailable", errs)


def _rolling_update_daemonset(unavailable: Any, surge: Any, path: str, errs: Errors) -> None:
    """ValidateRollingUpdateDaemonSet: exactly one of maxUnavailable and maxSurge non-zero."""
    _positive_int_or_percent(unavailable, f"{path}.maxUnavailable", errs)
    _positive_int_or_percent(surge, f"{path}.maxSurge", errs)
    _not_over_100(unavailable, f"{path}.maxUnavailable", errs)
    _not_over_100(surge, f"{path}.maxSurge", errs)
    has_unavailable = _int_or_percent_value(unavailable) != 0
    has_surge = _int_or_percent_value(surge) != 0
    if has_unavailable and has_surge:
        errs.append(FieldError(f"{path}.maxSurge", Unquoted(str(surge)),
                               "may not be set when maxUnavailable is non-zero"))
    elif not has_unavailable and not has_surge:
        errs.append(FieldError.required(f"{path}.maxUnavailable",
                                        "cannot be 0 when maxSurge is 0"))


def _hpa(hpa: Any, errs: Errors) -> None:
    s = hpa.spec
    if s.min_replicas is not None and s.min_replicas < 1:
        errs.append(FieldError("spec.minReplicas", s.min_replicas,
                               "must be greater than or equal to 1"))
    if s.max_replicas < 1:
        errs.append(FieldError("spec.maxReplicas", s.max_replicas,
                               "must be greater than 0"))
    elif s.min_replicas is not None and s.max_replicas < s.min_replicas:
        errs.append(FieldError("spec.maxReplicas", s.max_replicas,
                               "must be greater than or equal to `minReplicas`"))
    if not s.scale_target_ref.kind:
        errs.append(FieldError.required("spec.scaleTargetRef.kind"))
    if not s.scale_target_ref.name:
        errs.append(FieldError.required("spec.scaleTargetRef.name"))


def _pdb(pdb: Any, errs: Errors) -> None:
    s = pdb.spec
    if s.min_available is not None and s.max_unavailable is not None:
        errs.append(FieldError("spec", None, "minAvailable and maxUnavailable cannot be both set"))
    # policy validation ValidatePodDisruptionBudgetSpec: ValidatePositiveIntOrPercent and
    # IsNotMoreThan100Percent on each (a percent too long for Atoi is clamped, so refused).
    for field, val in (("minAvailable", s.min_available), ("maxUnavailable", s.max_unavailable)):
        if val is None:
            continue
        _positive_int_or_percent(val, f"spec.{field}", errs)
        _not_over_100(val, f"spec.{field}", errs)


def _priority_class(pc: Any, errs: Errors) -> None:
    if pc.value > HIGHEST_USER_DEFINABLE_PRIORITY and not pc.metadata.name.startswith("system-"):
        errs.append(FieldError("value", pc.value, f"maximum allowed value of a user defined "
                                                  f"priority is {HIGHEST_USER_DEFINABLE_PRIORITY}"))
    if pc.preemption_policy and pc.preemption_policy not in ("Never", "PreemptLowerPriority"):
        errs.append(FieldError.not_supported("preemptionPolicy", pc.preemption_policy,
                                             ("Never", "PreemptLowerPriority")))


def _vpa(vpa: Any, errs: Errors) -> None:
    """The VPA CRD's schema enums plus the VPA admission webhook's checks (validateVPA in
    vertical-pod-autoscaler/pkg/admission-controller/resource/vpa/handler.go)."""
    from ..api import vpa as vt

    s = vpa.spec
    ref = s.target_ref
    if ref is None:
        errs.append(FieldError.required("spec.targetRef"))
    else:
        if not ref.kind:
            errs.append(FieldError.required("spec.targetRef.kind"))
        if not ref.name:
            errs.append(FieldError.required("spec.targetRef.name"))
    up = s.update_policy
    if up is not None:
        if up.update_mode and up.update_mode not in vt.UPDATE_MODES:
            errs.append(FieldError.not_supported("spec.updatePolicy.updateMode", up.update_mode,
                                                 vt.UPDATE_MODES))
        if up.min_replicas is not None and up.min_replicas <= 0:
            errs.append(FieldError("spec.updatePolicy.minReplicas", up.min_replicas,
                                   "must be greater than 0"))
    rp = s.resource_policy
    names: set[str] = set()
    for i, cp in enumerate(rp.container_policies if rp is not None else ()):
        p = f"spec.resourcePolicy.containerPolicies[{i}]"
        if not cp.container_name:
            errs.append(FieldError.required(f"{p}.containerName"))
        elif cp.container_name in names:
            errs.append(FieldError.duplicate(f"{p}.containerName", cp.container_name))
        names.add(cp.container_name)
        if cp.mode and cp.mode not in vt.CONTAINER_MODES:
            errs.append(FieldError.not_supported(f"{p}.mode", cp.mode, vt.CONTAINER_MODES))
        if cp.controlled_values and cp.controlled_values not in vt.CONTROLLED_VALUES:
            errs.append(FieldError.not_supported(f"{p}.controlledValues", cp.controlled_values,
                                                 vt.CONTROLLED_VALUES))
        if cp.controlled_values and cp.mode == "Off":
            errs.append(FieldError(f"{p}.controlledValues", cp.controlled_values,
                                   "must not be specified if container scaling mode is Off"))
        for j_, res in enumerate(cp.controlled_resources or ()):
            if res not in vt.CONTROLLABLE_RESOURCES:
                errs.append(FieldError.not_supported(f"{p}.controlledResources[{j_}]", res,
                                                     vt.CONTROLLABLE_RESOURCES))
        _quantity_nonneg(cp.min_allowed, f"{p}.minAllowed", errs)
        _quantity_nonneg(cp.max_allowed, f"{p}.maxAllowed", errs)
        for name, hi in cp.max_allowed.items():
            lo = cp.min_allowed.get(name)
            if lo is not None and hi < lo:
                errs.append(FieldError(f"{p}.maxAllowed.{name}", str(hi),
                                       f"must be greater than or equal to minAllowed {lo}"))


_BY_KIND: dict[str, Callable[[Any, Errors], None]] = {
    "Pod": _pod, "Node": _node,
    "ReplicaSet": _template, "Deployment": _template, "DaemonSet": _template,
    "ReplicationController": _template,
    "HorizontalPodAutoscaler": _hpa, "PodDisruptionBudget": _pdb, "PriorityClass": _priority_class,
    "VerticalPodAutoscaler": _vpa,
}


def _register_object_validators() -> None:
    """The configuration, RBAC, networking, storage and batch kinds' rules live in their own
    modules (validation_objects.py, validation_batch.py)."""
    from .validation_batch import VALIDATORS as batch
    from .validation_objects import VALIDATORS as objects

    _BY_KIND.update(objects)
    _BY_KIND.update(batch)


_register_object_validators()
